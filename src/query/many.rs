//! Many queries against one container: `count_hits_many`, `hits_many`, `hits_many_into` and
//! `for_each_hit_many`, with the hits of a batch as [`HitLists`] (CSR).
//!
//! The whole batch runs inside one dispatch. The container is walked in tiles of
//! [`TILE_CHUNKS`] chunks, and each tile is tested against every query of the batch while it is
//! in cache, so a primitive leaves DRAM once per batch, not once per query. Each (tile, query)
//! runs the pair's one-query kernel restricted to the tile, so a batch answers exactly what the
//! one-query methods answer, query by query, on every tier.

use super::sink::{Count, Indices};
use super::{Pinned, Query};
use crate::kernel::{Prepared, Sink};
use crate::lanes::{Chunk, Lanes, WithLanes, dispatch};
use crate::soa::Container;

/// Chunks per tile: 16,384 primitives, 64 KiB per column (an `Aabbs` tile of seven columns is
/// 448 KiB, within a core's L2 on current x86 parts).
const TILE_CHUNKS: usize = 1024;

/// The hits of a batch of queries, in CSR form: the primitives hit by query `q` are
/// `indices[offsets[q] as usize..offsets[q + 1] as usize]`, ascending.
///
/// Filled by `hits_many` / `hits_many_into` on any container or [`Pinned`] view; `_into` reuses
/// the buffers, so a steady loop allocates nothing once they have grown. Both vectors are plain
/// `u32` (`bytemuck::cast_slice` gives their bytes, for a GPU upload).
///
/// ```
/// use bvlanes::{Aabb, Aabbs, HitLists, Sphere};
/// let boxes = Aabbs::from_slice(&[
///     Aabb::new([0.0; 3], [1.0; 3]),
///     Aabb::new([2.0, 0.0, 0.0], [3.0, 1.0, 1.0]),
/// ])?;
/// let lights = [
///     Sphere::new([1.5, 0.5, 0.5], 0.5), // touches both
///     Sphere::new([9.0, 9.0, 9.0], 1.0), // touches none
///     Sphere::new([f32::NAN, 0.0, 0.0], 1.0), // hits nothing
/// ];
/// let mut lists = HitLists::default();
/// boxes.hits_many_into(&lights, &mut lists);
/// assert_eq!(lists.queries(), 3);
/// assert_eq!(lists.query(0), [0, 1]);
/// assert!(lists.query(1).is_empty() && lists.query(2).is_empty());
/// assert_eq!(lists.offsets, [0, 2, 2, 2]);
/// assert_eq!(boxes.count_hits_many(&lights), [2, 0, 0]);
/// # Ok::<(), bvlanes::BvError>(())
/// ```
#[derive(Clone, Debug)]
pub struct HitLists {
    /// `queries + 1` offsets into `indices`, starting at 0.
    pub offsets: Vec<u32>,
    /// Primitive indices, query after query, ascending within each query.
    pub indices: Vec<u32>,
    /// The hits of a multi-tile batch in (tile, query) order, kept for its allocation.
    scratch: Vec<u32>,
    /// Where each (tile, query) block starts in `scratch`, and its end.
    blocks: Vec<u32>,
}

impl Default for HitLists {
    fn default() -> Self {
        HitLists {
            offsets: vec![0],
            indices: Vec::new(),
            scratch: Vec::new(),
            blocks: Vec::new(),
        }
    }
}

impl PartialEq for HitLists {
    fn eq(&self, o: &HitLists) -> bool {
        self.offsets == o.offsets && self.indices == o.indices
    }
}

impl Eq for HitLists {}

impl HitLists {
    /// Number of queries.
    #[must_use]
    #[inline]
    pub fn queries(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// The primitives hit by query `q`, ascending.
    ///
    /// # Panics
    /// If `q >= queries()`.
    #[must_use]
    #[inline]
    pub fn query(&self, q: usize) -> &[u32] {
        assert!(
            q < self.queries(),
            "query {q} of a batch of {} queries",
            self.queries()
        );
        &self.indices[self.offsets[q] as usize..self.offsets[q + 1] as usize]
    }

    /// Empties the lists (no query), keeping the allocations.
    pub fn clear(&mut self) {
        self.offsets.clear();
        self.offsets.push(0);
        self.indices.clear();
    }
}

/// `n` as a CSR offset.
///
/// # Panics
/// If a batch's hits exceed `u32::MAX` (the offsets are `u32`; the index list alone would take
/// 16 GiB).
#[inline(always)]
fn offset(n: usize) -> u32 {
    u32::try_from(n).expect("hits_many: more than u32::MAX hits in one batch")
}

/// A sink whose primitive indices are `add` past the ones the kernel reports (a tile's kernel
/// counts from the tile's first primitive).
struct Offset<S> {
    sink: S,
    add: u32,
}

impl<S: Sink> Sink for Offset<S> {
    #[inline(always)]
    fn window(&mut self, lanes: usize) {
        self.sink.window(lanes);
    }
    #[inline(always)]
    fn push<V: Lanes>(&mut self, base: u32, bits: u32) -> bool {
        self.sink.push::<V>(base + self.add, bits)
    }
    #[inline(always)]
    fn finish<V: Lanes>(&mut self) {
        self.sink.finish::<V>();
    }
}

/// Counts per query, tile by tile.
struct CountMany<'a, C, Q> {
    container: &'a C,
    queries: &'a [Q],
    counts: &'a mut [u32],
}

