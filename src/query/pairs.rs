//! Every supported (query, container) pair: how the query is screened and which kernel it runs.
//!
//! The pairs themselves are listed once, in the [`pair_table!`] invocation at the end of this file:
//! it implements [`Query`] for every pair (and for `Conservative` of it), and a test checks the
//! README's and the crate docs' supported-pairs tables against it.
//!
//! `Obb` queries (both containers): the 15-axis separating-axis test with a margin that covers
//! rounding and the orthonormality tolerance, so it never misses a real intersection and reports
//! a disjoint pair only within that margin (`src/kernel/obb_obb.rs`). A query with a NaN or
//! infinite value or a negative half extent hits nothing; a query whose axes are not orthonormal
//! within `Obb::ORTHONORMAL_TOLERANCE` is tested as its outward-rounded bounding box.
//!
//! `Frustum` queries (both containers): a primitive is reported unless some plane rejects it
//! (sphere: `n . c + d < -r |n|`; box: its p-vertex, chosen per plane at bind time, outside),
//! each plane against a margin covering the f32 rounding (`src/kernel/frustum.rs`). Never a
//! false negative; primitives outside the frustum near its edges and corners but beyond no single
//! plane are reported. A query with a NaN or infinite value or a zero normal hits nothing; an
//! empty intersection of valid planes is not screened (reported plane by plane).
//! `Conservative(frustum)` runs the same test.

use super::private::Bind;
use super::{Conservative, Query};
use crate::error::BvError;
use crate::kernel::{
    AABB_QUERY_SCALE, AabbsVsBox, AabbsVsBoxMinMax, AabbsVsBoxSevenSided, AabbsVsBoxXyz,
    AabbsVsFrustum, AabbsVsObb, AabbsVsSphere, BoxKernel, Cols, Either, HUGE_RADIUS_SCALE,
    MARGIN_FLOOR, OBB_QUERY_SCALE, ObbsVsObb, ObbsVsSphere, ObbsVsSphereConservative,
    OctahedraVsOctahedron, PlaneConstants, SpheresVsBox, SpheresVsFrustum, SpheresVsSphere,
    TetsAbove, TetsBelow,
};
use crate::primitive::{Aabb, DownTet, Frustum, Obb, Octahedron, Sphere, UpTet};
use crate::primitive::{all_finite, any_nan, project_down, project_up};
use crate::round::{
    add_up, f32_at_least, f32_at_most, mul_up, sum_down, sum_sign_extended, weighted_sum_up,
};
use crate::soa::{Aabbs, DownTets, Obbs, Octahedra, Spheres, UpTets};
use crate::strategy::{BoxStrategy, Staged};
use core::cmp::Ordering;

// ---- screening: a query that can hit nothing never reaches a kernel ----

/// A point hits something only if it is finite.
fn screen_point(p: &[f32; 3]) -> Option<[f32; 3]> {
    all_finite(p).then_some(*p)
}

/// A sphere needs a finite centre and a radius `>= 0` (`+inf` allowed, NaN not).
fn screen_sphere(s: &Sphere) -> Option<Sphere> {
    (all_finite(&s.center) && s.radius >= 0.0).then_some(*s)
}

/// A box needs no NaN, `min <= max`, and a finite point on each axis (no `[inf, inf]`).
pub(super) fn screen_aabb(b: &Aabb) -> Option<Aabb> {
    let ok = !any_nan(&b.min)
        && !any_nan(&b.max)
        && (0..3).all(|i| {
            b.min[i] <= b.max[i] && b.min[i] < f32::INFINITY && b.max[i] > f32::NEG_INFINITY
        });
    ok.then_some(*b)
}

/// An up tetrahedron needs no NaN, no `+inf` bound, and `sum(min) <= 0`.
fn screen_up(u: &UpTet) -> Option<UpTet> {
    let ok = !any_nan(&u.min)
        && !u.min.contains(&f32::INFINITY)
        && sum_sign_extended(u.min) != Ordering::Greater;
    ok.then_some(*u)
}

