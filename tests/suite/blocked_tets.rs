//! Blocked containers of tetrahedra and octahedra (`Blocked<UpTets>`, `Blocked<DownTets>`,
//! `Blocked<Octahedra>`) against the flat ones: every query type each answers, on every
//! available backend, through every query method (`same_answers`), on random data at every
//! length 0..=67 and a few thousand, adversarial values, degenerate layouts, NaN and infinite
//! queries, and after moves, refits and rebuilds.

use crate::common;

use bvlanes::{
    Blockable, Blocked, BvError, Conservative, DownTet, DownTets, Octahedra, Octahedron, UpTet,
    UpTets,
};
use common::*;

/// A container of tetrahedra or octahedra under test: its primitive and the queries it answers.
trait Case: Flat + Blockable<Primitive = Self::Item> + core::fmt::Debug {
    type Item: Shape + Copy + PartialEq + core::fmt::Debug;
    /// Every query type the container answers, around `at` with size `size` (random) or
    /// adversarial; returns the hit count of the first.
    fn every_query(
        flat: &Self,
        blocked: &Blocked<Self>,
        rng: &mut TestRng,
        at: [f32; 3],
        size: f32,
        adversarial: bool,
    ) -> usize;
}

/// A point near `at`, or an adversarial one.
fn point(rng: &mut TestRng, at: [f32; 3], adversarial: bool) -> [f32; 3] {
    if adversarial {
        <[f32; 3]>::adversarial(rng)
    } else {
        rng.near(at, WORLD)
    }
}

/// A query shape near `at` (sometimes around the origin, sometimes everything), or an
/// adversarial one.
fn shape<S: Shape>(rng: &mut TestRng, at: [f32; 3], size: f32, adversarial: bool) -> S {
    if adversarial {
        S::adversarial(rng)
    } else if rng.below(10) == 0 {
        S::everything()
    } else if rng.below(4) == 0 {
        S::around_origin(rng, size)
    } else {
        S::random(rng, at, size)
    }
}

/// A container of tetrahedra: queried by the other kind of tetrahedron and by points.
macro_rules! tets_case {
    ($c:ty, $prim:ty, $query:ty) => {
        impl Case for $c {
            type Item = $prim;
            fn every_query(
                flat: &Self,
                blocked: &Blocked<Self>,
                rng: &mut TestRng,
                at: [f32; 3],
                size: f32,
                adversarial: bool,
            ) -> usize {
                let t: $query = shape(rng, at, size, adversarial);
                let hits = same_answers(flat, blocked, &t);
                same_answers(flat, blocked, &Conservative(t));
                let p = point(rng, at, adversarial);
                same_answers(flat, blocked, &p);
                same_answers(flat, blocked, &Conservative(p));
                hits
            }
        }
    };
}

tets_case!(UpTets, UpTet, DownTet);
tets_case!(DownTets, DownTet, UpTet);

impl Case for Octahedra {
    type Item = Octahedron;
    fn every_query(
        flat: &Self,
        blocked: &Blocked<Self>,
        rng: &mut TestRng,
        at: [f32; 3],
        size: f32,
        adversarial: bool,
    ) -> usize {
        let o: Octahedron = shape(rng, at, size, adversarial);
        let hits = same_answers(flat, blocked, &o);
        same_answers(flat, blocked, &Conservative(o));
        let u: UpTet = shape(rng, at, size, adversarial);
        same_answers(flat, blocked, &u);
        same_answers(flat, blocked, &Conservative(u));
        let d: DownTet = shape(rng, at, size, adversarial);
        same_answers(flat, blocked, &d);
        same_answers(flat, blocked, &Conservative(d));
        let p = point(rng, at, adversarial);
        same_answers(flat, blocked, &p);
        same_answers(flat, blocked, &Conservative(p));
        hits
    }
}

