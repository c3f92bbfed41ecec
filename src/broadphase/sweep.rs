//! The sweep, written once over [`Lanes`]: for each box in min-x order, the boxes after it whose
//! min x is at most its max x, `V::N` of them per instruction, tested on y and z.

use super::sorted::{MIN_X, ROW, Row, Shape, SortedBoxes};
use crate::kernel::all_lanes;
use crate::kernel::{all_le, intersection_sums_meet, spheres_overlap};
use crate::lanes::{Chunk, Lanes, WithLanes};
use core::ops::Range;

/// Room for hits in one [`scan_into`] call.
const HITS: usize = 64;

/// The hit buffer: [`HITS`] slots and the index writer's slack (it stores 16 slots at a time).
type HitBuf = [u32; HITS + 16];

/// Calls `hit(t)` for every box at sorted position `t >= from` of `set` that overlaps `q` (a
/// row of `set`'s shape; boxes closed, spheres by the crate's exact test), ascending, until it
/// returns `false` (then returns `false`; else `true`): [`scan_into`] a buffer at a time, so that
/// the loop over blocks makes no call (a call would clobber the vector registers holding the
/// query).
#[inline(always)]
pub(super) fn scan<V: Lanes, const SHAPE: u8>(
    set: &SortedBoxes,
    q: Row,
    from: usize,
    mut hit: impl FnMut(usize) -> bool,
) -> bool {
    let mut buf: HitBuf = [0; HITS + 16];
    let mut from = from;
    loop {
        let (n, resume) = scan_into::<V, SHAPE, false>(set, q, from, &mut buf, Once::NONE);
        for &t in &buf[..n] {
            if !hit(t as usize) {
                return false;
            }
        }
        match resume {
            Some(next) => from = next,
            None => return true,
        }
    }
}

/// The pair-once test inside a scan (see `grid.rs`, "Each pair once"): per lane of the set, the
/// first cells its element lacks there as bits (bit 0: its y range starts in an earlier cell
/// row, bit 1: its z range in an earlier column), as `f32` bit patterns, one chunk per chunk of
/// the set; and the bits the query needs (bit 0: the cell's row is past the query's first, bit
/// 1: its column). A lane lacking a needed first cell is not reported: the pair's overlap's min
/// corner lies in another cell, which reports it.
#[derive(Clone, Copy)]
pub(super) struct Once<'a> {
    /// Per lane: the first cells its element lacks.
    pub(super) lanes: &'a [Chunk],
    /// What the query needs.
    pub(super) need: u32,
}

impl Once<'_> {
    /// No test (for scans without the `ONCE` parameter).
    pub(super) const NONE: Once<'static> = Once {
        lanes: &[],
        need: 0,
    };
}

/// The hits of many scans, in the order they were made: per hit, the lane of `set` it is (as
/// [`scan`] reports them) and an owner value (the caller's: the scanning element). Its vectors'
/// lengths are room, not content: `len` hits are held, and there is always room for a scan's
/// buffer past them ([`HITS`] and the writer's slack), so a scan writes straight into it.
pub(super) struct HitStream {
    /// Per hit: its lane.
    pub(super) lanes: Vec<u32>,
    /// Per hit: its owner ([`own`](Self::own)).
    pub(super) owners: Vec<u32>,
    /// Number of hits held.
    pub(super) len: usize,
}

impl HitStream {
    /// An empty stream.
    pub(super) fn new() -> HitStream {
        HitStream {
            lanes: vec![0; 4 * ROOM],
            owners: vec![0; 4 * ROOM],
            len: 0,
        }
    }

    /// Appends the hits of `q` in `set` from sorted position `from` on ([`scan`]'s), ascending;
    /// with `ONCE`, only those that `once` lets through (see [`Once`]).
    #[inline(always)]
    pub(super) fn scan<V: Lanes, const SHAPE: u8, const ONCE: bool>(
        &mut self,
        set: &SortedBoxes,
        q: Row,
        from: usize,
        once: Once<'_>,
    ) {
        let mut from = from;
        loop {
            if self.lanes.len() < self.len + ROOM {
                self.grow();
            }
            let buf: &mut HitBuf = (&mut self.lanes[self.len..self.len + ROOM])
                .try_into()
                .expect("room for a buffer");
            let (n, resume) = scan_into::<V, SHAPE, ONCE>(set, q, from, buf, once);
            self.len += n;
            match resume {
                Some(next) => from = next,
                None => return,
            }
        }
    }

