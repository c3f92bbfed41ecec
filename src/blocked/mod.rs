//! Blocked containers (`Blocked`): primitives in spatially sorted blocks with bounds, so a query
//! skips the blocks it cannot reach. The overview is on [`Blocked`].

mod build;
mod layout;
mod level;
mod reach;
mod walk;

pub use layout::Blockable;
pub use reach::BlockQuery;

use layout::private::Layout;
use level::{Level, Levels};

use crate::error::BvError;
use crate::lanes::{Backend, Chunk, dispatch};
use crate::primitive::Aabb;
use crate::query::{HitLists, Hits};
use crate::soa::{Aabbs, Obbs, Spheres};
use std::sync::OnceLock;

/// The most levels of bounds: `16^8` primitives exceed the containers' `u32` limit.
pub(crate) const MAX_LEVELS: usize = 8;

/// The containers from which [`Blocked::set_many`] fetches each move's lines ahead: 1.8-2.1x
/// faster than without at 1,000,000 boxes (1 % moved, `bvlanes-bench --table blocked`, Intel
/// Xeon), 1.1-1.2x slower at 100,000, whose seven columns stay in this core's 4 MiB
/// second-level cache (the hints then only cost instructions).
const PREFETCHED_SETS: usize = 1 << 18;

/// Blocked containers: the primitives reordered along a space-filling curve into blocks of one
/// chunk (16 primitives), each block with its bounds, and above them levels of bounds of 16
/// blocks, 256, ..., so that a query skips every block it cannot reach.
///
/// A blocked container of [`Aabbs`], [`Spheres`](crate::Spheres), [`Obbs`](crate::Obbs),
/// [`UpTets`](crate::UpTets), [`DownTets`](crate::DownTets) or [`Octahedra`](crate::Octahedra)
/// (the [`Blockable`] ones)
/// answers every query the flat container answers, with the same methods, and its answers are
/// the flat container's bit for bit, on every backend: the caller's indices, ascending. Per block
/// the walk has three outcomes:
///
/// * **beyond reach**: the block's bounds fail the query's block test, and no primitive of the
///   block can pass the flat test (`reach.rs` says why, per query type); the block is skipped;
/// * **wholly inside** (box and frustum queries on boxes; the comparison tests of tetrahedra and
///   octahedra): the bounds pass a test that every primitive inside them passes the flat test;
///   they are reported untested;
/// * **partly**: the flat container's own kernel runs over the block's 16 primitives.
///
/// The same test decides at every level, so a node whose bounds fail skips its whole subtree.
///
/// # Building
/// The bounds of a box, a sphere or an oriented-box container are boxes (a sphere's is its
/// widened reach box, an oriented box's its outward-rounded bounding box); those of
/// tetrahedra and octahedra are, per column, the least and the greatest value over the block
/// (the comparisons of their tests decide on those exactly).
///
/// [`Blocked::new`] orders the primitives by the Hilbert key of their box centres (a grid of about
/// one cell per primitive over the centres' bounds, at most 10 bits per axis; a radix sort), and
/// then builds the levels bottom up. A primitive
/// whose largest side exceeds [`OUTSIZED_FACTOR`](Blocked::OUTSIZED_FACTOR) times the larger of the
/// median side and the side of a cube holding one block of centres is *outsized*: the outsized go
/// after all the others, in blocks of their own, so that one huge primitive does not widen the
/// bounds of the small ones around it ([`outsized`](Blocked::outsized) says how many).
///
/// # Moving primitives
/// [`set`](Blocked::set) replaces a primitive in place and widens the bounds above it as far as
/// they do not already contain it (a few comparisons per level; bounds never shrink there);
/// [`set_many`](Blocked::set_many) does the same for a batch of moves, faster on large
/// containers.
/// Moved primitives leave bounds looser than they need be: [`refit`](Blocked::refit) recomputes
/// every bound from the primitives (linear), [`rebuild`](Blocked::rebuild) reorders along the curve
/// again (a new build), for when the primitives have moved far from their blocks.
///
/// ```
/// use bvlanes::{Aabb, Aabbs, Blocked};
/// let boxes: Vec<Aabb> = (0..1000)
///     .map(|i| {
///         let x = (i % 10) as f32 * 10.0;
///         let y = (i / 10 % 10) as f32 * 10.0;
///         let z = (i / 100) as f32 * 10.0;
///         Aabb::new([x, y, z], [x + 1.0, y + 1.0, z + 1.0])
///     })
///     .collect();
/// let flat = Aabbs::from_slice(&boxes)?;
/// let blocked = Blocked::new(&flat);
/// let q = Aabb::new([15.0, 15.0, 15.0], [31.0, 31.0, 31.0]);
/// assert_eq!(blocked.hits(&q).collect::<Vec<_>>(), flat.hits(&q).collect::<Vec<_>>());
/// assert_eq!(blocked.count_hits(&q), 8); // x, y, z each 20 or 30 (touching 31 counts)
/// # Ok::<(), bvlanes::BvError>(())
/// ```
///
/// Octahedra (the AABO), with the exact test and the tetrahedron test of the seed paper:
///
/// ```
/// use bvlanes::{Aabb, Blocked, Octahedra, Octahedron};
/// let octs: Vec<Octahedron> = (0..5000)
///     .map(|i| {
///         let c = [(i % 17) as f32 * 3.0, (i / 17 % 17) as f32 * 3.0, (i / 289) as f32 * 3.0];
///         Octahedron::from_aabb(&Aabb::new(c, c.map(|v| v + 1.0)))
///     })
///     .collect();
/// let flat = Octahedra::from_slice(&octs)?;
/// let blocked = Blocked::new(&flat);
/// let q = octs[1234];
/// assert_eq!(blocked.hits(&q).collect::<Vec<_>>(), flat.hits(&q).collect::<Vec<_>>());
/// assert_eq!(blocked.count_hits(&q.down), flat.count_hits(&q.down));
/// # Ok::<(), bvlanes::BvError>(())
/// ```
///
/// Built from a flat container ([`Blocked::new`]) or a slice ([`Blocked::from_slice`]); indices
/// are the caller's (the flat container's or the slice's).
#[derive(Clone)]
pub struct Blocked<C: Blockable> {
    /// The primitives in curve order.
    leaves: C,
    /// `order[p]`: the caller's index of the primitive at position `p`.
    order: Vec<u32>,
    /// `position[i]`: where the caller's primitive `i` is (the inverse of `order`), made by
    /// the first call that needs it ([`position`](Blocked::position): `get`, `set`,
    /// `set_many`, `rebuild`), not by the build: a scattered write per primitive (4-6 ms of a
    /// 1,000,000-box build here) that a container only queried never needs.
    position: OnceLock<Vec<u32>>,
    /// The bounds: level 0 one box per chunk of `leaves`, each next level one per chunk of the
    /// one below; the last holds at most 16. No level when there are no primitives.
    levels: Levels<<C as Layout>::Level>,
    /// How many primitives are outsized (the last ones in curve order).
    outsized: usize,
    /// The threads of the build, its refits and rebuilds (0: all of rayon's pool).
    threads: usize,
    /// The sizes of the measured blocks ([`measured_blocks`](Blocked::measured_blocks)) summed
    /// ([`Level::size`]): at the last build or rebuild, and now (kept by `set` and `refit`).
    built_size: f64,
    size: f64,
}

