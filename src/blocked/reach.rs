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
//! | [`Sphere`] | its reach box: `c -/+ (r (1 + 2^-20) + 2^-74)` in f64, rounded outward to f32 (`sphere_reach_box`; `Conservative(sphere)`'s reach, without its costlier directed f32 roundings) | the reach box holds every point within the real reach, and every box the exact f32 test reports comes that close (`Conservative`'s guarantee), hence overlaps it, hence `B` |
//! | `Conservative(sphere)` | itself | a box test |
//! | [`Frustum`] | itself, on the bounds | monotone: at a larger box the p-vertex's `t` and the margin `m` both grow (each term, product, sum and rounding is monotone), so a plane that rejects `B` (`t + m < 0`) rejects every box inside it |
//! | [`Obb`] | `AabbsNearObb`: its box on the world axes, widened by a slack of `2^-16` of the block's farthest-corner distance and the query's size (more than the leaf test's margin); for axes that are not orthonormal, its bounding box | the leaf test reports a box only if each world-face gap is at most its margin; `docs/algorithms.md` bounds that gap's rounding by an eighth of the slack |
//!
//! | query on `Obbs` (bounds: the boxes' outward-rounded bounding boxes) | block test | why it never skips a hit |
//! |---|---|---|
//! | point, [`Sphere`] | `AabbsNearSphere`: the centre within `1 + 2^-9` times the radius, plus `2^-11` of the bounds' half sides and `2^-20` of their farthest corner's distance, of the bounds on every axis | a box the exact f32 test reports lies within `1.00075` times the radius of the centre, plus the frame rotation's rounding and orthonormality terms (`docs/algorithms.md`, "Blocked containers") |
//! | `Conservative(sphere)` | the same, within twice the widened radius | its per-axis test reaches `1.734` times as far |
//! | [`Obb`] | `AabbsNearObbFaces`: the separating-axis test of the bounds on the query's three face axes, with a slack of `2^-17` of the farthest corner's distance, `2^-6` of the bounds' half sides and `2^-8` of the query's size | the query's faces are three of the 15 axes: a reported box's real gap there is at most twice its margin, and its projection lies inside the bounds' |
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
//!
//! **Tetrahedra and octahedra** (`UpTets`, `DownTets`, `Octahedra`) have levels of [`Hulls`]:
//! per column of the container, the least and the greatest value over the block (`level.rs`).
//! Their flat tests are column-by-column comparisons with query values (`col[k] <= q[k]`,
//! `q[k] <= col[k]`), then, for the exact octahedron test, a sum condition. The block test is
//! the same comparisons on the *outer* bound (the least of a `<=` column, the greatest of a `>=`
//! column): a primitive that passes `col[k] <= q[k]` makes the least value pass too, so a block
//! that fails holds no hit. The whole-block test is the same comparisons on the *inner* bound
//! (the greatest of a `<=` column, the least of a `>=` column): when it passes, every primitive
//! passes every comparison. Minima and maxima of f32 values are exact, so both are exact; NaN
//! queries never reach them (their leaf kernel is not bound).
//!
//! | container, query | block test on the outer bounds | whole-block test on the inner bounds |
//! |---|---|---|
//! | `UpTets`: point, [`DownTet`] | `min[k] <= q_max[k]` (`TetsBelow`) | the same |
//! | `DownTets`: point, [`UpTet`] | `q_min[k] <= max[k]` (`TetsAbove`) | the same |
//! | `Octahedra`: [`DownTet`] / [`UpTet`] | the up / down half, as above | the same |
//! | `Octahedra`: point, `Conservative(octahedron)` | the eight comparisons | the same |
//! | `Octahedra`: [`Octahedron`] (exact) | the eight comparisons (every exact hit passes them) | none: the sum condition is tested per primitive |

use super::layout::private::Layout;
use super::level::Hulls;
use crate::kernel::{
    AabbsInsideBox, AabbsInsideFrustum, AabbsNearObb, AabbsNearObbFaces, AabbsNearSphere,
    AabbsVsBox, AabbsVsFrustum, Either, OctahedraVsOctahedron, PlaneConstants, Prepared, TetsAbove,
    TetsBelow,
};
use crate::primitive::{Aabb, DownTet, Frustum, Obb, Octahedron, Sphere, UpTet};
use crate::query::private::Bind;
use crate::query::{Conservative, Query, sphere_reach_box};
use crate::round::f32_at_least;
use crate::soa::{Aabbs, DownTets, Obbs, Octahedra, Spheres, UpTets};
use crate::strategy::Staged;

