//! The sweep, written once over [`Lanes`]: for each box in min-x order, the boxes after it whose
//! min x is at most its max x, `V::N` of them per instruction, tested on y and z.

use super::sorted::{MIN_X, SortedBoxes};
use crate::kernel::{Batch, all_lanes};
use crate::lanes::Lanes;
use crate::soa::Chunk;
use core::ops::Range;

/// Room for hits in one [`scan_into`] call.
const HITS: usize = 64;

/// Calls `hit(t)` for every box at sorted position `t >= from` of `set` that overlaps `q` (min x,
/// y, z, max x, y, z; closed), ascending: [`scan_into`] a buffer at a time, so that the loop over
/// blocks makes no call (a call would clobber the vector registers holding the query).
#[inline(always)]
pub(super) fn scan<V: Lanes>(
    set: &SortedBoxes,
    q: [f32; 6],
    from: usize,
    mut hit: impl FnMut(usize),
) {
    let mut buf = [0u32; HITS];
    let mut from = from;
    loop {
        let (n, resume) = scan_into::<V>(set, q, from, &mut buf);
        for &t in &buf[..n] {
            hit(t as usize);
        }
        match resume {
            Some(next) => from = next,
            None => return,
        }
    }
}

/// Writes into `buf` the sorted positions `t >= from` of the boxes of `set` overlapping `q`,
/// ascending, and returns their count and, if `buf` filled up first, the position to resume
/// from. The boxes from `from` on have min x at least `q`'s min x, so overlap is
/// `min_x(t) <= q.max_x` and the y and z intervals meeting; as min x ascends, the first block
/// holding a box past `q.max_x` is the last one read (padding lanes hold `+inf` there and stop
/// the scan too).
#[inline(always)]
fn scan_into<V: Lanes>(
    set: &SortedBoxes,
    q: [f32; 6],
    from: usize,
    buf: &mut [u32; HITS],
) -> (usize, Option<usize>) {
    let per_chunk = Chunk::LANES / V::N;
    let blocks = set.len.div_ceil(Chunk::LANES) * per_chunk;
    let all = all_lanes::<V>();
    let (max_x, max_y, max_z) = (V::splat(q[3]), V::splat(q[4]), V::splat(q[5]));
    let (min_y, min_z) = (V::splat(q[1]), V::splat(q[2]));
    let [c0, c1, c2, _, c4, c5] = &set.cols;
    let (c0, c1, c2, c4, c5) = (&c0[..], &c1[..], &c2[..], &c4[..], &c5[..]);
    let mut b = from / V::N;
    // Lanes before `from` in the first block are not candidates.
    let mut lanes = (all << (from % V::N)) & all;
    let mut n = 0;
    while b < blocks {
        if n + V::N > HITS {
            return (n, Some(b * V::N + lanes.trailing_zeros() as usize));
        }
        let (c, j) = (b / per_chunk, b % per_chunk);
        let x_in = V::load(&c0[c], j).le(max_x);
        let y_in = V::and(V::load(&c1[c], j).le(max_y), min_y.le(V::load(&c4[c], j)));
        let z_in = V::and(V::load(&c2[c], j).le(max_z), min_z.le(V::load(&c5[c], j)));
        let mut bits = V::bits(V::and(V::and(x_in, y_in), z_in)) & lanes;
        while bits != 0 {
            buf[n] = (b * V::N) as u32 + bits.trailing_zeros();
            n += 1;
            bits &= bits - 1;
        }
        if V::bits(x_in) != all {
            break;
        }
        lanes = all;
        b += 1;
    }
    (n, None)
}

/// Calls `hit(t)` for every box at sorted position `t` in `range` that overlaps `q` (closed, on
/// all three axes; the caller picks a range holding every box that can), ascending, a buffer at a
/// time as [`scan`].
#[inline(always)]
pub(super) fn window_scan<V: Lanes>(
    set: &SortedBoxes,
    q: [f32; 6],
    range: Range<usize>,
    mut hit: impl FnMut(usize),
) {
    let mut buf = [0u32; HITS];
    let mut from = range.start;
    while from < range.end {
        let (n, next) = window_into::<V>(set, q, from..range.end, &mut buf);
        for &t in &buf[..n] {
            hit(t as usize);
        }
        from = next;
    }
}