/// Every field but the positions, which are made on demand from the order (two equal
/// containers print alike, whichever calls made their positions).
impl<C: Blockable + core::fmt::Debug> core::fmt::Debug for Blocked<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Blocked")
            .field("leaves", &self.leaves)
            .field("order", &self.order)
            .field("levels", &self.levels)
            .field("outsized", &self.outsized)
            .field("threads", &self.threads)
            .field("built_size", &self.built_size)
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

impl<C: Blockable> Blocked<C> {
    /// See the module docs: a primitive is outsized when its largest side exceeds this many
    /// times the larger of the median largest side and the side of a cube that would hold one
    /// block of centres.
    pub const OUTSIZED_FACTOR: f64 = build::OUTSIZED_FACTOR;

    /// The blocked form of `container` (which is left as it is; indices are its indices).
    ///
    /// Cost: two passes over the primitives for the keys (Hilbert keys of about one cell per
    /// primitive, at most 10 bits per axis), a radix sort (11-bit passes; from 262,144 keys the
    /// top 8 bits first, then each bucket in cache), one gather of every column, and the bounds
    /// (1/15 of the primitives' size again). The keys, the gather and the bounds of the blocks
    /// run on the detected SIMD tier. About 40-50 ns per box at 1,000,000 boxes on one thread on
    /// the project's machine (`docs/benchmarks.md`).
    ///
    /// With the `rayon` feature, large containers (from 32,768 primitives) compute their keys,
    /// gather their columns and bound their blocks in stretches over every thread of rayon's
    /// current pool, and from 262,144 sort the radix sort's buckets in groups over them (its
    /// first scatter stays on the calling thread); see
    /// [`new_with_threads`](Blocked::new_with_threads). The result does not depend on the thread
    /// count.
    #[must_use]
    pub fn new(container: &C) -> Self {
        Self::new_with_threads(container, 0)
    }

    /// [`new`](Blocked::new) on at most `threads` threads: `0` every thread of rayon's current
    /// pool (what `new` does), `1` the calling thread only. [`refit`](Blocked::refit) and
    /// [`rebuild`](Blocked::rebuild) keep the count. The result is the same whatever it is.
    ///
    /// ```
    /// use bvlanes::{Aabb, Aabbs, Blocked};
    /// let flat = Aabbs::from_slice(&[Aabb::new([0.0; 3], [1.0; 3])])?;
    /// assert_eq!(Blocked::new_with_threads(&flat, 1).order(), Blocked::new(&flat).order());
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    #[must_use]
    pub fn new_with_threads(container: &C, threads: usize) -> Self {
        let (order, outsized) = build::curve_order(container, threads);
        let leaves = container.gather(&order, threads);
        let levels = build::levels(&leaves, threads);
        let mut blocked = Blocked {
            leaves,
            order,
            position: OnceLock::new(),
            levels,
            outsized,
            threads,
            built_size: 0.0,
            size: 0.0,
        };
        blocked.size = blocked.blocks_size();
        blocked.built_size = blocked.size;
        blocked
    }

    /// The blocks [`looseness`](Blocked::looseness) measures: those holding no outsized
    /// primitive (every block if all hold one).
    fn measured_blocks(&self) -> usize {
        let blocks = self.levels.len(0);
        match (self.len() - self.outsized) / Chunk::LANES {
            0 => blocks,
            normal => normal,
        }
    }

    /// The sizes of the measured blocks' bounds, summed.
    fn blocks_size(&self) -> f64 {
        (0..self.measured_blocks())
            .map(|b| <C::Level as Level>::size(&self.levels.node(0, b)))
            .sum()
    }

