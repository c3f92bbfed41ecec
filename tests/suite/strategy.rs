//! Box-query strategies on `Aabbs` ([`BoxStrategy`], [`Staged`]): every strategy reports exactly
//! the plain box test's hits on every backend and through every query method; the stage-pass
//! counts agree with a brute-force count of each stage's condition; the diagonal column the
//! 7-sided strategy reads is right after every way of changing a container.

use crate::common;

use bvlanes::{Aabb, Aabbs, Backend, BoxStrategy, Conservative, Octahedra, Octahedron, Staged};
use common::*;

const SEEDS: [u64; 3] = [3, 0xB0C5, 20_261_123];
const ITEM_SIZES: [f32; 4] = [0.0, 1.0, 4.0, 12.0];
const QUERY_SIZES: [f32; 5] = [0.0, 0.5, 3.0, 10.0, 40.0];

/// The diagonal key the container must store: `sum(max)` rounded up, from exact arithmetic.
fn diag_ref(b: &Aabb) -> f32 {
    sum_directed(&b.max, true)
}

/// The query side of the diagonal plane: `sum(min)` rounded down; `-inf` if a bound is `-inf`.
fn query_sum_ref(q: &Aabb) -> f32 {
    if q.min.contains(&f32::NEG_INFINITY) {
        f32::NEG_INFINITY
    } else {
        sum_directed(&q.min, false)
    }
}

/// Brute force: does box `b` pass stage `stage` of `strategy` (that stage's condition alone)?
fn stage_condition(q: &Aabb, b: &Aabb, strategy: BoxStrategy, stage: usize) -> bool {
    let min_corner = (0..3).all(|i| b.min[i] <= q.max[i]);
    let max_corner = (0..3).all(|i| q.min[i] <= b.max[i]);
    let slab = |i: usize| b.min[i] <= q.max[i] && q.min[i] <= b.max[i];
    match (strategy, stage) {
        (BoxStrategy::Direct, 0) => min_corner && max_corner,
        (BoxStrategy::MinMax, 0) => min_corner,
        (BoxStrategy::MinMax, 1) => max_corner,
        (BoxStrategy::Xyz, axis @ 0..=2) => slab(axis),
        (BoxStrategy::SevenSided, 0) => min_corner && query_sum_ref(q) <= diag_ref(b),
        (BoxStrategy::SevenSided, 1) => max_corner,
        _ => unreachable!("{strategy} has no stage {stage}"),
    }
}

/// Brute-force count of the boxes passing stages `0..=stage` (0 for a query that screens out).
fn stage_passes_ref(items: &[Aabb], q: &Aabb, strategy: BoxStrategy, stage: usize) -> usize {
    if !aabb_query_ok(q) {
        return 0;
    }
    items
        .iter()
        .filter(|b| (0..=stage).all(|s| stage_condition(q, b, strategy, s)))
        .count()
}

/// Every strategy (and the plain query, and `Conservative`) against the reference, on every
/// backend and through every query method; then the stage counts.
fn check_all(c: &Aabbs, items: &[Aabb], q: &Aabb) -> usize {
    let expected = check_pair(c, items, q, &ref_aabb_aabb);
    for s in BoxStrategy::ALL {
        check_against(c, items, &Staged(*q, s), &expected);
    }
    check_against(
        c,
        items,
        &Conservative(Staged(*q, BoxStrategy::Xyz)),
        &expected,
    );
    check_stage_counts(c, items, q, expected.len());
    expected.len()
}

