//! `bvlanes::seeds` (the papers' one-vs-one tests, as published) against the crate's kernels, on
//! every backend: the exact sphere-box forms agree with the exact kernel, the conservative forms
//! with `Conservative`, AABB-AABB with the box query and the k-DOP test with the 8-DOP test.

use crate::common;

use bvlanes::{
    Aabb, Aabbs, Backend, Conservative, Obb, Obbs, Octahedra, Octahedron, Sphere, seeds,
};
use common::{TestRng, rotation};

/// Boxes and spheres at a scale where overlaps are frequent (about a third of the pairs).
fn random_boxes(rng: &mut TestRng, n: usize) -> Vec<Aabb> {
    (0..n)
        .map(|_| {
            let c = [rng.sym(20.0), rng.sym(20.0), rng.sym(20.0)];
            let h = [
                rng.range(0.0, 6.0),
                rng.range(0.0, 6.0),
                rng.range(0.0, 6.0),
            ];
            Aabb::new(
                [c[0] - h[0], c[1] - h[1], c[2] - h[2]],
                [c[0] + h[0], c[1] + h[1], c[2] + h[2]],
            )
        })
        .collect()
}

/// The real squared distance from `c` to the box, in f64 (exact enough to find boundary cases).
fn dist2_f64(c: [f32; 3], b: &Aabb) -> f64 {
    (0..3)
        .map(|i| {
            let v = f64::from(c[i]);
            let e = v - v.clamp(f64::from(b.min[i]), f64::from(b.max[i]));
            e * e
        })
        .sum()
}

/// The crate's answer for every box, checked to be the same on every backend.
fn kernel_hits<Q: bvlanes::Query<Aabbs>>(boxes: &Aabbs, q: &Q) -> Vec<bool> {
    let mut answers = Backend::available().iter().map(|&b| {
        let mut hit = vec![false; boxes.len()];
        for i in boxes.with_backend(b).unwrap().hits(q) {
            hit[i as usize] = true;
        }
        hit
    });
    let first = answers.next().unwrap();
    for other in answers {
        assert_eq!(first, other, "backends disagree");
    }
    first
}

#[test]
fn exact_sphere_box_forms_agree_with_the_kernel() {
    let mut rng = TestRng::new(4);
    let items = random_boxes(&mut rng, 300);
    let boxes = Aabbs::from_slice(&items).unwrap();
    let mut compared = 0;
    for _ in 0..200 {
        let s = Sphere::new(
            [rng.sym(25.0), rng.sym(25.0), rng.sym(25.0)],
            rng.range(0.0, 10.0),
        );
        let kernel = kernel_hits(&boxes, &s);
        for (b, &hit) in items.iter().zip(&kernel) {
            let (c, r) = (s.center, s.radius);
            // Arvo, QRI, QRF and the max form compute the same per-axis gaps as the kernel's
            // clamp form (c - min, or its exact negation): bit-identical answers everywhere.
            assert_eq!(
                seeds::sphere_aabb_arvo(c, r, b.min, b.max),
                hit,
                "Arvo {s:?} {b:?}"
            );
            assert_eq!(
                seeds::sphere_aabb_qri(c, r, b.min, b.max),
                hit,
                "QRI {s:?} {b:?}"
            );
            assert_eq!(
                seeds::sphere_aabb_qrf(c, r, b.min, b.max),
                hit,
                "QRF {s:?} {b:?}"
            );
            assert_eq!(
                seeds::sphere_aabb_branch_free(c, r, b.min, b.max),
                hit,
                "max {s:?} {b:?}"
            );
            // The centre-extent form rounds the centre and extents first: it may differ only
            // within rounding of the boundary.
            let d = dist2_f64(c, b);
            let r2 = f64::from(r) * f64::from(r);
            if (d - r2).abs() > 1e-4 * (r2 + 1.0) {
                assert_eq!(
                    seeds::sphere_aabb_center_extent(c, r, b.min, b.max),
                    hit,
                    "{s:?} {b:?}"
                );
                compared += 1;
            }
        }
    }
    assert!(
        compared > 50_000,
        "the margin must leave most pairs: {compared}"
    );
}

