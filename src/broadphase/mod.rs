//! Broadphase: every overlapping pair among N boxes (complete), or between two sets (bipartite),
//! by sort-and-sweep with SIMD inner loops.
//!
//! Boxes are closed: two boxes overlap iff `a.min[k] <= b.max[k]` and `b.min[k] <= a.max[k]` on
//! every axis (touching faces, edges and corners count; a zero-size box is a point).
//!
//! # Method
//! The boxes are sorted by their min along the sweep axis with a radix sort on the float bits
//! (stable, so ties keep index order) and copied into sorted SoA chunks. The sweep takes each box
//! in that order and scans the boxes after it while their min is at most its max, testing the
//! other two intervals of `V::N` boxes per instruction (16 on AVX-512, 8 on AVX2, 4 on SSE, 1 on
//! the scalar tier) and emitting only the set bits of each block's mask. The whole sweep runs
//! inside one `#[target_feature]` call per task. Every overlapping pair is found once, when its
//! first box (in sorted order) is swept: the other box comes later, with a min at most the
//! first's max.
//! Spheres and octahedra share the sweep with their own exact tests ([`Sweepable`]). See
//! `docs/algorithms.md`, "Broadphase".
//!
//! A bipartite call whose smaller set has at most 128 elements skips the sort: the small set runs
//! as one batch of queries over the large one (the same exact test, so the same pairs; see
//! `count_hits_many` and `hits_many` on the containers), and the pairs are then sorted into the
//! sweep's order below. One box against 100,000 took 0.24 ms this way against 2.2-2.6 ms swept.
//!
//! # Partition
//! A complete sweep along x tests every later box whose x interval meets the box's, about 3,000
//! candidates per box for 0.4 % hits on Terdiman's 100,000 boxes. [`Partition::Auto`] (the
//! default) first lists the boxes in a grid of cells over the other two axes (each box in every
//! cell its extent meets; from 512 boxes on, as many cells as an estimate of the sweep's work
//! says, about the cube root of the count per axis on an even spread with few pairs) and sweeps each box through
//! its own cells only: 4 x 4 cells cut the candidates 11x there for 1.2 listings per box. A pair listed together in several cells is reported from one: the cell holding the min
//! corner of the two boxes' overlap across those axes. The pairs and their order are exactly
//! those of the unpartitioned sweep ([`Partition::None`]): the boxes are still taken in global
//! sweep order, and a box's hits from several cells are sorted by sweep position. Terdiman's
//! 100,000 boxes, one thread, AVX-512: 93 ms unpartitioned (the sweep before this partition)
//! against 18-20 ms. A bipartite call with a partition (not [`Partition::None`]), unfiltered
//! sets of sides of comparable size (at most 4:1), 512 elements or more together and more than
//! 128 on the small side runs as the partitioned sweep of the two sets' union, whose collision
//! filters let only the pairs across through (same pairs, same order).
//! [`Sweep::candidate_tests`] counts what a sweep tests.
//!
//! # Collision filters
//! [`Filtered`] pairs a set with a [`CollisionFilter`] `(group, mask)` per element; every method
//! takes it in place of the set and reports a pair only if its elements overlap and
//! `group_a & mask_b != 0 && group_b & mask_a != 0`. The filters ride in the sweep's rows as two
//! more columns and are tested in the SIMD loop beside the overlap (the pairs and their order are
//! the unfiltered ones less the rejected pairs). [`SweepAndPrune::update`] takes a
//! `Filtered` set too (an element whose filter changed counts as moved).
//!
//! # Axis
//! [`SweepAxis::Auto`] (the default) sweeps along x unless another axis is clearly better for the
//! data: the one with the smallest ratio of mean extent to the spread of centres (over at most
//! 1,024 elements sampled evenly), if it beats x's by a factor 1.5 (a scene long in z and
//! crowded in x sweeps along z). [`Sweep::axis_for`] tells
//! which axis a set gets; [`Sweep::with_axis`] fixes it.
//!
//! # Order
//! Pairs come in sweep order: grouped by the pair's first box in ascending (min along the sweep
//! axis, index) order, and within a group by the second box in the same order (`-0.0` and `+0.0`
//! are equal mins). A complete pair is `(i, j)` with `i < j`; a bipartite pair is
//! `(index in a, index in b)`, its first box being the one earlier in the merged order of the two
//! sets (by min; on equal mins, `b`'s box first). The order, like the set, is the same on every
//! backend and for every thread count; it depends on the data only through the sweep axis.
//!
//! ```
//! use bvlanes::broadphase::{self, Sweep};
//! use bvlanes::{Aabb, Aabbs, Backend};
//! let boxes = Aabbs::from_slice(&[
//!     Aabb::new([0.0; 3], [1.0; 3]),
//!     Aabb::new([1.0, 0.0, 0.0], [2.0, 1.0, 1.0]), // touches box 0
//!     Aabb::new([5.0; 3], [6.0; 3]),
//!     Aabb::new([0.5; 3], [0.5; 3]), // a point inside box 0
//! ])?;
//! assert_eq!(broadphase::complete_pairs(&boxes), [(0, 3), (0, 1)]);
//! let scalar = Sweep::new().with_backend(Backend::Scalar)?.with_threads(1);
//! assert_eq!(scalar.complete_pairs(&boxes), [(0, 3), (0, 1)]);
//! # Ok::<(), bvlanes::BvError>(())
//! ```

mod filter;
mod grid;
mod persistent;
mod sorted;
mod sweep;

pub use filter::{CollisionFilter, Filtered};
pub use persistent::{Frame, SweepAndPrune, Tracked};

use crate::error::BvError;
use crate::lanes::Backend;
use crate::lanes::dispatch;
use crate::soa::{Aabbs, Octahedra, Spheres};
use crate::tasks::{default_threads, run_tasks_into};
use core::convert::Infallible;
use core::ops::ControlFlow;
use grid::{Cells, CompleteCells, Each};
use sorted::SortedBoxes;
use sweep::{Bipartite, merged_splits};

/// What the broadphase sweeps: [`Aabbs`] (closed boxes: touching counts), [`Spheres`] (the
/// crate's exact sphere-sphere test, `|c_a - c_b|^2 <= (r_a + r_b)^2` in f32, the test of
/// `Spheres::hits(&sphere)`) and [`Octahedra`] (the crate's exact octahedron test, that of
/// `Octahedra::hits(&octahedron)`). Spheres and octahedra are swept on x extents that cover what
/// their tests accept, so the pairs are exactly those the tests accept. Sealed.
pub trait Sweepable: sealed::Sealed {}

impl Sweepable for Aabbs {}
impl Sweepable for Spheres {}
impl Sweepable for Octahedra {}

