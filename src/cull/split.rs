//! Split assignments: parallel in both directions, with no serial pass over the pairs.
//!
//! 1. **By lights.** Tasks over contiguous light ranges each collect the runs of cells their
//!    lights meet, binned by cell range ([`TwoRanges`] for one or two ranges, [`SplitRuns`]
//!    for more: a run crossing a range's end is cut in two).
//! 2. **By cells.** One task per cell range writes that part of the output — CSR lists
//!    ([`write_lists`]) or bitmasks ([`write_masks`]) — from its bin of every light task, taken
//!    in light order, so lights come out ascending within each cell whatever the split.
//!
//! Each part of the output is written by exactly one task (the arrays are cut into disjoint
//! slices with `split_at_mut`), and the CSR ranges know where their pairs start before any of
//! them is written: each bin counts its pairs as it grows.

use super::runs::{CellRuns, RunSink};
use crate::tasks::{join_fixed, run_tasks_mut};

/// The documented panic of an assignment whose offsets would pass `u32::MAX`.
pub(crate) const TOO_MANY_PAIRS: &str =
    "more than u32::MAX (cell, light) pairs: CSR offsets are u32";

/// The cell ranges `bounds[r]..bounds[r + 1]` of a split assignment's output, and the step of
/// its runs.
#[derive(Clone, Debug)]
pub(crate) struct CellSplit {
    /// `0` first, the number of cells last, non-decreasing.
    bounds: Vec<u32>,
    /// The inner bounds (`bounds[1..ranges]`) padded with `u32::MAX`, when there are at most
    /// eight: the range of a cell is then eight compares, branch-free.
    inner: Option<[u32; 8]>,
    step: u32,
}

impl CellSplit {
    /// `ranges` ranges (at least one) of about equal size, each a whole number of blocks of
    /// `unit` cells (`unit` divides `cells`), for runs stepping by `step`.
    pub(crate) fn new(cells: u32, unit: u32, step: u32, ranges: usize) -> CellSplit {
        let units = u64::from(cells / unit.max(1));
        let ranges = ranges.max(1) as u64;
        let bounds = (0..=ranges)
            .map(|r| {
                let b = units * r / ranges * u64::from(unit);
                u32::try_from(b).expect("a bound is at most the number of cells")
            })
            .collect::<Vec<u32>>();
        let inner = &bounds[1..bounds.len() - 1];
        let inner = (inner.len() <= 8).then(|| {
            let mut a = [u32::MAX; 8];
            a[..inner.len()].copy_from_slice(inner);
            a
        });
        CellSplit {
            bounds,
            inner,
            step,
        }
    }

    /// The number of ranges.
    pub(crate) fn ranges(&self) -> usize {
        self.bounds.len() - 1
    }
}

/// One light task's runs, in one [`CellRuns`] per range of a [`CellSplit`].
pub(crate) struct SplitRuns<'a> {
    split: &'a CellSplit,
    bins: &'a mut [CellRuns],
}

impl<'a> SplitRuns<'a> {
    /// Empties `bins` (one per range of `split`) to collect a task's runs.
    fn new(split: &'a CellSplit, bins: &'a mut [CellRuns]) -> SplitRuns<'a> {
        debug_assert_eq!(bins.len(), split.ranges());
        for b in bins.iter_mut() {
            b.reset(split.step);
        }
        SplitRuns { split, bins }
    }
}

impl RunSink for SplitRuns<'_> {
    /// Puts the run into the bin of the range holding its first cell; the part past that
    /// range's end, if any, goes on to the next ranges in the same way
    /// ([`push_cut`](SplitRuns::push_cut), out of line so that this stays small enough to
    /// inline into the deciding loop).
    #[inline(always)]
    fn push(&mut self, start: u32, n: u32, light: u32) {
        let (bounds, step) = (&self.split.bounds, self.split.step);
        // The range holding `start`: the number of inner bounds at most it. (One or two
        // ranges go through `TwoRanges`, never here.)
        let r = match &self.split.inner {
            Some(inner) => inner
                .iter()
                .map(|&b| usize::from(b <= start))
                .sum::<usize>(),
            None => bounds[1..bounds.len() - 1].partition_point(|&b| b <= start),
        };
        // Every cell of a run is below the number of cells, so this does not overflow.
        if start + (n - 1) * step < bounds[r + 1] {
            self.bins[r].push(start, n, light);
        } else {
            self.push_cut(start, n, light, r);
        }
    }
}

