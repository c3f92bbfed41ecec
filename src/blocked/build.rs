//! Building a blocked container: the primitives ordered along a Hilbert curve of their centres
//! (outsized ones after all others), then the levels of block bounds bottom up.

use super::layout::Blockable;
use super::level::{Level, Levels};
use crate::lanes::{Backend, Chunk, Lanes, WithLanes, dispatch};
use crate::radix::radix_sort_runs;
use crate::sample;
use crate::tasks::{run_tasks, run_tasks_mut};
use core::ops::Range;

/// Chunks of primitives below which a build step stays on one thread.
const TASK_MIN_CHUNKS: usize = 1024;

/// `chunks` chunks cut into the stretches of a build step's tasks ([`crate::tasks::stretches`]).
fn stretches(chunks: usize, threads: usize) -> (usize, Vec<Range<usize>>) {
    crate::tasks::stretches(chunks, TASK_MIN_CHUNKS, threads)
}

/// Most bits per axis of the curve's grid (1024^3 cells over the centres' bounds).
const CURVE_BITS: u32 = 10;

/// A primitive is outsized when its largest side exceeds this many times the larger of the
/// median largest side and the side of a cube that would hold one block of centres.
pub(crate) const OUTSIZED_FACTOR: f64 = 8.0;

/// Extents sampled for the median.
const MEDIAN_SAMPLES: usize = 4096;

/// `v`'s low 10 bits spread to every third bit.
#[inline]
fn spread(v: u32) -> u32 {
    let mut x = v & 0x3ff;
    x = (x | (x << 16)) & 0x0300_00ff;
    x = (x | (x << 8)) & 0x0300_f00f;
    x = (x | (x << 4)) & 0x030c_30c3;
    x = (x | (x << 2)) & 0x0924_9249;
    x
}

/// Centres and largest sides of chunk `chunk`'s key boxes, in f32 (halves added: no overflow;
/// a side may overflow to `+inf`, which only makes the primitive outsized).
#[inline(always)]
fn centres_and_sides<C: Blockable>(c: &C, chunk: usize) -> ([[f32; 16]; 3], [f32; 16]) {
    let k = c.key_chunk(chunk);
    let mut centre = [[0.0; 16]; 3];
    let mut side = [0.0f32; 16];
    for a in 0..3 {
        for l in 0..Chunk::LANES {
            centre[a][l] = k[a].0[l] * 0.5 + k[a + 3].0[l] * 0.5;
            side[l] = side[l].max(k[a + 3].0[l] - k[a].0[l]);
        }
    }
    (centre, side)
}

/// Bits per axis of the curve's grid for `n` primitives: about one cell per primitive (`8^bits >=
/// n`), at most [`CURVE_BITS`]. Finer cells would only order primitives within a block; with
/// 3 bits per axis fewer, a million keys sort in two radix passes instead of three.
fn curve_bits(n: usize) -> u32 {
    let mut bits = 1;
    while bits < CURVE_BITS && (1u64 << (3 * bits)) < n as u64 {
        bits += 1;
    }
    bits
}

/// The Hilbert keys of cells `x` (`x[axis][lane]`, each below `2^bits`, `1 <= bits <= 10`),
/// lane by lane: Skilling's transform of the cells to the transposed Hilbert index ("Programming
/// the Hilbert curve", AIP Conf. Proc. 707, 2004), its branches as masks so that the lanes
/// vectorise, then the index's bits interleaved, axis 0's the highest of each triple.
/// Consecutive keys are neighbouring cells (a Morton curve jumps), so 16 or 256 consecutive
/// primitives lie in a compact region: on 100,000 and 1,000,000 uniform boxes the Morton order's
/// blocks and nodes summed to 3.3-5.0 times the scene's volume, and a small box query met
/// 3.4-7.6 nodes of a level where a compact node would meet one or two.
#[inline(always)]
// Lane-indexed loops over two rows at once (axis 0 and axis `i`, which may be the same row).
#[allow(clippy::needless_range_loop)]
fn hilbert<const L: usize>(mut x: [[u32; L]; 3], bits: u32) -> [u32; L] {
    // Inverse undo, from the highest bit down to bit 1: where bit `level` of axis `i` is set,
    // the lower bits of axis 0 are inverted, else those of axes 0 and `i` exchanged.
    for level in (1..bits).rev() {
        let low = (1u32 << level) - 1;
        for i in 0..3 {
            for l in 0..L {
                let set = 0u32.wrapping_sub((x[i][l] >> level) & 1);
                let swap = (x[0][l] ^ x[i][l]) & low & !set;
                x[0][l] ^= (low & set) | swap;
                x[i][l] ^= swap;
            }
        }
    }
    // Gray encode.
    for i in 1..3 {
        for l in 0..L {
            x[i][l] ^= x[i - 1][l];
        }
    }
    // Bit `j` of the last axis' correction is the parity of its bits above `j` (Skilling's loop
    // over the bits, as a suffix parity in four shifts: the cells have at most 10 bits).
    let mut keys = [0u32; L];
    for l in 0..L {
        let mut t = x[2][l] >> 1;
        t ^= t >> 1;
        t ^= t >> 2;
        t ^= t >> 4;
        t ^= t >> 8;
        keys[l] = spread(x[0][l] ^ t) << 2 | spread(x[1][l] ^ t) << 1 | spread(x[2][l] ^ t);
    }
    keys
}

