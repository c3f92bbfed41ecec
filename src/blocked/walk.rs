//! The walk: one query down the levels of block bounds to the blocks it reaches, each block's
//! primitives tested by the flat container's own kernel. One [`WithLanes`] job per query, so the
//! whole walk runs on one tier (one dispatch).

use super::Blocked;
use super::layout::Blockable;
use super::level::Level;
use super::reach::BlockQuery;
use crate::kernel::Prepared;
use crate::lanes::{Chunk, Lanes, WithLanes};
use core::ops::Range;

/// Where a walk's hits go. Positions are the blocked order's; `order` maps them to the caller's
/// indices.
pub(crate) trait Out {
    /// The hit bits of the 16 primitives at positions `base..base + 16` (padding cleared);
    /// returns `true` to stop.
    fn chunk<V: Lanes>(&mut self, order: &[u32], base: usize, bits: u32) -> bool;
    /// Every primitive at `positions` is a hit; returns `true` to stop.
    fn all(&mut self, order: &[u32], positions: Range<usize>) -> bool;
    /// The chunk at `base` is about to be pushed: an output that reads `order` asks for its line.
    #[inline(always)]
    fn prefetch(&self, order: &[u32], base: usize) {
        let _ = (order, base);
    }
}

/// A hint to fetch `order[base..base + 16]` (the indices of one block: one or two lines).
#[inline(always)]
fn prefetch_order(order: &[u32], base: usize) {
    if let Some(first) = order.get(base) {
        crate::lanes::prefetch_line(first);
    }
    if let Some(last) = order.get(base + Chunk::LANES - 1) {
        crate::lanes::prefetch_line(last);
    }
}

/// Counts.
pub(crate) struct Count(pub(crate) usize);

impl Out for Count {
    #[inline(always)]
    fn chunk<V: Lanes>(&mut self, _: &[u32], _: usize, bits: u32) -> bool {
        self.0 += bits.count_ones() as usize;
        false
    }
    #[inline(always)]
    fn all(&mut self, _: &[u32], positions: Range<usize>) -> bool {
        self.0 += positions.len();
        false
    }
}

/// Stops at the first hit.
pub(crate) struct Any(pub(crate) bool);

impl Out for Any {
    #[inline(always)]
    fn chunk<V: Lanes>(&mut self, _: &[u32], _: usize, bits: u32) -> bool {
        self.0 = bits != 0;
        self.0
    }
    #[inline(always)]
    fn all(&mut self, _: &[u32], positions: Range<usize>) -> bool {
        self.0 = !positions.is_empty();
        self.0
    }
}

/// Appends the caller's indices (in walk order; the caller sorts them): a chunk's through
/// `order` by the tier's `write_chunk_values`, a whole node's as a copy of its stretch of `order`.
pub(crate) struct Indices(pub(crate) crate::query::sink::Indices);

impl Out for Indices {
    #[inline(always)]
    fn prefetch(&self, order: &[u32], base: usize) {
        prefetch_order(order, base);
    }
    #[inline(always)]
    fn chunk<V: Lanes>(&mut self, order: &[u32], base: usize, bits: u32) -> bool {
        if bits != 0 {
            match order.get(base..base + Chunk::LANES) {
                Some(values) => {
                    let values: &[u32; 16] = values.try_into().expect("16 values");
                    self.0.push_values::<V>(bits, values);
                }
                None => {
                    // The last chunk, shorter than 16 (its padding bits are clear).
                    let mut values = [0; 16];
                    let rest = &order[base..];
                    values[..rest.len()].copy_from_slice(rest);
                    self.0.push_values::<V>(bits, &values);
                }
            }
        }
        false
    }
    #[inline(always)]
    fn all(&mut self, order: &[u32], positions: Range<usize>) -> bool {
        self.0.push_slice(&order[positions]);
        false
    }
}

/// Sets bit `i` of a zeroed word slice per hit `i`.
pub(crate) struct MaskWords<'a>(pub(crate) &'a mut [u64]);

impl MaskWords<'_> {
    #[inline(always)]
    fn set(&mut self, i: u32) {
        self.0[i as usize / 64] |= 1 << (i % 64);
    }
}

