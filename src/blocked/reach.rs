//! The block tests: for each query type, the test a block's bounds must pass before its
//! primitives are tested, and the box that accepts a whole block untested.
//!
//! **Why skipping is exact.** A block's bounds `B` contain the bounds of every primitive in it.
//! A query's block test must pass `B` whenever the flat test reports any primitive of the block;
//! then skipping a block whose bounds fail changes no answer. Each row below says why:
//!
//! | query on `Aabbs` | block test on the bounds | why it never skips a hit |
//! |---|---|---|
//! | point, [`Aabb`], [`Staged`] | the point / box overlap test | comparisons only: a box overlapping a primitive overlaps every box containing it |
//! | [`Sphere`] | `Conservative(sphere)` (its widened box) | the widened box overlaps every box the exact f32 test reports (`Conservative`'s guarantee), hence `B` |
//! | `Conservative(sphere)` | itself | a box test |
//! | [`Frustum`] | itself, on the bounds | monotone: at a larger box the p-vertex's `t` and the margin `m` both grow (each term, product, sum and rounding is monotone), so a plane that rejects `B` (`t + m < 0`) rejects every box inside it |
//! | [`Obb`] | none: every block is tested | the separating-axis margin is not monotone in the box |
//!
//! **Why accepting is exact.** A box query accepts a block whose bounds lie inside it
//! (`q_min <= B_min` and `B_max <= q_max`): a primitive `p` inside `B` has
//! `p_min >= q_min` and `p_max <= q_max`, and `p_min <= p_max`, so `p_min <= q_max` and
//! `q_min <= p_max`, the flat test's comparisons. A frustum accepts a block whose bounds are
//! inside every plane at their n-vertex by more than the plane's rounding margin
//! (`AabbsInsideFrustum`): the real plane value of every point of the block is then `>= 0`, so
//! the p-vertex test of every box inside rejects it by no plane (it never rejects a box with a
//! real `t >= 0`). Spheres do not accept (the sphere test's rounding would need a margin of its
//! own); points cannot (a block is inside a point only if it is one).

use crate::kernel::{AabbsInsideBox, AabbsInsideFrustum, PlaneConstants};
use crate::primitive::{Aabb, Frustum, Obb, Sphere};
use crate::query::{Conservative, Query};
use crate::soa::Aabbs;
use crate::strategy::Staged;

/// A query type a [`Blocked`](super::Blocked) container of `C` answers: every
/// [`Query`] of `C`. Sealed.
pub trait BlockQuery<C>: Query<C> + private::Reach<C> {}

impl<C, Q: Query<C> + private::Reach<C>> BlockQuery<C> for Q {}

pub(crate) mod private {
    use super::{Aabbs, Query};
    use crate::kernel::Prepared;

    /// The sealed machinery of [`BlockQuery`](super::BlockQuery).
    pub trait Reach<C> {
        /// The block test's query type.
        type Bound: Query<Aabbs>;
        /// The whole-block test's kernel over a level of bounds.
        type Inside<'a>: Prepared;
        /// The block test, or `None` if no block may be skipped (each block is tested).
        fn reach(&self) -> Option<Self::Bound>;
        /// The whole-block test over `level`, if the query has one: its bit is set for bounds
        /// such that every primitive inside them is a hit of the flat test.
        fn inside<'a>(&self, level: &'a Aabbs) -> Option<Self::Inside<'a>>;
    }
}

/// The whole-block test of a box query: the bounds inside the box.
#[inline]
fn inside_box<'a>(b: &Aabb, level: &'a Aabbs) -> Option<AabbsInsideBox<'a>> {
    Some(AabbsInsideBox {
        cols: level.view(),
        q_min: b.min,
        q_max: b.max,
    })
}

use private::Reach;

impl Reach<Aabbs> for [f32; 3] {
    type Bound = [f32; 3];
    type Inside<'a> = AabbsInsideBox<'a>;
    #[inline]
    fn reach(&self) -> Option<[f32; 3]> {
        Some(*self)
    }
    #[inline]
    fn inside<'a>(&self, _: &'a Aabbs) -> Option<AabbsInsideBox<'a>> {
        None
    }
}

impl Reach<Aabbs> for Aabb {
    type Bound = Aabb;
    type Inside<'a> = AabbsInsideBox<'a>;
    #[inline]
    fn reach(&self) -> Option<Aabb> {
        Some(*self)
    }
    #[inline]
    fn inside<'a>(&self, level: &'a Aabbs) -> Option<AabbsInsideBox<'a>> {
        inside_box(self, level)
    }
}

impl Reach<Aabbs> for Staged {
    type Bound = Aabb;
    type Inside<'a> = AabbsInsideBox<'a>;
    #[inline]
    fn reach(&self) -> Option<Aabb> {
        Some(self.0)
    }
    #[inline]
    fn inside<'a>(&self, level: &'a Aabbs) -> Option<AabbsInsideBox<'a>> {
        inside_box(&self.0, level)
    }
}

impl Reach<Aabbs> for Sphere {
    type Bound = Conservative<Sphere>;
    type Inside<'a> = AabbsInsideBox<'a>;
    #[inline]
    fn reach(&self) -> Option<Conservative<Sphere>> {
        Some(Conservative(*self))
    }
    #[inline]
    fn inside<'a>(&self, _: &'a Aabbs) -> Option<AabbsInsideBox<'a>> {
        None
    }
}

impl Reach<Aabbs> for Conservative<Sphere> {
    type Bound = Conservative<Sphere>;
    type Inside<'a> = AabbsInsideBox<'a>;
    #[inline]
    fn reach(&self) -> Option<Conservative<Sphere>> {
        Some(*self)
    }
    #[inline]
    fn inside<'a>(&self, _: &'a Aabbs) -> Option<AabbsInsideBox<'a>> {
        None
    }
}

impl Reach<Aabbs> for Frustum {
    type Bound = Frustum;
    type Inside<'a> = AabbsInsideFrustum<'a>;
    #[inline]
    fn reach(&self) -> Option<Frustum> {
        Some(*self)
    }
    #[inline]
    fn inside<'a>(&self, level: &'a Aabbs) -> Option<AabbsInsideFrustum<'a>> {
        let k = self.check().is_ok().then(|| PlaneConstants::new(self))?;
        Some(AabbsInsideFrustum {
            cols: level.view(),
            pick: k.p_vertex_columns(),
            k,
        })
    }
}

impl Reach<Aabbs> for Obb {
    type Bound = Aabb;
    type Inside<'a> = AabbsInsideBox<'a>;
    #[inline]
    fn reach(&self) -> Option<Aabb> {
        None
    }
    #[inline]
    fn inside<'a>(&self, _: &'a Aabbs) -> Option<AabbsInsideBox<'a>> {
        None
    }
}

/// `Conservative(q)` of a query that runs `q`'s own test has `q`'s block tests.
macro_rules! same_as_exact {
    ($($q:ty),*) => {$(
        impl Reach<Aabbs> for Conservative<$q> {
            type Bound = <$q as Reach<Aabbs>>::Bound;
            type Inside<'a> = <$q as Reach<Aabbs>>::Inside<'a>;
            #[inline]
            fn reach(&self) -> Option<Self::Bound> {
                self.0.reach()
            }
            #[inline]
            fn inside<'a>(&self, level: &'a Aabbs) -> Option<Self::Inside<'a>> {
                self.0.inside(level)
            }
        }
    )*};
}

same_as_exact!([f32; 3], Aabb, Staged, Obb, Frustum);
