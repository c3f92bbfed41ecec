//! The partition across the two other axes: a grid of cells over the plane of the axes other than
//! the sweep axis ("y" and "z" here, as "x" is the sweep axis in `sweep.rs`), each cell holding,
//! in sweep order, every element whose y and z extents meet it. Elements that overlap share a
//! cell (the one holding the min corner of their overlap), so a sweep inside each cell finds every
//! pair, and it reads only the candidates of the cell instead of every element whose x interval
//! meets the query's.
//!
//! # Each pair once
//! An element spanning several cells is listed in each. The pair of elements `s` (earlier in
//! sweep order) and `t` is reported from the cell holding the point
//! `(max(min y_s, min y_t), max(min z_s, min z_t))`, the min corner of their overlap in the y/z
//! plane: the point lies in both elements' extents (they overlap), and the cell of a point is a
//! monotone function of each coordinate, so that cell is in both elements' cell ranges, and it is
//! one cell. By the same monotony, the cell of a max is the max of the cells: the cell is
//! `(max(y0_s, y0_t), max(z0_s, z0_t))` of the two elements' first cells along y and z. In a
//! cell past the first row of `s`'s range, that max is the cell's row only if `t`'s range starts
//! there (and likewise for columns), so each listing carries two bits, "its range starts in an
//! earlier row / column", and the scan of `s` in such a cell drops the lanes with a bit it needs,
//! inside its SIMD loop ([`Once`]). When `s` spans one cell only, the pair can be met nowhere
//! else, and no check is made.
//!
//! # Order
//! The sweep takes the elements in global sweep order and scans each of its cells from its own
//! place there; a cell's list is in sweep order, so the hits of one cell come in sweep order, and
//! the hits of an element spanning several cells are sorted by sweep position before they are
//! reported. Pairs therefore come in exactly the one-axis sweep's order.

use super::sorted::{
    MIN_X, ROWS_AHEAD, Row, Shape, SortedBoxes, add_extent, max_x, prefetch_row, put_lane,
    side_extent,
};
use super::sweep::{DENSE, HitStream, Once, code, row_at, with_code};
use crate::lanes::{Chunk, Lanes, WithLanes};
use crate::sample;
use crate::tasks::{fill_in_stretches, join_two, threads_or_default};
use core::ops::Range;

/// Most cells along one axis.
pub(super) const MAX_CELLS_PER_AXIS: usize = 64;

/// Fewest elements whose cell ranges a task computes (below twice as many, one task does all).
const MIN_SPANS_PER_TASK: usize = 16_384;

/// A grid over the y/z plane: `dims[k]` cells along axis `k` (0: y, 1: z), of width
/// `1 / inv[k]` from `lo[k]`; coordinates below the first cell fall in it, those past the last in
/// it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Grid {
    lo: [f32; 2],
    inv: [f32; 2],
    dims: [usize; 2],
    /// `dims - 1` as floats (the last cell along each axis).
    last: [f32; 2],
}

impl Grid {
    /// `dims` cells over `[lo, hi]` on each axis (one cell on an axis with `hi <= lo` or
    /// non-finite bounds).
    pub(super) fn new(lo: [f32; 2], hi: [f32; 2], dims: [usize; 2]) -> Grid {
        let mut g = Grid {
            lo: [0.0; 2],
            inv: [0.0; 2],
            dims: [1; 2],
            last: [0.0; 2],
        };
        for k in 0..2 {
            let d = dims[k].clamp(1, MAX_CELLS_PER_AXIS);
            let inv = (d as f64 / (f64::from(hi[k]) - f64::from(lo[k]))) as f32;
            if d > 1 && lo[k].is_finite() && inv.is_finite() && inv > 0.0 {
                g.lo[k] = lo[k];
                g.inv[k] = inv;
                g.dims[k] = d;
                g.last[k] = (d - 1) as f32;
            }
        }
        g
    }

    /// Number of cells along each axis.
    pub(super) fn dims(&self) -> [usize; 2] {
        self.dims
    }

    /// The cell along axis `k` of coordinate `v`: `floor((v - lo) * inv)`, clamped to the grid.
    /// Monotone in `v` (both float operations round monotonically, `inv > 0`), which is what
    /// the pair-once rule needs; any value, infinite included, has a cell.
    #[inline(always)]
    fn cell(&self, k: usize, v: f32) -> usize {
        let t = (v - self.lo[k]) * self.inv[k];
        // Clamped to the grid as a float (`max` takes a NaN, which finite `lo` and `v` do not
        // make, to 0), so the conversion is in range: a 32-bit one, cheaper than a saturating
        // conversion to `usize`.
        t.max(0.0).min(self.last[k]) as i32 as usize
    }

    /// The cell ranges `[y0, y1, z0, z1]` (inclusive) of extent `[min y, min z, max y, max z]`.
    #[inline]
    fn span(&self, e: [f32; 4]) -> [u16; 4] {
        [
            self.cell(0, e[0]) as u16,
            self.cell(0, e[2]) as u16,
            self.cell(1, e[1]) as u16,
            self.cell(1, e[3]) as u16,
        ]
    }
}

/// Per cell of a grid of `dims` cells (row-major): the elements whose cell ranges (see
/// [`Grid::span`]) `spans` cover it. Counted without a branch or a loop per element: each range
/// adds its four corners to a difference grid one cell wider along each axis (+1 at `(y0, z0)`
/// and `(y1 + 1, z1 + 1)`, -1 at `(y0, z1 + 1)` and `(y1 + 1, z0)`), whose sums over both axes
/// are the counts. (A loop over each element's cells, with a branch for the common one-cell
/// range, took 0.76 ms for Terdiman's 100,000 boxes on the Intel Xeon of 2026-11-29: about
/// every other branch on an element of several cells mispredicted.)
fn cell_sizes(spans: &[[u16; 4]], [gy, gz]: [usize; 2]) -> Vec<usize> {
    let w = gz + 1;
    // Wrapping sums: each partial sum is exact modulo 2^64, and the counts are not negative.
    let mut diff = vec![0usize; (gy + 1) * w];
    for &sp in spans {
        let [y0, y1, z0, z1] = sp.map(usize::from);
        let (top, bottom) = (y0 * w, (y1 + 1) * w);
        diff[top + z0] = diff[top + z0].wrapping_add(1);
        diff[top + z1 + 1] = diff[top + z1 + 1].wrapping_sub(1);
        diff[bottom + z0] = diff[bottom + z0].wrapping_sub(1);
        diff[bottom + z1 + 1] = diff[bottom + z1 + 1].wrapping_add(1);
    }
    let mut sizes = vec![0usize; gy * gz];
    let mut above = vec![0usize; gz];
    for y in 0..gy {
        let mut row = 0usize;
        for z in 0..gz {
            row = row.wrapping_add(diff[y * w + z]);
            above[z] = above[z].wrapping_add(row);
            sizes[y * gz + z] = above[z];
        }
    }
    sizes
}

