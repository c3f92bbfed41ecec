//! Property tests for `Conservative`: it may report false positives, never a false negative.
//!
//! * Sphere vs boxes: `Conservative(sphere)` reports every hit of the exact f32 test *as computed*
//!   and every hit of the real-arithmetic truth (computed in f64, far from its rounding).
//! * Octahedron vs octahedra: `Conservative(octahedron)` (the 8-DOP test) reports every hit of the
//!   exact test; the exact test reports every real intersection (truth computed exactly:
//!   `lo = max(up1, up2)`, `hi = min(down1, down2)`, `lo <= hi` and `sum(lo) <= 0 <= sum(hi)`),
//!   and it rejects every pair separated along the sums by a clear margin, which the 8-DOP test
//!   cannot.
//!
//! Thousands of random cases at many magnitudes, plus constructed near-touching ones, from fixed
//! seeds, on every available backend.

use crate::common;

use bvlanes::{Aabb, Aabbs, Backend, Conservative, DownTet, Octahedra, Octahedron, Sphere, UpTet};
use common::*;
use core::cmp::Ordering;

/// Indices hit, as a membership vector.
fn as_set(hits: impl Iterator<Item = u32>, len: usize) -> Vec<bool> {
    let mut set = vec![false; len];
    for i in hits {
        set[i as usize] = true;
    }
    set
}

// =================================================================================================
// (a) Conservative(sphere) against boxes
// =================================================================================================

/// Squared distance from `c` to the box, in f64 (exact for these magnitudes up to f64 rounding,
/// which is ~2^-50 relative: far inside the conservative test's 2^-20 margin).
fn true_dist2(c: [f32; 3], b: &Aabb) -> f64 {
    (0..3)
        .map(|i| {
            let v = f64::from(c[i]);
            let e = v - v.clamp(f64::from(b.min[i]), f64::from(b.max[i]));
            e * e
        })
        .sum()
}

fn truly_touches(s: &Sphere, b: &Aabb) -> bool {
    true_dist2(s.center, b) <= f64::from(s.radius) * f64::from(s.radius)
}

#[derive(Default, Debug)]
struct SphereStats {
    pairs: usize,
    exact_hits: usize,
    true_hits: usize,
    false_positives: usize,
    exact_misses_of_truth: usize,
}

/// Runs the exact and conservative sphere queries on every backend and checks the supersets.
fn check_sphere(boxes: &[Aabb], s: &Sphere, stats: &mut SphereStats) {
    let c = Aabbs::build(boxes);
    for &b in Backend::available() {
        let p = c.with_backend(b).expect("available");
        let exact = as_set(p.hits(s), boxes.len());
        let conservative = as_set(p.hits(&Conservative(*s)), boxes.len());
        for (i, bx) in boxes.iter().enumerate() {
            let truth = truly_touches(s, bx);
            assert!(
                !exact[i] || conservative[i],
                "{b}: Conservative({s:?}) misses {bx:?}, a hit of the exact test"
            );
            assert!(
                !truth || conservative[i],
                "{b}: Conservative({s:?}) misses {bx:?}, a real intersection (d^2 = {:e}, r^2 = {:e})",
                true_dist2(s.center, bx),
                f64::from(s.radius).powi(2)
            );
            if b == Backend::Scalar {
                stats.pairs += 1;
                stats.exact_hits += usize::from(exact[i]);
                stats.true_hits += usize::from(truth);
                stats.false_positives += usize::from(conservative[i] && !exact[i]);
                stats.exact_misses_of_truth += usize::from(truth && !exact[i]);
            }
        }
    }
}

/// Scales applied to whole scenes (all coordinates and radii): powers of two (exact), and others.
const SCENE_SCALES: [f32; 10] = [
    1.0, 0.1, 1e-3, 1e3, 1e15, 1e-15, 3.0e-7, 7.0e9, 0.015_625, 4096.0,
];

fn scale_box(b: Aabb, k: f32) -> Aabb {
    Aabb::new(b.min.map(|v| v * k), b.max.map(|v| v * k))
}

fn scale_sphere(s: Sphere, k: f32) -> Sphere {
    Sphere::new(s.center.map(|v| v * k), s.radius * k)
}