impl SplitRuns<'_> {
    /// [`push`](RunSink::push) of a run from range `r` past that range's end.
    #[cold]
    #[inline(never)]
    fn push_cut(&mut self, mut start: u32, mut n: u32, light: u32, mut r: usize) {
        let (bounds, step) = (&self.split.bounds, self.split.step);
        loop {
            let end = bounds[r + 1];
            if start + (n - 1) * step < end {
                self.bins[r].push(start, n, light);
                return;
            }
            let (k, next) = cells_below(start, end, step);
            self.bins[r].push(start, k, light);
            start = next;
            n -= k;
            r += 1;
            while bounds[r + 1] <= start {
                r += 1;
            }
        }
    }
}

/// The number `k` of cells `start, start + step, ...` below `end` (`start < end`, so `k >= 1`),
/// and the cell after them, `start + k step`: counted, as a run is a few cells (one division
/// instead: uniform frames 3% faster with eight ranges while uniform runs were cut, indoor
/// within noise; only froxel runs, a few cells, are cut now).
#[inline]
fn cells_below(start: u32, end: u32, step: u32) -> (u32, u32) {
    let (mut k, mut next) = (1, start + step);
    while next < end {
        next += step;
        k += 1;
    }
    (k, next)
}

/// One light task's runs when there are at most two cell ranges (one or two threads): the bins
/// moved out of the task's buffers into this value, which the deciding loop owns, and moved
/// back after.
///
/// Through [`SplitRuns`] (a bin picked by index in `&mut [CellRuns]`, each push storing and
/// reloading that bin's length through an address known late) two ranges cost 16% more than
/// one on a one-thread pool (uniform scene; 10% on the froxel scenes), and `perf` put the
/// difference on the pushes. Two bins by name, picked by a branch (a light's runs mostly fall
/// in one range, so it predicts well), cut that to 6-10% (1% on `many_lights`), and
/// two-thread frames were 5-8% faster in three probe alternations in a good period (the
/// bench's two-thread ratios follow the machine's state more than this; `docs/benchmarks.md`).
/// More ranges still go through [`SplitRuns`].
pub(crate) struct TwoRanges {
    /// Runs ending below `mid`, and runs from `mid` on.
    lo: CellRuns,
    hi: CellRuns,
    /// The first cell of the second range (`u32::MAX` with one range: every cell is below it).
    mid: u32,
    step: u32,
}

impl TwoRanges {
    /// Moves the (emptied) bins of `bins` (one or two, per range of `split`) into a sink.
    fn take(split: &CellSplit, bins: &mut [CellRuns]) -> TwoRanges {
        debug_assert!(matches!(bins.len(), 1 | 2) && bins.len() == split.ranges());
        let mut take = |r: usize| {
            let mut b = bins.get_mut(r).map(core::mem::take).unwrap_or_default();
            b.reset(split.step);
            b
        };
        TwoRanges {
            lo: take(0),
            hi: take(1),
            mid: if bins.len() == 2 {
                split.bounds[1]
            } else {
                u32::MAX
            },
            step: split.step,
        }
    }

    /// Moves the bins back into `bins`.
    fn put(self, bins: &mut [CellRuns]) {
        bins[0] = self.lo;
        if let Some(b) = bins.get_mut(1) {
            *b = self.hi;
        }
    }

    /// [`push`](RunSink::push) of a run across `mid`.
    #[cold]
    #[inline(never)]
    fn push_cut(&mut self, start: u32, n: u32, light: u32) {
        let (k, next) = cells_below(start, self.mid, self.step);
        self.lo.push(start, k, light);
        self.hi.push(next, n - k, light);
    }
}