/// A blocked container of `items` against its flat one on `queries` random queries per round
/// (around points spread over `spread`, every fifth adversarial), through moves, a refit, a
/// rebuild and an update ([`check_moves`]).
fn check_layout<C: Case>(
    name: &str,
    items: &[C::Item],
    spread: f32,
    rng: &mut TestRng,
    queries: usize,
) -> Coverage {
    let rounds = |flat: &C, blocked: &Blocked<C>, rng: &mut TestRng, cov: &mut Coverage| {
        for k in 0..queries {
            let at = rng.near([0.0; 3], spread);
            let size = rng.pick(&[0.0, 0.5, 3.0, 10.0, 40.0]);
            let hits = C::every_query(flat, blocked, rng, at, size, k % 5 == 4);
            cov.record(hits, flat.len());
        }
    };
    let moved = |rng: &mut TestRng, kind| {
        let near = rng.near([0.0; 3], spread);
        match kind {
            0 => C::Item::random(rng, near, 1.0),
            1 => C::Item::random(rng, [3.0 * spread, -spread, 0.0], 2.0),
            _ => C::Item::everything(),
        }
    };
    check_moves(name, items, rng, rounds, moved)
}

/// Random primitives around points spread over `spread`, `size` each.
fn random_items<S: Shape>(rng: &mut TestRng, len: usize, spread: f32, size: f32) -> Vec<S> {
    (0..len)
        .map(|_| {
            let at = rng.near([0.0; 3], spread);
            S::random(rng, at, size)
        })
        .collect()
}

fn every_length<C: Case>(seed: u64) {
    let mut coverage = Coverage::default();
    let mut rng = TestRng::named(seed, "blocked tets random");
    for len in LENGTHS {
        let size = rng.pick(&[0.0, 1.0, 4.0]);
        let items = random_items(&mut rng, len, 20.0, size);
        let c = check_layout::<C>("random", &items, 20.0, &mut rng, 2);
        coverage.none += c.none;
        coverage.some += c.some;
        coverage.all += c.all;
    }
    assert!(
        coverage.none > 0 && coverage.some > 0 && coverage.all > 0,
        "{coverage:?}"
    );
}

fn thousands<C: Case>(seed: u64) {
    let mut rng = TestRng::named(seed, "blocked tets thousands");
    for len in [257, 4097, 20_000] {
        let items = random_items(&mut rng, len, 200.0, 2.0);
        let blocked = Blocked::<C>::from_slice(&items).unwrap();
        assert_eq!(blocked.levels(), if len > 4096 { 3 } else { 2 }, "{len}");
        // Fewer rounds at 20,000 (there for a third level of several nodes; a debug build's
        // cost is per box): every length of the random tests checks the queries themselves.
        let queries = if len > 10_000 { 2 } else { 5 };
        let c = check_layout::<C>("thousands", &items, 200.0, &mut rng, queries);
        assert!(c.some > 0, "{c:?}");
    }
}

fn adversarial<C: Case>(seed: u64) {
    let mut rng = TestRng::named(seed, "blocked tets adversarial");
    for len in [1, 17, 67, 300, 1000] {
        let items: Vec<C::Item> = (0..len).map(|_| C::Item::adversarial(&mut rng)).collect();
        let flat = C::flat_from(&items);
        let blocked = Blocked::new(&flat);
        for _ in 0..20 {
            let at = <[f32; 3]>::adversarial(&mut rng);
            C::every_query(&flat, &blocked, &mut rng, at, 1.0, true);
            C::every_query(&flat, &blocked, &mut rng, [0.0; 3], 1e30, false);
        }
    }
}

