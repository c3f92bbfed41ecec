//! Aligned, lane-padded f32 columns: the storage under every container.

use crate::error::BvError;
use crate::lanes::{Backend, Chunk, Lanes, WithLanes, dispatch};
use bytemuck::Zeroable;

/// The most rows a container holds: hit indices are `u32`, so the last index is `u32::MAX - 1`.
pub(crate) const MAX_LEN: usize = u32::MAX as usize;

/// `K` columns of equal length holding `len` rows; rows past `len` are zero.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Columns<const K: usize> {
    cols: [Vec<Chunk>; K],
    len: usize,
}

impl<const K: usize> Columns<K> {
    pub(crate) fn new() -> Self {
        Columns {
            cols: core::array::from_fn(|_| Vec::new()),
            len: 0,
        }
    }

    /// # Panics
    /// If `rows > MAX_LEN`.
    pub(crate) fn with_capacity(rows: usize) -> Self {
        assert!(
            rows <= MAX_LEN,
            "capacity {rows} exceeds the container limit of u32::MAX primitives"
        );
        let chunks = rows.div_ceil(Chunk::LANES);
        Columns {
            cols: core::array::from_fn(|_| Vec::with_capacity(chunks)),
            len: 0,
        }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Capacity in rows.
    pub(crate) fn capacity(&self) -> usize {
        self.cols[0].capacity() * Chunk::LANES
    }

    /// The row count after `additional` more, if it is at most [`MAX_LEN`].
    fn grown(&self, additional: usize) -> Option<usize> {
        self.len
            .checked_add(additional)
            .filter(|&rows| rows <= MAX_LEN)
    }

    /// Room for `additional` more rows.
    ///
    /// # Panics
    /// If `len + additional > MAX_LEN`.
    pub(crate) fn reserve(&mut self, additional: usize) {
        let rows = self.grown(additional).unwrap_or_else(|| {
            panic!(
                "reserve: {} + {additional} primitives exceed the container limit of u32::MAX",
                self.len
            )
        });
        let need = rows.div_ceil(Chunk::LANES);
        for c in &mut self.cols {
            c.reserve(need.saturating_sub(c.len()));
        }
    }

    /// Room for `additional` more rows, or an error: [`BvError::CapacityExceeded`] past
    /// [`MAX_LEN`] (checked before anything is allocated), [`BvError::AllocationFailed`] if the
    /// allocator refuses.
    pub(crate) fn try_reserve(&mut self, additional: usize) -> Result<(), BvError> {
        let rows = self.grown(additional).ok_or(BvError::CapacityExceeded)?;
        let need = rows.div_ceil(Chunk::LANES);
        for c in &mut self.cols {
            c.try_reserve(need.saturating_sub(c.len()))
                .map_err(|_| BvError::AllocationFailed)?;
        }
        Ok(())
    }

    /// A container that claims `len` rows but holds none: for tests of the length limit that
    /// must not allocate gigabytes. Only the paths that refuse to grow may be called on it.
    #[cfg(test)]
    pub(crate) fn claiming_len(len: usize) -> Self {
        Columns {
            cols: core::array::from_fn(|_| Vec::new()),
            len,
        }
    }

    /// Column `k` as whole chunks (`len().div_ceil(16)` of them).
    #[inline]
    pub(crate) fn col(&self, k: usize) -> &[Chunk] {
        &self.cols[k]
    }

    pub(crate) fn push(&mut self, row: [f32; K]) {
        let (chunk, lane) = (self.len / Chunk::LANES, self.len % Chunk::LANES);
        for (col, value) in self.cols.iter_mut().zip(row) {
            if lane == 0 {
                col.push(Chunk::zeroed());
            }
            col[chunk].0[lane] = value;
        }
        self.len += 1;
    }

    /// Appends 16 rows as one whole chunk of every column (`values[k]`: column `k`'s lanes).
    ///
    /// # Panics
    /// If the length is not a whole number of chunks.
    #[inline]
    pub(crate) fn push_chunk(&mut self, values: [[f32; Chunk::LANES]; K]) {
        assert!(
            self.len.is_multiple_of(Chunk::LANES),
            "push_chunk at row {}",
            self.len
        );
        for (col, values) in self.cols.iter_mut().zip(values) {
            col.push(Chunk(values));
        }
        self.len += Chunk::LANES;
    }

    /// Keeps the first `len` rows (no-op if there are fewer): the rows past them are dropped,
    /// and their lanes in the last chunk kept are zero again.
    pub(crate) fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        let chunks = len.div_ceil(Chunk::LANES);
        for col in &mut self.cols {
            col.truncate(chunks);
            if let Some(last) = col.get_mut(len / Chunk::LANES) {
                last.0[len % Chunk::LANES..].fill(0.0);
            }
        }
        self.len = len;
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<[f32; K]> {
        (i < self.len).then(|| {
            let (chunk, lane) = (i / Chunk::LANES, i % Chunk::LANES);
            core::array::from_fn(|k| self.cols[k][chunk].0[lane])
        })
    }

    /// Overwrites every row with `other`'s and appends to `changed` the index of each row that
    /// differs in some column (`!=`, so `-0.0` and `0.0` are no change), ascending.
    ///
    /// # Panics
    /// If the lengths differ.
    pub(crate) fn take_changed(&mut self, other: &Columns<K>, changed: &mut Vec<u32>) {
        assert_eq!(
            self.len, other.len,
            "take_changed of columns of other lengths"
        );
        crate::lanes::four_lanes(TakeChanged {
            mine: self,
            theirs: other,
            changed,
        });
    }

    /// Overwrites row `i < len`.
    pub(crate) fn set(&mut self, i: usize, row: [f32; K]) {
        assert!(i < self.len, "row {i} out of bounds ({})", self.len);
        let (chunk, lane) = (i / Chunk::LANES, i % Chunk::LANES);
        for (col, value) in self.cols.iter_mut().zip(row) {
            col[chunk].0[lane] = value;
        }
    }

    /// A hint to fetch the cache lines of row `i` in every column into the second-level cache
    /// (a few writes ahead of a [`set`](Self::set) of it); nothing past the end.
    #[inline(always)]
    pub(crate) fn prefetch_row(&self, i: usize) {
        if i < self.len {
            for col in &self.cols {
                // In bounds (`i < len`), and a prefetch never faults anyway.
                crate::lanes::prefetch_address_l2(col.as_ptr().wrapping_add(i / Chunk::LANES));
            }
        }
    }

    /// Removes row `i < len`, moving the last row into its place; returns the removed row.
    pub(crate) fn swap_remove(&mut self, i: usize) -> [f32; K] {
        let removed = self
            .get(i)
            .unwrap_or_else(|| panic!("swap_remove index {i} out of bounds (len {})", self.len));
        let last = self.len - 1;
        if i != last {
            let moved = self.get(last).expect("last row exists");
            self.set(i, moved);
        }
        self.set(last, [0.0; K]);
        self.len = last;
        if last.is_multiple_of(Chunk::LANES) {
            for col in &mut self.cols {
                col.pop();
            }
        }
        removed
    }

    pub(crate) fn clear(&mut self) {
        for col in &mut self.cols {
            col.clear();
        }
        self.len = 0;
    }

    /// New columns whose row `p` is row `order[p]` of these (a permutation, or any selection:
    /// every `order[p] < len`), padding zero. Large selections are split into stretches of rows
    /// over up to `threads` threads of rayon's pool (0: all; with the `rayon` feature), each
    /// stretch column by column; the result does not depend on the split.
    ///
    /// # Panics
    /// If an entry of `order` is `>= len`.
    pub(crate) fn gather(&self, order: &[u32], threads: usize) -> Self {
        self.gather_on(order, threads, Backend::detect())
    }

    /// [`gather`](Self::gather) through `backend`'s tier (its gather instructions on AVX2 and
    /// AVX-512: 1,000,000 random rows of a column took 14.5 ms with `vgatherdps` against 25-28
    /// with checked loads and prefetches, on the Intel Xeon of 2026-11-27); the result is the
    /// same on every tier.
    ///
    /// # Panics
    /// If an entry of `order` is `>= len`, or `backend` does not run here.
    pub(crate) fn gather_on(&self, order: &[u32], threads: usize, backend: Backend) -> Self {
        let chunks = order.len().div_ceil(Chunk::LANES);
        let (_, stretches) = crate::tasks::stretches(chunks, GATHER_TASK_MIN_CHUNKS, threads);
        // Per task, its stretch of every column, each in a vector of its own that the gather
        // fills (not zeroed first: zeroing the columns took about 2.5 % of a 1,000,000-box
        // blocked build on the Intel Xeon of 2026-11-29).
        let mut parts = crate::tasks::run_tasks(&stretches, |stretch| {
            core::array::from_fn(|k| {
                let lanes: &[f32] = bytemuck::cast_slice(&self.cols[k]);
                let job = GatherColumn {
                    src: &lanes[..self.len],
                    order: &order[stretch.start * Chunk::LANES..],
                    chunks: stretch.len(),
                };
                dispatch(backend, job)
            })
        });
        let cols: [Vec<Chunk>; K] = if parts.len() == 1 {
            parts.pop().expect("one part")
        } else {
            core::array::from_fn(|k| {
                let mut col = Vec::with_capacity(chunks);
                for part in &parts {
                    col.extend_from_slice(&part[k]);
                }
                col
            })
        };
        Columns {
            cols,
            len: order.len(),
        }
    }
}

/// Rows `order[..]` of the column `src` (its rows, padding excluded) as `chunks` chunks (lanes
/// past `order`'s end zero): a job for one tier ([`Lanes::gather_chunk`]).
struct GatherColumn<'a> {
    src: &'a [f32],
    order: &'a [u32],
    chunks: usize,
}