/// A down tetrahedron needs no NaN, no `-inf` bound, and `sum(max) >= 0`.
fn screen_down(d: &DownTet) -> Option<DownTet> {
    let ok = !any_nan(&d.max)
        && !d.max.contains(&f32::NEG_INFINITY)
        && sum_sign_extended(d.max) != Ordering::Less;
    ok.then_some(*d)
}

/// An octahedron needs both tetrahedra non-empty and `up <= down` on every axis.
pub(super) fn screen_octahedron(o: &Octahedron) -> Option<Octahedron> {
    let (up, down) = (screen_up(&o.up)?, screen_down(&o.down)?);
    (0..4).all(|k| up.min[k] <= down.max[k]).then_some(*o)
}

/// An oriented box query: `None` (hits nothing) with a NaN or infinite value or a negative half
/// extent; otherwise `(box, true)` when its axes are orthonormal within
/// [`Obb::ORTHONORMAL_TOLERANCE`] (what a container accepts), `(box, false)` when they are not.
fn screen_obb(o: &Obb) -> Option<(Obb, bool)> {
    match o.check(0) {
        Ok(()) => Some((*o, true)),
        Err(BvError::NotOrthonormal { .. }) => Some((*o, false)),
        Err(_) => None,
    }
}

/// A frustum query needs every plane finite with a non-zero normal (what `Frustum::from_planes`
/// accepts). Emptiness of the enclosed volume is not checked.
fn screen_frustum(f: &Frustum) -> Option<PlaneConstants> {
    f.check().is_ok().then(|| PlaneConstants::new(f))
}

/// `sum(a) * scale + 2^-140`, rounded up: the query's share of the separating-axis margin; `+inf`
/// (nothing is ever separated: the query hits everything) when `8 sum(a)` is beyond `f32::MAX`,
/// the kernels' overflow guard.
fn query_margin(half: [f32; 3], scale: f32) -> f32 {
    let sum = (f64::from(half[0]) + f64::from(half[1])) + f64::from(half[2]);
    if sum * 8.0 > f64::from(f32::MAX) {
        return f32::INFINITY;
    }
    // Three f32 summed in f64 round twice (relative 2^-53 each); 1 + 2^-48 covers them.
    let bound = (sum * f64::from(scale) + f64::from(MARGIN_FLOOR)) * (1.0 + 2f64.powi(-48));
    f32_at_least(bound)
}

/// `|a|_2 (1 + 1.6e-4)` rounded up: a ball around the centre containing an oriented box whose
/// axes are orthonormal within `ε = 1e-4` (the largest singular value of the axis matrix is at most
/// `sqrt(1 + 3 ε) < 1 + 1.5001e-4`; the rest covers the f64 rounding).
fn ball_radius(half: [f32; 3]) -> f32 {
    let sq = |h: f32| f64::from(h) * f64::from(h);
    f32_at_least(((sq(half[0]) + sq(half[1])) + sq(half[2])).sqrt() * (1.0 + 1.6e-4))
}

/// `(x.0 y.0 + x.1 y.1) + x.2 y.2` in f64 (the products are exact).
fn dot_f64(x: [f32; 3], y: [f32; 3]) -> f64 {
    (f64::from(x[0]) * f64::from(y[0]) + f64::from(x[1]) * f64::from(y[1]))
        + f64::from(x[2]) * f64::from(y[2])
}

/// Component `j` of `x × y` in f64: `x_j1 y_j2 - x_j2 y_j1` (the products are exact).
fn cross_f64(x: [f32; 3], y: [f32; 3], j: usize) -> f64 {
    let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
    f64::from(x[j1]) * f64::from(y[j2]) - f64::from(x[j2]) * f64::from(y[j1])
}