/// A set's elements sorted for the sweep and listed by the cells of a [`Grid`], every cell's
/// list in one set of SoA columns.
pub(super) struct Cells {
    grid: Grid,
    /// Every cell's elements in sweep order, cell after cell: cell `c` holds the lanes from
    /// `starts[c]` on, followed by at least one padding lane (NaN in min x: the scans stop there),
    /// and every cell starts at a chunk boundary (so the lanes before a scan's first one in its
    /// block are the cell's own). `perm` holds each listing's sorted position.
    set: SortedBoxes,
    /// Per cell: its first lane in `set`.
    starts: Vec<usize>,
    /// Per lane of `set`: the original index of the element listed there (0 in padding lanes).
    by_lane: Vec<u32>,
    /// Per chunk of `set`: the first cells its lanes' elements lack (see [`Once`]); empty with
    /// one cell.
    misses: Vec<Chunk>,
    /// Per sorted position: the element's original index.
    order: Vec<u32>,
    /// Per sorted position: its cell ranges (see [`Grid::span`]); empty with one cell.
    spans: Vec<[u16; 4]>,
}

/// Per element of `rows` (by original index): its cell ranges in `grid` ([`Grid::span`]);
/// empty with one cell. In stretches over `threads` threads (the vector zeroed on them too,
/// [`zeroed_vec`](crate::tasks::zeroed_vec)).
fn cell_ranges(
    shape: Shape,
    axis: usize,
    rows: &[Row],
    grid: Grid,
    threads: usize,
) -> Vec<[u16; 4]> {
    let [gy, gz] = grid.dims();
    if gy * gz == 1 {
        return Vec::new();
    }
    let mut spans = crate::tasks::zeroed_vec(rows.len(), threads);
    fill_in_stretches(
        &mut spans,
        1,
        MIN_SPANS_PER_TASK,
        threads,
        |from, stretch| {
            for (sp, r) in stretch.iter_mut().zip(&rows[from..]) {
                *sp = grid.span(side_extent(shape, axis, r));
            }
        },
    );
    spans
}

/// Fewest listings a task places (below twice as many, one task places them all); a few in the
/// unit tests, whose scenes of 1,500 elements then place their lists in several tasks.
const MIN_LISTINGS_PER_TASK: usize = if cfg!(test) { 64 } else { 32_768 };

/// Places every element of `rows` (taken in sweep `order`, with its cell ranges `spans` per
/// sorted position) in each cell of its ranges, at the next lane of that cell (`first[c]`:
/// cell `c`'s first lane): its row and sorted position in `set`, its index in `by_lane`, the
/// first cells it lacks there in `misses` (see [`Once`]); the lanes past each cell's listings
/// become padding (NaN in min x; the rest of `set`, and the other slices, come zeroed). In
/// tasks over `threads` threads, each the cells of one stretch of lanes (one thread's share of
/// the listings; cells start at chunk boundaries, so the stretches are whole chunks): each task
/// reads every element's cell ranges and places the listings in its own cells, so the lanes
/// come out as one pass in sweep order would place them, whatever the split.
fn place_listings(
    (set, by_lane, misses): (&mut SortedBoxes, &mut [u32], &mut [Chunk]),
    first: &[usize],
    (rows, order, spans): (&[Row], &[u32], &[[u16; 4]]),
    gz: usize,
    threads: usize,
) {
    let end = by_lane.len();
    let tasks = if end >= 2 * MIN_LISTINGS_PER_TASK {
        crate::tasks::threads_or_default(threads).min(end / MIN_LISTINGS_PER_TASK)
    } else {
        1
    };
    // The first cell of each task after the first: where the lanes pass its share.
    let mut cuts: Vec<usize> = Vec::new();
    for t in 1..tasks {
        let c = first.partition_point(|&f| f < end * t / tasks);
        if c > cuts.last().copied().unwrap_or(0) && c < first.len() {
            cuts.push(c);
        }
    }
    let lanes_at: Vec<usize> = cuts.iter().map(|&c| first[c]).collect();
    let stride = set.stride();
    let mut by_lane = &mut by_lane[..];
    let mut misses = &mut misses[..];
    let mut parts = Vec::with_capacity(cuts.len() + 1);
    let mut from = 0;
    for ((data, perm), t) in set.split_lanes(&lanes_at).into_iter().zip(0..) {
        let to = lanes_at.get(t).copied().unwrap_or(end);
        let (b, b_rest) = by_lane.split_at_mut(to - from);
        let (m, m_rest) = misses.split_at_mut((to - from) / Chunk::LANES);
        let cells =
            if t == 0 { 0 } else { cuts[t - 1] }..cuts.get(t).copied().unwrap_or(first.len());
        parts.push(Listings {
            fill: first[cells.clone()].to_vec(),
            first,
            cells,
            first_lane: from,
            data,
            perm,
            by_lane: b,
            misses: m,
        });
        (by_lane, misses, from) = (b_rest, m_rest, to);
    }
    let source = Source {
        one_share: cuts.is_empty(),
        prefetch: end >= PREFETCH_MIN_LANES,
        stride,
        rows,
        order,
        spans,
        gz,
    };
    crate::tasks::run_tasks_mut(&mut parts, |_, part| part.place(source));
}

/// What every share of [`place_listings`] reads: whether there is one share (its cells all the
/// cells), whether to ask for the lines of chunks ahead ([`CHUNKS_AHEAD`]), the set's columns
/// per chunk, the rows, the sweep order, each sorted position's cell ranges and the cells per
/// grid row.
#[derive(Clone, Copy)]
struct Source<'a> {
    one_share: bool,
    prefetch: bool,
    stride: usize,
    rows: &'a [Row],
    order: &'a [u32],
    spans: &'a [[u16; 4]],
    gz: usize,
}

/// Chunks ahead of the one a cell's listings start to fill that [`Listings::place_one`] asks
/// for the lines of, as the cell starts each chunk. A cell's lanes are written in order, nine
/// lines a chunk (six columns for boxes, the sorted positions, the indices and the missing
/// cells), dozens of cells at once: without the hint each new line waited for its fetch. On
/// Terdiman's 100,000 boxes (one thread, the Intel Xeon of 2026-11-29) the placing took
/// 0.76-0.84x the time with it, one chunk ahead or four the same. Below
/// [`PREFETCH_MIN_LANES`] lanes the listings stay in the second-level cache, and the hints only
/// cost (10,000 boxes: 0.98-0.99x in one process).
const CHUNKS_AHEAD: usize = 2;