fn degenerate<C: Case>(seed: u64) {
    let mut rng = TestRng::named(seed, "blocked tets layouts");
    let one = C::Item::random(&mut rng, [1.0; 3], 1.0);
    let layouts: Vec<(&str, Vec<C::Item>)> = vec![
        ("one primitive repeated", vec![one; 700]),
        ("one point", vec![C::Item::origin(); 600]),
        ("one huge among small", {
            let mut v = random_items(&mut rng, 3000, 50.0, 1.0);
            v[1234] = C::Item::everything();
            v
        }),
        (
            "huge and tiny magnitudes",
            (0..1500)
                .map(|i| {
                    let s = [1e-30, 1.0, 1e30][i % 3];
                    let at = rng.near([0.0; 3], 1.0).map(|v| v * s);
                    C::Item::random(&mut rng, at, s)
                })
                .collect(),
        ),
    ];
    for (name, items) in &layouts {
        check_layout::<C>(name, items, 50.0, &mut rng, 4);
    }
}

fn nan_queries<C: Case>()
where
    [f32; 3]: bvlanes::BlockQuery<C>,
{
    let mut rng = TestRng::named(11, "blocked tets nan");
    let items: Vec<C::Item> = random_items(&mut rng, 2000, 30.0, 2.0);
    let flat = C::flat_from(&items);
    let blocked = Blocked::new(&flat);
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    for p in [
        [nan, 0.0, 0.0],
        [inf, 0.0, 0.0],
        [0.0, -inf, 0.0],
        [-0.0; 3],
    ] {
        same_answers(&flat, &blocked, &p);
    }
}

#[test]
fn up_tets_every_length_every_backend() {
    every_length::<UpTets>(1);
}

#[test]
fn down_tets_every_length_every_backend() {
    every_length::<DownTets>(2);
}

#[test]
fn octahedra_every_length_every_backend() {
    every_length::<Octahedra>(3);
}

#[test]
fn thousands_with_levels() {
    thousands::<UpTets>(4);
    thousands::<DownTets>(5);
    thousands::<Octahedra>(6);
}

#[test]
fn adversarial_values_and_queries() {
    adversarial::<UpTets>(7);
    adversarial::<DownTets>(8);
    adversarial::<Octahedra>(9);
}

#[test]
fn degenerate_layouts() {
    degenerate::<UpTets>(10);
    degenerate::<DownTets>(11);
    degenerate::<Octahedra>(12);
}

#[test]
fn nan_and_infinite_queries() {
    nan_queries::<UpTets>();
    nan_queries::<DownTets>();
    nan_queries::<Octahedra>();
    // Query shapes with NaN or infinite bounds.
    let mut rng = TestRng::named(13, "blocked tets nan shapes");
    let octa: Vec<Octahedron> = random_items(&mut rng, 1500, 30.0, 2.0);
    let flat = Octahedra::from_slice(&octa).unwrap();
    let blocked = Blocked::new(&flat);
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    for m in [
        [nan, 0.0, 0.0, 0.0],
        [-inf, 0.0, 0.0, 0.0],
        [-inf; 4],
        [inf, -inf, -inf, -inf],
        [1.0; 4],
    ] {
        let (u, d) = (UpTet::new(m), DownTet::new(m.map(|v| -v)));
        same_answers(&flat, &blocked, &u);
        same_answers(&flat, &blocked, &d);
        same_answers(&flat, &blocked, &Octahedron::new(u, d));
        same_answers(&flat, &blocked, &Conservative(Octahedron::new(u, d)));
    }
}

#[test]
fn errors_name_the_index_and_change_nothing() {
    let items = [UpTet::new([-1.0; 4]), UpTet::new([1.0; 4])];
    assert_eq!(
        Blocked::<UpTets>::from_slice(&items).unwrap_err(),
        BvError::Inverted { index: 1 }
    );
    let mut b = Blocked::<UpTets>::from_slice(&items[..1]).unwrap();
    assert_eq!(
        b.set(0, UpTet::new([f32::NAN; 4])),
        Err(BvError::NonFinite { index: 0 })
    );
    assert_eq!(
        b.set(1, items[0]),
        Err(BvError::IndexOutOfBounds { index: 1, len: 1 })
    );
    assert_eq!(b.get(0), Some(items[0]));
}