impl Out for MaskWords<'_> {
    #[inline(always)]
    fn prefetch(&self, order: &[u32], base: usize) {
        prefetch_order(order, base);
    }
    #[inline(always)]
    fn chunk<V: Lanes>(&mut self, order: &[u32], base: usize, mut bits: u32) -> bool {
        let order = &order[base..];
        while bits != 0 {
            self.set(order[bits.trailing_zeros() as usize]);
            bits &= bits - 1;
        }
        false
    }
    #[inline(always)]
    fn all(&mut self, order: &[u32], positions: Range<usize>) -> bool {
        for &i in &order[positions] {
            self.set(i);
        }
        false
    }
}

/// Entries of the walk's stack: at most 16 per level (the children of one node), plus the root.
const STACK: usize = 16 * super::MAX_LEVELS + 1;

/// Bits of a stack entry that hold the level (the rest: the chunk, below `2^28` as a container
/// holds fewer than `2^32` primitives). One `u32` an entry, so that the stack a walk zeroes is
/// half a kilobyte (as `(level, chunk)` pairs it was a kilobyte, about 115 instructions a walk).
const LEVEL_BITS: u32 = 3;
const _: () = assert!(super::MAX_LEVELS <= 1 << LEVEL_BITS);

/// One query's walk, a job for [`dispatch`](crate::lanes::dispatch).
pub(crate) struct Walk<'a, C: Blockable, Q, O> {
    pub(crate) blocked: &'a Blocked<C>,
    pub(crate) query: &'a Q,
    pub(crate) out: O,
}

impl<C: Blockable, Q: BlockQuery<C>, O: Out> WithLanes for Walk<'_, C, Q, O> {
    type Output = O;

    #[inline(always)]
    fn run<V: Lanes>(self) -> O {
        walk::<V, C, Q, O>(self.blocked, self.query, self.out)
    }
}

/// The counts of a batch of queries, one dispatch: `counts[k]` is the count of query
/// `queries[order[k]]`.
pub(crate) struct CountMany<'a, C: Blockable, Q> {
    pub(crate) blocked: &'a Blocked<C>,
    pub(crate) queries: &'a [Q],
    /// The queries in walk order (indices into `queries`).
    pub(crate) order: &'a [u32],
    pub(crate) counts: &'a mut [u32],
}

impl<C: Blockable, Q: BlockQuery<C>> WithLanes for CountMany<'_, C, Q> {
    type Output = ();

    #[inline(always)]
    fn run<V: Lanes>(self) {
        for (&i, c) in self.order.iter().zip(self.counts.iter_mut()) {
            let q = &self.queries[i as usize];
            // At most `u32::MAX` primitives: the count fits.
            *c = walk::<V, C, Q, Count>(self.blocked, q, Count(0)).0 as u32;
        }
    }
}

/// One query's hits appended to `out` and sorted there ([`sort_hits`]): the walk and the sort
/// in one dispatch.
pub(crate) struct SortedIndices<'a, C: Blockable, Q> {
    pub(crate) blocked: &'a Blocked<C>,
    pub(crate) query: &'a Q,
    pub(crate) out: &'a mut Vec<u32>,
}

impl<C: Blockable, Q: BlockQuery<C>> WithLanes for SortedIndices<'_, C, Q> {
    type Output = ();

    #[inline(always)]
    fn run<V: Lanes>(self) {
        let start = self.out.len();
        let sink = crate::query::sink::Indices::new(core::mem::take(self.out));
        *self.out = walk::<V, C, Q, Indices>(self.blocked, self.query, Indices(sink))
            .0
            .finish();
        sort_hits::<V>(&mut self.out[start..], self.blocked.max_index());
    }
}

