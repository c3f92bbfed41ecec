//! Constructors that compute bounds contain their input exactly (outward rounding):
//! `Aabb::from_points`, `Aabb::from_sphere`, `Octahedron::from_points`, `::from_aabb` (all eight
//! corners), `::from_sphere` (`t_k(center) -/+ sqrt(3) r`), `UpTet::circumscribed` (the up
//! tetrahedron's four vertices), `UpTet::inscribed` (its vertices inside), and the same for
//! `DownTet`; `Sphere::from_aabb` (all eight corners) and `Sphere::from_points`, checked in
//! integers on a grid of `2^-45` and tight to two f32 steps. Containment is checked exactly (the `Exact` fixed point of `common`; f64 cannot hold
//! `1.0 + 1e-20`), or in f64 where the brief's formula involves `sqrt(3)`. Random and adversarial
//! inputs. Also: a user vector type implementing `Into<[f32; 3]>` works with the constructors,
//! and the point-set constructors take points owned or borrowed (`Vec`, array, `&Vec`, slice,
//! iterators of points or of references, of `[f32; 3]` or the user type) with bit-identical
//! results and errors.

use crate::common;

use bvlanes::{Aabb, Aabbs, Backend, DownTet, Octahedra, Octahedron, Sphere, TET_AXES, UpTet};
use common::*;
use core::cmp::Ordering;

/// Random and adversarial points (finite).
fn points(rng: &mut TestRng, n: usize) -> Vec<[f32; 3]> {
    (0..n)
        .map(|_| match rng.below(4) {
            0 => rng.near([0.0; 3], 10.0),
            1 => <[f32; 3]>::adversarial(rng),
            2 => rng.near([0.0; 3], 1.0).map(|v| v * 1e-20 + 1.0), // 1 + tiny: sums round
            _ => rng.near([0.0; 3], 1.0).map(|v| (v * 10.0).round() * 0.1), // 0.1 multiples
        })
        .collect()
}

fn spheres(rng: &mut TestRng, n: usize) -> Vec<Sphere> {
    (0..n)
        .map(|_| match rng.below(3) {
            0 => Sphere::random(rng, [0.0; 3], 5.0),
            1 => Sphere::adversarial(rng),
            _ => Sphere::new(
                rng.near([0.0; 3], 1.0).map(|v| v * 1e-20 + 1.0),
                rng.pick(&[0.1, 1e-20, 0.2, 3.0, 1e-45]),
            ),
        })
        .collect()
}

/// `lo <= x` exactly, where `lo` may be `-inf`.
fn below(lo: f32, x: Exact) -> bool {
    lo == f32::NEG_INFINITY || (lo.is_finite() && Exact::of(lo) <= x)
}

/// `x <= hi` exactly, where `hi` may be `+inf`.
fn above(hi: f32, x: Exact) -> bool {
    hi == f32::INFINITY || (hi.is_finite() && x <= Exact::of(hi))
}

fn exact3(p: [f32; 3]) -> [Exact; 3] {
    p.map(Exact::of)
}

// ---- Aabb ----

#[test]
fn aabb_from_points_is_the_exact_hull() {
    let mut rng = TestRng::new(1);
    for n in 1..200 {
        let pts = points(&mut rng, n % 9 + 1);
        let b = Aabb::from_points(pts.iter().copied()).expect("finite points");
        for i in 0..3 {
            let lo = pts.iter().map(|p| p[i]).fold(f32::INFINITY, f32::min);
            let hi = pts.iter().map(|p| p[i]).fold(f32::NEG_INFINITY, f32::max);
            assert_eq!(b.min[i], lo, "{pts:?}");
            assert_eq!(b.max[i], hi, "{pts:?}");
        }
        assert!(b.is_valid());
        // Every point hits the box, on every backend.
        let c = Aabbs::from_slice(&[b]).expect("valid");
        for &bk in Backend::available() {
            let p = c.with_backend(bk).expect("available");
            for q in &pts {
                assert_eq!(p.count_hits(q), 1, "{bk}: {q:?} outside {b:?}");
            }
        }
    }
}

#[test]
fn aabb_from_sphere_rounds_outward_by_one_step_at_most() {
    let mut rng = TestRng::new(2);
    let mut rounded = 0;
    for s in spheres(&mut rng, 3000) {
        let b = Aabb::from_sphere(&s);
        let r = Exact::of(s.radius);
        for i in 0..3 {
            let c = Exact::of(s.center[i]);
            let (lo, hi) = (c - r, c + r);
            assert!(below(b.min[i], lo), "{s:?}: min {} above c - r", b.min[i]);
            assert!(above(b.max[i], hi), "{s:?}: max {} below c + r", b.max[i]);
            // Tight: the next f32 inward is on the wrong side (the bound is the directed
            // rounding of the exact value, not further out).
            let inward_lo = b.min[i].next_up();
            assert!(
                inward_lo.is_finite() && Exact::of(inward_lo) > lo || !inward_lo.is_finite(),
                "{s:?}: min {} is not the largest f32 below c - r",
                b.min[i]
            );
            let inward_hi = b.max[i].next_down();
            assert!(
                inward_hi.is_finite() && Exact::of(inward_hi) < hi || !inward_hi.is_finite(),
                "{s:?}: max {} is not the smallest f32 above c + r",
                b.max[i]
            );
            rounded += usize::from(b.min[i].is_finite() && Exact::of(b.min[i]) != lo);
        }
    }
    assert!(rounded > 100, "inputs whose sums round: {rounded}");
    // The docs' example.
    let b = Aabb::from_sphere(&Sphere::new([0.1, 0.0, 0.0], 0.2));
    assert!(f64::from(b.max[0]) >= f64::from(0.1f32) + f64::from(0.2f32));
    assert!(f64::from(b.min[0]) <= f64::from(0.1f32) - f64::from(0.2f32));
}

