//! Oriented boxes: answers against real arithmetic, `Conservative` as a superset, validation and
//! the constructors. (The harness in `differential.rs` and `adversarial.rs` also runs every Obbs
//! pair on every backend at every length against the f32 reference.)

use crate::common;

use bvlanes::{Aabb, Backend, BvError, Conservative, Obb, Obbs, Sphere};
use common::{TestRng, rotation};

fn random_obbs(rng: &mut TestRng, n: usize) -> Vec<Obb> {
    (0..n)
        .map(|_| {
            let c = [rng.sym(20.0), rng.sym(20.0), rng.sym(20.0)];
            let h = [
                rng.range(0.0, 5.0),
                rng.range(0.0, 5.0),
                rng.range(0.0, 5.0),
            ];
            Obb::new(c, h, rotation(rng))
        })
        .collect()
}

/// The real distance from `p` to the box, in f64 (the box as given, axes taken as exact).
fn distance_f64(p: [f32; 3], o: &Obb) -> f64 {
    let d: [f64; 3] = core::array::from_fn(|i| f64::from(p[i]) - f64::from(o.center[i]));
    (0..3)
        .map(|k| {
            let local: f64 = (0..3).map(|i| d[i] * f64::from(o.axes[k][i])).sum();
            let h = f64::from(o.half_extents[k]);
            let e = local - local.clamp(-h, h);
            e * e
        })
        .sum::<f64>()
        .sqrt()
}

fn hits_on(obbs: &Obbs, backend: Backend, q: &impl bvlanes::Query<Obbs>) -> Vec<bool> {
    let mut hit = vec![false; obbs.len()];
    for i in obbs.with_backend(backend).unwrap().hits(q) {
        hit[i as usize] = true;
    }
    hit
}

#[test]
fn sphere_and_point_queries_match_real_arithmetic_away_from_the_surface() {
    let mut rng = TestRng::new(11);
    let items = random_obbs(&mut rng, 200);
    let obbs = Obbs::from_slice(&items).unwrap();
    let (mut hits, mut checked) = (0, 0);
    for _ in 0..100 {
        let s = Sphere::new(
            [rng.sym(25.0), rng.sym(25.0), rng.sym(25.0)],
            rng.range(0.0, 8.0),
        );
        for &b in Backend::available() {
            let exact = hits_on(&obbs, b, &s);
            let inside = hits_on(&obbs, b, &s.center);
            for (o, (&e, &p)) in items.iter().zip(exact.iter().zip(&inside)) {
                let dist = distance_f64(s.center, o);
                if (dist - f64::from(s.radius)).abs() > 1e-3 {
                    assert_eq!(e, dist <= f64::from(s.radius), "{b}: {s:?} {o:?} at {dist}");
                    checked += 1;
                    hits += usize::from(e);
                }
                if dist > 1e-3 || dist == 0.0 && o.half_extents.iter().all(|&h| h > 1e-3) {
                    assert_eq!(p, dist == 0.0, "{b}: point {:?} {o:?} at {dist}", s.center);
                }
            }
        }
    }
    assert!(hits > 500 && checked > hits, "{hits} hits of {checked}");
}

#[test]
fn conservative_reports_every_exact_hit_on_every_backend() {
    let mut rng = TestRng::new(12);
    let items = random_obbs(&mut rng, 300);
    let obbs = Obbs::from_slice(&items).unwrap();
    let mut false_positives = 0;
    for _ in 0..100 {
        let s = Sphere::new(
            [rng.sym(25.0), rng.sym(25.0), rng.sym(25.0)],
            rng.range(0.0, 8.0),
        );
        for &b in Backend::available() {
            let exact = hits_on(&obbs, b, &s);
            let cons = hits_on(&obbs, b, &Conservative(s));
            for (o, (&e, &c)) in items.iter().zip(exact.iter().zip(&cons)) {
                assert!(c || !e, "{b}: Conservative missed {s:?} {o:?}");
                false_positives += usize::from(c && !e);
            }
        }
    }
    assert!(
        false_positives > 0,
        "the quick rejections should admit corner regions"
    );
}

