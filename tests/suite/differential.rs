//! Differential tests: every supported (container, query) pair, `Conservative` forms included, on
//! every available backend and through every query method, at every container length 0..=67,
//! against the scalar reference of `common`, on random data from fixed seeds at varied densities.

use crate::common;

use bvlanes::{
    Aabb, Aabbs, Conservative, DownTet, DownTets, Frustum, Octahedra, Octahedron, Query,
};
use bvlanes::{Obb, Obbs, Sphere, Spheres, UpTet, UpTets};
use common::*;

const SEEDS: [u64; 3] = [1, 0x5EED, 20_240_229];
/// Sizes of the container's primitives (the world is `[-8, 8]^3`).
const ITEM_SIZES: [f32; 4] = [0.0, 1.0, 4.0, 12.0];
/// Sizes of the queries: from degenerate to bigger than the world.
const QUERY_SIZES: [f32; 5] = [0.0, 0.5, 3.0, 10.0, 40.0];

/// Random primitives and random queries of every size around the world's centre.
fn random_data<C: Bv, Q: Shape + Query<C>>(name: &str, reference: &dyn Fn(&Q, &C::Item) -> bool) {
    let mut coverage = Coverage::default();
    for seed in SEEDS {
        let mut rng = TestRng::named(seed, name);
        for len in LENGTHS {
            let item_size = rng.pick(&ITEM_SIZES);
            let items: Vec<C::Item> = (0..len)
                .map(|_| C::Item::random(&mut rng, [0.0; 3], item_size))
                .collect();
            let c = C::build(&items);
            for size in QUERY_SIZES {
                let q = Q::random(&mut rng, [0.0; 3], size);
                let hits = check_pair(&c, &items, &q, reference);
                coverage.record(hits.len(), len);
            }
        }
    }
    // (Every primitive hit happens too, but not for every pair here: `long_containers` checks it.)
    assert!(
        coverage.none > 0 && coverage.some > 0,
        "{name}: the random queries did not cover no/some hits: {coverage:?}"
    );
}

/// Queries that contain the origin against primitives kept away from it. Padding lanes hold `0.0`
/// (the origin as a primitive), so a wrong tail mask would report them.
fn origin_covering<C: Bv, Q: Shape + Query<C>>(
    name: &str,
    reference: &dyn Fn(&Q, &C::Item) -> bool,
) {
    let mut coverage = Coverage::default();
    for seed in SEEDS {
        let mut rng = TestRng::named(seed, name);
        for len in LENGTHS {
            let item_size = rng.pick(&ITEM_SIZES);
            let items: Vec<C::Item> = (0..len)
                .map(|_| C::Item::random(&mut rng, [16.0, -16.0, 16.0], item_size))
                .collect();
            let c = C::build(&items);
            for _ in 0..3 {
                let size = rng.range(0.0, 30.0);
                let q = Q::around_origin(&mut rng, size);
                assert!(
                    reference(&q, &C::Item::origin()),
                    "{name}: {q:?} should hit a padding lane's primitive"
                );
                let hits = check_pair(&c, &items, &q, reference);
                coverage.record(hits.len(), len);
            }
        }
    }
    assert!(coverage.none > 0, "{name}: {coverage:?}");
}

/// A few lengths past 67: several chunks, and the 1,024-primitive output windows (their
/// boundaries), with every primitive containing the origin so that hit densities reach 100 %.
fn long_containers<C: Bv, Q: Shape + Query<C>>(
    name: &str,
    reference: &dyn Fn(&Q, &C::Item) -> bool,
) {
    let mut rng = TestRng::named(7, name);
    let mut coverage = Coverage::default();
    for len in [127, 128, 129, 1023, 1024, 1025, 1040, 2049] {
        let crowded: Vec<C::Item> = (0..len)
            .map(|_| C::Item::around_origin(&mut rng, 2.0))
            .collect();
        let spread: Vec<C::Item> = (0..len)
            .map(|_| C::Item::random(&mut rng, [0.0; 3], 3.0))
            .collect();
        for items in [crowded, spread] {
            let c = C::build(&items);
            let queries = [
                Q::around_origin(&mut rng, 1.0),
                Q::random(&mut rng, [0.0; 3], 3.0),
                Q::random(&mut rng, [0.0; 3], 30.0),
            ];
            for q in &queries {
                let hits = check_pair(&c, &items, q, reference);
                coverage.record(hits.len(), len);
            }
        }
    }
    assert!(
        coverage.all > 0 && coverage.some > 0,
        "{name}: {coverage:?}"
    );
}

macro_rules! differential_tests {
    ($name:ident, $c:ty, $q:ty, $reference:expr) => {
        mod $name {
            use super::*;

            #[test]
            fn random_data_every_length_every_backend() {
                random_data::<$c, $q>(stringify!($name), &$reference);
            }

            #[test]
            fn queries_covering_the_origin_never_report_padding() {
                origin_covering::<$c, $q>(stringify!($name), &$reference);
            }

            #[test]
            fn long_containers_and_full_density() {
                long_containers::<$c, $q>(stringify!($name), &$reference);
            }
        }
    };
}

for_each_pair!(differential_tests);

// ---- the same contents built in different ways give the same container and the same answers ----