#[test]
fn aabb_from_sphere_overflow_and_infinite_radius() {
    let b = Aabb::from_sphere(&Sphere::new([-3e38, 0.0, 3e38], 1e38));
    assert_eq!(b.min[0], f32::NEG_INFINITY, "-4e38 rounded down");
    assert_eq!(b.max[2], f32::INFINITY, "4e38 rounded up");
    assert!(b.max[0].is_finite() && b.min[2].is_finite());
    let b = Aabb::from_sphere(&Sphere::new([1.0, 2.0, 3.0], f32::INFINITY));
    assert_eq!(b, Aabb::new([f32::NEG_INFINITY; 3], [f32::INFINITY; 3]));
}

// ---- Octahedron ----

/// Exact `t_k(p)` of a finite point.
fn projections(p: [f32; 3]) -> [Exact; 4] {
    exact_projections(exact3(p))
}

fn contains_point(o: &Octahedron, p: [f32; 3]) -> bool {
    let t = projections(p);
    (0..4).all(|k| below(o.up.min[k], t[k]) && above(o.down.max[k], t[k]))
}

#[test]
fn octahedron_from_points_contains_every_point_exactly() {
    let mut rng = TestRng::new(3);
    let mut rounded = 0;
    for n in 0..1500 {
        let pts = points(&mut rng, n % 7 + 1);
        let o = Octahedron::from_points(pts.iter().copied()).expect("finite points");
        for p in &pts {
            assert!(contains_point(&o, *p), "{o:?} does not contain {p:?}");
        }
        // Outward, but not far: each bound is within two roundings (each projection is two
        // rounded additions) at the points' magnitude of the extreme exact projection.
        let scale = pts
            .iter()
            .map(|p| p[0].abs() + p[1].abs() + p[2].abs())
            .fold(0.0f32, f32::max)
            * 2.0;
        if !scale.next_up().is_finite() {
            continue; // near overflow: bounds may be infinite
        }
        let ulp = Exact::of(scale.next_up() - scale);
        for k in 0..4 {
            let exact: Vec<Exact> = pts.iter().map(|p| projections(*p)[k]).collect();
            let lowest = *exact.iter().min().expect("points");
            let highest = *exact.iter().max().expect("points");
            let below_by = lowest - Exact::of(o.up.min[k]);
            let above_by = Exact::of(o.down.max[k]) - highest;
            assert!(below_by <= ulp + ulp, "{pts:?}: up bound {k} too far out");
            assert!(above_by <= ulp + ulp, "{pts:?}: down bound {k} too far out");
            rounded += usize::from(below_by.signum() == Ordering::Greater);
        }
    }
    assert!(rounded > 100, "inputs whose projections round: {rounded}");
}

#[test]
fn octahedron_from_points_works_in_queries() {
    let mut rng = TestRng::new(4);
    for n in 1..120 {
        let pts = points(&mut rng, n % 5 + 1);
        let o = Octahedron::from_points(pts.iter().copied()).expect("finite");
        if !o.is_valid() {
            // Huge points: a bound rounded outward past f32::MAX is infinite, which containers
            // refuse (the octahedron still contains its points as a query).
            assert!(o.up.min.iter().chain(&o.down.max).any(|v| !v.is_finite()));
            continue;
        }
        let c = Octahedra::from_slice(&[o, o]).expect("valid");
        for &bk in Backend::available() {
            let p = c.with_backend(bk).expect("available");
            for q in &pts {
                assert_eq!(p.count_hits(q), 2, "{bk}: {q:?} outside {o:?}");
            }
        }
    }
}

/// `2^100`: sums of a few of them are exact.
const P100: f32 = f32::from_bits((127 + 100) << 23);

#[test]
fn octahedron_from_points_is_exact_when_the_sums_are() {
    // Small integers and dyadics: every projection is exact, so the octahedron of one point is
    // exactly that point (up == down).
    for p in [
        [1.0, 2.0, 3.0],
        [-0.5, 0.25, 8.0],
        [0.0, -0.0, 0.0],
        [P100, P100, -P100],
    ] {
        let o = Octahedron::from_points([p]).expect("finite");
        let t = TET_AXES.map(|n| n[0] * p[0] + n[1] * p[1] + n[2] * p[2]);
        assert_eq!(o.up.min, t, "{p:?}");
        assert_eq!(o.down.max, t, "{p:?}");
    }
}