impl WithLanes for GatherColumn<'_> {
    type Output = Vec<Chunk>;

    #[inline(always)]
    fn run<V: Lanes>(self) -> Vec<Chunk> {
        let GatherColumn { src, order, chunks } = self;
        // A plain loop, not a collected iterator: the iterator's generic `fold` is compiled
        // outside the tier, and the gather instructions were then calls.
        let mut out = Vec::with_capacity(chunks);
        for c in 0..chunks {
            let o = &order[c * Chunk::LANES..order.len().min((c + 1) * Chunk::LANES)];
            // The rows eight chunks ahead are asked for now (their lines are random): gathering
            // 1,000,000 boxes took 20 ms without, 15 ms two chunks ahead, 11-12 eight ahead
            // (AMD Zen 5); the gather instructions gain nothing from it, nor lose.
            if let Some(ahead) = order.get((c + 8) * Chunk::LANES..(c + 9) * Chunk::LANES) {
                for &i in ahead {
                    if let Some(value) = src.get(i as usize) {
                        crate::lanes::prefetch_line(value);
                    }
                }
            }
            out.push(match o.try_into() {
                Ok(idx) => V::gather_chunk(src, idx),
                // The last, partial chunk: lane by lane, the padding lanes zero.
                Err(_) => {
                    let mut lanes = [0.0f32; Chunk::LANES];
                    for (lane, &i) in lanes.iter_mut().zip(o) {
                        *lane = src[i as usize];
                    }
                    Chunk(lanes)
                }
            });
        }
        out
    }
}