mod sealed {
    use super::sorted::{self, AxisStats, Row, Shape, SortedBoxes};
    use crate::lanes::Backend;
    use crate::query::{HitLists, Pinned, Query};
    use crate::soa::Container;

    /// Seals [`Sweepable`](super::Sweepable): how a set is sorted for the sweep.
    pub trait Sealed {
        /// The shape of the set's sweep rows, and the rows along `axis` (0, 1, 2: x, y, z),
        /// made on `threads` threads (0: the default count).
        fn rows(&self, axis: usize, threads: usize) -> (Shape, Vec<Row>);
        /// Whether the rows end in a collision filter ([`Filtered`](super::Filtered)).
        fn filtered(&self) -> bool {
            false
        }
        /// Whether the pair of element `i` of `self` and element `j` of `other` may be reported
        /// (their collision filters accept each other; always without filters).
        fn pair_allowed(&self, _i: u32, _other: &Self, _j: u32) -> bool {
            true
        }
        /// The set sorted by the min of its sweep rows along `axis`.
        fn sorted(&self, axis: usize) -> SortedBoxes {
            let (shape, rows) = self.rows(axis, 1);
            SortedBoxes::sort(shape, self.filtered(), &rows)
        }
        /// Extents and centres per axis, for choosing the axis.
        fn stats(&self) -> AxisStats;
        /// Number of elements.
        fn count(&self) -> usize;
        /// The hits of every element of `queries` as a query against `self` (the crate's exact
        /// test of the pair, the sweep's own), one batch on `backend` over `threads` threads.
        fn batch_hits(&self, queries: &Self, backend: Backend, threads: usize, out: &mut HitLists);
        /// Column 0 of element `i`'s sweep row along `axis`: the min the sweep sorts by.
        fn row_min(&self, i: usize, axis: usize) -> f32;
    }

    /// `batch_hits` of a container whose primitives are its own queries.
    fn batch<C: Container>(
        c: &C,
        items: &[C::Primitive],
        backend: Backend,
        threads: usize,
        out: &mut HitLists,
    ) where
        C::Primitive: Query<C>,
    {
        let pinned = Pinned::new(c, backend).expect("the sweep's backend was checked");
        pinned.with_threads(threads).hits_many_into(items, out);
    }

    impl Sealed for crate::soa::Aabbs {
        fn rows(&self, axis: usize, threads: usize) -> (Shape, Vec<Row>) {
            (Shape::Boxes, sorted::box_rows(self, axis, threads))
        }
        fn stats(&self) -> AxisStats {
            sorted::box_stats(self)
        }
        fn count(&self) -> usize {
            self.len()
        }
        fn batch_hits(&self, queries: &Self, backend: Backend, threads: usize, out: &mut HitLists) {
            let items: Vec<_> = queries.iter().collect();
            batch(self, &items, backend, threads, out);
        }
        fn row_min(&self, i: usize, axis: usize) -> f32 {
            // `box_rows`: column 0 is the box's min along the axis.
            self.view().lane(axis, i)
        }
    }

    impl Sealed for crate::soa::Spheres {
        fn rows(&self, axis: usize, threads: usize) -> (Shape, Vec<Row>) {
            (Shape::Spheres, sorted::sphere_rows(self, axis, threads))
        }
        fn stats(&self) -> AxisStats {
            sorted::sphere_stats(self)
        }
        fn count(&self) -> usize {
            self.len()
        }
        fn batch_hits(&self, queries: &Self, backend: Backend, threads: usize, out: &mut HitLists) {
            let items: Vec<_> = queries.iter().collect();
            batch(self, &items, backend, threads, out);
        }
        fn row_min(&self, i: usize, axis: usize) -> f32 {
            let view = self.view();
            sorted::sphere_row([0, 1, 2, 3].map(|k| view.lane(k, i)), axis)[0]
        }
    }

    impl Sealed for crate::soa::Octahedra {
        fn rows(&self, axis: usize, threads: usize) -> (Shape, Vec<Row>) {
            (
                Shape::Octahedra,
                sorted::octahedron_rows(self, axis, threads),
            )
        }
        fn stats(&self) -> AxisStats {
            sorted::octahedron_stats(self)
        }
        fn count(&self) -> usize {
            self.len()
        }
        fn batch_hits(&self, queries: &Self, backend: Backend, threads: usize, out: &mut HitLists) {
            let items: Vec<_> = queries.iter().collect();
            batch(self, &items, backend, threads, out);
        }
        fn row_min(&self, i: usize, axis: usize) -> f32 {
            let view = self.view();
            sorted::octahedron_row(core::array::from_fn(|k| view.lane(k, i)), axis)[0]
        }
    }
}

/// The axis a sweep sorts and scans along.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SweepAxis {
    /// Along x.
    X,
    /// Along y.
    Y,
    /// Along z.
    Z,
    /// Chosen per call from the data (the default): the axis with the smallest ratio of mean
    /// extent to the standard deviation of centres (fewest elements per extent, so fewest
    /// candidates per scan), but x unless that ratio beats x's by a factor 1.5 (so nearly
    /// isotropic data keeps the x order). Ties go to the earlier axis. Past 1,024 elements
    /// the means are estimated from 1,024 of them or fewer, spread evenly over the set (every
    /// `ceil(n / 1024)`-th from the first): fixed by the data, so the axis is still the same on
    /// every backend and thread count.
    #[default]
    Auto,
}

impl SweepAxis {
    /// The index (0, 1, 2) of a fixed axis.
    fn index(self) -> Option<usize> {
        match self {
            SweepAxis::X => Some(0),
            SweepAxis::Y => Some(1),
            SweepAxis::Z => Some(2),
            SweepAxis::Auto => None,
        }
    }

    /// The fixed axis of index `a`.
    fn of(a: usize) -> SweepAxis {
        [SweepAxis::X, SweepAxis::Y, SweepAxis::Z][a]
    }
}

/// The automatic axis for `stats` summed over `n` elements (see [`SweepAxis::Auto`]).
fn choose_axis(stats: &sorted::AxisStats, n: usize) -> usize {
    if n < 2 {
        return 0;
    }
    let n = n as f64;
    let ratio = |a: usize| {
        let [w, c, c2] = stats[a];
        let var = (c2 / n - (c / n) * (c / n)).max(0.0);
        let sd = var.sqrt();
        if sd > 0.0 {
            (w / n) / sd
        } else {
            f64::INFINITY
        }
    };
    let r = [ratio(0), ratio(1), ratio(2)];
    let best = (1..3).fold(0, |b, a| if r[a] < r[b] { a } else { b });
    if best != 0 && r[best] * 1.5 < r[0] {
        best
    } else {
        0
    }
}