/// A grid of `2^bits` cells per axis over `[lo, hi]` and the Hilbert keys of points in it.
struct CurveGrid {
    lo: [f32; 3],
    /// Cells per unit along each axis, in f32 (rounded down a little is fine: keys only order);
    /// 0 for a flat axis.
    scale: [f32; 3],
    /// The last cell along each axis: `2^bits - 1`.
    max_cell: u32,
    /// Bits per axis.
    bits: u32,
}

impl CurveGrid {
    fn new(lo: [f32; 3], hi: [f32; 3], bits: u32) -> Self {
        let cells = f64::from(1u32 << bits);
        let scale = core::array::from_fn(|a| {
            let span = f64::from(hi[a]) - f64::from(lo[a]);
            if span > 0.0 {
                (cells / span) as f32
            } else {
                0.0
            }
        });
        CurveGrid {
            lo,
            scale,
            max_cell: (1u32 << bits) - 1,
            bits,
        }
    }

    /// [`key`](Self::key) of 16 points (`m[axis][lane]`), axis by axis over the lanes.
    #[inline(always)]
    fn keys(&self, m: &[[f32; Chunk::LANES]; 3]) -> [u32; Chunk::LANES] {
        let mut cells = [[0u32; Chunk::LANES]; 3];
        for a in 0..3 {
            for (cell, &v) in cells[a].iter_mut().zip(&m[a]) {
                *cell = self.cell(a, v);
            }
        }
        hilbert(cells, self.bits)
    }

    /// The cell of coordinate `v` along axis `a`: `(v - lo) * scale` rounded down, negative and
    /// NaN to 0, beyond the grid to its last cell. Clamped in f32 first, then rounded down
    /// without a float-to-integer conversion: the compiler leaves a saturating `as` lane by
    /// lane, with its NaN and range checks, which took about a sixth of a 1,000,000-box build
    /// (Intel Xeon, 2026-11-29); this way the key loop vectorises.
    #[inline(always)]
    fn cell(&self, a: usize, v: f32) -> u32 {
        const TWO_23: f32 = 8_388_608.0;
        // `max` returns the other operand for a NaN. Then `0 <= x <= max_cell < 2^10`.
        let x = ((v - self.lo[a]) * self.scale[a]).max(0.0);
        let x = x.min(self.max_cell as f32);
        // The nearest integer to `x`: adding 2^23 rounds to a whole number (the ulp there is 1),
        // whose bits past those of 2^23 are that number.
        let nearest = (x + TWO_23).to_bits() - TWO_23.to_bits();
        // One less where that rounded up (`nearest < 2^10`: exact in f32).
        nearest - u32::from(nearest as i32 as f32 > x)
    }

    /// The Hilbert key of the cell of `m` (coordinates past the grid in its edge cells).
    #[inline(always)]
    fn key(&self, m: [f32; 3]) -> u32 {
        let [key] = hilbert(
            [
                [self.cell(0, m[0])],
                [self.cell(1, m[1])],
                [self.cell(2, m[2])],
            ],
            self.bits,
        );
        key
    }
}

/// Queries from which a batch walks them along the curve of their anchors; fewer keep their
/// order (sorting a few finds little to share).
pub(super) const ORDERED_BATCH: usize = 64;

/// Primitives from which a batch walks its queries along the curve (see [`walk_order`]).
/// Below, the container's blocks stay in the caches whatever the order, and the sort is a cost
/// without a gain: 1,000 small box queries on 100,000 boxes ran at 0.93-0.99x the speed in
/// the curve's order, on 300,000 at 1.02-1.09x, on 1,000,000 at 1.06-1.13x (Intel Xeon,
/// 2026-11-27).
pub(super) const ORDERED_CONTAINER: usize = 1 << 18;