/// Stage counts on every backend: the brute force's, monotone, the last one the hit count, `None`
/// past the last stage.
fn check_stage_counts(c: &Aabbs, items: &[Aabb], q: &Aabb, hits: usize) {
    for s in BoxStrategy::ALL {
        let want: Vec<usize> = (0..s.stages())
            .map(|stage| stage_passes_ref(items, q, s, stage))
            .collect();
        assert!(
            want.windows(2).all(|w| w[0] >= w[1]),
            "{s}: brute force not monotone"
        );
        assert_eq!(*want.last().unwrap(), hits, "{s} {q:?}: last stage != hits");
        for &b in Backend::available() {
            let p = c.with_backend(b).unwrap();
            let got: Vec<usize> = (0..s.stages())
                .map(|stage| p.count_stage_passes(q, s, stage).unwrap())
                .collect();
            assert_eq!(got, want, "{s} on {b}, query {q:?}, {} boxes", items.len());
            assert_eq!(p.count_stage_passes(q, s, s.stages()), None);
            assert_eq!(p.count_stage_passes(q, s, usize::MAX), None);
        }
        let got: Vec<Option<usize>> = (0..=s.stages())
            .map(|stage| c.count_stage_passes(q, s, stage))
            .collect();
        let want: Vec<Option<usize>> = want.into_iter().map(Some).chain([None]).collect();
        assert_eq!(got, want, "{s} on the detected backend");
    }
}

#[test]
fn random_data_every_length() {
    let mut coverage = Coverage::default();
    for seed in SEEDS {
        let mut rng = TestRng::named(seed, "strategy random");
        for len in LENGTHS {
            let size = rng.pick(&ITEM_SIZES);
            let items: Vec<Aabb> = (0..len)
                .map(|_| Aabb::random(&mut rng, [0.0; 3], size))
                .collect();
            let c = Aabbs::build(&items);
            for qs in QUERY_SIZES {
                let q = Aabb::random(&mut rng, [0.0; 3], qs);
                coverage.record(check_all(&c, &items, &q), len);
            }
        }
    }
    assert!(
        coverage.none > 0 && coverage.some > 0 && coverage.all > 0,
        "{coverage:?}"
    );
}

#[test]
fn larger_random_sets_at_several_densities() {
    let mut rng = TestRng::named(7, "strategy large");
    for (len, size, q_size) in [
        (1000, 0.5, 0.5),
        (2500, 2.0, 1.0),
        (4099, 4.0, 6.0),
        (3000, 8.0, 20.0),
    ] {
        let items: Vec<Aabb> = (0..len)
            .map(|_| Aabb::random(&mut rng, [0.0; 3], size))
            .collect();
        let c = Aabbs::build(&items);
        for _ in 0..6 {
            let q = Aabb::random(&mut rng, [0.0; 3], q_size);
            check_all(&c, &items, &q);
        }
    }
}

#[test]
fn adversarial_boxes_and_wild_queries() {
    let mut rng = TestRng::named(11, "strategy adversarial");
    let mut coverage = Coverage::default();
    for len in LENGTHS {
        let items: Vec<Aabb> = (0..len).map(|_| Aabb::adversarial(&mut rng)).collect();
        let c = Aabbs::build(&items);
        for _ in 0..6 {
            let q = if rng.chance(0.5) {
                Aabb::wild(&mut rng)
            } else {
                Aabb::adversarial(&mut rng)
            };
            coverage.record(check_all(&c, &items, &q), len);
        }
    }
    assert!(coverage.none > 0 && coverage.some > 0, "{coverage:?}");
}