/// The `Obbs` kernel for an oriented box. A query whose axes are not orthonormal is tested as its
/// bounding box (`Obb::aabb`, rounded outward, as an `Obb` with identity axes): that box contains
/// it, so no real intersection is lost. If that box overflows f32, every primitive is reported.
fn obbs_vs_obb<'a>(c: &'a Obbs, o: &Obb, orthonormal: bool) -> ObbsVsObb<'a> {
    let q = if orthonormal {
        *o
    } else {
        Obb::from_aabb(&o.aabb())
    };
    if q.check(0).is_ok() {
        ObbsVsObb {
            cols: c.view(),
            center: q.center,
            half: q.half_extents,
            axes: q.axes,
            margin_q: query_margin(q.half_extents, OBB_QUERY_SCALE),
            ball: ball_radius(q.half_extents),
        }
    } else {
        // Only a bounding box too big for f32 gets here: an infinite margin hits everything.
        ObbsVsObb {
            cols: c.view(),
            center: [0.0; 3],
            half: [0.0; 3],
            axes: Obb::from_aabb(&Aabb::new([0.0; 3], [0.0; 3])).axes,
            margin_q: f32::INFINITY,
            ball: f32::INFINITY,
        }
    }
}

/// The `Aabbs` kernel for an orthonormal oriented box: its radii on every axis, rounded up.
fn aabbs_vs_obb<'a>(c: &'a Aabbs, q: &Obb) -> AabbsVsObb<'a> {
    let (a, ax) = (q.half_extents, q.axes);
    let column = |j: usize| [ax[0][j], ax[1][j], ax[2][j]];
    AabbsVsObb {
        cols: c.view(),
        center: q.center,
        axes: ax,
        abs_axes: ax.map(|row| row.map(f32::abs)),
        qa: [0, 1, 2].map(|j| weighted_sum_up(a, column(j).map(f64::from))),
        ra: [0, 1, 2].map(|i| weighted_sum_up(a, [0, 1, 2].map(|k| dot_f64(ax[k], ax[i])))),
        re: [0, 1, 2].map(|i| {
            [0, 1, 2].map(|j| weighted_sum_up(a, [0, 1, 2].map(|k| cross_f64(ax[k], ax[i], j))))
        }),
        margin_q: query_margin(a, AABB_QUERY_SCALE),
    }
}

/// The conservative sphere box: outward-rounded, widened by `2^-20 r + 2^-74` so it also holds
/// every hit of the exact f32 test (whose rounding can accept distances up to `r (1 + 3.5 * 2^-24)`
/// plus an underflow term below `2^-74`).
pub(crate) fn widened_sphere_box(s: &Sphere) -> Aabb {
    Aabb::from_sphere(&Sphere::new(s.center, widened_radius(s.radius)))
}

/// The sphere's reach along `axis`, `c -+ (r (1 + 2^-20) + 2^-74)`, in f64 and rounded outwards:
/// every box the exact sphere-box test accepts, and every sphere the exact sphere-sphere test
/// accepts within its own reach, overlaps it on that axis (the bound behind `Conservative(sphere)`,
/// `docs/algorithms.md`, "Sphere against boxes, conservative": an f32 hit's real gap is at most
/// `r (1 + 3.5 u) + 2^-74`). `r (1 + 2^-20)` is exact in f64 (24 + 21 significant bits); the sum
/// and the two ends are rounded outwards by an f64 ulp each. Cheaper than `Conservative`'s f32
/// box ([`widened_sphere_box`]), whose directed f32 roundings cost several times as much.
#[inline(always)]
pub(crate) fn sphere_reach(s: &Sphere, axis: usize) -> [f64; 2] {
    let r = (f64::from(s.radius) * f64::from(REACH_WIDEN) + f64::from(REACH_FLOOR)).next_up();
    let c = f64::from(s.center[axis]);
    [(c - r).next_down(), (c + r).next_up()]
}

/// [`sphere_reach`] on the three axes as an f32 box, rounded outwards (infinite where the reach
/// passes `f32::MAX`; NaN for a NaN sphere, which no query lets through its screening).
#[inline(always)]
pub(crate) fn sphere_reach_box(s: &Sphere) -> Aabb {
    // A loop, not `array::map`: the blocked walk calls this inside the tiers' entry points, where
    // a `map` closure was compiled out of line (`.ci/check-inlining`).
    let (mut min, mut max) = ([0.0; 3], [0.0; 3]);
    for a in 0..3 {
        let [lo, hi] = sphere_reach(s, a);
        min[a] = f32_at_most(lo);
        max[a] = f32_at_least(hi);
    }
    Aabb::new(min, max)
}