#[test]
fn conservative_sphere_contains_exact_and_true_hits_random() {
    let mut stats = SphereStats::default();
    for seed in [1, 2, 3] {
        let mut rng = TestRng::named(seed, "conservative sphere");
        for _ in 0..25 {
            let k = rng.pick(&SCENE_SCALES);
            let box_size = rng.pick(&[0.0, 0.5, 2.0, 6.0]);
            let boxes: Vec<Aabb> = (0..64)
                .map(|_| scale_box(Aabb::random(&mut rng, [0.0; 3], box_size), k))
                .collect();
            for _ in 0..12 {
                let r = rng.pick(&[0.0, 0.5, 2.0, 5.0, 12.0]);
                let s = scale_sphere(Sphere::random(&mut rng, [0.0; 3], r), k);
                check_sphere(&boxes, &s, &mut stats);
            }
        }
    }
    assert!(stats.pairs > 50_000, "{stats:?}");
    assert!(
        stats.exact_hits > 1000,
        "too few hits to mean anything: {stats:?}"
    );
    assert!(
        stats.false_positives > 100,
        "the quick rejection should report corner false positives: {stats:?}"
    );
}

/// Boxes placed at the sphere's surface: along an axis, across an edge, at a corner, each nudged
/// by -2..=2 ulps, so that the exact test and the truth flip around them.
#[test]
fn conservative_sphere_contains_exact_and_true_hits_near_touching() {
    let mut stats = SphereStats::default();
    let mut rng = TestRng::new(77);
    for round in 0..300 {
        let k = SCENE_SCALES[round % SCENE_SCALES.len()];
        let c = rng.near([0.0; 3], 8.0).map(|v| v * k);
        let r = rng.range(0.0, 6.0) * k;
        let mut boxes = Vec::new();
        for _ in 0..16 {
            // A random direction; the box's nearest corner at c + r * u, nudged.
            // A random unit direction, some components zeroed (touching at a face or an edge as
            // well as at a corner).
            let u: [f64; 3] = loop {
                let keep = rng.below(7) + 1;
                let v: [f64; 3] = core::array::from_fn(|i| {
                    let x = f64::from(rng.sym(1.0));
                    if keep & (1 << i) != 0 { x } else { 0.0 }
                });
                let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
                if n > 0.1 {
                    break v.map(|x| x / n);
                }
            };
            let nudge = rng.below(5) as i32 - 2;
            let corner: [f32; 3] = core::array::from_fn(|i| {
                let mut v = (f64::from(c[i]) + f64::from(r) * u[i]) as f32;
                for _ in 0..nudge.abs() {
                    v = if (u[i] >= 0.0) == (nudge > 0) {
                        v.next_up()
                    } else {
                        v.next_down()
                    };
                }
                v
            });
            // The box extends away from the centre from that corner.
            let far: [f32; 3] =
                core::array::from_fn(|i| corner[i] + (u[i].signum() as f32) * k * rng.unit());
            let (lo, hi): ([f32; 3], [f32; 3]) = (
                core::array::from_fn(|i| corner[i].min(far[i])),
                core::array::from_fn(|i| corner[i].max(far[i])),
            );
            boxes.push(Aabb::new(lo, hi));
        }
        check_sphere(&boxes, &Sphere::new(c, r), &mut stats);
    }
    assert!(stats.true_hits > 500 && stats.exact_hits > 500, "{stats:?}");
    assert!(
        stats.pairs - stats.true_hits > 500,
        "near misses are needed too: {stats:?}"
    );
}