    /// Gives the hits from `first` on the owner `owner`.
    #[inline(always)]
    pub(super) fn own(&mut self, first: usize, owner: u32) {
        // A fixed-size store covers all but the largest counts (the stream has `ROOM` past its
        // last scan's start, and `first` is at most that), so there is no loop of the count's
        // length, whose exit would mispredict.
        let slots: &mut [u32; OWN] = (&mut self.owners[first..first + OWN])
            .try_into()
            .expect("OWN slots");
        *slots = [owner; OWN];
        if self.len - first > OWN {
            self.owners[first + OWN..self.len].fill(owner);
        }
    }

    /// Doubles the room (out of the scans' loops: a call there would spill their registers).
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let room = (self.len + ROOM) * 2;
        self.lanes.resize(room, 0);
        self.owners.resize(room, 0);
    }
}

/// Room a scan needs past the last hit: its buffer.
const ROOM: usize = HITS + 16;

/// Owner slots [`HitStream::own`] always writes (at most `ROOM`).
const OWN: usize = 32;

/// Writes into `buf` the sorted positions `t >= from` of the boxes of `set` overlapping `q`,
/// ascending, and returns their count and, if `buf` filled up first, the position to resume
/// from. The boxes from `from` on have min x at least `q`'s min x, so overlap is
/// `min_x(t) <= q.max_x` and the y and z intervals meeting; as min x ascends, the first block
/// holding a box past `q.max_x` is the last one read. The loop has no bounds check: the padding
/// lane after the last box (there is always one, holding NaN in min x) fails the x test and
/// ends the scan, and passes no test itself. Lanes before `from` in the first block are masked
/// off; they cannot end the scan early (their min x is at most `q`'s, which the caller's order
/// guarantees: they come before `q` in the sweep or merge order).
#[inline(always)]
fn scan_into<V: Lanes, const SHAPE: u8, const ONCE: bool>(
    set: &SortedBoxes,
    q: Row,
    from: usize,
    buf: &mut HitBuf,
    once: Once<'_>,
) -> (usize, Option<usize>) {
    let per_chunk = Chunk::LANES / V::N;
    let all = all_lanes::<V>();
    // Opaque to the optimiser, so that the splats below are made here, per call, and live only
    // through this call's loop (which makes no call): hoisted out of `scan`'s loop they lived
    // across its hit callbacks, and the block loop reloaded every splat from the stack.
    let (q, set) = core::hint::black_box((q, set));
    let max_x = V::splat(q[if SHAPE & 3 == OCTAHEDRA { 5 } else { 3 }]);
    let qs: [V; ROW] = splat_row(q);
    let need = V::splat(f32::from_bits(once.need));
    let stride = stride(SHAPE);
    let first = from / V::N;
    let (c0, mut j) = (first / per_chunk, first % per_chunk);
    // The chunks from the first block's on, walked by an iterator (no bounds check per block).
    // The scan ends at a padding lane, which every set has after its elements; should the
    // chunks end first, the scan ends there (nothing past the set is read).
    let chunks = set
        .data
        .get(c0 * stride..)
        .unwrap_or(&[])
        .chunks_exact(stride);
    let misses = if ONCE {
        once.lanes.get(c0..).unwrap_or(&[])
    } else {
        &[]
    };
    // Lanes before `from` in the first block are not candidates.
    let mut lanes = (all << (from % V::N)) & all;
    let mut n = 0;
    for (k, cols) in chunks.enumerate() {
        let c = c0 + k;
        while j < per_chunk {
            let b = c * per_chunk + j;
            if n + V::N > HITS {
                return (n, Some(b * V::N + lanes.trailing_zeros() as usize));
            }
            let x_in = V::load(&cols[MIN_X], j).le(max_x);
            let exact = exact_test::<V, SHAPE>(&qs, cols, j);
            let mut bits = V::bits(V::and(x_in, exact)) & lanes;
            if ONCE {
                // Lanes whose missing first cells the query needs are not its pairs here. (A
                // chunk of the set without its `misses` chunk would be a broken invariant: the
                // index panics rather than let the pairs through twice.)
                bits &= !V::bits(V::load(&misses[k], j).test_bits(need));
            }
            if SHAPE & DENSE != 0 {
                // Branch-free: the writer stores a whole block's slots and counts the hits.
                let slots: &mut [u32; 16] = (&mut buf[n..n + 16]).try_into().expect("16 slots");
                n += V::write_block_indices(bits, (b * V::N) as u32, slots);
            } else {
                while bits != 0 {
                    buf[n] = (b * V::N) as u32 + bits.trailing_zeros();
                    n += 1;
                    bits &= bits - 1;
                }
            }
            if V::bits(x_in) != all {
                return (n, None);
            }
            lanes = all;
            j += 1;
        }
        j = 0;
    }
    (n, None)
}

