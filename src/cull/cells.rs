//! Grids of arbitrary cells ([`ClusterGrid::from_cells`](super::ClusterGrid::from_cells)): the
//! cells binned once along two axes, so that each light runs the batched sphere-box kernel over
//! the few stretches of cells that can reach it instead of over every cell.

use super::runs::RunSink;
use crate::kernel::{Prepared, Sink};
use crate::lanes::Backend;
use crate::lanes::Chunk;
use crate::lanes::{Lanes, WithLanes, dispatch};
use crate::primitive::{Aabb, Sphere};
use crate::query::{aabbs_vs_sphere, sphere_reach};
use crate::round::{extent_up, reach_down};
use crate::soa::{Aabbs, Spheres};

/// The cells of a [`from_cells`](super::ClusterGrid::from_cells) grid, as given and binned.
///
/// The cells are binned by their min along two axes (a grid of bins over the mins' range), and
/// sorted by bin: each bin's cells are contiguous, and so are a row of bins along the second
/// axis. A light can only meet cells whose min along each of the two axes lies within
/// `[lo - widest, hi]`, `[lo, hi]` the light's conservative box along it and `widest` the
/// largest extent of a cell along it; so its candidates are one contiguous stretch per bin row
/// it reaches, and the exact kernel runs over those stretches only.
#[derive(Clone, Debug)]
pub(super) struct SortedCells {
    /// The cells as given (cell `i` is `cells[i]`).
    pub(super) cells: Aabbs,
    /// The same, as box queries (see [`few`](SortedCells::few) and
    /// [`blocked_lights`](SortedCells::blocked_lights)).
    boxes: Vec<Aabb>,
    /// The cells in bin order (ties by index).
    sorted: Aabbs,
    /// Sorted position to cell index.
    perm: Vec<u32>,
    /// The two binned axes (0, 1, 2: x, y, z), and their bins.
    bins: [Bins; 2],
    /// Bin `(i, j)`'s cells are `starts[i * n1 + j] .. starts[i * n1 + j + 1]` of `sorted`.
    starts: Vec<u32>,
}

/// The bins of one axis: bin `floor((v - origin) * scale)`, clamped to `0 .. n`, holds the cells
/// whose min `v` falls in it (a non-decreasing function of `v`, the same for cells and lights).
#[derive(Clone, Copy, Debug)]
struct Bins {
    axis: usize,
    origin: f64,
    scale: f64,
    n: usize,
    /// The largest extent of a cell along the axis, rounded up.
    widest: f64,
}

impl Bins {
    /// The bin of min `v`.
    #[inline]
    fn of(&self, v: f64) -> usize {
        // `as i64` saturates (and truncates towards zero: the floor for the values kept).
        ((v - self.origin) * self.scale)
            .max(0.0)
            .min((self.n - 1) as f64) as i64 as usize
    }

    /// The bins holding every cell that can reach `[lo, hi]` along the axis: min in
    /// `[lo - widest, hi]`.
    #[inline]
    fn reach(&self, [lo, hi]: [f64; 2]) -> core::ops::RangeInclusive<usize> {
        self.of(reach_down(lo, self.widest))..=self.of(hi)
    }
}