#[test]
fn octahedron_from_aabb_contains_all_eight_corners_and_equals_from_points() {
    let mut rng = TestRng::new(5);
    for i in 0..2000 {
        let b = if i % 2 == 0 {
            Aabb::random(&mut rng, [0.0; 3], 5.0)
        } else {
            Aabb::adversarial(&mut rng)
        };
        let o = Octahedron::from_aabb(&b);
        let corners: Vec<[f32; 3]> = (0..8)
            .map(|m| {
                core::array::from_fn(|a| {
                    if m & (1 << a) != 0 {
                        b.max[a]
                    } else {
                        b.min[a]
                    }
                })
            })
            .collect();
        for p in &corners {
            assert!(contains_point(&o, *p), "{o:?} misses corner {p:?} of {b:?}");
        }
        // The extreme corner along each axis gives the bound: the same as the corners' hull.
        assert_eq!(
            o,
            Octahedron::from_points(corners).expect("finite"),
            "{b:?}"
        );
    }
    // The docs' example.
    let o = Octahedron::from_aabb(&Aabb::new([0.0; 3], [1.0; 3]));
    assert_eq!(o.up.min, [0.0, -2.0, -2.0, -2.0]);
    assert_eq!(o.down.max, [3.0, 1.0, 1.0, 1.0]);
}

#[test]
fn octahedron_from_sphere_contains_the_sphere() {
    let mut rng = TestRng::new(6);
    let sqrt3 = 3f64.sqrt();
    for s in spheres(&mut rng, 3000) {
        let o = Octahedron::from_sphere(&s);
        for (k, n) in TET_AXES.iter().enumerate() {
            // The projection exactly (an f64 sum would drop the 2 in 2 + 1e20 - 1e20), then f64.
            let terms: Vec<f32> = (0..3).map(|i| n[i] * s.center[i]).collect();
            let t = Exact::sum(&terms).approx();
            let reach = sqrt3 * f64::from(s.radius);
            assert!(
                f64::from(o.up.min[k]) <= t - reach,
                "{s:?}: up {k} = {} above {}",
                o.up.min[k],
                t - reach
            );
            assert!(
                f64::from(o.down.max[k]) >= t + reach,
                "{s:?}: down {k} = {} below {}",
                o.down.max[k],
                t + reach
            );
        }
        // Its box is inside it too (the octahedron of a sphere contains the sphere, not its box,
        // but the sphere's extreme points along the box axes are in both).
        for i in 0..3 {
            for sign in [-1.0f64, 1.0] {
                for (k, n) in TET_AXES.iter().enumerate() {
                    // t_k(center) exactly, then the step of the radius along axis i.
                    let terms: Vec<f32> = (0..3).map(|a| n[a] * s.center[a]).collect();
                    let t =
                        Exact::sum(&terms).approx() + f64::from(n[i]) * sign * f64::from(s.radius);
                    assert!(f64::from(o.up.min[k]) <= t && t <= f64::from(o.down.max[k]));
                }
            }
        }
    }
}

#[test]
fn octahedron_from_sphere_queries_contain_sampled_surface_points() {
    let mut rng = TestRng::new(7);
    for _ in 0..200 {
        let s = Sphere::random(&mut rng, [0.0; 3], 5.0);
        let o = Octahedron::from_sphere(&s);
        let c = Octahedra::from_slice(&[o]).expect("valid");
        let mut inside = 0;
        for _ in 0..20 {
            // A point on (or just inside) the sphere, rounded to f32 toward the centre.
            let v = [rng.sym(1.0), rng.sym(1.0), rng.sym(1.0)].map(f64::from);
            let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            if n < 1e-3 {
                continue;
            }
            let p: [f32; 3] = core::array::from_fn(|i| {
                let exact = f64::from(s.center[i]) + f64::from(s.radius) * v[i] / n;
                let f = exact as f32;
                // round toward the centre so the point is truly inside
                if (f64::from(f) - f64::from(s.center[i])).abs()
                    > (exact - f64::from(s.center[i])).abs()
                {
                    if f > s.center[i] {
                        f.next_down()
                    } else {
                        f.next_up()
                    }
                } else {
                    f
                }
            });
            for &bk in Backend::available() {
                assert_eq!(
                    c.with_backend(bk).expect("ok").count_hits(&p),
                    1,
                    "{s:?} {p:?}"
                );
            }
            inside += 1;
        }
        assert!(inside > 0);
    }
}

// ---- Tetrahedra: circumscribed and inscribed ----

/// The four vertices of the up tetrahedron `{t >= min}`: three bounds tight, the fourth from
/// `sum(t) = 0`. `None` for an empty tetrahedron (no vertices).
fn up_vertices(min: [f32; 4]) -> Option<[[Exact; 4]; 4]> {
    let m = min.map(Exact::of);
    let s = m[0] + m[1] + m[2] + m[3];
    (s.signum() != Ordering::Greater).then(|| {
        core::array::from_fn(|k| core::array::from_fn(|j| if j == k { m[j] - s } else { m[j] }))
    })
}

/// The four vertices of the down tetrahedron `{t <= max}`.
fn down_vertices(max: [f32; 4]) -> Option<[[Exact; 4]; 4]> {
    let m = max.map(Exact::of);
    let s = m[0] + m[1] + m[2] + m[3];
    (s.signum() != Ordering::Less).then(|| {
        core::array::from_fn(|k| core::array::from_fn(|j| if j == k { m[j] - s } else { m[j] }))
    })
}