#[test]
fn infinite_nan_and_huge_queries() {
    let mut rng = TestRng::new(13);
    let items = random_obbs(&mut rng, 67);
    let obbs = Obbs::from_slice(&items).unwrap();
    for &b in Backend::available() {
        let p = obbs.with_backend(b).unwrap();
        assert_eq!(
            p.count_hits(&Sphere::new([0.0; 3], f32::INFINITY)),
            67,
            "{b}"
        );
        assert_eq!(
            p.count_hits(&Sphere::new([1e30, 0.0, 0.0], 1e31)),
            67,
            "{b}"
        );
        // A huge sphere (its square overflows) 1e30 away reaches nothing.
        assert_eq!(p.count_hits(&Sphere::new([1e30, 0.0, 0.0], 2e19)), 0, "{b}");
        assert_eq!(
            p.count_hits(&Sphere::new([f32::NAN, 0.0, 0.0], 1.0)),
            0,
            "{b}"
        );
        assert_eq!(p.count_hits(&Sphere::new([0.0; 3], f32::NAN)), 0, "{b}");
        assert_eq!(p.count_hits(&[f32::INFINITY, 0.0, 0.0]), 0, "{b}");
        assert_eq!(
            p.count_hits(&Conservative(Sphere::new([0.0; 3], -1.0))),
            0,
            "{b}"
        );
    }
}

#[test]
fn validation_names_the_index_and_changes_nothing() {
    let good = Obb::from_aabb(&Aabb::new([0.0; 3], [1.0; 3]));
    let skewed = Obb::new(
        [0.0; 3],
        [1.0; 3],
        [[1.0, 0.0, 0.0], [0.1, 1.0, 0.0], [0.0, 0.0, 1.0]],
    );
    let negative = Obb::new([0.0; 3], [1.0, -0.5, 1.0], good.axes);
    let nan = Obb::new([0.0, f32::NAN, 0.0], [1.0; 3], good.axes);
    let mut obbs = Obbs::from_slice(&[good, good]).unwrap();
    let before = obbs.clone();
    assert_eq!(
        obbs.extend_from_slice(&[good, skewed]),
        Err(BvError::NotOrthonormal { index: 1 })
    );
    assert_eq!(obbs.push(negative), Err(BvError::Inverted { index: 2 }));
    assert_eq!(obbs.set(1, nan), Err(BvError::NonFinite { index: 1 }));
    assert_eq!(obbs, before);
    assert!(!skewed.is_valid() && good.is_valid());
    // -0.0 half extents are zero, and slightly imperfect rotations are accepted.
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let turned = Obb::new(
        [0.0; 3],
        [-0.0, 1.0, 1.0],
        [[s, s, 0.0], [-s, s, 0.0], [0.0, 0.0, 1.0]],
    );
    assert!(turned.is_valid());
    assert!(
        BvError::NotOrthonormal { index: 7 }
            .to_string()
            .contains('7')
    );
}

#[test]
fn constructors_contain_their_input() {
    let mut rng = TestRng::new(14);
    for _ in 0..2000 {
        let c = [rng.sym(1e3), rng.sym(1e-3), rng.sym(7.0)];
        let h = [
            rng.range(0.0, 3.0),
            rng.range(0.0, 1e-4),
            rng.range(0.0, 1e4),
        ];
        let b = Aabb::new(
            [c[0] - h[0], c[1] - h[1], c[2] - h[2]],
            [c[0] + h[0], c[1] + h[1], c[2] + h[2]],
        );
        let o = Obb::from_aabb(&b);
        for i in 0..3 {
            let (oc, oh) = (f64::from(o.center[i]), f64::from(o.half_extents[i]));
            assert!(
                oc - oh <= f64::from(b.min[i]) && f64::from(b.max[i]) <= oc + oh,
                "{b:?} {o:?}"
            );
        }
        // The bounding box of a turned box contains its eight corners.
        let turned = Obb::new(c, h, rotation(&mut rng));
        let bb = turned.aabb();
        for corner in 0..8 {
            let sign = |k: usize| if corner >> k & 1 == 1 { 1.0 } else { -1.0 };
            for i in 0..3 {
                let x: f64 = f64::from(turned.center[i])
                    + (0..3)
                        .map(|k| {
                            sign(k)
                                * f64::from(turned.half_extents[k])
                                * f64::from(turned.axes[k][i])
                        })
                        .sum::<f64>();
                assert!(
                    f64::from(bb.min[i]) <= x && x <= f64::from(bb.max[i]),
                    "{turned:?}"
                );
            }
        }
    }
}