/// Fewest lanes of all cells for which [`Listings::place_one`] asks for lines ahead (about
/// 2.5 MB of box listings); a few in the unit tests, whose scenes then take both loops.
const PREFETCH_MIN_LANES: usize = if cfg!(test) { 64 } else { 1 << 16 };

/// One task's share of [`place_listings`]: the cells `cells`, whose lanes start at
/// `first_lane` (the slices' first entries).
struct Listings<'a> {
    cells: Range<usize>,
    /// Per cell of `cells`: its next free lane.
    fill: Vec<usize>,
    /// Per cell (of all): its first lane.
    first: &'a [usize],
    first_lane: usize,
    data: &'a mut [Chunk],
    perm: &'a mut [u32],
    by_lane: &'a mut [u32],
    misses: &'a mut [Chunk],
}

impl Listings<'_> {
    /// Places the listings of every element in this share's cells (see [`place_listings`]).
    /// With several shares the elements are taken a block at a time: first the block's elements
    /// that have a cell here, gathered without a branch (whether an element has one is as good
    /// as random, and a branch on it mispredicted about every other element), then those placed.
    fn place(&mut self, source: Source) {
        // Two copies of the loop, so that the one without the hints is the loop as it was
        // before them (in the same loop, a branch on a flag cost 10,000 boxes 2-3 %).
        if source.prefetch {
            self.place_all::<true>(source);
        } else {
            self.place_all::<false>(source);
        }
        self.pad(source.stride);
    }

    /// Puts NaN in min x of the lanes past each cell's listings, up to the next cell's first
    /// lane (or the share's end).
    fn pad(&mut self, stride: usize) {
        let end = self.first_lane + self.by_lane.len();
        for (k, c) in self.cells.clone().enumerate() {
            let next = self.first.get(c + 1).copied().unwrap_or(end).min(end);
            for lane in self.fill[k] - self.first_lane..next - self.first_lane {
                self.data[lane / Chunk::LANES * stride + MIN_X].0[lane % Chunk::LANES] = f32::NAN;
            }
        }
    }

    /// [`place`](Self::place), asking for the lines of chunks ahead if `PREFETCH`.
    fn place_all<const PREFETCH: bool>(&mut self, source: Source) {
        const BLOCK: usize = 256;
        let Source {
            one_share,
            rows,
            order,
            spans,
            gz,
            ..
        } = source;
        if one_share {
            // Every cell: every element.
            for s in 0..spans.len() {
                prefetch_row(rows, order, s + ROWS_AHEAD);
                self.place_one::<PREFETCH>(source, s);
            }
            return;
        }
        let cells = self.cells.clone();
        let mut mine = [0u32; BLOCK];
        for (b, block) in spans.chunks(BLOCK).enumerate() {
            let mut n = 0;
            for (k, &sp) in block.iter().enumerate() {
                let [y0, y1, z0, z1] = sp.map(usize::from);
                // Row-major cells: the element's lie between its first and its last. `&`, not
                // `&&`: the short circuit compiled to a branch on the first test, true for every
                // element in the first share but as good as random in the others (there the
                // selection took three times as long).
                let here = (y1 * gz + z1 >= cells.start) & (y0 * gz + z0 < cells.end);
                mine[n] = k as u32;
                n += usize::from(here);
            }
            for (j, &k) in mine[..n].iter().enumerate() {
                if let Some(&ahead) = mine[..n].get(j + ROWS_AHEAD) {
                    prefetch_row(rows, order, b * BLOCK + ahead as usize);
                }
                self.place_one::<PREFETCH>(source, b * BLOCK + k as usize);
            }
        }
    }

    /// A hint to fetch the lines that placing the listings of chunk `c` (of this share's
    /// slices) will write: its columns, and its stretch of `perm`, `by_lane` and `misses`. The
    /// addresses may lie past the slices (a prefetch never faults).
    #[inline(always)]
    fn prefetch_chunk(&self, stride: usize, c: usize) {
        let columns = self.data.as_ptr().wrapping_add(c * stride);
        for k in 0..stride {
            crate::lanes::prefetch_address(columns.wrapping_add(k));
        }
        let lane = c * Chunk::LANES;
        crate::lanes::prefetch_address(self.perm.as_ptr().wrapping_add(lane));
        crate::lanes::prefetch_address(self.by_lane.as_ptr().wrapping_add(lane));
        crate::lanes::prefetch_address(self.misses.as_ptr().wrapping_add(c));
    }

    /// Places the element at sorted position `s` in each of its cells that is in this share.
    #[inline(always)]
    fn place_one<const PREFETCH: bool>(&mut self, source: Source, s: usize) {
        let Source {
            stride,
            rows,
            order,
            spans,
            gz,
            ..
        } = source;
        let cells = &self.cells;
        let (i, [y0, y1, z0, z1]) = (order[s], spans[s].map(usize::from));
        let row = &rows[i as usize];
        for y in y0..y1 + 1 {
            for z in z0..z1 + 1 {
                let c = y * gz + z;
                if !cells.contains(&c) {
                    continue;
                }
                let lane = self.fill[c - cells.start];
                self.fill[c - cells.start] += 1;
                let l = lane - self.first_lane;
                if PREFETCH && l.is_multiple_of(Chunk::LANES) {
                    self.prefetch_chunk(stride, l / Chunk::LANES + CHUNKS_AHEAD);
                }
                put_lane(self.data, self.perm, stride, l, row, s as u32);
                self.by_lane[l] = i;
                // The first cells the element lacks here (see `Once`).
                let miss = u32::from(y > y0) | (u32::from(z > z0) << 1);
                self.misses[l / Chunk::LANES].0[l % Chunk::LANES] = f32::from_bits(miss);
            }
        }
    }
}

