//! Adversarial data, at every container length 0..=67 on every backend: touching faces, edges and
//! corners (volumes are closed), zero-size boxes and zero radii, signed zeros, huge and tiny
//! magnitudes, NaN anywhere in a query (hits nothing), infinite queries (half-spaces and slabs,
//! infinite radii), points and centres at infinity, empty and inverted queries.
//!
//! Most tests state their expected hits by hand (not through the reference), and also check that
//! the reference agrees, so that a misconception shared by the oracle and the kernels shows up.

use crate::common;

use bvlanes::{
    Aabb, Aabbs, Conservative, DownTet, DownTets, Frustum, Obb, Obbs, Octahedra, Octahedron, Query,
    Sphere, Spheres, UpTet, UpTets,
};
use common::*;
use core::fmt::Debug;

/// A fixed but lane-unaligned assignment of kinds to indices (a period of 8 would always put the
/// same kind in the same AVX2 lane).
fn kind_of(i: usize, kinds: usize) -> usize {
    (((i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 33) % kinds as u64) as usize
}

/// For every length 0..=67, a container whose item `i` is `kinds[kind_of(i)].0`: query `q` must hit
/// exactly the items whose kind says `true`. Checks that the reference agrees with each kind first.
fn expect_kinds<C: Bv, Q: Query<C> + Debug>(
    kinds: &[(C::Item, bool)],
    q: &Q,
    reference: &dyn Fn(&Q, &C::Item) -> bool,
) {
    for (k, (item, hit)) in kinds.iter().enumerate() {
        assert!(item.valid(), "kind {k}: {item:?} is not a valid primitive");
        assert_eq!(
            reference(q, item),
            *hit,
            "the reference disagrees with kind {k}: {q:?} vs {item:?}"
        );
    }
    for len in LENGTHS {
        let items: Vec<C::Item> = (0..len).map(|i| kinds[kind_of(i, kinds.len())].0).collect();
        let c = C::build(&items);
        let expected: Vec<u32> = (0..len)
            .filter(|&i| kinds[kind_of(i, kinds.len())].1)
            .map(|i| i as u32)
            .collect();
        check_against(&c, &items, q, &expected);
    }
}

/// Random, adversarial, huge and origin primitives, mixed.
fn mixed_items<T: Shape>(rng: &mut TestRng, len: usize) -> Vec<T> {
    (0..len)
        .map(|_| match rng.below(4) {
            0 => T::random(rng, [0.0; 3], 4.0),
            1 => T::adversarial(rng),
            2 => T::everything(),
            _ => T::origin(),
        })
        .collect()
}

/// For every length 0..=67, on mixed primitives: `q` hits exactly those `expect` says.
fn expect_predicate<C: Bv, Q: Query<C> + Debug>(
    seed: u64,
    q: &Q,
    expect: &dyn Fn(&C::Item) -> bool,
    reference: &dyn Fn(&Q, &C::Item) -> bool,
) {
    let mut rng = TestRng::named(seed, C::NAME);
    for len in LENGTHS {
        let items: Vec<C::Item> = mixed_items(&mut rng, len);
        let c = C::build(&items);
        let expected = reference_hits(&items, q, &|_, it| expect(it));
        let from_reference = reference_hits(&items, q, reference);
        assert_eq!(
            expected, from_reference,
            "the reference disagrees with the stated semantics for {q:?}"
        );
        check_against(&c, &items, q, &expected);
    }
}

fn expect_none<C: Bv, Q: Query<C> + Debug>(q: &Q, reference: &dyn Fn(&Q, &C::Item) -> bool) {
    expect_predicate::<C, Q>(11, q, &|_| false, reference);
}

fn expect_all<C: Bv, Q: Query<C> + Debug>(q: &Q, reference: &dyn Fn(&Q, &C::Item) -> bool) {
    expect_predicate::<C, Q>(12, q, &|_| true, reference);
}

fn up(x: f32) -> f32 {
    x.next_up()
}

fn down(x: f32) -> f32 {
    x.next_down()
}

fn cube(lo: f32, hi: f32) -> Aabb {
    Aabb::new([lo; 3], [hi; 3])
}

// =================================================================================================
// Reference fuzzing with special values, and NaN / infinity in every field, for every pair
// =================================================================================================

/// Adversarial primitives against wild queries (NaN, infinities, inverted, empty, special values),
/// checked against the reference.
fn special_values<C: Bv, Q: Shape + Query<C>>(
    name: &str,
    reference: &dyn Fn(&Q, &C::Item) -> bool,
) {
    let mut coverage = Coverage::default();
    for seed in [5, 6] {
        let mut rng = TestRng::named(seed, name);
        for len in LENGTHS {
            let items: Vec<C::Item> = (0..len).map(|_| C::Item::adversarial(&mut rng)).collect();
            let c = C::build(&items);
            for _ in 0..4 {
                let q = Q::wild(&mut rng);
                let hits = check_pair(&c, &items, &q, reference);
                coverage.record(hits.len(), len);
            }
        }
    }
    assert!(
        coverage.none > 0 && coverage.some > 0,
        "{name}: {coverage:?}"
    );
}

/// A NaN in any field of a query (any NaN: quiet, signalling, negative, with a payload) hits
/// nothing, although the same query without it hits everything.
fn nan_anywhere<C: Bv, Q: Shape + Query<C>>(name: &str, reference: &dyn Fn(&Q, &C::Item) -> bool) {
    let mut rng = TestRng::named(8, name);
    let base = Q::around_origin(&mut rng, 1.0);
    let everything = C::Item::everything();
    assert!(reference(&base, &everything), "{name}: {base:?} should hit");
    let containers: Vec<(Vec<C::Item>, C)> = LENGTHS
        .map(|len| {
            let items: Vec<C::Item> = (0..len)
                .map(|i| {
                    if i % 3 == 0 {
                        everything
                    } else {
                        C::Item::random(&mut rng, [0.0; 3], 4.0)
                    }
                })
                .collect();
            let c = C::build(&items);
            (items, c)
        })
        .collect();
    for (items, c) in &containers {
        let expected = reference_hits(items, &base, reference);
        check_against(c, items, &base, &expected);
    }
    for field in 0..base.floats().len() {
        for nan in NON_FINITE.iter().copied().filter(|x| x.is_nan()) {
            let mut f = base.floats();
            f[field] = nan;
            let q = Q::from_floats(&f);
            for (items, c) in &containers {
                assert!(reference_hits(items, &q, reference).is_empty());
                check_against(c, items, &q, &[]);
            }
        }
    }
}

/// An infinity in any field of a query (the rest random): whatever the semantics make of it
/// (half-space, empty, everything), every backend agrees with the reference.
fn infinity_anywhere<C: Bv, Q: Shape + Query<C>>(
    name: &str,
    reference: &dyn Fn(&Q, &C::Item) -> bool,
) {
    let mut rng = TestRng::named(9, name);
    let containers: Vec<(Vec<C::Item>, C)> = LENGTHS
        .map(|len| {
            let items: Vec<C::Item> = mixed_items(&mut rng, len);
            let c = C::build(&items);
            (items, c)
        })
        .collect();
    for round in 0..3 {
        let base = Q::random(&mut rng, [0.0; 3], 3.0);
        for field in 0..base.floats().len() {
            for inf in [f32::INFINITY, f32::NEG_INFINITY] {
                let mut f = base.floats();
                f[field] = inf;
                let q = Q::from_floats(&f);
                // Every length, spread over the rounds.
                for (items, c) in containers.iter().skip(round).step_by(3) {
                    check_pair(c, items, &q, reference);
                }
            }
        }
    }
}

macro_rules! per_pair_tests {
    ($name:ident, $c:ty, $q:ty, $reference:expr) => {
        mod $name {
            use super::*;

            #[test]
            fn special_values_against_the_reference() {
                special_values::<$c, $q>(stringify!($name), &$reference);
            }

            #[test]
            fn nan_anywhere_hits_nothing() {
                nan_anywhere::<$c, $q>(stringify!($name), &$reference);
            }

            #[test]
            fn infinity_anywhere_against_the_reference() {
                infinity_anywhere::<$c, $q>(stringify!($name), &$reference);
            }
        }
    };
}

for_each_pair!(per_pair_tests);

// =================================================================================================
// Touching counts (closed volumes); one ulp apart does not
// =================================================================================================

#[test]
fn aabbs_touching_faces_edges_corners_vs_box() {
    let q = cube(1.0, 2.0);
    let kinds = [
        (Aabb::new([2.0, 1.0, 1.0], [3.0, 2.0, 2.0]), true), // face +x
        (Aabb::new([1.0, 0.0, 1.0], [2.0, 1.0, 2.0]), true), // face -y
        (Aabb::new([2.0, 2.0, 1.5], [3.0, 3.0, 1.7]), true), // edge
        (cube(2.0, 3.0), true),                              // corner
        (cube(0.0, 1.0), true),                              // opposite corner
        (cube(2.0, 2.0), true),                              // zero-size, at a corner
        (Aabb::new([1.5, 1.0, 2.0], [1.5, 1.0, 2.0]), true), // zero-size, on an edge
        (cube(0.0, 3.0), true),                              // contains
        (cube(1.25, 1.75), true),                            // inside
        (Aabb::new([up(2.0), 1.0, 1.0], [3.0, 2.0, 2.0]), false), // an ulp past a face
        (Aabb::new([2.0, 2.0, up(2.0)], [3.0, 3.0, 3.0]), false), // an ulp past a corner
        (Aabb::new([0.0, 1.0, 1.0], [down(1.0), 2.0, 2.0]), false), // an ulp short of a face
        (cube(up(2.0), up(2.0)), false),
    ];
    expect_kinds::<Aabbs, _>(&kinds, &q, &ref_aabb_aabb);
    expect_kinds::<Aabbs, _>(
        &kinds,
        &Conservative(q),
        &conservative_is_exact(ref_aabb_aabb),
    );
}

#[test]
fn aabbs_point_on_faces_edges_corners() {
    let p = [2.0, 2.0, 2.0];
    let kinds = [
        (cube(2.0, 3.0), true),
        (cube(1.0, 2.0), true),
        (cube(2.0, 2.0), true),
        (Aabb::new([1.0, 1.0, 2.0], [3.0, 3.0, 2.0]), true), // flat box through p
        (Aabb::new([1.0, 2.0, 1.0], [3.0, 2.0, 3.0]), true),
        (Aabb::new([up(2.0), 1.0, 1.0], [3.0, 3.0, 3.0]), false),
        (Aabb::new([1.0, 1.0, 1.0], [down(2.0), 3.0, 3.0]), false),
        (Aabb::new([1.0, up(2.0), 1.0], [3.0, 3.0, 3.0]), false),
        (cube(up(2.0), 3.0), false),
    ];
    expect_kinds::<Aabbs, _>(&kinds, &p, &ref_point_aabb);
}

#[test]
fn aabbs_vs_sphere_touching_at_integer_distances() {
    // Centre (100, 100, 100), radius 15: 15^2 = 9^2 + 12^2 = 2^2 + 5^2 + 14^2, all exact in f32.
    let s = Sphere::new([100.0; 3], 15.0);
    let exact_and_conservative = [
        (
            Aabb::new([115.0, 90.0, 90.0], [120.0, 110.0, 110.0]),
            true,
            true,
        ), // face
        (
            Aabb::new([109.0, 112.0, 95.0], [110.0, 113.0, 105.0]),
            true,
            true,
        ), // edge
        (
            Aabb::new([102.0, 105.0, 114.0], [103.0, 106.0, 115.0]),
            true,
            true,
        ), // corner
        (
            Aabb::new([97.0, 94.0, 85.0], [98.0, 95.0, 86.0]),
            true,
            true,
        ), // corner, other side
        (cube(99.0, 101.0), true, true), // contains the centre
        (
            Aabb::new([115.0, 100.0, 100.0], [115.0, 100.0, 100.0]),
            true,
            true,
        ), // a point on it
        (
            Aabb::new([100.0, 109.0, 112.0], [100.0, 109.0, 112.0]),
            true,
            true,
        ),
        // An ulp past the face or the corner: the exact test misses, the widened box does not.
        (
            Aabb::new([up(115.0), 90.0, 90.0], [120.0, 110.0, 110.0]),
            false,
            true,
        ),
        (
            Aabb::new([102.0, 105.0, up(114.0)], [103.0, 106.0, 115.0]),
            false,
            true,
        ),
        // In the corner region of the bounding box: a false positive of the quick rejection.
        (cube(111.0, 112.0), false, true),
        // Past the bounding box: both miss.
        (
            Aabb::new([116.0, 90.0, 90.0], [120.0, 110.0, 110.0]),
            false,
            false,
        ),
        (cube(0.0, 84.0), false, false),
    ];
    let exact: Vec<(Aabb, bool)> = exact_and_conservative
        .iter()
        .map(|&(b, e, _)| (b, e))
        .collect();
    let conservative: Vec<(Aabb, bool)> = exact_and_conservative
        .iter()
        .map(|&(b, _, c)| (b, c))
        .collect();
    expect_kinds::<Aabbs, _>(&exact, &s, &ref_sphere_aabb);
    expect_kinds::<Aabbs, _>(
        &conservative,
        &Conservative(s),
        &ref_conservative_sphere_aabb,
    );
}

#[test]
fn spheres_vs_box_touching_at_integer_distances() {
    let q = cube(100.0, 110.0);
    let kinds = [
        (Sphere::new([125.0, 105.0, 105.0], 15.0), true), // face
        (Sphere::new([119.0, 122.0, 105.0], 15.0), true), // edge: (9, 12, 0)
        (Sphere::new([112.0, 115.0, 124.0], 15.0), true), // corner: (2, 5, 14)
        (Sphere::new([98.0, 95.0, 86.0], 15.0), true),    // corner, other side
        (Sphere::new([105.0; 3], 0.0), true),             // a point inside
        (Sphere::new([110.0; 3], 0.0), true),             // the corner itself
        (Sphere::new([100.0; 3], -0.0), true),            // signed zero radius
        (Sphere::new([up(125.0), 105.0, 105.0], 15.0), false),
        (Sphere::new([110.0, 110.0, up(110.0)], 0.0), false),
        (Sphere::new([112.0, 115.0, 124.0], down(15.0)), false),
    ];
    expect_kinds::<Spheres, _>(&kinds, &q, &ref_aabb_sphere);
}

#[test]
fn spheres_vs_point_on_the_surface() {
    let p = [1.0, 2.0, 3.0];
    let kinds = [
        (Sphere::new([4.0, 6.0, 3.0], 5.0), true),   // (3, 4, 0)
        (Sphere::new([3.0, 5.0, 9.0], 7.0), true),   // (2, 3, 6)
        (Sphere::new([2.0, 6.0, 11.0], 9.0), true),  // (1, 4, 8)
        (Sphere::new([-2.0, -2.0, 3.0], 5.0), true), // (-3, -4, 0)
        (Sphere::new(p, 0.0), true),
        (Sphere::new(p, -0.0), true),
        (Sphere::new([4.0, 6.0, 3.0], down(5.0)), false),
        (Sphere::new([1.0, 2.0, up(3.0)], 0.0), false),
        (Sphere::new([2.0, 6.0, 11.0], down(9.0)), false),
    ];
    expect_kinds::<Spheres, _>(&kinds, &p, &ref_point_sphere);
}

#[test]
fn spheres_vs_sphere_touching() {
    let q = Sphere::new([1.0, 2.0, 3.0], 2.0);
    let kinds = [
        (Sphere::new([4.0, 6.0, 3.0], 3.0), true), // distance 5 = 2 + 3
        (Sphere::new([3.0, 5.0, 9.0], 5.0), true), // distance 7 = 2 + 5
        (Sphere::new([10.0, 2.0, 3.0], 7.0), true), // distance 9 = 2 + 7
        (Sphere::new([1.0, 2.0, 3.0], 0.0), true),
        (Sphere::new([3.0, 2.0, 3.0], 0.0), true), // a point on the query's surface
        // Radii 2^-20 and 2^-19 short: the sums 5 - 2^-20 and 9 - 2^-19 are exact.
        (Sphere::new([4.0, 6.0, 3.0], 3.0 - 1.0 / 1_048_576.0), false),
        (Sphere::new([10.0, 2.0, 3.0], 7.0 - 1.0 / 524_288.0), false),
        (Sphere::new([up(3.0), 2.0, 3.0], 0.0), false),
    ];
    expect_kinds::<Spheres, _>(&kinds, &q, &ref_sphere_sphere);
    // A query of radius -0.0 is the point.
    let point_like = Sphere::new([4.0, 6.0, 3.0], -0.0);
    let kinds = [
        (Sphere::new([1.0, 2.0, 3.0], 5.0), true),
        (Sphere::new([1.0, 2.0, 3.0], down(5.0)), false),
    ];
    expect_kinds::<Spheres, _>(&kinds, &point_like, &ref_sphere_sphere);
}

#[test]
fn tets_touching() {
    // Down tetrahedron query t <= (1, 2, 3, -1) (sum 5): up tetrahedra touching it on some axes.
    let q = DownTet::new([1.0, 2.0, 3.0, -1.0]);
    let ups = [
        (UpTet::new([1.0, 2.0, -5.0, -1.0]), true), // touches on A, B, D
        (UpTet::new([1.0, 2.0, 3.0, -6.0]), true),  // a single point (sum 0), on q's corner
        (UpTet::new([-10.0; 4]), true),
        (UpTet::new([-10.0, -10.0, -10.0, down(-1.0)]), true),
        (UpTet::new([up(1.0), 2.0, -5.0, -1.0]), false),
        (UpTet::new([-10.0, -10.0, -10.0, up(-1.0)]), false),
        (UpTet::new([-0.0, 0.0, -0.0, 0.0]), false), // the origin (a padding lane): t_D = 0 > -1
    ];
    expect_kinds::<UpTets, _>(&ups, &q, &ref_down_up);
    // The same up tetrahedra as the up halves of octahedra (the down half: the circumscribed one).
    let octs: Vec<(Octahedron, bool)> = ups
        .iter()
        .map(|&(u, h)| (Octahedron::new(u, u.circumscribed()), h))
        .collect();
    expect_kinds::<Octahedra, _>(&octs, &q, &ref_down_octahedron);

    // Mirror: up tetrahedron query t >= (-1, -2, -3, 1).
    let q = UpTet::new([-1.0, -2.0, -3.0, 1.0]);
    let downs = [
        (DownTet::new([-1.0, -2.0, 5.0, 1.0]), true),
        (DownTet::new([-1.0, -2.0, -3.0, 6.0]), true),
        (DownTet::new([10.0; 4]), true),
        (DownTet::new([down(-1.0), -2.0, 5.0, 1.0]), false),
        (DownTet::new([10.0, 10.0, 10.0, down(1.0)]), false),
        (DownTet::new([0.0; 4]), false),
    ];
    expect_kinds::<DownTets, _>(&downs, &q, &ref_up_down);
    let octs: Vec<(Octahedron, bool)> = downs
        .iter()
        .map(|&(d, h)| (Octahedron::new(d.circumscribed(), d), h))
        .collect();
    expect_kinds::<Octahedra, _>(&octs, &q, &ref_up_octahedron);
}

#[test]
fn tets_and_octahedra_vs_point_on_the_boundary() {
    // p = (1, 2, 3): t = (6, -4, -2, 0), all exact.
    let p = [1.0, 2.0, 3.0];
    let ups = [
        (UpTet::new([6.0, -4.0, -2.0, 0.0]), true), // exactly the point
        (UpTet::new([6.0, -4.0, -2.0, -10.0]), true),
        (UpTet::new([-10.0; 4]), true),
        (UpTet::new([up(6.0), -4.0, -2.0, -1.0]), false),
        (UpTet::new([6.0, up(-4.0), -3.0, -1.0]), false),
    ];
    expect_kinds::<UpTets, _>(&ups, &p, &ref_point_up);
    let downs = [
        (DownTet::new([6.0, -4.0, -2.0, 0.0]), true),
        (DownTet::new([6.0, -4.0, 10.0, 0.0]), true),
        (DownTet::new([10.0; 4]), true),
        (DownTet::new([down(6.0), -4.0, -2.0, 10.0]), false),
        (DownTet::new([6.0, -4.0, 10.0, down(0.0)]), false),
    ];
    expect_kinds::<DownTets, _>(&downs, &p, &ref_point_down);
    let octs = [
        (Octahedron::from_points([p]).expect("one point"), true),
        (
            Octahedron::new(
                UpTet::new([6.0, -4.0, -2.0, 0.0]),
                DownTet::new([6.0, -4.0, -2.0, 1.0]),
            ),
            true,
        ),
        (Octahedron::from_aabb(&cube(1.0, 3.0)), true),
        (
            Octahedron::new(
                UpTet::new([up(6.0), -4.0, -2.0, -1.0]),
                DownTet::new([7.0; 4]),
            ),
            false,
        ),
        (
            Octahedron::new(
                UpTet::new([-7.0; 4]),
                DownTet::new([6.0, -4.0, down(-2.0), 1.0]),
            ),
            false,
        ),
        (Octahedron::from_aabb(&cube(10.0, 11.0)), false),
    ];
    expect_kinds::<Octahedra, _>(&octs, &p, &ref_point_octahedron);
}

#[test]
fn octahedra_touching_and_the_sum_condition() {
    // q: -1 <= t_k <= 1 on all four axes.
    let q = Octahedron::new(UpTet::new([-1.0; 4]), DownTet::new([1.0; 4]));
    let o = |u: [f32; 4], d: [f32; 4]| Octahedron::new(UpTet::new(u), DownTet::new(d));
    let gap = 1.0 / 65_536.0; // 2^-16: far beyond the sum tolerance (about 2^-19 here)
    // (item, exact hit, conservative hit)
    let kinds = [
        // Touching on the plane t_A = 1.
        (o([1.0, -3.0, -3.0, -3.0], [3.0, 1.0, 1.0, 1.0]), true, true),
        // An ulp apart on that plane: the eight comparisons already fail.
        (
            o([up(1.0), -3.0, -3.0, -3.0], [3.0, 1.0, 1.0, 1.0]),
            false,
            false,
        ),
        // Meeting in one point through the sum condition: lo = (-1, 1, 1, -1), sum 0.
        (o([-3.0, 1.0, 1.0, -1.0], [2.0; 4]), true, true),
        // Apart by 2^-16 along the sum: only the 8-DOP test is fooled.
        (o([-3.0, 1.0, 1.0, -1.0 + gap], [2.0; 4]), false, true),
        // Apart by a wide margin along the sum (lo = (-1, .5, .5, .5)).
        (o([-10.0, 0.5, 0.5, 0.5], [10.0; 4]), false, true),
        // The upper sum: a single point t = (3, -1, -1, -1), outside q (t_A = 3 > 1).
        (o([-3.0; 4], [3.0, -1.0, -1.0, -1.0]), false, true),
        // The upper sum touching: the single point t = (1, -1, 1, -1), on q's boundary.
        (o([-3.0; 4], [1.0, -1.0, 1.0, -1.0]), true, true),
        // Containing q, and the origin (what a padding lane holds).
        (o([-5.0; 4], [5.0; 4]), true, true),
        (o([0.0; 4], [0.0; 4]), true, true),
        // Octahedra of boxes: one overlapping q, one far away.
        (Octahedron::from_aabb(&cube(0.0, 1.0)), true, true),
        (Octahedron::from_aabb(&cube(5.0, 6.0)), false, false),
    ];
    let exact: Vec<(Octahedron, bool)> = kinds.iter().map(|&(x, e, _)| (x, e)).collect();
    let conservative: Vec<(Octahedron, bool)> = kinds.iter().map(|&(x, _, c)| (x, c)).collect();
    expect_kinds::<Octahedra, _>(&exact, &q, &ref_octahedron_octahedron);
    expect_kinds::<Octahedra, _>(
        &conservative,
        &Conservative(q),
        &ref_conservative_octahedron_octahedron,
    );
}

#[test]
fn octahedra_of_touching_boxes_touch() {
    // Boxes touching at a face, an edge and a corner: their octahedra touch too (the boxes' common
    // points are in both). From the crate docs: [0,1]^3 and [1,2]^3 meet at (1, 1, 1).
    let a = Octahedron::from_aabb(&cube(0.0, 1.0));
    let kinds = [
        (Octahedron::from_aabb(&cube(1.0, 2.0)), true),
        (
            Octahedron::from_aabb(&Aabb::new([1.0, 0.0, 0.0], [2.0, 1.0, 1.0])),
            true,
        ),
        (
            Octahedron::from_aabb(&Aabb::new([1.0, 1.0, 0.0], [2.0, 2.0, 1.0])),
            true,
        ),
        (Octahedron::from_aabb(&cube(-1.0, 0.0)), true),
        (Octahedron::from_aabb(&cube(up(1.0), 2.0)), false), // t_A: 3 < 3 + 3 ulp
        (Octahedron::from_aabb(&cube(3.0, 4.0)), false),
    ];
    expect_kinds::<Octahedra, _>(&kinds, &a, &ref_octahedron_octahedron);
}

// =================================================================================================
// Degenerate primitives: zero size, zero radius, signed zeros
// =================================================================================================

#[test]
fn zero_size_boxes_and_zero_radii_at_one_point() {
    let p = [0.5, -0.25, 3.0];
    let p_next = [up(0.5), -0.25, 3.0];
    let boxes = [(Aabb::new(p, p), true)];
    expect_kinds::<Aabbs, _>(&boxes, &p, &ref_point_aabb);
    expect_kinds::<Aabbs, _>(&boxes, &Aabb::new(p, p), &ref_aabb_aabb);
    expect_kinds::<Aabbs, _>(&boxes, &Sphere::new(p, 0.0), &ref_sphere_aabb);
    expect_kinds::<Aabbs, _>(&boxes, &Sphere::new(p, -0.0), &ref_sphere_aabb);
    expect_kinds::<Aabbs, _>(
        &boxes,
        &Conservative(Sphere::new(p, 0.0)),
        &ref_conservative_sphere_aabb,
    );
    let missed = [(Aabb::new(p, p), false)];
    expect_kinds::<Aabbs, _>(&missed, &p_next, &ref_point_aabb);
    expect_kinds::<Aabbs, _>(&missed, &Sphere::new(p_next, 0.0), &ref_sphere_aabb);
    expect_kinds::<Aabbs, _>(&missed, &Aabb::new(p_next, p_next), &ref_aabb_aabb);

    let spheres = [(Sphere::new(p, 0.0), true), (Sphere::new(p, -0.0), true)];
    expect_kinds::<Spheres, _>(&spheres, &p, &ref_point_sphere);
    expect_kinds::<Spheres, _>(&spheres, &Sphere::new(p, 0.0), &ref_sphere_sphere);
    expect_kinds::<Spheres, _>(&spheres, &Aabb::new(p, p), &ref_aabb_sphere);
    let missed = [(Sphere::new(p, 0.0), false), (Sphere::new(p, -0.0), false)];
    expect_kinds::<Spheres, _>(&missed, &p_next, &ref_point_sphere);
    expect_kinds::<Spheres, _>(&missed, &Sphere::new(p_next, 0.0), &ref_sphere_sphere);
    expect_kinds::<Spheres, _>(
        &missed,
        &Aabb::new(p_next, [1.0, 0.0, 4.0]),
        &ref_aabb_sphere,
    );
}

#[test]
fn signed_zeros_are_equal() {
    let (z, n) = (0.0f32, -0.0f32);
    let boxes = [
        (Aabb::new([n; 3], [n; 3]), true),
        (Aabb::new([z; 3], [z; 3]), true),
        (Aabb::new([n, z, n], [z, n, z]), true),
        (Aabb::new([-1.0; 3], [n; 3]), true),
        (Aabb::new([z; 3], [1.0; 3]), true),
        (Aabb::new([f32::from_bits(1), z, z], [1.0; 3]), false), // a subnormal above zero
        (Aabb::new([-1.0; 3], [-f32::from_bits(1), z, z]), false),
    ];
    // For the sphere query, a subnormal gap squares to zero (the documented underflow of the f32
    // formula), so its misses are 1e-15 away instead.
    let boxes_for_spheres = [
        (Aabb::new([n; 3], [n; 3]), true),
        (Aabb::new([n, z, n], [z, n, z]), true),
        (Aabb::new([-1.0; 3], [n; 3]), true),
        (Aabb::new([1e-15, z, z], [1.0; 3]), false),
        (Aabb::new([-1.0; 3], [-1e-15, z, z]), false),
    ];
    for p in [[z; 3], [n; 3], [n, z, n]] {
        expect_kinds::<Aabbs, _>(&boxes, &p, &ref_point_aabb);
        expect_kinds::<Aabbs, _>(&boxes, &Aabb::new(p, p), &ref_aabb_aabb);
        expect_kinds::<Aabbs, _>(&boxes_for_spheres, &Sphere::new(p, n), &ref_sphere_aabb);
    }
    let spheres = [
        (Sphere::new([n; 3], n), true),
        (Sphere::new([z; 3], z), true),
        (Sphere::new([n, z, n], 1.0), true),
        (Sphere::new([f32::from_bits(1) * 1e30, z, z], z), false),
    ];
    for p in [[z; 3], [n; 3]] {
        expect_kinds::<Spheres, _>(&spheres, &p, &ref_point_sphere);
        expect_kinds::<Spheres, _>(&spheres, &Sphere::new(p, n), &ref_sphere_sphere);
        expect_kinds::<Spheres, _>(&spheres, &Aabb::new(p, [z; 3]), &ref_aabb_sphere);
    }
    let ups = [
        (UpTet::new([n; 4]), true),
        (UpTet::new([z, n, z, n]), true),
        (UpTet::new([f32::from_bits(1), -1.0, -1.0, -1.0]), false),
    ];
    let downs = [
        (DownTet::new([n; 4]), true),
        (DownTet::new([z, n, z, n]), true),
        (DownTet::new([-f32::from_bits(1), 1.0, 1.0, 1.0]), false),
    ];
    for p in [[z; 3], [n; 3]] {
        expect_kinds::<UpTets, _>(&ups, &p, &ref_point_up);
        expect_kinds::<DownTets, _>(&downs, &p, &ref_point_down);
    }
    expect_kinds::<UpTets, _>(&ups, &DownTet::new([n; 4]), &ref_down_up);
    expect_kinds::<DownTets, _>(&downs, &UpTet::new([n; 4]), &ref_up_down);
    let octs = [
        (
            Octahedron::new(UpTet::new([n; 4]), DownTet::new([z; 4])),
            true,
        ),
        (
            Octahedron::new(UpTet::new([z; 4]), DownTet::new([n; 4])),
            true,
        ),
        (
            Octahedron::new(
                UpTet::new([f32::from_bits(1), -1.0, -1.0, -1.0]),
                DownTet::new([1.0; 4]),
            ),
            false,
        ),
    ];
    let point_oct = Octahedron::new(UpTet::new([n; 4]), DownTet::new([n; 4]));
    expect_kinds::<Octahedra, _>(&octs, &[n; 3], &ref_point_octahedron);
    expect_kinds::<Octahedra, _>(&octs, &point_oct, &ref_octahedron_octahedron);
}

// =================================================================================================
// Magnitudes: huge, tiny, subnormal
// =================================================================================================

#[test]
fn huge_magnitudes_compare_exactly() {
    let max = f32::MAX;
    let boxes = [
        (cube(3e38, max), 0),
        (cube(-max, -3e38), 1),
        (cube(-max, max), 2),
        (cube(1e30, 1e30), 3),
        (cube(-1.0, 1.0), 4),
    ];
    let expect = |q_hits: &[usize]| -> Vec<(Aabb, bool)> {
        boxes
            .iter()
            .map(|&(b, k)| (b, q_hits.contains(&k)))
            .collect()
    };
    expect_kinds::<Aabbs, _>(&expect(&[0, 2]), &[max; 3], &ref_point_aabb);
    expect_kinds::<Aabbs, _>(&expect(&[1, 2]), &[-max; 3], &ref_point_aabb);
    expect_kinds::<Aabbs, _>(&expect(&[2, 3]), &[1e30; 3], &ref_point_aabb);
    expect_kinds::<Aabbs, _>(&expect(&[0, 1, 2, 3, 4]), &cube(-max, max), &ref_aabb_aabb);
    expect_kinds::<Aabbs, _>(&expect(&[0, 2]), &cube(max, max), &ref_aabb_aabb);

    // Radius 1e18: its square and the distances' squares are finite; touching still counts.
    let s = Sphere::new([0.0; 3], 1e18);
    let kinds = [
        (Aabb::new([1e18, -1.0, -1.0], [2e18, 1.0, 1.0]), true),
        (Aabb::new([up(1e18), -1.0, -1.0], [2e18, 1.0, 1.0]), false),
        (Aabb::new([-2e18, -1.0, -1.0], [-1e18, 1.0, 1.0]), true),
        (cube(1e30, 1e31), false),
    ];
    expect_kinds::<Aabbs, _>(&kinds, &s, &ref_sphere_aabb);

    let ups = [
        (UpTet::new([max, -max, max, -max]), true), // a single point, sum exactly 0
        (UpTet::new([-max; 4]), true),
        (UpTet::new([-max, 0.0, -max, -max]), false),
    ];
    expect_kinds::<UpTets, _>(&ups, &DownTet::new([max, -max, max, max]), &ref_down_up);
    let downs = [
        (DownTet::new([-max, max, -max, max]), true),
        (DownTet::new([max; 4]), true),
        (DownTet::new([max, 0.0, max, max]), false),
    ];
    expect_kinds::<DownTets, _>(&downs, &UpTet::new([-max, max, -max, -max]), &ref_up_down);
}

#[test]
fn tiny_and_subnormal_magnitudes_compare_exactly() {
    let b = f32::from_bits; // b(1) is the smallest subnormal
    let boxes = [(cube(b(1), b(2)), true)];
    for p in [[b(1); 3], [b(2); 3], [b(1), b(2), b(1)]] {
        expect_kinds::<Aabbs, _>(&boxes, &p, &ref_point_aabb);
    }
    let missed = [(cube(b(1), b(2)), false)];
    for p in [[b(3); 3], [0.0; 3], [-b(1); 3], [b(1), b(1), b(3)]] {
        expect_kinds::<Aabbs, _>(&missed, &p, &ref_point_aabb);
    }
    let boxes = [
        (cube(f32::MIN_POSITIVE, 2.0 * f32::MIN_POSITIVE), true),
        (cube(1e-30, 2e-30), false),
    ];
    expect_kinds::<Aabbs, _>(&boxes, &cube(b(1), f32::MIN_POSITIVE), &ref_aabb_aabb);
    // Tetrahedra meeting in one subnormal point: t = (b1, -b1, b1, -b1), sum exactly 0.
    let ups = [
        (UpTet::new([b(1), -b(1), b(1), -b(1)]), true),
        (UpTet::new([b(2), -b(2), b(1), -b(1)]), false),
    ];
    expect_kinds::<UpTets, _>(
        &ups,
        &DownTet::new([b(1), -b(1), b(1), -b(1)]),
        &ref_down_up,
    );
}

// =================================================================================================
// Infinite queries: half-spaces, slabs, infinite radii; infinite points hit nothing
// =================================================================================================

#[test]
fn infinite_radius_hits_everything() {
    let mut rng = TestRng::new(21);
    for _ in 0..3 {
        let s = Sphere::new(rng.near([0.0; 3], 100.0), f32::INFINITY);
        expect_all::<Aabbs, _>(&s, &ref_sphere_aabb);
        expect_all::<Aabbs, _>(&Conservative(s), &ref_conservative_sphere_aabb);
        expect_all::<Spheres, _>(&s, &ref_sphere_sphere);
    }
}

#[test]
fn infinite_boxes_are_everything_half_spaces_and_slabs() {
    let inf = f32::INFINITY;
    let all = Aabb::new([-inf; 3], [inf; 3]);
    expect_all::<Aabbs, _>(&all, &ref_aabb_aabb);
    expect_all::<Spheres, _>(&all, &ref_aabb_sphere);

    // Half-space x <= 0.
    let half = Aabb::new([-inf; 3], [0.0, inf, inf]);
    expect_predicate::<Aabbs, _>(31, &half, &|b| b.min[0] <= 0.0, &ref_aabb_aabb);
    expect_predicate::<Spheres, _>(
        31,
        &half,
        &|s| {
            let e = s.center[0].max(0.0); // distance to the half-space
            e * e <= s.radius * s.radius
        },
        &ref_aabb_sphere,
    );
    // Slab 0 <= y <= 1.
    let slab = Aabb::new([-inf, 0.0, -inf], [inf, 1.0, inf]);
    expect_predicate::<Aabbs, _>(
        32,
        &slab,
        &|b| b.min[1] <= 1.0 && b.max[1] >= 0.0,
        &ref_aabb_aabb,
    );
    expect_predicate::<Spheres, _>(
        32,
        &slab,
        &|s| {
            let y = s.center[1];
            let e = if y < 0.0 {
                -y
            } else if y > 1.0 {
                y - 1.0
            } else {
                0.0
            };
            e * e <= s.radius * s.radius
        },
        &ref_aabb_sphere,
    );
    // A box infinite on one side only: z >= 2 within a finite x, y square.
    let chimney = Aabb::new([-1.0, -1.0, 2.0], [1.0, 1.0, inf]);
    expect_predicate::<Aabbs, _>(
        33,
        &chimney,
        &|b| {
            b.min[0] <= 1.0
                && b.max[0] >= -1.0
                && b.min[1] <= 1.0
                && b.max[1] >= -1.0
                && b.max[2] >= 2.0
        },
        &ref_aabb_aabb,
    );
}

#[test]
fn infinite_tetrahedra_and_octahedra() {
    let inf = f32::INFINITY;
    // Whole space.
    expect_all::<DownTets, _>(&UpTet::new([-inf; 4]), &ref_up_down);
    expect_all::<Octahedra, _>(&UpTet::new([-inf; 4]), &ref_up_octahedron);
    expect_all::<UpTets, _>(&DownTet::new([inf; 4]), &ref_down_up);
    expect_all::<Octahedra, _>(&DownTet::new([inf; 4]), &ref_down_octahedron);
    let whole = Octahedron::new(UpTet::new([-inf; 4]), DownTet::new([inf; 4]));
    expect_all::<Octahedra, _>(&whole, &ref_octahedron_octahedron);
    expect_all::<Octahedra, _>(
        &Conservative(whole),
        &ref_conservative_octahedron_octahedron,
    );
    // Half-spaces t_D >= 0.5 and t_D <= -0.5.
    let half_up = UpTet::new([-inf, -inf, -inf, 0.5]);
    expect_predicate::<DownTets, _>(41, &half_up, &|d| d.max[3] >= 0.5, &ref_up_down);
    expect_predicate::<Octahedra, _>(41, &half_up, &|o| o.down.max[3] >= 0.5, &ref_up_octahedron);
    let half_down = DownTet::new([inf, inf, inf, -0.5]);
    expect_predicate::<UpTets, _>(42, &half_down, &|u| u.min[3] <= -0.5, &ref_down_up);
    expect_predicate::<Octahedra, _>(
        42,
        &half_down,
        &|o| o.up.min[3] <= -0.5,
        &ref_down_octahedron,
    );
    // An octahedron half-space: against the reference (the sum condition decides near edges).
    let mut rng = TestRng::new(43);
    let half_oct = Octahedron::new(UpTet::new([-inf, -inf, -inf, 0.5]), DownTet::new([inf; 4]));
    for len in LENGTHS {
        let items: Vec<Octahedron> = mixed_items(&mut rng, len);
        let c = Octahedra::build(&items);
        check_pair(&c, &items, &half_oct, &ref_octahedron_octahedron);
    }
}

#[test]
fn points_and_centres_at_infinity_hit_nothing() {
    let inf = f32::INFINITY;
    for p in [
        [inf, 0.0, 0.0],
        [0.0, -inf, 0.0],
        [0.0, 0.0, inf],
        [inf; 3],
        [-inf; 3],
    ] {
        expect_none::<Aabbs, _>(&p, &ref_point_aabb);
        expect_none::<Spheres, _>(&p, &ref_point_sphere);
        expect_none::<UpTets, _>(&p, &ref_point_up);
        expect_none::<DownTets, _>(&p, &ref_point_down);
        expect_none::<Octahedra, _>(&p, &ref_point_octahedron);
        for r in [0.0, 1.0, inf] {
            let s = Sphere::new(p, r);
            expect_none::<Aabbs, _>(&s, &ref_sphere_aabb);
            expect_none::<Aabbs, _>(&Conservative(s), &ref_conservative_sphere_aabb);
            expect_none::<Spheres, _>(&s, &ref_sphere_sphere);
        }
    }
}

// =================================================================================================
// Empty and inverted queries hit nothing (the same comparisons would pass without screening)
// =================================================================================================

#[test]
fn inverted_boxes_hit_nothing() {
    let inf = f32::INFINITY;
    let b1 = f32::from_bits(1);
    for q in [
        Aabb::new([0.0, 0.0, 1.0], [1.0, 1.0, 0.0]),
        Aabb::new([0.0; 3], [-b1, 1.0, 1.0]),
        Aabb::new([1e30; 3], [-1e30; 3]),
        Aabb::new([inf, -1.0, -1.0], [inf, 1.0, 1.0]), // [inf, inf]: no finite point
        Aabb::new([-inf, -1.0, -1.0], [-inf, 1.0, 1.0]),
        Aabb::new([inf; 3], [-inf; 3]),
    ] {
        expect_none::<Aabbs, _>(&q, &ref_aabb_aabb);
        expect_none::<Aabbs, _>(&Conservative(q), &conservative_is_exact(ref_aabb_aabb));
        expect_none::<Spheres, _>(&q, &ref_aabb_sphere);
    }
    // Not inverted: min == max with signed zeros is the origin.
    expect_predicate::<Aabbs, _>(
        34,
        &Aabb::new([0.0; 3], [-0.0; 3]),
        &|b| (0..3).all(|i| b.min[i] <= 0.0 && 0.0 <= b.max[i]),
        &ref_aabb_aabb,
    );
}

#[test]
fn negative_and_nan_radii_hit_nothing() {
    for r in [-1.0, -f32::from_bits(1), -f32::INFINITY, f32::NAN] {
        let s = Sphere::new([0.0; 3], r);
        expect_none::<Aabbs, _>(&s, &ref_sphere_aabb);
        expect_none::<Aabbs, _>(&Conservative(s), &ref_conservative_sphere_aabb);
        expect_none::<Spheres, _>(&s, &ref_sphere_sphere);
    }
}

#[test]
fn empty_tetrahedra_hit_nothing() {
    let b1 = f32::from_bits(1);
    let inf = f32::INFINITY;
    for u in [
        UpTet::new([b1, 0.0, 0.0, 0.0]),
        UpTet::new([1.0, 2e-30, -1.0, -1e-30]), // exact sum 1e-30 > 0, f32 sum 0
        UpTet::new([1.0; 4]),
        UpTet::new([inf, -inf, -inf, -inf]),
        UpTet::new([inf, 0.0, 0.0, 0.0]),
    ] {
        expect_none::<DownTets, _>(&u, &ref_up_down);
        expect_none::<Octahedra, _>(&u, &ref_up_octahedron);
    }
    for d in [
        DownTet::new([-b1, 0.0, 0.0, 0.0]),
        DownTet::new([-1.0, -2e-30, 1.0, 1e-30]),
        DownTet::new([-1.0; 4]),
        DownTet::new([-inf, inf, inf, inf]),
    ] {
        expect_none::<UpTets, _>(&d, &ref_down_up);
        expect_none::<Octahedra, _>(&d, &ref_down_octahedron);
    }
    // Exactly zero sums are single points, not empty: they hit what contains them.
    let up_point = UpTet::new([1.0, 1e-30, -1.0, -1e-30]);
    expect_predicate::<DownTets, _>(
        51,
        &up_point,
        &|d| all_le4(up_point.min, d.max),
        &ref_up_down,
    );
    let down_point = DownTet::new([1.0, 1e-30, -1.0, -1e-30]);
    expect_predicate::<UpTets, _>(
        52,
        &down_point,
        &|u| all_le4(u.min, down_point.max),
        &ref_down_up,
    );
}

#[test]
fn empty_octahedra_hit_nothing() {
    let inf = f32::INFINITY;
    let o = |u: [f32; 4], d: [f32; 4]| Octahedron::new(UpTet::new(u), DownTet::new(d));
    for q in [
        // Both halves non-empty, but up > down on axis D.
        o([-1.0; 4], [1.0, 1.0, 1.0, -2.0]),
        // An empty up half.
        o([1.0; 4], [2.0; 4]),
        // An empty down half.
        o([-2.0; 4], [-1.0; 4]),
        // Infinite bounds on the wrong side.
        o([inf, -inf, -inf, -inf], [inf; 4]),
        o([-inf; 4], [-inf, inf, inf, inf]),
        // A NaN-free but inverted octahedron whose eight comparisons pass against big ones.
        o([0.5, -1.0, -1.0, -1.0], [0.25, 1.0, 1.0, 1.0]),
    ] {
        expect_none::<Octahedra, _>(&q, &ref_octahedron_octahedron);
        expect_none::<Octahedra, _>(&Conservative(q), &ref_conservative_octahedron_octahedron);
    }
}

// =================================================================================================
// Overflow: a sphere's squared reach must not turn into "everything"
// =================================================================================================

/// Real-arithmetic truths (f64: every value here is far from f64 overflow).
fn dist2_f64(c: [f32; 3], lo: [f32; 3], hi: [f32; 3]) -> f64 {
    (0..3)
        .map(|i| {
            let v = f64::from(c[i]);
            let e = v - v.clamp(f64::from(lo[i]), f64::from(hi[i]));
            e * e
        })
        .sum()
}

/// Squares of radii and distances past `sqrt(f32::MAX) ~ 1.8e19` overflow f32; `inf <= inf` must
/// not report far primitives. Real arithmetic decides here; every case is at least 0.1 % away from
/// touching.
#[test]
fn huge_spheres_do_not_reach_everything() {
    let p62 = MAX_RADIUS;
    let radii = [
        p62,
        2.0 * p62,
        (2.0 * p62).next_down(),
        4.0 * p62,
        (4.0 * p62).next_down(),
        2e19,
        1e30,
        3e38,
        f32::MAX,
    ];
    for r in radii {
        let s = Sphere::new([0.0; 3], r);
        let mut boxes = Vec::new();
        for d in [0.5f32, 0.99, 1.01, 2.0, 1e10] {
            let x = r * d;
            if !x.is_finite() || x > 3e38 {
                continue;
            }
            boxes.push(Aabb::new([x, -1.0, -1.0], [3e38, 1.0, 1.0])); // along x
            let y = x * core::f32::consts::FRAC_1_SQRT_2;
            boxes.push(Aabb::new([y, y, -1.0], [3e38, 3e38, 1.0])); // across an edge
            boxes.push(Aabb::new([-3e38, -3e38, -3e38], [-y, -y, 1.0])); // the other way
        }
        boxes.push(cube(1e30, 2e30));
        boxes.push(cube(-3e38, -2e38));
        boxes.push(cube(-1.0, 1.0));
        let kinds: Vec<(Aabb, bool)> = boxes
            .iter()
            .map(|b| {
                let d2 = dist2_f64(s.center, b.min, b.max);
                (*b, d2 <= f64::from(r) * f64::from(r))
            })
            .collect();
        expect_kinds::<Aabbs, _>(&kinds, &s, &ref_sphere_aabb);
        expect_kinds::<Aabbs, _>(
            &kinds.iter().filter(|k| k.1).copied().collect::<Vec<_>>(),
            &Conservative(s),
            &ref_conservative_sphere_aabb,
        );

        // Spheres of the largest accepted radius, against the same huge query sphere.
        let spheres: Vec<(Sphere, bool)> = boxes
            .iter()
            .map(|b| {
                let c = b.min.map(|v| v.clamp(-3e38, 3e38));
                let item = Sphere::new(c, p62);
                let d = dist2_f64(c, s.center, s.center).sqrt();
                (item, d <= f64::from(r) + f64::from(p62))
            })
            .filter(|(item, _)| {
                let d = dist2_f64(item.center, s.center, s.center).sqrt();
                (d - f64::from(r) - f64::from(p62)).abs() > 1e-3 * d
            })
            .collect();
        expect_kinds::<Spheres, _>(&spheres, &s, &ref_sphere_sphere);
    }
    // The largest container spheres against a point and a box far away.
    let far = [
        (Sphere::new([1e30, 0.0, 0.0], MAX_RADIUS), false),
        (Sphere::new([-3e38, 3e38, 0.0], MAX_RADIUS), false),
        (Sphere::new([4e18, 0.0, 0.0], MAX_RADIUS), true),
    ];
    expect_kinds::<Spheres, _>(&far, &[0.0; 3], &ref_point_sphere);
    expect_kinds::<Spheres, _>(&far, &cube(-1.0, 1.0), &ref_aabb_sphere);
    expect_kinds::<Spheres, _>(&far, &Sphere::new([0.0; 3], 1.0), &ref_sphere_sphere);
}