    /// The blocked form of `items` (index `i` is `items[i]`).
    ///
    /// # Errors
    /// The first invalid item's [`BvError`], naming its index, as the flat container's
    /// `from_slice`.
    pub fn from_slice(items: &[C::Primitive]) -> Result<Self, BvError> {
        Ok(Self::new(&C::from_items(items)?))
    }

    /// Number of primitives.
    #[must_use]
    #[inline]
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether there are no primitives.
    #[must_use]
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The primitive with index `index`, if any.
    #[must_use]
    pub fn get(&self, index: usize) -> Option<C::Primitive> {
        let p = *self.position().get(index)?;
        self.leaves.item(p as usize)
    }

    /// `position()[i]`: where the caller's primitive `i` is (the inverse of `order`), made at
    /// the first call.
    fn position(&self) -> &[u32] {
        self.position.get_or_init(|| {
            let mut position = vec![0u32; self.order.len()];
            for (p, &i) in self.order.iter().enumerate() {
                position[i as usize] = p as u32;
            }
            position
        })
    }

    /// The largest index (0 when empty): what the hit lists' sort needs to know.
    pub(crate) fn max_index(&self) -> u32 {
        u32::try_from(self.len().saturating_sub(1)).unwrap_or(u32::MAX)
    }

    /// How many primitives were outsized at the last build (kept in blocks of their own).
    #[must_use]
    pub fn outsized(&self) -> usize {
        self.outsized
    }

    /// Levels of bounds above the primitives (0 when empty; 1 up to 16 blocks, ...).
    #[must_use]
    pub fn levels(&self) -> usize {
        self.levels.count()
    }

    /// The caller's index of each primitive in block order: block `b` holds indices
    /// `order()[16 * b .. 16 * b + 16]`.
    #[must_use]
    pub fn order(&self) -> &[u32] {
        &self.order
    }

    /// Replaces the primitive with index `index` and widens the bounds above it where they do not
    /// already contain it (no reordering; see [`refit`](Blocked::refit) and
    /// [`rebuild`](Blocked::rebuild)). Answers stay exact whatever moved.
    ///
    /// Cost: the primitive's row, plus one bounds check per level up to the first that already
    /// contains it (and a write per level widened).
    ///
    /// # Errors
    /// [`BvError::IndexOutOfBounds`] past the end, or the item's validation error naming `index`;
    /// nothing is changed.
    pub fn set(&mut self, index: usize, item: C::Primitive) -> Result<(), BvError> {
        let Some(&p) = self.position().get(index) else {
            return Err(BvError::IndexOutOfBounds {
                index,
                len: self.len(),
            });
        };
        C::check_item(&item, index)?;
        self.place(p as usize, item);
        Ok(())
    }

    /// [`set`](Blocked::set) of each `(index, item)` of `moves` in turn, for many moved
    /// primitives at once: the same primitives and bounds afterwards (an index given twice ends
    /// with its last item), faster on large containers because every row and block bound is
    /// fetched a few moves ahead of its write instead of each write waiting for its cache line
    /// (on 1,000,000 boxes, see `docs/benchmarks.md`).
    ///
    /// ```
    /// use bvlanes::{Aabb, Aabbs, Blocked};
    /// let at = |x: f32| Aabb::new([x, 0.0, 0.0], [x + 1.0, 1.0, 1.0]);
    /// let boxes: Vec<Aabb> = (0..100).map(|i| at(i as f32)).collect();
    /// let mut blocked = Blocked::<Aabbs>::from_slice(&boxes)?;
    /// blocked.set_many(&[(3, at(500.0)), (97, at(-50.0))])?;
    /// assert_eq!(blocked.hits(&at(500.5)).collect::<Vec<_>>(), [3]);
    /// assert_eq!(blocked.get(97), Some(at(-50.0)));
    /// // One invalid move: the first error, and nothing moved.
    /// assert!(blocked.set_many(&[(5, at(7.0)), (100, at(0.0))]).is_err());
    /// assert_eq!(blocked.get(5), Some(at(5.0)));
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    ///
    /// # Errors
    /// The first move's error that [`set`](Blocked::set) would give
    /// ([`BvError::IndexOutOfBounds`], or the item's validation error naming its index); then
    /// nothing is changed, not even by the moves before it.
    pub fn set_many(&mut self, moves: &[(usize, C::Primitive)]) -> Result<(), BvError> {
        let len = self.len();
        for (index, item) in moves {
            if *index >= len {
                return Err(BvError::IndexOutOfBounds { index: *index, len });
            }
            C::check_item(item, *index)?;
        }
        // Held apart from `self` while the moves write the rest of it.
        self.position();
        let position = self.position.take().expect("the positions, just made");
        self.place_moves(&position, moves);
        self.position = OnceLock::from(position);
        Ok(())
    }

    /// The body of [`set_many`](Blocked::set_many) after its checks: each of the `moves`
    /// placed, `position` being [`position`](Blocked::position)'s.
    fn place_moves(&mut self, position: &[u32], moves: &[(usize, C::Primitive)]) {
        if self.len() < PREFETCHED_SETS {
            for &(index, item) in moves {
                self.place(position[index] as usize, item);
            }
            return;
        }
        // Each write's lines are asked for `AHEAD` moves earlier (into the second-level cache),
        // and the position that names them `AHEAD` moves before that: dozens of misses in
        // flight instead of each store waiting for its line (16 measured a little better than
        // 8 or 32).
        const AHEAD: usize = 16;
        for (k, &(index, item)) in moves.iter().enumerate() {
            if let Some((later, _)) = moves.get(k + 2 * AHEAD) {
                crate::lanes::prefetch_line(&position[*later]);
            }
            if let Some((next, _)) = moves.get(k + AHEAD) {
                let p = position[*next] as usize;
                self.leaves.prefetch_row(p);
                if self.levels.count() > 0 {
                    self.levels.prefetch_node(0, p / Chunk::LANES);
                }
            }
            self.place(position[index] as usize, item);
        }
    }