/// Down to subnormal scales, where squares underflow: the exact test then accepts distances up
/// to about 2^-75 beyond the radius, and the conservative box is widened by 2^-74 for it.
#[test]
fn conservative_sphere_contains_exact_hits_at_tiny_scales() {
    let mut stats = SphereStats::default();
    let mut rng = TestRng::new(78);
    for exp in (-149..=-60).step_by(3) {
        let k = pow2(exp);
        for _ in 0..4 {
            let boxes: Vec<Aabb> = (0..32)
                .map(|_| {
                    let size = rng.pick(&[0.0, 1.0]);
                    let b = Aabb::random(&mut rng, [0.0; 3], size);
                    // Grid-snapped and scaled: many boxes a few quanta from the sphere.
                    let snap = |v: f32| (v * 4.0).round() * k;
                    Aabb::new(b.min.map(snap), b.max.map(snap))
                })
                .collect();
            for _ in 0..8 {
                let c = rng.near([0.0; 3], 8.0).map(|v| (v * 4.0).round() * k);
                let r = (rng.range(0.0, 3.0) * 4.0).round() * k;
                check_sphere(&boxes, &Sphere::new(c, r), &mut stats);
            }
        }
    }
    assert!(stats.exact_hits > 100, "{stats:?}");
}

/// `2^exp` for `-149 <= exp <= 127`, subnormals included.
fn pow2(exp: i32) -> f32 {
    if exp >= -126 {
        f32::from_bits(((exp + 127) as u32) << 23)
    } else {
        f32::from_bits(1 << (exp + 149))
    }
}

/// With radii past `sqrt(f32::MAX)` the exact f32 test must not overflow into `inf <= inf` (which
/// would report boxes at any distance, outside every finite widening of the conservative box).
#[test]
fn conservative_sphere_contains_exact_hits_at_huge_scales() {
    let mut stats = SphereStats::default();
    let boxes = vec![
        Aabb::new([1e30, -1.0, -1.0], [2e30, 1.0, 1.0]),
        Aabb::new([-3e38, -3e38, -3e38], [-2e38, -2e38, -2e38]),
        Aabb::new([-1.0; 3], [1.0; 3]),
        Aabb::new([1.9e19, -1.0, -1.0], [2e19, 1.0, 1.0]),
        Aabb::new([2.1e19, -1.0, -1.0], [3e19, 1.0, 1.0]),
    ];
    for r in [2e19, 1.8e19, 1e25, 1e30, 1e38, f32::MAX] {
        check_sphere(&boxes, &Sphere::new([0.0; 3], r), &mut stats);
        check_sphere(&boxes, &Sphere::new([-1e38, 5e37, 0.0], r), &mut stats);
    }
    let mut rng = TestRng::new(79);
    for _ in 0..100 {
        let k = rng.pick(&[1e18f32, 1e19, 1e20, 1e25, 1e30, 1e35]);
        let boxes: Vec<Aabb> = (0..32)
            .map(|_| scale_box(Aabb::random(&mut rng, [0.0; 3], 4.0), k))
            .collect();
        let s = scale_sphere(Sphere::random(&mut rng, [0.0; 3], 8.0), k);
        check_sphere(&boxes, &s, &mut stats);
    }
    assert!(stats.true_hits > 100, "{stats:?}");
}

// =================================================================================================
// (b) Octahedra: Conservative (8-DOP) ⊇ exact ⊇ truth, and the exact test rejects clear gaps
// =================================================================================================

/// The real-number answer, exactly.
fn truly_intersect(a: &Octahedron, b: &Octahedron) -> bool {
    let lo: [f32; 4] = core::array::from_fn(|k| a.up.min[k].max(b.up.min[k]));
    let hi: [f32; 4] = core::array::from_fn(|k| a.down.max[k].min(b.down.max[k]));
    all_le4(lo, hi)
        && Exact::sum(&lo).signum() != Ordering::Greater
        && Exact::sum(&hi).signum() != Ordering::Less
}

/// Whether the eight comparisons pass but the sums show a gap of more than `2^-17 * M` (`M` the
/// largest magnitude of the bounds summed), about 4 times the exact test's tolerance band.
fn clearly_separated_along_the_sums(a: &Octahedron, b: &Octahedron) -> bool {
    let lo: [f32; 4] = core::array::from_fn(|k| a.up.min[k].max(b.up.min[k]));
    let hi: [f32; 4] = core::array::from_fn(|k| a.down.max[k].min(b.down.max[k]));
    let margin = |v: [f32; 4]| {
        let m = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        Exact::of(m).scaled_down(17)
    };
    all_le4(lo, hi) && (Exact::sum(&lo) > margin(lo) || -Exact::sum(&hi) > margin(hi))
}