/// How a complete sweep partitions the plane of the two axes other than the sweep axis (see the
/// [module docs](self), "Partition"). The pairs and their order do not depend on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Partition {
    /// Chosen per call from the data (the default): a grid over the middle of the centres'
    /// spread with the cells that an estimate of the sweep's work (candidate tests and listings,
    /// from the elements' mean extents and spread) finds cheapest, at most 64 per axis and at
    /// least 256 elements per cell on average (one cell below 512 elements).
    #[default]
    Auto,
    /// No partition: one sweep over every element.
    None,
    /// A grid of `[a, b]` cells (each clamped to `1..=64`) along the two other axes in order
    /// (sweeping x: y then z), over the middle of the centres' spread as [`Partition::Auto`].
    Grid([u16; 2]),
}

/// A sweep configuration: the backend its inner loops run on and the number of threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sweep {
    backend: Backend,
    threads: usize,
    axis: SweepAxis,
    partition: Partition,
}

impl Default for Sweep {
    fn default() -> Sweep {
        Sweep::new()
    }
}

/// Splitting a sweep pays from this many boxes per task.
const MIN_BOXES_PER_TASK: usize = 2048;

/// Tasks per thread (a thread that starts late leaves its share to the others).
const TASKS_PER_THREAD: usize = 4;

impl Sweep {
    /// The detected backend ([`Backend::detect`]) and every thread of rayon's current pool
    /// (one without the `rayon` feature).
    #[must_use]
    pub fn new() -> Sweep {
        Sweep {
            backend: Backend::detect(),
            threads: default_threads(),
            axis: SweepAxis::Auto,
            partition: Partition::Auto,
        }
    }

    /// The same sweep on `backend` (the pairs do not change).
    ///
    /// # Errors
    /// [`BvError::BackendUnavailable`] if this CPU lacks it.
    pub fn with_backend(self, backend: Backend) -> Result<Sweep, BvError> {
        Ok(Sweep {
            backend: backend.check()?,
            ..self
        })
    }

    /// The same sweep split over `threads` threads (`0` or `1`: the calling thread only). The
    /// sorted boxes are cut into consecutive stretches (four per thread, at least 2,048 boxes
    /// each), each swept as a task on the rayon pool the call is made from, and the tasks' pairs
    /// are joined in order: the output does not depend on the count.
    #[must_use]
    pub fn with_threads(self, threads: usize) -> Sweep {
        Sweep {
            threads: threads.max(1),
            ..self
        }
    }

    /// The same sweep along `axis` ([`SweepAxis::Auto`] by default). The pairs do not change;
    /// their order follows the axis (see the [module docs](self)).
    #[must_use]
    pub fn with_axis(self, axis: SweepAxis) -> Sweep {
        Sweep { axis, ..self }
    }

    /// The same sweep with the complete sweep's partition `partition` ([`Partition::Auto`] by
    /// default). The pairs and their order do not change.
    #[must_use]
    pub fn with_partition(self, partition: Partition) -> Sweep {
        Sweep { partition, ..self }
    }

    /// The partition the complete sweep uses.
    #[must_use]
    pub fn partition(&self) -> Partition {
        self.partition
    }

    /// The axis this sweep uses for `set` (for [`SweepAxis::Auto`], the one chosen from the data;
    /// never `Auto`).
    #[must_use]
    pub fn axis_for<C: Sweepable>(&self, set: &C) -> SweepAxis {
        SweepAxis::of(self.axis_index(&[set]))
    }

    /// The axis index for the union of `sets`.
    fn axis_index<C: Sweepable>(&self, sets: &[&C]) -> usize {
        self.axis_and_stats(sets).0
    }

    /// The axis index for the union of `sets`, and, where choosing it took them (an automatic
    /// axis), the sets' statistics along the two other axes (for the partition's grid).
    fn axis_and_stats<C: Sweepable>(&self, sets: &[&C]) -> (usize, Option<grid::GridStats>) {
        if let Some(axis) = self.axis.index() {
            return (axis, None);
        }
        let mut stats = [[0.0; 3]; 3];
        let mut n = 0;
        for set in sets {
            let s = set.stats();
            for (a, row) in stats.iter_mut().enumerate() {
                for (k, v) in row.iter_mut().enumerate() {
                    *v += s[a][k];
                }
            }
            n += set.count();
        }
        let axis = choose_axis(&stats, n);
        let [b, c] = sorted::others(axis);
        (axis, Some([stats[axis], stats[b], stats[c]]))
    }

    /// The backend the inner loops run on.
    #[must_use]
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The most threads a sweep is split over.
    #[must_use]
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Every overlapping pair `(i, j)`, `i < j`, of `boxes`, once, in sweep order (see the
    /// [module docs](self)).
    #[must_use]
    pub fn complete_pairs<C: Sweepable>(&self, boxes: &C) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        self.complete_into(&self.cells(boxes), &mut out);
        shrink_if_loose(&mut out);
        out
    }

    /// [`complete_pairs`](Self::complete_pairs) into `out` (cleared first), reusing its
    /// capacity: in a loop that sweeps every frame into the same vector, the pairs need no new
    /// memory once it has grown to their count. (The sweep's own working memory, the sorted rows
    /// and the cell lists, is still allocated anew by every call.)
    ///
    /// ```
    /// use bvlanes::broadphase::Sweep;
    /// use bvlanes::{Aabb, Aabbs};
    /// let sweep = Sweep::new();
    /// let mut pairs = Vec::new();
    /// for frame in 0..3 {
    ///     let d = frame as f32;
    ///     let boxes = Aabbs::from_slice(&[
    ///         Aabb::new([0.0; 3], [1.0; 3]),
    ///         Aabb::new([d, 0.0, 0.0], [d + 1.0, 1.0, 1.0]),
    ///     ])?;
    ///     sweep.complete_pairs_into(&boxes, &mut pairs);
    ///     assert_eq!(pairs.len(), if frame < 2 { 1 } else { 0 });
    /// }
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    pub fn complete_pairs_into<C: Sweepable>(&self, boxes: &C, out: &mut Vec<(u32, u32)>) {
        out.clear();
        self.complete_into(&self.cells(boxes), out);
    }

    /// Calls `f(i, j)` for every overlapping pair, as [`complete_pairs`](Self::complete_pairs)
    /// lists them (same pairs, same order).
    pub fn for_each_complete_pair<C: Sweepable>(&self, boxes: &C, mut f: impl FnMut(u32, u32)) {
        let flow = self.try_for_each_complete_pair(boxes, |i, j| {
            f(i, j);
            ControlFlow::<Infallible>::Continue(())
        });
        debug_assert!(flow.is_continue());
    }