    /// Stores the checked `item` at position `p` and widens the bounds above it (the body of
    /// [`set`](Blocked::set)).
    fn place(&mut self, p: usize, item: C::Primitive) {
        self.leaves
            .put(p, item)
            .expect("a checked item at a position inside the container");
        let b = C::item_bounds(&item);
        let measured = self.measured_blocks();
        for k in 0..self.levels.count() {
            let node = p >> (4 * (k + 1));
            let cur = self.levels.node(k, node);
            if C::Level::contains(&cur, &b) {
                // Every level above contains this one.
                break;
            }
            let wider = C::Level::union(&cur, &b);
            if k == 0 && node < measured {
                self.size += C::Level::size(&wider) - C::Level::size(&cur);
            }
            self.levels.set_node(k, node, wider);
        }
    }

    /// Recomputes every bound from the primitives (tight again after moves), keeping the order.
    /// Linear in the number of primitives.
    pub fn refit(&mut self) {
        self.levels = build::levels(&self.leaves, self.threads);
        self.size = self.blocks_size();
    }

    /// How much the blocks' bounds have grown since the last build or [`rebuild`]: their summed
    /// size now over that sum then (1 right after a build; more as [`set`] widens blocks and
    /// primitives drift apart from their block's neighbours; a [`refit`] brings it back down as
    /// far as the current order allows).
    ///
    /// A block's size is linear in its bounds: the sum of its three sides for box bounds
    /// (`Aabbs`, `Spheres`, `Obbs`), the size of its outer tetrahedra for the others (`UpTets`,
    /// `DownTets`: one; `Octahedra`: the up and the down one). Blocks holding outsized primitives
    /// are left out (one moved huge primitive would otherwise hide every other block's
    /// growth). When every block was a point at the build, it is 1 while they stay points and
    /// infinite once one grows. A query's cost grows with it: see `docs/benchmarks.md`
    /// ("Blocked containers", motion) for what it measured. Kept up to date by [`set`] (one size
    /// per widened block), so reading it costs nothing.
    ///
    /// ```
    /// use bvlanes::{Aabb, Aabbs, Blocked};
    /// let boxes: Vec<Aabb> = (0..4096)
    ///     .map(|i| {
    ///         let c = [(i % 16) as f32, (i / 16 % 16) as f32, (i / 256) as f32];
    ///         Aabb::new(c, c.map(|v| v + 0.5))
    ///     })
    ///     .collect();
    /// let mut blocked = Blocked::<Aabbs>::from_slice(&boxes)?;
    /// assert_eq!(blocked.looseness(), 1.0);
    /// // Box 0 jumps across the scene: its block now spans it.
    /// blocked.set(0, Aabb::new([15.0; 3], [15.5; 3]))?;
    /// assert!(blocked.looseness() > 1.0);
    /// blocked.rebuild();
    /// assert_eq!(blocked.looseness(), 1.0);
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    ///
    /// [`set`]: Blocked::set
    /// [`refit`]: Blocked::refit
    /// [`rebuild`]: Blocked::rebuild
    #[must_use]
    pub fn looseness(&self) -> f64 {
        if self.built_size > 0.0 {
            self.size / self.built_size
        } else if self.size > 0.0 {
            f64::INFINITY
        } else {
            1.0
        }
    }

    /// Keeps the blocks if their [`looseness`](Blocked::looseness) is at most `max_looseness`;
    /// else [`refit`](Blocked::refit)s them, and if that leaves it above `max_looseness`,
    /// [`rebuild`](Blocked::rebuild)s: the cheapest of the three that brings it down (a refit
    /// costs a pass over the primitives, a rebuild a new build). Says which it did. A
    /// `max_looseness` below 1 or NaN always rebuilds.
    ///
    /// ```
    /// use bvlanes::{Aabb, Aabbs, Blocked, Optimized};
    /// let boxes: Vec<Aabb> = (0..1000)
    ///     .map(|i| {
    ///         let c = [(i % 10) as f32, (i / 10 % 10) as f32, (i / 100) as f32];
    ///         Aabb::new(c, c.map(|v| v + 0.5))
    ///     })
    ///     .collect();
    /// let mut blocked = Blocked::<Aabbs>::from_slice(&boxes)?;
    /// assert_eq!(blocked.optimize(1.5), Optimized::Kept);
    /// // Everything moves three units and back: the blocks widened, but each still holds
    /// // neighbours, so a refit makes them tight again.
    /// for i in 0..boxes.len() {
    ///     let b = boxes[i];
    ///     blocked.set(i, Aabb::new(b.min.map(|v| v + 3.0), b.max.map(|v| v + 3.0)))?;
    ///     blocked.set(i, b)?;
    /// }
    /// assert!(blocked.looseness() > 1.5);
    /// assert_eq!(blocked.optimize(1.5), Optimized::Refit);
    /// assert_eq!(blocked.looseness(), 1.0);
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    pub fn optimize(&mut self, max_looseness: f64) -> Optimized {
        if self.looseness() <= max_looseness {
            return Optimized::Kept;
        }
        self.refit();
        if self.looseness() <= max_looseness {
            return Optimized::Refit;
        }
        self.rebuild();
        Optimized::Rebuilt
    }