/// Writes into `buf` the positions in `range` of the boxes overlapping `q`, ascending, until
/// `buf` may not hold another block; returns their count and the position reached.
#[inline(always)]
fn window_into<V: Lanes>(
    set: &SortedBoxes,
    q: [f32; 6],
    range: Range<usize>,
    buf: &mut [u32; HITS],
) -> (usize, usize) {
    let per_chunk = Chunk::LANES / V::N;
    let all = all_lanes::<V>();
    let (min_x, min_y, min_z) = (V::splat(q[0]), V::splat(q[1]), V::splat(q[2]));
    let (max_x, max_y, max_z) = (V::splat(q[3]), V::splat(q[4]), V::splat(q[5]));
    let [c0, c1, c2, c3, c4, c5] = &set.cols;
    let (c0, c1, c2, c3, c4, c5) = (&c0[..], &c1[..], &c2[..], &c3[..], &c4[..], &c5[..]);
    let mut b = range.start / V::N;
    let mut lanes = (all << (range.start % V::N)) & all;
    let end_block = range.end.div_ceil(V::N);
    let mut n = 0;
    while b < end_block {
        if n + V::N > HITS {
            return (n, b * V::N + lanes.trailing_zeros() as usize);
        }
        if (b + 1) * V::N > range.end {
            lanes &= all >> ((b + 1) * V::N - range.end);
        }
        let (c, j) = (b / per_chunk, b % per_chunk);
        let x_in = V::and(V::load(&c0[c], j).le(max_x), min_x.le(V::load(&c3[c], j)));
        let y_in = V::and(V::load(&c1[c], j).le(max_y), min_y.le(V::load(&c4[c], j)));
        let z_in = V::and(V::load(&c2[c], j).le(max_z), min_z.le(V::load(&c5[c], j)));
        let mut bits = V::bits(V::and(V::and(x_in, y_in), z_in)) & lanes;
        while bits != 0 {
            buf[n] = (b * V::N) as u32 + bits.trailing_zeros();
            n += 1;
            bits &= bits - 1;
        }
        lanes = all;
        b += 1;
    }
    (n, range.end)
}

/// The complete sweep over the sorted positions `range` of one set: every overlapping pair whose
/// first box (in sorted order) lies in `range`, as `(smaller index, larger index)`, in sweep
/// order.
pub(super) struct Complete<'a, F: FnMut(u32, u32)> {
    pub(super) set: &'a SortedBoxes,
    pub(super) range: Range<usize>,
    pub(super) pair: F,
}

impl<F: FnMut(u32, u32)> Batch for Complete<'_, F> {
    #[inline(always)]
    fn run<V: Lanes>(&mut self) {
        let set = self.set;
        for s in self.range.clone() {
            let a = set.perm[s];
            let pair = &mut self.pair;
            scan::<V>(set, set.row(s), s + 1, |t| {
                let b = set.perm[t];
                if a < b { pair(a, b) } else { pair(b, a) }
            });
        }
    }
}

/// The bipartite sweep over one stretch of the merged order of two sets: `a[a_range]` and
/// `b[b_range]`, which together are consecutive in the merged order (see
/// [`merged_splits`]). Each box, taken in merged order, scans the other set from the first box
/// not yet taken; a box of `a` comes before a box of `b` iff its min x is smaller (ties: `b`
/// first), so every overlapping pair is found once, by whichever of the two comes first. Pairs
/// come as `(index in a, index in b)`.
pub(super) struct Bipartite<'a, F: FnMut(u32, u32)> {
    pub(super) a: &'a SortedBoxes,
    pub(super) b: &'a SortedBoxes,
    pub(super) a_range: Range<usize>,
    pub(super) b_range: Range<usize>,
    pub(super) pair: F,
}

impl<F: FnMut(u32, u32)> Batch for Bipartite<'_, F> {
    #[inline(always)]
    fn run<V: Lanes>(&mut self) {
        let (a, b) = (self.a, self.b);
        let (mut i, mut j) = (self.a_range.start, self.b_range.start);
        let (a_end, b_end) = (self.a_range.end, self.b_range.end);
        let pair = &mut self.pair;
        loop {
            let a_first = i < a_end && (j >= b.len || a.get(MIN_X, i) < b.get(MIN_X, j));
            if a_first {
                let ia = a.perm[i];
                scan::<V>(b, a.row(i), j, |t| pair(ia, b.perm[t]));
                i += 1;
            } else if j < b_end {
                let ib = b.perm[j];
                scan::<V>(a, b.row(j), i, |t| pair(a.perm[t], ib));
                j += 1;
            } else {
                break;
            }
        }
    }
}

/// Cuts the merged order of `a` and `b` into `tasks` consecutive stretches: stretch `t` is
/// `(a_range, b_range)`, the boxes whose min x lies in `[v_t, v_(t+1))` for split values taken
/// from the larger set (so equal min x values never straddle a cut, and the merge's tie rule holds
/// within each stretch).
pub(super) fn merged_splits(
    a: &SortedBoxes,
    b: &SortedBoxes,
    tasks: usize,
) -> Vec<(Range<usize>, Range<usize>)> {
    let big = if a.len >= b.len { a } else { b };
    // The first position of each set whose min x is at least `v` (`None`: the end).
    let cut = |set: &SortedBoxes, v: Option<f32>| match v {
        None => set.len,
        Some(v) => partition(set, |x| x < v),
    };
    let values: Vec<Option<f32>> = (0..=tasks)
        .map(|t| match t {
            0 => Some(f32::NEG_INFINITY),
            t if t == tasks => None,
            t => Some(big.get(MIN_X, big.len * t / tasks)),
        })
        .collect();
    values
        .windows(2)
        .map(|w| (cut(a, w[0])..cut(a, w[1]), cut(b, w[0])..cut(b, w[1])))
        .collect()
}

/// The first sorted position whose min x fails `below` (min x ascends).
fn partition(set: &SortedBoxes, below: impl Fn(f32) -> bool) -> usize {
    let (mut lo, mut hi) = (0, set.len);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if below(set.get(MIN_X, mid)) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}