impl Cells {
    /// Lists the elements of `rows` (of `shape`, for sweep axis `axis`), taken in the sweep order
    /// `order` (ascending (min x, index)), by the cells of a grid of `dims` cells (`None`: the
    /// automatic choice of [`grid_for`], from `stats` where the caller has them, else from a
    /// pass over the rows' side extents).
    pub(super) fn build(
        shape: Shape,
        filtered: bool,
        axis: usize,
        rows: &[Row],
        order: impl FnOnce() -> Vec<u32> + Send,
        (dims, stats, lanes): (Option<[usize; 2]>, Option<GridStats>, usize),
        threads: usize,
    ) -> Cells {
        let n = rows.len();
        // Per element, by original index: its cell ranges (empty with one cell). The passes in
        // the rows' own order are sequential; the one in sweep order reads each row once.
        let grid = match dims {
            Some([1, 1]) => Grid::new([0.0; 2], [0.0; 2], [1, 1]),
            _ => grid_for(
                stats.unwrap_or_else(|| grid_stats(shape, axis, rows)),
                middle_of_centres(shape, axis, rows),
                n,
                dims,
                lanes,
            ),
        };
        let [gy, gz] = grid.dims();
        // The cell ranges and the cells' sizes beside the sweep order's sort (on two threads
        // when the ranges are made in stretches).
        let ranges = || {
            let by_index = cell_ranges(shape, axis, rows, grid, threads);
            let fill = if gy * gz == 1 {
                vec![n]
            } else {
                cell_sizes(&by_index, [gy, gz])
            };
            (by_index, fill)
        };
        let parallel = threads_or_default(threads) > 1 && n >= 2 * MIN_SPANS_PER_TASK;
        let (order, (by_index, mut fill)) = join_two(parallel, order, ranges);
        debug_assert_eq!(order.len(), n);
        // Their starts (each list, plus a padding lane, rounded up to chunks).
        let mut starts = Vec::with_capacity(gy * gz);
        let mut end = 0;
        for f in &mut fill {
            starts.push(end);
            end = (end + *f + 1).next_multiple_of(Chunk::LANES);
            *f = *starts.last().expect("pushed");
        }
        // The listings, in sweep order within each cell, and each element's cell ranges in
        // sweep order. The vectors are zeroed in parallel (`zeroed_vec`) and padded by the
        // tasks that fill them (a serial fill of the padding and of the spans took about 3 % of
        // a two-thread call on 100,000 boxes).
        let mut by_lane = crate::tasks::zeroed_vec(end, threads);
        let mut misses = Vec::new();
        let (set, spans) = if by_index.is_empty() {
            let mut set = SortedBoxes::padded(shape, filtered, end);
            for (s, &i) in order.iter().enumerate() {
                set.put(s, &rows[i as usize], s as u32);
                by_lane[s] = i;
            }
            (set, Vec::new())
        } else {
            let mut set = SortedBoxes::zeroed(shape, filtered, end, threads);
            let mut spans = crate::tasks::zeroed_vec(n, threads);
            fill_in_stretches(
                &mut spans,
                1,
                MIN_SPANS_PER_TASK,
                threads,
                |from, stretch| {
                    for (sp, &i) in stretch.iter_mut().zip(&order[from..]) {
                        *sp = by_index[i as usize];
                    }
                },
            );
            misses = crate::tasks::zeroed_vec(end / Chunk::LANES, threads);
            place_listings(
                (&mut set, &mut by_lane, &mut misses),
                &fill,
                (rows, &order, &spans),
                gz,
                threads,
            );
            (set, spans)
        };
        Cells {
            grid,
            set,
            by_lane,
            misses,
            starts,
            order,
            spans,
        }
    }

    /// Number of elements.
    pub(super) fn len(&self) -> usize {
        self.order.len()
    }

    /// The candidate tests of the sweep over these cells: for each listing, the later listings
    /// of its cell whose min x is at most its max x (found by binary search: min x ascends in a
    /// cell, and its padding lane's NaN ends the run).
    pub(super) fn candidate_tests(&self) -> u64 {
        let set = &self.set;
        let max_x = max_x(set.shape);
        let mut total = 0;
        for (c, &start) in self.starts.iter().enumerate() {
            let end = self.starts.get(c + 1).copied().unwrap_or(set.len);
            let mut p = start;
            // Listings up to the first padding lane.
            while p < end && !set.get(MIN_X, p).is_nan() {
                let reach = set.get(max_x, p);
                let past = set.partition_in(p + 1..end, |x| x <= reach);
                total += (past - p - 1) as u64;
                p += 1;
            }
        }
        total
    }

    /// For each of `at` (ascending sorted positions): per cell, the lane in `set` of the first
    /// listing whose sorted position is at least that one (or of its first padding lane). Two
    /// binary searches per cell: a cell's listings come first (min x a number) and hold
    /// ascending sorted positions in `perm`; a walk over the elements before each position,
    /// serial while the tasks wait, took about 3 % of a two-thread call on 100,000 boxes.
    pub(super) fn cursors(&self, at: &[usize]) -> Vec<Vec<usize>> {
        let set = &self.set;
        // Per cell: its lanes of listings (up to the first padding lane, whose min x is NaN).
        let listed: Vec<core::ops::Range<usize>> = (0..self.starts.len())
            .map(|c| {
                let start = self.starts[c];
                let end = self.starts.get(c + 1).copied().unwrap_or(set.len);
                start..set.partition_in(start..end, |x| !x.is_nan())
            })
            .collect();
        at.iter()
            .map(|&a| {
                listed
                    .iter()
                    .map(|r| r.start + set.perm[r.clone()].partition_point(|&p| (p as usize) < a))
                    .collect()
            })
            .collect()
    }
}

/// The sums [`grid_for`] chooses from, over `rows` (of `shape`, for sweep axis `axis`): per axis,
/// the sweep axis first and then the two others ([`others`](super::sorted::others)), the sum of
/// the elements' extents, of their centres and of their squared centres (the sweep axis's from
/// its row's min and max, the others' from [`side_extent`]); [`AxisStats`](super::sorted::AxisStats)
/// holds the same sums per axis.
pub(super) fn grid_stats(shape: Shape, axis: usize, rows: &[Row]) -> GridStats {
    let max_x = max_x(shape);
    let mut st = [[0.0f64; 3]; 3];
    let mut add = |k: usize, lo: f32, hi: f32| add_extent(&mut st, k, lo.into(), hi.into());
    for r in rows {
        add(0, r[MIN_X], r[max_x]);
        let e = side_extent(shape, axis, r);
        add(1, e[0], e[2]);
        add(2, e[1], e[3]);
    }
    st
}

/// [`grid_stats`]: per axis (the sweep axis, then the two others), sums of extents, centres,
/// squared centres; an [`AxisStats`](super::sorted::AxisStats) in the sweep's axis order.
pub(super) type GridStats = super::sorted::AxisStats;

/// Rows [`middle_of_centres`] samples at most.
const MIDDLE_SAMPLES: usize = 512;

