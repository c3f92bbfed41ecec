//! Kernels: one generic body per primitive pair, written once over [`Lanes`], and the driver that
//! walks a container chunk by chunk and hands each 16-lane chunk's hit mask to a [`Sink`].
//!
//! A kernel is a prepared query bound to a container's columns ([`Kernel`]); `block` evaluates one
//! vector of `V::N` primitives and returns their hit bits. [`drive_generic`] is the only loop: it
//! assembles chunk masks, masks the padding lanes of the last chunk, opens output windows and stops
//! early when the sink asks. [`run`] is the dispatch: one `match` on the backend per call, then the
//! whole batch runs on one tier. [`Prepared`] is what a bound query is: one kernel, or
//! [`Either`] of two chosen once per query.

mod box_box;
mod box_staged;
mod frustum;
mod obb_obb;
mod octahedron;
mod pairwise;
mod sphere_box;
mod sphere_obb;
mod sphere_sphere;
mod tet;
mod view_volume;

pub use box_box::AabbsVsBox;
pub(crate) use box_box::box_overlaps;
pub(crate) use box_staged::half_spaces;
pub use box_staged::{
    AabbsStagePrefix, AabbsVsBoxMinMax, AabbsVsBoxSevenSided, AabbsVsBoxXyz, BoxKernel,
};
pub(crate) use frustum::PlaneConstants;
pub use frustum::{AabbsVsFrustum, SpheresVsFrustum};
pub(crate) use obb_obb::{AABB_QUERY_SCALE, MARGIN_FLOOR, OBB_QUERY_SCALE};
pub use obb_obb::{AabbsVsObb, ObbsVsObb};
pub use octahedron::OctahedraVsOctahedron;
pub(crate) use octahedron::{PREFETCH_MIN_LEN, intersection_sums_meet};
pub use pairwise::{AabbPairs, OctahedronPairs, SphereAabbPairs, SphereObbPairs};
pub(crate) use sphere_box::HUGE_RADIUS_SCALE;
pub use sphere_box::{AabbsVsSphere, SpheresVsBox};
pub use sphere_obb::{ObbsVsSphere, ObbsVsSphereConservative};
pub use sphere_sphere::SpheresVsSphere;
pub(crate) use sphere_sphere::spheres_overlap;
pub(crate) use tet::all_le;
pub use tet::{TetsAbove, TetsBelow};
pub(crate) use view_volume::{SpheresVsViewVolume, ViewVolume};

use crate::Backend;
use crate::lanes::Lanes;
use crate::lanes::scalar::F32x1;
use crate::lanes::sse::F32x4;
use crate::soa::Chunk;

/// A query prepared against one container: evaluates blocks of `V::N` primitives.
pub trait Kernel {
    /// Number of primitives (lanes past it are padding).
    fn len(&self) -> usize;
    /// Hit bits of lanes `chunk * 16 + j * V::N ..` (bit `i` = lane `i` of the block, `V::N`
    /// bits). Padding lanes may be set; the driver masks them.
    fn block<V: Lanes>(&self, chunk: usize, j: usize) -> u32;
}

/// Where hit masks go: a count, a bitmap, an index list, or an early exit.
pub trait Sink {
    /// Called before each window of at most `lanes` lanes is pushed (lets an index writer make
    /// room once per window instead of once per chunk).
    #[inline(always)]
    fn window(&mut self, lanes: usize) {
        let _ = lanes;
    }
    /// Takes the 16 hit bits of the chunk starting at primitive `base` (bit `i` = primitive
    /// `base + i`); returns `true` to stop.
    fn push<V: Lanes>(&mut self, base: u32, bits: u32) -> bool;
    /// Called once, on the tier, after the last chunk was pushed (not after a `push` that
    /// returned `true`): a sink that holds work back finishes it here.
    #[inline(always)]
    fn finish<V: Lanes>(&mut self) {}
}

/// `K` column slices of one container, all `len.div_ceil(16)` chunks long.
#[derive(Clone, Copy)]
pub struct Cols<'a, const K: usize> {
    cols: [&'a [Chunk]; K],
    len: usize,
}

