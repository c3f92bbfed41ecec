//! `Frustum`: plane extraction from view-projection matrices (hand-computed planes, points,
//! corners), the no-false-negative guarantee against real arithmetic (points certified inside in
//! f64; primitives containing them; spheres and boxes touching a plane from outside exactly),
//! the documented conservative excess near edges and corners, and errors and screening.

use crate::common;

use bvlanes::{Aabb, Aabbs, Backend, BvError, Conservative, Frustum, Sphere, Spheres};
use common::*;

/// Relative tolerance of extracted planes: the far plane `w - z` of a perspective matrix suffers
/// cancellation (`-1 - r` with `r = far / (near - far)` near -1), so the f32 rounding of the matrix
/// entries is amplified about `far / near` times.
const TOL: f32 = 1e-5;

fn assert_planes_near(got: &Frustum, want: [[f32; 4]; 6]) {
    for (k, (g, w)) in got.planes.iter().zip(want).enumerate() {
        for i in 0..4 {
            assert!(
                (g[i] - w[i]).abs() <= TOL * w[i].abs().max(1.0),
                "plane {k}: got {g:?}, want {w:?}"
            );
        }
    }
}

/// `n . p + d` in f64 (for a normalised plane, the signed distance).
fn eval(p: [f32; 4], x: [f64; 3]) -> f64 {
    f64::from(p[0]) * x[0] + f64::from(p[1]) * x[1] + f64::from(p[2]) * x[2] + f64::from(p[3])
}

/// Checks that each corner lies on exactly the three planes named (within `tol` times its size)
/// and strictly inside the other three.
fn check_corners(f: &Frustum, corners: &[([f64; 3], [usize; 3])], tol: f64) {
    for (c, on) in corners {
        let size = c.iter().map(|v| v.abs()).fold(1.0, f64::max);
        for (k, p) in f.planes.iter().enumerate() {
            let v = eval(*p, *c);
            if on.contains(&k) {
                assert!(v.abs() <= tol * size, "corner {c:?} off plane {k}: {v}");
            } else {
                assert!(v > tol * size, "corner {c:?} not inside plane {k}: {v}");
            }
        }
    }
}

fn frustum_hits_point(f: &Frustum, p: [f32; 3]) -> bool {
    let s = Spheres::from_slice(&[Sphere::new(p, 0.0)]).expect("valid");
    s.count_hits(f) == 1
}

/// The perspective matrix of the doctest: 90 degrees, aspect 1, near 1, far 100, depth 0..1,
/// looking down -z (glam's `perspective_rh`), column-major.
fn perspective_90() -> [[f32; 4]; 4] {
    let (near, far) = (1.0f32, 100.0f32);
    let r = far / (near - far);
    [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, r, -1.0],
        [0.0, 0.0, r * near, 0.0],
    ]
}

const L: usize = Frustum::LEFT;
const R: usize = Frustum::RIGHT;
const B: usize = Frustum::BOTTOM;
const T: usize = Frustum::TOP;
const N: usize = Frustum::NEAR;
const F: usize = Frustum::FAR;

#[test]
fn perspective_planes_by_hand() {
    let f = Frustum::from_view_projection(perspective_90()).expect("valid");
    let h = std::f32::consts::FRAC_1_SQRT_2;
    // Left: w + x = x - z >= 0; right: -x - z >= 0; near: z <= -1; far: z >= -100.
    assert_planes_near(
        &f,
        [
            [h, 0.0, -h, 0.0],
            [-h, 0.0, -h, 0.0],
            [0.0, h, -h, 0.0],
            [0.0, -h, -h, 0.0],
            [0.0, 0.0, -1.0, -1.0],
            [0.0, 0.0, 1.0, 100.0],
        ],
    );
    for (p, inside) in [
        ([0.0, 0.0, -50.0], true),
        ([49.0, -49.0, -50.0], true),
        ([51.0, 0.0, -50.0], false),
        ([0.0, -51.0, -50.0], false),
        ([0.0, 0.0, -0.5], false),
        ([0.0, 0.0, -101.0], false),
        ([0.0, 0.0, 10.0], false),
    ] {
        assert_eq!(frustum_hits_point(&f, p), inside, "{p:?}");
    }
    let mut corners = Vec::new();
    for (z, depth_plane) in [(1.0, N), (100.0, F)] {
        for (sx, xp) in [(-1.0, L), (1.0, R)] {
            for (sy, yp) in [(-1.0, B), (1.0, T)] {
                corners.push(([sx * z, sy * z, -z], [xp, yp, depth_plane]));
            }
        }
    }
    check_corners(&f, &corners, 1e-5);
}

