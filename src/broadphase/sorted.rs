//! Boxes sorted by min x, in SoA chunks, for the sweep: the radix sort on the float bits and the
//! copy into sorted order.

use crate::lanes::Chunk;
use crate::radix::radix_sort;
use crate::round::{f32_at_least, f32_at_most};
use crate::soa::{Aabbs, Octahedra, Spheres};
use crate::tasks::fill_in_stretches;

/// Column 0 of every shape's rows: the min along the sweep axis ("min x" in the comments of
/// this module and `sweep.rs`, where the sweep axis is called x), which the set is sorted and
/// swept by.
pub(super) const MIN_X: usize = 0;

/// The column of `shape`'s rows that holds the max along the sweep axis: 3 (boxes: min x, y, z,
/// max x, y, z; spheres likewise), 5 for octahedra (min x, up A..D, max x, down A..D).
#[inline]
pub(super) const fn max_x(shape: Shape) -> usize {
    match shape {
        Shape::Octahedra => 5,
        Shape::Boxes | Shape::Spheres => 3,
    }
}

/// The most columns a row has: an octahedron's ten and a collision filter's two.
pub(super) const ROW: usize = 12;

/// One element's sweep row: its shape's columns, then, in a filtered set, its collision filter's
/// group and mask as `f32` bit patterns (columns past those are zero).
pub(super) type Row = [f32; ROW];

/// What the columns of a [`SortedBoxes`] hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Boxes: min x, y, z, max x, y, z.
    Boxes,
    /// Spheres: min x, centre x, centre y, max x, centre z, radius, where min x and max x bound
    /// the sphere's x extent widened to cover the rounding of the exact f32 test (see
    /// [`sphere_row`]).
    Spheres,
    /// Octahedra: min x, up A..D, max x, down A..D, where min x and max x bound the
    /// octahedron's x extent (see [`octahedron_row`]).
    Octahedra,
}

impl Shape {
    /// Number of columns.
    pub(super) fn columns(self) -> usize {
        match self {
            Shape::Boxes | Shape::Spheres => 6,
            Shape::Octahedra => 10,
        }
    }
}

/// A set of boxes (or spheres, octahedra) in ascending (min x, index) order, in chunk-major
/// SoA ("AoSoA"): the 16 elements of chunk `c` have their column `k` in `data[c * stride + k]`,
/// so a block's columns are adjacent in memory and a scan reads one stream.
pub struct SortedBoxes {
    /// What the columns hold.
    pub(super) shape: Shape,
    /// Whether the rows end in a collision filter (two more columns).
    pub(super) filtered: bool,
    /// `perm[s]` is the original index of the box at sorted position `s` (for a
    /// [`padded`](Self::padded) set, what [`put`](Self::put) wrote).
    pub(super) perm: Vec<u32>,
    /// The columns ([`stride`](Self::stride) per chunk), `(len + 1).div_ceil(16)` chunks (a
    /// [`padded`](Self::padded) set: `len / 16`, its padding lanes counted in `len`; at
    /// least one padding lane); padding lanes hold NaN in min x (so no padding lane passes the
    /// sweep's x test and every scan stops there) and 0 elsewhere.
    pub(super) data: Vec<Chunk>,
    /// Number of boxes (of a [`padded`](Self::padded) set, of lanes: listings and padding).
    pub(super) len: usize,
}

impl SortedBoxes {
    /// Sorts `rows` (of `shape`, `filtered` or not; column 0: min x) by (min x, index) and
    /// copies them.
    pub(super) fn sort(shape: Shape, filtered: bool, rows: &[Row]) -> SortedBoxes {
        SortedBoxes::from_order(shape, filtered, rows, sweep_order(rows))
    }

    /// Copies `rows` in the order `perm` (a permutation of their indices, ascending by (min x,
    /// index)).
    pub(super) fn from_order(
        shape: Shape,
        filtered: bool,
        rows: &[Row],
        perm: Vec<u32>,
    ) -> SortedBoxes {
        debug_assert_eq!(perm.len(), rows.len());
        let len = perm.len();
        let lanes = (len + 1).next_multiple_of(Chunk::LANES);
        let mut set = SortedBoxes::padded(shape, filtered, lanes);
        for (s, &i) in perm.iter().enumerate() {
            prefetch_row(rows, &perm, s + ROWS_AHEAD);
            set.put(s, &rows[i as usize], i);
        }
        set.perm.truncate(len);
        set.len = len;
        set
    }