/// The row at sorted position `s` of a set of shape code `SHAPE` (its columns, zero past them),
/// read with the shape's column count a constant (no loop, no bounds check per column).
#[inline(always)]
pub(super) fn row_at<const SHAPE: u8>(set: &SortedBoxes, s: usize) -> Row {
    let cols = chunk_columns::<SHAPE>(&set.data, s / Chunk::LANES);
    let l = s % Chunk::LANES;
    let mut row = [0.0; ROW];
    for (v, col) in row.iter_mut().zip(cols) {
        *v = col.0[l];
    }
    row
}

/// The columns of chunk `c` of a set of shape code `SHAPE` (its `data`): one bounds check, after
/// which the block's loads (at constant column indices below the constant length) need none.
#[inline(always)]
fn chunk_columns<const SHAPE: u8>(data: &[Chunk], c: usize) -> &[Chunk] {
    let stride = stride(SHAPE);
    &data[c * stride..(c + 1) * stride]
}

/// Shape codes of the sweep's const parameter: the shape in the low two bits, [`FILTERED`] above.
pub(super) const BOXES: u8 = 0;
/// Spheres (see `sorted::sphere_row`).
pub(super) const SPHERES: u8 = 1;
/// Octahedra (see `sorted::octahedron_row`).
pub(super) const OCTAHEDRA: u8 = 2;
/// The rows end in a collision filter (group, mask).
pub(super) const FILTERED: u8 = 4;
/// Hits are dense: the scan writes each block's hits branch-free (a partitioned sweep, whose
/// candidates are few and often hits), not one by one behind a branch (the one-axis sweep, a hit
/// per few hundred candidates). Terdiman 100,000, one thread, alternating runs: partitioned, the
/// branch-free writer took AVX-512 16-20 ms against 27-29, AVX2 22-23 against 32-34, SSE 28-30
/// against 36-37; one-axis, AVX2 122 against 63 and SSE 145-154 against 99-105 (AVX-512 even),
/// and a branch-free writer behind a `bits != 0` test measured as the branchy one.
pub(super) const DENSE: u8 = 8;

/// The shape code of a set.
#[inline]
pub(super) fn code(set: &SortedBoxes) -> u8 {
    let shape = match set.shape {
        Shape::Boxes => BOXES,
        Shape::Spheres => SPHERES,
        Shape::Octahedra => OCTAHEDRA,
    };
    shape | if set.filtered { FILTERED } else { 0 }
}

/// Calls `$job.$method::<$v, CODE>()` with the const shape code `CODE` equal to `$code` (one arm
/// per shape, filtered or not, dense or not).
macro_rules! with_code {
    ($code:expr, $job:ident . $method:ident :: <$v:ident>()) => {
        match $code {
            0 => $job.$method::<$v, 0>(),
            1 => $job.$method::<$v, 1>(),
            2 => $job.$method::<$v, 2>(),
            4 => $job.$method::<$v, 4>(),
            5 => $job.$method::<$v, 5>(),
            6 => $job.$method::<$v, 6>(),
            8 => $job.$method::<$v, 8>(),
            9 => $job.$method::<$v, 9>(),
            10 => $job.$method::<$v, 10>(),
            12 => $job.$method::<$v, 12>(),
            13 => $job.$method::<$v, 13>(),
            _ => $job.$method::<$v, 14>(),
        }
    };
}
pub(super) use with_code;

/// Columns per chunk of shape code `code`.
#[inline(always)]
const fn stride(code: u8) -> usize {
    let shape = if code & 3 == OCTAHEDRA { 10 } else { 6 };
    shape + if code & FILTERED != 0 { 2 } else { 0 }
}

/// Every value of a row splatted.
#[inline(always)]
fn splat_row<V: Lanes>(q: Row) -> [V; ROW] {
    [
        V::splat(q[0]),
        V::splat(q[1]),
        V::splat(q[2]),
        V::splat(q[3]),
        V::splat(q[4]),
        V::splat(q[5]),
        V::splat(q[6]),
        V::splat(q[7]),
        V::splat(q[8]),
        V::splat(q[9]),
        V::splat(q[10]),
        V::splat(q[11]),
    ]
}