/// `(false, r * r)`, or, when that overflows (radius `2^64` and up), `(true, (r * 2^-66)^2)`: the
/// scaled kernel variant multiplies every length by `2^-66` too.
fn squared_radius(r: f32) -> (bool, f32) {
    if (r * r).is_finite() {
        (false, r * r)
    } else {
        let scaled = r * HUGE_RADIUS_SCALE;
        (true, scaled * scaled)
    }
}

/// `1 + 2^-20` (exact): the relative widening of the conservative sphere tests' reach.
pub(crate) const REACH_WIDEN: f32 = 1.0 + 1.0 / 1_048_576.0;

/// `2^-74`: the absolute part of the conservative sphere tests' reach.
pub(crate) const REACH_FLOOR: f32 = f32::from_bits(53 << 23);

/// `r (1 + 2^-20) + 2^-74`, rounded up: the reach of the conservative sphere tests.
fn widened_radius(r: f32) -> f32 {
    add_up(mul_up(r, REACH_WIDEN), REACH_FLOOR)
}

// ---- Aabbs ----

/// The box kernel of `strategy` for the screened query box `[q_min, q_max]`.
#[inline(always)]
fn box_kernel(c: &Aabbs, strategy: BoxStrategy, q_min: [f32; 3], q_max: [f32; 3]) -> BoxKernel<'_> {
    match strategy {
        BoxStrategy::Direct => BoxKernel::Direct(AabbsVsBox {
            cols: c.view(),
            q_min,
            q_max,
        }),
        BoxStrategy::MinMax => BoxKernel::MinMax(AabbsVsBoxMinMax {
            cols: c.view(),
            q_min,
            q_max,
        }),
        BoxStrategy::Xyz => BoxKernel::Xyz(AabbsVsBoxXyz {
            cols: c.view(),
            q_min,
            q_max,
        }),
        BoxStrategy::SevenSided => BoxKernel::SevenSided(AabbsVsBoxSevenSided {
            cols: c.view_with_diagonal(),
            q_min,
            q_max,
            q_sum: sum_down(&q_min),
        }),
    }
}

impl Bind<Aabbs> for [f32; 3] {
    type Kernel<'a> = BoxKernel<'a>;
    fn bind<'a>(&self, c: &'a Aabbs) -> Option<BoxKernel<'a>> {
        let p = screen_point(self)?;
        Some(box_kernel(c, BoxStrategy::default(), p, p))
    }
}

impl Bind<Aabbs> for Aabb {
    type Kernel<'a> = BoxKernel<'a>;
    fn bind<'a>(&self, c: &'a Aabbs) -> Option<BoxKernel<'a>> {
        let b = screen_aabb(self)?;
        Some(box_kernel(c, BoxStrategy::default(), b.min, b.max))
    }
}

impl Bind<Aabbs> for Staged {
    type Kernel<'a> = BoxKernel<'a>;
    fn bind<'a>(&self, c: &'a Aabbs) -> Option<BoxKernel<'a>> {
        let b = screen_aabb(&self.0)?;
        Some(box_kernel(c, self.1, b.min, b.max))
    }
}

/// The exact sphere-box kernel of `s` (a screened sphere) over box columns `cols`: the scaled
/// variant when the squared radius overflows.
pub(crate) fn aabbs_vs_sphere<'a>(
    cols: Cols<'a, 6>,
    s: &Sphere,
) -> Either<AabbsVsSphere<'a, false>, AabbsVsSphere<'a, true>> {
    let (scaled, r2) = squared_radius(s.radius);
    let center = s.center;
    if scaled {
        Either::Rare(AabbsVsSphere { cols, center, r2 })
    } else {
        Either::Common(AabbsVsSphere { cols, center, r2 })
    }
}