/// A query type a [`Blocked`](super::Blocked) container of `C` answers: every
/// [`Query`] of `C`. Sealed.
pub trait BlockQuery<C: Layout>: Query<C> + private::Reach<C> {}

impl<C: Layout, Q: Query<C> + private::Reach<C>> BlockQuery<C> for Q {}

pub(crate) mod private {
    use crate::blocked::layout::private::Layout;
    use crate::kernel::Prepared;
    use crate::query::private::Bind;

    /// The kernel a query runs on the primitives of `C` (what the block tests copy their query
    /// values from).
    pub type Leaf<'k, C, Q> = <Q as Bind<C>>::Kernel<'k>;

    /// A point of a query that queries near it share: the batch forms walk their queries in
    /// the Hilbert order of these points, so that each query finds blocks the last one read still
    /// in the cache. NaN where no point helps (frusta); only the order of the walks depends on
    /// it, never an answer.
    pub trait Anchor {
        /// The point (any coordinates in which nearby queries are near, the same for every
        /// query of the type).
        fn anchor(&self) -> [f32; 3];
    }

    /// The sealed machinery of [`BlockQuery`](super::BlockQuery).
    pub trait Reach<C: Layout>: Bind<C> + Anchor {
        /// The block test's kernel over a level of bounds.
        type Test<'a>: Prepared;
        /// The whole-block test's kernel over a level of bounds.
        type Inside<'a>: Prepared;
        /// The block test over `level`, for the query bound to the primitives as `leaf`
        /// (`None`: the query hits nothing).
        fn test<'a>(&self, level: &'a C::Level, leaf: &Leaf<'_, C, Self>)
        -> Option<Self::Test<'a>>;
        /// The whole-block test over `level`, if the query has one: its bit is set for bounds
        /// such that every primitive inside them is a hit of the flat test. `min_side`: a lower
        /// bound of the level's node sides per axis (a box query narrower than it contains no
        /// node, and returns `None`: the walk then skips the test).
        fn inside<'a>(
            &self,
            level: &'a C::Level,
            leaf: &Leaf<'_, C, Self>,
            min_side: [f32; 3],
        ) -> Option<Self::Inside<'a>>;
    }
}

impl Anchor for [f32; 3] {
    #[inline]
    fn anchor(&self) -> [f32; 3] {
        *self
    }
}

impl Anchor for Aabb {
    /// The centre (halves first: no overflow).
    #[inline]
    fn anchor(&self) -> [f32; 3] {
        core::array::from_fn(|a| self.min[a] * 0.5 + self.max[a] * 0.5)
    }
}

impl Anchor for Sphere {
    #[inline]
    fn anchor(&self) -> [f32; 3] {
        self.center
    }
}

impl Anchor for Staged {
    #[inline]
    fn anchor(&self) -> [f32; 3] {
        self.0.anchor()
    }
}

impl<Q: Anchor> Anchor for Conservative<Q> {
    #[inline]
    fn anchor(&self) -> [f32; 3] {
        self.0.anchor()
    }
}

impl Anchor for Frustum {
    /// None: a batch of frusta (cascades, faces of a cube map) keeps its order.
    #[inline]
    fn anchor(&self) -> [f32; 3] {
        [f32::NAN; 3]
    }
}

impl Anchor for Obb {
    #[inline]
    fn anchor(&self) -> [f32; 3] {
        self.center
    }
}

/// Three of a tetrahedron's four plane offsets: each is a fixed linear function of a point it
/// holds, so nearby tetrahedra have near offsets.
impl Anchor for UpTet {
    #[inline]
    fn anchor(&self) -> [f32; 3] {
        [self.min[0], self.min[1], self.min[2]]
    }
}

/// As for [`UpTet`].
impl Anchor for DownTet {
    #[inline]
    fn anchor(&self) -> [f32; 3] {
        [self.max[0], self.max[1], self.max[2]]
    }
}

impl Anchor for Octahedron {
    #[inline]
    fn anchor(&self) -> [f32; 3] {
        self.up.anchor()
    }
}

/// The whole-block test of a box query: the bounds inside the box; `None` when the box is
/// narrower than every node of the level on some axis (its side rounded up below `min_side`).
#[inline(always)]
fn inside_box<'a>(b: &Aabb, level: &'a Aabbs, min_side: [f32; 3]) -> Option<AabbsInsideBox<'a>> {
    let narrower =
        (0..3).any(|a| f32_at_least(f64::from(b.max[a]) - f64::from(b.min[a])) < min_side[a]);
    if narrower {
        return None;
    }
    Some(AabbsInsideBox {
        cols: level.view(),
        q_min: b.min,
        q_max: b.max,
    })
}