    /// Replaces every primitive by `container`'s (index `i` by its primitive `i`), keeping the
    /// order, and refits the bounds: what [`set`](Blocked::set) of every index would store, for
    /// scenes where everything moves, at the cost of one gather of the container's columns into
    /// the blocked order and a [`refit`](Blocked::refit), instead of a row and a walk up the
    /// levels per primitive. The bounds are then tight for the order;
    /// [`looseness`](Blocked::looseness) says whether the order still suits the primitives (see
    /// [`optimize`](Blocked::optimize)). `container` was validated when it was built.
    ///
    /// ```
    /// use bvlanes::{Aabb, Aabbs, Blocked};
    /// let at = |i: usize, d: f32| Aabb::new([i as f32 + d; 3], [i as f32 + d + 0.5; 3]);
    /// let boxes: Vec<Aabb> = (0..100).map(|i| at(i, 0.0)).collect();
    /// let mut blocked = Blocked::<Aabbs>::from_slice(&boxes)?;
    /// let moved: Vec<Aabb> = (0..100).map(|i| at(i, 0.25)).collect();
    /// blocked.update(&Aabbs::from_slice(&moved)?)?;
    /// assert_eq!(blocked.get(7), Some(moved[7]));
    /// assert_eq!(blocked.hits(&Aabb::new([7.6; 3], [7.7; 3])).collect::<Vec<_>>(), [7]);
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    ///
    /// # Errors
    /// [`BvError::LengthMismatch`] (`left` this container's length, `right` the given one's) if
    /// the lengths differ; nothing is changed.
    pub fn update(&mut self, container: &C) -> Result<(), BvError> {
        if container.count() != self.len() {
            return Err(BvError::LengthMismatch {
                left: self.len(),
                right: container.count(),
            });
        }
        self.leaves = container.gather(&self.order, self.threads);
        self.refit();
        Ok(())
    }

    /// Reorders along the curve again and rebuilds the bounds: what [`new`](Blocked::new) costs.
    /// For primitives that moved far from their blocks (their bounds grew loose); the indices do
    /// not change.
    pub fn rebuild(&mut self) {
        let original = self.leaves.gather(self.position(), self.threads);
        *self = Self::new_with_threads(&original, self.threads);
    }

    /// The same container with its queries pinned to `backend`.
    ///
    /// # Errors
    /// [`BvError::BackendUnavailable`] if this CPU lacks it.
    pub fn with_backend(&self, backend: Backend) -> Result<BlockedPinned<'_, C>, BvError> {
        Ok(BlockedPinned {
            blocked: self,
            backend: backend.check()?,
            threads: 0,
        })
    }

    /// The view on the detected backend.
    fn detected(&self) -> BlockedPinned<'_, C> {
        BlockedPinned {
            blocked: self,
            backend: Backend::detect(),
            threads: 0,
        }
    }

    /// Number of primitives hit by `query` (the flat container's count).
    #[must_use]
    pub fn count_hits<Q: BlockQuery<C>>(&self, query: &Q) -> usize {
        self.detected().count_hits(query)
    }

    /// Whether `query` hits any primitive (stops at the first hit block).
    #[must_use]
    pub fn any_hit<Q: BlockQuery<C>>(&self, query: &Q) -> bool {
        self.detected().any_hit(query)
    }

    /// Appends the indices of the primitives hit by `query` to `out`, ascending.
    pub fn extend_hits<Q: BlockQuery<C>>(&self, query: &Q, out: &mut Vec<u32>) {
        self.detected().extend_hits(query, out);
    }

    /// The indices of the primitives hit by `query`, ascending.
    #[must_use]
    pub fn hits<Q: BlockQuery<C>>(&self, query: &Q) -> Hits {
        self.detected().hits(query)
    }

    /// Writes a bitmap of the hits (bit `i % 64` of `mask[i / 64]` for index `i`), as the flat
    /// container's `hit_mask`.
    ///
    /// # Panics
    /// If `mask` has fewer than `len().div_ceil(64)` words.
    pub fn hit_mask<Q: BlockQuery<C>>(&self, query: &Q, mask: &mut [u64]) {
        self.detected().hit_mask(query, mask);
    }

    /// Hits per query of `queries` (see [`BlockedPinned::count_hits_many`]).
    #[must_use]
    pub fn count_hits_many<Q: BlockQuery<C>>(&self, queries: &[Q]) -> Vec<u32> {
        self.detected().count_hits_many(queries)
    }

    /// The hits of each query (see [`BlockedPinned::hits_many_into`]).
    ///
    /// # Panics
    /// If the batch has more than `u32::MAX` hits in all.
    #[must_use]
    pub fn hits_many<Q: BlockQuery<C>>(&self, queries: &[Q]) -> HitLists {
        self.detected().hits_many(queries)
    }

    /// The hits of each query into `out` (see [`BlockedPinned::hits_many_into`]).
    ///
    /// # Panics
    /// If the batch has more than `u32::MAX` hits in all.
    pub fn hits_many_into<Q: BlockQuery<C>>(&self, queries: &[Q], out: &mut HitLists) {
        self.detected().hits_many_into(queries, out);
    }

    /// Calls `f(query, primitive)` for every hit of every query, in (query, primitive) order.
    ///
    /// # Panics
    /// If the batch has more than `u32::MAX` hits in all.
    pub fn for_each_hit_many<Q: BlockQuery<C>>(&self, queries: &[Q], f: impl FnMut(u32, u32)) {
        self.detected().for_each_hit_many(queries, f);
    }
}