impl Bind<Aabbs> for Sphere {
    type Kernel<'a> = Either<AabbsVsSphere<'a, false>, AabbsVsSphere<'a, true>>;
    fn bind<'a>(&self, c: &'a Aabbs) -> Option<Self::Kernel<'a>> {
        Some(aabbs_vs_sphere(c.view(), &screen_sphere(self)?))
    }
}

impl Bind<Aabbs> for Conservative<Sphere> {
    type Kernel<'a> = AabbsVsBox<'a>;
    fn bind<'a>(&self, c: &'a Aabbs) -> Option<AabbsVsBox<'a>> {
        let b = widened_sphere_box(&screen_sphere(&self.0)?);
        Some(AabbsVsBox {
            cols: c.view(),
            q_min: b.min,
            q_max: b.max,
        })
    }
}

// ---- Spheres ----

impl Bind<Spheres> for [f32; 3] {
    type Kernel<'a> = SpheresVsSphere<'a, false>;
    fn bind<'a>(&self, c: &'a Spheres) -> Option<Self::Kernel<'a>> {
        let p = screen_point(self)?;
        Some(SpheresVsSphere {
            cols: c.view(),
            center: p,
            radius: 0.0,
        })
    }
}

impl Bind<Spheres> for Sphere {
    type Kernel<'a> = Either<SpheresVsSphere<'a, false>, SpheresVsSphere<'a, true>>;
    fn bind<'a>(&self, c: &'a Spheres) -> Option<Self::Kernel<'a>> {
        let s = screen_sphere(self)?;
        let k = SpheresVsSphere {
            cols: c.view(),
            center: s.center,
            radius: s.radius,
        };
        // Below 2^63, (r + r_q)^2 with container radii r <= 2^62 stays below 2^127.
        Some(if s.radius < 9_223_372_036_854_775_808.0 {
            Either::Common(k)
        } else {
            Either::Rare(SpheresVsSphere {
                cols: k.cols,
                center: k.center,
                radius: k.radius,
            })
        })
    }
}

impl Bind<Spheres> for Aabb {
    type Kernel<'a> = SpheresVsBox<'a>;
    fn bind<'a>(&self, c: &'a Spheres) -> Option<SpheresVsBox<'a>> {
        let b = screen_aabb(self)?;
        Some(SpheresVsBox {
            cols: c.view(),
            q_min: b.min,
            q_max: b.max,
        })
    }
}

// ---- UpTets and DownTets ----

impl Bind<UpTets> for [f32; 3] {
    type Kernel<'a> = TetsBelow<'a>;
    fn bind<'a>(&self, c: &'a UpTets) -> Option<TetsBelow<'a>> {
        let p = screen_point(self)?;
        Some(TetsBelow {
            cols: c.view(),
            q_max: project_up(p),
        })
    }
}

impl Bind<UpTets> for DownTet {
    type Kernel<'a> = TetsBelow<'a>;
    fn bind<'a>(&self, c: &'a UpTets) -> Option<TetsBelow<'a>> {
        let d = screen_down(self)?;
        Some(TetsBelow {
            cols: c.view(),
            q_max: d.max,
        })
    }
}

impl Bind<DownTets> for [f32; 3] {
    type Kernel<'a> = TetsAbove<'a>;
    fn bind<'a>(&self, c: &'a DownTets) -> Option<TetsAbove<'a>> {
        let p = screen_point(self)?;
        Some(TetsAbove {
            cols: c.view(),
            q_min: project_down(p),
        })
    }
}

impl Bind<DownTets> for UpTet {
    type Kernel<'a> = TetsAbove<'a>;
    fn bind<'a>(&self, c: &'a DownTets) -> Option<TetsAbove<'a>> {
        let u = screen_up(self)?;
        Some(TetsAbove {
            cols: c.view(),
            q_min: u.min,
        })
    }
}

// ---- Octahedra ----