    /// `len` padding lanes (NaN in min x, 0 elsewhere; `perm` 0), whole chunks, to be filled by
    /// [`put`](Self::put).
    pub(super) fn padded(shape: Shape, filtered: bool, len: usize) -> SortedBoxes {
        let mut set = SortedBoxes::zeroed(shape, filtered, len, 1);
        let stride = set.stride();
        for c in set.data.iter_mut().step_by(stride) {
            *c = Chunk([f32::NAN; Chunk::LANES]);
        }
        set
    }

    /// `len` lanes of zeros (`perm` 0), whole chunks, zeroed on `threads` threads
    /// ([`zeroed_vec`](crate::tasks::zeroed_vec)): the caller puts NaN in min x of every lane it
    /// leaves as padding.
    pub(super) fn zeroed(shape: Shape, filtered: bool, len: usize, threads: usize) -> SortedBoxes {
        debug_assert_eq!(len % Chunk::LANES, 0);
        let stride = columns(shape, filtered);
        SortedBoxes {
            shape,
            filtered,
            perm: crate::tasks::zeroed_vec(len, threads),
            data: crate::tasks::zeroed_vec(len / Chunk::LANES * stride, threads),
            len,
        }
    }

    /// Columns per chunk.
    #[inline(always)]
    pub(super) fn stride(&self) -> usize {
        columns(self.shape, self.filtered)
    }

    /// Writes `row` and `perm` value `p` to lane `s`.
    #[inline(always)]
    pub(super) fn put(&mut self, s: usize, row: &Row, p: u32) {
        let stride = self.stride();
        put_lane(&mut self.data, &mut self.perm, stride, s, row, p);
    }

    /// The lanes split at `at` (ascending multiples of 16, at most the length) into
    /// consecutive stretches, each as its chunks (`stride` columns a chunk) and its `perm`
    /// entries, for [`put_lane`] from several tasks at once.
    pub(super) fn split_lanes(&mut self, at: &[usize]) -> Vec<(&mut [Chunk], &mut [u32])> {
        let stride = self.stride();
        let mut out = Vec::with_capacity(at.len() + 1);
        let (mut data, mut perm) = (&mut self.data[..], &mut self.perm[..]);
        let mut from = 0;
        for &a in at {
            debug_assert_eq!(a % Chunk::LANES, 0);
            let (d, d_rest) = data.split_at_mut((a - from) / Chunk::LANES * stride);
            let (p, p_rest) = perm.split_at_mut(a - from);
            out.push((d, p));
            (data, perm, from) = (d_rest, p_rest, a);
        }
        out.push((data, perm));
        out
    }

    /// Column `k` of the box at sorted position `s < len`.
    #[inline(always)]
    pub(super) fn get(&self, k: usize, s: usize) -> f32 {
        self.data[s / Chunk::LANES * self.stride() + k].0[s % Chunk::LANES]
    }

    /// The first sorted position whose min x fails `below` (a binary search: min x ascends).
    pub(super) fn partition(&self, below: impl Fn(f32) -> bool) -> usize {
        self.partition_in(0..self.len, below)
    }