/// `bounds` of the containers whose levels are boxes.
macro_rules! box_level_bounds {
    ($($c:ty),*) => {$(
        impl Blocked<$c> {
            /// The bounds of level `level`'s node `node` (level 0: block `node`), for tests and
            /// diagnostics: a box containing the node's primitives (a sphere's widened reach
            /// box, an oriented box's bounding box), clamped to the f32 range.
            #[must_use]
            pub fn bounds(&self, level: usize, node: usize) -> Option<Aabb> {
                self.levels.get(level, node)
            }
        }
    )*};
}

box_level_bounds!(Aabbs, Spheres, Obbs);

/// What [`Blocked::optimize`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Optimized {
    /// Nothing: the blocks were tight enough.
    Kept,
    /// A [`refit`](Blocked::refit) (the order kept).
    Refit,
    /// A [`rebuild`](Blocked::rebuild) (after a refit that was not enough).
    Rebuilt,
}

/// A [`Blocked`] container with its queries pinned to one [`Backend`] (from
/// [`Blocked::with_backend`]).
#[derive(Debug)]
pub struct BlockedPinned<'a, C: Blockable> {
    blocked: &'a Blocked<C>,
    backend: Backend,
    /// Threads of the batched methods; 0: every thread of rayon's current pool.
    threads: usize,
}

/// The order in which a batch walks its queries.
struct WalkOrder {
    /// Indices into the batch, in walk order.
    order: Vec<u32>,
    /// Whether that is not the batch's own order (the answers then move to their places).
    sorted: bool,
}

/// The order in which a batch walks `queries` on `blocked`: along the curve of their anchors
/// ([`build::walk_order`]) from [`build::ORDERED_CONTAINER`] primitives, else the batch's own.
fn walk_order<C: Blockable, Q: BlockQuery<C>>(blocked: &Blocked<C>, queries: &[Q]) -> WalkOrder {
    let curve = (blocked.len() >= build::ORDERED_CONTAINER)
        .then(|| build::walk_order(queries.iter().map(reach::private::Anchor::anchor)))
        .flatten();
    match curve {
        Some(order) => WalkOrder {
            order,
            sorted: true,
        },
        None => WalkOrder {
            order: (0..u32::try_from(queries.len()).expect("a batch of at most u32::MAX queries"))
                .collect(),
            sorted: false,
        },
    }
}

/// `out` (cleared) filled with the lists `offsets`, `indices` of the queries walked in `order`,
/// each moved to its query's place.
fn in_query_order(order: &[u32], offsets: &[u32], indices: &[u32], out: &mut HitLists) {
    // Each query's length at its end's place, then summed into the ends in place (no buffer of
    // lengths: the sum of the lengths is `indices.len()`, whose offsets fit a `u32`).
    let first = out.offsets.len();
    out.offsets.resize(first + order.len(), 0);
    let ends = &mut out.offsets[first..];
    for (k, &q) in order.iter().enumerate() {
        ends[q as usize] = offsets[k + 1] - offsets[k];
    }
    let mut end = 0;
    for e in ends {
        end += *e;
        *e = end;
    }
    out.indices.resize(indices.len(), 0);
    for (k, &q) in order.iter().enumerate() {
        let list = &indices[offsets[k] as usize..offsets[k + 1] as usize];
        let at = out.offsets[q as usize] as usize;
        out.indices[at..at + list.len()].copy_from_slice(list);
    }
}

/// Queries per task below which a batch stays on the calling thread (a walk takes about a
/// microsecond; waking a thread costs tens).
const QUERIES_PER_TASK: usize = 128;

impl<C: Blockable> Clone for BlockedPinned<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C: Blockable> Copy for BlockedPinned<'_, C> {}

