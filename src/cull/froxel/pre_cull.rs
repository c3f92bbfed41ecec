//! The SIMD pre-cull of all lights against the whole view volume, and its sink, which queues
//! the survivors and decides them on the pre-cull's tier.

use super::{Froxels, LightCells, Scratch};
use crate::cull::numbering::CellOrder;
use crate::cull::runs::RunSink;
use crate::kernel::{Sink, SpheresVsViewVolume, ViewVolume};
use crate::lanes::Backend;
use crate::lanes::{Chunk, Lanes, Lanes64, left_pack_table};
use crate::round::f32_at_least;
use crate::soa::Spheres;

/// 2^-20: the relative slack of the f32 pre-cull (see `kernel/view_volume.rs`).
const PRE_CULL_SLACK: f64 = 1.0 / (1u64 << 20) as f64;

/// 2^-100: the pre-cull's absolute floor (covers underflow in the f32 plane distances).
const PRE_CULL_FLOOR: f64 = 1.0 / (1u128 << 100) as f64;

/// The f32 constants of the pre-cull of a grid with slopes `sx`, `sy` (`cx`, `cy` their
/// `1 / sqrt(1 + s^2)`) between depths `near` and `far`, `spread` as [`Froxels`] keeps it.
pub(super) fn view_volume(
    [sx, cx, sy, cy]: [&[f64]; 4],
    near: f64,
    far: f64,
    spread: f64,
) -> ViewVolume {
    // Outward side planes: the lower one of tile 0 (negated) and the upper one of the last.
    let plane = |s: &[f64], c: &[f64], i: usize, sign: f64| {
        [(sign * c[i]) as f32, (sign * s[i] * c[i]) as f32]
    };
    let (lx, ly) = (sx.len() - 1, sy.len() - 1);
    ViewVolume {
        side: [
            plane(sx, cx, 0, -1.0),
            plane(sx, cx, lx, 1.0),
            plane(sy, cy, 0, -1.0),
            plane(sy, cy, ly, 1.0),
        ],
        near: near as f32,
        far: far as f32,
        rel: f32_at_least(PRE_CULL_SLACK * spread),
        abs: f32_at_least(PRE_CULL_SLACK * far + PRE_CULL_FLOOR),
    }
}

impl Froxels {
    /// Pushes into `out` every run of froxels `(x..x + n, y, z)` each light of chunks `chunks`
    /// (16 lights each) meets, numbered in `order`, lights ascending: the SIMD pre-cull against
    /// the whole view volume (`kernel/view_volume.rs`) on `backend`, its survivors queued
    /// without a branch and, once [`QUEUE_AT`] or more wait, decided
    /// ([`for_each_hit`](Self::for_each_hit)) while their data is still in L1 (deciding them
    /// from a list afterwards cost a quarter of a `many_lights` frame; a loop over each chunk's
    /// bits, 4%: `docs/algorithms.md`, "Light assignment to froxels", step 2).
    pub(in crate::cull) fn assign_chunks(
        &self,
        lights: &Spheres,
        chunks: core::ops::Range<usize>,
        backend: Backend,
        order: CellOrder,
        scratch: &mut Scratch,
        out: &mut impl RunSink,
    ) {
        let kernel = SpheresVsViewVolume {
            cols: lights.view().chunks(chunks.clone()),
            v: self.volume,
        };
        let decide = Decide {
            froxels: self,
            lights,
            offset: chunks.start * Chunk::LANES,
            order,
            scratch,
            out,
            queue: [0; QUEUE],
            queued: 0,
        };
        let _ = crate::kernel::run(backend, &kernel, decide);
    }

    /// The lights of `lights` that may meet some froxel, ascending: the SIMD pre-cull alone.
    #[cfg(test)]
    pub(super) fn pre_cull(&self, lights: &Spheres, backend: Backend) -> Vec<u32> {
        let kernel = SpheresVsViewVolume {
            cols: lights.view(),
            v: self.volume,
        };
        crate::kernel::run(
            backend,
            &kernel,
            crate::query::sink::Indices::new(Vec::new()),
        )
        .finish()
    }
}

/// The sink of the pre-cull in [`Froxels::assign_chunks`]: decides each surviving light on the
/// pre-cull's tier, `W` its f64 lanes.
struct Decide<'a, O> {
    froxels: &'a Froxels,
    lights: &'a Spheres,
    /// The index of the first light of the chunks.
    offset: usize,
    /// How the grid numbers its cells.
    order: CellOrder,
    scratch: &'a mut Scratch,
    out: &'a mut O,
    /// The survivors not yet decided (indices from `offset`), ascending.
    queue: [u32; QUEUE],
    queued: usize,
}

/// Room for [`QUEUE_AT`] survivors and one more chunk's 16.
const QUEUE: usize = QUEUE_AT + 16;

/// The survivors queued before they are decided: few enough that their data, read by the
/// pre-cull a moment before, is still in L1.
const QUEUE_AT: usize = 48;

/// `SET_LANES[m]`: the positions of the set bits of `m`, ascending, then zeros: the index
/// writers' left-pack table ([`left_pack_table`]) as bytes.
static SET_LANES: [[u8; 8]; 256] = {
    let packed = left_pack_table::<256>();
    let mut t = [[0u8; 8]; 256];
    let mut m = 0;
    while m < 256 {
        t[m] = packed[m].to_le_bytes();
        m += 1;
    }
    t
};

impl<O: RunSink> Decide<'_, O> {
    /// Decides the queued survivors, in order, and empties the queue.
    #[inline(always)]
    fn decide_queued<W: Lanes64>(&mut self) {
        for q in 0..self.queued {
            let l = self.offset + self.queue[q] as usize;
            let light = self.lights.get(l).expect("a survivor is a light");
            let mut hit = LightCells {
                out: &mut *self.out,
                dims: self.froxels.dims,
                order: self.order,
                light: l as u32,
            };
            self.froxels
                .for_each_hit::<W>(light.center, light.radius, self.scratch, &mut hit);
        }
        self.queued = 0;
    }
}

impl<O: RunSink> Sink for Decide<'_, O> {
    #[inline(always)]
    fn push<V: Lanes>(&mut self, base: u32, bits: u32) -> bool {
        // The survivors join the queue without a branch per chunk or light: eight slots
        // written per half chunk from a table, the count advanced by the survivors'.
        for (h, half) in [bits & 0xff, bits >> 8 & 0xff].into_iter().enumerate() {
            let at = self.queued;
            let lanes = &SET_LANES[half as usize];
            for (slot, &lane) in self.queue[at..at + 8].iter_mut().zip(lanes) {
                *slot = base + 8 * h as u32 + u32::from(lane);
            }
            self.queued = at + half.count_ones() as usize;
        }
        if self.queued >= QUEUE_AT {
            self.decide_queued::<V::F64>();
        }
        false
    }

    #[inline(always)]
    fn finish<V: Lanes>(&mut self) {
        self.decide_queued::<V::F64>();
    }
}
