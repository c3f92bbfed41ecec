//! Property tests (issue 7): the containment and overlap laws, over every container kind where
//! they apply, on every backend of `Backend::available()` (each pinned) and on the default one.
//!
//! The laws hold for all inputs; these tests check them on many generated inputs: the harness's
//! own generators (`common::Shape`: random, adversarial and wild values from fixed
//! `rand_xoshiro` seeds), so a failure reproduces exactly. Each law is a generic function; the
//! macros at the bottom instantiate it per container and query type.
//!
//! 1. `hits` = `hit_mask` = `count_hits` (and `any_hit`, `extend_hits`, the `Hits` iterator's
//!    size and reverse order): every answer checked here goes through `answer`, which asserts it.
//! 2. Overlap is symmetric: `a` hits `b` iff `b` hits `a`, within one container kind and across
//!    the two containers of one pair of shapes (spheres/boxes, up/down tetrahedra).
//! 3. `Conservative(q)` never misses: its hits contain the exact query's.
//! 4. A primitive always hits itself (and the queries made from it that contain it).
//! 5. `from_slice` then `get` round-trips bit for bit (and so do `iter`, `push`,
//!    `extend_from_slice`, `try_from`, `clone`).
//! 6. `swap_remove(k)` keeps every other index's answer: the last primitive's hits move to `k`,
//!    nothing else changes, on every backend, all the way down to an empty container.

use crate::common;

use bvlanes::{
    Aabb, Aabbs, Backend, BoxStrategy, Conservative, DownTet, DownTets, Frustum, Obb, Obbs,
    Octahedra, Octahedron, Query, Sphere, Spheres, Staged, UpTet, UpTets,
};
use common::*;
use core::fmt::Debug;

/// Rounds of every law (each with a fresh container); Miri runs a few small ones.
const ROUNDS: u64 = if cfg!(miri) { 1 } else { 8 };
/// Container lengths: partial and whole chunks, and past a mask word.
const LENS: &[usize] = if cfg!(miri) {
    &[0, 5, 17]
} else {
    &[0, 1, 3, 7, 8, 15, 16, 17, 31, 33, 64, 65]
};
/// Fewer lengths, for the laws that run a query per primitive or per removal.
const SOME_LENS: &[usize] = if cfg!(miri) {
    &[5, 17]
} else {
    &[1, 8, 17, 33, 65]
};

// =================================================================================================
// Data
// =================================================================================================

/// `len` valid primitives: random ones of mixed sizes near the origin (so they touch often) and
/// adversarial ones (special values, signed zeros, huge and tiny magnitudes).
fn items<T: Shape>(rng: &mut TestRng, len: usize) -> Vec<T> {
    let adversarial = rng.pick(&[0.0, 0.2, 1.0]);
    (0..len)
        .map(|_| {
            loop {
                let t = if rng.chance(adversarial) {
                    T::adversarial(rng)
                } else {
                    let size = rng.pick(&[0.0, 0.5, 2.0, 6.0]);
                    T::random(rng, [0.0; 3], size)
                };
                if t.valid() {
                    break t;
                }
            }
        })
        .collect()
}

/// Queries of every kind: random of every size, adversarial, around the origin and wild (NaN,
/// infinities, empty).
fn queries<Q: Shape>(rng: &mut TestRng, n: usize) -> Vec<Q> {
    (0..n)
        .map(|i| match i % 4 {
            0 => {
                let size = rng.pick(&[0.0, 1.0, 4.0, 20.0]);
                Q::random(rng, [0.0; 3], size)
            }
            1 => Q::adversarial(rng),
            2 => {
                let size = rng.range(0.0, 10.0);
                Q::around_origin(rng, size)
            }
            _ => Q::wild(rng),
        })
        .collect()
}

// =================================================================================================
// Law 1: every query method agrees (checked on every answer)
// =================================================================================================