impl<'a, C: Blockable> BlockedPinned<'a, C> {
    /// The backend queries run on.
    #[must_use]
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The container.
    #[must_use]
    pub fn container(&self) -> &'a Blocked<C> {
        self.blocked
    }

    /// The same view with its batched methods splitting a batch over at most `threads` threads
    /// (`0` or `1`: the calling thread only); the default is every thread of rayon's current pool
    /// with the `rayon` feature. The answers do not depend on it.
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// The threads a batch may use.
    #[must_use]
    pub fn threads(&self) -> usize {
        crate::tasks::threads_or_default(self.threads)
    }

    /// `n` queries cut into ranges, one task each: one range on one thread or for a small batch,
    /// else a few per thread.
    fn ranges(&self, n: usize) -> Vec<core::ops::Range<usize>> {
        let threads = self.threads();
        let tasks = if threads <= 1 {
            1
        } else {
            (n / QUERIES_PER_TASK).clamp(1, threads.saturating_mul(4))
        };
        (0..tasks)
            .map(|t| n * t / tasks..n * (t + 1) / tasks)
            .collect()
    }

    /// Number of primitives hit by each query of `queries` (`count_hits` of each, in order).
    /// One dispatch per task; a large batch splits over threads by ranges of queries.
    ///
    /// On a container of at least 262,144 primitives, a batch of at least 64 queries is walked
    /// in the order of a Hilbert curve through the queries' centres (boxes, spheres, points,
    /// oriented boxes; tetrahedra and octahedra by three plane offsets; frusta keep their
    /// order), so that each query finds the blocks its neighbour read still in the cache: 1,000
    /// box queries on 1,000,000 boxes counted 1.1-1.4x faster. Only the order of the walks
    /// changes, never an answer or where it is written.
    ///
    /// # Panics
    /// If the batch has more than `u32::MAX` queries.
    ///
    /// ```
    /// use bvlanes::{Aabb, Aabbs, Backend, Blocked};
    /// let b = Blocked::<Aabbs>::from_slice(&[Aabb::new([0.0; 3], [1.0; 3])])?;
    /// let p = b.with_backend(Backend::Scalar)?;
    /// assert_eq!(p.count_hits_many(&[[0.5; 3], [2.0; 3]]), [1, 0]);
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    #[must_use]
    pub fn count_hits_many<Q: BlockQuery<C>>(&self, queries: &[Q]) -> Vec<u32> {
        let WalkOrder {
            order: walk,
            sorted,
        } = walk_order(self.blocked, queries);
        let ranges = self.ranges(queries.len());
        let run = |r: &core::ops::Range<usize>| {
            let mut counts = vec![0; r.len()];
            let job = walk::CountMany {
                blocked: self.blocked,
                queries,
                order: &walk[r.clone()],
                counts: &mut counts,
            };
            dispatch(self.backend, job);
            counts
        };
        let walked = if let [r] = &ranges[..] {
            run(r)
        } else {
            crate::tasks::run_tasks(&ranges, run).concat()
        };
        if !sorted {
            return walked;
        }
        let mut counts = vec![0; queries.len()];
        for (&q, &c) in walk.iter().zip(&walked) {
            counts[q as usize] = c;
        }
        counts
    }

    /// The hits of each query of `queries` into `out` (overwritten; its buffers are reused):
    /// `out.query(q)` equals [`hits`](BlockedPinned::hits)`(&queries[q])`. Large batches on
    /// large containers are walked along a curve as in
    /// [`count_hits_many`](BlockedPinned::count_hits_many); their lists are then moved to their
    /// queries' places (through buffers `out` keeps).
    ///
    /// # Panics
    /// If the batch has more than `u32::MAX` hits in all (the offsets are `u32`) or more than
    /// `u32::MAX` queries.
    pub fn hits_many_into<Q: BlockQuery<C>>(&self, queries: &[Q], out: &mut HitLists) {
        out.clear();
        let WalkOrder {
            order: walk,
            sorted,
        } = walk_order(self.blocked, queries);
        // The lists in walk order: straight into `out` when that is the batch's order.
        let mut walked_offsets = core::mem::take(&mut out.walked_offsets);
        let mut walked_indices = core::mem::take(&mut out.walked_indices);
        walked_offsets.clear();
        walked_offsets.push(0);
        walked_indices.clear();
        let (offsets, indices) = if sorted {
            (&mut walked_offsets, &mut walked_indices)
        } else {
            (&mut out.offsets, &mut out.indices)
        };
        let ranges = self.ranges(queries.len());
        if let [r] = &ranges[..] {
            let job = walk::IndicesMany {
                blocked: self.blocked,
                queries,
                order: &walk[r.clone()],
                offsets,
                indices,
            };
            dispatch(self.backend, job);
        } else {
            let parts = crate::tasks::run_tasks(&ranges, |r| {
                let (mut offsets, mut indices) = (Vec::new(), Vec::new());
                let job = walk::IndicesMany {
                    blocked: self.blocked,
                    queries,
                    order: &walk[r.clone()],
                    offsets: &mut offsets,
                    indices: &mut indices,
                };
                dispatch(self.backend, job);
                (offsets, indices)
            });
            for (part_offsets, part_indices) in parts {
                let base = indices.len() as u64;
                offsets.extend(part_offsets.iter().map(|&o| {
                    u32::try_from(base + u64::from(o))
                        .expect("hits_many: more than u32::MAX hits in one batch")
                }));
                indices.extend_from_slice(&part_indices);
            }
        }
        if sorted {
            in_query_order(&walk, &walked_offsets, &walked_indices, out);
        }
        out.walked_offsets = walked_offsets;
        out.walked_indices = walked_indices;
    }

    /// The hits of each query of `queries` (see [`hits_many_into`](BlockedPinned::hits_many_into)).
    ///
    /// # Panics
    /// If the batch has more than `u32::MAX` hits in all.
    #[must_use]
    pub fn hits_many<Q: BlockQuery<C>>(&self, queries: &[Q]) -> HitLists {
        let mut out = HitLists::default();
        self.hits_many_into(queries, &mut out);
        out
    }

    /// Calls `f(query, primitive)` for every hit of every query of `queries`, in (query,
    /// primitive) order (the hits are collected first).
    ///
    /// # Panics
    /// If the batch has more than `u32::MAX` hits in all.
    pub fn for_each_hit_many<Q: BlockQuery<C>>(&self, queries: &[Q], f: impl FnMut(u32, u32)) {
        self.hits_many(queries).for_each_hit(f);
    }

    /// The walk of `query` into `out`, on this backend (one dispatch).
    #[inline]
    fn walk<Q: BlockQuery<C>, O: walk::Out>(&self, query: &Q, out: O) -> O {
        dispatch(
            self.backend,
            walk::Walk {
                blocked: self.blocked,
                query,
                out,
            },
        )
    }

    /// Number of primitives hit by `query`.
    #[must_use]
    pub fn count_hits<Q: BlockQuery<C>>(&self, query: &Q) -> usize {
        self.walk(query, walk::Count(0)).0
    }

    /// Whether `query` hits any primitive.
    #[must_use]
    pub fn any_hit<Q: BlockQuery<C>>(&self, query: &Q) -> bool {
        self.walk(query, walk::Any(false)).0
    }

    /// Appends the indices of the primitives hit by `query` to `out`, ascending.
    pub fn extend_hits<Q: BlockQuery<C>>(&self, query: &Q, out: &mut Vec<u32>) {
        dispatch(
            self.backend,
            walk::SortedIndices {
                blocked: self.blocked,
                query,
                out,
            },
        );
    }

    /// The indices of the primitives hit by `query`, ascending.
    #[must_use]
    pub fn hits<Q: BlockQuery<C>>(&self, query: &Q) -> Hits {
        let mut out = Vec::new();
        self.extend_hits(query, &mut out);
        Hits::from_vec(out)
    }

    /// Writes a bitmap of the hits: bit `i % 64` of `mask[i / 64]` is set iff primitive `i` is
    /// hit. The first `len().div_ceil(64)` words are overwritten; later words are left alone.
    ///
    /// # Panics
    /// If `mask` has fewer than `len().div_ceil(64)` words.
    pub fn hit_mask<Q: BlockQuery<C>>(&self, query: &Q, mask: &mut [u64]) {
        let mask = crate::query::mask_words(self.blocked.len(), mask);
        let _ = self.walk(query, walk::MaskWords(mask));
    }
}