/// Per axis, the sweep axis first and then the two others, the middle of the elements' centres
/// ([`sample::middle`]) over a sample of at most [`MIDDLE_SAMPLES`] rows (every
/// `ceil(n / MIDDLE_SAMPLES)`-th). [`grid_for`] keeps its grid and its estimates inside it, so
/// that a few elements far out do not stretch the cells over everyone. `[[lo, hi]; 3]`; empty
/// (`lo > hi`) without rows.
pub(super) fn middle_of_centres(shape: Shape, axis: usize, rows: &[Row]) -> [[f64; 2]; 3] {
    let max_x = max_x(shape);
    let step = rows.len().div_ceil(MIDDLE_SAMPLES).max(1);
    let mut centres: [Vec<f64>; 3] = Default::default();
    let mid = |lo: f32, hi: f32| 0.5 * f64::from(lo) + 0.5 * f64::from(hi);
    for r in rows.iter().step_by(step) {
        let e = side_extent(shape, axis, r);
        centres[0].push(mid(r[MIN_X], r[max_x]));
        centres[1].push(mid(e[0], e[2]));
        centres[2].push(mid(e[1], e[3]));
    }
    centres.map(|mut c| sample::middle(&mut c).unwrap_or([f64::INFINITY, f64::NEG_INFINITY]))
}

/// The grid for `n` elements whose extents have the sums `st` ([`grid_stats`]): `dims` cells
/// (`None`: the automatic choice) over the middle of the centres' spread along each of the two
/// other axes (`mean -+ sqrt(3) sd`, the whole range of a uniform spread; elements beyond it fall
/// in the outer cells), kept inside `middle` ([`middle_of_centres`]: a few far elements inflate
/// the standard deviation without bound; one box at 1e30 among Terdiman's 100,000 took the sweep
/// from 12.7 to 53 ms, every element in one cell).
///
/// The automatic choice minimises an estimate of the sweep's work. With `s_k` the range of axis
/// `k` in mean extents along it, a grid of `g_k` cells lists each element about
/// `d = (1 + (g_1 - 1) / s_1) (1 + (g_2 - 1) / s_2)` times (each inner boundary crossed with a
/// chance of a mean extent over a cell's width), and a listing meets about `n d / (g_1 g_2)`
/// others in its cell, of which the share `f` (the mean extent over the range along the sweep
/// axis, at most 1) are candidates. A listing costs [`LISTING_COST`] candidate tests, and
/// [`PAIR_COST`] more per pair of its element (about `p = 4 f n / (s_1 s_2)` pairs an element).
/// So the work per element is about `d (LISTING_COST + PAIR_COST p) + f n d^2 / (g_1 g_2)`
/// candidate tests: finer cells cut the candidates and add listings. For a scene spread alike
/// along every axis with few pairs an element, the best `g` grows as about the cube root of `n`,
/// whatever the extents. The
/// cells keep the spans' proportion (`g_2 / g_1` about `s_2 / s_1`), at most
/// [`MAX_CELLS_PER_AXIS`] per axis and at least [`MIN_PER_CELL`] elements per cell on average.
/// The two costs were fitted to forced grids timed side by side on AVX-512 (`docs/algorithms.md`,
/// "Partition"), 16 candidates an instruction; with `lanes` fewer (AVX2's 8, SSE's 4 and the
/// scalar tier, taken as 4) a candidate costs more against a listing, and both costs are scaled
/// by `lanes / 16`.
pub(super) fn grid_for(
    st: GridStats,
    middle: [[f64; 2]; 3],
    n: usize,
    dims: Option<[usize; 2]>,
    lanes: usize,
) -> Grid {
    let nf = n.max(1) as f64;
    // Per axis (the sweep axis, then the two others): the mean extent and the range of the
    // centres, `mean -+ sqrt(3) sd` kept inside the middle (`None`: no range).
    let range = |k: usize| {
        let s = st[k];
        let mean = s[1] / nf;
        let half = 3f64.sqrt() * (s[2] / nf - mean * mean).max(0.0).sqrt();
        let (from, to) = (
            (mean - half).max(middle[k][0]),
            (mean + half).min(middle[k][1]),
        );
        let range = (from < to && (to - from).is_finite()).then_some([from, to]);
        (s[0] / nf, range)
    };
    let mut lo = [0.0f32; 2];
    let mut hi = [0.0f32; 2];
    // Per side axis: its range, and the range in mean extents (0: not split).
    let mut width = [0.0f64; 2];
    let mut span = [0.0f64; 2];
    for k in 0..2 {
        if let (mean_extent, Some([from, to])) = range(1 + k) {
            lo[k] = from as f32;
            hi[k] = to as f32;
            width[k] = to - from;
            span[k] = (to - from) / mean_extent;
        }
    }
    let dims = dims.unwrap_or_else(|| {
        // The share of a cell's listings that are a listing's candidates along the sweep axis
        // (every one where the centres have no range there).
        let share = match range(0) {
            (x_extent, Some([from, to])) => (x_extent / (to - from)).min(1.0),
            _ => 1.0,
        };
        let share = if share.is_nan() { 1.0 } else { share };
        // Pairs per element, about: along each axis two elements' extents meet with a chance of
        // about twice a mean extent over the range (a side axis not split: every chance).
        let pairs = 4.0 * share * nf / (span[0].max(1.0) * span[1].max(1.0));
        let pairs = if pairs.is_nan() { nf } else { pairs.min(nf) };
        // The costs are AVX-512's, 16 candidates an instruction: fewer lanes make a candidate
        // dearer against a listing (down to SSE's four).
        let listing_cost = (LISTING_COST + PAIR_COST * pairs) * lanes.clamp(4, 16) as f64 / 16.0;
        let work = |g: [usize; 2]| {
            // An element crosses each inner boundary with a chance of a mean extent over a
            // cell's width; one cell along an axis has none.
            let d = (0..2)
                .map(|k| {
                    if g[k] > 1 {
                        1.0 + (g[k] - 1) as f64 / span[k]
                    } else {
                        1.0
                    }
                })
                .product::<f64>();
            d * listing_cost + share * nf * d * d / (g[0] * g[1]) as f64
        };
        // The finer axis steps through every count; the other keeps the spans' proportion.
        // (Elements without extent along both: the ranges' proportion.)
        let f = usize::from(span[1] > span[0]);
        let ratio = if span[0].is_infinite() && span[1].is_infinite() {
            width[1 - f] / width[f]
        } else {
            span[1 - f] / span[f]
        };
        let mut best = ([1, 1], work([1, 1]));
        if span[f] > 0.0 {
            for g in 1..=MAX_CELLS_PER_AXIS {
                let other = if ratio.is_finite() && ratio > 0.0 {
                    ((g as f64 * ratio).round() as usize).clamp(1, MAX_CELLS_PER_AXIS)
                } else {
                    1
                };
                let mut cells = [0; 2];
                cells[f] = g;
                cells[1 - f] = other;
                if cells[0] * cells[1] * MIN_PER_CELL > n {
                    break;
                }
                let w = work(cells);
                if w < best.1 {
                    best = (cells, w);
                }
            }
        }
        best.0
    });
    Grid::new(lo, hi, dims)
}