/// The order in which a batch walks queries with these anchors (a permutation of
/// `0..anchors.len()`): along a Hilbert curve over the finite anchors' bounds, ties and then the
/// anchors that are not finite last, each in batch order; the batch order itself below
/// [`ORDERED_BATCH`] queries (`None`; the caller also keeps it for containers of fewer than
/// [`ORDERED_CONTAINER`] primitives). One thread, 1,000 box queries on 1,000,000 blocked boxes
/// (Intel Xeon, 2026-11-27): half extent 5 1.17x and half extent 50 1.49x faster walked in this
/// order than in a random one, whose neighbours share no block.
pub(super) fn walk_order(
    anchors: impl ExactSizeIterator<Item = [f32; 3]> + Clone,
) -> Option<Vec<u32>> {
    let n = anchors.len();
    if n < ORDERED_BATCH {
        return None;
    }
    let finite = |a: &[f32; 3]| a.iter().all(|v| v.is_finite());
    let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    for a in anchors.clone().filter(finite) {
        for k in 0..3 {
            lo[k] = lo[k].min(a[k]);
            hi[k] = hi[k].max(a[k]);
        }
    }
    if lo[0] > hi[0] {
        // No finite anchor.
        return None;
    }
    // About 64 cells per query: queries sharing a cell are near enough to share blocks.
    let bits = (curve_bits(n) + 2).min(CURVE_BITS);
    let grid = CurveGrid::new(lo, hi, bits);
    // The keys below `2^(3 bits)`, an anchor that is not finite after them all.
    let key = |a: [f32; 3]| {
        if finite(&a) {
            grid.key(a)
        } else {
            1 << (3 * bits)
        }
    };
    let index_bits = usize::BITS - (n - 1).leading_zeros();
    if 3 * bits + 1 + index_bits <= 32 {
        // Up to a few thousand queries: key and index packed in a `u32`, sorted by the hit
        // lists' sort (the general one took a tenth of a batch of 1,000 small queries on
        // 100,000 boxes, most of it clearing and copying its 2,048-bucket counts).
        let mut packed: Vec<u32> = anchors
            .enumerate()
            .map(|(i, a)| key(a) << index_bits | i as u32)
            .collect();
        // Every packed value is below `2^(3 bits + 1 + index_bits)`, at most `2^32`.
        crate::radix::sort_indices(&mut packed, u32::MAX >> (32 - (3 * bits + 1 + index_bits)));
        let mask = (1 << index_bits) - 1;
        return Some(packed.iter().map(|&p| p & mask).collect());
    }
    let keys: Vec<u32> = anchors.map(key).collect();
    Some(crate::radix::radix_sort(&keys))
}

/// The order of `c`'s primitives along the curve (a permutation of `0..count`) and how many of
/// them are outsized (they come last), computed on up to `threads` threads (0: all). The centres
/// are quantised to a grid of `2^bits` cells per axis ([`curve_bits`]) over the middle of
/// their spread (the centres beyond it fall in the edge cells); ties keep index order (the sort
/// is stable).
pub(crate) fn curve_order<C: Blockable>(c: &C, threads: usize) -> (Vec<u32>, usize) {
    let n = c.count();
    if n == 0 {
        return (Vec::new(), 0);
    }
    let chunks = n.div_ceil(Chunk::LANES);
    let (per_task, _) = stretches(chunks, threads);
    // A sample of the primitives (every `step`-th, the same whatever the thread count): their
    // sides for the outsized threshold, their centres for the grid's bounds.
    let step = n.div_ceil(MEDIAN_SAMPLES);
    let mut sample: Vec<f32> = Vec::with_capacity(MEDIAN_SAMPLES);
    let mut sampled_centres: [Vec<f64>; 3] = Default::default();
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for i in (0..n).step_by(step) {
        let (m, side) = centres_and_sides(c, i / Chunk::LANES);
        sample.push(side[i % Chunk::LANES]);
        for (a, v) in sampled_centres.iter_mut().enumerate() {
            let centre = m[a][i % Chunk::LANES];
            lo[a] = lo[a].min(centre);
            hi[a] = hi[a].max(centre);
            v.push(f64::from(centre));
        }
    }
    // The grid covers the middle of the centres ([`sample::middle`]), never past the sampled
    // ones' bounds: a few far primitives then fall in the edge cells instead of stretching
    // every cell. (The sample's bounds, not all centres': all of them up to 4,096 primitives,
    // and beyond that the quantiles lie inside anyway. A pass for the exact bounds took 7-8 ms
    // of a 1,000,000-box build on the Intel Xeon of 2026-11-27.)
    for (a, v) in sampled_centres.iter_mut().enumerate() {
        if let Some([q_lo, q_hi]) = sample::middle(v) {
            lo[a] = lo[a].max(q_lo as f32);
            hi[a] = hi[a].min(q_hi as f32);
        }
    }
    let span: [f64; 3] = core::array::from_fn(|a| f64::from(hi[a]) - f64::from(lo[a]));
    // The outsized threshold: from a median of sampled sides and the side of a cube holding one
    // block's worth of centres (over the largest span, so flat scenes do not shrink it).
    let mid = sample.len() / 2;
    let median = f64::from(*sample.select_nth_unstable_by(mid, f32::total_cmp).1);
    let blocks = (n as f64 / Chunk::LANES as f64).max(1.0);
    let cell = span.iter().copied().fold(0.0, f64::max) / blocks.cbrt();
    let threshold = OUTSIZED_FACTOR * median.max(cell);
    let bits = curve_bits(n);
    let grid = CurveGrid::new(lo, hi, bits);
    let outsized_bit = 1 << (3 * bits);
    let mut keys = vec![0u32; n];
    // The keys, per stretch of chunks as above; each stretch counts its outsized.
    let mut key_stretches: Vec<(&mut [u32], usize)> = keys
        .chunks_mut(per_task * Chunk::LANES)
        .map(|k| (k, 0))
        .collect();
    let backend = Backend::detect();
    run_tasks_mut(&mut key_stretches, |t, (stretch, outsized)| {
        let job = KeyStretch {
            c,
            grid: &grid,
            threshold,
            outsized_bit,
            first_chunk: t * per_task,
            out: stretch,
        };
        *outsized = dispatch(backend, job);
    });
    let outsized = key_stretches.iter().map(|s| s.1).sum();
    let (mut order, crowded) = radix_sort_runs(&keys, CROWDED, threads);
    refine(c, &mut order, crowded);
    (order, outsized)
}