/// Checks that 4-D vertex coordinates describe a 3-D point with the axis convention: the point
/// `x = (tA + tB) / 2, y = (tA + tC) / 2, z = (tA + tD) / 2` projects back onto them along
/// `TET_AXES`. Returns that point's projections.
fn through_3d(t: [Exact; 4]) -> [Exact; 4] {
    let p = exact_point_of(t);
    let back = exact_projections(p);
    assert_eq!(back, t, "the axis convention does not round-trip");
    back
}

fn up_tets(rng: &mut TestRng, n: usize) -> Vec<UpTet> {
    (0..n)
        .map(|i| match i % 4 {
            0 => UpTet::random(rng, [0.0; 3], 4.0),
            1 => UpTet::adversarial(rng),
            // Thin ones: sum(min) a tiny fraction of the bounds.
            2 => {
                let t = project_plain(rng.near([0.0; 3], 1.0).map(|v| v * 1e-20 + 1.0));
                repair_up(t.map(|v| v - 1e-6 * rng.unit()))
            }
            _ => {
                let v = [0.1f32, 0.2, 0.3, 1e-20, 1.0, 3.0];
                let a = [rng.pick(&v), rng.pick(&v), rng.pick(&v)];
                repair_up([a[0], -a[1], a[2], -(a[0] - a[1] + a[2])])
            }
        })
        .filter(|u| u.min.iter().all(|x| x.is_finite()))
        .collect()
}

#[test]
fn up_tet_circumscribed_contains_its_vertices() {
    let mut rng = TestRng::new(8);
    for u in up_tets(&mut rng, 4000) {
        let d = u.circumscribed();
        let verts = up_vertices(u.min).expect("valid up tets are non-empty");
        for v in verts {
            let t = through_3d(v);
            for (k, tk) in t.iter().enumerate() {
                assert!(above(d.max[k], *tk), "{u:?} -> {d:?}: vertex {v:?} outside");
            }
        }
    }
    // The docs' example and the unit test's sum: sum(max) = -3 sum(min) when exact.
    assert_eq!(UpTet::new([-1.0; 4]).circumscribed().max, [3.0; 4]);
}

#[test]
fn down_tet_circumscribed_contains_its_vertices() {
    let mut rng = TestRng::new(9);
    for u in up_tets(&mut rng, 4000) {
        let down = DownTet::new(u.min.map(|x| -x));
        let circ = down.circumscribed();
        let verts = down_vertices(down.max).expect("non-empty");
        for v in verts {
            let t = through_3d(v);
            for (k, tk) in t.iter().enumerate() {
                assert!(
                    below(circ.min[k], *tk),
                    "{down:?} -> {circ:?}: vertex outside"
                );
            }
        }
    }
}

#[test]
fn up_tet_inscribed_vertices_lie_inside() {
    let mut rng = TestRng::new(10);
    let mut checked = 0;
    for u in up_tets(&mut rng, 4000) {
        let d = u.inscribed();
        // An empty result encloses nothing and so is trivially inside (see the next tests).
        let Some(verts) = down_vertices(d.max) else {
            continue;
        };
        checked += 1;
        for v in verts {
            let t = through_3d(v);
            for (k, tk) in t.iter().enumerate() {
                assert!(below(u.min[k], *tk), "{u:?} -> {d:?}: vertex {v:?} outside");
            }
        }
    }
    assert!(checked > 3000, "{checked}");
    // The docs' example.
    let inner = UpTet::new([-1.0; 4]).inscribed().max[0];
    assert!(inner <= 1.0 / 3.0 && inner > 0.333);
}

#[test]
fn down_tet_inscribed_vertices_lie_inside() {
    let mut rng = TestRng::new(11);
    let mut checked = 0;
    for u in up_tets(&mut rng, 4000) {
        let down = DownTet::new(u.min.map(|x| -x));
        let inner = down.inscribed();
        let Some(verts) = up_vertices(inner.min) else {
            continue;
        };
        checked += 1;
        for v in verts {
            let t = through_3d(v);
            for (k, tk) in t.iter().enumerate() {
                assert!(
                    above(down.max[k], *tk),
                    "{down:?} -> {inner:?}: vertex outside"
                );
            }
        }
    }
    assert!(checked > 3000, "{checked}");
}

/// The inscribed tetrahedron of a tetrahedron that is not nearly flat is non-empty (a valid
/// primitive): its sum is `-sum(min) / 3`, far above the few roundings.
#[test]
fn inscribed_of_a_roomy_tetrahedron_is_valid() {
    let mut rng = TestRng::new(12);
    for _ in 0..3000 {
        let size = rng.range(0.5, 5.0);
        let u = UpTet::random(&mut rng, [0.0; 3], size);
        let m = u.min.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        if Exact::sum(&u.min) > -Exact::of(m).scaled_down(16) {
            continue; // nearly flat
        }
        assert!(u.inscribed().is_valid(), "{u:?} -> {:?}", u.inscribed());
        let d = DownTet::new(u.min.map(|x| -x));
        assert!(d.inscribed().is_valid(), "{d:?} -> {:?}", d.inscribed());
        assert!(u.circumscribed().is_valid() && d.circumscribed().is_valid());
    }
}