/// The hits of `q` on `c` through `backend` (`None`: the default), after checking that every
/// query method says the same: `hits` (forwards, backwards, its size hint), `extend_hits` after a
/// prefix, `count_hits`, `any_hit` and `hit_mask` (with the words past the container's left
/// alone).
fn answer<C: Bv, Q: Query<C> + Debug>(c: &C, backend: Option<Backend>, q: &Q) -> Vec<u32> {
    let len = c.length();
    let o = c.outputs(backend, q);
    let on = || format!("{} (len {len}) vs {q:?} on {backend:?}", C::NAME);
    let hits = o.hits;
    assert!(
        hits.windows(2).all(|w| w[0] < w[1]) && hits.iter().all(|&i| (i as usize) < len),
        "{}: hits not ascending below len: {hits:?}",
        on()
    );
    assert_eq!(
        o.hits_size_hint,
        (hits.len(), Some(hits.len())),
        "{}: size hint",
        on()
    );
    let mut rev = o.hits_rev;
    rev.reverse();
    assert_eq!(rev, hits, "{}: hits().rev()", on());
    assert_eq!(o.extended_prefixed[..PREFIX.len()], PREFIX, "{}", on());
    assert_eq!(
        o.extended_prefixed[PREFIX.len()..],
        hits[..],
        "{}: extend_hits",
        on()
    );
    assert_eq!(o.count, hits.len(), "{}: count_hits", on());
    assert_eq!(o.any, !hits.is_empty(), "{}: any_hit", on());
    let words = len.div_ceil(64);
    let from_mask: Vec<u32> = (0..len)
        .filter(|&i| o.mask[i / 64] >> (i % 64) & 1 == 1)
        .map(|i| i as u32)
        .collect();
    assert_eq!(from_mask, hits, "{}: hit_mask", on());
    if !len.is_multiple_of(64) {
        assert_eq!(
            o.mask[words - 1] >> (len % 64),
            0,
            "{}: mask bits past len",
            on()
        );
    }
    assert!(
        o.mask[words..].iter().all(|&w| w == MASK_SENTINEL),
        "{}: hit_mask wrote past its words",
        on()
    );
    hits
}

/// The same answer on every receiver (each available backend pinned, then the default).
fn answer_everywhere<C: Bv, Q: Query<C> + Debug>(c: &C, q: &Q) -> Vec<u32> {
    let mut first: Option<Vec<u32>> = None;
    for backend in receivers() {
        let hits = answer(c, backend, q);
        match &first {
            None => first = Some(hits),
            Some(f) => assert_eq!(
                &hits,
                f,
                "{} vs {q:?}: {backend:?} differs from scalar",
                C::NAME
            ),
        }
    }
    first.expect("at least one receiver")
}

fn methods_agree<C: Bv, Q: Shape + Query<C>>(name: &str)
where
    Conservative<Q>: Query<C>,
{
    for seed in 0..ROUNDS {
        let mut rng = TestRng::named(seed, name);
        for &len in LENS {
            let c = C::build(&items::<C::Item>(&mut rng, len));
            for q in queries::<Q>(&mut rng, 8) {
                answer_everywhere(&c, &q);
                answer_everywhere(&c, &Conservative(q));
            }
        }
    }
}

// =================================================================================================
// Law 2: symmetry
// =================================================================================================

/// `hit[i][j]`: query `i` hits primitive `j`.
fn hit_matrix<C: Bv, Q: Query<C> + Debug>(
    c: &C,
    queries: &[Q],
    backend: Option<Backend>,
) -> Vec<Vec<bool>> {
    queries
        .iter()
        .map(|q| {
            let mut row = vec![false; c.length()];
            for i in answer(c, backend, q) {
                row[i as usize] = true;
            }
            row
        })
        .collect()
}

/// Within one container kind: primitive `i` as a query hits primitive `j` iff `j` hits `i`.
fn symmetric_within<C: Bv, Q: Query<C> + Debug>(name: &str, to_query: fn(&C::Item) -> Q) {
    let mut met = 0;
    for seed in 0..ROUNDS {
        let mut rng = TestRng::named(seed, name);
        for &len in LENS {
            let items = items::<C::Item>(&mut rng, len);
            let c = C::build(&items);
            let qs: Vec<Q> = items.iter().map(to_query).collect();
            for backend in receivers() {
                let m = hit_matrix(&c, &qs, backend);
                for i in 0..len {
                    for j in 0..i {
                        assert_eq!(
                            m[i][j], m[j][i],
                            "{name} on {backend:?}: {:?} and {:?} disagree",
                            items[i], items[j]
                        );
                        met += usize::from(m[i][j]);
                    }
                }
            }
        }
    }
    assert!(met > 0, "{name}: no two distinct primitives ever met");
}

