//! Batched queries (`count_hits_many`, `hits_many`, `hits_many_into`, `for_each_hit_many`, and
//! [`HitLists`]): for every supported pair (`Conservative` and `Staged` forms included), on every
//! available backend (pinned, and the container's own methods), every container length 0..=67 and
//! batch sizes around the backend's lane count, a batch gives exactly the one-query answers
//! (`count_hits`, `extend_hits`) of each of its queries, bit for bit. Also: NaN, infinite, inverted
//! and empty queries at every position of a batch (they disturb no neighbour), containers longer
//! than one internal tile (16,384 primitives), the `HitLists` contract (CSR shape, panics, reuse),
//! results equal across backends, and batches split over 1, 2 and 3 threads.

use crate::common;

use bvlanes::{
    Aabb, Aabbs, Backend, BoxStrategy, Conservative, DownTet, DownTets, Frustum, HitLists, Obb,
    Obbs, Octahedra, Octahedron, Pinned, Query, Sphere, Spheres, Staged, UpTet, UpTets,
};
use common::*;
use core::fmt::Debug;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Sizes of the container's primitives (the world is `[-8, 8]^3`), as in `differential.rs`.
const ITEM_SIZES: [f32; 4] = [0.0, 1.0, 4.0, 12.0];
/// Sizes of the queries: from degenerate to bigger than the world.
const QUERY_SIZES: [f32; 5] = [0.0, 0.5, 3.0, 10.0, 40.0];
/// The internal tile of the batched walk.
const TILE: usize = 16_384;

// =================================================================================================
// `Staged` box queries as generated queries (strategy picked at random, or from the floats)
// =================================================================================================

/// A strategy derived from the floats (so that `wild`, which goes through the floats, varies it).
fn strategy_of(f: &[f32]) -> BoxStrategy {
    let h = f.iter().fold(0u32, |h, x| {
        h.rotate_left(5) ^ x.to_bits().wrapping_mul(0x9E37_79B9)
    });
    BoxStrategy::ALL[(h % BoxStrategy::ALL.len() as u32) as usize]
}

impl Shape for Staged {
    fn random(rng: &mut TestRng, at: [f32; 3], size: f32) -> Self {
        Staged(Aabb::random(rng, at, size), rng.pick(&BoxStrategy::ALL))
    }
    fn adversarial(rng: &mut TestRng) -> Self {
        Staged(Aabb::adversarial(rng), rng.pick(&BoxStrategy::ALL))
    }
    fn around_origin(rng: &mut TestRng, size: f32) -> Self {
        Staged(Aabb::around_origin(rng, size), rng.pick(&BoxStrategy::ALL))
    }
    fn origin() -> Self {
        Staged(Aabb::origin(), BoxStrategy::Direct)
    }
    fn everything() -> Self {
        Staged(Aabb::everything(), BoxStrategy::SevenSided)
    }
    fn valid(&self) -> bool {
        self.0.valid()
    }
    fn floats(&self) -> Vec<f32> {
        self.0.floats()
    }
    fn from_floats(f: &[f32]) -> Self {
        Staged(Aabb::from_floats(f), strategy_of(f))
    }
}

// =================================================================================================
// The batched methods, seen generically (on a pinned backend, or the container's own: `None`)
// =================================================================================================

trait Many: Bv + bvlanes::Container {
    /// `extend_hits` of one query (its length is `count_hits`: `differential.rs` checks that on
    /// every pair and backend).
    fn one<Q: Query<Self>>(&self, on: Option<Backend>, q: &Q) -> Vec<u32>;
    fn count_many<Q: Query<Self>>(&self, on: Option<Backend>, qs: &[Q]) -> Vec<u32>;
    fn lists_many<Q: Query<Self>>(&self, on: Option<Backend>, qs: &[Q]) -> HitLists;
    fn lists_many_into<Q: Query<Self>>(&self, on: Option<Backend>, qs: &[Q], out: &mut HitLists);
    /// Every `(query, primitive)` the callback of `for_each_hit_many` saw, in call order.
    fn each_many<Q: Query<Self>>(&self, on: Option<Backend>, qs: &[Q]) -> Vec<(u32, u32)>;
    /// The container pinned to `b` (for `with_threads`).
    fn pin(&self, b: Backend) -> Pinned<'_, Self>;
}

macro_rules! impl_many {
    ($c:ident) => {
        impl Many for $c {
            fn pin(&self, b: Backend) -> Pinned<'_, Self> {
                self.with_backend(b).expect("an available backend")
            }
            fn one<Q: Query<Self>>(&self, on: Option<Backend>, q: &Q) -> Vec<u32> {
                let mut v = Vec::new();
                match on {
                    Some(b) => self
                        .with_backend(b)
                        .expect("an available backend")
                        .extend_hits(q, &mut v),
                    None => self.extend_hits(q, &mut v),
                }
                v
            }
            fn count_many<Q: Query<Self>>(&self, on: Option<Backend>, qs: &[Q]) -> Vec<u32> {
                match on {
                    Some(b) => self
                        .with_backend(b)
                        .expect("an available backend")
                        .count_hits_many(qs),
                    None => self.count_hits_many(qs),
                }
            }
            fn lists_many<Q: Query<Self>>(&self, on: Option<Backend>, qs: &[Q]) -> HitLists {
                match on {
                    Some(b) => self
                        .with_backend(b)
                        .expect("an available backend")
                        .hits_many(qs),
                    None => self.hits_many(qs),
                }
            }
            fn lists_many_into<Q: Query<Self>>(
                &self,
                on: Option<Backend>,
                qs: &[Q],
                out: &mut HitLists,
            ) {
                match on {
                    Some(b) => self
                        .with_backend(b)
                        .expect("an available backend")
                        .hits_many_into(qs, out),
                    None => self.hits_many_into(qs, out),
                }
            }
            fn each_many<Q: Query<Self>>(&self, on: Option<Backend>, qs: &[Q]) -> Vec<(u32, u32)> {
                let mut seen = Vec::new();
                match on {
                    Some(b) => self
                        .with_backend(b)
                        .expect("an available backend")
                        .for_each_hit_many(qs, |q, i| seen.push((q, i))),
                    None => self.for_each_hit_many(qs, |q, i| seen.push((q, i))),
                }
                seen
            }
        }
    };
}