/// Builds the same contents through every mutating method and checks that the results are equal
/// (`==`, `iter`, `get`) and answer a point query alike on every backend.
fn construction_paths<C: Bv>(reference: &dyn Fn(&[f32; 3], &C::Item) -> bool)
where
    [f32; 3]: Query<C>,
{
    let mut rng = TestRng::named(3, C::NAME);
    for len in LENGTHS {
        let items: Vec<C::Item> = (0..len)
            .map(|_| C::Item::random(&mut rng, [0.0; 3], 6.0))
            .collect();
        let reference_container = C::build(&items);
        let mut built: Vec<(&str, C)> = Vec::new();

        let mut pushed = C::empty();
        for (i, it) in items.iter().enumerate() {
            assert_eq!(
                pushed.push_item(*it),
                Ok(i as u32),
                "push returns the index"
            );
        }
        built.push(("push", pushed));

        let mut pieces = C::empty();
        let mut rest = &items[..];
        while !rest.is_empty() {
            let (head, tail) = rest.split_at(rng.below(rest.len() + 1));
            pieces.extend_items(head).expect("valid items");
            rest = tail;
        }
        pieces.extend_items(&[]).expect("an empty slice is fine");
        built.push(("extend_from_slice in pieces", pieces));

        let mut reserved = C::with_cap(len);
        assert!(reserved.cap() >= len && reserved.is_empty_());
        reserved.extend_items(&items).expect("valid items");
        reserved.reserve_more(3);
        assert!(
            reserved.cap() >= len + 3,
            "reserve is relative to the length"
        );
        built.push(("with_capacity + extend + reserve", reserved));

        built.push(("TryFrom", C::try_from_items(&items).expect("valid items")));

        // Overwrite every slot of a container of other primitives.
        let others: Vec<C::Item> = (0..len)
            .map(|_| C::Item::random(&mut rng, [0.0; 3], 6.0))
            .collect();
        let mut overwritten = C::build(&others);
        for (i, it) in items.iter().enumerate() {
            overwritten.set_item(i, *it).expect("in bounds, valid");
        }
        built.push(("set", overwritten));

        // Clear a longer container and refill it.
        let mut refilled = C::build(&others);
        refilled.extend_items(&others).expect("valid");
        refilled.clear_items();
        assert!(refilled.is_empty_() && refilled.items().is_empty());
        refilled.extend_items(&items).expect("valid");
        built.push(("clear + extend", refilled));

        // Start longer and swap_remove down to `len`, mirrored on a Vec: the padding lanes vacated
        // by the removals must not come back as hits.
        let extra = rng.below(40) + 1;
        let mut mirror: Vec<C::Item> = items
            .iter()
            .copied()
            .chain((0..extra).map(|_| C::Item::around_origin(&mut rng, 1.0)))
            .collect();
        let mut removed = C::build(&mirror);
        while mirror.len() > len {
            let i = rng.below(mirror.len());
            assert_eq!(removed.swap_remove_item(i), mirror.swap_remove(i));
        }
        let removed_reference = C::build(&mirror);
        assert_eq!(removed, removed_reference, "{}: after swap_remove", C::NAME);

        for (how, c) in &built {
            assert_eq!(c, &reference_container, "{}: built by {how}", C::NAME);
            assert_eq!(c.items(), items, "{}: built by {how}", C::NAME);
            let reversed: Vec<C::Item> = items.iter().rev().copied().collect();
            assert_eq!(c.items_rev(), reversed, "{}: built by {how}", C::NAME);
            for (i, it) in items.iter().enumerate() {
                assert_eq!(c.get_item(i), Some(*it));
            }
            assert_eq!(c.get_item(len), None);
            assert_eq!(c.get_item(usize::MAX), None);
            assert_eq!(c.is_empty_(), len == 0);
        }
        for q in [[0.0f32; 3], rng.near([0.0; 3], 4.0)] {
            for (_, c) in &built {
                check_pair(c, &items, &q, reference);
            }
            check_pair(&removed, &mirror, &q, reference);
        }
    }
}

#[test]
fn construction_paths_aabbs() {
    construction_paths::<Aabbs>(&ref_point_aabb);
}

#[test]
fn construction_paths_spheres() {
    construction_paths::<Spheres>(&ref_point_sphere);
}

#[test]
fn construction_paths_up_tets() {
    construction_paths::<UpTets>(&ref_point_up);
}

#[test]
fn construction_paths_down_tets() {
    construction_paths::<DownTets>(&ref_point_down);
}

#[test]
fn construction_paths_octahedra() {
    construction_paths::<Octahedra>(&ref_point_octahedron);
}

/// Octahedra containers from 32,768 primitives (1 MiB of columns) prefetch the down half ahead:
/// lengths around that threshold, and a tail that the prefetch distance (16 chunks) overruns.
#[test]
fn octahedra_past_the_prefetch_threshold() {
    let mut rng = TestRng::new(32_768);
    let longest = 32_768 + 16 * 16 + 5;
    let all: Vec<Octahedron> = (0..longest)
        .map(|_| Octahedron::random(&mut rng, [0.0; 3], 3.0))
        .collect();
    let mut coverage = Coverage::default();
    for len in [32_767, 32_768, longest] {
        let items = &all[..len];
        let c = Octahedra::build(items);
        for size in [1.0, 6.0] {
            let q = Octahedron::random(&mut rng, [0.0; 3], size);
            let hits = check_pair(&c, items, &q, &ref_octahedron_octahedron);
            coverage.record(hits.len(), len);
            check_pair(
                &c,
                items,
                &Conservative(q),
                &ref_conservative_octahedron_octahedron,
            );
        }
        check_pair(&c, items, &[0.5f32, -0.5, 1.0], &ref_point_octahedron);
    }
    assert!(coverage.some > 0, "{coverage:?}");
}