#[derive(Default, Debug)]
struct OctStats {
    pairs: usize,
    true_hits: usize,
    exact_hits: usize,
    eight_dop_false_positives: usize,
    clear_gaps_rejected: usize,
}

fn check_octahedra(items: &[Octahedron], q: &Octahedron, stats: &mut OctStats) {
    let c = Octahedra::build(items);
    for &b in Backend::available() {
        let p = c.with_backend(b).expect("available");
        let exact = as_set(p.hits(q), items.len());
        let conservative = as_set(p.hits(&Conservative(*q)), items.len());
        for (i, o) in items.iter().enumerate() {
            let truth = truly_intersect(q, o);
            assert!(
                !exact[i] || conservative[i],
                "{b}: Conservative({q:?}) misses {o:?}, a hit of the exact test"
            );
            assert!(
                !truth || exact[i],
                "{b}: the exact test misses a real intersection: {q:?} and {o:?}"
            );
            let gap = clearly_separated_along_the_sums(q, o);
            assert!(
                !(gap && exact[i]),
                "{b}: the exact test reports {q:?} and {o:?}, separated along the sums"
            );
            if b == Backend::Scalar {
                stats.pairs += 1;
                stats.true_hits += usize::from(truth);
                stats.exact_hits += usize::from(exact[i]);
                stats.eight_dop_false_positives += usize::from(conservative[i] && !exact[i]);
                stats.clear_gaps_rejected += usize::from(gap);
            }
        }
    }
}

/// Multiplies every bound by `k` and repairs the rounding (exact for powers of two).
fn scale_octahedron(o: Octahedron, k: f32) -> Option<Octahedron> {
    let up = repair_up(o.up.min.map(|v| v * k));
    let down = repair_down(o.down.max.map(|v| v * k));
    let o = Octahedron::new(up, down);
    o.valid().then_some(o)
}

const OCT_SCALES: [f32; 9] = [1.0, 0.1, 1e-30, 1e30, 7.0e-3, 2.0e-38, 65_536.0, 1e-12, 3.0];

#[test]
fn octahedra_exact_between_truth_and_eight_dop_random() {
    let mut stats = OctStats::default();
    for seed in [1, 2, 3] {
        let mut rng = TestRng::named(seed, "octahedra");
        for _ in 0..25 {
            let k = rng.pick(&OCT_SCALES);
            let size = rng.pick(&[0.5, 3.0, 8.0]);
            let items: Vec<Octahedron> = (0..64)
                .filter_map(|_| scale_octahedron(Octahedron::random(&mut rng, [0.0; 3], size), k))
                .collect();
            for _ in 0..12 {
                let qs = rng.pick(&[0.5, 3.0, 8.0]);
                if let Some(q) = scale_octahedron(Octahedron::random(&mut rng, [0.0; 3], qs), k) {
                    check_octahedra(&items, &q, &mut stats);
                }
            }
        }
    }
    assert!(stats.pairs > 40_000, "{stats:?}");
    assert!(stats.true_hits > 1000, "{stats:?}");
    // Rare in random data (about 1 in 3,000 pairs), but present.
    assert!(
        stats.eight_dop_false_positives > 5 && stats.clear_gaps_rejected > 5,
        "the sum condition should matter in random data: {stats:?}"
    );
}

/// Octahedra built from point sets that share a point: they intersect (outward rounding keeps the
/// shared point in both), often only at that point (a vertex of both).
#[test]
fn octahedra_sharing_a_point_always_hit() {
    let mut stats = OctStats::default();
    let mut rng = TestRng::new(5);
    for round in 0..200 {
        let k = OCT_SCALES[round % OCT_SCALES.len()];
        let x = rng.near([0.0; 3], 8.0).map(|v| v * k);
        let cloud = |rng: &mut TestRng| -> Octahedron {
            let n = rng.below(3);
            let spread = rng.pick(&[0.0, 1.0, 5.0]) * k;
            let pts: Vec<[f32; 3]> = core::iter::once(x)
                .chain((0..n).map(|_| rng.near(x, spread)))
                .collect();
            Octahedron::from_points(pts).expect("points")
        };
        let items: Vec<Octahedron> = (0..24).map(|_| cloud(&mut rng)).collect();
        let q = cloud(&mut rng);
        for o in &items {
            assert!(truly_intersect(&q, o), "{q:?} and {o:?} share {x:?}");
        }
        check_octahedra(&items, &q, &mut stats);
        assert_eq!(
            Octahedra::build(&items).count_hits(&q),
            items.len(),
            "all share {x:?}"
        );
    }
}