/// `hits` sorted ascending, every index at most `max`: by the tier's sort where it has one for
/// their count (`Lanes::try_sort_indices`: AVX-512 up to 1,024, AVX2 up to 128), else by
/// `radix::sort_indices`. Measured on AVX-512 (`extend_hits` of 1,000 box queries over
/// 1,000,000 boxes, one thread, the Intel Xeon of 2026-11-29, the radix sort alone against
/// this, in one process): about 11 hits per query 1.19-1.21x, 73 1.34-1.38x, 125 1.41x, 180
/// 1.34-1.37x, 300 1.26x, 1,000 1.02-1.06x; 2 hits (100,000 or 1,000,000 boxes) 0.98-1.06x.
#[inline(always)]
fn sort_hits<V: Lanes>(hits: &mut [u32], max: u32) {
    // Most small queries hit nothing or one primitive.
    if hits.len() < 2 {
        return;
    }
    if !V::try_sort_indices(hits) {
        crate::radix::sort_indices(hits, max);
    }
}

/// The hit lists of a batch of queries, one dispatch: the hits of each query of `queries`
/// taken in `order` appended to `indices` (sorted) and its end pushed to `offsets`.
pub(crate) struct IndicesMany<'a, C: Blockable, Q> {
    pub(crate) blocked: &'a Blocked<C>,
    pub(crate) queries: &'a [Q],
    /// The queries in walk order (indices into `queries`).
    pub(crate) order: &'a [u32],
    pub(crate) offsets: &'a mut Vec<u32>,
    pub(crate) indices: &'a mut Vec<u32>,
}

impl<C: Blockable, Q: BlockQuery<C>> WithLanes for IndicesMany<'_, C, Q> {
    type Output = ();

    #[inline(always)]
    fn run<V: Lanes>(self) {
        let max = self.blocked.max_index();
        for &i in self.order {
            let q = &self.queries[i as usize];
            let start = self.indices.len();
            let sink = crate::query::sink::Indices::new(core::mem::take(self.indices));
            *self.indices = walk::<V, C, Q, Indices>(self.blocked, q, Indices(sink))
                .0
                .finish();
            sort_hits::<V>(&mut self.indices[start..], max);
            self.offsets.push(
                u32::try_from(self.indices.len())
                    .expect("hits_many: more than u32::MAX hits in one batch"),
            );
        }
    }
}