    /// Calls `f(i, j)` for every overlapping pair, as [`complete_pairs`](Self::complete_pairs)
    /// lists them, until `f` returns [`ControlFlow::Break`], and returns what it broke with.
    ///
    /// On one thread the sweep itself stops there (having scanned at most a batch of about two
    /// thousand hits ahead, whose pairs are not reported). Split over several threads
    /// ([`with_threads`](Self::with_threads)), its tasks run to their ends in parallel first and
    /// only the calls stop.
    ///
    /// ```
    /// use bvlanes::broadphase::Sweep;
    /// use bvlanes::{Aabb, Aabbs};
    /// use core::ops::ControlFlow;
    /// let boxes = Aabbs::from_slice(&[Aabb::new([0.0; 3], [1.0; 3]); 4])?; // six pairs
    /// let mut seen = 0;
    /// let first = Sweep::new().try_for_each_complete_pair(&boxes, |i, j| {
    ///     seen += 1;
    ///     ControlFlow::Break((i, j))
    /// });
    /// assert_eq!((first, seen), (ControlFlow::Break((0, 1)), 1));
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    pub fn try_for_each_complete_pair<C: Sweepable, B>(
        &self,
        boxes: &C,
        f: impl FnMut(u32, u32) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        self.try_cells(&self.cells(boxes), f)
    }

    /// The complete sweep of `cells` calling `f` in sweep order until it breaks (on one thread
    /// the sweep stops there; on several, the tasks' lists are fed to `f`).
    fn try_cells<B>(
        &self,
        cells: &Cells,
        f: impl FnMut(u32, u32) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        if self.tasks(cells.len()) > 1 {
            let mut pairs = Vec::new();
            self.complete_into(cells, &mut pairs);
            return feed(pairs, f);
        }
        let mut until = Until::new(f);
        self.sweep_all(cells, Each(|i, j| until.pair(i, j)));
        until.flow()
    }

    /// The complete sweep of all of `cells` on the calling thread, into `sink`.
    fn sweep_all(&self, cells: &Cells, sink: impl grid::PairSink) {
        let mut job = CompleteCells {
            cells,
            range: 0..cells.len(),
            cursor: cells.cursors(&[0]).pop().expect("one cursor set"),
            sink,
        };
        dispatch(self.backend, &mut job);
    }

    /// [`complete_pairs`](Self::complete_pairs) with bounded output: at most `max_pairs` pairs,
    /// else an error, never an abort. The sweep runs on the calling thread and stops at the
    /// first pair past the limit (within its batch of hits); the output grows with fallible
    /// allocations.
    ///
    /// # Errors
    /// [`BvError::TooManyPairs`] if there are more than `max_pairs` pairs;
    /// [`BvError::AllocationFailed`] if the allocator cannot hold the pairs.
    ///
    /// ```
    /// use bvlanes::broadphase::Sweep;
    /// use bvlanes::{Aabb, Aabbs, BvError};
    /// let boxes = Aabbs::from_slice(&[Aabb::new([0.0; 3], [1.0; 3]); 4])?; // six pairs
    /// let sweep = Sweep::new();
    /// assert_eq!(sweep.try_complete_pairs(&boxes, 6)?.len(), 6);
    /// assert_eq!(sweep.try_complete_pairs(&boxes, 5), Err(BvError::TooManyPairs { limit: 5 }));
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    pub fn try_complete_pairs<C: Sweepable>(
        &self,
        boxes: &C,
        max_pairs: usize,
    ) -> Result<Vec<(u32, u32)>, BvError> {
        let mut out: Vec<(u32, u32)> = Vec::new();
        let flow = self
            .with_threads(1)
            .try_for_each_complete_pair(boxes, |i, j| {
                if out.len() == max_pairs {
                    return ControlFlow::Break(BvError::TooManyPairs { limit: max_pairs });
                }
                if out.len() == out.capacity() {
                    let more = out.len().max(1024).min(max_pairs - out.len());
                    if out.try_reserve(more).is_err() {
                        return ControlFlow::Break(BvError::AllocationFailed);
                    }
                }
                out.push((i, j));
                ControlFlow::Continue(())
            });
        match flow {
            ControlFlow::Continue(()) => Ok(out),
            ControlFlow::Break(e) => Err(e),
        }
    }

    /// The candidate tests a complete sweep of `set` makes: for each element, in each cell of
    /// the partition it is listed in, the later elements of the cell whose min along the sweep
    /// axis is at most its max (each tested on the other axes; the SIMD loop takes them 4, 8 or
    /// 16 at a time). What the partition saves: with [`Partition::None`] this is every later
    /// element whose interval along the sweep axis meets the element's. Sorts and lists `set` as
    /// the sweep does, then counts by binary search (no pair is tested).
    ///
    /// ```
    /// use bvlanes::broadphase::{Partition, Sweep, SweepAxis};
    /// use bvlanes::{Aabb, Aabbs};
    /// // Four boxes in a row along x, each meeting the next on x; the last two far off in y.
    /// let boxes = Aabbs::from_slice(&[
    ///     Aabb::new([0.0, 0.0, 0.0], [1.0; 3]),
    ///     Aabb::new([1.0, 0.0, 0.0], [2.0, 1.0, 1.0]),
    ///     Aabb::new([2.0, 50.0, 0.0], [3.0, 51.0, 1.0]),
    ///     Aabb::new([3.0, 50.0, 0.0], [4.0, 51.0, 1.0]),
    /// ])?;
    /// let along_x = Sweep::new().with_axis(SweepAxis::X);
    /// let one_axis = along_x.with_partition(Partition::None);
    /// assert_eq!(one_axis.candidate_tests(&boxes), 3); // 0-1, 1-2, 2-3
    /// let two_cells = along_x.with_partition(Partition::Grid([2, 1])); // split in y
    /// assert_eq!(two_cells.candidate_tests(&boxes), 2); // 0-1, 2-3
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    #[must_use]
    pub fn candidate_tests<C: Sweepable>(&self, set: &C) -> u64 {
        self.cells(set).candidate_tests()
    }

    /// Every overlapping pair `(i, j)` of box `i` of `a` and box `j` of `b`, once, in sweep
    /// order (see the [module docs](self)).
    #[must_use]
    pub fn bipartite_pairs<C: Sweepable>(&self, a: &C, b: &C) -> Vec<(u32, u32)> {
        let (axis, stats) = self.axis_and_stats(&[a, b]);
        if self.batches(a, b) {
            return self.bipartite_batch(a, b, axis);
        }
        let mut out = Vec::new();
        if self.unites(a, b) {
            let nb = b.count() as u32;
            self.complete_into(&self.union_cells(a, b, axis, stats), &mut out);
            for pair in &mut out {
                // A cross pair of the union is (b's, a's): `i < nb <= j`.
                *pair = (pair.1 - nb, pair.0);
            }
            shrink_if_loose(&mut out);
            return out;
        }
        self.bipartite_sweep(a, b, axis, &mut out);
        out
    }