/// Small point clouds spread widely: many pairs pass the eight comparisons while their octahedra
/// are far apart. The exact test must reject every pair separated by a clear margin.
#[test]
fn octahedra_from_point_sets_eight_dop_false_positives_are_rejected() {
    let mut stats = OctStats::default();
    let mut rng = TestRng::new(6);
    for _ in 0..250 {
        // Mostly segments: long thin octahedra cross each other's slabs without meeting.
        let cloud = |rng: &mut TestRng| -> Octahedron {
            let c = rng.near([0.0; 3], 3.0);
            let n = 2 + usize::from(rng.chance(0.2));
            Octahedron::from_points((0..n).map(|_| rng.near(c, 8.0))).expect("points")
        };
        let items: Vec<Octahedron> = (0..32).map(|_| cloud(&mut rng)).collect();
        let q = cloud(&mut rng);
        check_octahedra(&items, &q, &mut stats);
    }
    assert!(
        stats.clear_gaps_rejected > 25,
        "point sets should produce clear 8-DOP false positives: {stats:?}"
    );
    assert!(stats.eight_dop_false_positives >= stats.clear_gaps_rejected);
}

/// Hand-made 8-DOP false positives with a wide margin, and their touching variants.
#[test]
fn octahedra_constructed_separations() {
    let o = |u: [f32; 4], d: [f32; 4]| Octahedron::new(UpTet::new(u), DownTet::new(d));
    // A: t_A >= 1 (and everything within 10); B: t_B, t_C, t_D >= 1, so t_A <= -3 in B.
    let a = o([1.0, -10.0, -10.0, -10.0], [10.0; 4]);
    let b = o([-10.0, 1.0, 1.0, 1.0], [10.0; 4]);
    // From point sets. B: t = (-3, 1, 1, 1), (-5, 1, 2, 2), (-5, 2, 1, 2), so up (-5, 1, 1, 1),
    // down (-3, 2, 2, 2). A: the segment from t = (-3, 2, 1, 0) to (-3, 2, 0, 1), where
    // t_C + t_D = 1, so it never has t_C, t_D >= 1 as B needs. lo = (-3, 2, 1, 1), sum 1.
    let b_pts =
        Octahedron::from_points([[-1.0, -1.0, -1.0], [-2.0, -1.5, -1.5], [-1.5, -2.0, -1.5]])
            .expect("points");
    let a_pts = Octahedron::from_points([[-0.5, -1.0, -1.5], [-0.5, -1.5, -1.0]]).expect("points");
    assert_eq!(b_pts, o([-5.0, 1.0, 1.0, 1.0], [-3.0, 2.0, 2.0, 2.0]));
    assert_eq!(a_pts, o([-3.0, 2.0, 0.0, 0.0], [-3.0, 2.0, 1.0, 1.0]));
    let mut stats = OctStats::default();
    for (x, y) in [(a, b), (b, a), (a_pts, b_pts), (b_pts, a_pts)] {
        assert!(
            eight_comparisons(&x, &y),
            "{x:?} vs {y:?} should fool the 8-DOP test"
        );
        assert!(clearly_separated_along_the_sums(&x, &y), "{x:?} vs {y:?}");
        for len in LENGTHS {
            let items = vec![y; len];
            let c = Octahedra::build(&items);
            check_against(&c, &items, &x, &[]);
            let all: Vec<u32> = (0..len as u32).collect();
            check_against(&c, &items, &Conservative(x), &all);
        }
        check_octahedra(&[y], &x, &mut stats);
    }
    // Slide B toward A along t_A until they touch: with B's up bounds (-10, s, s, s) the sum of
    // lo = (1, s, s, s) is 1 + 3s: touching at s = -1/3 (not representable: the nearest f32 on
    // each side), at s = -1/3 - 2^-10 clearly overlapping, at s = 0 clearly apart.
    let third = -1.0f32 / 3.0;
    for (s, expect) in [
        (third.next_down().next_down(), Some(true)),
        (third - 1.0 / 1024.0, Some(true)),
        (third.next_up(), None), // within the tolerance band: either answer is allowed
        (0.0, Some(false)),
        (-0.25, Some(false)),
    ] {
        let b = o([-10.0, s, s, s], [10.0; 4]);
        let truth = truly_intersect(&a, &b);
        let items = vec![b; 67];
        let c = Octahedra::build(&items);
        for &bk in Backend::available() {
            let got = c.with_backend(bk).expect("available").count_hits(&a);
            match expect {
                Some(true) => {
                    assert!(truth);
                    assert_eq!(got, 67, "{bk}: s = {s}");
                }
                Some(false) => {
                    assert!(!truth);
                    assert_eq!(got, 0, "{bk}: s = {s}");
                }
                None => assert!(got == 0 || got == 67),
            }
        }
        check_octahedra(&items, &a, &mut stats);
    }
}

