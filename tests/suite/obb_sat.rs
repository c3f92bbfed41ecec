//! Oriented box against oriented boxes and boxes (the conservative separating-axis test): no false
//! negative against real arithmetic (pairs with a known common point, checked in f64), parallel
//! edges, touching faces and edges, huge and tiny magnitudes, zero half extents, screening,
//! skewed queries, agreement with the box test for axis-aligned queries, and the false-positive
//! tolerance. (`differential.rs` and `adversarial.rs` also run both pairs on every backend at every
//! length against the f32 reference of `common`.)

use crate::common;

use bvlanes::{Aabb, Aabbs, Backend, Conservative, Obb, Obbs};
use common::{TestRng, rotation};

const IDENTITY: [[f32; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// Which items `q` hits, on every available backend (asserting they agree).
fn hit_everywhere(hits_on: &dyn Fn(Backend) -> Vec<u32>, q: &Obb, len: usize) -> Vec<bool> {
    let mut out: Option<Vec<bool>> = None;
    for &b in Backend::available() {
        let mut hit = vec![false; len];
        for i in hits_on(b) {
            hit[i as usize] = true;
        }
        if let Some(prev) = &out {
            assert_eq!(prev, &hit, "{b} disagrees for {q:?}");
        }
        out = Some(hit);
    }
    out.expect("Scalar always runs")
}

fn obbs_hits(obbs: &Obbs, q: &Obb) -> Vec<bool> {
    hit_everywhere(
        &|b| obbs.with_backend(b).unwrap().hits(q).collect(),
        q,
        obbs.len(),
    )
}

fn aabbs_hits(aabbs: &Aabbs, q: &Obb) -> Vec<bool> {
    hit_everywhere(
        &|b| aabbs.with_backend(b).unwrap().hits(q).collect(),
        q,
        aabbs.len(),
    )
}

/// The local coordinates `s` of `p` in the parallelepiped `c + sum s_k axes[k]` (f64, Cramer).
fn local_f64(o: &Obb, p: [f64; 3]) -> [f64; 3] {
    let m: [[f64; 3]; 3] = o.axes.map(|r| r.map(f64::from));
    let v: [f64; 3] = core::array::from_fn(|i| p[i] - f64::from(o.center[i]));
    // Solve sum_k s_k m[k] = v: columns of the system are the rows m[k].
    let det3 = |a: [f64; 3], b: [f64; 3], c: [f64; 3]| {
        a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
            + a[2] * (b[0] * c[1] - b[1] * c[0])
    };
    let det = det3(m[0], m[1], m[2]);
    [
        det3(v, m[1], m[2]) / det,
        det3(m[0], v, m[2]) / det,
        det3(m[0], m[1], v) / det,
    ]
}

/// Whether `p` is inside `o` with room to spare for f64 rounding (relative `1e-9`).
fn inside_f64(o: &Obb, p: [f64; 3]) -> bool {
    let s = local_f64(o, p);
    let scale: f64 = o.center.iter().map(|c| f64::from(*c).abs()).sum::<f64>()
        + p.iter().map(|x| x.abs()).sum::<f64>()
        + o.half_extents.iter().map(|h| f64::from(*h)).sum::<f64>();
    (0..3).all(|k| s[k].abs() <= f64::from(o.half_extents[k]) - 1e-9 * scale)
}

/// A point of `o` at local coordinates `frac * h` (`|frac| <= 1`), in f64.
fn point_of(o: &Obb, frac: [f64; 3]) -> [f64; 3] {
    core::array::from_fn(|i| {
        f64::from(o.center[i])
            + (0..3)
                .map(|k| frac[k] * f64::from(o.half_extents[k]) * f64::from(o.axes[k][i]))
                .sum::<f64>()
    })
}

/// A box with a random orientation (sometimes skewed by up to `skew`), centre near `at`.
fn random_box(rng: &mut TestRng, at: [f32; 3], size: f32, zero_chance: f32) -> Obb {
    let h: [f32; 3] = core::array::from_fn(|_| {
        if rng.chance(zero_chance) {
            0.0
        } else {
            rng.range(0.01, 1.0) * size
        }
    });
    Obb::new(rng.near(at, size), h, rotation(rng))
}

/// Every pair with a common point (verified in f64) is reported, on every backend, against
/// `Obbs` and against `Aabbs`; at ordinary, huge and tiny scales, with random rotations, shared
/// orientations (parallel edges), flat boxes and skewed queries.
#[test]
fn pairs_with_a_common_point_are_always_reported() {
    let mut rng = TestRng::new(0x0BB5);
    let mut checked = 0;
    let scales = [
        1.0f32,
        1e-3,
        1e3,
        2f32.powi(100),
        2f32.powi(-100),
        2f32.powi(-120),
    ];
    for round in 0..60 {
        let scale = scales[round % scales.len()];
        let mut queries = Vec::new();
        let mut items = Vec::new();
        let mut boxes = Vec::new();
        for _ in 0..8 {
            let mut q = random_box(&mut rng, [0.0; 3], 4.0 * scale, 0.0);
            if rng.chance(0.2) {
                // A skewed query: its axes are sheared well past the tolerance.
                q.axes[1][0] += 0.3;
            }
            queries.push(q);
        }
        for q in &queries {
            for _ in 0..24 {
                // A point deep enough inside q that rounding it to f32 keeps it inside.
                let frac: [f64; 3] = core::array::from_fn(|_| f64::from(rng.sym(0.95)));
                let p64 = point_of(q, frac);
                let p: [f32; 3] = p64.map(|x| x as f32);
                let p64: [f64; 3] = p.map(f64::from);
                if !inside_f64(q, p64) {
                    continue;
                }
                // A box containing p: same orientation as q half the time (parallel edges).
                let axes = if rng.chance(0.5) {
                    q.axes
                } else {
                    rotation(&mut rng)
                };
                let h: [f32; 3] = core::array::from_fn(|_| {
                    if rng.chance(0.15) {
                        0.0
                    } else {
                        rng.range(0.001, 3.0) * scale
                    }
                });
                let mut o = Obb::new([0.0; 3], h, axes);
                let frac: [f64; 3] = core::array::from_fn(|k| {
                    if h[k] == 0.0 {
                        0.0
                    } else {
                        f64::from(rng.sym(0.95))
                    }
                });
                // centre = p - sum frac_k h_k axes_k, rounded: check p is still inside (flat
                // boxes usually are not after rounding: those are covered below with exact data).
                let off = point_of(&o, frac);
                o.center = core::array::from_fn(|i| (p64[i] - off[i]) as f32);
                if o.is_valid() && inside_f64(&o, p64) {
                    items.push((queries.iter().position(|x| x == q).unwrap(), o));
                }
                // An axis-aligned box around p.
                let lo: [f32; 3] = core::array::from_fn(|i| p[i] - rng.unit() * scale);
                let hi: [f32; 3] = core::array::from_fn(|i| p[i] + rng.unit() * scale);
                let b = Aabb::new(lo, hi);
                if (0..3).all(|i| lo[i] <= p[i] && p[i] <= hi[i]) {
                    boxes.push((queries.iter().position(|x| x == q).unwrap(), b));
                }
            }
        }
        let obbs = Obbs::from_slice(&items.iter().map(|x| x.1).collect::<Vec<_>>()).unwrap();
        let aabbs = Aabbs::from_slice(&boxes.iter().map(|x| x.1).collect::<Vec<_>>()).unwrap();
        for (qi, q) in queries.iter().enumerate() {
            let hit = obbs_hits(&obbs, q);
            for (i, (owner, o)) in items.iter().enumerate() {
                if *owner == qi {
                    assert!(hit[i], "missed {q:?} vs {o:?} (scale {scale})");
                    checked += 1;
                }
            }
            let hit = aabbs_hits(&aabbs, q);
            for (i, (owner, b)) in boxes.iter().enumerate() {
                if *owner == qi {
                    assert!(hit[i], "missed {q:?} vs {b:?} (scale {scale})");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10_000, "only {checked} pairs checked");
}

/// A plain f32 Gottschalk test (Real-Time Rendering 16.13.5) without any epsilon or margin: with
/// parallel edges the cross-product axes are rounding noise and can "separate" overlapping boxes.
fn naive_sat(q: &Obb, o: &Obb) -> bool {
    let dot = |x: [f32; 3], y: [f32; 3]| (x[0] * y[0] + x[1] * y[1]) + x[2] * y[2];
    let (a, b) = (q.half_extents, o.half_extents);
    let d: [f32; 3] = core::array::from_fn(|k| o.center[k] - q.center[k]);
    let r: [[f32; 3]; 3] =
        core::array::from_fn(|i| core::array::from_fn(|j| dot(q.axes[i], o.axes[j])));
    let t: [f32; 3] = core::array::from_fn(|i| dot(d, q.axes[i]));
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let e = t[i2] * r[i1][j] - t[i1] * r[i2][j];
            let ra = a[i1] * r[i2][j].abs() + a[i2] * r[i1][j].abs();
            let rb = b[j1] * r[i][j2].abs() + b[j2] * r[i][j1].abs();
            if e.abs() > ra + rb {
                return false;
            }
        }
    }
    true
}

/// Identical or nearly identical orientations (every edge of one box parallel to an edge of the
/// other, or an ulp away), overlapping by
/// a clear amount (a common point well inside both): always reported; and a plain f32 SAT
/// without RTR's epsilon does miss some of them through the near-zero cross-product axes.
#[test]
fn parallel_edges_never_separate_overlapping_boxes() {
    let mut rng = TestRng::new(0x9A8A);
    let mut naive_misses = 0;
    let mut items = Vec::new();
    let mut queries = Vec::new();
    for _ in 0..2000 {
        let axes = rotation(&mut rng);
        let q = Obb::new(
            rng.near([0.0; 3], 50.0),
            [
                rng.range(0.1, 5.0),
                rng.range(0.1, 5.0),
                rng.range(0.1, 5.0),
            ],
            axes,
        );
        // The same orientation, shifted along q's axes by less than the sum of half extents (or a
        // single axis shared: one of the rows negated and the others swapped).
        let h = [
            rng.range(0.1, 5.0),
            rng.range(0.1, 5.0),
            rng.range(0.1, 5.0),
        ];
        let frac: [f64; 3] = core::array::from_fn(|_| f64::from(rng.sym(0.9)));
        let shift: [f64; 3] = core::array::from_fn(|i| {
            (0..3)
                .map(|k| {
                    frac[k]
                        * (f64::from(q.half_extents[k]) + f64::from(h[k]))
                        * f64::from(axes[k][i])
                })
                .sum::<f64>()
        });
        let o_axes = if rng.chance(0.3) {
            [axes[0], axes[2], [-axes[1][0], -axes[1][1], -axes[1][2]]]
        } else {
            axes
        };
        let h = if o_axes == axes {
            h
        } else {
            [h[0], h[2], h[1]]
        };
        // Nearly parallel: every component nudged by up to an ulp (the cross products of matching
        // edges are then rounding noise, not zero).
        let o_axes = if rng.chance(0.7) {
            o_axes.map(|row| {
                row.map(|x| match rng.below(3) {
                    0 => x.next_up(),
                    1 => x.next_down(),
                    _ => x,
                })
            })
        } else {
            o_axes
        };
        let o = Obb::new(
            core::array::from_fn::<f32, 3, _>(|i| (f64::from(q.center[i]) + shift[i]) as f32),
            h,
            o_axes,
        );
        // Real overlap: along each shared axis the shift is at most 0.9 of the sum of the half
        // extents, so the boxes overlap by 10 % of it (far more than the rounding and the nudge).
        naive_misses += usize::from(!naive_sat(&q, &o));
        queries.push(q);
        items.push(o);
    }
    let obbs = Obbs::from_slice(&items).unwrap();
    for (i, q) in queries.iter().enumerate() {
        let hit = obbs_hits(&obbs, q);
        assert!(hit[i], "missed {q:?} vs {:?}", items[i]);
    }
    assert!(
        naive_misses > 0,
        "expected the epsilon-free f32 SAT to miss some parallel-edge overlaps"
    );
}

/// Exact data (quarter-turn rotations, dyadic values): boxes touching face to face, edge to edge
/// and corner to corner are reported (closed boxes); one unit apart they are not. Zero half
/// extents (points, segments, squares) included.
#[test]
fn touching_boxes_and_zero_extents() {
    let turned = [[0.0, 1.0, 0.0], [0.0, 0.0, -1.0], [-1.0, 0.0, 0.0]];
    let cube = |c: [f32; 3], h: [f32; 3], axes| Obb::new(c, h, axes);
    let q = cube([0.0; 3], [1.0, 2.0, 0.5], IDENTITY);
    let mut cases: Vec<(Obb, bool)> = Vec::new();
    for &scale in &[1.0f32, 2f32.powi(90), 2f32.powi(-90), 2f32.powi(-125)] {
        let s = |v: [f32; 3]| v.map(|x| x * scale);
        let q_s = cube(s(q.center), s(q.half_extents), IDENTITY);
        // Face to face along x (q reaches x = 1), with the other box turned by quarter turns:
        // `turned` maps local (h0, h1, h2) to world extents (h2, h0, h1).
        cases.push((cube(s([2.0, 0.0, 0.0]), s([1.0, 1.0, 1.0]), turned), true));
        cases.push((cube(s([1.5, 1.0, 0.0]), s([0.25, 0.25, 0.5]), turned), true));
        // Edge to edge: touching only along the line x = 1, y = 2.
        cases.push((cube(s([2.0, 3.0, 0.0]), s([1.0, 1.0, 1.0]), IDENTITY), true));
        // Corner to corner.
        cases.push((cube(s([1.5, 2.5, 1.0]), s([0.5, 0.5, 0.5]), turned), true));
        // Zero extents: a point on q's corner, a segment crossing q, a flat square in q's face.
        cases.push((cube(s([1.0, -2.0, 0.5]), [0.0; 3], IDENTITY), true));
        cases.push((cube(s([0.0, 0.0, 0.0]), s([0.0, 10.0, 0.0]), turned), true));
        cases.push((cube(s([1.0, 0.0, 0.0]), s([0.0, 3.0, 3.0]), IDENTITY), true));
        // Well apart (a quarter of the sizes): never reported.
        cases.push((cube(s([2.5, 0.0, 0.0]), s([1.0, 1.0, 1.0]), turned), false));
        cases.push((
            cube(s([2.0, 3.5, 0.0]), s([0.5, 1.0, 1.0]), IDENTITY),
            false,
        ));
        cases.push((cube(s([1.25, 0.0, 0.0]), [0.0; 3], IDENTITY), false));
        let items: Vec<Obb> = cases.iter().map(|c| c.0).collect();
        let obbs = Obbs::from_slice(&items).unwrap();
        let hit = obbs_hits(&obbs, &q_s);
        for (i, (o, want)) in cases.iter().enumerate() {
            assert_eq!(hit[i], *want, "scale {scale}: {q_s:?} vs {o:?}");
        }
        // The same against Aabbs (every case's box is axis-aligned: its bounding box is exact).
        let boxes: Vec<Aabb> = items.iter().map(Obb::aabb).collect();
        let aabbs = Aabbs::from_slice(&boxes).unwrap();
        let hit = aabbs_hits(&aabbs, &q_s);
        for (i, (b, want)) in boxes.iter().zip(cases.iter().map(|c| c.1)).enumerate() {
            assert_eq!(hit[i], want, "scale {scale}: {q_s:?} vs {b:?}");
        }
        cases.clear();
    }
}

/// NaN or an infinity anywhere in the query, or a negative half extent: hits nothing, though the
/// same query without it hits everything; `Conservative(q)` is the same test.
#[test]
fn screened_queries_hit_nothing() {
    let big = Obb::new([0.0; 3], [1e3; 3], IDENTITY);
    let obbs = Obbs::from_slice(&[big; 19]).unwrap();
    let aabbs = Aabbs::from_slice(&[big.aabb(); 19]).unwrap();
    let mut rng = TestRng::new(5);
    let base = Obb::new([0.5, -0.5, 0.25], [1.0, 2.0, 3.0], rotation(&mut rng));
    assert_eq!(obbs.count_hits(&base), 19);
    assert_eq!(aabbs.count_hits(&base), 19);
    for field in 0..15 {
        for bad in [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let mut q = base;
            let slot = match field {
                0..3 => &mut q.center[field],
                3..6 => &mut q.half_extents[field - 3],
                _ => &mut q.axes[(field - 6) / 3][(field - 6) % 3],
            };
            *slot = bad;
            for &b in Backend::available() {
                assert_eq!(obbs.with_backend(b).unwrap().count_hits(&q), 0, "{b} {q:?}");
                assert_eq!(
                    aabbs.with_backend(b).unwrap().count_hits(&q),
                    0,
                    "{b} {q:?}"
                );
                let c = Conservative(q);
                assert_eq!(obbs.with_backend(b).unwrap().count_hits(&c), 0, "{b} {q:?}");
                assert_eq!(
                    aabbs.with_backend(b).unwrap().count_hits(&c),
                    0,
                    "{b} {q:?}"
                );
            }
        }
    }
    let negative = Obb::new(base.center, [1.0, -1e-30, 1.0], base.axes);
    assert_eq!(obbs.count_hits(&negative), 0);
    assert_eq!(aabbs.count_hits(&negative), 0);
    // -0.0 is a zero half extent, not a negative one.
    let flat = Obb::new(base.center, [1.0, -0.0, 1.0], base.axes);
    assert_eq!(obbs.count_hits(&flat), 19);
    assert_eq!(aabbs.count_hits(&flat), 19);
}

/// Huge values: a query whose `8 sum(a)` overflows hits everything it can (an infinite margin);
/// boxes near `f32::MAX` never make a separated verdict out of an overflow.
#[test]
fn huge_magnitudes_never_overflow_into_a_miss() {
    let huge = Obb::new([f32::MAX, 0.0, -f32::MAX], [f32::MAX; 3], IDENTITY);
    let small = Obb::new([0.0; 3], [1.0; 3], IDENTITY);
    let far = Obb::new([-f32::MAX, 0.0, f32::MAX], [1.0; 3], IDENTITY);
    let obbs = Obbs::from_slice(&[huge, small, far]).unwrap();
    let aabbs = Aabbs::from_slice(&[
        Aabb::new([-f32::MAX; 3], [f32::MAX; 3]),
        Aabb::new([-1.0; 3], [1.0; 3]),
        Aabb::new([-f32::MAX, 0.0, 3e38], [-3e38, 0.0, f32::MAX]),
    ])
    .unwrap();
    for &b in Backend::available() {
        let po = obbs.with_backend(b).unwrap();
        let pa = aabbs.with_backend(b).unwrap();
        // The huge box contains the origin: it meets `small` (and the margins may admit `far`).
        assert!(po.hits(&small).any(|i| i == 0), "{b}");
        assert!(po.hits(&huge).any(|i| i == 1), "{b}");
        assert!(pa.hits(&small).any(|i| i == 0), "{b}");
        assert!(pa.hits(&huge).any(|i| i == 1), "{b}");
        // A query of half extent 2^126 (8 sum overflows): everything.
        let q = Obb::new([0.0; 3], [2f32.powi(126); 3], IDENTITY);
        assert_eq!(po.count_hits(&q), 3, "{b}");
        assert_eq!(pa.count_hits(&q), 3, "{b}");
    }
}

/// The SAT gaps of the 6 face axes in f64 (axes as stored), for the tolerance check.
fn face_gaps_f64(q: &Obb, o: &Obb) -> f64 {
    let d: [f64; 3] = core::array::from_fn(|k| f64::from(o.center[k]) - f64::from(q.center[k]));
    let dot = |x: [f64; 3], y: [f64; 3]| x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    let qa = q.axes.map(|r| r.map(f64::from));
    let oa = o.axes.map(|r| r.map(f64::from));
    let radius = |h: [f32; 3], axes: [[f64; 3]; 3], l: [f64; 3]| {
        (0..3)
            .map(|k| f64::from(h[k]) * dot(axes[k], l).abs())
            .sum::<f64>()
    };
    qa.iter()
        .chain(&oa)
        .map(|&l| dot(d, l).abs() - radius(q.half_extents, qa, l) - radius(o.half_extents, oa, l))
        .fold(f64::NEG_INFINITY, f64::max)
}

/// False positives stay within the documented margin: a pair separated along a face axis by more
/// than twice `2^-19 |d|_1 + 2^-10 sum(b) + 2^-12 sum(a) + 2^-140` (Obbs) is never reported, nor
/// one separated by more than twice `2^-20 (|d|_1 + sum(a) + sum(b)) + 2^-140` (Aabbs). And random
/// disjoint pairs exist on both sides of the test.
#[test]
fn false_positives_stay_within_the_margin() {
    let mut rng = TestRng::new(0xFA15E);
    let items: Vec<Obb> = (0..400)
        .map(|_| random_box(&mut rng, [0.0; 3], 6.0, 0.1))
        .collect();
    let boxes: Vec<Aabb> = (0..400)
        .map(|_| {
            let c = rng.near([0.0; 3], 12.0);
            let h: [f32; 3] = core::array::from_fn(|_| rng.unit() * 4.0);
            Aabb::new(
                core::array::from_fn::<f32, 3, _>(|i| c[i] - h[i]),
                core::array::from_fn::<f32, 3, _>(|i| c[i] + h[i]),
            )
        })
        .collect();
    let obbs = Obbs::from_slice(&items).unwrap();
    let aabbs = Aabbs::from_slice(&boxes).unwrap();
    let (mut hits, mut misses) = (0, 0);
    for _ in 0..100 {
        let q = random_box(&mut rng, [0.0; 3], 6.0, 0.1);
        let sum_a: f64 = q.half_extents.iter().map(|h| f64::from(*h)).sum();
        for (o, hit) in items.iter().zip(obbs_hits(&obbs, &q)) {
            let d1: f64 = (0..3)
                .map(|k| (f64::from(o.center[k]) - f64::from(q.center[k])).abs())
                .sum();
            let sum_b: f64 = o.half_extents.iter().map(|h| f64::from(*h)).sum();
            let margin = d1 * 2f64.powi(-19) + sum_b * 2f64.powi(-10) + sum_a * 2f64.powi(-12);
            if face_gaps_f64(&q, o) > 2.0 * margin + 1e-30 {
                assert!(!hit, "{q:?} vs {o:?}: a false positive beyond the margin");
            }
            hits += usize::from(hit);
            misses += usize::from(!hit);
        }
        for (b, hit) in boxes.iter().zip(aabbs_hits(&aabbs, &q)) {
            let o = Obb::from_aabb(b);
            let d1: f64 = (0..3)
                .map(|k| (f64::from(o.center[k]) - f64::from(q.center[k])).abs())
                .sum();
            let sum_b: f64 = o.half_extents.iter().map(|h| f64::from(*h)).sum();
            let margin = (d1 + sum_a + sum_b) * 2f64.powi(-20);
            if face_gaps_f64(&q, &o) > 2.0 * margin + 1e-30 {
                assert!(!hit, "{q:?} vs {b:?}: a false positive beyond the margin");
            }
        }
    }
    assert!(hits > 1000 && misses > 1000, "{hits} hits, {misses} misses");
}

/// An axis-aligned query (identity axes) agrees with the box test on its bounding box: every box
/// hit there is hit here, and the extra hits are within the margin of its faces.
#[test]
fn identity_axes_agree_with_the_box_test() {
    let mut rng = TestRng::new(0xA1);
    let boxes: Vec<Aabb> = (0..500)
        .map(|_| {
            let c = rng.near([0.0; 3], 10.0);
            let h: [f32; 3] = core::array::from_fn(|_| rng.unit() * 3.0);
            Aabb::new(
                core::array::from_fn::<f32, 3, _>(|i| c[i] - h[i]),
                core::array::from_fn::<f32, 3, _>(|i| c[i] + h[i]),
            )
        })
        .collect();
    let aabbs = Aabbs::from_slice(&boxes).unwrap();
    let as_obbs = Obbs::from_slice(&boxes.iter().map(Obb::from_aabb).collect::<Vec<_>>()).unwrap();
    let (mut agree, mut extra) = (0, 0);
    for _ in 0..200 {
        let c = rng.near([0.0; 3], 10.0);
        let q = Obb::new(c, [rng.unit() * 4.0, rng.unit() * 4.0, 0.0], IDENTITY);
        let bb = q.aabb();
        let exact: Vec<bool> = {
            let mut v = vec![false; boxes.len()];
            for i in aabbs.hits(&bb) {
                v[i as usize] = true;
            }
            v
        };
        let sat = aabbs_hits(&aabbs, &q);
        let sat_obbs = obbs_hits(&as_obbs, &q);
        for (i, b) in boxes.iter().enumerate() {
            assert!(!exact[i] || sat[i], "{q:?} missed {b:?}");
            assert!(!exact[i] || sat_obbs[i], "{q:?} missed {b:?} as an Obb");
            if sat[i] && !exact[i] {
                // Within the margin: the boxes' gap on some axis is tiny.
                let gap = (0..3)
                    .map(|k| {
                        (f64::from(b.min[k]) - f64::from(bb.max[k]))
                            .max(f64::from(bb.min[k]) - f64::from(b.max[k]))
                    })
                    .fold(f64::NEG_INFINITY, f64::max);
                assert!(gap < 1e-3, "{q:?} vs {b:?}: gap {gap}");
                extra += 1;
            }
            agree += usize::from(sat[i] == exact[i]);
        }
    }
    assert!(agree > 90_000, "{agree} agree, {extra} extra");
}
