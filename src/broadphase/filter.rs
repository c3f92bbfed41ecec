//! Collision filters: a `(group, mask)` pair of `u32` bit sets per element, so that groups that
//! never collide never produce pairs, tested inside the sweep's SIMD loop.

use super::Sweepable;
use super::sealed::Sealed;
use super::sorted::{Row, Shape, put_filter};
use crate::error::BvError;
use crate::lanes::Backend;
use crate::query::HitLists;
use bytemuck::{Pod, Zeroable};

/// An element's collision filter: the groups it belongs to and the groups it collides with, as
/// `u32` bit sets (the scheme of Box2D's and Jolt's group filters).
///
/// Two elements `a` and `b` pass each other's filters iff
/// `a.group & b.mask != 0 && b.group & a.mask != 0`: each belongs to a group the other collides
/// with. A filter with `group == 0` or `mask == 0` passes nothing;
/// [`CollisionFilter::ALL`] (every bit set in both) passes every filter with a non-zero group
/// and mask.
///
/// ```
/// use bvlanes::broadphase::CollisionFilter;
/// const PLAYER: u32 = 1;
/// const DEBRIS: u32 = 2;
/// let player = CollisionFilter::new(PLAYER, !0);
/// let debris = CollisionFilter::new(DEBRIS, PLAYER); // debris hits players, not debris
/// assert!(player.accepts(&debris));
/// assert!(!debris.accepts(&debris));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Pod, Zeroable)]
#[repr(C)]
pub struct CollisionFilter {
    /// The groups the element belongs to.
    pub group: u32,
    /// The groups the element collides with.
    pub mask: u32,
}

impl CollisionFilter {
    /// In every group, colliding with every group.
    pub const ALL: CollisionFilter = CollisionFilter {
        group: u32::MAX,
        mask: u32::MAX,
    };

    /// The filter of an element in the groups `group` that collides with the groups `mask`.
    #[inline]
    #[must_use]
    pub const fn new(group: u32, mask: u32) -> CollisionFilter {
        CollisionFilter { group, mask }
    }

    /// Whether `self` and `other` pass each other's filters:
    /// `self.group & other.mask != 0 && other.group & self.mask != 0` (symmetric).
    #[inline]
    #[must_use]
    pub const fn accepts(&self, other: &CollisionFilter) -> bool {
        self.group & other.mask != 0 && other.group & self.mask != 0
    }
}

impl Default for CollisionFilter {
    /// [`CollisionFilter::ALL`].
    fn default() -> CollisionFilter {
        CollisionFilter::ALL
    }
}

/// A set to sweep with a [`CollisionFilter`] per element: the broadphase reports a pair only
/// if the two elements overlap *and* pass each other's filters. The filters are tested in the
/// sweep's inner loop, beside the overlap test, not on its output.
///
/// Every method of [`Sweep`](super::Sweep) takes it in place of the set; a bipartite call takes
/// two (filter both sides; give one side [`CollisionFilter::ALL`] for a one-sided filter).
///
/// ```
/// use bvlanes::broadphase::{self, CollisionFilter, Filtered};
/// use bvlanes::{Aabb, Aabbs};
/// let boxes = Aabbs::from_slice(&[Aabb::new([0.0; 3], [1.0; 3]); 3])?; // all overlap
/// let filters = [
///     CollisionFilter::new(1, !0), // a player: group 1, hits everything
///     CollisionFilter::new(2, 1),  // debris: group 2, hits players only
///     CollisionFilter::new(2, 1),  // more debris
/// ];
/// let set = Filtered::new(&boxes, &filters)?;
/// assert_eq!(broadphase::complete_pairs(&set), [(0, 1), (0, 2)]);
/// # Ok::<(), bvlanes::BvError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Filtered<'a, C> {
    set: &'a C,
    filters: &'a [CollisionFilter],
}

impl<'a, C: Sweepable> Filtered<'a, C> {
    /// `set` with `filters[i]` the filter of element `i`.
    ///
    /// # Errors
    /// [`BvError::LengthMismatch`] if there is not exactly one filter per element.
    pub fn new(set: &'a C, filters: &'a [CollisionFilter]) -> Result<Self, BvError> {
        if filters.len() != set.count() {
            return Err(BvError::LengthMismatch {
                left: set.count(),
                right: filters.len(),
            });
        }
        Ok(Filtered { set, filters })
    }

    /// The set.
    #[must_use]
    pub fn set(&self) -> &'a C {
        self.set
    }

    /// The filters, one per element.
    #[must_use]
    pub fn filters(&self) -> &'a [CollisionFilter] {
        self.filters
    }
}

impl<C: Sweepable> Sweepable for Filtered<'_, C> {}

impl<C: Sweepable> Sealed for Filtered<'_, C> {
    fn rows(&self, axis: usize, threads: usize) -> (Shape, Vec<Row>) {
        let (shape, mut rows) = self.set.rows(axis, threads);
        for (row, f) in rows.iter_mut().zip(self.filters) {
            put_filter(row, shape, f.group, f.mask);
        }
        (shape, rows)
    }
    fn filtered(&self) -> bool {
        true
    }
    fn pair_allowed(&self, i: u32, other: &Self, j: u32) -> bool {
        self.filters[i as usize].accepts(&other.filters[j as usize])
    }
    fn stats(&self) -> super::sorted::AxisStats {
        self.set.stats()
    }
    fn count(&self) -> usize {
        self.set.count()
    }
    fn batch_hits(&self, queries: &Self, backend: Backend, threads: usize, out: &mut HitLists) {
        // The overlaps only: the caller applies `pair_allowed`.
        self.set.batch_hits(queries.set, backend, threads, out);
    }
    fn row_min(&self, i: usize, axis: usize) -> f32 {
        self.set.row_min(i, axis)
    }
}