#[test]
fn orthographic_planes_by_hand() {
    // [-2, 3] x [-1, 4] x [-10, -1], depth 0..1.
    let m = orthographic(-2.0, 3.0, -1.0, 4.0, 1.0, 10.0);
    let f = Frustum::from_view_projection(to_cols_f32(m)).expect("valid");
    assert_planes_near(
        &f,
        [
            [1.0, 0.0, 0.0, 2.0],
            [-1.0, 0.0, 0.0, 3.0],
            [0.0, 1.0, 0.0, 1.0],
            [0.0, -1.0, 0.0, 4.0],
            [0.0, 0.0, -1.0, -1.0],
            [0.0, 0.0, 1.0, 10.0],
        ],
    );
    let mut corners = Vec::new();
    for (z, zp) in [(-1.0, N), (-10.0, F)] {
        for (x, xp) in [(-2.0, L), (3.0, R)] {
            for (y, yp) in [(-1.0, B), (4.0, T)] {
                corners.push(([x, y, z], [xp, yp, zp]));
            }
        }
    }
    check_corners(&f, &corners, 1e-6);
    assert!(frustum_hits_point(&f, [0.0, 0.0, -5.0]));
    assert!(!frustum_hits_point(&f, [3.5, 0.0, -5.0]));
}

#[test]
fn opengl_depth_convention() {
    // glFrustum-style perspective, near 1, far 100: the third row is -(f+n)/(f-n), -2fn/(f-n).
    let (n, fa) = (1.0f64, 100.0f64);
    let gl = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, -(fa + n) / (fa - n), -2.0 * fa * n / (fa - n)],
        [0.0, 0.0, -1.0, 0.0],
    ];
    let f = Frustum::from_view_projection_gl(to_cols_f32(gl)).expect("valid");
    let want = Frustum::from_view_projection(perspective_90()).expect("valid");
    assert_planes_near(&f, want.planes);
    // The same matrix read with the 0..w convention puts the near plane elsewhere.
    let wrong = Frustum::from_view_projection(to_cols_f32(gl)).expect("valid");
    assert!((wrong.planes[N][3] - want.planes[N][3]).abs() > 0.1);
}

#[test]
fn camera_away_from_the_origin() {
    // Eye at (5, 2, -3) looking along a tilted direction: points along the view axis between near
    // and far are inside, points behind the eye and beyond far are not; corners from the inverse
    // construction (eye + forward * z +- right * ... ) lie on three planes.
    let eye = [5.0, 2.0, -3.0];
    let fw = [0.48, -0.6, 0.64]; // unit: 0.2304 + 0.36 + 0.4096
    let view = look_along(eye, fw);
    let (near, far, fov) = (0.5, 40.0, 1.2f64);
    let f =
        Frustum::from_view_projection(to_cols_f32(mat_mul(perspective(fov, 1.5, near, far), view)))
            .expect("valid");
    let at = |t: f64| [eye[0] + fw[0] * t, eye[1] + fw[1] * t, eye[2] + fw[2] * t];
    for (t, inside) in [
        (0.6, true),
        (20.0, true),
        (39.5, true),
        (0.4, false),
        (-1.0, false),
    ] {
        let p = at(t).map(|v| v as f32);
        assert_eq!(frustum_hits_point(&f, p), inside, "t = {t}");
    }
    let (s, u) = (view[0], view[1]);
    let (tan_y, tan_x) = ((fov / 2.0).tan(), (fov / 2.0).tan() * 1.5);
    let mut corners = Vec::new();
    for (z, zp) in [(near, N), (far, F)] {
        for (sx, xp) in [(-1.0, L), (1.0, R)] {
            for (sy, yp) in [(-1.0, B), (1.0, T)] {
                let c: [f64; 3] = core::array::from_fn(|i| {
                    at(z)[i] + s[i] * sx * z * tan_x + u[i] * sy * z * tan_y
                });
                corners.push((c, [xp, yp, zp]));
            }
        }
    }
    check_corners(&f, &corners, 1e-5);
}