/// Across two container kinds: `a[i]` queried against the `B` container hits `b[j]` iff `b[j]`
/// queried against the `A` container hits `a[i]`.
fn symmetric_across<A, B>(name: &str)
where
    A: Bv,
    B: Bv,
    A::Item: Query<B> + Debug,
    B::Item: Query<A> + Debug,
{
    let (mut met, mut missed) = (0, 0);
    for seed in 0..ROUNDS {
        let mut rng = TestRng::named(seed, name);
        for &len in LENS {
            let a_items = items::<A::Item>(&mut rng, len);
            let b_items = items::<B::Item>(&mut rng, len / 2 + 3);
            let (a, b) = (A::build(&a_items), B::build(&b_items));
            for backend in receivers() {
                let a_vs_b = hit_matrix(&b, &a_items, backend);
                let b_vs_a = hit_matrix(&a, &b_items, backend);
                for (i, ai) in a_items.iter().enumerate() {
                    for (j, bj) in b_items.iter().enumerate() {
                        assert_eq!(
                            a_vs_b[i][j], b_vs_a[j][i],
                            "{name} on {backend:?}: {ai:?} and {bj:?} disagree"
                        );
                        if a_vs_b[i][j] {
                            met += 1;
                        } else {
                            missed += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(met > 0 && missed > 0, "{name}: met {met}, missed {missed}");
}

#[test]
fn overlap_is_symmetric_boxes() {
    symmetric_within::<Aabbs, Aabb>("boxes", |b| *b);
    symmetric_within::<Aabbs, Staged>("boxes 7-sided", |b| Staged(*b, BoxStrategy::SevenSided));
}

#[test]
fn overlap_is_symmetric_spheres() {
    symmetric_within::<Spheres, Sphere>("spheres", |s| *s);
}

#[test]
fn overlap_is_symmetric_octahedra() {
    symmetric_within::<Octahedra, Octahedron>("octahedra", |o| *o);
    symmetric_within::<Octahedra, Conservative<Octahedron>>("octahedra 8-dop", |o| {
        Conservative(*o)
    });
}

#[test]
fn overlap_is_symmetric_spheres_and_boxes() {
    symmetric_across::<Spheres, Aabbs>("spheres x boxes");
}

#[test]
fn overlap_is_symmetric_up_and_down_tetrahedra() {
    symmetric_across::<UpTets, DownTets>("up x down tetrahedra");
}

// =================================================================================================
// Law 3: Conservative never misses
// =================================================================================================

fn conservative_never_misses<C: Bv, Q: Shape + Query<C>>(name: &str)
where
    Conservative<Q>: Query<C>,
{
    for seed in 0..ROUNDS {
        let mut rng = TestRng::named(seed, name);
        for &len in LENS {
            let items = items::<C::Item>(&mut rng, len);
            let c = C::build(&items);
            for q in queries::<Q>(&mut rng, 8) {
                let exact = answer_everywhere(&c, &q);
                let cheap = answer_everywhere(&c, &Conservative(q));
                let missed: Vec<_> = exact.iter().filter(|i| !cheap.contains(i)).collect();
                assert!(
                    missed.is_empty(),
                    "{name}: Conservative({q:?}) misses {missed:?} of {items:?}"
                );
            }
        }
    }
}

// =================================================================================================
// Law 4: a primitive hits itself
// =================================================================================================

/// Each primitive, as each of `to_queries`' queries, hits itself wherever it sits in a container
/// of other primitives, on every backend.
fn hits_itself<C: Bv, Q: Query<C> + Debug>(name: &str, to_queries: fn(&C::Item) -> Vec<Q>) {
    for seed in 0..ROUNDS.div_ceil(2) {
        let mut rng = TestRng::named(seed, name);
        for &len in SOME_LENS {
            let items = items::<C::Item>(&mut rng, len);
            let c = C::build(&items);
            for (i, item) in items.iter().enumerate() {
                for q in to_queries(item) {
                    let hits = answer_everywhere(&c, &q);
                    assert!(
                        hits.binary_search(&(i as u32)).is_ok(),
                        "{name}: {item:?} (index {i} of {len}) does not hit itself as {q:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_box_hits_itself() {
    hits_itself::<Aabbs, Aabb>("box", |b| vec![*b]);
    hits_itself::<Aabbs, Staged>("box staged", |b| {
        BoxStrategy::ALL.iter().map(|&s| Staged(*b, s)).collect()
    });
    hits_itself::<Aabbs, Conservative<Aabb>>("box conservative", |b| vec![Conservative(*b)]);
    hits_itself::<Aabbs, [f32; 3]>("box corners", |b| vec![b.min, b.max]);
    hits_itself::<Aabbs, Sphere>("box corner spheres", |b| {
        vec![Sphere::new(b.min, 0.0), Sphere::new(b.max, 0.0)]
    });
    hits_itself::<Aabbs, Obb>("box as obb", |b| {
        // Obb queries need finite half extents: only boxes whose extent fits.
        let o = Obb::from_aabb(b);
        if o.is_valid() { vec![o] } else { vec![] }
    });
}

#[test]
fn a_sphere_hits_itself() {
    hits_itself::<Spheres, Sphere>("sphere", |s| vec![*s, Sphere::new(s.center, 0.0)]);
    hits_itself::<Spheres, [f32; 3]>("sphere centre", |s| vec![s.center]);
    hits_itself::<Spheres, Aabb>("sphere's box", |s| vec![Aabb::from_sphere(s)]);
}

#[test]
fn an_octahedron_hits_itself() {
    hits_itself::<Octahedra, Octahedron>("octahedron", |o| vec![*o]);
    hits_itself::<Octahedra, Conservative<Octahedron>>("octahedron 8-dop", |o| {
        vec![Conservative(*o)]
    });
    // Its own halves: the down half meets the up half (the octahedron is not empty).
    hits_itself::<Octahedra, DownTet>("octahedron's down half", |o| vec![o.down]);
    hits_itself::<Octahedra, UpTet>("octahedron's up half", |o| vec![o.up]);
}

#[test]
fn a_tetrahedron_hits_its_circumscribed_tetrahedron() {
    hits_itself::<UpTets, DownTet>("up tet", |u| vec![u.circumscribed()]);
    hits_itself::<DownTets, UpTet>("down tet", |d| vec![d.circumscribed()]);
}

#[test]
fn an_oriented_box_hits_itself() {
    hits_itself::<Obbs, Obb>("obb", |o| vec![*o]);
    hits_itself::<Obbs, [f32; 3]>("obb centre", |o| vec![o.center]);
    hits_itself::<Obbs, Sphere>("obb centre sphere", |o| {
        vec![
            Sphere::new(o.center, 0.0),
            Sphere::new(o.center, o.half_extents[0]),
        ]
    });
}

// =================================================================================================
// Law 5: from_slice then get round-trips
// =================================================================================================

fn bits<T: Shape>(t: &T) -> Vec<u32> {
    t.floats().iter().map(|f| f.to_bits()).collect()
}

fn round_trips<C: Bv>(name: &str) {
    for seed in 0..ROUNDS {
        let mut rng = TestRng::named(seed, name);
        for &len in LENS {
            let items = items::<C::Item>(&mut rng, len);
            let c = C::from_items(&items).expect("valid items");
            assert_eq!(c.length(), len);
            for (i, item) in items.iter().enumerate() {
                let got = c.get_item(i).expect("index below len");
                assert_eq!(bits(&got), bits(item), "{name}: get({i}) of {len}");
            }
            assert_eq!(c.get_item(len), None, "{name}: get(len)");
            let via_iter: Vec<Vec<u32>> = c.items().iter().map(bits).collect();
            assert_eq!(
                via_iter,
                items.iter().map(bits).collect::<Vec<_>>(),
                "{name}: iter"
            );
            // Every other way in builds an equal container.
            let mut pushed = C::empty();
            for (i, item) in items.iter().enumerate() {
                assert_eq!(pushed.push_item(*item), Ok(i as u32));
            }
            let mut extended = C::with_cap(len / 2);
            extended.extend_items(&items[..len / 2]).expect("valid");
            extended.extend_items(&items[len / 2..]).expect("valid");
            for other in [
                pushed,
                extended,
                C::try_from_items(&items).expect("valid"),
                c.clone(),
            ] {
                assert_eq!(other, c, "{name}: built another way");
                assert_eq!(other.items().iter().map(bits).collect::<Vec<_>>(), via_iter);
            }
        }
    }
}

#[test]
fn from_slice_then_get_round_trips() {
    round_trips::<Aabbs>("boxes");
    round_trips::<Spheres>("spheres");
    round_trips::<UpTets>("up tets");
    round_trips::<DownTets>("down tets");
    round_trips::<Octahedra>("octahedra");
    round_trips::<Obbs>("obbs");
}

// =================================================================================================
// Law 6: swap_remove keeps every other index's answer
// =================================================================================================

fn swap_remove_keeps_answers<C: Bv, Q: Shape + Query<C>>(name: &str) {
    for seed in 0..ROUNDS.div_ceil(2) {
        let mut rng = TestRng::named(seed, name);
        for &len in SOME_LENS {
            let mut model = items::<C::Item>(&mut rng, len);
            let mut c = C::build(&model);
            let qs = queries::<Q>(&mut rng, 2);
            let mut before: Vec<Vec<u32>> = qs.iter().map(|q| answer_everywhere(&c, q)).collect();
            // Long containers lose their last chunk too, short ones are emptied.
            let stop = if len > 20 { len - 18 } else { 0 };
            while model.len() > stop {
                let n = model.len();
                let k = rng.below(n);
                let removed = c.swap_remove_item(k);
                assert_eq!(
                    bits(&removed),
                    bits(&model.swap_remove(k)),
                    "{name}: removed"
                );
                assert_eq!(c.length(), n - 1);
                for (q, old) in qs.iter().zip(&mut before) {
                    // Index k is gone, the last index (if it was not k) is now k.
                    let mut want: Vec<u32> = old
                        .iter()
                        .filter(|&&i| i as usize != k)
                        .map(|&i| if i as usize == n - 1 { k as u32 } else { i })
                        .collect();
                    want.sort_unstable();
                    let got = answer_everywhere(&c, q);
                    assert_eq!(got, want, "{name}: after swap_remove({k}) of {n}, {q:?}");
                    *old = got;
                }
            }
            // What is left is as good as a container built from it.
            assert_eq!(c, C::build(&model), "{name}: after removals");
        }
    }
}

// =================================================================================================
// Instantiations
// =================================================================================================

/// `$m!(test_name, Container, Query)` for every supported (container, query) pair with a
/// `Shape` query (Conservative forms are covered inside each law).
macro_rules! for_each_query {
    ($m:ident) => {
        $m!(aabbs_point, Aabbs, [f32; 3]);
        $m!(aabbs_aabb, Aabbs, Aabb);
        $m!(aabbs_sphere, Aabbs, Sphere);
        $m!(aabbs_obb, Aabbs, Obb);
        $m!(aabbs_frustum, Aabbs, Frustum);
        $m!(spheres_point, Spheres, [f32; 3]);
        $m!(spheres_sphere, Spheres, Sphere);
        $m!(spheres_aabb, Spheres, Aabb);
        $m!(spheres_frustum, Spheres, Frustum);
        $m!(up_tets_point, UpTets, [f32; 3]);
        $m!(up_tets_down_tet, UpTets, DownTet);
        $m!(down_tets_point, DownTets, [f32; 3]);
        $m!(down_tets_up_tet, DownTets, UpTet);
        $m!(octahedra_point, Octahedra, [f32; 3]);
        $m!(octahedra_down_tet, Octahedra, DownTet);
        $m!(octahedra_up_tet, Octahedra, UpTet);
        $m!(octahedra_octahedron, Octahedra, Octahedron);
        $m!(obbs_point, Obbs, [f32; 3]);
        $m!(obbs_sphere, Obbs, Sphere);
        $m!(obbs_obb, Obbs, Obb);
    };
}

macro_rules! law_tests {
    ($name:ident, $c:ty, $q:ty) => {
        mod $name {
            use super::*;

            #[test]
            fn hits_equals_hit_mask_equals_count_hits() {
                methods_agree::<$c, $q>(stringify!($name));
            }

            #[test]
            fn conservative_never_misses() {
                super::conservative_never_misses::<$c, $q>(stringify!($name));
            }

            #[test]
            fn swap_remove_keeps_every_other_answer() {
                swap_remove_keeps_answers::<$c, $q>(stringify!($name));
            }
        }
    };
}

for_each_query!(law_tests);

/// `Staged` box queries are not a `Shape`: their law 1 and 6 run on the box's strategies here.
#[test]
fn staged_box_queries_agree_with_the_default_strategy() {
    for seed in 0..ROUNDS {
        let mut rng = TestRng::named(seed, "staged");
        for &len in LENS {
            let c = Aabbs::build(&items::<Aabb>(&mut rng, len));
            for q in queries::<Aabb>(&mut rng, 8) {
                let want = answer_everywhere(&c, &q);
                for s in BoxStrategy::ALL {
                    assert_eq!(answer_everywhere(&c, &Staged(q, s)), want, "{q:?} {s:?}");
                }
            }
        }
    }
}