/// The shape's own test of block `j` of chunk `c` against the query row `q` (splatted), beyond
/// the sweep's x test: boxes, the y and z intervals; spheres, the crate's exact sphere test
/// (`kernel::spheres_overlap`); octahedra, the crate's exact octahedron test (the eight
/// comparisons and `kernel::intersection_sums_meet`, as `Octahedra::hits` evaluates them).
#[inline(always)]
fn exact_test<V: Lanes, const SHAPE: u8>(q: &[V; ROW], cols: &[Chunk], j: usize) -> V::Mask {
    // Column `k` of the block (a function, not a closure: closures returning lane values do not
    // reliably inline into the AVX2 entry point).
    #[inline(always)]
    fn at<V: Lanes>(cols: &[Chunk], k: usize, j: usize) -> V {
        V::load(&cols[k], j)
    }
    let ld = |k: usize| -> V { at::<V>(cols, k, j) };
    let shape = match SHAPE & 3 {
        SPHERES => {
            // Columns: min x, x, y, max x, z, r.
            spheres_overlap([ld(1), ld(2), ld(4)], ld(5), [q[1], q[2], q[4]], q[5])
        }
        OCTAHEDRA => {
            // Columns: min x, up A..D, max x, down A..D.
            let up = [ld(1), ld(2), ld(3), ld(4)];
            let down = [ld(6), ld(7), ld(8), ld(9)];
            let (q_up, q_down) = ([q[1], q[2], q[3], q[4]], [q[6], q[7], q[8], q[9]]);
            // The kernel's exact test: the eight comparisons, then the sums.
            let m = V::and(all_le(up, q_down), all_le(q_up, down));
            V::and(m, intersection_sums_meet(up, down, q_up, q_down))
        }
        _ => {
            // Columns: min x, y, z, max x, y, z.
            let y_in = V::and(ld(1).le(q[4]), q[1].le(ld(4)));
            let z_in = V::and(ld(2).le(q[5]), q[2].le(ld(5)));
            V::and(y_in, z_in)
        }
    };
    if SHAPE & FILTERED == 0 {
        return shape;
    }
    // The collision filters after the shape's columns: the pair is reported iff
    // `group_t & mask_q != 0 && group_q & mask_t != 0`.
    let g = stride(SHAPE & 3);
    let (group, mask) = (ld(g), ld(g + 1));
    let filter = V::and(group.test_bits(q[g + 1]), q[g].test_bits(mask));
    V::and(shape, filter)
}

/// The bipartite sweep over one stretch of the merged order of two sets: `a[a_range]` and
/// `b[b_range]`, which together are consecutive in the merged order (see
/// [`merged_splits`]). Each box, taken in merged order, scans the other set from the first box
/// not yet taken; a box of `a` comes before a box of `b` iff its min x is smaller (ties: `b`
/// first), so every overlapping pair is found once, by whichever of the two comes first. Pairs
/// come as `(index in a, index in b)`.
pub(super) struct Bipartite<'a, F: FnMut(u32, u32) -> bool> {
    pub(super) a: &'a SortedBoxes,
    pub(super) b: &'a SortedBoxes,
    pub(super) a_range: Range<usize>,
    pub(super) b_range: Range<usize>,
    pub(super) pair: F,
}

impl<F: FnMut(u32, u32) -> bool> WithLanes for &mut Bipartite<'_, F> {
    type Output = ();
    #[inline(always)]
    fn run<V: Lanes>(self) {
        with_code!(code(self.a), self.sweep::<V>())
    }
}

impl<F: FnMut(u32, u32) -> bool> Bipartite<'_, F> {
    #[inline(always)]
    fn sweep<V: Lanes, const SHAPE: u8>(&mut self) {
        let (a, b) = (self.a, self.b);
        let (mut i, mut j) = (self.a_range.start, self.b_range.start);
        let (a_end, b_end) = (self.a_range.end, self.b_range.end);
        let pair = &mut self.pair;
        loop {
            let a_first = i < a_end && (j >= b.len || a.get(MIN_X, i) < b.get(MIN_X, j));
            if a_first {
                let ia = a.perm[i];
                if !scan::<V, SHAPE>(b, row_at::<SHAPE>(a, i), j, |t| pair(ia, b.perm[t])) {
                    return;
                }
                i += 1;
            } else if j < b_end {
                let ib = b.perm[j];
                if !scan::<V, SHAPE>(a, row_at::<SHAPE>(b, j), i, |t| pair(a.perm[t], ib)) {
                    return;
                }
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
        Some(v) => set.partition(|x| x < v),
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