/// Hand-picked cases: touching faces, zero-size boxes, signed zeros, sums that overflow, infinite
/// query bounds, NaN queries.
#[test]
fn edge_cases() {
    let big = f32::MAX;
    let items = vec![
        Aabb::new([0.0; 3], [1.0; 3]),
        Aabb::new([1.0, 0.0, 0.0], [2.0, 1.0, 1.0]), // touches box 0 on x = 1
        Aabb::new([1.0; 3], [1.0; 3]),               // a point at a corner of box 0
        Aabb::new([-0.0; 3], [-0.0; 3]),             // a point at the origin, signed zeros
        Aabb::new([0.0; 3], [big; 3]),               // diagonal overflows to +inf
        Aabb::new([3e38, 3e38, 3e38], [big; 3]),
        Aabb::new([-big; 3], [-3e38; 3]), // diagonal far below -f32::MAX (rounded up: finite)
        Aabb::new([-big; 3], [big, -big, 0.0]), // diagonal sum cancels
        Aabb::new([5.0, 5.0, 5.0], [6.0, 6.0, 6.0]),
        Aabb::new([1e-30, -1e-30, 0.0], [1e-30, 1e-30, 1e-45]),
        Aabb::new([big, big, 0.0], [big, big, 1.0]),
    ];
    // Padded out to several blocks so that the early exits see mixed and empty vectors.
    let mut all = items.clone();
    for i in 0..40 {
        all.push(Aabb::new([100.0 + i as f32; 3], [101.0 + i as f32; 3]));
    }
    let c = Aabbs::build(&all);
    for (i, b) in all.iter().enumerate() {
        assert_eq!(c.diagonal(i), Some(diag_ref(b)), "diagonal of {b:?}");
    }
    assert_eq!(c.diagonal(4), Some(f32::INFINITY));
    let inf = f32::INFINITY;
    let queries = [
        Aabb::new([1.0; 3], [1.0; 3]),
        Aabb::new([-0.0; 3], [0.0; 3]),
        Aabb::new([0.0; 3], [-0.0; 3]),
        Aabb::new([2.0, 1.0, 1.0], [3.0, 2.0, 2.0]),
        Aabb::new([3e38; 3], [big; 3]), // sum(min) rounds down to f32::MAX
        Aabb::new([big; 3], [big; 3]),
        Aabb::new([-inf; 3], [inf; 3]),
        Aabb::new([-inf, 0.0, 0.0], [inf, 0.5, 0.5]),
        Aabb::new([0.5, -inf, 0.5], [0.5, inf, 0.5]),
        Aabb::new([-big; 3], [-big; 3]),
        Aabb::new([-inf; 3], [-3e38; 3]),
        Aabb::new([big, -big, 0.0], [big, -big, 0.0]),
        Aabb::new([0.0, 0.0, 1e-45], [1e-30, 1e-30, 1e-45]),
        Aabb::new([f32::NAN, 0.0, 0.0], [1.0; 3]),
        Aabb::new([0.0; 3], [1.0, f32::NAN, 1.0]),
        Aabb::new([1.0; 3], [0.0; 3]),   // inverted: empty
        Aabb::new([inf; 3], [inf; 3]),   // no finite point
        Aabb::new([-inf; 3], [-inf; 3]), // no finite point
        // sum(min): the finite terms overflow before the -inf (found in review: was NaN).
        Aabb::new([big, big, -inf], [inf, inf, 1.0]),
        Aabb::new([3e38, 3e38, -inf], [inf; 3]),
    ];
    for q in &queries {
        check_all(&c, &all, q);
        check_all(&Aabbs::build(&items), &items, q);
    }
    // NaN queries hit nothing and pass no stage, whichever coordinate is NaN.
    for i in 0..6 {
        let mut f = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
        f[i] = f32::NAN;
        let q = Aabb::new([f[0], f[1], f[2]], [f[3], f[4], f[5]]);
        for s in BoxStrategy::ALL {
            assert_eq!(c.count_hits(&Staged(q, s)), 0);
            for stage in 0..s.stages() {
                assert_eq!(c.count_stage_passes(&q, s, stage), Some(0));
            }
        }
    }
    // Touching counts in every strategy.
    let touching = Aabb::new([2.0, 1.0, 1.0], [3.0, 2.0, 2.0]);
    for s in BoxStrategy::ALL {
        assert_eq!(c.hits(&Staged(touching, s)).collect::<Vec<_>>(), [1, 4]);
    }
}