    /// Calls `f(i, j)` for every overlapping pair, as [`bipartite_pairs`](Self::bipartite_pairs)
    /// lists them (same pairs, same order).
    pub fn for_each_bipartite_pair<C: Sweepable>(&self, a: &C, b: &C, mut f: impl FnMut(u32, u32)) {
        let flow = self.try_for_each_bipartite_pair(a, b, |i, j| {
            f(i, j);
            ControlFlow::<Infallible>::Continue(())
        });
        debug_assert!(flow.is_continue());
    }

    /// Calls `f(i, j)` for every overlapping pair, as [`bipartite_pairs`](Self::bipartite_pairs)
    /// lists them, until `f` returns [`ControlFlow::Break`], and returns what it broke with. On
    /// one thread a sweep stops there (a call with a small side, answered as one batch, finds
    /// its pairs first); see [`try_for_each_complete_pair`](Self::try_for_each_complete_pair).
    pub fn try_for_each_bipartite_pair<C: Sweepable, B>(
        &self,
        a: &C,
        b: &C,
        mut f: impl FnMut(u32, u32) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        let (axis, stats) = self.axis_and_stats(&[a, b]);
        if self.batches(a, b) {
            return feed(self.bipartite_batch(a, b, axis), f);
        }
        if self.unites(a, b) {
            let nb = b.count() as u32;
            // A cross pair of the union is (b's, a's): `i < nb <= j`.
            let cells = self.union_cells(a, b, axis, stats);
            return self.try_cells(&cells, |i, j| f(j - nb, i));
        }
        let (sa, sb) = (a.sorted(axis), b.sorted(axis));
        let tasks = self.tasks(sa.len + sb.len);
        if tasks > 1 {
            let mut pairs = Vec::new();
            self.bipartite_into(&sa, &sb, tasks, &mut pairs);
            return feed(pairs, f);
        }
        let mut until = Until::new(f);
        let mut job = Bipartite {
            a: &sa,
            b: &sb,
            a_range: 0..sa.len,
            b_range: 0..sb.len,
            pair: |i, j| until.pair(i, j),
        };
        dispatch(self.backend, &mut job);
        until.flow()
    }

    /// Tasks for `len` boxes.
    fn tasks(&self, len: usize) -> usize {
        match self.threads {
            1 => 1,
            t => t
                .saturating_mul(TASKS_PER_THREAD)
                .min(len / MIN_BOXES_PER_TASK)
                .max(1),
        }
    }

    /// The grid size this sweep's partition pins (`None`: the automatic choice).
    fn grid_dims(&self) -> Option<[usize; 2]> {
        match self.partition {
            Partition::None => Some([1, 1]),
            Partition::Auto => None,
            Partition::Grid(d) => Some(d.map(usize::from)),
        }
    }

    /// `set` sorted for the sweep and listed by the cells of this sweep's partition.
    fn cells<C: Sweepable>(&self, set: &C) -> Cells {
        let (axis, stats) = self.axis_and_stats(&[set]);
        let (shape, rows) = set.rows(axis, self.threads);
        let dims = self.grid_dims();
        Cells::build(
            shape,
            set.filtered(),
            axis,
            &rows,
            || sorted::sweep_order(&rows),
            (dims, stats, self.backend.lanes()),
            self.threads,
        )
    }

    /// The complete sweep of `cells`, its pairs appended to `out` in sweep order: on the calling
    /// thread, or split into consecutive stretches of the sorted positions swept as tasks (in
    /// parallel with `rayon`, [`run_tasks_into`]).
    fn complete_into(&self, cells: &Cells, out: &mut Vec<(u32, u32)>) {
        let tasks = self.tasks(cells.len());
        if tasks == 1 {
            self.sweep_all(cells, out);
            return;
        }
        let n = cells.len();
        let starts: Vec<usize> = (0..tasks).map(|t| n * t / tasks).collect();
        let items: Vec<(core::ops::Range<usize>, Vec<usize>)> = cells
            .cursors(&starts)
            .into_iter()
            .enumerate()
            .map(|(t, cursor)| (n * t / tasks..n * (t + 1) / tasks, cursor))
            .collect();
        run_tasks_into(&items, self.threads, out, |(range, cursor), list| {
            let mut job = CompleteCells {
                cells,
                range: range.clone(),
                cursor: cursor.clone(),
                sink: list,
            };
            dispatch(self.backend, &mut job);
        });
    }

    /// Whether a bipartite call runs as the partitioned complete sweep of the union of its sets,
    /// filtered to the pairs across them ([`union_cells`](Self::union_cells)): with a partition,
    /// unfiltered sets of at least [`UNION_MIN`] elements together, neither more than
    /// [`UNION_IMBALANCE`] times the other (the union's sweep also tests the pairs within each
    /// set, which the filters then reject: with a small set against a large one, the large set's
    /// own candidates would swamp the few across).
    fn unites<C: Sweepable>(&self, a: &C, b: &C) -> bool {
        let (small, large) = (a.count().min(b.count()), a.count().max(b.count()));
        self.partition != Partition::None
            && !a.filtered()
            && small + large >= UNION_MIN
            && small.saturating_mul(UNION_IMBALANCE) >= large
    }

    /// The union of `b` then `a` (element `u < b.count()` is `b`'s `u`, the others `a`'s
    /// `u - b.count()`) listed by cells, with collision filters that pass only pairs across the
    /// two sets. Its sweep order is the bipartite merge order: by min, then by union index, so on
    /// equal mins `b`'s first, and each set in its own index order.
    fn union_cells<C: Sweepable>(
        &self,
        a: &C,
        b: &C,
        axis: usize,
        stats: Option<grid::GridStats>,
    ) -> Cells {
        let (shape, mut rows) = b.rows(axis, self.threads);
        rows.extend(a.rows(axis, self.threads).1);
        let nb = b.count();
        for (u, row) in rows.iter_mut().enumerate() {
            let (group, mask) = if u < nb { (2, 1) } else { (1, 2) };
            sorted::put_filter(row, shape, group, mask);
        }
        let dims = (self.grid_dims(), stats, self.backend.lanes());
        let order = || sorted::sweep_order(&rows);
        Cells::build(shape, true, axis, &rows, order, dims, self.threads)
    }

