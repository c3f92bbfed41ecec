//! Many queries against one container: `count_hits_many`, `hits_many`, `hits_many_into` and
//! `for_each_hit_many`, with the hits of a batch as [`HitLists`] (CSR).
//!
//! The container is walked in tiles of [`TILE_CHUNKS`] chunks, and each tile is tested against
//! every query of the batch while it is in cache, so a primitive leaves DRAM once per batch, not
//! once per query. Each (tile, query) runs the pair's one-query kernel restricted to the tile, so
//! a batch answers exactly what the one-query methods answer, query by query, on every tier.
//! Counts of the pairs whose kernel is `Grouped` (tetrahedra, octahedra, the direct box test) run
//! the other way round where that pays: a group of `V::N` queries in the lanes, each primitive
//! broadcast (`kernel/group.rs`); the comparisons are the same, so are the answers.
//!
//! A batch big enough to pay for it ([`PARALLEL_MIN_TESTS`]) is split into tasks on rayon's pool
//! ([`plan`]): by whole tiles, or by queries when the container has fewer tiles than there are
//! threads. Each task is one dispatch; its hits come back as (tile, query) blocks, gathered per
//! query in task order, so the output does not depend on the thread count.

use super::sink::{Count, Indices};
use super::{Pinned, Query};
use crate::kernel::{Prepared, Sink};
use crate::lanes::{Chunk, Lanes, WithLanes, dispatch};
use crate::soa::Container;
use core::ops::Range;

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
pub struct HitLists {
    /// `queries + 1` offsets into `indices`, starting at 0.
    pub offsets: Vec<u32>,
    /// Primitive indices, query after query, ascending within each query.
    pub indices: Vec<u32>,
    /// The tasks of the last batch and their hits, kept for their allocations.
    tasks: Vec<Task>,
    parts: Vec<Part>,
    /// A blocked container's lists in the order it walked the queries, before they move to
    /// their queries' places (kept for the allocations: fresh, a million hits cost their page
    /// faults on every batch).
    pub(crate) walked_offsets: Vec<u32>,
    pub(crate) walked_indices: Vec<u32>,
}

impl Default for HitLists {
    fn default() -> Self {
        HitLists {
            offsets: vec![0],
            indices: Vec::new(),
            tasks: Vec::new(),
            parts: Vec::new(),
            walked_offsets: Vec::new(),
            walked_indices: Vec::new(),
        }
    }
}

/// The lists only: the buffers kept for the next batch's allocations are neither copied (a
/// clone starts without them) nor shown.
impl Clone for HitLists {
    fn clone(&self) -> Self {
        HitLists {
            offsets: self.offsets.clone(),
            indices: self.indices.clone(),
            ..HitLists::default()
        }
    }
}

impl core::fmt::Debug for HitLists {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HitLists")
            .field("offsets", &self.offsets)
            .field("indices", &self.indices)
            .finish_non_exhaustive()
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

    /// Calls `f(query, primitive)` for every hit, in (query, primitive) order: what the
    /// containers' `for_each_hit_many` hand on.
    pub(crate) fn for_each_hit(&self, mut f: impl FnMut(u32, u32)) {
        for q in 0..self.queries() {
            for &i in self.query(q) {
                f(q as u32, i);
            }
        }
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
    const MASKS_AHEAD: bool = S::MASKS_AHEAD;
    #[inline(always)]
    fn reserve(&mut self, lanes: usize) {
        self.sink.reserve(lanes);
    }
    #[inline(always)]
    fn push<V: Lanes>(&mut self, base: u32, bits: u32) -> bool {
        self.sink.push::<V>(base + self.add, bits)
    }
    #[inline(always)]
    fn pack<V: Lanes>(&self, base: u32, bits: u32) -> V::PackedIndices {
        self.sink.pack::<V>(base + self.add, bits)
    }
    #[inline(always)]
    fn push_packed<V: Lanes>(&mut self, base: u32, bits: u32, packed: V::PackedIndices) -> bool {
        self.sink.push_packed::<V>(base + self.add, bits, packed)
    }
    #[inline(always)]
    fn finish<V: Lanes>(&mut self) {
        self.sink.finish::<V>();
    }
}

/// Primitive tests (queries times primitives) below which a batch runs on the calling thread:
/// under about half a millisecond of work, waking a second thread costs more than it saves.
const PARALLEL_MIN_TESTS: u64 = 1 << 22;

/// One task of a batch: queries `queries` over chunks `chunks` of the container. A batch is split
/// either by chunks (all queries per task: a primitive still leaves DRAM once per batch) or, when
/// the container is shorter than a tile per task, by queries (the whole container per task).
#[derive(Clone, Debug, Default)]
struct Task {
    chunks: Range<usize>,
    queries: Range<usize>,
}

/// The tasks of a batch of `nq` queries over `len` primitives on at most `threads` threads, in
/// output order: by chunks (whole tiles each), or by queries.
fn plan(len: usize, nq: usize, threads: usize, tasks: &mut Vec<Task>) {
    tasks.clear();
    let chunks = len.div_ceil(Chunk::LANES);
    let tiles = chunks.div_ceil(TILE_CHUNKS);
    let tests = len as u64 * nq as u64;
    if threads <= 1 || tests < PARALLEL_MIN_TESTS {
        tasks.push(Task {
            chunks: 0..chunks,
            queries: 0..nq,
        });
        return;
    }
    // A few tasks per thread, so that a thread slowed by another process hands work on.
    let want = threads.saturating_mul(4);
    if tiles >= threads {
        let n = want.min(tiles);
        for i in 0..n {
            let (from, to) = (
                tiles * i / n * TILE_CHUNKS,
                tiles * (i + 1) / n * TILE_CHUNKS,
            );
            tasks.push(Task {
                chunks: from..to.min(chunks),
                queries: 0..nq,
            });
        }
    } else {
        let n = want.min(nq);
        for i in 0..n {
            tasks.push(Task {
                chunks: 0..chunks,
                queries: nq * i / n..nq * (i + 1) / n,
            });
        }
    }
}

/// Counts per query of one task, tile by tile.
struct CountMany<'a, C, Q> {
    container: &'a C,
    queries: &'a [Q],
    chunks: Range<usize>,
    counts: &'a mut [u32],
}