impl SortedCells {
    /// Bins `cells` along the two axes where their extents are smallest against the spread of
    /// their mins (the windows there hold the fewest cells), at most about one bin per 8 cells
    /// and no bin much narrower than the widest cell.
    pub(super) fn new(cells: Aabbs) -> SortedCells {
        let boxes: Vec<Aabb> = cells.iter().collect();
        let axis = |a: usize| {
            let widest = boxes
                .iter()
                .map(|b| extent_up(b.min[a], b.max[a]))
                .fold(0.0f64, f64::max);
            let (lo, hi) = boxes
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), b| {
                    let m = f64::from(b.min[a]);
                    (lo.min(m), hi.max(m))
                });
            (widest, lo, hi - lo)
        };
        let stats = [axis(0), axis(1), axis(2)];
        let ratio = |a: usize| {
            let (widest, _, spread) = stats[a];
            if spread > 0.0 {
                widest / spread
            } else {
                f64::INFINITY
            }
        };
        // The two axes with the smallest ratios, x before y before z on ties.
        let mut order = [0, 1, 2];
        order.sort_by(|&a, &b| ratio(a).total_cmp(&ratio(b)));
        let per_axis = ((boxes.len() / 8) as f64).sqrt().ceil().max(1.0);
        let bins = [order[0], order[1]].map(|a| {
            let (widest, origin, spread) = stats[a];
            // Bins about as wide as the widest cell, at most `per_axis` of them.
            let n = if spread > 0.0 {
                (spread / widest.max(spread / per_axis))
                    .floor()
                    .clamp(1.0, per_axis)
            } else {
                1.0
            };
            Bins {
                axis: a,
                origin,
                scale: if spread > 0.0 { n / spread } else { 0.0 },
                n: n as usize,
                widest,
            }
        });
        let n1 = bins[1].n;
        let bin_of = |b: &Aabb| {
            let [b0, b1] = bins.map(|bins| bins.of(f64::from(b.min[bins.axis])));
            b0 * n1 + b1
        };
        // A counting sort by bin: stable, so ties keep index order.
        let mut starts = vec![0u32; bins[0].n * n1 + 1];
        for b in &boxes {
            starts[bin_of(b) + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut next = starts.clone();
        let mut perm = vec![0u32; boxes.len()];
        for (i, b) in boxes.iter().enumerate() {
            let at = &mut next[bin_of(b)];
            perm[*at as usize] = i as u32;
            *at += 1;
        }
        let sorted: Vec<Aabb> = perm.iter().map(|&i| boxes[i as usize]).collect();
        SortedCells {
            boxes,
            sorted: Aabbs::from_slice(&sorted).expect("the cells of a valid container"),
            perm,
            bins,
            starts,
            cells,
        }
    }

    /// The cells as box queries, when there are at most [`FEW_CELLS`]: a batch of them over the
    /// lights ([`Pinned::hits_many_into`](crate::Pinned::hits_many_into)) then gives the
    /// assignment's lists (per cell, lights ascending). The box-against-spheres kernel computes
    /// exactly what the sphere-against-boxes one does (`kernel/sphere_box.rs`: one body, the same
    /// operations in the same order), as no light in a container is big enough for the sphere
    /// query's scaled variant (`Sphere::MAX_RADIUS` squared is finite).
    pub(super) fn few(&self) -> Option<&[Aabb]> {
        (!self.cells.is_empty() && self.cells.len() <= FEW_CELLS).then_some(&self.boxes[..])
    }

    /// The cells as box queries, when `lights` lights are better assigned by building them
    /// into a [`Blocked<Spheres>`](crate::Blocked) and running the cells as one batch of box
    /// queries over it ([`BLOCKED_LIGHTS_MIN`], [`blocked_lights_pay`]). The lists are the
    /// flat batch's (a blocked container answers as its flat one, bit for bit), so the same as
    /// the bins'.
    pub(super) fn blocked_lights(&self, lights: usize) -> Option<&[Aabb]> {
        blocked_lights_pay(self.cells.len(), lights).then_some(&self.boxes[..])
    }

    /// Pushes `(cell, 1, light)` to `runs` for every cell each light of `lights[which]` meets
    /// (by the crate's exact sphere-box test), lights ascending, on `backend`.
    pub(super) fn collect<S: RunSink>(
        &self,
        lights: &Spheres,
        which: core::ops::Range<usize>,
        backend: Backend,
        runs: S,
    ) -> S {
        let mut batch = Windows {
            cells: self,
            lights,
            which,
            runs,
        };
        dispatch(backend, &mut batch);
        batch.runs
    }
}

/// Up to this many cells, a grid assigns its lights as one batch of the cells as box queries over
/// the lights ([`SortedCells::few`]) instead of binning: measured (10,000 lights of the uniform
/// scene, one thread, `bvlanes-bench --table lights`) 0.16x the binned time at 16 cells, 0.70x at
/// 256, 1.21x at 1,024; the crossover by interpolation is near 600.
pub(super) const FEW_CELLS: usize = 512;

/// Cells from which a grid may assign many lights through a blocked container of the lights
/// ([`blocked_lights_pay`]): below, the build of the blocks each frame costs more than the
/// queries save (16 cells over 10,000 lights: 9x the time of the flat batch).
pub(super) const BLOCKED_LIGHTS_MIN: usize = 256;

/// Whether `lights` lights over `cells` cells are faster assigned as a batch of the cells over a
/// `Blocked<Spheres>` of the lights, built each call, than binned (or, up to [`FEW_CELLS`], as
/// a flat batch): from [`BLOCKED_LIGHTS_MIN`] cells with at least 20,000 lights, and past
/// [`FEW_CELLS`] with at least 8,000 and at most one cell per two lights. Measured (one
/// thread, the Intel Xeon of 2026-11-29, lights uniform in a cube of side 32 with radii 0.5-2,
/// cells of random sides about filling it; blocked time over the current path's,
/// `docs/benchmarks.md`): 100,000
/// lights 0.37-0.64x from 256 to 65,536 cells; 30,000 lights 0.46-0.75x; 10,000 lights
/// 0.61-0.79x from 600 to 4,096 cells, 0.79-0.98x at 256 (1.10x on two threads: the flat batch
/// is as fast there), 0.92-0.98x at 16,384 and 65,536; 3,000 lights 1.01-1.08x at 600 and
/// 1,024, 1.24-1.96x elsewhere; 1,000 lights 1.37-3.10x.
#[must_use]
pub(super) fn blocked_lights_pay(cells: usize, lights: usize) -> bool {
    cells >= BLOCKED_LIGHTS_MIN
        && (lights >= 20_000 || (lights >= 8_000 && cells > FEW_CELLS && cells <= lights / 2))
}

// The batch's kernel equals the binned one only while no light needs the scaled variant.
const _: () = assert!((Sphere::MAX_RADIUS * Sphere::MAX_RADIUS).is_finite());

/// [`SortedCells::collect`] as one batch: one `#[target_feature]` crossing per task.
struct Windows<'a, R> {
    cells: &'a SortedCells,
    lights: &'a Spheres,
    which: core::ops::Range<usize>,
    runs: R,
}