    /// The bipartite sweep proper along `axis`, its pairs appended to `out`.
    fn bipartite_sweep<C: Sweepable>(&self, a: &C, b: &C, axis: usize, out: &mut Vec<(u32, u32)>) {
        let (a, b) = (a.sorted(axis), b.sorted(axis));
        self.bipartite_into(&a, &b, self.tasks(a.len + b.len), out);
    }

    /// Whether a bipartite call runs as one batch of the small side's elements over the large
    /// side: with at most [`BATCH_MAX_SMALL`] on the small side, and fewer than `2^32` possible
    /// pairs (the batch's hit lists count in `u32`).
    fn batches<C: Sweepable>(&self, a: &C, b: &C) -> bool {
        let (small, large) = (a.count().min(b.count()), a.count().max(b.count()));
        small <= BATCH_MAX_SMALL && small.saturating_mul(large) <= u32::MAX as usize
    }

    /// The bipartite sweep of sorted `a` and `b` in `tasks` stretches of their merged order (in
    /// parallel with `rayon`, [`run_tasks_into`]), its pairs appended to `out`.
    fn bipartite_into(
        &self,
        a: &SortedBoxes,
        b: &SortedBoxes,
        tasks: usize,
        out: &mut Vec<(u32, u32)>,
    ) {
        let stretches = merged_splits(a, b, tasks);
        run_tasks_into(&stretches, self.threads, out, |(a_range, b_range), list| {
            let mut batch = Bipartite {
                a,
                b,
                a_range: a_range.clone(),
                b_range: b_range.clone(),
                pair: |i, j| {
                    list.push((i, j));
                    true
                },
            };
            dispatch(self.backend, &mut batch);
        });
    }
}

/// Fewest elements of both sets of a bipartite call swept as their union (see `Sweep::unites`):
/// the automatic partition's own threshold.
const UNION_MIN: usize = 2 * grid::MIN_PER_CELL;

/// The most one set of a bipartite call swept as a union may outnumber the other. Measured
/// (`bipartite_pairs`, one thread, AVX-512, the first `na` boxes of a 100,000-box scene against
/// the next `nb`, the one-axis merge against the union's partitioned sweep): Terdiman 50,000 x
/// 50,000 28.2 against 17.0 ms, 80,000 x 20,000 18.3 against 14.4; uniform 12.5 against 8.3 and
/// 9.3 against 7.7.
const UNION_IMBALANCE: usize = 4;

/// A bipartite call whose smaller set has at most this many elements runs as one batch of them
/// as queries over the larger set, in place of sorting both. Measured (`bipartite_pairs`, one
/// thread, k boxes against 100,000 boxes of sides up to 2 in a 100^3 world, AVX-512, the sweep of
/// 269dbbf against this, alternating runs): k = 1 2.2-2.6 -> 0.24 ms, 16 2.2-2.5 -> 0.43 ms, 64
/// 2.2-2.6 -> 1.03-1.08 ms; at 256 the sweep's 2.4-2.9 ms beats the batch's 3.5 ms (the sweep sorts
/// the large set every call, about 2.2 ms of it; the batch costs a pass over it per query).
const BATCH_MAX_SMALL: usize = 128;

impl Sweep {
    /// The pairs of a bipartite call with a small side ([`BATCH_MAX_SMALL`]): the smaller set's
    /// elements as one batch of queries over the larger (the same exact test as the sweep's, so
    /// the same pairs; `batch_hits`), then sorted into the sweep's order: by the pair's first
    /// element, then its second, each keyed by (its sweep row's min along `axis` with `-0.0 ==
    /// 0.0`, `b` before `a`, index), the order of the sweep's merge.
    fn bipartite_batch<C: Sweepable>(&self, a: &C, b: &C, axis: usize) -> Vec<(u32, u32)> {
        let a_small = a.count() <= b.count();
        let (small, large) = if a_small { (a, b) } else { (b, a) };
        let mut lists = crate::query::HitLists::default();
        large.batch_hits(small, self.backend, self.threads, &mut lists);
        type Key = (u32, u8, u32);
        let key = |set: &C, side: u8, i: u32| -> Key {
            (sorted::order_key(set.row_min(i as usize, axis)), side, i)
        };
        // `a`'s elements sort after `b`'s on equal mins.
        let (small_side, large_side) = if a_small { (1, 0) } else { (0, 1) };
        let mut pairs: Vec<(Key, Key)> = Vec::with_capacity(lists.indices.len());
        for q in 0..lists.queries() {
            // The query's key once, not once per hit.
            let kq = key(small, small_side, q as u32);
            for &p in lists.query(q) {
                // Collision filters (if any): `a` first.
                let allowed = match a_small {
                    true => small.pair_allowed(q as u32, large, p),
                    false => large.pair_allowed(p, small, q as u32),
                };
                if !allowed {
                    continue;
                }
                let kp = key(large, large_side, p);
                pairs.push(if kq < kp { (kq, kp) } else { (kp, kq) });
            }
        }
        pairs.sort_unstable();
        pairs
            .into_iter()
            .map(|(first, second)| {
                if first.1 == 1 {
                    (first.2, second.2)
                } else {
                    (second.2, first.2)
                }
            })
            .collect()
    }
}

/// A `try_` callback `f` as the sweep jobs' pair callback (`true`: go on), keeping what `f`
/// broke with.
struct Until<B, F> {
    f: F,
    stop: Option<B>,
}

impl<B, F: FnMut(u32, u32) -> ControlFlow<B>> Until<B, F> {
    fn new(f: F) -> Self {
        Until { f, stop: None }
    }

    /// Calls `f(i, j)`; whether it went on.
    #[inline(always)]
    fn pair(&mut self, i: u32, j: u32) -> bool {
        match (self.f)(i, j) {
            ControlFlow::Continue(()) => true,
            ControlFlow::Break(b) => {
                self.stop = Some(b);
                false
            }
        }
    }

    /// What `f` broke with, if it did.
    fn flow(self) -> ControlFlow<B> {
        match self.stop {
            Some(b) => ControlFlow::Break(b),
            None => ControlFlow::Continue(()),
        }
    }
}

/// Gives back the capacity of a new pair vector more than twice as large as its pairs (the sweep
/// grows it by its predicted count, see `grid::PairSink`, which a rate that falls late can
/// leave loose; doubling alone leaves it at most twice as large).
fn shrink_if_loose(pairs: &mut Vec<(u32, u32)>) {
    if pairs.capacity() / 2 > pairs.len() {
        pairs.shrink_to_fit();
    }
}