/// What a listing costs beyond its candidate tests, in candidate tests (see [`grid_for`]).
pub(super) const LISTING_COST: f64 = 400.0;

/// What a listing costs more per pair of its element, in candidate tests (see [`grid_for`]):
/// the hits found again in its other cells and dropped, and their merge into sweep order.
pub(super) const PAIR_COST: f64 = 22.0;

/// Fewest elements per cell on average (see [`grid_for`]).
pub(super) const MIN_PER_CELL: usize = 256;

/// The complete sweep over the cells: every overlapping pair whose first element (in sorted
/// order) lies at a sorted position in `range`, as `(smaller index, larger index)`, in sweep
/// order (see the [module docs](self)), into `sink`, until it says stop. `cursor`: per cell,
/// the lane of its first listing at or after `range.start` ([`Cells::cursors`]).
pub(super) struct CompleteCells<'a, S: PairSink> {
    pub(super) cells: &'a Cells,
    pub(super) range: Range<usize>,
    pub(super) cursor: Vec<usize>,
    pub(super) sink: S,
}

/// Where a complete sweep's pairs go, a batch at a time.
pub(super) trait PairSink {
    /// Takes a batch of pairs, in order, made by the first `done` of the `total` elements the
    /// sweep takes; `false`: stop the sweep.
    fn take(&mut self, pairs: &[(u32, u32)], done: usize, total: usize) -> bool;
}

/// A vector: a batch is appended in one copy. When it must grow, it grows to the pairs the
/// sweep's rate so far predicts for all its elements (an eighth more), at most four times what
/// it needs then (a rate taken early, from a dense start, may be far off), at least twice what
/// it holds. Growing by doubling alone, a vector the allocator cannot extend in place is copied
/// at each step: on Terdiman's 100,000 boxes (1.1 million pairs, 9 MB), with other vectors of
/// that size made between the calls as in the bench, those copies were about 1.5 % of a
/// one-thread call into a new vector (perf). With the prediction (and `complete_pairs` giving
/// back a capacity over twice its pairs), such calls were 1.11-1.14x faster in one process (four
/// runs; two threads 1.13x, 100,000 spheres 1.04x), a reused vector 1.03x, 10,000 boxes 1.02x.
/// The Intel Xeon of 2026-11-29.
impl PairSink for &mut Vec<(u32, u32)> {
    #[inline(always)]
    fn take(&mut self, pairs: &[(u32, u32)], done: usize, total: usize) -> bool {
        let need = self.len() + pairs.len();
        if need > self.capacity() {
            grow_for_rate(self, need, done, total);
        }
        self.extend_from_slice(pairs);
        true
    }
}

/// Grows `out` to hold at least `need` pairs, and what the rate of `need` pairs from `done` of
/// `total` elements predicts for all of them (see the `PairSink` impl for `&mut Vec`).
#[cold]
#[inline(never)]
fn grow_for_rate(out: &mut Vec<(u32, u32)>, need: usize, done: usize, total: usize) {
    let predicted = (need as u64)
        .saturating_mul(total as u64)
        .checked_div(done as u64)
        .map_or(need, |p| usize::try_from(p).unwrap_or(usize::MAX));
    let capacity = predicted
        .saturating_add(predicted / 8)
        .min(need.saturating_mul(4))
        .max(need)
        .max(out.capacity().saturating_mul(2));
    out.reserve_exact(capacity - out.len());
}

/// A callback per pair, `false` to stop.
pub(super) struct Each<F: FnMut(u32, u32) -> bool>(pub(super) F);

impl<F: FnMut(u32, u32) -> bool> PairSink for Each<F> {
    #[inline(always)]
    fn take(&mut self, pairs: &[(u32, u32)], _: usize, _: usize) -> bool {
        for &(a, b) in pairs {
            if !(self.0)(a, b) {
                return false;
            }
        }
        true
    }
}

impl<S: PairSink> WithLanes for &mut CompleteCells<'_, S> {
    type Output = ();
    #[inline(always)]
    fn run<V: Lanes>(self) {
        // Hits are dense in a partitioned sweep (see `sweep::DENSE`).
        let dense = if self.cells.starts.len() > 1 {
            DENSE
        } else {
            0
        };
        with_code!(code(&self.cells.set) | dense, self.sweep::<V>())
    }
}