impl<C: Container, Q: Query<C>> WithLanes for CountMany<'_, C, Q> {
    type Output = ();
    #[inline(always)]
    fn run<V: Lanes>(self) {
        // One lane holds one query: no group pays on the scalar tier (`kernel::group`).
        if <Q::Kernel<'_> as Prepared>::GROUPED && V::N > 1 {
            self.run_grouped::<V>();
        } else {
            self.run_one_by_one::<V>();
        }
    }
}

impl<C: Container, Q: Query<C>> CountMany<'_, C, Q> {
    /// The queries bound once, then per tile in groups of `V::N`, each primitive tested against
    /// a whole group at once where the group is full enough (`kernel::Grouped`).
    #[inline(always)]
    fn run_grouped<V: Lanes>(self) {
        // The queries that can hit (NaN and empty ones bind to nothing and keep their 0), with
        // their places in the batch: one allocation per task, none per tile.
        let mut kernels = Vec::with_capacity(self.queries.len());
        let mut places = Vec::with_capacity(self.queries.len());
        for q in 0..self.queries.len() {
            if let Some(kernel) = self.queries[q].bind(self.container) {
                kernels.push(kernel);
                places.push(q);
            }
        }
        let mut start = self.chunks.start;
        while start < self.chunks.end {
            let end = (start + TILE_CHUNKS).min(self.chunks.end);
            let mut first = 0;
            while first < kernels.len() {
                let last = (first + V::N).min(kernels.len());
                let mut counts = [0u32; 16];
                Prepared::count_group::<V>(&kernels[first..last], start..end, &mut counts);
                for l in 0..last - first {
                    self.counts[places[first + l]] += counts[l];
                }
                first = last;
            }
            start = end;
        }
    }

    /// Query by query over each tile.
    #[inline(always)]
    fn run_one_by_one<V: Lanes>(self) {
        // Plain loops, no iterator adapters or closures: everything here must inline into the
        // tier's entry point (`.ci/check-inlining`).
        // Each query is bound again per tile (a few comparisons) rather than once into a vector
        // of kernels, so a batch allocates nothing for them; and a bound kernel's query values
        // are then loaded after the last call, which keeps them in registers.
        let mut start = self.chunks.start;
        while start < self.chunks.end {
            let end = (start + TILE_CHUNKS).min(self.chunks.end);
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

/// The hits of one task: its (tile, query) blocks, tile after tile, each block ascending.
#[derive(Clone, Debug, Default)]
struct Part {
    task: Task,
    /// The hits, block after block.
    hits: Vec<u32>,
    /// Where each block starts in `hits`, and the end of the last.
    blocks: Vec<u32>,
}

impl Part {
    /// The hits of the task's `q`-th query (local) in its `t`-th tile.
    #[inline]
    fn block(&self, t: usize, q: usize) -> &[u32] {
        let b = t * self.task.queries.len() + q;
        &self.hits[self.blocks[b] as usize..self.blocks[b + 1] as usize]
    }

    /// Number of tiles the task walked.
    #[inline]
    fn tiles(&self) -> usize {
        (self.blocks.len() - 1) / self.task.queries.len().max(1)
    }
}

/// Hit blocks of one task, tile by tile.
struct IndicesMany<'a, C, Q> {
    container: &'a C,
    queries: &'a [Q],
    part: &'a mut Part,
}

impl<C: Container, Q: Query<C>> WithLanes for IndicesMany<'_, C, Q> {
    type Output = ();
    #[inline(always)]
    fn run<V: Lanes>(self) {
        let part = self.part;
        let mut hits = core::mem::take(&mut part.hits);
        hits.clear();
        part.blocks.clear();
        let chunks = part.task.chunks.clone();
        let mut start = chunks.start;
        while start < chunks.end {
            let end = (start + TILE_CHUNKS).min(chunks.end);
            let add = (start * Chunk::LANES) as u32;
            for q in 0..self.queries.len() {
                part.blocks.push(offset(hits.len()));
                if let Some(kernel) = self.queries[q].bind(self.container) {
                    let sink = Offset {
                        sink: Indices::new(hits),
                        add,
                    };
                    hits = kernel.tile(start..end).drive::<V, _>(sink).sink.finish();
                }
            }
            start = end;
        }
        part.blocks.push(offset(hits.len()));
        part.hits = hits;
    }
}