impl RunSink for TwoRanges {
    #[inline(always)]
    fn push(&mut self, start: u32, n: u32, light: u32) {
        // Every cell of a run is below the number of cells, so this does not overflow.
        if start + (n - 1) * self.step < self.mid {
            self.lo.push(start, n, light);
        } else if start >= self.mid {
            self.hi.push(start, n, light);
        } else {
            self.push_cut(start, n, light);
        }
    }
}

/// What the light tasks of a split assignment run.
pub(crate) trait CollectRuns: Sync {
    /// The number of light tasks.
    fn tasks(&self) -> usize;

    /// Pushes into `runs` the runs of cells light task `task`'s lights meet, lights ascending,
    /// and gives it back (by value, so that the loops pushing own it).
    fn collect<S: RunSink>(&self, task: usize, runs: S) -> S;
}

/// Per-task and per-range buffers of split assignments, kept by the outputs for their
/// allocations (a steady frame allocates nothing that grows with the lights or cells).
#[derive(Default)]
pub(crate) struct SplitScratch {
    /// Per light task, one bin per cell range.
    tasks: Vec<Vec<CellRuns>>,
    /// Per cell range, its cells' counts and cursors.
    counts: Vec<Vec<u32>>,
    /// Per cell range, the offset of its first pair; the total last.
    bases: Vec<u32>,
}

impl SplitScratch {
    /// Runs `collect.collect(t, runs)` for every light task `t`, in parallel, each into its
    /// buffers (kept from the last call where possible) binned by the ranges of `split`; to be
    /// given back with [`keep_tasks`](Self::keep_tasks).
    ///
    /// With one or two ranges, the runs go through a [`TwoRanges`].
    pub(crate) fn collect(
        &mut self,
        split: &CellSplit,
        collect: &impl CollectRuns,
    ) -> Vec<Vec<CellRuns>> {
        let mut runs = core::mem::take(&mut self.tasks);
        runs.resize_with(collect.tasks(), Vec::new);
        run_tasks_mut(&mut runs, |t, bins| {
            bins.resize_with(split.ranges(), CellRuns::default);
            if bins.len() <= 2 {
                collect.collect(t, TwoRanges::take(split, bins)).put(bins);
            } else {
                collect.collect(t, SplitRuns::new(split, bins));
            }
        });
        runs
    }

    /// Keeps the task buffers for the next call.
    pub(crate) fn keep_tasks(&mut self, tasks: Vec<Vec<CellRuns>>) {
        self.tasks = tasks;
    }
}

/// Replaces `offsets` and `indices` by the CSR lists of the runs of `tasks` (per light task, in
/// light order, one bin per range of `split`), writing the cell ranges in parallel.
///
/// # Panics
/// If there are more than `u32::MAX` pairs.
pub(crate) fn write_lists(
    split: &CellSplit,
    tasks: &[Vec<CellRuns>],
    scratch: &mut SplitScratch,
    offsets: &mut Vec<u32>,
    indices: &mut Vec<u32>,
) {
    let ranges = split.ranges();
    let cells = split.bounds[ranges] as usize;
    // Where each range's pairs start: every bin knows how many it holds.
    let bases = &mut scratch.bases;
    bases.clear();
    let mut total = 0u64;
    for r in 0..ranges {
        bases.push(u32::try_from(total).expect(TOO_MANY_PAIRS));
        total += tasks.iter().map(|t| t[r].pairs()).sum::<u64>();
    }
    bases.push(u32::try_from(total).expect(TOO_MANY_PAIRS));
    // Every entry is written below (`offsets[0]` here, the others by their range), so only
    // new entries are zeroed: no serial pass over the pairs.
    offsets.truncate(cells + 1);
    offsets.resize(cells + 1, 0);
    offsets[0] = 0;
    indices.truncate(bases[ranges] as usize);
    indices.resize(bases[ranges] as usize, 0);
    scratch.counts.resize_with(ranges, Vec::new);
    let out = Lists {
        split,
        tasks,
        bases,
    };
    out.write(0..ranges, &mut scratch.counts, &mut offsets[1..], indices);
}