/// The stages really filter: on spread-out data the first stage of every staged strategy rejects
/// most boxes, and the 7-sided first stage (a closed tetrahedron) passes no more than min-max's
/// open octant.
#[test]
fn stage_counts_filter_and_seven_sided_is_tighter_than_min_max() {
    let mut rng = TestRng::named(5, "strategy filter");
    let items: Vec<Aabb> = (0..2000)
        .map(|_| Aabb::random(&mut rng, [0.0; 3], 0.5))
        .collect();
    let c = Aabbs::build(&items);
    for _ in 0..10 {
        let q = Aabb::random(&mut rng, [0.0; 3], 0.5);
        let mm = c.count_stage_passes(&q, BoxStrategy::MinMax, 0).unwrap();
        let seven = c
            .count_stage_passes(&q, BoxStrategy::SevenSided, 0)
            .unwrap();
        assert!(seven <= mm, "{seven} > {mm}");
        assert!(mm < items.len(), "the open octant rejects something");
        let x = c.count_stage_passes(&q, BoxStrategy::Xyz, 0).unwrap();
        assert!(x < items.len() / 2, "the x slab is thin: {x}");
        assert_eq!(
            c.count_stage_passes(&q, BoxStrategy::Direct, 0).unwrap(),
            c.count_hits(&q)
        );
    }
}

/// The diagonal column after every mutation path, and the 7-sided strategy reading it.
#[test]
fn diagonal_column_follows_every_mutation() {
    let mut rng = TestRng::named(13, "strategy diag");
    let fresh = |rng: &mut TestRng| {
        if rng.chance(0.3) {
            Aabb::adversarial(rng)
        } else {
            Aabb::random(rng, [0.0; 3], 2.0)
        }
    };
    let check = |c: &Aabbs, items: &[Aabb], what: &str| {
        assert_eq!(c.len(), items.len(), "{what}");
        for (i, b) in items.iter().enumerate() {
            assert_eq!(c.get(i), Some(*b), "{what}: get({i})");
            assert_eq!(
                c.diagonal(i),
                Some(diag_ref(b)),
                "{what}: diagonal({i}) of {b:?}"
            );
        }
        assert_eq!(c.diagonal(items.len()), None, "{what}");
        assert_eq!(c.get(items.len()), None, "{what}");
        // Same six values, same container (the diagonal is derived, never seen by equality).
        assert_eq!(*c, Aabbs::from_slice(items).unwrap(), "{what}: equality");
        let q = Aabb::random(&mut TestRng::new(items.len() as u64), [0.0; 3], 3.0);
        check_all(c, items, &q);
    };
    let mut c = Aabbs::new();
    let mut items = Vec::new();
    check(&c, &items, "new");
    for _ in 0..37 {
        let b = fresh(&mut rng);
        assert_eq!(c.push(b).unwrap() as usize, items.len());
        items.push(b);
    }
    check(&c, &items, "push");
    // A rejected push or extend changes nothing, the diagonal column included.
    assert!(c.push(Aabb::new([1.0; 3], [0.0; 3])).is_err());
    let mut bad: Vec<Aabb> = (0..5).map(|_| fresh(&mut rng)).collect();
    bad[3].max[1] = f32::NAN;
    assert!(c.extend_from_slice(&bad).is_err());
    check(&c, &items, "rejected push / extend");
    let more: Vec<Aabb> = (0..30).map(|_| fresh(&mut rng)).collect();
    c.extend_from_slice(&more).unwrap();
    items.extend_from_slice(&more);
    check(&c, &items, "extend_from_slice");
    for _ in 0..20 {
        let i = rng.below(items.len());
        let b = fresh(&mut rng);
        c.set(i, b).unwrap();
        items[i] = b;
    }
    assert!(c.set(0, Aabb::new([0.0; 3], [f32::INFINITY; 3])).is_err());
    check(&c, &items, "set");
    while items.len() > 9 {
        let i = rng.below(items.len());
        assert_eq!(c.swap_remove(i), items.swap_remove(i));
        if items.len() % 7 == 0 {
            check(&c, &items, "swap_remove");
        }
    }
    check(&c, &items, "swap_remove");
    let clone = c.clone();
    check(&clone, &items, "clone");
    c.clear();
    items.clear();
    check(&c, &items, "clear");
    let again: Vec<Aabb> = (0..50).map(|_| fresh(&mut rng)).collect();
    for b in &again {
        c.push(*b).unwrap();
    }
    check(&c, &again, "push after clear");
    let built = Aabbs::from_slice(&again).unwrap();
    check(&built, &again, "from_slice");
    let tried = Aabbs::try_from(&again[..]).unwrap();
    check(&tried, &again, "try_from");
    // Debug shows the boxes, not the diagonal.
    let one = Aabbs::from_slice(&[Aabb::new([0.0; 3], [1.0, 2.0, 4.0])]).unwrap();
    assert_eq!(
        format!("{one:?}"),
        format!("[{:?}]", Aabb::new([0.0; 3], [1.0, 2.0, 4.0]))
    );
}