/// Calls `f` on `pairs` in order until it breaks.
fn feed<B>(
    pairs: Vec<(u32, u32)>,
    mut f: impl FnMut(u32, u32) -> ControlFlow<B>,
) -> ControlFlow<B> {
    for (i, j) in pairs {
        f(i, j)?;
    }
    ControlFlow::Continue(())
}

/// Every overlapping pair `(i, j)`, `i < j`, of `boxes` (or spheres):
/// [`Sweep::new`]`.complete_pairs(boxes)`.
#[must_use]
pub fn complete_pairs<C: Sweepable>(boxes: &C) -> Vec<(u32, u32)> {
    Sweep::new().complete_pairs(boxes)
}

/// Every overlapping pair `(i in a, j in b)`: [`Sweep::new`]`.bipartite_pairs(a, b)`.
#[must_use]
pub fn bipartite_pairs<C: Sweepable>(a: &C, b: &C) -> Vec<(u32, u32)> {
    Sweep::new().bipartite_pairs(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitive::Aabb;
    use crate::test_rng::XorShift32;

    fn brute(boxes: &[Aabb]) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for i in 0..boxes.len() {
            for j in i + 1..boxes.len() {
                let (a, b) = (&boxes[i], &boxes[j]);
                if (0..3).all(|k| a.min[k] <= b.max[k] && b.min[k] <= a.max[k]) {
                    out.push((i as u32, j as u32));
                }
            }
        }
        out
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "minutes under Miri (the radix sort's 2,048 buckets per pass); tests/suite/unsafe_paths.rs sweeps under Miri"
    )]
    fn complete_and_bipartite_equal_the_brute_force_on_every_backend() {
        let mut rng = XorShift32(0x9e37_79b9);
        for n in [0usize, 1, 2, 3, 15, 16, 17, 33, 100, 700, 5000] {
            let boxes: Vec<Aabb> = (0..n)
                .map(|_| {
                    let c = [0; 3].map(|_| rng.below(4096) as f32 - 2048.0);
                    let h = [0; 3].map(|_| rng.below(128) as f32);
                    Aabb::new(
                        [0, 1, 2].map(|k| c[k] - h[k]),
                        [0, 1, 2].map(|k| c[k] + h[k]),
                    )
                })
                .collect();
            let set = Aabbs::from_slice(&boxes).unwrap();
            let want = brute(&boxes);
            let first = Sweep::new().with_threads(1).complete_pairs(&set);
            for &b in Backend::available() {
                for threads in [1, 2, 3] {
                    let s = Sweep::new().with_backend(b).unwrap().with_threads(threads);
                    let got = s.complete_pairs(&set);
                    assert_eq!(got, first, "n {n} {b:?} threads {threads}");
                    let mut sorted = got.clone();
                    sorted.sort_unstable();
                    assert_eq!(sorted, want, "n {n} {b:?} threads {threads}");
                    // Bipartite against a copy: every complete pair both ways, and (i, i).
                    let mut bi = s.bipartite_pairs(&set, &set);
                    bi.sort_unstable();
                    let mut bw: Vec<(u32, u32)> = want
                        .iter()
                        .flat_map(|&(i, j)| [(i, j), (j, i)])
                        .chain((0..n as u32).map(|i| (i, i)))
                        .collect();
                    bw.sort_unstable();
                    assert_eq!(bi, bw, "bipartite n {n} {b:?} threads {threads}");
                }
            }
        }
    }
}

#[cfg(test)]
mod sphere_tests {
    use super::*;
    use crate::primitive::Sphere;
    use crate::test_rng::XorShift32;