impl<R: RunSink> WithLanes for &mut Windows<'_, R> {
    type Output = ();
    #[inline(always)]
    fn run<V: Lanes>(self) {
        let cells = self.cells;
        let all = cells.sorted.view();
        let [b0, b1] = cells.bins;
        for l in self.which.clone() {
            let light = self.lights.get(l).expect("light index below len");
            let rows = b0.reach(sphere_reach(&light, b0.axis));
            let cols = b1.reach(sphere_reach(&light, b1.axis));
            for i in rows {
                // The row's bins `cols` are one stretch of sorted positions.
                let (first, end) = (
                    cells.starts[i * b1.n + cols.start()] as usize,
                    cells.starts[i * b1.n + cols.end() + 1] as usize,
                );
                if first >= end {
                    continue;
                }
                let chunks = first / Chunk::LANES..end.div_ceil(Chunk::LANES);
                let sink = ToCells {
                    perm: &cells.perm,
                    offset: chunks.start * Chunk::LANES,
                    keep: first..end,
                    light: l as u32,
                    runs: &mut self.runs,
                };
                // `Sphere`'s kernel on `Aabbs`, on the stretch's chunks only.
                let _ = aabbs_vs_sphere(all.chunks(chunks), &light).drive::<V, _>(sink);
            }
        }
    }
}

/// The kernel's hits in a window, as cell indices, into the runs.
struct ToCells<'a, R> {
    perm: &'a [u32],
    /// The sorted position of the window's first lane.
    offset: usize,
    /// The stretch's sorted positions: the lanes of its first and last chunk outside it belong
    /// to other stretches (or none of this light's).
    keep: core::ops::Range<usize>,
    light: u32,
    runs: &'a mut R,
}

impl<R: RunSink> Sink for ToCells<'_, R> {
    #[inline(always)]
    fn push<V: Lanes>(&mut self, base: u32, mut bits: u32) -> bool {
        while bits != 0 {
            let i = self.offset + base as usize + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if self.keep.contains(&i) {
                self.runs.push(self.perm[i], 1, self.light);
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    /// The blocked path's rule at its edges: 256 and 512 cells, 8,000 and 20,000 lights, one
    /// cell per two lights.
    #[test]
    fn blocked_lights_pay_from_its_thresholds() {
        use super::blocked_lights_pay as pay;
        assert!(!pay(255, 1_000_000));
        assert!(pay(256, 20_000));
        assert!(pay(1_000_000, 20_000));
        assert!(!pay(256, 19_999));
        assert!(!pay(512, 8_000));
        assert!(pay(513, 8_000));
        assert!(!pay(513, 7_999));
        assert!(pay(4_000, 8_000));
        assert!(!pay(4_001, 8_000));
        assert!(pay(9_999, 19_999));
        assert!(!pay(10_000, 19_999));
        assert!(!pay(0, 0));
    }

    use super::*;

    fn cells(boxes: &[Aabb]) -> SortedCells {
        SortedCells::new(Aabbs::from_slice(boxes).unwrap())
    }

    /// The binned axes are the two along which the cells are small against their spread, and
    /// every cell sits in the bin of its mins, in index order within a bin.
    #[test]
    fn bins_follow_the_spread_and_hold_every_cell_once() {
        // A 40 x 10 sheet of unit cells in the (z, y) plane, all at x 0..5.
        let mut boxes = Vec::new();
        for z in 0..40 {
            for y in 0..10 {
                let (y, z) = (y as f32, z as f32);
                boxes.push(Aabb::new([0.0, y, z], [5.0, y + 1.0, z + 1.0]));
            }
        }
        let s = cells(&boxes);
        assert_eq!(s.bins.map(|b| b.axis), [2, 1]);
        // At most one bin per 8 cells (ceil(sqrt(400 / 8)) = 8 per axis), none narrower than a
        // cell.
        assert_eq!(s.bins.map(|b| b.n), [8, 8]);
        let mut seen = vec![false; boxes.len()];
        let n1 = s.bins[1].n;
        for bin in 0..s.starts.len() - 1 {
            let stretch = s.starts[bin] as usize..s.starts[bin + 1] as usize;
            let ids = &s.perm[stretch.clone()];
            assert!(
                ids.windows(2).all(|w| w[0] < w[1]),
                "bin {bin}: index order"
            );
            for (&i, at) in ids.iter().zip(stretch) {
                let b = boxes[i as usize];
                let want = s.bins.map(|bins| bins.of(f64::from(b.min[bins.axis])));
                assert_eq!(want[0] * n1 + want[1], bin);
                assert_eq!(s.sorted.get(at), Some(b));
                assert!(!seen[i as usize]);
                seen[i as usize] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
        // No spread at all: one bin.
        let s = cells(&[Aabb::new([1.0; 3], [2.0; 3]); 20]);
        assert_eq!(s.bins.map(|b| b.n), [1, 1]);
        assert_eq!(s.starts, [0, 20]);
        let s = cells(&[]);
        assert_eq!(s.starts, [0, 0]);
    }
}