/// Chunks below which a gather stays on one thread (a thread's wake-up costs about as much as
/// gathering a few thousand rows).
const GATHER_TASK_MIN_CHUNKS: usize = 1024;

impl<const K: usize> Default for Columns<K> {
    fn default() -> Self {
        Columns::new()
    }
}

impl<const K: usize> Columns<K> {
    /// `M` consecutive columns starting at `first`, as a kernel's view.
    #[inline(always)]
    pub(crate) fn view<const M: usize>(&self, first: usize) -> super::Cols<'_, M> {
        // A loop, not `core::array::from_fn`: the blocked walk takes views inside the tiers'
        // entry points, where `from_fn` of 8 or 16 columns was compiled out of line.
        let mut cols: [&[Chunk]; M] = [&[]; M];
        for (k, c) in cols.iter_mut().enumerate() {
            *c = self.col(first + k);
        }
        super::Cols::new(cols, self.len)
    }
}

/// [`Columns::take_changed`], a chunk at a time: per lane, equal when each value is at most the
/// other (the order `!=` gives), the 16 lanes' changes as bits.
struct TakeChanged<'a, const K: usize> {
    mine: &'a mut Columns<K>,
    theirs: &'a Columns<K>,
    changed: &'a mut Vec<u32>,
}

impl<const K: usize> WithLanes for TakeChanged<'_, K> {
    type Output = ();

    #[inline(always)]
    fn run<V: Lanes>(self) {
        let lanes = u32::MAX >> (32 - V::N);
        for c in 0..self.mine.len.div_ceil(Chunk::LANES) {
            let mut bits = 0u32;
            for (mine, theirs) in self.mine.cols.iter_mut().zip(&self.theirs.cols) {
                let (mine, theirs) = (&mut mine[c], &theirs[c]);
                for j in 0..Chunk::LANES / V::N {
                    let (a, b) = (V::load(mine, j), V::load(theirs, j));
                    let same = V::bits(V::and(a.le(b), b.le(a)));
                    bits |= (!same & lanes) << (j * V::N);
                }
                *mine = *theirs;
            }
            let base = (c * Chunk::LANES) as u32;
            while bits != 0 {
                self.changed.push(base + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift32;

    #[test]
    fn padding_stays_zero_and_chunks_track_len() {
        let mut c = Columns::<2>::new();
        for i in 0..40 {
            c.push([i as f32, -(i as f32)]);
        }
        assert_eq!(c.col(0).len(), 3);
        assert_eq!(c.swap_remove(3), [3.0, -3.0]);
        assert_eq!(c.get(3), Some([39.0, -39.0]));
        assert_eq!(c.col(1)[2].0[7], 0.0, "vacated slot zeroed");
        while c.len() > 32 {
            c.swap_remove(c.len() - 1);
        }
        assert_eq!(c.col(0).len(), 2);
        c.clear();
        assert_eq!(c.col(0).len(), 0);
        assert_eq!(c.get(0), None);
    }

    /// Every tier's gather gives every selected row, bit for bit (signed zeros, NaN payloads),
    /// and zero padding: selections of every length 0..=67 and a few thousand, permutations and
    /// repeats, on one thread and on several.
    #[test]
    fn gathers_are_the_same_on_every_backend() {
        let len = 3000;
        let mut c = Columns::<3>::new();
        for i in 0..len {
            let odd = f32::from_bits(0x7fc0_0000 | i as u32);
            c.push([
                i as f32,
                if i % 2 == 0 { -0.0 } else { odd },
                -(i as f32) * 1e-40,
            ]);
        }
        let mut rng = XorShift32(0x2545_f491);
        let mut orders: Vec<Vec<u32>> = (0..=67)
            .map(|n| (0..n).map(|_| rng.below(len as u32)).collect())
            .collect();
        let mut perm: Vec<u32> = (0..len as u32).collect();
        for i in (1..perm.len()).rev() {
            perm.swap(i, rng.next_u32() as usize % (i + 1));
        }
        orders.push(perm);
        orders.push(vec![len as u32 - 1; 40]);
        for order in &orders {
            for &backend in Backend::available() {
                for threads in [1, 3] {
                    let g = c.gather_on(order, threads, backend);
                    assert_eq!(g.len(), order.len());
                    for k in 0..3 {
                        let lanes: &[f32] = bytemuck::cast_slice(g.col(k));
                        assert_eq!(lanes.len(), order.len().div_ceil(Chunk::LANES) * 16);
                        for (p, lane) in lanes.iter().enumerate() {
                            let want = order
                                .get(p)
                                .map_or(0, |&i| c.get(i as usize).expect("in range")[k].to_bits());
                            assert_eq!(lane.to_bits(), want, "{backend:?}, column {k}, row {p}");
                        }
                    }
                }
            }
        }
    }

    /// `take_changed` reports exactly the rows a plain loop of `!=` finds (a signed zero's flip
    /// is no change, a NaN always one, the next float up or down is one), ascending, and leaves
    /// every row and padding lane bit for bit the other's: every length 0..=67 and 3,000.
    #[test]
    fn take_changed_finds_what_a_plain_loop_finds() {
        let mut rng = XorShift32(0x9e37_79b9);
        let lengths = (0..=67).chain([3000]);
        for len in lengths {
            let (mut mine, mut theirs) = (Columns::<3>::new(), Columns::<3>::new());
            for i in 0..len {
                let row: [f32; 3] = core::array::from_fn(|k| {
                    (i * 3 + k) as f32 * if k == 1 { -1e-39 } else { 1.5 }
                });
                mine.push(row);
                let mut changed = row;
                for value in &mut changed {
                    *value = match rng.below(8) {
                        0 => -*value,
                        1 => f32::from_bits(value.to_bits() + 1),
                        2 if *value != 0.0 => f32::from_bits(value.to_bits() - 1),
                        3 => f32::NAN,
                        4 => f32::MAX,
                        _ => *value,
                    };
                }
                theirs.push(changed);
            }
            let want: Vec<u32> = (0..len)
                .filter(|&i| {
                    let (a, b) = (mine.get(i).expect("row"), theirs.get(i).expect("row"));
                    a.iter().zip(&b).any(|(a, b)| a != b)
                })
                .map(|i| i as u32)
                .collect();
            let mut changed = vec![7];
            mine.take_changed(&theirs, &mut changed);
            assert_eq!(changed[0], 7, "appends");
            assert_eq!(changed[1..], want[..], "length {len}");
            for k in 0..3 {
                let (a, b): (&[f32], &[f32]) = (
                    bytemuck::cast_slice(mine.col(k)),
                    bytemuck::cast_slice(theirs.col(k)),
                );
                let bits = |s: &[f32]| s.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(a), bits(b), "length {len}, column {k}");
            }
        }
    }

    /// A selection past the rows (into the padding lanes, or beyond the column) panics on
    /// every tier, whole chunk or partial.
    #[test]
    fn gathers_past_the_end_panic_on_every_backend() {
        let mut c = Columns::<1>::new();
        for i in 0..20 {
            c.push([i as f32]);
        }
        for &backend in Backend::available() {
            for bad in [20, 31, 32, 1 << 20, u32::MAX, i32::MAX as u32 + 1] {
                for n in [16, 5] {
                    let mut order = vec![3u32; n];
                    order[n - 1] = bad;
                    let result = std::panic::catch_unwind(|| c.gather_on(&order, 1, backend));
                    assert!(result.is_err(), "{backend:?}: row {bad} of 20 gathered");
                }
            }
        }
    }
}