impl<'a, const K: usize> Cols<'a, K> {
    pub(crate) fn new(cols: [&'a [Chunk]; K], len: usize) -> Self {
        debug_assert!(cols.iter().all(|c| c.len() == len.div_ceil(Chunk::LANES)));
        Cols { cols, len }
    }

    /// Block `j` of chunk `chunk` of column `k`.
    #[inline(always)]
    pub(crate) fn load<V: Lanes>(&self, k: usize, chunk: usize, j: usize) -> V {
        // Re-slicing to the chunk count derived from `len` is loop-invariant; with the driver's
        // loop bound derived from the same `len`, the compiler drops the per-load bounds check.
        let col = &self.cols[k][..self.len.div_ceil(Chunk::LANES)];
        V::load(&col[chunk], j)
    }

    /// Prefetch hint for chunk `chunk` of column `k`; nothing past the end.
    #[inline(always)]
    pub(crate) fn prefetch(&self, k: usize, chunk: usize) {
        if let Some(c) = self.cols[k].get(chunk) {
            crate::lanes::prefetch(c);
        }
    }

    /// Blocks of three consecutive columns `first..first + 3`.
    #[inline(always)]
    pub(crate) fn load3<V: Lanes>(&self, first: usize, chunk: usize, j: usize) -> [V; 3] {
        [
            self.load(first, chunk, j),
            self.load(first + 1, chunk, j),
            self.load(first + 2, chunk, j),
        ]
    }

    /// Blocks of four consecutive columns `first..first + 4`.
    #[inline(always)]
    pub(crate) fn load4<V: Lanes>(&self, first: usize, chunk: usize, j: usize) -> [V; 4] {
        [
            self.load(first, chunk, j),
            self.load(first + 1, chunk, j),
            self.load(first + 2, chunk, j),
            self.load(first + 3, chunk, j),
        ]
    }

    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Column `k` of primitive `i < len`.
    #[inline(always)]
    pub(crate) fn lane(&self, k: usize, i: usize) -> f32 {
        self.cols[k][i / crate::soa::Chunk::LANES].0[i % crate::soa::Chunk::LANES]
    }

    /// The columns of chunks `chunks` only (primitive `chunks.start * 16` becomes primitive 0;
    /// the last chunk keeps its padding).
    pub(crate) fn chunks(&self, chunks: core::ops::Range<usize>) -> Self {
        let lanes = crate::soa::Chunk::LANES;
        let len = self
            .len
            .min(chunks.end * lanes)
            .saturating_sub(chunks.start * lanes);
        // A loop, not `self.cols.map(..)`: the array `map` was compiled out of line (a call per
        // query in the broadphase sweep and per stretch of `from_cells` grids).
        let mut cols = self.cols;
        for c in &mut cols {
            *c = &c[chunks.clone()];
        }
        Cols { cols, len }
    }
}

// Kernels avoid closures and `array::map` on lane values: they do not reliably inline into the
// AVX2 `#[target_feature]` entry point, and an out-of-line call passes `__m256` through memory.

/// All `V::N` lane bits set: a block's mask when every lane hits.
#[inline(always)]
pub(crate) fn all_lanes<V: Lanes>() -> u32 {
    (1u32 << V::N) - 1
}

/// Three query values splatted.
#[inline(always)]
pub(crate) fn splat3<V: Lanes>(v: [f32; 3]) -> [V; 3] {
    [V::splat(v[0]), V::splat(v[1]), V::splat(v[2])]
}

/// Four query values splatted.
#[inline(always)]
pub(crate) fn splat4<V: Lanes>(v: [f32; 4]) -> [V; 4] {
    [
        V::splat(v[0]),
        V::splat(v[1]),
        V::splat(v[2]),
        V::splat(v[3]),
    ]
}

/// Output windows are this many chunks (1,024 primitives): an index writer reserves room for one
/// window at a time.
const WINDOW_CHUNKS: usize = 64;

/// Hit bits of one 16-lane chunk: bit `i` = lane `i`, assembled from its `16 / V::N` blocks.
#[inline(always)]
fn chunk_bits<V: Lanes, K: Kernel>(kernel: &K, chunk: usize) -> u32 {
    // Written out for the 8- and 4-lane tiers: LLVM leaves a two-iteration loop rolled when the
    // kernel's rare path is large (the exact octahedron test), and then spills the query's
    // registers; unrolled, the exact test runs as fast as the conservative one.
    match Chunk::LANES / V::N {
        2 => kernel.block::<V>(chunk, 0) | kernel.block::<V>(chunk, 1) << V::N,
        4 => {
            (kernel.block::<V>(chunk, 0) | kernel.block::<V>(chunk, 1) << V::N)
                | (kernel.block::<V>(chunk, 2) << (2 * V::N)
                    | kernel.block::<V>(chunk, 3) << (3 * V::N))
        }
        blocks => {
            let mut bits = 0;
            for j in 0..blocks {
                bits |= kernel.block::<V>(chunk, j) << (j * V::N);
            }
            bits
        }
    }
}

/// The one loop every query runs: all full chunks, then the last chunk with its padding lanes
/// masked off. The sink sees one 16-bit mask per chunk.
#[inline(always)]
pub(crate) fn drive_generic<V: Lanes, K: Kernel, S: Sink>(kernel: &K, mut sink: S) -> S {
    let len = kernel.len();
    let full = len / Chunk::LANES;
    let mut chunk = 0;
    while chunk < full {
        let end = full.min(chunk + WINDOW_CHUNKS);
        sink.window((end - chunk) * Chunk::LANES);
        while chunk < end {
            let bits = chunk_bits::<V, K>(kernel, chunk);
            if sink.push::<V>((chunk * Chunk::LANES) as u32, bits) {
                return sink;
            }
            chunk += 1;
        }
    }
    let rest = len - full * Chunk::LANES;
    if rest > 0 {
        sink.window(Chunk::LANES);
        let bits = chunk_bits::<V, K>(kernel, full) & ((1u32 << rest) - 1);
        if sink.push::<V>((full * Chunk::LANES) as u32, bits) {
            return sink;
        }
    }
    sink.finish::<V>();
    sink
}

/// Dispatch: runs `kernel` over its container on `backend`, once per call, and returns the sink.
///
/// The sink travels by value through the tier's loop and comes back.
///
/// # Panics
/// If `backend` does not run on this CPU (callers obtain backends through
/// [`Backend::check`], so this is a bug guard, not a user-facing path).
#[inline]
#[must_use]
pub(crate) fn run<K: Kernel, S: Sink>(backend: Backend, kernel: &K, sink: S) -> S {
    match backend {
        Backend::Scalar => drive_generic::<F32x1, K, S>(kernel, sink),
        Backend::Sse => drive_generic::<F32x4, K, S>(kernel, sink),
        Backend::Avx2 => {
            assert!(
                backend.is_available(),
                "avx2 backend used on a CPU without it"
            );
            // SAFETY: the assert above checked that this CPU has AVX2, FMA and POPCNT, the
            // features `drive` is compiled with (off x86_64 the assert always fails).
            unsafe { crate::lanes::avx2::drive(kernel, sink) }
        }
        Backend::Avx512 => {
            assert!(
                backend.is_available(),
                "avx512 backend used on a CPU without it"
            );
            // SAFETY: the assert above checked that this CPU has AVX-512F, AVX2, FMA and
            // POPCNT, the features `drive` is compiled with (off x86_64 the assert always fails).
            unsafe { crate::lanes::avx512::drive(kernel, sink) }
        }
    }
}

/// Work written once over [`Lanes`] that is not one query over one container (the broadphase
/// sweep: a query per box, each over a different stretch of the sorted boxes): it runs whole on
/// one tier, so the `#[target_feature]` boundary is crossed once per batch.
pub(crate) trait Batch {
    /// Does the work with `V` lanes.
    fn run<V: Lanes>(&mut self);
}

/// Dispatch of a [`Batch`]: one `match` on the backend, then the whole batch on one tier.
///
/// # Panics
/// If `backend` does not run on this CPU (a bug guard, as for [`run`]).
#[inline]
pub(crate) fn run_batch<B: Batch>(backend: Backend, batch: &mut B) {
    match backend {
        Backend::Scalar => batch.run::<F32x1>(),
        Backend::Sse => batch.run::<F32x4>(),
        Backend::Avx2 => {
            assert!(
                backend.is_available(),
                "avx2 backend used on a CPU without it"
            );
            // SAFETY: the assert above checked that this CPU has AVX2, FMA and POPCNT, the
            // features `drive_batch` is compiled with (off x86_64 the assert always fails).
            unsafe {
                crate::lanes::avx2::drive_batch(batch);
            }
        }
        Backend::Avx512 => {
            assert!(
                backend.is_available(),
                "avx512 backend used on a CPU without it"
            );
            // SAFETY: the assert above checked that this CPU has AVX-512F, AVX2, FMA and
            // POPCNT, the features `drive_batch` is compiled with (off x86_64 the assert always
            // fails).
            unsafe {
                crate::lanes::avx512::drive_batch(batch);
            }
        }
    }
}

/// A bound query ready to run: a [`Kernel`], or a choice between two made once per query.
pub trait Prepared {
    /// Runs over the whole container on `backend` (dispatching once) and returns the sink.
    fn run<S: Sink>(&self, backend: Backend, sink: S) -> S;
}

impl<K: Kernel> Prepared for K {
    #[inline]
    fn run<S: Sink>(&self, backend: Backend, sink: S) -> S {
        run(backend, self, sink)
    }
}

/// One of two kernels, chosen when the query is bound, so that a rare variant (a huge sphere that
/// needs scaling) costs nothing in the common one's loop.
pub enum Either<A, B> {
    /// The common kernel.
    Common(A),
    /// The rare kernel.
    Rare(B),
}

impl<A: Kernel, B: Kernel> Either<A, B> {
    /// [`drive_generic`] on whichever kernel this is, with `V` lanes: for work already inside a
    /// tier (a [`Batch`]), where [`Prepared::run`] would dispatch again.
    #[inline(always)]
    pub(crate) fn drive<V: Lanes, S: Sink>(&self, sink: S) -> S {
        match self {
            Either::Common(k) => drive_generic::<V, A, S>(k, sink),
            Either::Rare(k) => drive_generic::<V, B, S>(k, sink),
        }
    }
}

impl<A: Kernel, B: Kernel> Prepared for Either<A, B> {
    #[inline]
    fn run<S: Sink>(&self, backend: Backend, sink: S) -> S {
        match self {
            Either::Common(k) => run(backend, k, sink),
            Either::Rare(k) => run(backend, k, sink),
        }
    }
}