/// Exact zero sums with rounding-prone values: `1 + 1e-20 - 1 - 1e-20 = 0` exactly. Touching
/// through the sum condition must count, at every magnitude.
#[test]
fn octahedra_touching_through_exact_zero_sums() {
    let mut stats = OctStats::default();
    let o = |u: [f32; 4], d: [f32; 4]| Octahedron::new(UpTet::new(u), DownTet::new(d));
    for (a, b) in [
        (1.0f32, 1e-20f32),
        (0.1, 0.3),
        (1e30, 1e-30),
        (3e38, 1.0),
        (f32::MIN_POSITIVE, f32::from_bits(1)),
        (16_777_217.0, 0.5),
    ] {
        // q: up (-a, -b, a, b) (sum 0: a single point... with a roomy down half).
        let q = o([-a, -b, a, b], [a.abs() + 1.0; 4]);
        // Items whose lo with q is exactly (-a, -b, a, b) or a permutation-equivalent.
        let items = vec![
            o([-a, -b, a, b], [a.abs() + 1.0; 4]),
            o([-f32::MAX, -b, a, -f32::MAX], [f32::MAX; 4]),
            o([-a, -f32::MAX, -f32::MAX, b], [a.abs() * 2.0 + 1.0; 4]),
        ];
        let items: Vec<Octahedron> = items.into_iter().filter(Octahedron::valid).collect();
        if !q.valid() {
            continue;
        }
        for it in &items {
            assert!(truly_intersect(&q, it), "{q:?} and {it:?} touch");
        }
        check_octahedra(&items, &q, &mut stats);
    }
    // Random 4-tuples with an exactly zero sum whose partial sums round: the single point they
    // describe, met by octahedra whose lower bounds are at or below it.
    let mut rng = TestRng::new(99);
    let mut found = 0;
    while found < 300 {
        let scale = rng.pick(&[1.0f32, 1e-20, 1e20, 3.0e-39]);
        let v: [f32; 3] =
            core::array::from_fn(|_| rng.sym(1.0) * scale * rng.pick(&[1.0f32, 1e-3, 1e3, 0.1]));
        let d = -(v[0] + v[1] + v[2]);
        let t = [v[0], v[1], v[2], d];
        if Exact::sum(&t).signum() != Ordering::Equal {
            continue;
        }
        found += 1;
        let roomy = t.map(|x| x + x.abs() + scale);
        let q = o(t, roomy);
        let items: Vec<Octahedron> = (0..8)
            .map(|i| {
                // Keep t_k on the axes of `i`, lower the others (t - (|t| + scale) <= t).
                let up: [f32; 4] = core::array::from_fn(|k| {
                    if i & (1 << k) != 0 {
                        t[k]
                    } else {
                        t[k] - (t[k].abs() + scale)
                    }
                });
                o(up, roomy)
            })
            .filter(Octahedron::valid)
            .collect();
        assert!(q.valid(), "{q:?}");
        for it in &items {
            assert!(truly_intersect(&q, it), "{q:?} and {it:?}");
        }
        check_octahedra(&items, &q, &mut stats);
    }
    assert!(stats.true_hits > 600, "{stats:?}");
}