#[test]
fn strategy_names_stages_and_default() {
    assert_eq!(
        BoxStrategy::ALL.map(BoxStrategy::stages),
        [1, 2, 3, 2],
        "stages of {:?}",
        BoxStrategy::ALL
    );
    assert_eq!(
        BoxStrategy::ALL.map(BoxStrategy::name),
        ["direct", "min-max", "xyz", "7-sided"]
    );
    for s in BoxStrategy::ALL {
        assert_eq!(s.to_string(), s.name());
        assert_eq!(s.name().parse::<BoxStrategy>(), Ok(s));
        assert_eq!(s.name().to_uppercase().parse::<BoxStrategy>(), Ok(s));
    }
    let err = "seven".parse::<BoxStrategy>().unwrap_err();
    assert!(err.to_string().contains("seven"), "{err}");
    assert_eq!(BoxStrategy::default(), BoxStrategy::Direct);
}

/// `Octahedra::count_stage_passes`: up half, 8-DOP, exact, each against a brute-force count.
#[test]
fn octahedron_stage_counts() {
    let mut rng = TestRng::named(17, "strategy octahedra");
    let (mut filtered, mut exact_hits) = (0, 0);
    for len in LENGTHS.chain([300, 1000]) {
        let size = rng_size(&mut rng);
        let items: Vec<Octahedron> = (0..len)
            .map(|_| {
                if rng.chance(0.2) {
                    Octahedron::adversarial(&mut rng)
                } else {
                    Octahedron::random(&mut rng, [0.0; 3], size)
                }
            })
            .filter(octahedron_valid)
            .collect();
        let c = Octahedra::build(&items);
        for _ in 0..4 {
            let q_size = rng_size(&mut rng);
            let q = if rng.chance(0.2) {
                Octahedron::wild(&mut rng)
            } else {
                Octahedron::random(&mut rng, [0.0; 3], q_size)
            };
            let ok = octahedron_query_ok(&q);
            let count = |f: &dyn Fn(&Octahedron) -> bool| {
                if ok {
                    items.iter().filter(|o| f(o)).count()
                } else {
                    0
                }
            };
            let want = [
                count(&|o| all_le4(o.up.min, q.down.max)),
                count(&|o| eight_comparisons(&q, o)),
                count(&|o| ref_octahedron_octahedron(&q, o)),
            ];
            assert!(want[0] >= want[1] && want[1] >= want[2], "{want:?}");
            filtered += usize::from(want[0] > want[1] || want[1] > want[2]);
            exact_hits += usize::from(want[2] > 0);
            for &b in Backend::available() {
                let p = c.with_backend(b).unwrap();
                let got = [0, 1, 2].map(|s| p.count_stage_passes(&q, s).unwrap());
                assert_eq!(got, want, "on {b}, {q:?}, {len} octahedra");
                assert_eq!(got[2], p.count_hits(&q));
                assert_eq!(got[1], p.count_hits(&Conservative(q)));
                assert_eq!(p.count_stage_passes(&q, 3), None);
            }
            assert_eq!(c.count_stage_passes(&q, 0), Some(want[0]));
        }
    }
    assert!(
        filtered > 10 && exact_hits > 10,
        "coverage: {filtered} queries with stages that filter, {exact_hits} with hits"
    );
}

fn rng_size(rng: &mut TestRng) -> f32 {
    rng.pick(&[0.0, 1.0, 4.0, 12.0])
}