impl_many!(Aabbs);
impl_many!(Spheres);
impl_many!(UpTets);
impl_many!(DownTets);
impl_many!(Octahedra);
impl_many!(Obbs);

fn on_name(on: Option<Backend>) -> String {
    on.map_or_else(
        || format!("default ({})", Backend::detect()),
        |b| b.to_string(),
    )
}

/// The lanes of a receiver (the default runs on `Backend::detect()`).
fn lanes_of(on: Option<Backend>) -> usize {
    on.unwrap_or_else(Backend::detect).lanes()
}

/// Batch sizes for a receiver: 0, 1, N / 2 + 1 (the smallest group counted as a group,
/// `kernel::group`), N - 1, N, N + 1 and 67 (N its lane count), deduplicated. The container's own
/// methods (`None`) forward to the pinned code of `Backend::detect()`, which runs every size
/// already: they get 0, N + 1 and 67.
fn batch_sizes(on: Option<Backend>) -> Vec<usize> {
    let n = lanes_of(on);
    let mut sizes = match on {
        Some(_) => vec![0, 1, n / 2 + 1, n - 1, n, n + 1, 67],
        None => vec![0, n + 1, 67],
    };
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// The one-query answers of a batch: counts and hit lists.
#[derive(Clone, Debug, PartialEq)]
struct Expected {
    counts: Vec<u32>,
    lists: Vec<Vec<u32>>,
}

impl Expected {
    fn of<C: Many, Q: Query<C> + Debug>(c: &C, on: Option<Backend>, qs: &[Q]) -> Expected {
        let mut e = Expected {
            counts: Vec::with_capacity(qs.len()),
            lists: Vec::with_capacity(qs.len()),
        };
        for q in qs {
            e.push(one_query(c, on, q));
        }
        e
    }

    fn push(&mut self, (count, list): (u32, Vec<u32>)) {
        self.counts.push(count);
        self.lists.push(list);
    }

    fn pairs(&self) -> Vec<(u32, u32)> {
        self.lists
            .iter()
            .enumerate()
            .flat_map(|(q, l)| l.iter().map(move |&i| (q as u32, i)))
            .collect()
    }

    fn hit_lists(&self) -> HitLists {
        let mut h = HitLists::default();
        h.offsets = core::iter::once(0)
            .chain(self.lists.iter().scan(0u32, |acc, l| {
                *acc += l.len() as u32;
                Some(*acc)
            }))
            .collect();
        h.indices = self.lists.concat();
        h
    }
}

/// One query through the one-query method `extend_hits`: `(hit count, hits)`.
fn one_query<C: Many, Q: Query<C> + Debug>(c: &C, on: Option<Backend>, q: &Q) -> (u32, Vec<u32>) {
    let list = c.one(on, q);
    (u32::try_from(list.len()).expect("counts fit u32"), list)
}

/// A `HitLists` holding leftovers of an earlier, unrelated use (with spare capacity).
fn dirty_hit_lists() -> HitLists {
    let mut h = HitLists::default();
    h.offsets = Vec::with_capacity(200);
    h.offsets.extend([0, 7, 3, 12, 12, 99]);
    h.indices = Vec::with_capacity(300);
    h.indices
        .extend([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, u32::MAX, 0, 77]);
    h
}

/// The CSR shape every `HitLists` of a batch of `queries` over a container of `len` must have:
/// `queries + 1` offsets from 0, monotone, the last one the number of indices; indices strictly
/// ascending within each query and below `len`; `queries()` and `query(q)` consistent with them.
fn check_shape(h: &HitLists, queries: usize, len: usize, what: &dyn Fn() -> String) {
    assert_eq!(
        h.offsets.len(),
        queries + 1,
        "{}: offsets must hold one entry per query plus one: {:?}",
        what(),
        h.offsets
    );
    assert_eq!(h.offsets[0], 0, "{}: offsets[0] must be 0", what());
    assert!(
        h.offsets.windows(2).all(|w| w[0] <= w[1]),
        "{}: offsets not monotone: {:?}",
        what(),
        h.offsets
    );
    assert_eq!(
        h.offsets[queries] as usize,
        h.indices.len(),
        "{}: the last offset must be the number of indices",
        what()
    );
    assert_eq!(h.queries(), queries, "{}: queries()", what());
    for q in 0..queries {
        let (a, b) = (h.offsets[q] as usize, h.offsets[q + 1] as usize);
        let list = &h.indices[a..b];
        assert_eq!(
            h.query(q),
            list,
            "{}: query({q}) is not its offsets' slice",
            what()
        );
        assert!(
            list.windows(2).all(|w| w[0] < w[1]),
            "{}: query {q}'s hits not strictly ascending: {list:?}",
            what()
        );
        assert!(
            list.iter().all(|&i| (i as usize) < len),
            "{}: query {q} reports an index past the length {len}: {list:?}",
            what()
        );
    }
}

/// Describes the first query where `got` and `want` differ.
fn first_difference<T: PartialEq + Debug, Q: Debug>(
    got: &[T],
    want: &[T],
    qs: &[Q],
) -> Option<String> {
    if got == want {
        return None;
    }
    if got.len() != want.len() {
        return Some(format!(
            "{} results for {} queries (want {})",
            got.len(),
            qs.len(),
            want.len()
        ));
    }
    let q = (0..got.len())
        .find(|&k| got[k] != want[k])
        .expect("a difference");
    Some(format!(
        "query {q} of {} ({:?}): got {:?}, one-at-a-time {:?}",
        qs.len(),
        qs[q],
        got[q],
        want[q]
    ))
}

/// Runs every batched method of receiver `on` on `qs` and asserts each equals `want` (the
/// one-query answers, same receiver). `scratch` is reused across calls (never cleared here).
fn check_batch_against<C: Many, Q: Query<C> + Debug>(
    c: &C,
    on: Option<Backend>,
    qs: &[Q],
    want: &Expected,
    scratch: &mut HitLists,
    what: &str,
) {
    let len = c.length();
    let ctx = || {
        format!(
            "{} (len {len}) on {}, batch of {} [{what}]",
            C::NAME,
            on_name(on),
            qs.len()
        )
    };
    assert_eq!(want.counts.len(), qs.len());

    // count_hits_many
    let counts = c.count_many(on, qs);
    if let Some(d) = first_difference(&counts, &want.counts, qs) {
        panic!("{}: count_hits_many differs from count_hits: {d}", ctx());
    }

    // hits_many
    let lists = c.lists_many(on, qs);
    check_shape(&lists, qs.len(), len, &|| format!("{}: hits_many", ctx()));
    let got: Vec<Vec<u32>> = (0..qs.len()).map(|q| lists.query(q).to_vec()).collect();
    if let Some(d) = first_difference(&got, &want.lists, qs) {
        panic!("{}: hits_many differs from extend_hits: {d}", ctx());
    }
    let built = want.hit_lists();
    assert_eq!(lists.offsets, built.offsets, "{}: hits_many offsets", ctx());
    assert_eq!(lists.indices, built.indices, "{}: hits_many indices", ctx());
    assert!(
        lists == built,
        "{}: HitLists == on equal offsets and indices",
        ctx()
    );

    // hits_many_into, into a used HitLists
    c.lists_many_into(on, qs, scratch);
    check_shape(scratch, qs.len(), len, &|| {
        format!("{}: hits_many_into", ctx())
    });
    assert_eq!(
        scratch.offsets,
        lists.offsets,
        "{}: hits_many_into (reused HitLists) offsets differ from hits_many",
        ctx()
    );
    assert_eq!(
        scratch.indices,
        lists.indices,
        "{}: hits_many_into (reused HitLists) indices differ from hits_many",
        ctx()
    );
    assert!(*scratch == lists, "{}: hits_many_into != hits_many", ctx());

    // for_each_hit_many
    let seen = c.each_many(on, qs);
    let pairs = want.pairs();
    if seen != pairs {
        let k = seen
            .iter()
            .zip(&pairs)
            .position(|(a, b)| a != b)
            .unwrap_or(seen.len().min(pairs.len()));
        panic!(
            "{}: for_each_hit_many saw {} (query, primitive) calls, one-at-a-time gives {}; first \
             difference at call {k}: got {:?}, want {:?}",
            ctx(),
            seen.len(),
            pairs.len(),
            seen.get(k),
            pairs.get(k)
        );
    }
}

/// Computes the one-at-a-time answers on `on`, then checks every batched method against them.
fn check_batch<C: Many, Q: Query<C> + Debug>(
    c: &C,
    on: Option<Backend>,
    qs: &[Q],
    scratch: &mut HitLists,
    what: &str,
) -> Expected {
    let want = Expected::of(c, on, qs);
    check_batch_against(c, on, qs, &want, scratch, what);
    want
}

// =================================================================================================
// 1. Differential: every pair x every backend x batch sizes x container lengths 0..=67
// =================================================================================================

/// A random batch: mostly random queries of every size, some covering the origin, some wild (NaN,
/// infinite, inverted), some repeating the previous query.
fn random_batch<Q: Shape>(rng: &mut TestRng, k: usize) -> Vec<Q> {
    let mut qs: Vec<Q> = Vec::with_capacity(k);
    for _ in 0..k {
        let q = match rng.below(10) {
            0 => {
                let size = rng.range(0.0, 10.0);
                Q::around_origin(rng, size)
            }
            1 => Q::wild(rng),
            2 if !qs.is_empty() => *qs.last().expect("non-empty"),
            _ => {
                let size = rng.pick(&QUERY_SIZES);
                Q::random(rng, [0.0; 3], size)
            }
        };
        qs.push(q);
    }
    qs
}

fn random_items<T: Shape>(rng: &mut TestRng, len: usize) -> Vec<T> {
    let item_size = rng.pick(&ITEM_SIZES);
    (0..len)
        .map(|_| {
            if rng.chance(0.1) {
                T::around_origin(rng, 2.0)
            } else {
                T::random(rng, [0.0; 3], item_size)
            }
        })
        .collect()
}

fn differential<C: Many, Q: Shape + Query<C>>(name: &str) {
    let mut rng = TestRng::named(20, name);
    let mut coverage = Coverage::default();
    let mut scratch = dirty_hit_lists();
    let receivers = receivers();
    for len in LENGTHS {
        let items: Vec<C::Item> = random_items(&mut rng, len);
        let c = C::build(&items);
        for (r, &on) in receivers.iter().enumerate() {
            for k in batch_sizes(on) {
                // The largest batches at an eighth of the lengths per receiver (rotating).
                if k > 17 && (len + r) % 8 != 0 {
                    continue;
                }
                let qs: Vec<Q> = random_batch(&mut rng, k);
                let want = check_batch(&c, on, &qs, &mut scratch, "random batch");
                for &n in &want.counts {
                    coverage.record(n as usize, len);
                }
            }
        }
    }
    assert!(
        coverage.none > 0 && coverage.some > 0,
        "{name}: the random batches did not cover no/some hits: {coverage:?}"
    );
}

// =================================================================================================
// 2. Adversarial batches: NaN, infinities, inverted and empty queries at every position
// =================================================================================================

/// Any NaN.
const NANS: [f32; 4] = [
    f32::NAN,
    -f32::NAN,
    f32::from_bits(0x7f80_0001),
    f32::from_bits(0xffc0_1234),
];

/// A bad query made from `base`: `(query, must hit nothing)`. Kinds: NaN in one field (hits
/// nothing), every field NaN (hits nothing), an infinity in one field, one field negated (inverted
/// boxes, negative radii, empty tetrahedra), anything (`wild`).
fn bad_query<Q: Shape>(rng: &mut TestRng, base: &Q, kind: usize) -> (Q, bool) {
    let mut f = base.floats();
    let i = rng.below(f.len());
    match kind % 5 {
        0 => {
            f[i] = rng.pick(&NANS);
            (Q::from_floats(&f), true)
        }
        1 => {
            f.iter_mut().for_each(|x| *x = rng.pick(&NANS));
            (Q::from_floats(&f), true)
        }
        2 => {
            f[i] = rng.pick(&[f32::INFINITY, f32::NEG_INFINITY]);
            (Q::from_floats(&f), false)
        }
        3 => {
            f[i] = -f[i];
            if f[i] == 0.0 {
                f[i] = -1.0;
            }
            (Q::from_floats(&f), false)
        }
        _ => (Q::wild(rng), false),
    }
}

/// Random, around-the-origin, huge and origin primitives, mixed (so that the base queries, which
/// mostly cover the origin, hit many of them).
fn mixed_items<T: Shape>(rng: &mut TestRng, len: usize) -> Vec<T> {
    (0..len)
        .map(|_| match rng.below(5) {
            0 => T::random(rng, [0.0; 3], 4.0),
            1 => T::adversarial(rng),
            2 => T::everything(),
            3 => T::around_origin(rng, 3.0),
            _ => T::origin(),
        })
        .collect()
}

/// Checks a batch where some positions hold bad queries: equal to one-at-a-time, the NaN ones
/// hit nothing, and every other position gives the base batch's answer.
#[allow(clippy::too_many_arguments)]
fn check_with_bad<C: Many, Q: Query<C> + Debug + Copy>(
    c: &C,
    on: Option<Backend>,
    base_qs: &[Q],
    base: &Expected,
    bad: &[(usize, Q, bool)],
    scratch: &mut HitLists,
    what: &str,
) {
    let mut qs = base_qs.to_vec();
    let mut want = base.clone();
    for &(p, q, nothing) in bad {
        qs[p] = q;
        let (count, list) = one_query(c, on, &q);
        if nothing {
            assert_eq!(
                count,
                0,
                "{} (len {}) on {}: one-query count_hits of a NaN query {q:?} is not 0",
                C::NAME,
                c.length(),
                on_name(on)
            );
        }
        want.counts[p] = count;
        want.lists[p] = list;
    }
    check_batch_against(c, on, &qs, &want, scratch, what);
}

fn adversarial_batches<C: Many, Q: Shape + Query<C>>(name: &str) {
    const BATCH: usize = 17; // 16 lanes + 1: every position of a first and a second group
    let mut rng = TestRng::named(21, name);
    let mut scratch = dirty_hit_lists();
    let mut nan_hit_something_alone = 0usize;
    for len in [0, 1, 5, 17, 33, 67] {
        let items: Vec<C::Item> = mixed_items(&mut rng, len);
        let c = C::build(&items);
        for on in receivers() {
            // A base batch that hits (mostly origin-covering queries), checked as is.
            let base_qs: Vec<Q> = (0..BATCH)
                .map(|k| {
                    if k % 3 == 2 {
                        let size = rng.pick(&QUERY_SIZES);
                        Q::random(&mut rng, [0.0; 3], size)
                    } else {
                        let size = rng.range(0.5, 10.0);
                        Q::around_origin(&mut rng, size)
                    }
                })
                .collect();
            let base = check_batch(&c, on, &base_qs, &mut scratch, "base of the adversarial");
            // One bad query at every position, the kinds rotating.
            for p in 0..BATCH {
                let (q, nothing) = bad_query(&mut rng, &base_qs[p], p + len);
                if nothing && base.counts[p] > 0 {
                    nan_hit_something_alone += 1;
                }
                check_with_bad(
                    &c,
                    on,
                    &base_qs,
                    &base,
                    &[(p, q, nothing)],
                    &mut scratch,
                    &format!("bad query (kind {}) at position {p}", (p + len) % 5),
                );
            }
            // NaN at every position, one at a time (above, NaN is two kinds in five), at one length.
            for p in (0..BATCH).filter(|_| len == 33) {
                let (q, _) = bad_query(&mut rng, &base_qs[p], 0);
                check_with_bad(
                    &c,
                    on,
                    &base_qs,
                    &base,
                    &[(p, q, true)],
                    &mut scratch,
                    &format!("NaN query at position {p}"),
                );
            }
            // Bad queries scattered: each position bad with probability 1/2; then all bad.
            for round in 0..3 {
                let mut bad: Vec<(usize, Q, bool)> = Vec::new();
                for (p, base_q) in base_qs.iter().enumerate() {
                    if round == 2 || rng.chance(0.5) {
                        let kind = rng.below(5);
                        let (q, nothing) = bad_query(&mut rng, base_q, kind);
                        bad.push((p, q, nothing));
                    }
                }
                check_with_bad(
                    &c,
                    on,
                    &base_qs,
                    &base,
                    &bad,
                    &mut scratch,
                    &format!("scattered bad queries (round {round})"),
                );
            }
            // A batch of NaN queries only: nothing at all.
            let nans: Vec<Q> = (0..BATCH)
                .map(|p| bad_query(&mut rng, &base_qs[p], 1 - p % 2).0)
                .collect();
            let want = check_batch(&c, on, &nans, &mut scratch, "NaN queries only");
            assert!(want.counts.iter().all(|&n| n == 0));
        }
    }
    assert!(
        nan_hit_something_alone > 0,
        "{name}: the NaN queries never replaced a query that hit something"
    );
}

macro_rules! many_tests {
    ($name:ident, $c:ty, $q:ty, $reference:expr) => {
        mod $name {
            use super::*;

            #[test]
            fn batches_equal_one_at_a_time_every_length_every_backend() {
                differential::<$c, $q>(stringify!($name));
            }

            #[test]
            fn bad_queries_anywhere_in_a_batch() {
                adversarial_batches::<$c, $q>(stringify!($name));
            }
        }
    };
}

for_each_pair!(many_tests);
many_tests!(aabbs_staged, Aabbs, Staged, ());
many_tests!(conservative_aabbs_staged, Aabbs, Conservative<Staged>, ());

// =================================================================================================
// 3. Containers longer than one tile
// =================================================================================================

/// Lengths around one and two tiles, and a longer one with a partial third tile.
const TILED_LENGTHS: [usize; 5] = [TILE - 1, TILE, TILE + 1, 2 * TILE + 1, 40_000];

fn multi_tile<C: Many, Q: Shape + Query<C>>(name: &str, lengths: &[usize]) {
    let mut rng = TestRng::named(22, name);
    let longest = *lengths.iter().max().expect("lengths");
    // Most primitives spread over the world; some around the origin and a few huge, so that the
    // origin-covering queries hit primitives in every tile.
    let all: Vec<C::Item> = (0..longest)
        .map(|_| match rng.below(20) {
            0 => C::Item::around_origin(&mut rng, 1.0),
            1 => C::Item::everything(),
            _ => C::Item::random(&mut rng, [0.0; 3], 1.0),
        })
        .collect();
    // Huge primitives on both sides of each tile boundary and at the end of each length, so that
    // every query that hits anything hits past the first tile.
    let mut all = all;
    for i in [TILE - 1, TILE, 2 * TILE - 1, 2 * TILE]
        .into_iter()
        .chain(lengths.iter().map(|&l| l - 1))
    {
        if i < longest {
            all[i] = C::Item::everything();
        }
    }
    let mut scratch = dirty_hit_lists();
    let mut coverage = Coverage::default();
    for (l, &len) in lengths.iter().enumerate() {
        let items = &all[..len];
        let c = C::build(items);
        let mut qs: Vec<Q> = vec![
            Q::around_origin(&mut rng, 0.5),
            Q::random(&mut rng, [0.0; 3], 0.0),
            Q::random(&mut rng, [0.0; 3], 0.5),
            Q::random(&mut rng, [0.0; 3], 3.0),
            Q::random(&mut rng, [0.0; 3], 40.0),
            Q::random(&mut rng, [100.0; 3], 0.5), // far away: hits only the huge ones
        ];
        let nan_at = l % (qs.len() + 1);
        let (nan, _) = bad_query(&mut rng, &qs[0], 0);
        qs.insert(nan_at, nan);
        for on in receivers() {
            let want = check_batch(&c, on, &qs, &mut scratch, "multi-tile");
            assert_eq!(want.counts[nan_at], 0, "a NaN query hits nothing");
            for &n in &want.counts {
                coverage.record(n as usize, len);
            }
            // Each query's hits span tiles: some query hits something past the first tile.
            if len > TILE {
                assert!(
                    want.lists
                        .iter()
                        .any(|l| l.iter().any(|&i| i as usize >= TILE)),
                    "{name}: no hit past the first tile at length {len}"
                );
            }
        }
    }
    assert!(coverage.some > 0, "{name}: {coverage:?}");
}

macro_rules! multi_tile_tests {
    ($($name:ident: $c:ty, $q:ty, $lengths:expr;)*) => {
        mod tiles {
            use super::*;
            $(
                #[test]
                fn $name() {
                    multi_tile::<$c, $q>(stringify!($name), &$lengths);
                }
            )*
        }
    };
}

/// Fewer lengths for the other pairs (the walk is the same code for every pair).
const SOME_TILED_LENGTHS: [usize; 2] = [TILE + 1, 2 * TILE + 1];

multi_tile_tests! {
    aabbs_sphere: Aabbs, Sphere, TILED_LENGTHS;
    aabbs_aabb: Aabbs, Aabb, TILED_LENGTHS;
    up_tets_down_tet: UpTets, DownTet, TILED_LENGTHS;
    aabbs_conservative_sphere: Aabbs, Conservative<Sphere>, SOME_TILED_LENGTHS;
    aabbs_staged: Aabbs, Staged, SOME_TILED_LENGTHS;
    down_tets_up_tet: DownTets, UpTet, SOME_TILED_LENGTHS;
    spheres_sphere: Spheres, Sphere, SOME_TILED_LENGTHS;
    octahedra_octahedron: Octahedra, Octahedron, [TILE + 1];
    obbs_sphere: Obbs, Sphere, [TILE + 1];
    aabbs_frustum: Aabbs, Frustum, [TILE + 1];
}

/// Hits on both sides of every tile boundary: primitives at the boundary indices contain the
/// origin, the others are far away, so the hit lists are exactly the boundary neighbourhoods.
#[test]
fn multi_tile_hits_at_tile_boundaries() {
    let len = 2 * TILE + 3;
    let near: Vec<usize> = [
        0,
        1,
        TILE - 2,
        TILE - 1,
        TILE,
        TILE + 1,
        2 * TILE - 1,
        2 * TILE,
    ]
    .into_iter()
    .chain([2 * TILE + 2])
    .collect();
    let items: Vec<Aabb> = (0..len)
        .map(|i| {
            if near.contains(&i) {
                Aabb::new([-1.0; 3], [1.0; 3])
            } else {
                Aabb::new([50.0; 3], [51.0; 3])
            }
        })
        .collect();
    let c = Aabbs::build(&items);
    let want: Vec<u32> = near.iter().map(|&i| i as u32).collect();
    let qs = [
        Sphere::new([0.0; 3], 0.5),
        Sphere::new([f32::NAN, 0.0, 0.0], 0.5),
        Sphere::new([0.0; 3], 0.25),
    ];
    let mut scratch = dirty_hit_lists();
    for on in receivers() {
        let got = check_batch(&c, on, &qs, &mut scratch, "tile boundaries");
        assert_eq!(
            got.lists,
            [want.clone(), vec![], want.clone()],
            "on {}",
            on_name(on)
        );
    }
}

// =================================================================================================
// 4. HitLists
// =================================================================================================

fn small_boxes() -> (Aabbs, Vec<Sphere>) {
    let mut rng = TestRng::new(44);
    let items: Vec<Aabb> = (0..37)
        .map(|_| Aabb::random(&mut rng, [0.0; 3], 3.0))
        .collect();
    let qs: Vec<Sphere> = (0..9)
        .map(|_| Sphere::random(&mut rng, [0.0; 3], 6.0))
        .collect();
    (Aabbs::build(&items), qs)
}

#[test]
fn hit_lists_query_panics_past_the_end() {
    let (c, qs) = small_boxes();
    for on in receivers() {
        let h = c.lists_many(on, &qs);
        assert_eq!(h.queries(), qs.len());
        for q in 0..qs.len() {
            let _ = h.query(q);
        }
        for past in [qs.len(), qs.len() + 1, usize::MAX] {
            let r = catch_unwind(AssertUnwindSafe(|| h.query(past).to_vec()));
            assert!(
                r.is_err(),
                "on {}: query({past}) of {} queries returned {:?} instead of panicking",
                on_name(on),
                qs.len(),
                r
            );
        }
        let empty = c.lists_many::<Sphere>(on, &[]);
        for past in [0, 1] {
            let r = catch_unwind(AssertUnwindSafe(|| empty.query(past).to_vec()));
            assert!(r.is_err(), "query({past}) of an empty batch: {r:?}");
        }
    }
}

#[test]
fn hit_lists_of_an_empty_batch() {
    let (c, _) = small_boxes();
    for on in receivers() {
        let h = c.lists_many::<Sphere>(on, &[]);
        assert_eq!(h.queries(), 0);
        assert_eq!(h.offsets, [0], "on {}", on_name(on));
        assert!(h.indices.is_empty());
        assert!(c.count_many::<Sphere>(on, &[]).is_empty());
        assert!(c.each_many::<Sphere>(on, &[]).is_empty());
        let mut dirty = dirty_hit_lists();
        c.lists_many_into::<Sphere>(on, &[], &mut dirty);
        assert_eq!(dirty.offsets, [0], "hits_many_into of an empty batch");
        assert!(dirty.indices.is_empty());
        assert_eq!(dirty, h);
    }
    // An empty container, an empty batch.
    let none = Aabbs::build(&[]);
    let h = none.lists_many::<Aabb>(None, &[]);
    assert_eq!((h.queries(), h.offsets.as_slice()), (0, &[0u32][..]));
}

#[test]
fn hit_lists_default_clear_clone_debug() {
    let d = HitLists::default();
    assert_eq!(d.queries(), 0, "a default HitLists holds no query: {d:?}");
    assert!(d.indices.is_empty());

    let (c, qs) = small_boxes();
    let mut h = c.hits_many(&qs);
    assert_eq!(h.queries(), qs.len());
    assert!(!h.indices.is_empty(), "the small case should hit something");
    let copy = h.clone();
    assert_eq!(copy, h);
    assert!(!format!("{h:?}").is_empty());

    h.clear();
    assert_eq!(h.queries(), 0, "after clear: {h:?}");
    assert!(h.indices.is_empty(), "after clear: {h:?}");
    assert!(catch_unwind(AssertUnwindSafe(|| h.query(0).to_vec())).is_err());
    // A cleared HitLists refills to exactly what hits_many gives.
    c.hits_many_into(&qs, &mut h);
    assert_eq!(h, copy);

    // Equality is on offsets and indices.
    let mut other = HitLists::default();
    other.offsets = copy.offsets.clone();
    other.indices = copy.indices.clone();
    assert_eq!(other, copy);
    other.indices.push(0);
    assert_ne!(other, copy);
}

/// `hits_many_into` overwrites whatever `out` held: batches of growing and shrinking sizes (and
/// hit counts) into one `HitLists` give exactly what `hits_many` gives.
#[test]
fn hits_many_into_reuses_a_used_hit_lists() {
    let mut rng = TestRng::new(45);
    let items: Vec<Aabb> = (0..150)
        .map(|_| Aabb::random(&mut rng, [0.0; 3], 2.0))
        .collect();
    let c = Aabbs::build(&items);
    for on in receivers() {
        let mut out = dirty_hit_lists();
        for k in [40, 3, 0, 67, 1, 17, 0, 5, 120, 2] {
            let qs: Vec<Sphere> = random_batch(&mut rng, k);
            let fresh = c.lists_many(on, &qs);
            c.lists_many_into(on, &qs, &mut out);
            assert_eq!(out, fresh, "on {}: batch of {k}", on_name(on));
            assert_eq!(out.offsets, fresh.offsets);
            assert_eq!(out.indices, fresh.indices);
            // Boxes too, through the same HitLists (another query type).
            let boxes: Vec<Aabb> = random_batch(&mut rng, k / 2);
            c.lists_many_into(on, &boxes, &mut out);
            assert_eq!(out, c.lists_many(on, &boxes), "on {}: boxes", on_name(on));
        }
    }
}

/// The same `HitLists` through single-tile and multi-tile batches, alternately.
#[test]
fn hits_many_into_reuses_across_tiled_containers() {
    let mut rng = TestRng::new(46);
    let long: Vec<Aabb> = (0..TILE + 40)
        .map(|_| Aabb::random(&mut rng, [0.0; 3], 1.0))
        .collect();
    let long = Aabbs::build(&long);
    let short = Aabbs::build(&long.iter().take(50).collect::<Vec<_>>());
    for on in receivers() {
        let mut out = dirty_hit_lists();
        for (round, k) in [5, 2, 9, 0, 3, 7].into_iter().enumerate() {
            let qs: Vec<Sphere> = random_batch(&mut rng, k);
            let c = if round % 2 == 0 { &long } else { &short };
            c.lists_many_into(on, &qs, &mut out);
            let want = Expected::of(c, on, &qs);
            assert_eq!(out, want.hit_lists(), "on {}: round {round}", on_name(on));
        }
    }
}

/// `for_each_hit_many` reports `(query index, primitive index)` in (query, primitive) order.
#[test]
fn for_each_hit_many_order_and_indices() {
    let (c, qs) = small_boxes();
    for on in receivers() {
        let seen = c.each_many(on, &qs);
        assert!(
            seen.windows(2).all(|w| w[0] < w[1]),
            "not in (query, primitive) order"
        );
        // count_hits_many is count_hits, query by query.
        let counts: Vec<u32> = qs
            .iter()
            .map(|q| match on {
                Some(b) => c.with_backend(b).expect("available").count_hits(q),
                None => c.count_hits(q),
            } as u32)
            .collect();
        assert_eq!(c.count_many(on, &qs), counts, "on {}", on_name(on));
        let lists = c.lists_many(on, &qs);
        let from_lists: Vec<(u32, u32)> = (0..lists.queries())
            .flat_map(|q| lists.query(q).iter().map(move |&i| (q as u32, i)))
            .collect();
        assert_eq!(seen, from_lists);
    }
}

// =================================================================================================
// 5. The results do not depend on the backend
// =================================================================================================

fn backend_independent<C: Many, Q: Shape + Query<C>>(name: &str, len: usize, batch: usize) {
    let mut rng = TestRng::named(23, name);
    let items: Vec<C::Item> = random_items(&mut rng, len);
    let c = C::build(&items);
    let qs: Vec<Q> = random_batch(&mut rng, batch);
    let receivers = receivers();
    let first = receivers[0];
    let counts = c.count_many(first, &qs);
    let lists = c.lists_many(first, &qs);
    let each = c.each_many(first, &qs);
    assert!(counts.iter().any(|&n| n > 0), "{name}: nothing hit");
    for &on in &receivers[1..] {
        let ctx = format!(
            "{name} (len {len}, {batch} queries): {} vs {}",
            on_name(on),
            on_name(first)
        );
        if let Some(d) = first_difference(&c.count_many(on, &qs), &counts, &qs) {
            panic!("{ctx}: count_hits_many: {d}");
        }
        let other = c.lists_many(on, &qs);
        check_shape(&other, qs.len(), len, &|| ctx.clone());
        let got: Vec<&[u32]> = (0..qs.len()).map(|q| other.query(q)).collect();
        let want: Vec<&[u32]> = (0..qs.len()).map(|q| lists.query(q)).collect();
        if let Some(d) = first_difference(&got, &want, &qs) {
            panic!("{ctx}: hits_many: {d}");
        }
        assert_eq!(other, lists, "{ctx}");
        assert_eq!(c.each_many(on, &qs), each, "{ctx}: for_each_hit_many");
    }
}

#[test]
fn backends_agree_aabbs_sphere() {
    backend_independent::<Aabbs, Sphere>("aabbs_sphere", 3_000, 100);
}

#[test]
fn backends_agree_aabbs_obb() {
    backend_independent::<Aabbs, Obb>("aabbs_obb", 1_500, 40);
}

#[test]
fn backends_agree_octahedra_octahedron() {
    backend_independent::<Octahedra, Octahedron>("octahedra_octahedron", 2_500, 80);
}

#[test]
fn backends_agree_spheres_frustum() {
    backend_independent::<Spheres, Frustum>("spheres_frustum", 2_000, 60);
}

#[test]
fn backends_agree_up_tets_down_tet() {
    backend_independent::<UpTets, DownTet>("up_tets_down_tet", 3_000, 100);
}

// =================================================================================================
// 6. Threads: a batch split over 1, 2 and 3 threads gives the one-query answers
// =================================================================================================

/// Queries times primitives from which a batch is split over threads (the library's threshold).
const PARALLEL_MIN_TESTS: usize = 1 << 22;

/// `Pinned::with_threads(t)` on every backend, for t = 1, 2, 3, on a batch big enough to be split:
/// by tiles (`len` past `threads` tiles) or by queries (a container of one tile).
fn threaded<C: Many, Q: Shape + Query<C>>(name: &str, len: usize, batch: usize) {
    assert!(
        len * batch >= PARALLEL_MIN_TESTS,
        "{name}: too small to split"
    );
    let mut rng = TestRng::named(24, name);
    let mut items: Vec<C::Item> = random_items(&mut rng, len);
    // Primitives that hit every query at the ends of the tiles, so that lists span them.
    for i in (TILE - 1..len).step_by(TILE).chain([len - 1]) {
        items[i] = C::Item::everything();
    }
    let c = C::build(&items);
    let mut qs: Vec<Q> = random_batch(&mut rng, batch);
    let (nan, _) = bad_query(&mut rng, &qs[0], 0);
    qs[batch / 2] = nan;
    let mut scratch = dirty_hit_lists();
    // One reference for every backend: the one-query answers are the same bit for bit on every
    // backend (`differential.rs`). One thread is the tile tests' case (`multi_tile`); here the
    // batch is split.
    let want = Expected::of(&c, Some(Backend::Scalar), &qs);
    assert_eq!(want.counts[batch / 2], 0, "a NaN query hits nothing");
    // Every backend split, over 2 threads and 3 in turn (both where one backend runs): the
    // split is made above the tiers (the tasks of `query/many.rs`), so alternating covers each
    // count and each tier in half the time of every pair of them.
    let backends = Backend::available();
    for (k, &b) in backends.iter().enumerate() {
        let counts: &[usize] = if backends.len() == 1 {
            &[2, 3]
        } else {
            [&[2], &[3]][k % 2]
        };
        for &threads in counts {
            let p = c.pin(b).with_threads(threads);
            assert_eq!(p.threads(), threads);
            let ctx = format!("{name} (len {len}, {batch} queries) on {b}, {threads} threads");
            if let Some(d) = first_difference(&p.count_hits_many(&qs), &want.counts, &qs) {
                panic!("{ctx}: count_hits_many: {d}");
            }
            p.hits_many_into(&qs, &mut scratch);
            check_shape(&scratch, qs.len(), len, &|| ctx.clone());
            assert_eq!(scratch, want.hit_lists(), "{ctx}: hits_many_into");
            let mut seen = Vec::new();
            p.for_each_hit_many(&qs, |q, i| seen.push((q, i)));
            assert_eq!(seen, want.pairs(), "{ctx}: for_each_hit_many");
        }
    }
}

#[test]
fn threads_split_by_tiles_aabbs_sphere() {
    threaded::<Aabbs, Sphere>("threads_tiles_aabbs_sphere", 3 * TILE + 5, 90);
}

#[test]
fn threads_split_by_queries_aabbs_sphere() {
    threaded::<Aabbs, Sphere>("threads_queries_aabbs_sphere", TILE - 3, 260);
}

#[test]
fn threads_split_by_tiles_up_tets_down_tet() {
    threaded::<UpTets, DownTet>("threads_tiles_up_tets", 4 * TILE + 1, 70);
}

#[test]
fn threads_split_by_tiles_octahedra_staged_conservative() {
    threaded::<Octahedra, Conservative<Octahedron>>("threads_tiles_octahedra", 2 * TILE + 7, 130);
}

/// The default thread count is rayon's current pool's (1 without the feature); `with_threads(0)`
/// means the calling thread only.
#[test]
fn thread_counts() {
    let c = Aabbs::build(&[Aabb::new([0.0; 3], [1.0; 3])]);
    let p = c.with_backend(Backend::Scalar).expect("scalar");
    assert!(p.threads() >= 1);
    assert_eq!(p.with_threads(0).threads(), 1);
    assert_eq!(p.with_threads(5).threads(), 5);
}