impl Bind<Octahedra> for [f32; 3] {
    type Kernel<'a> = OctahedraVsOctahedron<'a, false>;
    fn bind<'a>(&self, c: &'a Octahedra) -> Option<Self::Kernel<'a>> {
        let p = screen_point(self)?;
        // The point's own projections rounded outward: the eight comparisons are exact
        // containment (up to that rounding), no sum condition needed.
        Some(OctahedraVsOctahedron::new(
            c.view(),
            project_down(p),
            project_up(p),
        ))
    }
}

impl Bind<Octahedra> for DownTet {
    type Kernel<'a> = TetsBelow<'a>;
    fn bind<'a>(&self, c: &'a Octahedra) -> Option<TetsBelow<'a>> {
        let d = screen_down(self)?;
        Some(TetsBelow {
            cols: c.up_view(),
            q_max: d.max,
        })
    }
}

impl Bind<Octahedra> for UpTet {
    type Kernel<'a> = TetsAbove<'a>;
    fn bind<'a>(&self, c: &'a Octahedra) -> Option<TetsAbove<'a>> {
        let u = screen_up(self)?;
        Some(TetsAbove {
            cols: c.down_view(),
            q_min: u.min,
        })
    }
}

impl Bind<Octahedra> for Octahedron {
    type Kernel<'a> = OctahedraVsOctahedron<'a, true>;
    fn bind<'a>(&self, c: &'a Octahedra) -> Option<Self::Kernel<'a>> {
        let o = screen_octahedron(self)?;
        Some(OctahedraVsOctahedron::new(c.view(), o.up.min, o.down.max))
    }
}

impl Bind<Octahedra> for Conservative<Octahedron> {
    type Kernel<'a> = OctahedraVsOctahedron<'a, false>;
    fn bind<'a>(&self, c: &'a Octahedra) -> Option<Self::Kernel<'a>> {
        let o = screen_octahedron(&self.0)?;
        Some(OctahedraVsOctahedron::new(c.view(), o.up.min, o.down.max))
    }
}

// ---- Obbs ----

impl Bind<Obbs> for Sphere {
    type Kernel<'a> = Either<ObbsVsSphere<'a, false>, ObbsVsSphere<'a, true>>;
    fn bind<'a>(&self, c: &'a Obbs) -> Option<Self::Kernel<'a>> {
        let s = screen_sphere(self)?;
        let (scaled, r2) = squared_radius(s.radius);
        let (cols, center) = (c.view(), s.center);
        Some(if scaled {
            Either::Rare(ObbsVsSphere { cols, center, r2 })
        } else {
            Either::Common(ObbsVsSphere { cols, center, r2 })
        })
    }
}

impl Bind<Obbs> for [f32; 3] {
    type Kernel<'a> = ObbsVsSphere<'a, false>;
    fn bind<'a>(&self, c: &'a Obbs) -> Option<Self::Kernel<'a>> {
        let p = screen_point(self)?;
        Some(ObbsVsSphere {
            cols: c.view(),
            center: p,
            r2: 0.0,
        })
    }
}

impl Bind<Obbs> for Conservative<Sphere> {
    type Kernel<'a> = ObbsVsSphereConservative<'a>;
    fn bind<'a>(&self, c: &'a Obbs) -> Option<Self::Kernel<'a>> {
        let s = screen_sphere(&self.0)?;
        Some(ObbsVsSphereConservative {
            cols: c.view(),
            center: s.center,
            reach: widened_radius(s.radius),
        })
    }
}

impl Bind<Obbs> for Obb {
    type Kernel<'a> = ObbsVsObb<'a>;
    fn bind<'a>(&self, c: &'a Obbs) -> Option<Self::Kernel<'a>> {
        let (o, orthonormal) = screen_obb(self)?;
        Some(obbs_vs_obb(c, &o, orthonormal))
    }
}