#[test]
fn conservative_seed_agrees_with_conservative_away_from_rounding() {
    let mut rng = TestRng::new(5);
    let items = random_boxes(&mut rng, 300);
    let boxes = Aabbs::from_slice(&items).unwrap();
    let (mut false_positives, mut exact_hits) = (0, 0);
    for _ in 0..200 {
        let s = Sphere::new(
            [rng.sym(25.0), rng.sym(25.0), rng.sym(25.0)],
            rng.range(0.0, 10.0),
        );
        let cons = kernel_hits(&boxes, &Conservative(s));
        let exact = kernel_hits(&boxes, &s);
        for ((b, &c_hit), &e_hit) in items.iter().zip(&cons).zip(&exact) {
            let seed = seeds::sphere_aabb_conservative(s.center, s.radius, b.min, b.max);
            // The crate's form widens by 2^-20 r + 2^-74 and rounds outward; away from that
            // margin both are the same slab test.
            let gap = (0..3)
                .map(|i| {
                    let (c, lo, hi) = (s.center[i], b.min[i], b.max[i]);
                    ((lo - c) - s.radius).max((c - hi) - s.radius).abs()
                })
                .fold(f32::INFINITY, f32::min);
            if gap > 1e-3 {
                assert_eq!(seed, c_hit, "{s:?} {b:?}");
            }
            assert!(
                c_hit || !e_hit,
                "Conservative missed an exact hit: {s:?} {b:?}"
            );
            false_positives += usize::from(c_hit && !e_hit);
            exact_hits += usize::from(e_hit);
        }
    }
    assert!(
        exact_hits > 0 && false_positives > 0,
        "{exact_hits} {false_positives}"
    );
}

#[test]
fn aabb_aabb_agrees_with_the_box_query() {
    let mut rng = TestRng::new(6);
    let items = random_boxes(&mut rng, 300);
    let boxes = Aabbs::from_slice(&items).unwrap();
    for q in random_boxes(&mut rng, 200) {
        let kernel = kernel_hits(&boxes, &q);
        for (b, &hit) in items.iter().zip(&kernel) {
            assert_eq!(
                seeds::aabb_aabb(q.min, q.max, b.min, b.max),
                hit,
                "{q:?} {b:?}"
            );
        }
    }
    // Touching faces overlap.
    assert!(seeds::aabb_aabb(
        [0.0; 3],
        [1.0; 3],
        [1.0, 0.0, 0.0],
        [2.0, 1.0, 1.0]
    ));
}

#[test]
fn kdop_interval_test_is_the_octahedra_8dop_test() {
    let mut rng = TestRng::new(7);
    let octs: Vec<Octahedron> = random_boxes(&mut rng, 300)
        .iter()
        .map(Octahedron::from_aabb)
        .collect();
    let container = Octahedra::from_slice(&octs).unwrap();
    for q in random_boxes(&mut rng, 100)
        .iter()
        .map(Octahedron::from_aabb)
    {
        for &backend in Backend::available() {
            let pinned = container.with_backend(backend).unwrap();
            let mut hit = vec![false; octs.len()];
            for i in pinned.hits(&Conservative(q)) {
                hit[i as usize] = true;
            }
            for (o, &h) in octs.iter().zip(&hit) {
                let seed = seeds::kdop_kdop(&q.up.min, &q.down.max, &o.up.min, &o.down.max);
                assert_eq!(seed, h, "{backend}: {q:?} {o:?}");
            }
        }
    }
}

#[test]
#[should_panic(expected = "same length")]
fn kdop_rejects_mismatched_directions() {
    let _ = seeds::kdop_kdop(&[0.0; 4], &[1.0; 4], &[0.0; 3], &[1.0; 3]);
}

#[test]
fn oriented_box_forms_agree_with_the_obbs_kernel() {
    let mut rng = TestRng::new(8);
    let items: Vec<Obb> = (0..300)
        .map(|_| {
            let c = [rng.sym(20.0), rng.sym(20.0), rng.sym(20.0)];
            let h = [
                rng.range(0.0, 6.0),
                rng.range(0.0, 6.0),
                rng.range(0.0, 6.0),
            ];
            Obb::new(c, h, rotation(&mut rng))
        })
        .collect();
    let obbs = Obbs::from_slice(&items).unwrap();
    let (mut hits, mut false_positives) = (0, 0);
    for _ in 0..150 {
        let s = Sphere::new(
            [rng.sym(25.0), rng.sym(25.0), rng.sym(25.0)],
            rng.range(0.0, 10.0),
        );
        for &backend in Backend::available() {
            let pinned = obbs.with_backend(backend).unwrap();
            let mut exact = vec![false; items.len()];
            for i in pinned.hits(&s) {
                exact[i as usize] = true;
            }
            let mut cons = vec![false; items.len()];
            for i in pinned.hits(&Conservative(s)) {
                cons[i as usize] = true;
            }
            for (o, (&e, &c)) in items.iter().zip(exact.iter().zip(&cons)) {
                let (q, r) = (s.center, s.radius);
                // G-Arvo, QRI, QRF and the max form compute the kernel's box-frame gaps with the
                // same operations: bit-identical.
                assert_eq!(
                    seeds::sphere_obb_garvo(q, r, o),
                    e,
                    "{backend} G-Arvo {s:?} {o:?}"
                );
                assert_eq!(
                    seeds::sphere_obb_qri(q, r, o),
                    e,
                    "{backend} QRI {s:?} {o:?}"
                );
                assert_eq!(
                    seeds::sphere_obb_qrf(q, r, o),
                    e,
                    "{backend} QRF {s:?} {o:?}"
                );
                assert_eq!(
                    seeds::sphere_obb_branch_free(q, r, o),
                    e,
                    "{backend} max {s:?} {o:?}"
                );
                // Cons never misses an exact hit; the crate's Conservative is its widened form.
                let cons_seed = seeds::sphere_obb_conservative(q, r, o);
                assert!(cons_seed || !e, "{backend} Cons missed {s:?} {o:?}");
                assert!(c || !cons_seed || !e, "{backend} {s:?} {o:?}");
                hits += usize::from(e);
                false_positives += usize::from(cons_seed && !e);
            }
        }
    }
    assert!(
        hits > 500 && false_positives > 0,
        "{hits} {false_positives}"
    );
}