/// What the cell ranges of [`write_lists`] read.
struct Lists<'a> {
    split: &'a CellSplit,
    tasks: &'a [Vec<CellRuns>],
    bases: &'a [u32],
}

impl Lists<'_> {
    /// Writes ranges `rs`: `ends` holds the offsets past their cells, `pairs` their pairs, one
    /// count buffer each in `counts`. Halves and recurses in parallel down to one range, each
    /// half on a fixed worker when there are two (`join_fixed`: the range a worker wrote last
    /// frame is still in its caches; on this project's VM a cache line's round trip between the
    /// two cores took 54 to 630 ns depending on where the host put them; 3-10% of a 2-thread
    /// frame against a plain join, interleaved A/B).
    fn write(
        &self,
        rs: core::ops::Range<usize>,
        counts: &mut [Vec<u32>],
        ends: &mut [u32],
        pairs: &mut [u32],
    ) {
        let b = &self.split.bounds;
        if rs.len() == 1 {
            let r = rs.start;
            let bins = || self.tasks.iter().map(|t| &t[r]);
            let step = self.split.step;
            fill_range(
                b[r]..b[r + 1],
                step,
                self.bases[r],
                bins,
                &mut counts[0],
                ends,
                pairs,
            );
            return;
        }
        let mid = rs.start + rs.len() / 2;
        let (c0, c1) = counts.split_at_mut(mid - rs.start);
        let (e0, e1) = ends.split_at_mut((b[mid] - b[rs.start]) as usize);
        let (p0, p1) = pairs.split_at_mut((self.bases[mid] - self.bases[rs.start]) as usize);
        join_fixed(
            || self.write(rs.start..mid, c0, e0, p0),
            || self.write(mid..rs.end, c1, e1, p1),
        );
    }
}

/// Writes cells `cells` of CSR lists from the runs of `bins()` (all inside `cells`, lights
/// ascending across the bins): `ends[c - cells.start]` becomes the offset past cell `c`'s
/// lights, counted from `base`, and `pairs` (the range's part of the indices, starting at
/// offset `base`) its lights.
///
/// A stable counting sort by cell: the counts take one pass over the runs, not the pairs (each
/// run adds 1 at its first cell and -1 one step past its last, and a prefix sum along each
/// chain `c, c + step, ...` turns those into per-cell counts; wrapping arithmetic, as a -1 may
/// come before the +1 it cancels), then one pass over the pairs writes them.
fn fill_range<'b, I: Iterator<Item = &'b CellRuns>>(
    cells: core::ops::Range<u32>,
    step: u32,
    base: u32,
    bins: impl Fn() -> I,
    counts: &mut Vec<u32>,
    ends: &mut [u32],
    pairs: &mut [u32],
) {
    let (lo, n) = (cells.start, (cells.end - cells.start) as usize);
    let step_us = step as usize;
    // One step of room past the last cell for the -1 of runs that end there.
    counts.clear();
    counts.resize(n + step_us, 0);
    for runs in bins() {
        for &[start, k, _] in runs.runs() {
            let s = (start - lo) as usize;
            counts[s] = counts[s].wrapping_add(1);
            let e = s + k as usize * step_us;
            counts[e] = counts[e].wrapping_sub(1);
        }
    }
    for c in step_us..n {
        counts[c] = counts[c].wrapping_add(counts[c - step_us]);
    }
    // Counts to cursors (slots within `pairs`) and end offsets.
    let mut at = 0u32;
    for (count, end) in counts[..n].iter_mut().zip(ends.iter_mut()) {
        let k = *count;
        *count = at;
        at += k;
        *end = base + at;
    }
    for runs in bins() {
        runs.for_each_pair(|c, l| {
            let slot = &mut counts[(c - lo) as usize];
            pairs[*slot as usize] = l;
            *slot += 1;
        });
    }
}

/// Replaces `words` (`per_cell` words per cell) by the bits of the pairs of the runs of
/// `tasks`, clearing and writing the cell ranges of `split` in parallel.
pub(crate) fn write_masks(
    split: &CellSplit,
    tasks: &[Vec<CellRuns>],
    words: &mut [u32],
    per_cell: usize,
) {
    write_mask_ranges(split, tasks, 0..split.ranges(), words, per_cell);
}