/// The curve keys of a stretch of chunks (`out`: their primitives' keys, from chunk
/// `first_chunk` on), each with `outsized_bit` set where the primitive's largest side exceeds
/// `threshold`; returns how many do. A job for one tier: the same float operations on every
/// tier, only compiled for its instructions. (Compiled for the baseline x86-64 instructions, with
/// the cells' saturating conversion lane by lane, the keys took 15 % of a 1,000,000-box build,
/// about 9 ms, on the Intel Xeon of 2026-11-29; on the AVX-512 tier with [`CurveGrid::cell`]'s
/// conversion 5 %. `perf` samples.)
struct KeyStretch<'a, C> {
    c: &'a C,
    grid: &'a CurveGrid,
    threshold: f64,
    outsized_bit: u32,
    first_chunk: usize,
    out: &'a mut [u32],
}

impl<C: Blockable> WithLanes for KeyStretch<'_, C> {
    type Output = usize;

    #[inline(always)]
    fn run<V: Lanes>(self) -> usize {
        let mut outsized = 0;
        for (i, out) in self.out.chunks_mut(Chunk::LANES).enumerate() {
            let (m, side) = centres_and_sides(self.c, self.first_chunk + i);
            // Lane by lane without a branch, so that the compiler vectorises it (with a
            // branch per outsized test, 1,000,000 keys took 9-15 ms on the Intel Xeon).
            // Only the chunk's primitives are counted, never its padding lanes.
            let mut keys = self.grid.keys(&m);
            for (key, &side) in keys.iter_mut().zip(&side).take(out.len()) {
                let big = f64::from(side) > self.threshold;
                *key |= u32::from(big) * self.outsized_bit;
                outsized += usize::from(big);
            }
            out.copy_from_slice(&keys[..out.len()]);
        }
        outsized
    }
}

/// A run of more primitives than this in one cell of the curve's grid is ordered again over its
/// own bounds ([`refine`]).
const CROWDED: usize = 64;

/// Rounds of [`refine`] a run may take: each cuts a crowded run's cell into up to `2^30` cells,
/// so four resolve scales 2^40 apart and more; data crowded beyond that (exponentially spread
/// centres) keeps the order of the last round, and the rounds stay linear in the primitives.
const REFINE_ROUNDS: u32 = 4;