/// A single-point tetrahedron (sum exactly 0) has itself as its largest inscribed tetrahedron,
/// even when a running f32 sum would round (1 + 1e-20 - 1 - 1e-20). Regression: the sums used to
/// be rounded step by step, and the rounded-inward result came out empty.
#[test]
fn inscribed_of_a_point_is_that_point() {
    for min in [
        [1.0, 1e-20, -1.0, -1e-20],
        [0.1, 0.2, -0.1, -0.2],
        [3.0, 1e-30, -3.0, -1e-30],
    ] {
        let u = UpTet::new(min);
        assert!(u.is_valid(), "{u:?}");
        let d = u.inscribed();
        assert!(d.is_valid(), "{u:?}.inscribed() = {d:?} is empty");
        let dd = DownTet::new(min);
        let uu = dd.inscribed();
        assert!(uu.is_valid(), "{dd:?}.inscribed() = {uu:?} is empty");
    }
}

// ---- A user vector type (glam's Vec3 stand-in) ----

#[derive(Clone, Copy, Debug, PartialEq)]
struct Vec3 {
    x: f32,
    y: f32,
    z: f32,
}

impl Vec3 {
    const fn new(x: f32, y: f32, z: f32) -> Vec3 {
        Vec3 { x, y, z }
    }
}

impl From<Vec3> for [f32; 3] {
    fn from(v: Vec3) -> [f32; 3] {
        [v.x, v.y, v.z]
    }
}

#[test]
fn user_vector_types_work_with_the_constructors() {
    let (a, b) = (Vec3::new(1.0, 5.0, 0.0), Vec3::new(-1.0, 2.0, 3.0));
    assert_eq!(
        Aabb::new(a, b),
        Aabb::new([1.0, 5.0, 0.0], [-1.0, 2.0, 3.0])
    );
    assert_eq!(
        Aabb::from_points([a, b]),
        Aabb::from_points([[1.0, 5.0, 0.0], [-1.0, 2.0, 3.0]])
    );
    assert_eq!(
        Aabb::from_points(vec![a, b]).expect("finite"),
        Aabb::new([-1.0, 2.0, 0.0], [1.0, 5.0, 3.0])
    );
    assert_eq!(Sphere::new(a, 2.0), Sphere::new([1.0, 5.0, 0.0], 2.0));
    let pts = [a, b, Vec3::new(0.1, 0.2, 0.3)];
    assert_eq!(
        Octahedron::from_points(pts.iter().copied()),
        Octahedron::from_points(pts.map(<[f32; 3]>::from))
    );
    assert_eq!(
        Aabb::from_points([Vec3::new(f32::NAN, 0.0, 0.0)]),
        Err(bvlanes::BvError::NonFinite { index: 0 })
    );
    // And the points themselves as queries, converted.
    let o = Octahedron::from_points(pts).expect("finite");
    let c = Octahedra::from_slice(&[o]).expect("valid");
    for p in pts {
        assert_eq!(c.count_hits(&<[f32; 3]>::from(p)), 1);
    }
}

// ---- Owned and borrowed points ----

fn aabb_bits(b: Aabb) -> [u32; 6] {
    let [x, y, z] = b.min.map(f32::to_bits);
    let [u, v, w] = b.max.map(f32::to_bits);
    [x, y, z, u, v, w]
}

fn oct_bits(o: Octahedron) -> [u32; 8] {
    let [a, b, c, d] = o.up.min.map(f32::to_bits);
    let [e, f, g, h] = o.down.max.map(f32::to_bits);
    [a, b, c, d, e, f, g, h]
}

/// The results of every owned and borrowed form of `points`, as bits (errors as they are).
#[allow(clippy::type_complexity)]
fn every_form(
    points: &[[f32; 3]],
) -> Vec<(
    &'static str,
    Result<[u32; 6], bvlanes::BvError>,
    Result<[u32; 8], bvlanes::BvError>,
)> {
    let aabb = |r: Result<Aabb, _>| r.map(aabb_bits);
    let oct = |r: Result<Octahedron, _>| r.map(oct_bits);
    let owned: Vec<[f32; 3]> = points.to_vec();
    let user: Vec<Vec3> = points.iter().map(|p| Vec3::new(p[0], p[1], p[2])).collect();
    vec![
        (
            "Vec by value",
            aabb(Aabb::from_points(owned.clone())),
            oct(Octahedron::from_points(owned.clone())),
        ),
        (
            "&Vec",
            aabb(Aabb::from_points(&owned)),
            oct(Octahedron::from_points(&owned)),
        ),
        (
            "&slice",
            aabb(Aabb::from_points(&owned[..])),
            oct(Octahedron::from_points(&owned[..])),
        ),
        (
            "slice param",
            aabb(Aabb::from_points(points)),
            oct(Octahedron::from_points(points)),
        ),
        (
            "iter of references",
            aabb(Aabb::from_points(owned.iter())),
            oct(Octahedron::from_points(owned.iter())),
        ),
        (
            "iter().copied()",
            aabb(Aabb::from_points(owned.iter().copied())),
            oct(Octahedron::from_points(owned.iter().copied())),
        ),
        (
            "filtered iter of references",
            aabb(Aabb::from_points(owned.iter().filter(|_| true))),
            oct(Octahedron::from_points(owned.iter().filter(|_| true))),
        ),
        (
            "user type Vec by value",
            aabb(Aabb::from_points(user.clone())),
            oct(Octahedron::from_points(user.clone())),
        ),
        (
            "user type &Vec",
            aabb(Aabb::from_points(&user)),
            oct(Octahedron::from_points(&user)),
        ),
        (
            "user type &slice",
            aabb(Aabb::from_points(&user[..])),
            oct(Octahedron::from_points(&user[..])),
        ),
        (
            "user type iter of references",
            aabb(Aabb::from_points(user.iter())),
            oct(Octahedron::from_points(user.iter())),
        ),
        (
            "user type iter by value",
            aabb(Aabb::from_points(user.iter().copied())),
            oct(Octahedron::from_points(user.iter().copied())),
        ),
        (
            "point type named",
            aabb(Aabb::from_points::<[f32; 3]>(&owned)),
            oct(Octahedron::from_points::<Vec3>(&user)),
        ),
    ]
}