/// [`write_masks`] for ranges `rs`, whose words are `words`: halves and recurses in parallel
/// down to one range.
fn write_mask_ranges(
    split: &CellSplit,
    tasks: &[Vec<CellRuns>],
    rs: core::ops::Range<usize>,
    words: &mut [u32],
    per_cell: usize,
) {
    let b = &split.bounds;
    if rs.len() == 1 {
        // The range's words are cleared here, in parallel, not by `LightMasks::reset`.
        words.fill(0);
        for t in tasks {
            set_bits(&t[rs.start], b[rs.start], words, per_cell);
        }
        return;
    }
    let mid = rs.start + rs.len() / 2;
    let (w0, w1) = words.split_at_mut((b[mid] - b[rs.start]) as usize * per_cell);
    join_fixed(
        || write_mask_ranges(split, tasks, rs.start..mid, w0, per_cell),
        || write_mask_ranges(split, tasks, mid..rs.end, w1, per_cell),
    );
}

/// Sets in `words` (cells from `lo`, `per_cell` words each) the bit of every pair of `runs`.
fn set_bits(runs: &CellRuns, lo: u32, words: &mut [u32], per_cell: usize) {
    runs.for_each_pair(|cell, light| {
        words[(cell - lo) as usize * per_cell + light as usize / 32] |= 1 << (light % 32);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs cut at range ends land in every range they cross, whole and in order; the lists
    /// written range by range equal those of one range.
    #[test]
    fn runs_cut_at_range_ends_give_the_one_range_lists() {
        // 6 blocks of 3 cells (step 3: a run visits one cell per block).
        let (cells, step) = (18u32, 3u32);
        // With two ranges (cells 0..9 and 9..18), the third run ends on the second range's
        // first cell and the sixth starts there.
        let runs: [(u32, u32, u32); 8] = [
            (0, 6, 0),
            (1, 4, 1),
            (3, 3, 2),
            (5, 1, 3),
            (7, 3, 4),
            (9, 2, 5),
            (2, 6, 6),
            (17, 1, 7),
        ];
        let lists = |ranges: usize| {
            let split = CellSplit::new(cells, step, step, ranges);
            let mut scratch = SplitScratch::default();
            struct Two<'a>(&'a [(u32, u32, u32)]);
            impl CollectRuns for Two<'_> {
                fn tasks(&self) -> usize {
                    2
                }
                fn collect<S: RunSink>(&self, t: usize, mut sink: S) -> S {
                    for &(s, n, l) in &self.0[t * 4..t * 4 + 4] {
                        sink.push(s, n, l);
                    }
                    sink
                }
            }
            let tasks = scratch.collect(&split, &Two(&runs));
            let (mut offsets, mut indices) = (Vec::new(), Vec::new());
            write_lists(&split, &tasks, &mut scratch, &mut offsets, &mut indices);
            let mut masks = vec![0u32; cells as usize];
            write_masks(&split, &tasks, &mut masks, 1);
            (offsets, indices, masks)
        };
        let one = lists(1);
        // Cell c lists the lights whose runs pass it, ascending.
        let mut want = vec![Vec::new(); cells as usize];
        for &(s, n, l) in &runs {
            for i in 0..n {
                want[(s + i * step) as usize].push(l);
            }
        }
        let mut offsets = vec![0u32];
        for w in &want {
            offsets.push(offsets.last().unwrap() + w.len() as u32);
        }
        assert_eq!(one.0, offsets);
        assert_eq!(one.1, want.concat());
        let masks: Vec<u32> = want
            .iter()
            .map(|w| w.iter().map(|l| 1 << l).sum())
            .collect();
        assert_eq!(one.2, masks);
        // One inner bound ([`TwoRanges`]), up to eight (the padded compares), more (a binary
        // search), and empty ranges (more ranges than blocks).
        for ranges in 2..=12 {
            assert_eq!(lists(ranges), one, "{ranges} ranges");
        }
    }
}