/// Orders each run of `order` in `crowded` (positions whose primitives share a cell of the
/// curve's grid: the grid was too coarse for them, as when two clusters lie far apart, every
/// primitive of each then in one cell) along a curve over the run's own centres: a grid of about
/// one cell per primitive over their exact bounds, Hilbert keys, a stable sort; then the same
/// for each of its cells that is still crowded, up to [`REFINE_ROUNDS`] rounds. A run whose
/// centres are all one point keeps its order (index order). Only permutes within each run, so
/// the outsized stay last and the result depends on the data only. (Two clusters of 500,000
/// boxes `1e7` apart diagonally: 1,000 small queries took 634x the time of one cluster alone
/// before, `docs/benchmarks.md`.)
fn refine<C: Blockable>(c: &C, order: &mut [u32], crowded: Vec<Range<usize>>) {
    let mut work: Vec<(Range<usize>, u32)> = crowded.into_iter().map(|r| (r, 0)).collect();
    while let Some((run, round)) = work.pop() {
        let members = &mut order[run.clone()];
        // A first-round run is in index order (the sort is stable and its keys are equal), so
        // neighbours share chunks: each chunk's centres are computed once for all of them.
        let mut cached = (usize::MAX, [[0.0f32; 16]; 3]);
        let centres: Vec<[f32; 3]> = members
            .iter()
            .map(|&i| {
                let (chunk, l) = (i as usize / Chunk::LANES, i as usize % Chunk::LANES);
                if cached.0 != chunk {
                    cached = (chunk, centres_and_sides(c, chunk).0);
                }
                core::array::from_fn(|a| cached.1[a][l])
            })
            .collect();
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for m in &centres {
            for a in 0..3 {
                lo[a] = lo[a].min(m[a]);
                hi[a] = hi[a].max(m[a]);
            }
        }
        let grid = CurveGrid::new(lo, hi, curve_bits(members.len()));
        if grid.scale == [0.0; 3] {
            continue;
        }
        let keys: Vec<u32> = centres.iter().map(|&m| grid.key(m)).collect();
        let (perm, runs) = radix_sort_runs(&keys, CROWDED, 1);
        let sorted: Vec<u32> = perm.iter().map(|&p| members[p as usize]).collect();
        members.copy_from_slice(&sorted);
        if round + 1 < REFINE_ROUNDS {
            work.extend(
                runs.into_iter()
                    .map(|r| (run.start + r.start..run.start + r.end, round + 1)),
            );
        }
    }
}

/// The levels of block bounds over `leaves`: level 0 one node per chunk of primitives, each
/// next level one node per chunk of the level below (the union of its 16 nodes: exact, as
/// minima and maxima are), up to a level of at most 16 nodes.
pub(crate) fn levels<C: Blockable>(leaves: &C, threads: usize) -> Levels<C::Level> {
    let n = leaves.count();
    if n == 0 {
        return Levels::from_levels(&[]);
    }
    // Level 0 per stretch of blocks (over rayon's pool when large); the levels above are 1/16
    // of it and stay on the calling thread.
    let chunks = n.div_ceil(Chunk::LANES);
    let (_, stretches) = stretches(chunks, threads);
    let backend = Backend::detect();
    let bounds = |r: &Range<usize>| {
        dispatch(
            backend,
            ChunkBounds {
                leaves,
                chunks: r.clone(),
            },
        )
    };
    let first = if stretches.len() == 1 {
        bounds(&stretches[0])
    } else {
        run_tasks(&stretches, bounds).concat()
    };
    let mut levels = vec![first];
    while let Some(below) = levels.last().filter(|l| l.len() > Chunk::LANES) {
        let next = below
            .chunks(Chunk::LANES)
            .map(|c| c[1..].iter().fold(c[0], |u, b| C::Level::union(&u, b)))
            .collect();
        levels.push(next);
    }
    Levels::from_levels(&levels)
}

/// The bounds of the chunks `chunks` of `leaves` (level 0 of a stretch), a job for one tier:
/// the same operations on every tier, compiled for its instructions. (On the baseline x86-64
/// instructions, the oriented boxes' bounds, sums and outward steps in f64 lane by lane, took a
/// fifth of a 1,000,000-box `Blocked<Obbs>` build on the Intel Xeon of 2026-11-29.)
struct ChunkBounds<'a, C> {
    leaves: &'a C,
    chunks: Range<usize>,
}