impl<C: Container, Q: Query<C>> WithLanes for CountMany<'_, C, Q> {
    type Output = ();
    #[inline(always)]
    fn run<V: Lanes>(self) {
        // Plain loops, no iterator adapters or closures: everything here must inline into the
        // tier's entry point (`.ci/check-inlining`).
        // Each query is bound again per tile (a few comparisons) rather than once into a vector
        // of kernels, so a batch allocates nothing for them.
        let chunks = self.container.len().div_ceil(Chunk::LANES);
        let mut start = 0;
        while start < chunks {
            let end = (start + TILE_CHUNKS).min(chunks);
            for q in 0..self.queries.len() {
                if let Some(kernel) = self.queries[q].bind(self.container) {
                    // A tile holds at most 16,384 primitives: the count fits a u32.
                    self.counts[q] += kernel.tile(start..end).drive::<V, _>(Count(0)).0 as u32;
                }
            }
            start = end;
        }
    }
}

/// Hit lists per query, tile by tile.
struct IndicesMany<'a, C, Q> {
    container: &'a C,
    queries: &'a [Q],
    out: &'a mut HitLists,
}

impl<C: Container, Q: Query<C>> WithLanes for IndicesMany<'_, C, Q> {
    type Output = ();
    #[inline(always)]
    fn run<V: Lanes>(self) {
        let out = self.out;
        out.clear();
        let len = self.container.len();
        if len <= TILE_CHUNKS * Chunk::LANES {
            // One tile: each query's hits go straight to the end of `indices`.
            let mut indices = core::mem::take(&mut out.indices);
            for q in 0..self.queries.len() {
                if let Some(kernel) = self.queries[q].bind(self.container) {
                    indices = kernel.drive::<V, _>(Indices::new(indices)).finish();
                }
                out.offsets.push(offset(indices.len()));
            }
            out.indices = indices;
            return;
        }
        // Several tiles: hits in (tile, query) order into the scratch, then each query's blocks
        // gathered in tile order (ascending indices, as the tiles are).
        let mut scratch = core::mem::take(&mut out.scratch);
        scratch.clear();
        out.blocks.clear();
        let chunks = len.div_ceil(Chunk::LANES);
        let mut start = 0;
        while start < chunks {
            let end = (start + TILE_CHUNKS).min(chunks);
            let add = (start * Chunk::LANES) as u32;
            for q in 0..self.queries.len() {
                out.blocks.push(offset(scratch.len()));
                if let Some(kernel) = self.queries[q].bind(self.container) {
                    let sink = Offset {
                        sink: Indices::new(scratch),
                        add,
                    };
                    scratch = kernel.tile(start..end).drive::<V, _>(sink).sink.finish();
                }
            }
            start = end;
        }
        out.blocks.push(offset(scratch.len()));
        let nq = self.queries.len();
        out.indices.reserve(scratch.len());
        for q in 0..nq {
            let mut block = q;
            while block + 1 < out.blocks.len() {
                let (from, to) = (out.blocks[block] as usize, out.blocks[block + 1] as usize);
                out.indices.extend_from_slice(&scratch[from..to]);
                block += nq;
            }
            out.offsets.push(offset(out.indices.len()));
        }
        out.scratch = scratch;
    }
}

impl<C: Container> Pinned<'_, C> {
    /// Number of primitives hit by each query of `queries` (as [`count_hits`](Pinned::count_hits)
    /// for each, in one pass over the container).
    ///
    /// ```
    /// use bvlanes::{Aabb, Aabbs, Backend};
    /// let boxes = Aabbs::from_slice(&[Aabb::new([0.0; 3], [1.0; 3])])?;
    /// let points = [[0.5, 0.5, 0.5], [2.0, 0.0, 0.0]];
    /// assert_eq!(boxes.with_backend(Backend::Scalar)?.count_hits_many(&points), [1, 0]);
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    #[must_use]
    pub fn count_hits_many<Q: Query<C>>(&self, queries: &[Q]) -> Vec<u32> {
        let mut counts = vec![0; queries.len()];
        let job = CountMany {
            container: self.container(),
            queries,
            counts: &mut counts,
        };
        dispatch(self.backend(), job);
        counts
    }

    /// The hits of each query of `queries` into `out` (overwritten; its buffers are reused):
    /// `out.query(q)` equals [`hits`](Pinned::hits)`(&queries[q])`.
    ///
    /// # Panics
    /// If the batch has more than `u32::MAX` hits in all (the offsets are `u32`).
    pub fn hits_many_into<Q: Query<C>>(&self, queries: &[Q], out: &mut HitLists) {
        let job = IndicesMany {
            container: self.container(),
            queries,
            out,
        };
        dispatch(self.backend(), job);
    }

    /// The hits of each query of `queries` (see [`hits_many_into`](Pinned::hits_many_into)).
    ///
    /// # Panics
    /// If the batch has more than `u32::MAX` hits in all.
    #[must_use]
    pub fn hits_many<Q: Query<C>>(&self, queries: &[Q]) -> HitLists {
        let mut out = HitLists::default();
        self.hits_many_into(queries, &mut out);
        out
    }

    /// Calls `f(query, primitive)` for every hit of every query of `queries`, in (query,
    /// primitive) order. (The hits are collected first, into lists it allocates.)
    ///
    /// # Panics
    /// If the batch has more than `u32::MAX` hits in all.
    pub fn for_each_hit_many<Q: Query<C>>(&self, queries: &[Q], mut f: impl FnMut(u32, u32)) {
        let lists = self.hits_many(queries);
        for q in 0..lists.queries() {
            for &i in lists.query(q) {
                f(q as u32, i);
            }
        }
    }
}