/// The looseness bookkeeping: the size `set` keeps up to date equals the sum taken afresh, on
/// every kind of level (boxes and the three kinds of hulls), after random moves that widen
/// blocks, including the outsized ones' (which it leaves out); and `update` on every kind.
#[cfg(test)]
mod tests {
    use super::{Blockable, Blocked};
    use crate::primitive::{Aabb, Octahedron, Sphere};
    use crate::soa::{Aabbs, DownTets, Octahedra, Spheres, UpTets};
    use crate::test_rng::XorShift64;

    /// The positions are made on demand and left out of `Debug`, so two equal containers print
    /// alike (the blocked fuzz target compares containers by their `Debug`: a `set_many` of no
    /// moves had made the positions of one twin only, and the two printed differently).
    #[test]
    fn debug_does_not_depend_on_whether_the_positions_were_made() {
        let boxes: Vec<Aabb> = (0..40)
            .map(|i| Aabb::new([i as f32; 3], [i as f32 + 1.0; 3]))
            .collect();
        let fresh = Blocked::<Aabbs>::from_slice(&boxes).unwrap();
        let mut used = fresh.clone();
        used.set_many(&[]).unwrap();
        assert_eq!(used.get(3), Some(boxes[3]));
        assert!(used.position.get().is_some() && fresh.position.get().is_none());
        assert_eq!(format!("{used:?}"), format!("{fresh:?}"));
    }

    /// A box of side `0.5..1.5` at `0..100` per axis from `rng`.
    fn random_box(rng: &mut XorShift64) -> Aabb {
        let c = [0; 3].map(|_| rng.unit_f32() * 100.0);
        let h = 0.25 + 0.5 * rng.unit_f32();
        Aabb::new(c.map(|v| v - h), c.map(|v| v + h))
    }

    /// Builds from `make` of 3,000 random boxes (every 97th one 5,000 wider: outsized), moves
    /// a third of them with `set`, and checks the kept size against a fresh sum after each.
    fn check<C: Blockable>(make: impl Fn(Aabb) -> C::Primitive)
    where
        C::Primitive: Copy + PartialEq + core::fmt::Debug,
    {
        let mut rng = XorShift64(0x9e37_79b9_7f4a_7c15);
        let items: Vec<C::Primitive> = (0..3000)
            .map(|i| {
                let b = random_box(&mut rng);
                make(if i % 97 == 0 {
                    // Centred among the others (centres far out would stretch the curve's grid).
                    Aabb::new(b.min.map(|v| v - 2500.0), b.max.map(|v| v + 2500.0))
                } else {
                    b
                })
            })
            .collect();
        let mut blocked = Blocked::<C>::from_slice(&items).expect("valid");
        assert!(blocked.outsized() > 0);
        assert!((blocked.looseness() - 1.0).abs() < 1e-12);
        for k in 0..1000 {
            let i = (k * 7919) % items.len();
            let item = make(random_box(&mut rng));
            blocked.set(i, item).expect("valid");
            let fresh = blocked.blocks_size();
            assert!(
                (blocked.size - fresh).abs() <= 1e-9 * fresh,
                "move {k}: kept {} fresh {fresh}",
                blocked.size
            );
        }
        assert!(blocked.looseness() > 1.5, "{}", blocked.looseness());
        blocked.refit();
        assert_eq!(blocked.size, blocked.blocks_size());
        blocked.rebuild();
        assert_eq!(blocked.looseness(), 1.0);
        // `update`: every primitive replaced, the order kept, the bounds refit.
        let moved: Vec<C::Primitive> = (0..items.len())
            .map(|_| make(random_box(&mut rng)))
            .collect();
        let order = blocked.order().to_vec();
        blocked
            .update(&C::from_items(&moved).expect("valid"))
            .expect("same length");
        assert_eq!(blocked.order(), order);
        for (i, item) in moved.iter().enumerate() {
            assert_eq!(blocked.get(i), Some(*item));
        }
        assert_eq!(blocked.size, blocked.blocks_size());
    }

    #[test]
    fn kept_size_equals_a_fresh_sum_on_every_level_kind() {
        check::<Aabbs>(|b| b);
        check::<Spheres>(|b| {
            Sphere::new(
                core::array::from_fn(|a| 0.5 * (b.min[a] + b.max[a])),
                0.5 * (b.max[0] - b.min[0]),
            )
        });
        check::<UpTets>(|b| Octahedron::from_aabb(&b).up);
        check::<DownTets>(|b| Octahedron::from_aabb(&b).down);
        check::<Octahedra>(|b| Octahedron::from_aabb(&b));
    }
}