fn assert_every_form_agrees(points: &[[f32; 3]]) {
    let forms = every_form(points);
    let (_, want_b, want_o) = &forms[0];
    for (name, b, o) in &forms {
        assert_eq!(b, want_b, "Aabb::from_points, {name}, {points:?}");
        assert_eq!(o, want_o, "Octahedron::from_points, {name}, {points:?}");
    }
}

#[test]
fn owned_and_borrowed_points_give_identical_results() {
    let mut rng = TestRng::new(19);
    for n in 1..120 {
        let pts = points(&mut rng, n);
        assert_every_form_agrees(&pts);
        let forms = every_form(&pts);
        assert!(forms[0].1.is_ok() && forms[0].2.is_ok(), "{pts:?}");
    }
    // Outward rounding unchanged: 1 + 1e-20 makes the octahedron's sums round.
    let pts = [[1.0, 1e-20, 0.0], [-1e-20, 1.0, 3.0], [0.1, 0.2, 0.3]];
    assert_every_form_agrees(&pts);
    assert_eq!(
        Octahedron::from_points(pts.iter()).expect("finite"),
        Octahedron::from_points(pts).expect("finite")
    );
}

#[test]
fn owned_and_borrowed_points_give_identical_errors() {
    assert_every_form_agrees(&[]);
    assert_eq!(every_form(&[])[1].1, Err(bvlanes::BvError::NoPoints));
    for &bad in &[f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        for at in [0, 1, 4] {
            let mut pts = vec![[1.0f32, 2.0, 3.0]; 6];
            pts[at][at % 3] = bad;
            pts[5] = [f32::NAN; 3]; // a later bad point: the first is named
            assert_every_form_agrees(&pts);
            let forms = every_form(&pts);
            let want = bvlanes::BvError::NonFinite { index: at };
            for (name, b, o) in &forms {
                assert_eq!(*b, Err(want), "{name}");
                assert_eq!(*o, Err(want), "{name}");
            }
        }
    }
}

/// Generic code over the point type keeps compiling, owned and borrowed.
fn hull_of<P: Copy + Into<[f32; 3]>>(points: &[P]) -> (Aabb, Aabb, Octahedron) {
    (
        Aabb::from_points(points).expect("points"),
        Aabb::from_points(points.to_vec()).expect("points"),
        Octahedron::from_points(points.iter()).expect("points"),
    )
}

#[test]
fn generic_point_types_work_owned_and_borrowed() {
    let pts = [[1.0, 5.0, 0.0], [-1.0, 2.0, 3.0]];
    let user = pts.map(|p| Vec3::new(p[0], p[1], p[2]));
    let want = Aabb::new([-1.0, 2.0, 0.0], [1.0, 5.0, 3.0]);
    for (a, b, o) in [hull_of(&pts), hull_of(&user)] {
        assert_eq!((a, b), (want, want));
        assert_eq!(o, Octahedron::from_points(pts).expect("points"));
    }
    // Arrays by reference (clippy would pass a `Copy` array by value; the reference is the test),
    // tuples by value.
    #[allow(clippy::needless_borrows_for_generic_args)]
    let by_reference = Aabb::from_points(&pts);
    assert_eq!(by_reference, Ok(want));
    assert_eq!(
        Aabb::from_points([(1.0f32, 5.0f32, 0.0f32), (-1.0, 2.0, 3.0)]),
        Ok(want)
    );
}

/// A point type converting both by value and by reference (some math crates do): `&T` is then a
/// point both ways, and the point type must be named.
#[derive(Clone, Copy)]
struct BothWays([f32; 3]);

impl From<BothWays> for [f32; 3] {
    fn from(v: BothWays) -> [f32; 3] {
        v.0
    }
}

impl From<&BothWays> for [f32; 3] {
    fn from(v: &BothWays) -> [f32; 3] {
        v.0
    }
}

#[test]
fn a_type_converting_by_reference_too_works_with_the_point_type_named() {
    let pts = [BothWays([1.0, 5.0, 0.0]), BothWays([-1.0, 2.0, 3.0])];
    let want = Aabb::new([-1.0, 2.0, 0.0], [1.0, 5.0, 3.0]);
    assert_eq!(Aabb::from_points(pts), Ok(want));
    assert_eq!(Aabb::from_points::<BothWays>(&pts), Ok(want));
    assert_eq!(Aabb::from_points::<&BothWays>(&pts), Ok(want));
    assert_eq!(
        Octahedron::from_points::<BothWays>(&pts),
        Octahedron::from_points(pts)
    );
}