use private::{Anchor, Leaf, Reach};

/// The frustum's whole-block test.
#[inline(always)]
fn inside_frustum<'a>(f: &Frustum, level: &'a Aabbs) -> Option<AabbsInsideFrustum<'a>> {
    let k = f.check().is_ok().then(|| PlaneConstants::new(f))?;
    Some(AabbsInsideFrustum {
        cols: level.view(),
        pick: k.p_vertex_columns(),
        k,
    })
}

/// One `Reach` impl: the container, the query, the block test's kernel type and constructor (an
/// expression of the query, its bound leaf kernel and the level), and the whole-block test's
/// kernel type and constructor.
macro_rules! reach {
    (
        $c:ty, $q:ty,
        $test:ty, |$s:ident, $leaf:pat_param, $lv:ident| $test_expr:expr,
        $inside:ty, |$s2:ident, $level:ident, $min:ident| $inside_expr:expr
    ) => {
        impl Reach<$c> for $q {
            type Test<'a> = $test;
            type Inside<'a> = $inside;
            #[inline(always)]
            fn test<'a>(&self, $lv: &'a Aabbs, $leaf: &Leaf<'_, $c, $q>) -> Option<$test> {
                let $s = self;
                $test_expr
            }
            #[inline(always)]
            fn inside<'a>(
                &self,
                $level: &'a Aabbs,
                _: &Leaf<'_, $c, $q>,
                $min: [f32; 3],
            ) -> Option<$inside> {
                let $s2 = self;
                $inside_expr
            }
        }
    };
}

/// The box test on a level's bounds with corners `q_min`, `q_max`: a query's own corners, which
/// the leaf's bind screened (the walk stops before the block tests when that fails, and
/// screening returns them unchanged), a sphere's reach box, or the leaf kernel's box. That costs
/// a copy of the corners and a view (once per query: every level is in one `Aabbs`, see
/// `Levels`), not a second screening and a box strategy's `match` per chunk tested (binding
/// the query again, a query of half extent 5 on 100,000 boxes took 3,783 instructions, this way
/// 3,642; one that misses the scene 1,122, this way 1,044: AVX2 under callgrind, 2026-11-27,
/// when each level was bound on its own).
#[inline(always)]
fn box_test((q_min, q_max): ([f32; 3], [f32; 3]), level: &Aabbs) -> Option<AabbsVsBox<'_>> {
    Some(AabbsVsBox {
        cols: level.view(),
        q_min,
        q_max,
    })
}

/// A sphere's reach box ([`sphere_reach_box`]) as corners.
#[inline(always)]
fn reach_corners(s: &Sphere) -> ([f32; 3], [f32; 3]) {
    let b = sphere_reach_box(s);
    (b.min, b.max)
}

/// A frustum tested against bounds with twice its rounding margin: the block test of frusta
/// against spheres (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct WideFrustum(Frustum);

impl Bind<Aabbs> for WideFrustum {
    type Kernel<'a> = AabbsVsFrustum<'a, true>;
    #[inline(always)]
    fn bind<'a>(&self, c: &'a Aabbs) -> Option<Self::Kernel<'a>> {
        let f = self.0.bind(c)?;
        Some(AabbsVsFrustum {
            cols: f.cols,
            k: f.k,
            pick: f.pick,
        })
    }
}

/// No whole-block test.
#[inline(always)]
fn never<'a>() -> Option<AabbsInsideBox<'a>> {
    None
}

/// The box-shaped block tests of points, boxes and spheres, for each container whose levels are
/// boxes.
macro_rules! reach_points_boxes_spheres {
    ($($c:ty),*) => {$(
        reach!(
            $c,
            [f32; 3],
            AabbsVsBox<'a>,
            |q, _, l| box_test((*q, *q), l),
            AabbsInsideBox<'a>,
            |_q, _l, _m| never()
        );
        reach!(
            $c,
            Aabb,
            AabbsVsBox<'a>,
            |q, _, l| box_test((q.min, q.max), l),
            AabbsInsideBox<'a>,
            |q, l, m| inside_box(q, l, m)
        );
        reach!(
            $c,
            Sphere,
            AabbsVsBox<'a>,
            |q, _, l| box_test(reach_corners(q), l),
            AabbsInsideBox<'a>,
            |_q, _l, _m| never()
        );
    )*};
}