impl<S: PairSink> CompleteCells<'_, S> {
    /// Elements are swept in batches: their scans append their hits to a [`HitStream`] (the
    /// scanning element's index as the owner), until it holds [`BATCH`] hits or more, and then
    /// the batch's pairs are reported in one flat loop. So an element costs its scans and no
    /// loop over its hits (the hit counts are small and vary: such a loop mispredicts its exit).
    #[inline(always)]
    fn sweep<V: Lanes, const SHAPE: u8>(&mut self) {
        let cells = self.cells;
        let (set, order) = (&cells.set, &cells.order[..]);
        let gz = cells.grid.dims()[1];
        let cursor = &mut self.cursor;
        let mut hits = HitStream::new();
        let (mut keyed, mut pairs): (Vec<u64>, Vec<(u32, u32)>) = (Vec::new(), Vec::new());
        let mut s = self.range.start;
        while s < self.range.end {
            hits.len = 0;
            while s < self.range.end && hits.len < BATCH {
                let first = hits.len;
                let sp = cells.spans.get(s).copied().unwrap_or([0; 4]);
                if sp[0] == sp[1] && sp[2] == sp[3] {
                    let ci = usize::from(sp[0]) * gz + usize::from(sp[2]);
                    let at = cursor[ci];
                    cursor[ci] += 1;
                    hits.scan::<V, SHAPE, false>(set, row_at::<SHAPE>(set, at), at + 1, Once::NONE);
                } else {
                    let q =
                        row_at::<SHAPE>(set, cursor[usize::from(sp[0]) * gz + usize::from(sp[2])]);
                    let mut sources = 0;
                    for y in sp[0]..sp[1] + 1 {
                        for z in sp[2]..sp[3] + 1 {
                            let ci = usize::from(y) * gz + usize::from(z);
                            let at = cursor[ci];
                            cursor[ci] += 1;
                            let from = hits.len;
                            // Only the pairs whose overlap's min corner lies in this cell (see
                            // the module docs): the cell is the max of the two elements' first
                            // cells, so past the query's first row (column) the other element's
                            // range must start in this one.
                            let need = u32::from(y > sp[0]) | (u32::from(z > sp[2]) << 1);
                            let once = Once {
                                lanes: &cells.misses,
                                need,
                            };
                            hits.scan::<V, SHAPE, true>(set, q, at + 1, once);
                            sources += usize::from(hits.len > from);
                        }
                    }
                    // Hits from one cell come in sweep order; from several, they are sorted
                    // into it by (sorted position, lane), plain integers (a sort by a looked-up
                    // key loads in every comparison).
                    if sources > 1 {
                        // Keyed in this loop, not by `extend` (a generic compiled outside the
                        // tier, for the baseline instructions).
                        let len = hits.len - first;
                        if keyed.len() < len {
                            keyed.resize(len, 0);
                        }
                        let keyed = &mut keyed[..len];
                        for (k, &t) in keyed.iter_mut().zip(&hits.lanes[first..hits.len]) {
                            *k = (u64::from(set.perm[t as usize]) << 32) | u64::from(t);
                        }
                        V::sort_keys(keyed);
                        for (slot, &k) in hits.lanes[first..hits.len].iter_mut().zip(keyed.iter()) {
                            *slot = k as u32;
                        }
                    }
                }
                hits.own(first, order[s]);
                s += 1;
            }
            // The lanes' elements first, in a loop of their own (the pairs' loop then loads
            // nothing but the two streams: into a `Vec`, the compiler could not keep `by_lane`
            // in registers past its stores).
            let by_lane = &cells.by_lane[..];
            for t in &mut hits.lanes[..hits.len] {
                *t = by_lane[*t as usize];
            }
            // The batch's pairs, made here on the tier and handed over as a slice (an `extend`
            // of the sink's vector over the two streams ran outside the tier, on the baseline
            // instructions).
            if pairs.len() < hits.len {
                pairs.resize(hits.len, (0, 0));
            }
            let batch = hits.lanes[..hits.len].iter().zip(&hits.owners[..hits.len]);
            for (p, (&b, &a)) in pairs.iter_mut().zip(batch) {
                *p = (a.min(b), a.max(b));
            }
            let (done, total) = (s - self.range.start, self.range.len());
            if !self.sink.take(&pairs[..hits.len], done, total) {
                return;
            }
        }
    }
}

/// Hits a complete sweep collects before it reports their pairs (see [`CompleteCells`]).
const BATCH: usize = 2048;

/// The partitioned complete sweep against the unpartitioned one on spheres and octahedra (the
/// boxes are tested in `tests/suite/broadphase.rs`): the same `Vec`, order included, on every backend,
/// for fixed grids and the automatic one, on random scenes and degenerate ones (every element at
/// one point, on one plane, one huge among small ones, radii whose widened extents overflow);
/// with collision filters, the same `Vec` without the pairs the filters reject.
#[cfg(test)]
mod tests {
    use crate::Backend;
    use crate::broadphase::{CollisionFilter, Filtered, Partition, Sweep};
    use crate::primitive::{Aabb, Octahedron, Sphere};
    use crate::soa::{Octahedra, Spheres};
    use crate::test_rng::XorShift32;

    /// The automatic grid of `n` elements with mean extents `extent` and centres spread evenly
    /// over `range` along each axis (the sweep axis first).
    fn auto_grid(n: usize, extent: [f64; 3], range: [f64; 3]) -> [usize; 2] {
        let nf = n as f64;
        // Sums of extents, centres and squared centres of an even spread over `[0, range]`.
        let st = [0, 1, 2].map(|k| {
            let (mean, var) = (range[k] / 2.0, range[k] * range[k] / 12.0);
            [extent[k] * nf, mean * nf, (var + mean * mean) * nf]
        });
        let middle = range.map(|r| [0.0, r]);
        super::grid_for(st, middle, n, None, 16).dims()
    }

    /// The estimate's choices: the cells grow with the count, less where pairs are many; a
    /// scale changes nothing; fewer than 512 elements, a side
    /// axis without spread, or elements that meet all along the sweep axis and nowhere else
    /// give what the costs say; dense scenes (large extents) get more cells than the old rule
    /// of cells eight extents wide gave them.
    #[test]
    fn the_automatic_grid_follows_the_estimate() {
        // Terdiman's distribution: 4096 wide, boxes 127 wide on average.
        let t = |n| auto_grid(n, [127.0; 3], [4096.0; 3]);
        assert_eq!(t(10_000), [3, 3]);
        assert_eq!(t(100_000), [5, 5]);
        // A million of them: over a hundred pairs a box, whose cost per listing holds the
        // cells back; the uniform scene's million (two pairs a box) gets more.
        assert_eq!(t(1_000_000), [7, 7]);
        let u = auto_grid(1_000_000, [3.0; 3], [400.0; 3]);
        assert!(u[0] >= 10 && u[0] <= 14 && u[0] == u[1], "{u:?}");
        // Scaled: the same. With twice the extents, more cells than the old rule's 2 x 2.
        assert_eq!(auto_grid(100_000, [1.27; 3], [40.96; 3]), [5, 5]);
        assert!(auto_grid(100_000, [254.0; 3], [4096.0; 3])[0] >= 3);
        // Few elements: one cell.
        assert_eq!(t(511), [1, 1]);
        // No spread along z: cells along y only; along neither: one cell.
        let plane = auto_grid(100_000, [127.0; 3], [4096.0, 4096.0, 0.0]);
        assert!(plane[0] > 1 && plane[1] == 1, "{plane:?}");
        assert_eq!(auto_grid(100_000, [1.0; 3], [4096.0, 0.0, 0.0]), [1, 1]);
        // Points: no duplicates, so as many cells as the elements per cell allow (64 x 64 needs
        // a million).
        assert_eq!(auto_grid(1 << 20, [0.0, 0.0, 0.0], [1.0; 3]), [1, 1]);
        assert_eq!(auto_grid(1 << 20, [1.0, 0.0, 0.0], [1.0; 3]), [64, 64]);
        // The proportion of the spans: twice the range along z, about twice the cells.
        let wide = auto_grid(100_000, [127.0; 3], [4096.0, 4096.0, 8192.0]);
        assert!(
            wide[1] >= 2 * wide[0] - 1 && wide[1] <= 2 * wide[0] + 1,
            "{wide:?}"
        );
    }