/// One query's walk on `V` lanes (inside a tier).
#[inline(always)]
fn walk<V: Lanes, C: Blockable, Q: BlockQuery<C>, O: Out>(
    blocked: &Blocked<C>,
    query: &Q,
    mut out: O,
) -> O {
    let order = &blocked.order[..];
    let Some(leaf) = query.bind(&blocked.leaves) else {
        return out;
    };
    let levels = &blocked.levels;
    let Some(top) = levels.count().checked_sub(1) else {
        // No primitive.
        return out;
    };
    // The levels share one set of columns (`Levels`), so the block test is bound once for all
    // of them (its splats then stay put for the whole walk).
    let all = levels.all();
    let Some(test) = query.test(all, &leaf) else {
        // The block test hits nothing: neither can the query.
        return out;
    };
    // The whole-block test likewise; `whole_levels` has bit `l` set where level `l` takes it
    // (a box query narrower than a level's nodes skips it there).
    let mut inside = None;
    let mut whole_levels = 0u32;
    for l in 0..=top {
        if let Some(k) = query.inside(all, &leaf, levels.min_sides(l)) {
            inside = Some(k);
            whole_levels |= 1 << l;
        }
    }
    let (first, lens) = (levels.first_chunks(), levels.lens());
    // Depth first, children pushed last to first, so blocks are visited in position order.
    let mut stack = [0u32; STACK];
    stack[0] = top as u32;
    let mut depth = 1;
    while depth > 0 {
        depth -= 1;
        let entry = stack[depth];
        let (level, chunk) = (entry & ((1 << LEVEL_BITS) - 1), entry >> LEVEL_BITS);
        let (level, chunk) = (level as usize, chunk as usize);
        let at = first[level] + chunk;
        // The level's lanes past its last node (copies of it) masked here, the container's
        // padding with them (the levels fill whole chunks).
        let mut hit = test.chunk_unmasked::<V>(at);
        let rest = lens[level] - chunk * Chunk::LANES;
        if rest < Chunk::LANES {
            hit &= (1 << rest) - 1;
        }
        if hit == 0 {
            continue;
        }
        let whole = match &inside {
            Some(k) if whole_levels >> level & 1 == 1 => k.chunk_unmasked::<V>(at) & hit,
            _ => 0,
        };
        // Node `n` of level `level` covers positions `n << shift ..`.
        let shift = 4 * (level + 1);
        let mut bits = whole;
        while bits != 0 {
            let n = chunk * Chunk::LANES + bits.trailing_zeros() as usize;
            let end = ((n + 1) << shift).min(order.len());
            if out.all(order, (n << shift)..end) {
                return out;
            }
            bits &= bits - 1;
        }
        let partly = hit & !whole;
        if level == 0 {
            // The blocks' rows are likely far from the cache: ask for all of them first.
            let mut bits = partly;
            while bits != 0 {
                let c = chunk * Chunk::LANES + bits.trailing_zeros() as usize;
                blocked.leaves.prefetch_chunk(c);
                out.prefetch(order, c * Chunk::LANES);
                bits &= bits - 1;
            }
            let mut bits = partly;
            while bits != 0 {
                let c = chunk * Chunk::LANES + bits.trailing_zeros() as usize;
                if out.chunk::<V>(order, c * Chunk::LANES, leaf.chunk::<V>(c)) {
                    return out;
                }
                bits &= bits - 1;
            }
        } else {
            all.prefetch_chunks(first[level - 1] + chunk * Chunk::LANES, partly);
            let mut bits = partly;
            while bits != 0 {
                let i = 31 - bits.leading_zeros();
                let child = chunk * Chunk::LANES + i as usize;
                stack[depth] = ((child as u32) << LEVEL_BITS) | (level - 1) as u32;
                depth += 1;
                bits &= !(1 << i);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::lanes::{Backend, Lanes, WithLanes, dispatch};

    /// `sort_hits` of each list (to its max) on tier `V`.
    struct SortIndices(Vec<(Vec<u32>, u32)>);

    impl WithLanes for SortIndices {
        type Output = Vec<Vec<u32>>;
        #[inline(always)]
        fn run<V: Lanes>(self) -> Vec<Vec<u32>> {
            self.0
                .into_iter()
                .map(|(mut v, max)| {
                    super::sort_hits::<V>(&mut v, max);
                    v
                })
                .collect()
        }
    }

    /// `sort_hits` equals `sort_unstable` on every backend, for every length from 0 to 300
    /// and some to 1,025 (every register count of the AVX-512 network with every fill of its
    /// last register, its quicksort, whose splits fail on many equal values, and the radix sort
    /// past it), on indices below maxima from 1 to `u32::MAX`, the extremes (`u32::MAX` is
    /// also the network's padding), sorted, reversed and in runs.
    #[test]
    fn sort_hits_equals_sort_unstable_on_every_backend() {
        let mut rng = crate::test_rng::XorShift64(0x5eed_0051_47ed);
        let mut lists = Vec::new();
        for len in (0..=300usize).chain([383, 500, 768, 1000, 1024, 1025]) {
            for max in [1, 1000, 1_000_000, u32::MAX] {
                let mut random: Vec<u32> = (0..len)
                    .map(|_| (rng.next_u64() % (u64::from(max) + 1)) as u32)
                    .collect();
                lists.push((random.clone(), max));
                let mut runs = random.clone();
                for run in runs.chunks_mut(len / 4 + 1) {
                    run.sort_unstable();
                }
                lists.push((runs, max));
                random.sort_unstable();
                lists.push((random.iter().rev().copied().collect(), max));
                lists.push((random, max));
            }
            let extremes = (0..len)
                .map(|_| [0, u32::MAX, 1, u32::MAX - 1][(rng.next_u64() % 4) as usize])
                .collect();
            lists.push((extremes, u32::MAX));
        }
        for &backend in Backend::available() {
            let got = dispatch(backend, SortIndices(lists.clone()));
            for (k, (got, (list, max))) in got.iter().zip(&lists).enumerate() {
                let mut want = list.clone();
                want.sort_unstable();
                assert_eq!(
                    got,
                    &want,
                    "{backend:?}: list {k} ({} indices to {max})",
                    want.len()
                );
            }
        }
    }
}