reach_points_boxes_spheres!(Aabbs, Spheres);

reach!(
    Aabbs,
    Staged,
    AabbsVsBox<'a>,
    |q, _, l| box_test((q.0.min, q.0.max), l),
    AabbsInsideBox<'a>,
    |q, l, m| inside_box(&q.0, l, m)
);
// The leaf kernel is the box test of the sphere's outward-rounded box: the same box.
reach!(
    Aabbs,
    Conservative<Sphere>,
    AabbsVsBox<'a>,
    |_q, leaf, l| box_test((leaf.q_min, leaf.q_max), l),
    AabbsInsideBox<'a>,
    |_q, _l, _m| never()
);
reach!(
    Aabbs,
    Frustum,
    AabbsVsFrustum<'a, false>,
    |q, _, l| q.bind(l),
    AabbsInsideFrustum<'a>,
    |q, l, _m| inside_frustum(q, l)
);
reach!(
    Spheres,
    Frustum,
    AabbsVsFrustum<'a, true>,
    |q, _, l| WideFrustum(*q).bind(l),
    AabbsInsideFrustum<'a>,
    |q, l, _m| inside_frustum(q, l)
);

/// An oriented box on boxes: its leaf kernel is the conservative separating-axis test
/// (`AabbsVsObb`) or, for axes that are not orthonormal, the box test of its outward-rounded
/// bounding box (`AabbsVsBox`). The block test is `AabbsNearObb` (the query's world-axis box
/// widened by more than the leaf test's margin) or that box test; only the box test accepts
/// whole blocks.
impl Reach<Aabbs> for Obb {
    type Test<'a> = Either<AabbsNearObb<'a>, AabbsVsBox<'a>>;
    type Inside<'a> = AabbsInsideBox<'a>;
    #[inline(always)]
    fn test<'a>(&self, level: &'a Aabbs, leaf: &Leaf<'_, Aabbs, Obb>) -> Option<Self::Test<'a>> {
        Some(match leaf {
            Either::Common(k) => Either::Common(AabbsNearObb::new(level.view(), k)),
            Either::Rare(k) => Either::Rare(AabbsVsBox {
                cols: level.view(),
                q_min: k.q_min,
                q_max: k.q_max,
            }),
        })
    }
    #[inline(always)]
    fn inside<'a>(
        &self,
        level: &'a Aabbs,
        leaf: &Leaf<'_, Aabbs, Obb>,
        min_side: [f32; 3],
    ) -> Option<AabbsInsideBox<'a>> {
        match leaf {
            Either::Common(_) => None,
            Either::Rare(k) => inside_box(&Aabb::new(k.q_min, k.q_max), level, min_side),
        }
    }
}

/// How far beyond a sphere's radius the block test of an exact sphere on oriented boxes
/// reaches: `1 + 2^-9`. A box the exact test reports lies within `1.00075` times the radius of
/// the centre, plus terms that `AabbsNearSphere`'s slack covers (`docs/algorithms.md`, "Blocked
/// containers"); the rest is room for the block test's own rounding.
const EXACT_SPHERE_REACH: f64 = 1.0 + 1.0 / 512.0;

/// A sphere, point or conservative sphere on oriented boxes: the block test is `AabbsNearSphere`
/// with `reach` (how far the leaf test reaches beyond the boxes, with room, rounded up); no
/// whole-block test.
macro_rules! reach_near_sphere {
    ($($q:ty => |$s:ident, $leaf:ident| $reach:expr;)*) => {$(
        impl Reach<Obbs> for $q {
            type Test<'a> = AabbsNearSphere<'a>;
            type Inside<'a> = AabbsInsideBox<'a>;
            #[inline(always)]
            fn test<'a>(
                &self,
                level: &'a Aabbs,
                $leaf: &Leaf<'_, Obbs, $q>,
            ) -> Option<AabbsNearSphere<'a>> {
                let $s = self;
                let (center, reach): ([f32; 3], f64) = $reach;
                Some(AabbsNearSphere {
                    cols: level.view(),
                    center,
                    reach: f32_at_least(reach),
                })
            }
            #[inline(always)]
            fn inside<'a>(
                &self,
                _: &'a Aabbs,
                _: &Leaf<'_, Obbs, $q>,
                _: [f32; 3],
            ) -> Option<AabbsInsideBox<'a>> {
                None
            }
        }
    )*};
}