// ---- no false negatives against real arithmetic ----

/// A point certified inside every plane in exact arithmetic: f64 products of f32 are exact, and
/// the three f64 additions round by at most `3 * 2^-53` of the sum of magnitudes.
fn certainly_inside(f: &Frustum, p: [f32; 3]) -> bool {
    f.planes.iter().all(|pl| {
        let terms = [
            f64::from(pl[0]) * f64::from(p[0]),
            f64::from(pl[1]) * f64::from(p[1]),
            f64::from(pl[2]) * f64::from(p[2]),
            f64::from(pl[3]),
        ];
        let sum = ((terms[0] + terms[1]) + terms[2]) + terms[3];
        let mag: f64 = terms.iter().map(|t| t.abs()).sum();
        sum >= mag * 4.0 * f64::EPSILON
    })
}

/// Random camera frusta at several scales and offsets, and primitives built to contain a point
/// certified inside: every one must be reported, on every backend.
#[test]
fn primitives_containing_an_inside_point_are_always_reported() {
    let mut rng = TestRng::new(0xF2);
    let mut checked = 0;
    for scale in [1.0f32, 1e-20, 1e-3, 1e3, 1e6, 1e15] {
        for round in 0..40 {
            let offset = if round % 2 == 0 { 0.0 } else { 1e4 * scale };
            let eye = rng.near([offset; 3], WORLD * scale).map(f64::from);
            let depth = f64::from(rng.range(0.5, 20.0) * scale);
            let near = depth * f64::from(rng.range(0.001, 0.3));
            let forward = {
                let v: [f64; 3] = core::array::from_fn(|_| f64::from(rng.sym(1.0)));
                let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt().max(1e-3);
                v.map(|x| x / n)
            };
            let f = camera_frustum(&mut rng, eye, forward, near, depth);
            // Points along the view axis, jittered, kept when certified inside.
            let mut spheres = Vec::new();
            let mut boxes = Vec::new();
            for _ in 0..67 {
                let t = near + (depth) * f64::from(rng.range(0.0, 1.0));
                let jitter = f64::from(rng.sym(0.3)) * t;
                let p: [f32; 3] =
                    core::array::from_fn(|i| (eye[i] + forward[i] * t + jitter * 0.5) as f32);
                if !certainly_inside(&f, p) {
                    continue;
                }
                // A sphere whose centre is moved away from p by up to its radius.
                let r = rng.unit() * scale * rng.pick(&[0.0, 0.01, 1.0, 30.0]);
                let dir: [f32; 3] = core::array::from_fn(|_| rng.sym(1.0));
                let k = rng.unit();
                let c: [f32; 3] = core::array::from_fn(|i| p[i] + dir[i] * r * k * 0.57);
                let dist = (0..3)
                    .map(|i| (f64::from(c[i]) - f64::from(p[i])).powi(2))
                    .sum::<f64>()
                    .sqrt();
                let r = r.max(f32_at_least(dist * (1.0 + 1e-9)));
                spheres.push(Sphere::new(c, r));
                // A box containing p (rounding of p -/+ e is monotone: lo <= p <= hi).
                let e: [f32; 3] = core::array::from_fn(|_| {
                    rng.unit() * scale * rng.pick(&[0.0, 0.01, 1.0, 100.0])
                });
                boxes.push(Aabb::new(
                    core::array::from_fn::<f32, 3, _>(|i| p[i] - e[i]),
                    core::array::from_fn::<f32, 3, _>(|i| p[i] + e[i] * rng.unit()),
                ));
            }
            let all_s: Vec<u32> = (0..spheres.len() as u32).collect();
            let all_b: Vec<u32> = (0..boxes.len() as u32).collect();
            let cs = Spheres::from_slice(&spheres).expect("valid");
            let cb = Aabbs::from_slice(&boxes).expect("valid");
            check_against(&cs, &spheres, &f, &all_s);
            check_against(&cb, &boxes, &f, &all_b);
            check_against(&cs, &spheres, &Conservative(f), &all_s);
            checked += spheres.len();
        }
    }
    assert!(checked > 5_000, "too few certified points: {checked}");
}