    /// The crate's own sphere-sphere query, pair by pair.
    fn brute(spheres: &Spheres) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for (i, s) in spheres.iter().enumerate() {
            for j in spheres.hits(&s) {
                if j as usize > i {
                    out.push((i as u32, j));
                }
            }
        }
        out
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "minutes under Miri (the radix sort's 2,048 buckets per pass); tests/suite/unsafe_paths.rs sweeps under Miri"
    )]
    fn sphere_pairs_are_exactly_the_sphere_tests() {
        let mut rng = XorShift32(0x51ed_270b);
        for scale in [1.0f32, 1e-30, 1e30, 5e36] {
            // At 1e-30 every square underflows and every pair overlaps: keep that case small.
            let big = if scale < 1e-20 {
                300
            } else if cfg!(debug_assertions) {
                900
            } else {
                2500
            };
            for n in [0usize, 1, 2, 17, 67, 300, big] {
                // Integer centres and radii: many spheres touch exactly (3-4-5 triangles,
                // neighbours at the sum of radii).
                let spheres: Vec<Sphere> = (0..n)
                    .map(|i| {
                        let c = [0; 3].map(|_| (rng.below(64) as f32 - 32.0) * scale);
                        let r = if i % 5 == 0 {
                            0.0
                        } else {
                            rng.below(6) as f32 * scale
                        };
                        let r = r.min(Sphere::MAX_RADIUS);
                        Sphere::new(c, r)
                    })
                    .collect();
                let set = Spheres::from_slice(&spheres).unwrap();
                let mut want = brute(&set);
                want.sort_unstable();
                let first = Sweep::new().with_threads(1).complete_pairs(&set);
                for &b in Backend::available() {
                    for threads in [1, 3] {
                        let s = Sweep::new().with_backend(b).unwrap().with_threads(threads);
                        let got = s.complete_pairs(&set);
                        assert_eq!(got, first, "scale {scale} n {n} {b:?} {threads}");
                        let mut sorted = got;
                        sorted.sort_unstable();
                        assert_eq!(sorted, want, "scale {scale} n {n} {b:?} {threads}");
                        let mut bi = s.bipartite_pairs(&set, &set);
                        bi.sort_unstable();
                        let mut bw: Vec<(u32, u32)> = want
                            .iter()
                            .flat_map(|&(i, j)| [(i, j), (j, i)])
                            .chain((0..n as u32).map(|i| (i, i)))
                            .collect();
                        bw.sort_unstable();
                        assert_eq!(bi, bw, "bipartite scale {scale} n {n} {b:?} {threads}");
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod octahedron_tests {
    use super::*;
    use crate::primitive::Octahedron;
    use crate::test_rng::XorShift32;

    #[test]
    #[cfg_attr(
        miri,
        ignore = "minutes under Miri (the radix sort's 2,048 buckets per pass); tests/suite/unsafe_paths.rs sweeps under Miri"
    )]
    fn octahedron_pairs_are_exactly_the_octahedron_tests() {
        let mut rng = XorShift32(0x0c7a_4ed5);
        for scale in [1.0f32, 1e-20, 1e20] {
            let big = if cfg!(debug_assertions) { 1000 } else { 4500 };
            for n in [0usize, 1, 2, 17, 67, 400, big] {
                // Octahedra around two or three integer points near a centre: exact touching is
                // common; the centres spread with the count, a few pairs per octahedron.
                let spread = if n > 400 { 96 } else { 24 };
                let list: Vec<Octahedron> = (0..n)
                    .map(|_| {
                        let c = [0; 3].map(|_| rng.below(spread) as i32 - (spread / 2) as i32);
                        let pts: Vec<[f32; 3]> = (0..2 + rng.below(2))
                            .map(|_| {
                                [0, 1, 2].map(|k| (c[k] + rng.below(7) as i32 - 3) as f32 * scale)
                            })
                            .collect();
                        Octahedron::from_points(pts).unwrap()
                    })
                    .collect();
                let set = Octahedra::from_slice(&list).unwrap();
                let mut want = Vec::new();
                for (i, o) in list.iter().enumerate() {
                    want.extend(
                        set.hits(o)
                            .filter(|&j| j as usize > i)
                            .map(|j| (i as u32, j)),
                    );
                }
                want.sort_unstable();
                let first = Sweep::new().with_threads(1).complete_pairs(&set);
                for &b in Backend::available() {
                    for threads in [1, 3] {
                        let s = Sweep::new().with_backend(b).unwrap().with_threads(threads);
                        let got = s.complete_pairs(&set);
                        assert_eq!(got, first, "scale {scale} n {n} {b:?} {threads}");
                        let mut sorted = got;
                        sorted.sort_unstable();
                        assert_eq!(sorted, want, "scale {scale} n {n} {b:?} {threads}");
                        let mut bi = s.bipartite_pairs(&set, &set);
                        bi.sort_unstable();
                        let mut bw: Vec<(u32, u32)> = want
                            .iter()
                            .flat_map(|&(i, j)| [(i, j), (j, i)])
                            .chain((0..n as u32).map(|i| (i, i)))
                            .collect();
                        bw.sort_unstable();
                        assert_eq!(bi, bw, "bipartite scale {scale} n {n} {b:?} {threads}");
                    }
                }
            }
        }
    }
}

/// A bipartite call with a small side runs as a batch (`bipartite_batch`): the same pairs in the
/// same order as the sweep, on every axis, backend and thread count, with ties in the mins
/// (integer coordinates, copies, `-0.0` against `0.0`) and either side the small one.
#[cfg(test)]
mod bipartite_batch_tests {
    use super::*;
    use crate::primitive::{Aabb, Octahedron, Sphere};
    use crate::test_rng::XorShift32;

    fn same_as_sweep<C: Sweepable>(small: &C, large: &C, what: &str) {
        for axis in 0..3 {
            for &bk in Backend::available() {
                for threads in [1, 2] {
                    let s = Sweep::new().with_backend(bk).unwrap().with_threads(threads);
                    for (a, b, side) in [(small, large, "a small"), (large, small, "b small")] {
                        let mut want = Vec::new();
                        s.bipartite_sweep(a, b, axis, &mut want);
                        let got = s.bipartite_batch(a, b, axis);
                        assert_eq!(got, want, "{what}, {side}: axis {axis} {bk:?} {threads}");
                    }
                }
            }
        }
    }

    /// A small integer coordinate, sometimes `-0.0`.
    fn coord(rng: &mut XorShift32) -> f32 {
        match rng.below(16) {
            0 => -0.0,
            _ => rng.below(9) as f32 - 4.0,
        }
    }

    fn boxes(rng: &mut XorShift32, n: usize) -> Aabbs {
        let mut v: Vec<Aabb> = Vec::new();
        for _ in 0..n {
            if !v.is_empty() && rng.next_u32().is_multiple_of(5) {
                v.push(v[rng.next_u32() as usize % v.len()]);
                continue;
            }
            let lo = [0; 3].map(|_| coord(rng));
            let hi = lo.map(|x| {
                if rng.next_u32().is_multiple_of(4) {
                    x
                } else {
                    x + rng.below(3) as f32
                }
            });
            v.push(Aabb::new(lo, hi));
        }
        Aabbs::from_slice(&v).unwrap()
    }

    fn spheres(rng: &mut XorShift32, n: usize) -> Spheres {
        let v: Vec<Sphere> = (0..n)
            .map(|_| Sphere::new([0; 3].map(|_| coord(rng)), rng.below(3) as f32))
            .collect();
        Spheres::from_slice(&v).unwrap()
    }

    fn octahedra(rng: &mut XorShift32, n: usize) -> Octahedra {
        let v: Vec<Octahedron> = (0..n)
            .map(|_| {
                let pts: Vec<[f32; 3]> = (0..1 + rng.below(3))
                    .map(|_| [0; 3].map(|_| coord(rng)))
                    .collect();
                Octahedron::from_points(pts).unwrap()
            })
            .collect();
        Octahedra::from_slice(&v).unwrap()
    }

    #[test]
    #[cfg_attr(miri, ignore = "the sweep's radix sort takes minutes under Miri")]
    fn batched_bipartite_pairs_come_in_sweep_order() {
        let mut rng = XorShift32(0x5eed_b1b1);
        for small in [0, 1, 5, 17, BATCH_MAX_SMALL] {
            let large = 300;
            let (a, b) = (boxes(&mut rng, small), boxes(&mut rng, large));
            same_as_sweep(&a, &b, &format!("boxes {small} x {large}"));
            let (a, b) = (spheres(&mut rng, small), spheres(&mut rng, large));
            same_as_sweep(&a, &b, &format!("spheres {small} x {large}"));
            let (a, b) = (octahedra(&mut rng, small), octahedra(&mut rng, large));
            same_as_sweep(&a, &b, &format!("octahedra {small} x {large}"));
        }
    }

    /// The public calls take the batch only up to the threshold, and answer as the sweep either
    /// side of it.
    #[test]
    #[cfg_attr(miri, ignore = "the sweep's radix sort takes minutes under Miri")]
    fn bipartite_pairs_either_side_of_the_threshold() {
        let mut rng = XorShift32(0x7e57_0001);
        let large = boxes(&mut rng, 500);
        for n in [BATCH_MAX_SMALL, BATCH_MAX_SMALL + 1] {
            let small = boxes(&mut rng, n);
            let s = Sweep::new().with_threads(1);
            let axis = s.axis_index(&[&small, &large]);
            let mut want = Vec::new();
            s.bipartite_sweep(&small, &large, axis, &mut want);
            assert_eq!(s.bipartite_pairs(&small, &large), want, "{n}");
            let mut each = Vec::new();
            s.for_each_bipartite_pair(&small, &large, |i, j| each.push((i, j)));
            assert_eq!(each, want, "{n}");
        }
    }
}