impl<C: Blockable> WithLanes for ChunkBounds<'_, C> {
    type Output = Vec<<C::Level as Level>::Bound>;

    #[inline(always)]
    fn run<V: Lanes>(self) -> Self::Output {
        // A plain loop: a collected iterator's generic `fold` may be compiled outside the tier.
        let mut out = Vec::with_capacity(self.chunks.len());
        for c in self.chunks {
            out.push(self.leaves.chunk_bounds(c));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{CurveGrid, ORDERED_BATCH, hilbert, spread, walk_order};
    use crate::test_rng::{XorShift32, XorShift64};

    /// The walk order of a batch: `None` below `ORDERED_BATCH` queries and when no anchor is
    /// finite; else a permutation along the curve, ties and then the anchors that are not
    /// finite (NaN, infinite) last, each in batch order.
    #[test]
    fn walk_order_follows_the_curve_and_puts_other_anchors_last() {
        let few = vec![[1.0f32, 2.0, 3.0]; ORDERED_BATCH - 1];
        assert_eq!(walk_order(few.iter().copied()), None);
        let none_finite = vec![[f32::NAN, 0.0, 0.0]; ORDERED_BATCH];
        assert_eq!(walk_order(none_finite.iter().copied()), None);
        // A line of points from x = 99 down to 0, a NaN and an infinity among them, and two
        // equal points.
        let mut anchors: Vec<[f32; 3]> = (0..100).rev().map(|x| [x as f32, 5.0, 5.0]).collect();
        anchors[10] = [f32::NAN, 5.0, 5.0];
        anchors[20] = [1.0, f32::INFINITY, 5.0];
        anchors[30] = [50.0, 5.0, 5.0];
        let order = walk_order(anchors.iter().copied()).expect("a batch of 100");
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100).collect::<Vec<u32>>());
        assert_eq!(&order[98..], [10, 20]);
        // The finite anchors by the Hilbert keys of their cells, ties in batch order: about 64
        // cells a query, 2^5 along the line of 99 (the other axes are flat: cell 0), keys from
        // the textbook transform.
        let scale = (32.0f64 / 99.0) as f32;
        let key = |i: u32| {
            let x = anchors[i as usize][0];
            skilling([((x * scale).floor() as u32).min(31), 0, 0], 5)
        };
        let mut want: Vec<u32> = (0..100).filter(|i| ![10, 20].contains(i)).collect();
        want.sort_by_key(|&i| key(i));
        assert_eq!(order[..98], want[..]);
        // The curve starts at the origin: the line's first cells first, ascending (later it
        // leaves the line and comes back, cells 8 to 15 then in descending order).
        let cells: Vec<u32> = order[..98]
            .iter()
            .map(|&i| (anchors[i as usize][0] * scale) as u32)
            .collect();
        assert_eq!(cells[..12], [0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3]);
        // Equal keys in batch order: the two points at x = 50 (batch positions 30 and 49).
        let at = |i: u32| order.iter().position(|&o| o == i).unwrap();
        assert!(at(30) < at(49));
    }

    /// The 16-lane keys of the build equal the one-point keys of `refine`, at the grid's edges,
    /// beyond them, on flat axes and for the values a cast saturates.
    #[test]
    fn lane_keys_equal_point_keys() {
        let values = [
            -1e30f32,
            -5.0,
            -0.0,
            0.0,
            0.49,
            0.5,
            3.99,
            4.0,
            7.5,
            8.0,
            9.0,
            1e9,
            3e38,
            f32::MAX,
            1e-40,
            2.5,
        ];
        for (lo, hi, bits) in [
            ([0.0; 3], [8.0; 3], 3),
            ([-1.0, 0.0, 2.0], [1.0, 0.0, 1e6], 10),
        ] {
            let grid = CurveGrid::new(lo, hi, bits);
            for shift in 0..values.len() {
                let m: [[f32; 16]; 3] = core::array::from_fn(|a| {
                    core::array::from_fn(|l| values[(l + shift * (a + 1)) % values.len()])
                });
                let keys = grid.keys(&m);
                for (l, key) in keys.iter().enumerate() {
                    assert_eq!(
                        *key,
                        grid.key([m[0][l], m[1][l], m[2][l]]),
                        "{m:?} lane {l}"
                    );
                }
            }
        }
    }

    /// A cell is `(v - lo) * scale` rounded down and clamped to the grid, NaN in cell 0: the
    /// plain conversion's answer, at whole numbers, halves (where rounding to nearest would
    /// differ), one ulp either side of each, and beyond both ends.
    #[test]
    fn cells_round_down_and_clamp() {
        let reference = |grid: &CurveGrid, a: usize, v: f32| {
            let cell = ((v - grid.lo[a]) * grid.scale[a]) as i32;
            cell.clamp(0, grid.max_cell as i32) as u32
        };
        for (lo, hi, bits) in [
            ([0.0; 3], [8.0; 3], 3),
            ([-3.0, 0.0, 1.0], [5.0, 1e6, 1.5], 10),
        ] {
            let grid = CurveGrid::new(lo, hi, bits);
            let mut values = vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 1e-40];
            for (&lo, &scale) in lo.iter().zip(&grid.scale) {
                for k in -2..=(1 << bits) + 2 {
                    for frac in [0.0, 0.25, 0.5, 0.75] {
                        let v = lo + (k as f32 + frac) / scale;
                        values.extend([v, v.next_up(), v.next_down()]);
                    }
                }
            }
            for a in 0..3 {
                for &v in &values {
                    assert_eq!(grid.cell(a, v), reference(&grid, a, v), "axis {a}, {v:e}");
                }
            }
        }
    }

    /// The two build steps that run on a tier, the keys with their outsized counts
    /// ([`KeyStretch`]) and level 0's bounds ([`ChunkBounds`]), give every backend this CPU has
    /// the scalar tier's answer, bit for bit (signed zeros included, through `Debug`): boxes,
    /// spheres, oriented boxes and octahedra of every length 0..=67 and 1,000, with zero sizes,
    /// huge and tiny magnitudes and outsized ones, on a grid whose cells they overrun.
    #[test]
    fn tier_build_steps_are_the_same_on_every_backend() {
        use super::{Blockable, Chunk, ChunkBounds, KeyStretch};
        use crate::lanes::{Backend, dispatch};
        use crate::primitive::{Aabb, Obb, Octahedron, Sphere};
        use crate::soa::{Aabbs, Obbs, Octahedra, Spheres};
        let mut rng = XorShift32(0x9e37_79b9);
        let mut value = move || match rng.below(8) {
            0 => 0.0,
            1 => -0.0,
            2 => 3e37,
            3 => -1e-38,
            _ => rng.below(20_000) as f32 * 0.01 - 100.0,
        };
        fn check<C: Blockable>(c: &C) {
            let grid = CurveGrid::new([-50.0; 3], [50.0; 3], 6);
            let chunks = c.count().div_ceil(Chunk::LANES);
            let run = |b: Backend| {
                let mut keys = vec![0u32; c.count()];
                let outsized = dispatch(
                    b,
                    KeyStretch {
                        c,
                        grid: &grid,
                        threshold: 40.0,
                        outsized_bit: 1 << 18,
                        first_chunk: 0,
                        out: &mut keys,
                    },
                );
                let bounds = dispatch(
                    b,
                    ChunkBounds {
                        leaves: c,
                        chunks: 0..chunks,
                    },
                );
                (keys, outsized, format!("{bounds:?}"))
            };
            let want = run(Backend::Scalar);
            for &b in Backend::available() {
                assert_eq!(run(b), want, "{b} at {} primitives", c.count());
            }
        }
        for n in (0..=67).chain([1000]) {
            let boxes: Vec<Aabb> = (0..n)
                .map(|_| {
                    let (a, b) = ([value(), value(), value()], [value(), value(), value()]);
                    Aabb::new(
                        core::array::from_fn(|k| a[k].min(b[k])),
                        core::array::from_fn(|k| a[k].max(b[k])),
                    )
                })
                .collect();
            check(&Aabbs::from_slice(&boxes).unwrap());
            let spheres: Vec<Sphere> = boxes
                .iter()
                .map(|b| Sphere::new(b.min, (b.max[0] - b.min[0]).min(Sphere::MAX_RADIUS)))
                .collect();
            check(&Spheres::from_slice(&spheres).unwrap());
            let axes = [[0.6, 0.8, 0.0], [-0.8, 0.6, 0.0], [0.0, 0.0, 1.0]];
            let obbs: Vec<Obb> = boxes
                .iter()
                .map(|b| Obb::new(b.min, [(b.max[1] - b.min[1]).min(1e30), 0.0, 2.0], axes))
                .collect();
            check(&Obbs::from_slice(&obbs).unwrap());
            let octahedra: Vec<Octahedron> = boxes
                .iter()
                .map(|b| {
                    Octahedron::from_aabb(&Aabb::new(
                        b.min.map(|v| v.clamp(-1e30, 1e30)),
                        b.max.map(|v| v.clamp(-1e30, 1e30)),
                    ))
                })
                .collect();
            check(&Octahedra::from_slice(&octahedra).unwrap());
        }
    }

    /// The order, the outsized count, the leaves and every level's bounds of a build on one
    /// thread equal a build on three (the stretches of the keys, the gather and level 0 split
    /// differently): the split changes nothing.
    #[cfg(feature = "rayon")]
    #[test]
    fn a_build_does_not_depend_on_the_thread_count() {
        use crate::blocked::Blocked;
        use crate::primitive::Aabb;
        use crate::soa::Aabbs;
        let mut rng = XorShift32(0x9e37_79b9);
        let mut next = || (rng.next_u32() >> 8) as f32 / (1 << 24) as f32;
        let boxes: Vec<Aabb> = (0..100_003)
            .map(|i| {
                let c = [next() * 500.0, next() * 500.0, next() * 50.0];
                let h = if i % 997 == 0 { 300.0 } else { next() * 2.0 };
                Aabb::new(c.map(|v| v - h), c.map(|v| v + h))
            })
            .collect();
        let flat = Aabbs::from_slice(&boxes).unwrap();
        let pool = |n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        };
        let one = pool(1).install(|| Blocked::new(&flat));
        let three = pool(3).install(|| Blocked::new(&flat));
        let calling = pool(3).install(|| Blocked::new_with_threads(&flat, 1));
        assert!(one.outsized > 0);
        assert_eq!(one.order, three.order);
        assert_eq!(one.order, calling.order);
        assert_eq!(one.leaves, calling.leaves);
        assert_eq!(one.outsized, three.outsized);
        assert_eq!(one.leaves, three.leaves);
        assert_eq!(one.levels.count(), three.levels.count());
        for k in 0..one.levels.count() {
            assert_eq!(one.levels.len(k), three.levels.len(k));
            for i in 0..one.levels.len(k) {
                assert_eq!(one.levels.node(k, i), three.levels.node(k, i), "node {i}");
            }
        }
    }

    #[test]
    fn curve_bits_give_about_a_cell_per_primitive() {
        use super::curve_bits;
        assert_eq!(curve_bits(0), 1);
        assert_eq!(curve_bits(8), 1);
        assert_eq!(curve_bits(9), 2);
        assert_eq!(curve_bits(1_000_000), 7);
        assert_eq!(curve_bits(usize::MAX), 10);
    }

    #[test]
    fn spread_puts_each_bit_three_apart() {
        for b in 0..10 {
            assert_eq!(spread(1 << b), 1 << (3 * b));
        }
        assert_eq!(spread(0x3ff), 0x0924_9249);
        assert_eq!(spread(0xfc00), 0, "bits past the tenth are dropped");
    }

    /// Skilling's `AxestoTranspose` as he wrote it (branches, the correction bit by bit), then
    /// the transposed index's bits interleaved: what `hilbert` computes without branches.
    fn skilling(mut x: [u32; 3], bits: u32) -> u32 {
        let m = 1u32 << (bits - 1);
        let mut q = m;
        while q > 1 {
            let p = q - 1;
            for i in 0..3 {
                if x[i] & q != 0 {
                    x[0] ^= p;
                } else {
                    let t = (x[0] ^ x[i]) & p;
                    x[0] ^= t;
                    x[i] ^= t;
                }
            }
            q >>= 1;
        }
        for i in 1..3 {
            x[i] ^= x[i - 1];
        }
        let mut t = 0;
        let mut q = m;
        while q > 1 {
            if x[2] & q != 0 {
                t ^= q - 1;
            }
            q >>= 1;
        }
        let mut key = 0;
        for b in (0..bits).rev() {
            for v in x {
                key = key << 1 | ((v ^ t) >> b & 1);
            }
        }
        key
    }

    /// The Hilbert keys of a grid are a permutation of `0..8^bits` in which consecutive keys
    /// are face neighbours (one step along one axis), up to 4 bits per axis; and equal the
    /// textbook transform's on 16-lane batches of random cells up to 10 bits.
    #[test]
    fn hilbert_keys_step_between_neighbouring_cells() {
        for bits in 1..=4u32 {
            let side = 1u32 << bits;
            let mut cell_of = vec![None; 1 << (3 * bits)];
            for x in 0..side {
                for y in 0..side {
                    for z in 0..side {
                        let [key] = hilbert([[x], [y], [z]], bits);
                        assert_eq!(key, skilling([x, y, z], bits), "{bits} bits, {x} {y} {z}");
                        let slot = &mut cell_of[key as usize];
                        assert_eq!(*slot, None, "{bits} bits: key {key} twice");
                        *slot = Some([x, y, z]);
                    }
                }
            }
            let cells: Vec<[u32; 3]> = cell_of.into_iter().map(Option::unwrap).collect();
            assert_eq!(
                cells[0],
                [0, 0, 0],
                "{bits} bits: the curve starts at the origin"
            );
            for w in cells.windows(2) {
                let steps: u32 = (0..3).map(|a| w[0][a].abs_diff(w[1][a])).sum();
                assert_eq!(steps, 1, "{bits} bits: {:?} then {:?}", w[0], w[1]);
            }
        }
        let mut rng = XorShift64(0x2545_f491_4f6c_dd1d);
        let mut next = || rng.next_u64() as u32;
        for bits in 1..=10u32 {
            for _ in 0..64 {
                let cells: [[u32; 16]; 3] =
                    core::array::from_fn(|_| core::array::from_fn(|_| next() >> (32 - bits)));
                let keys = hilbert(cells, bits);
                for l in 0..16 {
                    let c = [cells[0][l], cells[1][l], cells[2][l]];
                    assert_eq!(keys[l], skilling(c, bits), "{bits} bits, {c:?}");
                }
            }
        }
    }
}