impl Bind<Aabbs> for Obb {
    type Kernel<'a> = Either<AabbsVsObb<'a>, AabbsVsBox<'a>>;
    fn bind<'a>(&self, c: &'a Aabbs) -> Option<Self::Kernel<'a>> {
        let (o, orthonormal) = screen_obb(self)?;
        Some(if orthonormal {
            Either::Common(aabbs_vs_obb(c, &o))
        } else {
            // Not orthonormal: its bounding box (rounded outward) contains it; the box test is
            // exact on that box (infinite bounds are half-spaces).
            let bb = o.aabb();
            Either::Rare(AabbsVsBox {
                cols: c.view(),
                q_min: bb.min,
                q_max: bb.max,
            })
        })
    }
}

// ---- Frustum ----

impl Bind<Spheres> for Frustum {
    type Kernel<'a> = SpheresVsFrustum<'a>;
    fn bind<'a>(&self, c: &'a Spheres) -> Option<SpheresVsFrustum<'a>> {
        let k = screen_frustum(self)?;
        Some(SpheresVsFrustum { cols: c.view(), k })
    }
}

impl Bind<Aabbs> for Frustum {
    type Kernel<'a> = AabbsVsFrustum<'a>;
    fn bind<'a>(&self, c: &'a Aabbs) -> Option<AabbsVsFrustum<'a>> {
        let k = screen_frustum(self)?;
        Some(AabbsVsFrustum {
            cols: c.view(),
            pick: k.p_vertex_columns(),
            k,
        })
    }
}

/// `Conservative(q)` runs the same test as `q` (a pair with no cheaper test), or its own.
macro_rules! conservative_bind {
    (same, $q:ty, $c:ty) => {
        impl Bind<$c> for Conservative<$q> {
            type Kernel<'a> = <$q as Bind<$c>>::Kernel<'a>;
            #[inline]
            fn bind<'a>(&self, c: &'a $c) -> Option<Self::Kernel<'a>> {
                self.0.bind(c)
            }
        }
    };
    (own, $q:ty, $c:ty) => {};
}

/// The table of supported pairs, written once: for each container, each query type, the column
/// of the README's table it belongs to, and whether `Conservative` of it runs the same test
/// (`same`) or a cheaper one of its own (`own`, bound above). Every row becomes a public
/// [`Query`] for the query and for `Conservative` of it; [`PAIRS`] lists the rows for the test
/// that checks the README's and the crate docs' tables against this one.
macro_rules! pair_table {
    ($($c:ident { $($q:ty => $column:literal, $conservative:ident;)* })*) => {
        $($(
            impl Query<$c> for $q {}
            impl Query<$c> for Conservative<$q> {}
            conservative_bind!($conservative, $q, $c);
        )*)*

        /// The rows of [`pair_table!`], for the tests.
        #[cfg(test)]
        pub(crate) const PAIRS: &[Pair] = &[$($(Pair {
            container: stringify!($c),
            query: stringify!($q),
            column: $column,
            own_conservative: matches!(stringify!($conservative).as_bytes(), b"own"),
        },)*)*];
    };
}

/// One row of [`pair_table!`].
#[cfg(test)]
pub(crate) struct Pair {
    /// The container type's name.
    pub(crate) container: &'static str,
    /// The query type as written in the table.
    pub(crate) query: &'static str,
    /// The column of the README's table (`point`, `Sphere`, `Aabb`, ...).
    pub(crate) column: &'static str,
    /// Whether `Conservative` of the query runs a cheaper test of its own.
    pub(crate) own_conservative: bool,
}

pair_table! {
    Spheres {
        [f32; 3] => "point", same;
        Sphere => "Sphere", same;
        Aabb => "Aabb", same;
        Frustum => "Frustum", same;
    }
    Aabbs {
        [f32; 3] => "point", same;
        Sphere => "Sphere", own;
        Aabb => "Aabb", same;
        Staged => "Aabb", same;
        Obb => "Obb", same;
        Frustum => "Frustum", same;
    }
    UpTets {
        [f32; 3] => "point", same;
        DownTet => "DownTet", same;
    }
    DownTets {
        [f32; 3] => "point", same;
        UpTet => "UpTet", same;
    }
    Octahedra {
        [f32; 3] => "point", same;
        DownTet => "DownTet", same;
        UpTet => "UpTet", same;
        Octahedron => "Octahedron", own;
    }
    Obbs {
        [f32; 3] => "point", same;
        Sphere => "Sphere", own;
        Obb => "Obb", same;
    }
}