#[test]
fn infinite_inputs_never_make_nan_bounds() {
    // Found in review: finite terms overflowing before an infinity of the other sign made the
    // directed sums NaN (then the octahedron query hit nothing: a false negative).
    use bvlanes::{Aabb, Octahedron, UpTet};
    let inf = f32::INFINITY;
    let o = Octahedron::from_aabb(&Aabb::new([3e38, 3e38, -inf], [inf; 3]));
    assert!(
        o.up.min.iter().chain(&o.down.max).all(|v| !v.is_nan()),
        "{o:?}"
    );
    let d = UpTet::new([3e38, 3e38, -inf, 0.0]).circumscribed();
    assert_eq!(d.max, [inf; 4]);
    let u = bvlanes::DownTet::new([-3e38, -3e38, inf, 0.0]).circumscribed();
    assert_eq!(u.min, [-inf; 4]);
}

// ---- Sphere ----

/// `v * 2^45` as an integer, if it is one (every finite f32 of magnitude below `2^60` whose
/// last bit is at least `2^-45`): the exact grid of the sphere checks.
fn fixed45(v: f32) -> Option<i128> {
    assert!(v.is_finite() && v.abs() < 1.0e18, "fixed45({v})");
    if v == 0.0 {
        return Some(0);
    }
    let bits = v.to_bits();
    let biased = ((bits >> 23) & 0xff) as i32;
    let (m, e) = if biased == 0 {
        (i128::from(bits & 0x7f_ffff), -149)
    } else {
        (i128::from(bits & 0x7f_ffff | 1 << 23), biased - 150)
    };
    let shift = e + 45;
    let magnitude = if shift >= 0 {
        m << shift
    } else if m & ((1 << -shift) - 1) == 0 {
        m >> -shift
    } else {
        return None;
    };
    Some(if bits >> 31 == 1 {
        -magnitude
    } else {
        magnitude
    })
}

/// `|p - c|^2` exactly, at scale `2^90`, if every value is on the grid of [`fixed45`].
fn distance2(c: [f32; 3], p: [f32; 3]) -> Option<i128> {
    let mut sum = 0;
    for k in 0..3 {
        let d = fixed45(p[k])? - fixed45(c[k])?;
        sum += d * d;
    }
    Some(sum)
}

/// Whether `p` lies within `s`, exactly (`None`: a value off the grid of [`fixed45`]).
fn sphere_holds(s: &Sphere, p: [f32; 3]) -> Option<bool> {
    let r = fixed45(s.radius)?;
    Some(distance2(s.center, p)? <= r * r)
}

/// Checks that `s` holds every point exactly and that its radius is tight: two f32 steps
/// down, it misses the farthest one. Returns whether the check could be made exactly.
fn assert_bounding_sphere(s: &Sphere, points: &[[f32; 3]], what: &str) -> bool {
    assert!(
        s.radius >= 0.0 && s.center.iter().all(|v| v.is_finite()),
        "{what}: {s:?}"
    );
    let mut exact = true;
    for &p in points {
        match sphere_holds(s, p) {
            Some(held) => assert!(held, "{what}: {p:?} outside {s:?}"),
            None => exact = false,
        }
    }
    let smaller = s.radius.next_down().next_down();
    if exact && smaller >= 0.0 {
        let shrunk = Sphere::new(s.center, smaller);
        if let Some(misses) = points
            .iter()
            .map(|&p| sphere_holds(&shrunk, p))
            .try_fold(false, |any, held| held.map(|h| any | !h))
        {
            assert!(misses, "{what}: radius {} is not tight ({s:?})", s.radius);
        }
    }
    exact
}

/// Coordinates on the exact grid: integers, multiples of `2^-10`, values needing all 24 bits
/// near 1,000 (midpoints round), signed zeros, small powers of two.
fn grid_value(rng: &mut TestRng) -> f32 {
    match rng.below(6) {
        0 => rng.below(2001) as f32 - 1000.0,
        1 => (rng.below(1 << 20) as f32 - (1 << 19) as f32) / 1024.0,
        2 => rng.pick(&[
            1000.0f32.next_down(),
            -999.9999,
            1.0 + f32::EPSILON,
            0.0,
            -0.0,
        ]),
        3 => rng.pick(&[0.5f32.powi(20), -0.5f32.powi(13), 3.0 * 0.5f32.powi(18)]),
        _ => {
            let v = rng.sym(1000.0);
            if v.abs() < 0.5f32.powi(21) { 0.0 } else { v }
        }
    }
}

fn corners(b: &Aabb) -> Vec<[f32; 3]> {
    (0..8)
        .map(|i| [0, 1, 2].map(|k| if i >> k & 1 == 0 { b.min[k] } else { b.max[k] }))
        .collect()
}