/// Hit lists of a container that fits one tile, on one thread: each query's hits go straight to
/// the end of `out.indices`.
struct IndicesOneTile<'a, C, Q> {
    container: &'a C,
    queries: &'a [Q],
    out: &'a mut HitLists,
}

impl<C: Container, Q: Query<C>> WithLanes for IndicesOneTile<'_, C, Q> {
    type Output = ();
    #[inline(always)]
    fn run<V: Lanes>(self) {
        let out = self.out;
        let mut indices = core::mem::take(&mut out.indices);
        for q in 0..self.queries.len() {
            if let Some(kernel) = self.queries[q].bind(self.container) {
                indices = kernel.drive::<V, _>(Indices::new(indices)).finish();
            }
            out.offsets.push(offset(indices.len()));
        }
        out.indices = indices;
    }
}

/// Appends each query's blocks from `parts` (in task order) to `out`, query after query.
fn gather(parts: &[Part], nq: usize, out: &mut HitLists) {
    out.indices
        .reserve(parts.iter().map(|p| p.hits.len()).sum::<usize>());
    for q in 0..nq {
        for p in parts {
            if p.task.queries.contains(&q) {
                let local = q - p.task.queries.start;
                for t in 0..p.tiles() {
                    out.indices.extend_from_slice(p.block(t, local));
                }
            }
        }
        out.offsets.push(offset(out.indices.len()));
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
        let mut tasks = Vec::new();
        plan(
            self.container().len(),
            queries.len(),
            self.threads(),
            &mut tasks,
        );
        if let [task] = &tasks[..] {
            self.count_task(queries, task, &mut counts);
            return counts;
        }
        let parts = crate::tasks::run_tasks(&tasks, |task| {
            let mut part = vec![0; task.queries.len()];
            self.count_task(queries, task, &mut part);
            part
        });
        for (task, part) in tasks.iter().zip(&parts) {
            for (c, p) in counts[task.queries.clone()].iter_mut().zip(part) {
                *c += p;
            }
        }
        counts
    }

    /// Adds the counts of `task` to `counts` (one per query of the task), in one dispatch.
    fn count_task<Q: Query<C>>(&self, queries: &[Q], task: &Task, counts: &mut [u32]) {
        let job = CountMany {
            container: self.container(),
            queries: &queries[task.queries.clone()],
            chunks: task.chunks.clone(),
            counts,
        };
        dispatch(self.backend(), job);
    }

    /// The hits of each query of `queries` into `out` (overwritten; its buffers are reused):
    /// `out.query(q)` equals [`hits`](Pinned::hits)`(&queries[q])`.
    ///
    /// # Panics
    /// If the batch has more than `u32::MAX` hits in all (the offsets are `u32`).
    pub fn hits_many_into<Q: Query<C>>(&self, queries: &[Q], out: &mut HitLists) {
        out.clear();
        let len = self.container().len();
        let mut tasks = core::mem::take(&mut out.tasks);
        plan(len, queries.len(), self.threads(), &mut tasks);
        if tasks.len() == 1 && len <= TILE_CHUNKS * Chunk::LANES {
            let job = IndicesOneTile {
                container: self.container(),
                queries,
                out,
            };
            dispatch(self.backend(), job);
            out.tasks = tasks;
            return;
        }
        let mut parts = core::mem::take(&mut out.parts);
        parts.resize_with(tasks.len(), Part::default);
        for (part, task) in parts.iter_mut().zip(&tasks) {
            part.task = task.clone();
        }
        let (container, backend) = (self.container(), self.backend());
        crate::tasks::run_tasks_mut(&mut parts, |_, part| {
            let job = IndicesMany {
                container,
                queries: &queries[part.task.queries.clone()],
                part,
            };
            dispatch(backend, job);
        });
        gather(&parts, queries.len(), out);
        out.parts = parts;
        out.tasks = tasks;
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
    pub fn for_each_hit_many<Q: Query<C>>(&self, queries: &[Q], f: impl FnMut(u32, u32)) {
        self.hits_many(queries).for_each_hit(f);
    }
}