reach_near_sphere! {
    [f32; 3] => |_q, leaf| (leaf.center, 0.0);
    // The exact test bounds the Euclidean distance: the radius, with a little room.
    Sphere => |q, leaf| match leaf {
        // The screened centre, and the query's radius (the leaf holds its square).
        Either::Common(k) => (k.center, EXACT_SPHERE_REACH * f64::from(q.radius)),
        Either::Rare(k) => (k.center, EXACT_SPHERE_REACH * f64::from(q.radius)),
    };
    // The conservative test bounds each axis of the box's frame, so its reach is `sqrt(3)`
    // times the widened radius: twice it.
    Conservative<Sphere> => |_q, leaf| (leaf.center, 2.0 * f64::from(leaf.reach));
}

/// An oriented box on oriented boxes: the block test is `AabbsNearObbFaces` (the separating
/// axes of the query's faces, with a slack); no whole-block test.
impl Reach<Obbs> for Obb {
    type Test<'a> = AabbsNearObbFaces<'a>;
    type Inside<'a> = AabbsInsideBox<'a>;
    #[inline(always)]
    fn test<'a>(
        &self,
        level: &'a Aabbs,
        leaf: &Leaf<'_, Obbs, Obb>,
    ) -> Option<AabbsNearObbFaces<'a>> {
        Some(AabbsNearObbFaces::new(level.view(), leaf))
    }
    #[inline(always)]
    fn inside<'a>(
        &self,
        _: &'a Aabbs,
        _: &Leaf<'_, Obbs, Obb>,
        _: [f32; 3],
    ) -> Option<AabbsInsideBox<'a>> {
        None
    }
}

/// `Conservative(q)` of a query that runs `q`'s own test has `q`'s block tests.
macro_rules! same_as_exact {
    ($($c:ty: $($q:ty),*;)*) => {$($(
        impl Reach<$c> for Conservative<$q> {
            type Test<'a> = <$q as Reach<$c>>::Test<'a>;
            type Inside<'a> = <$q as Reach<$c>>::Inside<'a>;
            #[inline(always)]
            fn test<'a>(
                &self,
                level: &'a <$c as Layout>::Level,
                leaf: &Leaf<'_, $c, Self>,
            ) -> Option<Self::Test<'a>> {
                <$q as Reach<$c>>::test(&self.0, level, leaf)
            }
            #[inline(always)]
            fn inside<'a>(
                &self,
                level: &'a <$c as Layout>::Level,
                leaf: &Leaf<'_, $c, Self>,
                min_side: [f32; 3],
            ) -> Option<Self::Inside<'a>> {
                <$q as Reach<$c>>::inside(&self.0, level, leaf, min_side)
            }
        }
    )*)*};
}

same_as_exact! {
    Aabbs: [f32; 3], Aabb, Staged, Obb, Frustum;
    Obbs: [f32; 3], Obb;
    Spheres: [f32; 3], Sphere, Aabb, Frustum;
    UpTets: [f32; 3], DownTet;
    DownTets: [f32; 3], UpTet;
    Octahedra: [f32; 3], DownTet, UpTet;
}

/// A kernel over a container's columns that runs the same test over columns of a level
/// ([`Hulls`]): the block tests of the tetrahedra and octahedra are their leaf kernels with the
/// query values copied and the columns swapped for the level's outer or inner bounds.
pub trait Retarget {
    /// The kernel over the level's columns.
    type At<'a>: Prepared;
    /// The same query values over columns `first..` of `level`.
    fn at<'a, const W: usize, const LOWER: u32>(
        &self,
        level: &'a Hulls<W, LOWER>,
        first: usize,
    ) -> Self::At<'a>;
}

impl Retarget for TetsBelow<'_> {
    type At<'a> = TetsBelow<'a>;
    #[inline(always)]
    fn at<'a, const W: usize, const LOWER: u32>(
        &self,
        level: &'a Hulls<W, LOWER>,
        first: usize,
    ) -> TetsBelow<'a> {
        TetsBelow {
            cols: level.view(first),
            q_max: self.q_max,
        }
    }
}

impl Retarget for TetsAbove<'_> {
    type At<'a> = TetsAbove<'a>;
    #[inline(always)]
    fn at<'a, const W: usize, const LOWER: u32>(
        &self,
        level: &'a Hulls<W, LOWER>,
        first: usize,
    ) -> TetsAbove<'a> {
        TetsAbove {
            cols: level.view(first),
            q_min: self.q_min,
        }
    }
}