#[test]
fn sphere_from_aabb_holds_every_corner_exactly_and_is_tight() {
    let mut rng = TestRng::new(31);
    let mut exact = 0;
    for _ in 0..20_000 {
        let (a, c) = (
            [0; 3].map(|_| grid_value(&mut rng)),
            [0; 3].map(|_| grid_value(&mut rng)),
        );
        let b = Aabb::new(
            [0, 1, 2].map(|k| a[k].min(c[k])),
            [0, 1, 2].map(|k| a[k].max(c[k])),
        );
        let s = Sphere::from_aabb(&b);
        assert!(s.is_valid(), "{b:?}: {s:?}");
        for k in 0..3 {
            assert!(
                b.min[k] <= s.center[k] && s.center[k] <= b.max[k],
                "{b:?}: {s:?}"
            );
        }
        exact += usize::from(assert_bounding_sphere(&s, &corners(&b), &format!("{b:?}")));
    }
    assert!(exact > 19_000, "boxes checked exactly: {exact}");
    // Zero size (signed zeros too): radius 0, centre the point.
    for p in [[0.0, -0.0, 5.5], [-0.0; 3], [1e-45, -3e38, 7.0]] {
        let s = Sphere::from_aabb(&Aabb::new(p, p));
        assert_eq!((s.center, s.radius), (p.map(|v| v + 0.0), 0.0), "{p:?}");
    }
    // The docs' example: the corners of [0, 2]^3 at sqrt(3).
    let s = Sphere::from_aabb(&Aabb::new([0.0; 3], [2.0; 3]));
    assert_eq!(s.center, [1.0; 3]);
    assert!(f64::from(s.radius) >= 3f64.sqrt() && s.radius < 1.7321);
}

#[test]
fn sphere_from_aabb_at_extreme_magnitudes() {
    // Subnormal boxes: checked in f64 (differences and squares of subnormal f32 are exact).
    let tiny = Aabb::new([1e-45, 0.0, -3e-45], [4e-45, 1e-45, -1e-45]);
    let s = Sphere::from_aabb(&tiny);
    for p in corners(&tiny) {
        let d2: f64 = (0..3)
            .map(|k| (f64::from(p[k]) - f64::from(s.center[k])).powi(2))
            .sum();
        assert!(d2 <= f64::from(s.radius).powi(2), "{p:?} outside {s:?}");
    }
    assert!(s.radius > 0.0 && s.radius < 1e-44, "{s:?}");
    // Wider than 2^62: past MAX_RADIUS; wider than f32::MAX: infinite; never NaN.
    let s = Sphere::from_aabb(&Aabb::new([-1e19, 0.0, 0.0], [1e19, 0.0, 0.0]));
    assert!(s.radius >= 1e19 && !s.is_valid(), "{s:?}");
    let s = Sphere::from_aabb(&Aabb::new([-3e38; 3], [3e38; 3]));
    assert_eq!((s.center, s.radius), ([0.0; 3], f32::INFINITY));
    let inf = f32::INFINITY;
    for b in [
        Aabb::new([0.0, -inf, 0.0], [1.0, 1.0, 1.0]),
        Aabb::new([0.0; 3], [inf; 3]),
        Aabb::new([f32::NAN, 0.0, 0.0], [1.0; 3]),
    ] {
        let s = Sphere::from_aabb(&b);
        assert_eq!(s.radius, inf, "{b:?}: {s:?}");
        assert!(!s.is_valid());
    }
}

#[test]
fn sphere_from_points_holds_every_point_exactly_and_is_tight() {
    let mut rng = TestRng::new(32);
    let mut exact = 0;
    for n in 1..3000 {
        let pts: Vec<[f32; 3]> = (0..n % 17 + 1)
            .map(|_| [0; 3].map(|_| grid_value(&mut rng)))
            .collect();
        let s = Sphere::from_points(&pts).expect("finite points");
        let b = Aabb::from_points(&pts).expect("finite points");
        assert_eq!(s.center, Sphere::from_aabb(&b).center, "{pts:?}");
        assert!(s.radius <= Sphere::from_aabb(&b).radius, "{pts:?}");
        exact += usize::from(assert_bounding_sphere(&s, &pts, &format!("{pts:?}")));
    }
    assert!(exact > 2800, "point sets checked exactly: {exact}");
    // One point: radius 0.
    assert_eq!(
        Sphere::from_points([[1.5f32, -2.0, 0.25]]).expect("a point"),
        Sphere::new([1.5, -2.0, 0.25], 0.0)
    );
}

#[test]
fn sphere_from_points_takes_every_form_and_names_bad_points() {
    let pts = vec![[1.0f32, 1e-20, 0.0], [-1e-20, 1.0, 3.0], [0.1, 0.2, 0.3]];
    let want = Sphere::from_points(pts.clone()).expect("finite");
    assert_eq!(Sphere::from_points(&pts), Ok(want));
    assert_eq!(Sphere::from_points(&pts[..]), Ok(want));
    assert_eq!(Sphere::from_points(pts.iter()), Ok(want));
    assert_eq!(Sphere::from_points(pts.iter().copied()), Ok(want));
    assert_eq!(Sphere::from_points([pts[0], pts[1], pts[2]]), Ok(want));
    assert_eq!(
        Sphere::from_points(Vec::<[f32; 3]>::new()),
        Err(bvlanes::BvError::NoPoints)
    );
    for &bad in &[f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let mut pts = vec![[1.0f32, 2.0, 3.0]; 5];
        pts[2][1] = bad;
        pts[4] = [f32::NAN; 3];
        assert_eq!(
            Sphere::from_points(&pts),
            Err(bvlanes::BvError::NonFinite { index: 2 })
        );
    }
}