    fn scenes() -> Vec<Vec<Sphere>> {
        let mut rng = XorShift32(0x2545_f491);
        let n = if cfg!(miri) { 40 } else { 1500 };
        let mut random: Vec<Sphere> = (0..n)
            .map(|_| {
                let c = [0; 3].map(|_| rng.below(2000) as f32 * 0.5 - 500.0);
                Sphere::new(c, rng.below(40) as f32 * 0.5)
            })
            .collect();
        let point = vec![Sphere::new([3.0, -2.0, 1.0], 0.0); n / 4];
        let plane: Vec<Sphere> = (0..n / 2)
            .map(|_| {
                let c = [rng.below(500) as f32, 7.0, rng.below(500) as f32];
                Sphere::new(c, rng.below(8) as f32)
            })
            .collect();
        let mut huge = random.clone();
        huge[n / 3] = Sphere::new([0.0; 3], 2000.0);
        // Centres near f32::MAX: their widened extents round to infinities.
        random.truncate(n / 2);
        random.push(Sphere::new([3.4e38, 0.0, -3.4e38], Sphere::MAX_RADIUS));
        random.push(Sphere::new([-3.4e38, 3.4e38, 3.4e38], 1.0));
        random.push(Sphere::new([-3.4e38, 3.4e38, 3.4e38], 0.0));
        vec![random, point, plane, huge]
    }

    fn sweeps() -> Vec<Sweep> {
        let mut out = Vec::new();
        for &b in Backend::available() {
            for p in [
                Partition::Auto,
                Partition::Grid([3, 2]),
                Partition::Grid([9, 9]),
                Partition::Grid([64, 64]),
            ] {
                for t in [1, 3] {
                    let s = Sweep::new().with_backend(b).unwrap();
                    out.push(s.with_threads(t).with_partition(p));
                }
            }
        }
        out
    }

    /// A pair vector grows to hold what it needs, to at least twice what it held, to the
    /// predicted count (an eighth more) where that is larger, and never past four times its need,
    /// whatever the rate: none, every element done, or counts near the top of `usize`.
    #[test]
    fn pair_vectors_grow_to_the_predicted_count_within_bounds() {
        for (held, need, done, total, want) in [
            (0, 2048, 100, 10_000, 4 * 2048),
            (2048, 4096, 5_000, 10_000, 9216),
            (4096, 4100, 9_999, 10_000, 8192),
            (0, 10, 0, 10, 11),
            (0, 10, 10, 0, 10),
            (100, 300, 1, usize::MAX, 1200),
        ] {
            let mut out: Vec<(u32, u32)> = Vec::with_capacity(held);
            out.resize(held, (0, 0));
            super::grow_for_rate(&mut out, need, done, total);
            assert_eq!(
                out.capacity(),
                want,
                "held {held}, need {need}, {done} of {total}"
            );
        }
    }

    /// The cell sizes from the difference grid equal a count over each element's cells, on
    /// grids of every shape up to the largest, ranges touching every edge included.
    #[test]
    fn cell_sizes_count_every_cell_of_every_range() {
        let mut rng = XorShift32(0x5eed_ce11);
        for dims in [[1, 2], [2, 1], [3, 5], [8, 8], [1, 64], [64, 64]] {
            let [gy, gz] = dims.map(|d| d as u32);
            let whole = [0, gy - 1, 0, gz - 1].map(|c| c as u16);
            let spans: Vec<[u16; 4]> = (0..500)
                .map(|_| {
                    let [y0, y1] = [rng.below(gy), rng.below(gy)];
                    let [z0, z1] = [rng.below(gz), rng.below(gz)];
                    [y0.min(y1), y0.max(y1), z0.min(z1), z0.max(z1)].map(|c| c as u16)
                })
                .chain([[0; 4], whole, [whole[1], whole[1], whole[3], whole[3]]])
                .collect();
            let mut want = vec![0usize; dims[0] * dims[1]];
            for &[y0, y1, z0, z1] in &spans {
                for y in y0..=y1 {
                    for z in z0..=z1 {
                        want[usize::from(y) * dims[1] + usize::from(z)] += 1;
                    }
                }
            }
            assert_eq!(super::cell_sizes(&spans, dims), want, "{dims:?}");
            assert_eq!(super::cell_sizes(&[], dims), vec![0; dims[0] * dims[1]]);
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "the radix sort's buckets are slow under Miri")]
    fn partitioned_and_filtered_spheres_and_octahedra_equal_the_unpartitioned_sweep() {
        for (k, scene) in scenes().into_iter().enumerate() {
            let spheres = Spheres::from_slice(&scene).unwrap();
            let tets: Vec<Octahedron> = scene
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    // The octahedra of the extreme spheres would overflow: a small one instead.
                    let small = Sphere::new([1.0; 3], 1.0);
                    let s = if s.center[0].abs() > 1e30 { &small } else { s };
                    if i % 2 == 0 {
                        Octahedron::from_sphere(s)
                    } else {
                        let r = s.radius;
                        let (c, h) = (s.center, [r, r * 0.5, r * 0.25]);
                        Octahedron::from_aabb(&Aabb::new(
                            [0, 1, 2].map(|a| c[a] - h[a]),
                            [0, 1, 2].map(|a| c[a] + h[a]),
                        ))
                    }
                })
                .collect();
            let octahedra = Octahedra::from_slice(&tets).unwrap();
            let plain = Sweep::new().with_threads(1).with_partition(Partition::None);
            let (want_s, want_o) = (
                plain.complete_pairs(&spheres),
                plain.complete_pairs(&octahedra),
            );
            assert!(!want_s.is_empty() && !want_o.is_empty(), "scene {k}");
            // Collision filters: one of three groups each, colliding with two of them.
            let filters: Vec<CollisionFilter> = (0..scene.len())
                .map(|i| CollisionFilter::new(1 << (i % 3), 0b111 ^ (1 << (i * 7 % 3))))
                .collect();
            let allowed = |p: &&(u32, u32)| filters[p.0 as usize].accepts(&filters[p.1 as usize]);
            let fs = Filtered::new(&spheres, &filters).unwrap();
            let fo = Filtered::new(&octahedra, &filters).unwrap();
            let want_fs: Vec<_> = want_s.iter().filter(allowed).copied().collect();
            let want_fo: Vec<_> = want_o.iter().filter(allowed).copied().collect();
            assert!(
                want_fs.len() < want_s.len(),
                "scene {k}: the filters remove pairs"
            );
            for s in sweeps() {
                assert_eq!(s.complete_pairs(&spheres), want_s, "spheres, {k}, {s:?}");
                assert_eq!(
                    s.complete_pairs(&octahedra),
                    want_o,
                    "octahedra, {k}, {s:?}"
                );
                assert_eq!(
                    s.complete_pairs(&fs),
                    want_fs,
                    "filtered spheres, {k}, {s:?}"
                );
                assert_eq!(
                    s.complete_pairs(&fo),
                    want_fo,
                    "filtered octahedra, {k}, {s:?}"
                );
            }
        }
    }
}