/// The exact octahedron test's block test is the conservative one: its hits pass the eight
/// comparisons first.
impl<const EXACT: bool> Retarget for OctahedraVsOctahedron<'_, EXACT> {
    type At<'a> = OctahedraVsOctahedron<'a, false>;
    #[inline(always)]
    fn at<'a, const W: usize, const LOWER: u32>(
        &self,
        level: &'a Hulls<W, LOWER>,
        first: usize,
    ) -> OctahedraVsOctahedron<'a, false> {
        let mut k = OctahedraVsOctahedron::new(level.view(first), self.q_up, self.q_down);
        // The walk asks for the nodes it visits.
        k.prefetch_down = false;
        k
    }
}

/// `Reach` impls of containers of tetrahedra or octahedra: per query type, the first column of
/// the outer bounds in the level (the block test) and of the inner bounds (the whole-block
/// test; `None`: none). Column layouts: `level.rs`.
macro_rules! reach_hulls {
    ($($c:ty: $($q:ty),* => ($outer:literal, $inner:expr);)*) => {$($(
        impl Reach<$c> for $q {
            type Test<'a> = <Leaf<'static, $c, $q> as Retarget>::At<'a>;
            type Inside<'a> = Self::Test<'a>;
            #[inline(always)]
            fn test<'a>(
                &self,
                level: &'a <$c as Layout>::Level,
                leaf: &Leaf<'_, $c, $q>,
            ) -> Option<Self::Test<'a>> {
                Some(leaf.at(level, $outer))
            }
            #[inline(always)]
            fn inside<'a>(
                &self,
                level: &'a <$c as Layout>::Level,
                leaf: &Leaf<'_, $c, $q>,
                _: [f32; 3],
            ) -> Option<Self::Test<'a>> {
                let inner: Option<usize> = $inner;
                Some(leaf.at(level, inner?))
            }
        }
    )*)*};
}

reach_hulls! {
    UpTets: [f32; 3], DownTet => (0, Some(4));
    DownTets: [f32; 3], UpTet => (0, Some(4));
    Octahedra: DownTet => (0, Some(8));
    Octahedra: UpTet => (4, Some(12));
    Octahedra: [f32; 3], Conservative<Octahedron> => (0, Some(8));
    // The sum condition of the exact test has no whole-block form here.
    Octahedra: Octahedron => (0, None);
}

/// The block tests' own kernels (`AabbsInsideBox`, `AabbsInsideFrustum`, `AabbsVsFrustum` with
/// the doubled margin) on every available backend against plain scalar formulas, one box at a
/// time, on random and special values; and the frustum's whole-block test against real
/// arithmetic (f64): a box it accepts has every corner on the inner side of every plane.
#[cfg(test)]
mod tests {
    use crate::kernel::{
        AabbsInsideBox, AabbsInsideFrustum, AabbsNearObb, AabbsNearObbFaces, AabbsNearSphere,
        AabbsVsFrustum, PlaneConstants, Prepared,
    };
    use crate::lanes::{Backend, Chunk, Lanes, WithLanes, dispatch};
    use crate::primitive::{Aabb, Frustum};
    use crate::soa::Aabbs;
    use crate::test_rng::XorShift64;