/// The largest gap `|t·L| - r_A(L) - r_B(L)` over the 15 axes, each normalised to length 1 (axes
/// shorter than `1e-6`, parallel edges, skipped), in f64. Positive: disjoint; below zero: the boxes
/// overlap (no separating axis among the 15).
fn sat_gap_f64(a: &Obb, b: &Obb) -> f64 {
    let v = |x: [f32; 3]| x.map(f64::from);
    let dot = |x: [f64; 3], y: [f64; 3]| x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    let cross = |x: [f64; 3], y: [f64; 3]| {
        [
            x[1] * y[2] - x[2] * y[1],
            x[2] * y[0] - x[0] * y[2],
            x[0] * y[1] - x[1] * y[0],
        ]
    };
    let (aa, ba) = (a.axes.map(v), b.axes.map(v));
    let t: [f64; 3] = core::array::from_fn(|k| f64::from(b.center[k]) - f64::from(a.center[k]));
    let mut axes: Vec<[f64; 3]> = aa.iter().chain(&ba).copied().collect();
    for x in aa {
        for y in ba {
            axes.push(cross(x, y));
        }
    }
    axes.iter()
        .filter_map(|&l| {
            let n = dot(l, l).sqrt();
            (n > 1e-6).then(|| {
                let l = l.map(|c| c / n);
                let r = |h: [f32; 3], ax: [[f64; 3]; 3]| {
                    (0..3)
                        .map(|k| f64::from(h[k]) * dot(ax[k], l).abs())
                        .sum::<f64>()
                };
                dot(t, l).abs() - r(a.half_extents, aa) - r(b.half_extents, ba)
            })
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

#[test]
fn obb_obb_agrees_with_the_obb_query_away_from_the_tolerance() {
    let mut rng = TestRng::new(0x5A7);
    let random_obb = |rng: &mut TestRng| {
        let c = [rng.sym(12.0), rng.sym(12.0), rng.sym(12.0)];
        let h = [
            rng.range(0.0, 4.0),
            rng.range(0.0, 4.0),
            rng.range(0.0, 4.0),
        ];
        Obb::new(c, h, rotation(rng))
    };
    let items: Vec<Obb> = (0..500).map(|_| random_obb(&mut rng)).collect();
    let obbs = Obbs::from_slice(&items).unwrap();
    let (mut apart, mut overlapping) = (0, 0);
    for _ in 0..100 {
        let q = random_obb(&mut rng);
        for &backend in Backend::available() {
            let mut hit = vec![false; items.len()];
            for i in obbs.with_backend(backend).unwrap().hits(&q) {
                hit[i as usize] = true;
            }
            for (o, &h) in items.iter().zip(&hit) {
                let seed = seeds::obb_obb(&q, o);
                // The seed never reports what the conservative kernel rules out.
                assert!(h || !seed, "{backend}: seed hit, kernel miss: {q:?} {o:?}");
                let gap = sat_gap_f64(&q, o);
                if gap.abs() > 0.05 {
                    assert_eq!(seed, gap < 0.0, "seed: {q:?} {o:?} gap {gap}");
                    assert_eq!(h, seed, "{backend}: {q:?} {o:?} gap {gap}");
                    apart += usize::from(gap > 0.0);
                    overlapping += usize::from(gap < 0.0);
                }
            }
        }
    }
    assert!(
        apart > 1000 && overlapping > 1000,
        "{apart} apart, {overlapping} overlapping"
    );
}