#[cfg(test)]
mod tests {
    use super::PAIRS;

    /// The supported-pairs table of a markdown text: the header's query columns and, per
    /// container row, its cells (backticks and link brackets removed).
    fn table(text: &str, doc_prefix: &str) -> (Vec<String>, Vec<(String, Vec<String>)>) {
        let rows: Vec<Vec<String>> = text
            .lines()
            .map(|l| l.trim_start().trim_start_matches(doc_prefix).trim())
            .skip_while(|l| !l.starts_with("| container \\ query"))
            .take_while(|l| l.starts_with('|'))
            .map(|l| {
                let l = l.trim_matches('|');
                l.split('|')
                    .map(|c| c.replace(['`', '[', ']'], "").trim().to_owned())
                    .collect()
            })
            .collect();
        assert!(rows.len() > 2, "no supported-pairs table found");
        let columns = rows[0][1..]
            .iter()
            .map(|h| h.split_whitespace().next().unwrap_or("").to_owned())
            .collect();
        let body = rows[2..]
            .iter()
            .map(|r| {
                let container = r[0].split_whitespace().next().unwrap_or("").to_owned();
                (container, r[1..].to_vec())
            })
            .collect();
        (columns, body)
    }

    /// Every cell of the table is filled iff the pair table has a row for it; a cell names
    /// `Conservative` iff the pair has a cheaper conservative test, and `Staged` iff the
    /// container takes `Staged` queries.
    fn check(name: &str, text: &str, doc_prefix: &str) {
        let (columns, body) = table(text, doc_prefix);
        let containers: Vec<&str> = PAIRS.iter().map(|p| p.container).collect();
        for c in &containers {
            assert!(
                body.iter().any(|(row, _)| row == c),
                "{name}: no row for container {c}"
            );
        }
        for (container, cells) in &body {
            assert!(
                containers.contains(&container.as_str()),
                "{name}: row {container} is not a container of the pair table"
            );
            assert_eq!(cells.len(), columns.len(), "{name}: row {container}");
            for (column, cell) in columns.iter().zip(cells) {
                let pairs: Vec<_> = PAIRS
                    .iter()
                    .filter(|p| p.container == container && p.column == column)
                    .collect();
                assert_eq!(
                    !cell.is_empty(),
                    !pairs.is_empty(),
                    "{name}: {container} x {column}: cell {cell:?} against {} pair(s)",
                    pairs.len()
                );
                let own = pairs.iter().any(|p| p.own_conservative);
                assert_eq!(
                    cell.contains("Conservative"),
                    own,
                    "{name}: {container} x {column}: cell {cell:?}, own conservative test {own}"
                );
                let staged = pairs.iter().any(|p| p.query == "Staged");
                assert_eq!(
                    cell.contains("Staged"),
                    staged,
                    "{name}: {container} x {column}: cell {cell:?}"
                );
            }
        }
    }

    #[test]
    fn the_readme_table_matches_the_pair_table() {
        check("README.md", include_str!("../../README.md"), "");
    }

    #[test]
    fn the_crate_docs_table_matches_the_pair_table() {
        check("src/lib.rs", include_str!("../lib.rs"), "//!");
    }

    #[test]
    fn the_table_check_fails_on_a_missing_or_extra_cell() {
        let readme = include_str!("../../README.md");
        let dropped = readme.replace("| `UpTets` | exact |", "| `UpTets` | |");
        assert_ne!(dropped, readme, "the README row changed: update this test");
        let extra = readme.replace("| `DownTets` | exact | |", "| `DownTets` | exact | exact |");
        assert_ne!(extra, readme, "the README row changed: update this test");
        for bad in [dropped, extra] {
            let caught = std::panic::catch_unwind(|| check("mutated", &bad, ""));
            assert!(caught.is_err(), "a wrong table passed the check");
        }
    }
}