/// The cube `[-1, 1]^3` as six planes.
fn cube_frustum() -> Frustum {
    Frustum::from_planes([
        [1.0, 0.0, 0.0, 1.0],
        [-1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, -1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [0.0, 0.0, -1.0, 1.0],
    ])
    .expect("valid")
}

/// One tilted plane `3x + 4y >= 0` (norm exactly 5) and five far away.
fn tilted_frustum() -> Frustum {
    let far = 1e3;
    Frustum::from_planes([
        [3.0, 4.0, 0.0, 0.0],
        [-1.0, 0.0, 0.0, far],
        [0.0, 1.0, 0.0, far],
        [0.0, -1.0, 0.0, far],
        [0.0, 0.0, 1.0, far],
        [0.0, 0.0, -1.0, far],
    ])
    .expect("valid")
}

#[test]
fn touching_a_plane_from_outside_counts() {
    let cube = cube_frustum();
    let tilted = tilted_frustum();
    // Spheres: tangent from outside (hit), and apart by 1e-3 (far beyond the margin: no hit).
    let cases = [
        (cube, Sphere::new([2.0, 0.0, 0.0], 1.0), true),
        (cube, Sphere::new([0.0, -1.5, 0.0], 0.5), true),
        (cube, Sphere::new([0.0, 0.0, 1.25], 0.25), true),
        (cube, Sphere::new([2.001, 0.0, 0.0], 1.0), false),
        (cube, Sphere::new([1.0, 1.0, 1.0], 0.0), true), // a point on a corner
        (cube, Sphere::new([1.0, 1.0, 1.001], 0.0), false),
        // Centre (-3, -4) is 5 from the plane 3x + 4y = 0: tangent at radius 5.
        (tilted, Sphere::new([-3.0, -4.0, 0.0], 5.0), true),
        (tilted, Sphere::new([-3.0, -4.0, 0.0], 4.99), false),
        (tilted, Sphere::new([-300.0, -400.0, 7.0], 500.0), true),
        (tilted, Sphere::new([-300.0, -400.0, 7.0], 499.9), false),
    ];
    for (f, s, hit) in cases {
        assert_eq!(ref_frustum_sphere(&f, &s), hit, "reference: {s:?}");
        let items = vec![s; 19];
        let c = Spheres::from_slice(&items).expect("valid");
        let want: Vec<u32> = if hit { (0..19).collect() } else { vec![] };
        check_against(&c, &items, &f, &want);
    }
    // Boxes: the p-vertex exactly on the plane (a face, an edge, a corner), and just apart.
    let diag = Frustum::from_planes([
        [-1.0, -1.0, 0.0, -2.0], // inside: -x - y - 2 >= 0, x + y <= -2
        [1.0, 0.0, 0.0, 100.0],
        [0.0, 1.0, 0.0, 100.0],
        [0.0, 0.0, 1.0, 100.0],
        [0.0, 0.0, -1.0, 100.0],
        [1.0, 1.0, 1.0, 300.0],
    ])
    .expect("valid");
    let box_cases = [
        (cube, Aabb::new([1.0, -0.5, -0.5], [3.0, 0.5, 0.5]), true),
        (cube, Aabb::new([1.0, 1.0, -9.0], [2.0, 2.0, 9.0]), true),
        (cube, Aabb::new([1.0, 1.0, 1.0], [2.0, 2.0, 2.0]), true),
        (cube, Aabb::new([1.001, 1.0, 1.0], [2.0, 2.0, 2.0]), false),
        // Corner (-1, -1) touches x + y = -2.
        (diag, Aabb::new([-1.0, -1.0, 0.0], [5.0, 5.0, 1.0]), true),
        (diag, Aabb::new([-0.999, -1.0, 0.0], [5.0, 5.0, 1.0]), false),
        // The p-vertex (max x, max y) = (-8, 6) is on 3x + 4y = 0.
        (tilted, Aabb::new([-10.0, 3.0, 0.0], [-8.0, 6.0, 0.0]), true),
        (
            tilted,
            Aabb::new([-10.0, 3.0, 0.0], [-8.01, 5.99, 0.0]),
            false,
        ),
    ];
    for (f, b, hit) in box_cases {
        assert_eq!(ref_frustum_aabb(&f, &b), hit, "reference: {b:?}");
        let items = vec![b; 21];
        let c = Aabbs::from_slice(&items).expect("valid");
        let want: Vec<u32> = if hit { (0..21).collect() } else { vec![] };
        check_against(&c, &items, &f, &want);
    }
}

// ---- the documented conservative excess ----

#[test]
fn primitives_off_edges_and_corners_are_reported() {
    let cube = cube_frustum();
    // A sphere off the edge x = y = 1 of the cube: 0.707 from the edge, radius 0.6, so it misses
    // the cube; but it crosses the planes x = 1 and y = 1, each beside the cube.
    let s = Sphere::new([1.5, 1.5, 0.0], 0.6);
    let gap = ((0.5f64 * 0.5) * 2.0).sqrt();
    assert!(gap > 0.6, "outside the frustum");
    let c = Spheres::from_slice(&[s, Sphere::new([1.5, 1.5, 0.0], 0.4)]).expect("valid");
    assert_eq!(c.hits(&cube).collect::<Vec<u32>>(), [0]);
    // Off a corner in three dimensions.
    let s3 = Sphere::new([1.4, 1.4, 1.4], 0.5); // 0.69 from the corner
    assert!((3.0f64 * 0.16).sqrt() > 0.5);
    assert_eq!(
        Spheres::from_slice(&[s3]).expect("valid").count_hits(&cube),
        1
    );
    // A box outside a diamond |x| + |y| <= 1 but beyond none of its four planes.
    let diamond = Frustum::from_planes([
        [1.0, 1.0, 0.0, 1.0],
        [-1.0, -1.0, 0.0, 1.0],
        [1.0, -1.0, 0.0, 1.0],
        [-1.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [0.0, 0.0, -1.0, 1.0],
    ])
    .expect("valid");
    let slab = Aabb::new([1.2, -2.0, 0.0], [1.3, 2.0, 0.0]); // x >= 1.2: outside
    let beyond = Aabb::new([1.2, -0.1, 0.0], [1.3, 0.1, 0.0]); // beyond the plane x + y <= 1
    let boxes = Aabbs::from_slice(&[slab, beyond]).expect("valid");
    for &b in Backend::available() {
        let pinned = boxes.with_backend(b).expect("available");
        assert_eq!(pinned.hits(&diamond).collect::<Vec<u32>>(), [0], "{b}");
    }
}

// ---- errors and screening ----

#[test]
fn non_finite_and_degenerate_matrices_are_errors() {
    let good = perspective_90();
    let mut m = good;
    m[0][0] = f32::NAN; // row 0: left and right
    assert_eq!(
        Frustum::from_view_projection(m),
        Err(BvError::NonFinite { index: 0 })
    );
    let mut m = good;
    m[2][2] = f32::INFINITY; // row 2 only: near comes first
    assert_eq!(
        Frustum::from_view_projection(m),
        Err(BvError::NonFinite { index: 4 })
    );
    let mut m = good;
    m[1][1] = f32::NEG_INFINITY; // row 1: bottom
    assert_eq!(
        Frustum::from_view_projection_gl(m),
        Err(BvError::NonFinite { index: 2 })
    );
    assert_eq!(
        Frustum::from_view_projection([[0.0; 4]; 4]),
        Err(BvError::ZeroNormal { index: 0 })
    );
    // Huge entries whose normalised offset overflows f32.
    let mut m = [[0.0f32; 4]; 4];
    m[0][0] = 1e-30;
    m[3][3] = 3e38;
    assert!(matches!(
        Frustum::from_view_projection(m),
        Err(BvError::NonFinite { .. } | BvError::ZeroNormal { .. })
    ));
}

#[test]
fn from_planes_validates() {
    let mut planes = cube_frustum().planes;
    assert!(Frustum::from_planes(planes).is_ok());
    planes[3][3] = f32::NAN;
    assert_eq!(
        Frustum::from_planes(planes),
        Err(BvError::NonFinite { index: 3 })
    );
    let mut planes = cube_frustum().planes;
    planes[5] = [0.0, -0.0, 0.0, 1.0];
    assert_eq!(
        Frustum::from_planes(planes),
        Err(BvError::ZeroNormal { index: 5 })
    );
    assert!(!Frustum::default().is_valid());
    let text = BvError::ZeroNormal { index: 5 }.to_string();
    assert!(text.contains('5') && text.contains("normal"), "{text}");
}

#[test]
fn invalid_hand_built_queries_hit_nothing() {
    let spheres: Vec<Sphere> = (0..37)
        .map(|i| Sphere::new([i as f32 * 0.1, 0.0, 0.0], 1e3))
        .collect();
    let boxes: Vec<Aabb> = (0..37)
        .map(|i| Aabb::new([-1e3; 3], [1e3 + i as f32; 3]))
        .collect();
    let (cs, cb) = (
        Spheres::from_slice(&spheres).expect("valid"),
        Aabbs::from_slice(&boxes).expect("valid"),
    );
    let all: Vec<u32> = (0..37).collect();
    check_against(&cs, &spheres, &cube_frustum(), &all);
    check_against(&cb, &boxes, &cube_frustum(), &all);
    for bad in [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        for field in 0..24 {
            let mut f = cube_frustum();
            f.planes[field / 4][field % 4] = bad;
            check_against(&cs, &spheres, &f, &[]);
            check_against(&cb, &boxes, &f, &[]);
        }
    }
    let mut zero = cube_frustum();
    zero.planes[2] = [0.0, 0.0, 0.0, 5.0];
    check_against(&cs, &spheres, &zero, &[]);
    check_against(&cb, &boxes, &Conservative(zero), &[]);
}

#[test]
fn empty_frusta_are_tested_plane_by_plane() {
    // x >= 1 and x <= -1: no point is inside both, but a sphere reaching both planes is reported
    // (documented: no emptiness check).
    let mut planes = cube_frustum().planes;
    planes[L] = [1.0, 0.0, 0.0, -1.0];
    planes[R] = [-1.0, 0.0, 0.0, -1.0];
    let empty = Frustum::from_planes(planes).expect("valid planes");
    let items = [
        Sphere::new([0.0; 3], 1.0),
        Sphere::new([0.0; 3], 0.9),
        Sphere::new([5.0, 0.0, 0.0], 1.0),
    ];
    let c = Spheres::from_slice(&items).expect("valid");
    check_against(&c, &items, &empty, &[0]);
    let b = [
        Aabb::new([-1.0; 3], [1.0; 3]),
        Aabb::new([-0.5; 3], [0.5; 3]),
    ];
    let cb = Aabbs::from_slice(&b).expect("valid");
    check_against(&cb, &b, &empty, &[0]);
}

/// Huge planes and coordinates: overflow never loses a hit (the margin becomes infinite).
#[test]
fn overflow_never_loses_a_hit() {
    let big = Frustum::from_planes([
        [3e38, 0.0, 0.0, 3e38],
        [-3e38, 0.0, 0.0, 3e38],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, -1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [0.0, 0.0, -1.0, 1.0],
    ])
    .expect("finite");
    let items = [
        Sphere::new([0.5, 0.0, 0.0], 0.0),
        Sphere::new([-1.0, 0.0, 0.0], 0.0),
        Sphere::new([3e38, 3e38, 0.0], 4e18),
    ];
    let c = Spheres::from_slice(&items).expect("valid");
    let got: Vec<u32> = c.hits(&big).collect();
    assert!(got.starts_with(&[0, 1]), "{got:?}");
    check_pair(&c, &items, &big, &ref_frustum_sphere);
    let b = [
        Aabb::new([-1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]),
        Aabb::new([-3e38, -3e38, -3e38], [3e38, 3e38, 3e38]),
    ];
    let cb = Aabbs::from_slice(&b).expect("valid");
    assert_eq!(cb.count_hits(&big), 2);
    check_pair(&cb, &b, &big, &ref_frustum_aabb);
}