    /// [`partition`](Self::partition) within the positions `range` (min x ascending there, a
    /// NaN padding lane failing `below` at its end).
    pub(super) fn partition_in(
        &self,
        range: core::ops::Range<usize>,
        below: impl Fn(f32) -> bool,
    ) -> usize {
        let (mut lo, mut hi) = (range.start, range.end);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if below(self.get(MIN_X, mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

/// Writes the collision filter `(group, mask)` into `row` (of `shape`) as the two `f32` bit
/// patterns after the shape's own columns.
#[inline]
pub(super) fn put_filter(row: &mut Row, shape: Shape, group: u32, mask: u32) {
    let at = shape.columns();
    row[at] = f32::from_bits(group);
    row[at + 1] = f32::from_bits(mask);
}

/// Writes `row` (its first `stride` values) and `perm` value `p` to lane `s` of the chunks
/// `data` (`stride` columns a chunk, chunk-major as [`SortedBoxes`]) and `perm`.
#[inline(always)]
pub(super) fn put_lane(
    data: &mut [Chunk],
    perm: &mut [u32],
    stride: usize,
    s: usize,
    row: &Row,
    p: u32,
) {
    let (c, l) = (s / Chunk::LANES, s % Chunk::LANES);
    for (k, chunk) in data[c * stride..(c + 1) * stride].iter_mut().enumerate() {
        chunk.0[l] = row[k];
    }
    perm[s] = p;
}

/// Columns per element of `shape`'s rows, `filtered` or not.
#[inline(always)]
pub(super) fn columns(shape: Shape, filtered: bool) -> usize {
    shape.columns() + if filtered { 2 } else { 0 }
}

/// The extent of an element of `shape` with sweep row `r` (for sweep axis `axis`) along the two
/// other axes ([`others`]): `[min b, min c, max b, max c]`. Boxes: their own; spheres and
/// octahedra: the widened extents of their sweep rows along those axes ([`sphere_row`],
/// [`octahedron_row`]), which two elements that the exact test accepts always share.
#[inline]
pub(super) fn side_extent(shape: Shape, axis: usize, r: &Row) -> [f32; 4] {
    match shape {
        Shape::Boxes => [r[1], r[2], r[4], r[5]],
        Shape::Spheres => {
            let [b, c] = others(axis).map(|a| sphere_row([r[1], r[2], r[4], r[5]], a));
            [b[0], c[0], b[3], c[3]]
        }
        Shape::Octahedra => {
            let t = [r[1], r[2], r[3], r[4], r[6], r[7], r[8], r[9]];
            let [b, c] = others(axis).map(|a| octahedron_row(t, a));
            [b[0], c[0], b[5], c[5]]
        }
    }
}

/// Elements ahead whose rows are asked for by the loops that read the rows in sweep order, at
/// random ([`SortedBoxes::from_order`], the cell listings' placing).
pub(super) const ROWS_AHEAD: usize = 16;

/// A hint to fetch the row of the element at sorted position `s`, if there is one (its first
/// and last values: a row may straddle two lines).
#[inline(always)]
pub(super) fn prefetch_row(rows: &[Row], order: &[u32], s: usize) {
    if let Some(row) = order.get(s).and_then(|&i| rows.get(i as usize)) {
        crate::lanes::prefetch_line(&row[0]);
        crate::lanes::prefetch_line(&row[ROW - 1]);
    }
}

/// The sweep order of `rows` (column 0: min x): their indices ascending by (min x, index).
pub(super) fn sweep_order(rows: &[Row]) -> Vec<u32> {
    let keys: Vec<u32> = rows.iter().map(|r| order_key(r[MIN_X])).collect();
    radix_sort(&keys)
}

/// The other two axes of `axis`, in order.
#[inline]
pub(super) fn others(axis: usize) -> [usize; 2] {
    match axis {
        0 => [1, 2],
        1 => [0, 2],
        _ => [0, 1],
    }
}

/// Row chunks a task of [`rows_in_stretches`] fills at least.
const MIN_ROW_CHUNKS_PER_TASK: usize = 1024;

/// `n` rows, filled a stretch at a time by `fill(first, stretch)` (`first` the stretch's first
/// index, a multiple of 16), the stretches over `threads` threads (0: the default count). The
/// rows start zeroed, in parallel too ([`zeroed_vec`](crate::tasks::zeroed_vec)).
fn rows_in_stretches(
    n: usize,
    threads: usize,
    fill: impl Fn(usize, &mut [Row]) + Sync + Send,
) -> Vec<Row> {
    let mut rows = crate::tasks::zeroed_vec(n, threads);
    fill_in_stretches(
        &mut rows,
        Chunk::LANES,
        MIN_ROW_CHUNKS_PER_TASK,
        threads,
        fill,
    );
    rows
}

/// The sweep rows of spheres along `axis` ([`sphere_row`]), on `threads` threads.
pub(super) fn sphere_rows(spheres: &Spheres, axis: usize, threads: usize) -> Vec<Row> {
    let view = spheres.view();
    rows_in_stretches(spheres.len(), threads, |first, out| {
        for (i, row) in (first..).zip(out) {
            *row = sphere_row([0, 1, 2, 3].map(|k| view.lane(k, i)), axis);
        }
    })
}

/// The sweep rows of octahedra along `axis` ([`octahedron_row`]), on `threads` threads.
pub(super) fn octahedron_rows(octahedra: &Octahedra, axis: usize, threads: usize) -> Vec<Row> {
    let view = octahedra.view();
    rows_in_stretches(octahedra.len(), threads, |first, out| {
        for (i, row) in (first..).zip(out) {
            *row = octahedron_row(core::array::from_fn(|k| view.lane(k, i)), axis);
        }
    })
}

/// The rows of `boxes` swept along `axis` (`a`, the others `b < c`): min a, b, c, max a, b, c;
/// on `threads` threads.
pub(super) fn box_rows(boxes: &Aabbs, axis: usize, threads: usize) -> Vec<Row> {
    let view = boxes.view();
    let [b, c] = others(axis);
    let cols = [axis, b, c, 3 + axis, 3 + b, 3 + c].map(|k| view.column(k));
    rows_in_stretches(boxes.len(), threads, |first, out| {
        // A chunk at a time: one bounds check per column and chunk, not per value.
        for (ch, rows) in (first / Chunk::LANES..).zip(out.chunks_mut(Chunk::LANES)) {
            let chunk = cols.map(|col| &col[ch].0);
            for (l, row) in rows.iter_mut().enumerate() {
                for (v, col) in row.iter_mut().zip(&chunk) {
                    *v = col[l];
                }
            }
        }
    })
}

/// Signs of the tetrahedron axes' bounds in each coordinate: with `A = (1, 1, 1)`,
/// `B = (1, -1, -1)`, `C = (-1, 1, -1)`, `D = (-1, -1, 1)`, `x = (A + B - C - D) . p / 4`,
/// `y = (A - B + C - D) . p / 4`, `z = (A - B - C + D) . p / 4`.
const OCTA_SIGNS: [[f64; 4]; 3] = [
    [1.0, 1.0, -1.0, -1.0],
    [1.0, -1.0, 1.0, -1.0],
    [1.0, -1.0, -1.0, 1.0],
];

/// The sweep row of octahedron `(up A..D, down A..D)` along `axis`: `[min a, up, max a, down]`.
/// With the signs of [`OCTA_SIGNS`], every point of the octahedron has coordinate `a` in
/// `[sum_k (s_k > 0 ? up_k : -down_k) / 4, sum_k (s_k > 0 ? down_k : -up_k) / 4]`, evaluated in
/// f64, widened by `2^-40` of the magnitudes summed (covering the f64 rounding) and rounded
/// outwards. Two octahedra whose intervals are apart fail one of the exact test's eight
/// comparisons (the difference of the two bounds is a signed sum of four `down - up'` terms, so
/// one of them is negative), so the sweep reaches every pair the test accepts.
pub(super) fn octahedron_row(t: [f32; 8], axis: usize) -> Row {
    let v = t.map(f64::from);
    let (up, down) = (&v[..4], &v[4..]);
    let mag = v.iter().map(|x| x.abs()).sum::<f64>();
    let slack = mag * (1.0 / (1u64 << 40) as f64);
    let (mut lo, mut hi) = (0.0, 0.0);
    for (k, &s) in OCTA_SIGNS[axis].iter().enumerate() {
        if s > 0.0 {
            lo += up[k];
            hi += down[k];
        } else {
            lo -= down[k];
            hi -= up[k];
        }
    }
    [
        f32_at_most(lo * 0.25 - slack),
        t[0],
        t[1],
        t[2],
        t[3],
        f32_at_least(hi * 0.25 + slack),
        t[4],
        t[5],
        t[6],
        t[7],
        0.0,
        0.0,
    ]
}

/// Per axis, over a set's elements: the sum of their extents along it, and the sum and the sum
/// of squares of their centres along it (for choosing the sweep axis and the grid); from
/// [`STATS_SAMPLES`] elements on, estimated from a sample ([`sampled_stats`]).
pub(super) type AxisStats = [[f64; 3]; 3];

/// Most elements whose extents [`AxisStats`] sum: a larger set is sampled evenly (every
/// `ceil(n / STATS_SAMPLES)`-th element, from the first) and the sums scaled to its size. They
/// only choose the sweep axis and the grid, which change the time and not the pairs (the axis
/// changes their order; the sample is fixed by the data, so the order is still the same on
/// every backend and thread count). The mean extent and the spread of 1,024 elements are within
/// a few per cent of the whole set's for any spread a scene has; a pass over all of them cost 6 %
/// of a sweep of Terdiman's 10,000 boxes.
pub(super) const STATS_SAMPLES: usize = 1024;

/// The [`AxisStats`] of the `n` elements whose extent along axis `a` `extent(i, a)` gives:
/// summed over every element up to [`STATS_SAMPLES`] of them, else over an even sample and
/// scaled by `n` over the sample's size.
#[inline]
fn sampled_stats(n: usize, mut extent: impl FnMut(usize, usize) -> [f64; 2]) -> AxisStats {
    let step = n.div_ceil(STATS_SAMPLES).max(1);
    let mut stats = [[0.0; 3]; 3];
    let mut taken = 0usize;
    for i in (0..n).step_by(step) {
        for a in 0..3 {
            let [lo, hi] = extent(i, a);
            add_extent(&mut stats, a, lo, hi);
        }
        taken += 1;
    }
    if step > 1 {
        let scale = n as f64 / taken as f64;
        for v in stats.iter_mut().flatten() {
            *v *= scale;
        }
    }
    stats
}

/// Adds an element's extent `[lo, hi]` along `axis` to `stats`.
#[inline]
pub(super) fn add_extent(stats: &mut AxisStats, axis: usize, lo: f64, hi: f64) {
    let c = 0.5 * (lo + hi);
    stats[axis][0] += hi - lo;
    stats[axis][1] += c;
    stats[axis][2] += c * c;
}

/// [`AxisStats`] of boxes.
pub(super) fn box_stats(boxes: &Aabbs) -> AxisStats {
    let view = boxes.view();
    sampled_stats(boxes.len(), |i, a| {
        [view.lane(a, i), view.lane(3 + a, i)].map(f64::from)
    })
}

/// [`AxisStats`] of spheres.
pub(super) fn sphere_stats(spheres: &Spheres) -> AxisStats {
    let view = spheres.view();
    sampled_stats(spheres.len(), |i, a| {
        let (c, r) = (f64::from(view.lane(a, i)), f64::from(view.lane(3, i)));
        [c - r, c + r]
    })
}

/// [`AxisStats`] of octahedra.
pub(super) fn octahedron_stats(octahedra: &Octahedra) -> AxisStats {
    let view = octahedra.view();
    sampled_stats(octahedra.len(), |i, a| {
        let t: [f32; 8] = core::array::from_fn(|k| view.lane(k, i));
        let row = octahedron_row(t, a);
        [row[0], row[5]].map(f64::from)
    })
}

/// The sweep row of sphere `(x, y, z, r)` along `axis` (coordinate `a`): `[min a, x, y, max a,
/// z, r]`, where `[min a, max a]` is `a -+ (r + w)` with `w = 2^-20 (|a| + r) + 2^-70`, evaluated
/// in f64 and rounded outwards. The exact test (`(dx^2 + dy^2) + dz^2 <= (r_a + r_b)^2` in f32,
/// the crate's sphere-sphere test) may accept spheres a few f32 ulps of
/// `|a_1| + |a_2| + r_1 + r_2` farther apart along `a` than touching, and, where the squares
/// underflow, up to about `2^-73.5` apart whatever their radii (three squares each flushed by up
/// to `2^-150`); the widening `w` covers both by far, so every pair the exact test accepts has
/// overlapping intervals and is reached by the sweep.
pub(super) fn sphere_row([x, y, z, r]: [f32; 4], axis: usize) -> Row {
    let (af, rf) = (f64::from([x, y, z][axis]), f64::from(r));
    let reach = rf + (af.abs() + rf) * (1.0 / 1_048_576.0) + SPHERE_FLOOR;
    [
        f32_at_most(af - reach),
        x,
        y,
        f32_at_least(af + reach),
        z,
        r,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
    ]
}

/// `2^-70`: the absolute part of the spheres' widening (see [`sphere_row`]).
const SPHERE_FLOOR: f64 = 1.0 / (1u128 << 70) as f64;

/// A `u32` whose unsigned order is the float order of `v` (finite or infinite, not NaN): flip
/// every bit of a negative value, only the sign bit of a positive one; `-0.0` takes the key of
/// `+0.0`, as the two are equal floats (so ties between them go by index like any other).
#[inline]
pub(super) fn order_key(v: f32) -> u32 {
    let b = if v == 0.0 { 0 } else { v.to_bits() };
    if b >> 31 == 1 { !b } else { b | 0x8000_0000 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_float_order() {
        let v = [
            f32::NEG_INFINITY,
            -f32::MAX,
            -1.5,
            -f32::MIN_POSITIVE,
            -1e-45,
            0.0,
            1e-45,
            1.0,
            f32::MAX,
            f32::INFINITY,
        ];
        for w in v.windows(2) {
            assert!(order_key(w[0]) < order_key(w[1]), "{w:?}");
        }
        assert_eq!(order_key(-0.0), order_key(0.0));
    }

    /// Up to `STATS_SAMPLES` elements every one is summed, in order; past it every
    /// `ceil(n / STATS_SAMPLES)`-th from the first, scaled to `n` (which a set of equal elements
    /// shows exactly), and a ramp's mean, spread and extent come out within a per cent.
    #[test]
    fn stats_sum_every_element_up_to_the_sample_size_then_an_even_sample() {
        // Extent of element `i` along axis `a`: a ramp in x, a square ramp in y, constant in z.
        let extent = |i: usize, a: usize| {
            let c = [i as f64, (i * i % 977) as f64, 5.0][a];
            let half = [1.0, 2.0 + (i % 3) as f64, 0.5][a];
            [c - half, c + half]
        };
        for n in [0, 1, 2, 1000, STATS_SAMPLES] {
            let mut want = [[0.0; 3]; 3];
            for i in 0..n {
                for a in 0..3 {
                    let [lo, hi] = extent(i, a);
                    add_extent(&mut want, a, lo, hi);
                }
            }
            assert_eq!(sampled_stats(n, extent), want, "n {n}");
        }
        // Past the sample size: the elements read are exactly every step-th one.
        for n in [STATS_SAMPLES + 1, 2 * STATS_SAMPLES + 1, 100_000] {
            let step = n.div_ceil(STATS_SAMPLES);
            let mut read = Vec::new();
            let _ = sampled_stats(n, |i, a| {
                if a == 0 {
                    read.push(i);
                }
                [0.0, 1.0]
            });
            let want: Vec<usize> = (0..n).step_by(step).collect();
            assert_eq!(read, want, "n {n}");
            assert!(read.len() <= STATS_SAMPLES, "n {n}");
            // Equal elements: the scaled sums are the whole set's.
            let st = sampled_stats(n, |_, _| [2.0, 6.0]);
            for row in st {
                for (v, w) in row.iter().zip([4.0, 4.0, 16.0]) {
                    assert!((v / n as f64 - w).abs() < 1e-12, "n {n}: {row:?}");
                }
            }
            // A ramp: the mean centre, its spread and the mean extent within 1 %.
            let st = sampled_stats(n, extent);
            let nf = n as f64;
            let mean = st[0][1] / nf;
            let sd = (st[0][2] / nf - mean * mean).sqrt();
            let (true_mean, true_sd) = ((nf - 1.0) / 2.0, nf / 12f64.sqrt());
            assert!((mean / true_mean - 1.0).abs() < 0.01, "n {n}: mean {mean}");
            assert!((sd / true_sd - 1.0).abs() < 0.01, "n {n}: sd {sd}");
            assert!((st[0][0] / nf / 2.0 - 1.0).abs() < 1e-12, "n {n}");
        }
    }
}