    /// Every chunk's bits of one kernel, on one tier.
    struct Bits<'a, K>(&'a K, usize);

    impl<K: Prepared> WithLanes for Bits<'_, K> {
        type Output = Vec<u32>;
        fn run<V: Lanes>(self) -> Vec<u32> {
            (0..self.1.div_ceil(Chunk::LANES))
                .map(|c| self.0.chunk::<V>(c))
                .collect()
        }
    }

    /// Bit `i` of the chunks is `want(i)`, on every backend.
    fn check<K: Prepared>(k: &K, n: usize, want: impl Fn(usize) -> bool, what: &str) {
        for &b in Backend::available() {
            let bits = dispatch(b, Bits(k, n));
            for i in 0..n {
                let got = bits[i / Chunk::LANES] >> (i % Chunk::LANES) & 1 == 1;
                assert_eq!(got, want(i), "{what} on {b}, box {i}");
            }
        }
    }

    /// One of `SPECIAL` one time in four, else a hundredth in `-20..=20`.
    fn value(rng: &mut XorShift64) -> f32 {
        const SPECIAL: [f32; 10] = [0.0, -0.0, 1.0, -1.0, 0.5, 1e-40, 3e38, -3e38, 1e30, -1e-30];
        match rng.below(4) {
            0 => SPECIAL[rng.below(10) as usize],
            _ => (rng.below(4001) as f32 - 2000.0) / 100.0,
        }
    }

    /// The box between two points of `value`s.
    fn aabb(rng: &mut XorShift64) -> Aabb {
        let (a, b) = ([0; 3].map(|_| value(rng)), [0; 3].map(|_| value(rng)));
        Aabb::new(
            [0, 1, 2].map(|i| a[i].min(b[i])),
            [0, 1, 2].map(|i| a[i].max(b[i])),
        )
    }

    /// `((a x + b y) + c z) + d` and its margin `((L P) + Q) 2^-24`, as the kernels evaluate them.
    fn plane_and_margin(k: &PlaneConstants, i: usize, p: [f32; 3], b: &Aabb) -> (f32, f32) {
        let pl = k.planes[i];
        let t = ((p[0] * pl[0] + p[1] * pl[1]) + p[2] * pl[2]) + pl[3];
        let big = [0, 1, 2].map(|a| b.min[a].abs().max(b.max[a].abs()));
        let l = (big[0] + big[1]) + big[2];
        let m = ((l * k.mag_n[i]) + k.mag_d[i]) * f32::from_bits((127 - 24) << 23);
        (t, m)
    }

    /// `lo - c` and `c - hi` per axis, and the farthest corner's 1-norm distance, as the
    /// oriented boxes' block tests compute them (`offsets_from`).
    fn offsets(b: &Aabb, c: [f32; 3]) -> ([f32; 3], [f32; 3], f32) {
        let u = [0, 1, 2].map(|k| b.min[k] - c[k]);
        let w = [0, 1, 2].map(|k| c[k] - b.max[k]);
        let far = [0, 1, 2].map(|k| u[k].abs().max(w[k].abs()));
        (u, w, (far[0] + far[1]) + far[2])
    }

    /// The p-vertex (`n_a >= 0`: max) or the n-vertex of `b` for plane `pl`.
    fn vertex(pl: [f32; 4], b: &Aabb, p: bool) -> [f32; 3] {
        [0, 1, 2].map(|a| {
            if (pl[a] >= 0.0) == p {
                b.max[a]
            } else {
                b.min[a]
            }
        })
    }

    #[test]
    fn block_test_kernels_equal_their_scalar_formulas_on_every_backend() {
        let mut rng = XorShift64(0x9e37_79b9_7f4a_7c15);
        let (mut accepted, mut rejected) = (0, 0);
        for n in [1, 15, 16, 17, 67, 300] {
            let boxes: Vec<Aabb> = (0..n).map(|_| aabb(&mut rng)).collect();
            let level = Aabbs::from_slice(&boxes).unwrap();
            for _ in 0..20 {
                let q = aabb(&mut rng);
                let k = AabbsInsideBox {
                    cols: level.view(),
                    q_min: q.min,
                    q_max: q.max,
                };
                check(
                    &k,
                    n,
                    |i| {
                        let b = &boxes[i];
                        (0..3).all(|a| q.min[a] <= b.min[a] && b.max[a] <= q.max[a])
                    },
                    "inside box",
                );
                // The oriented box's block test, for arbitrary query values.
                let (center, qa) = (
                    [0; 3].map(|_| value(&mut rng)),
                    [0; 3].map(|_| value(&mut rng).abs()),
                );
                let sum_a = match rng.below(4) {
                    0 => f32::INFINITY,
                    _ => value(&mut rng).abs(),
                };
                let near = AabbsNearObb {
                    cols: level.view(),
                    center,
                    qa,
                    sum_a,
                };
                check(
                    &near,
                    n,
                    |i| {
                        let b = &boxes[i];
                        let (u, w, r) = offsets(b, center);
                        let slack = (((r + sum_a) * f32::from_bits((127 - 16) << 23))
                            + f32::from_bits(1 << 19))
                            + (r * r) * f32::from_bits(1 << 9);
                        (0..3).all(|k| u[k] <= qa[k] + slack && w[k] <= qa[k] + slack)
                    },
                    "near oriented box",
                );
                // The oriented boxes' block tests (spheres and points, oriented boxes).
                let reach = match rng.below(4) {
                    0 => f32::INFINITY,
                    _ => value(&mut rng).abs(),
                };
                let near_sphere = AabbsNearSphere {
                    cols: level.view(),
                    center,
                    reach,
                };
                let pow2 = |e: i32| 2f32.powi(e);
                check(
                    &near_sphere,
                    n,
                    |i| {
                        let b = &boxes[i];
                        let (u, w, r) = offsets(b, center);
                        let s =
                            ((b.max[0] - b.min[0]) + (b.max[1] - b.min[1])) + (b.max[2] - b.min[2]);
                        let big = (((reach + s * pow2(-12)) + r * pow2(-20)) + pow2(-70))
                            + (r * r + s * s) * f32::from_bits(1 << 9);
                        (0..3).all(|k| u[k] <= big && w[k] <= big)
                    },
                    "near sphere",
                );
                let axes = [0; 3].map(|_| [0; 3].map(|_| value(&mut rng)));
                let faces = AabbsNearObbFaces {
                    cols: level.view(),
                    center,
                    half: qa,
                    axes,
                    sum_a,
                };
                check(
                    &faces,
                    n,
                    |i| {
                        let b = &boxes[i];
                        let (l, u) = (b.min.map(|v| v * 0.5), b.max.map(|v| v * 0.5));
                        let d = [0, 1, 2].map(|k| (l[k] + u[k]) - center[k]);
                        let h = [0, 1, 2].map(|k| u[k] - l[k]);
                        let (_, _, r) = offsets(b, center);
                        let s = (h[0] + h[1]) + h[2];
                        let slack = (((r * pow2(-17) + s * pow2(-6)) + sum_a * pow2(-8))
                            + f32::from_bits(1 << 19))
                            + (r * r + s * s) * f32::from_bits(1 << 9);
                        (0..3).all(|a| {
                            let t = (d[0] * axes[a][0] + d[1] * axes[a][1]) + d[2] * axes[a][2];
                            let rb = (h[0] * axes[a][0].abs() + h[1] * axes[a][1].abs())
                                + h[2] * axes[a][2].abs();
                            (qa[a] + slack).partial_cmp(&(t.abs() - rb))
                                != Some(core::cmp::Ordering::Less)
                        })
                    },
                    "near oriented box faces",
                );
                // Arbitrary planes, or the six faces of a cube (which holds some boxes whole).
                let f = if rng.next_u64().is_multiple_of(2) {
                    Frustum {
                        planes: [0; 6].map(|_| [0; 4].map(|_| value(&mut rng))),
                    }
                } else {
                    let r = rng.below(40) as f32 + 0.5;
                    Frustum {
                        planes: [
                            [1.0, 0.0, 0.0, r],
                            [-1.0, 0.0, 0.0, r],
                            [0.0, 1.0, 0.0, r],
                            [0.0, -1.0, 0.0, r],
                            [0.0, 0.0, 1.0, r],
                            [0.0, 0.0, -1.0, r],
                        ],
                    }
                };
                if f.check().is_err() {
                    continue;
                }
                let pc = PlaneConstants::new(&f);
                let inside = AabbsInsideFrustum {
                    cols: level.view(),
                    pick: pc.p_vertex_columns(),
                    k: pc,
                };
                let want_inside = |i: usize| {
                    let b = &boxes[i];
                    (0..6).all(|p| {
                        let (t, m) = plane_and_margin(&pc, p, vertex(pc.planes[p], b, false), b);
                        m <= t && m < f32::INFINITY
                    })
                };
                check(&inside, n, want_inside, "inside frustum");
                let wide: AabbsVsFrustum<'_, true> = AabbsVsFrustum {
                    cols: level.view(),
                    pick: pc.p_vertex_columns(),
                    k: pc,
                };
                check(
                    &wide,
                    n,
                    |i| {
                        let b = &boxes[i];
                        !(0..6).any(|p| {
                            let (t, m) = plane_and_margin(&pc, p, vertex(pc.planes[p], b, true), b);
                            (t + m) + m < 0.0
                        })
                    },
                    "frustum, margin twice",
                );
                // Real arithmetic: an accepted box has every corner inside every plane.
                for (i, b) in boxes.iter().enumerate() {
                    if !want_inside(i) {
                        rejected += 1;
                        continue;
                    }
                    accepted += 1;
                    for corner in 0..8 {
                        let x = [0, 1, 2].map(|a| {
                            f64::from(if corner >> a & 1 == 1 {
                                b.max[a]
                            } else {
                                b.min[a]
                            })
                        });
                        for pl in &f.planes {
                            let v = x[0] * f64::from(pl[0])
                                + x[1] * f64::from(pl[1])
                                + x[2] * f64::from(pl[2])
                                + f64::from(pl[3]);
                            assert!(v >= 0.0, "{b:?} accepted, corner {x:?} outside {pl:?}: {v}");
                        }
                    }
                }
            }
        }
        assert!(
            accepted > 0 && rejected > 0,
            "{accepted} accepted, {rejected} not"
        );
    }
}
