//! Errors and panics: every `BvError` variant this machine can produce is produced, naming the
//! right index; a call that fails changes nothing (no half-inserted primitive); `-0.0` radii are
//! accepted; `Display` and `std::error::Error`; `swap_remove` semantics and its panic; `hit_mask`
//! with a too-short slice panics with a clear message.
//!
//! Not produced here: `BvError::CapacityExceeded` needs a container of `u32::MAX` primitives
//! (over 64 GiB of columns), out of reach of a test.

use crate::common;

use bvlanes::{
    Aabb, Aabbs, Backend, BvError, DownTet, DownTets, Octahedra, Octahedron, ParseBackendError,
    Pinned, Sphere, Spheres, UpTet, UpTets,
};
use common::*;
use std::panic::{AssertUnwindSafe, catch_unwind};

type MakeError = fn(usize) -> BvError;

fn non_finite(index: usize) -> BvError {
    BvError::NonFinite { index }
}

fn inverted(index: usize) -> BvError {
    BvError::Inverted { index }
}

fn negative_radius(index: usize) -> BvError {
    BvError::NegativeRadius { index }
}

fn radius_too_large(index: usize) -> BvError {
    BvError::RadiusTooLarge { index }
}

/// Invalid primitives of a type, each with the error it must produce, and valid edge cases.
trait Cases: Shape {
    fn invalid() -> Vec<(Self, MakeError)>;
    fn valid_edges() -> Vec<Self>;
}

/// Every field of `base` replaced in turn by every non-finite value.
fn non_finite_everywhere<T: Shape>(base: T) -> Vec<(T, MakeError)> {
    let n = base.floats().len();
    (0..n)
        .flat_map(|field| {
            NON_FINITE.iter().map(move |&v| {
                let mut f = base.floats();
                f[field] = v;
                (T::from_floats(&f), non_finite as MakeError)
            })
        })
        .collect()
}

const B1: f32 = f32::from_bits(1); // the smallest subnormal
const MAX: f32 = f32::MAX;

impl Cases for Aabb {
    fn invalid() -> Vec<(Self, MakeError)> {
        let mut v = non_finite_everywhere(Aabb::new([0.0; 3], [1.0; 3]));
        for axis in 0..3 {
            let mut b = Aabb::new([0.0; 3], [1.0; 3]);
            b.min[axis] = 2.0;
            v.push((b, inverted));
            let mut b = Aabb::new([0.0; 3], [0.0; 3]);
            b.min[axis] = B1; // inverted by one subnormal
            v.push((b, inverted));
        }
        v.push((Aabb::new([MAX; 3], [-MAX; 3]), inverted));
        v
    }
    fn valid_edges() -> Vec<Self> {
        vec![
            Aabb::new([0.0; 3], [0.0; 3]),
            Aabb::new([0.0; 3], [-0.0; 3]), // min == max
            Aabb::new([-MAX; 3], [MAX; 3]),
            Aabb::new([B1; 3], [B1; 3]),
        ]
    }
}

impl Cases for Sphere {
    fn invalid() -> Vec<(Self, MakeError)> {
        let mut v = non_finite_everywhere(Sphere::new([1.0, 2.0, 3.0], 1.0));
        v.push((Sphere::new([0.0; 3], -1.0), negative_radius));
        v.push((Sphere::new([0.0; 3], -B1), negative_radius));
        v.push((Sphere::new([0.0; 3], -MAX), negative_radius));
        v.push((
            Sphere::new([0.0; 3], Sphere::MAX_RADIUS.next_up()),
            radius_too_large,
        ));
        v.push((Sphere::new([0.0; 3], 2e19), radius_too_large));
        v.push((Sphere::new([0.0; 3], MAX), radius_too_large));
        v
    }
    fn valid_edges() -> Vec<Self> {
        vec![
            Sphere::new([0.0; 3], 0.0),
            Sphere::new([0.0; 3], -0.0), // accepted as zero
            Sphere::new([MAX, -MAX, 0.0], Sphere::MAX_RADIUS),
            Sphere::new([0.0; 3], B1),
        ]
    }
}

impl Cases for UpTet {
    fn invalid() -> Vec<(Self, MakeError)> {
        let mut v = non_finite_everywhere(UpTet::new([-1.0; 4]));
        v.push((UpTet::new([1.0; 4]), inverted));
        v.push((UpTet::new([B1, 0.0, 0.0, 0.0]), inverted));
        // The f32 sum is 0 (1e-30 vanishes), the exact sum is 1e-30 > 0.
        v.push((UpTet::new([1.0, 2e-30, -1.0, -1e-30]), inverted));
        // The f32 sum overflows; the exact sum is one ulp of MAX above zero.
        v.push((UpTet::new([MAX, MAX, -MAX, -MAX.next_down()]), inverted));
        v
    }
    fn valid_edges() -> Vec<Self> {
        vec![
            UpTet::new([0.0; 4]),
            UpTet::new([-0.0; 4]),
            UpTet::new([1.0, 1e-30, -1.0, -1e-30]), // exact sum 0: a single point
            UpTet::new([MAX, MAX, -MAX, -MAX]),     // exact sum 0, f32 sum overflows
            UpTet::new([B1, -B1, B1, -B1]),
        ]
    }
}

impl Cases for DownTet {
    fn invalid() -> Vec<(Self, MakeError)> {
        UpTet::invalid()
            .into_iter()
            .map(|(u, e)| (DownTet::new(u.min.map(|x| -x)), e))
            .collect()
    }
    fn valid_edges() -> Vec<Self> {
        UpTet::valid_edges()
            .into_iter()
            .map(|u| DownTet::new(u.min.map(|x| -x)))
            .collect()
    }
}

impl Cases for Octahedron {
    fn invalid() -> Vec<(Self, MakeError)> {
        let good = Octahedron::new(UpTet::new([-1.0; 4]), DownTet::new([1.0; 4]));
        let mut v = non_finite_everywhere(good);
        // An empty up half, an empty down half.
        v.push((
            Octahedron::new(UpTet::new([1.0; 4]), DownTet::new([2.0; 4])),
            inverted,
        ));
        v.push((
            Octahedron::new(UpTet::new([-2.0; 4]), DownTet::new([-1.0; 4])),
            inverted,
        ));
        // Both halves non-empty, but they do not meet on one axis.
        for axis in 0..4 {
            let mut o = good;
            o.up.min[axis] = 0.5;
            o.down.max[axis] = 0.25;
            v.push((o, inverted));
        }
        v
    }
    fn valid_edges() -> Vec<Self> {
        vec![
            Octahedron::new(UpTet::new([0.0; 4]), DownTet::new([-0.0; 4])),
            Octahedron::new(
                UpTet::new([1.0, 1e-30, -1.0, -1e-30]),
                DownTet::new([1.0, 1e-30, -1.0, -1e-30]),
            ),
            Octahedron::new(UpTet::new([-MAX; 4]), DownTet::new([MAX; 4])),
        ]
    }
}

/// Valid filler primitives.
fn fillers<T: Shape>(rng: &mut TestRng, n: usize) -> Vec<T> {
    (0..n).map(|_| T::random(rng, [0.0; 3], 2.0)).collect()
}

/// The observable state of a container: `==`, contents, length, capacity, and query answers on
/// every backend.
fn snapshot<C: Bv>(c: &C) -> (C, Vec<C::Item>, usize, usize, Vec<Outputs>)
where
    [f32; 3]: bvlanes::Query<C>,
{
    let answers = receivers()
        .into_iter()
        .map(|b| c.outputs(b, &[0.0f32; 3]))
        .collect();
    (c.clone(), c.items(), c.length(), c.cap(), answers)
}

fn from_slice_names_the_first_invalid_index<C: Bv>()
where
    C::Item: Cases,
{
    let mut rng = TestRng::named(1, C::NAME);
    for (bad, err) in C::Item::invalid() {
        assert!(!bad.valid(), "{bad:?} should be invalid");
        assert!(!C::item_is_valid(&bad), "{bad:?}: is_valid() says valid");
        for at in [0, 1, 15, 16, 17, 40] {
            let mut items: Vec<C::Item> = fillers(&mut rng, 45);
            items[at] = bad;
            items[at + 3] = bad; // a second invalid one: the first is named
            assert_eq!(
                C::from_items(&items).unwrap_err(),
                err(at),
                "{bad:?} at {at}"
            );
            assert_eq!(C::try_from_items(&items).unwrap_err(), err(at));
        }
    }
    for ok in C::Item::valid_edges() {
        assert!(ok.valid(), "{ok:?} should be valid");
        assert!(C::item_is_valid(&ok), "{ok:?}: is_valid() says invalid");
        let c = C::build(&[ok, ok]);
        assert_eq!(c.get_item(1), Some(ok));
    }
}

fn failed_calls_change_nothing<C: Bv>()
where
    C::Item: Cases,
    [f32; 3]: bvlanes::Query<C>,
{
    let mut rng = TestRng::named(2, C::NAME);
    let invalid = C::Item::invalid();
    for len in LENGTHS {
        // Primitives around the origin so the snapshot's point query has hits to lose.
        let items: Vec<C::Item> = (0..len)
            .map(|_| C::Item::around_origin(&mut rng, 1.0))
            .collect();
        let mut c = C::build(&items);
        let before = snapshot(&c);
        let (bad, err) = invalid[len % invalid.len()];

        // push: names the index the item would have had.
        assert_eq!(c.push_item(bad), Err(err(len)), "push {bad:?}");
        assert!(
            snapshot(&c) == before,
            "{}: push changed the container",
            C::NAME
        );

        // extend_from_slice: names the index in the slice; inserts none of it.
        let mut batch: Vec<C::Item> = fillers(&mut rng, 5);
        let j = len % 5;
        batch[j] = bad;
        assert_eq!(c.extend_items(&batch), Err(err(j)), "extend {bad:?}");
        assert!(
            snapshot(&c) == before,
            "{}: extend changed the container",
            C::NAME
        );

        // set: names the index being set.
        if len > 0 {
            let i = (len * 7) % len;
            assert_eq!(c.set_item(i, bad), Err(err(i)), "set {bad:?}");
            assert!(
                snapshot(&c) == before,
                "{}: set changed the container",
                C::NAME
            );
        }
        // set past the end.
        let good = C::Item::origin();
        assert_eq!(
            c.set_item(len, good),
            Err(BvError::IndexOutOfBounds { index: len, len })
        );
        assert_eq!(
            c.set_item(usize::MAX, good),
            Err(BvError::IndexOutOfBounds {
                index: usize::MAX,
                len
            })
        );
        assert!(c.set_item(len + 1, bad).is_err());
        assert!(
            snapshot(&c) == before,
            "{}: set past the end changed it",
            C::NAME
        );

        // And the container still works: a valid push lands at `len`.
        assert_eq!(c.push_item(good), Ok(len as u32));
        assert_eq!(c.length(), len + 1);
    }
}

macro_rules! container_error_tests {
    ($name:ident, $c:ty) => {
        mod $name {
            use super::*;

            #[test]
            fn from_slice_names_the_first_invalid_index() {
                super::from_slice_names_the_first_invalid_index::<$c>();
            }

            #[test]
            fn failed_calls_change_nothing() {
                super::failed_calls_change_nothing::<$c>();
            }

            #[test]
            fn validation_agrees_with_the_oracle() {
                let mut rng = TestRng::named(3, stringify!($name));
                let mut seen = [0usize; 2];
                for _ in 0..3000 {
                    let item = <$c as Bv>::Item::wild(&mut rng);
                    let ok = item.valid();
                    seen[usize::from(ok)] += 1;
                    assert_eq!(<$c as Bv>::item_is_valid(&item), ok, "{item:?}");
                    let mut c = <$c as Bv>::empty();
                    assert_eq!(c.push_item(item).is_ok(), ok, "{item:?}");
                }
                assert!(seen[0] > 100 && seen[1] > 100, "{seen:?}");
            }

            #[test]
            #[should_panic(expected = "swap_remove index 3 out of bounds (len 3)")]
            fn swap_remove_past_the_end_panics() {
                let mut rng = TestRng::new(4);
                let mut c = <$c as Bv>::build(&fillers(&mut rng, 3));
                let _ = c.swap_remove_item(3);
            }

            #[test]
            #[should_panic(expected = "swap_remove index 0 out of bounds (len 0)")]
            fn swap_remove_on_empty_panics() {
                let mut c = <$c as Bv>::empty();
                let _ = c.swap_remove_item(0);
            }

            #[test]
            #[should_panic(
                expected = "hit_mask: a container of 65 primitives needs 2 mask words, got 1"
            )]
            fn hit_mask_too_short_panics() {
                let mut rng = TestRng::new(5);
                let c = <$c as Bv>::build(&fillers(&mut rng, 65));
                let mut mask = [0u64; 1];
                c.hit_mask_on(None, &[0.0f32; 3], &mut mask);
            }
        }
    };
}

container_error_tests!(aabbs, Aabbs);
container_error_tests!(spheres, Spheres);
container_error_tests!(up_tets, UpTets);
container_error_tests!(down_tets, DownTets);
container_error_tests!(octahedra, Octahedra);

#[test]
fn negative_zero_radius_is_accepted_as_zero() {
    let s = Sphere::new([1.0, 2.0, 3.0], -0.0);
    assert!(s.is_valid());
    let mut c = Spheres::new();
    assert_eq!(c.push(s), Ok(0));
    assert_eq!(c.get(0).map(|s| s.radius), Some(0.0));
    assert_eq!(c.count_hits(&[1.0, 2.0, 3.0]), 1);
    assert_eq!(c.count_hits(&[1.0, 2.0, 3.0f32.next_up()]), 0);
    let c = Spheres::from_slice(&[Sphere::new([0.0; 3], 1.0), s]).expect("valid");
    assert_eq!(c.len(), 2);
    // The negative subnormal just below it is not accepted.
    assert_eq!(
        Spheres::from_slice(&[s, Sphere::new([0.0; 3], -B1)]).unwrap_err(),
        BvError::NegativeRadius { index: 1 }
    );
}

#[test]
fn radius_limit_is_two_to_the_62() {
    assert_eq!(Sphere::MAX_RADIUS, 2f32.powi(62));
    assert_eq!(Sphere::MAX_RADIUS, MAX_RADIUS);
    let mut c = Spheres::new();
    assert_eq!(c.push(Sphere::new([1.0; 3], Sphere::MAX_RADIUS)), Ok(0));
    assert_eq!(
        c.push(Sphere::new([1.0; 3], Sphere::MAX_RADIUS.next_up())),
        Err(BvError::RadiusTooLarge { index: 1 })
    );
    // Non-finite wins over too large (an infinite radius is not a number to compare).
    assert_eq!(
        c.push(Sphere::new([1.0; 3], f32::INFINITY)),
        Err(BvError::NonFinite { index: 1 })
    );
    assert_eq!(c.len(), 1);
    // As a query, any radius is fine.
    assert_eq!(c.count_hits(&Sphere::new([1e30; 3], f32::MAX)), 1);
}

#[test]
fn from_points_errors_name_the_point() {
    let none: [[f32; 3]; 0] = [];
    assert_eq!(Aabb::from_points(none).unwrap_err(), BvError::NoPoints);
    assert_eq!(
        Octahedron::from_points(none).unwrap_err(),
        BvError::NoPoints
    );
    assert_eq!(
        Aabb::from_points(Vec::<[f32; 3]>::new()).unwrap_err(),
        BvError::NoPoints
    );
    for &bad in &NON_FINITE {
        for at in [0, 1, 3] {
            for field in 0..3 {
                let mut pts = vec![[1.0f32, 2.0, 3.0]; 6];
                pts[at][field] = bad;
                pts[5] = [f32::NAN; 3]; // a later bad point: the first is named
                assert_eq!(
                    Aabb::from_points(pts.iter().copied()).unwrap_err(),
                    BvError::NonFinite { index: at }
                );
                assert_eq!(
                    Octahedron::from_points(pts).unwrap_err(),
                    BvError::NonFinite { index: at }
                );
            }
        }
    }
}

/// `BackendUnavailable` for every backend this CPU lacks. On this x86_64 machine with AVX2 all of
/// `Backend::ALL` is available, so the loop's error branch is vacuous here; on aarch64 (or an x86
/// CPU without AVX2/FMA) it checks `Avx2` for real.
#[test]
fn unavailable_backends_are_refused() {
    let c = Aabbs::from_slice(&[Aabb::new([0.0; 3], [1.0; 3])]).expect("valid");
    let available = Backend::available();
    assert!(available.starts_with(&[Backend::Scalar, Backend::Sse]));
    assert!(available.windows(2).all(|w| w[0] < w[1]), "slowest first");
    assert!(available.iter().all(|b| Backend::ALL.contains(b)));
    assert_eq!(Some(&Backend::best()), available.last());
    assert!(Backend::detect().is_available());
    for b in Backend::ALL {
        assert_eq!(b.is_available(), available.contains(&b));
        if b.is_available() {
            assert_eq!(b.check(), Ok(b));
            let p = c.with_backend(b).expect("available");
            assert_eq!(p.backend(), b);
            assert_eq!(p.count_hits(&[0.5f32; 3]), 1);
            assert!(Pinned::new(&c, b).is_ok());
        } else {
            let err = BvError::BackendUnavailable { backend: b };
            assert_eq!(b.check(), Err(err));
            assert_eq!(c.with_backend(b).unwrap_err(), err);
            assert_eq!(Pinned::new(&c, b).unwrap_err(), err);
            assert!(err.to_string().contains(b.name()));
        }
    }
}

#[test]
fn backend_names_parse_and_display() {
    for b in Backend::ALL {
        assert_eq!(b.to_string(), b.name());
        assert_eq!(b.name().parse::<Backend>(), Ok(b));
        assert_eq!(b.name().to_uppercase().parse::<Backend>(), Ok(b));
        assert_eq!(b.lanes(), [1, 4, 8, 16][b as usize]);
    }
    let err = "avx1024".parse::<Backend>().unwrap_err();
    assert_eq!(err, ParseBackendError("avx1024".to_string()));
    assert!(err.to_string().contains("avx1024"), "{err}");
    assert!(err.to_string().contains("avx512"), "{err}");
    let _: &dyn std::error::Error = &err;
}

#[test]
fn errors_display_and_implement_error() {
    let cases = [
        (BvError::NonFinite { index: 17 }, "17"),
        (BvError::Inverted { index: 18 }, "18"),
        (BvError::NegativeRadius { index: 19 }, "19"),
        (BvError::RadiusTooLarge { index: 22 }, "22"),
        (
            BvError::BackendUnavailable {
                backend: Backend::Avx2,
            },
            "avx2",
        ),
        (BvError::IndexOutOfBounds { index: 20, len: 21 }, "21"),
        (BvError::CapacityExceeded, "u32::MAX"),
        (BvError::NoPoints, "point"),
    ];
    let mut texts = Vec::new();
    for (e, needle) in cases {
        let text = e.to_string();
        assert!(text.contains(needle), "{e:?} displays as {text:?}");
        assert!(!format!("{e:?}").is_empty());
        let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(e);
        assert!(boxed.source().is_none());
        assert_eq!(boxed.to_string(), text);
        texts.push(text);
    }
    assert!(
        BvError::IndexOutOfBounds { index: 20, len: 21 }
            .to_string()
            .contains("20")
    );
    texts.sort();
    texts.dedup();
    assert_eq!(texts.len(), cases.len(), "every variant reads differently");
    // `?` into Box<dyn Error>.
    fn fallible() -> Result<(), Box<dyn std::error::Error>> {
        Aabbs::from_slice(&[Aabb::new([1.0; 3], [0.0; 3])])?;
        Ok(())
    }
    assert_eq!(
        fallible().unwrap_err().to_string(),
        BvError::Inverted { index: 0 }.to_string()
    );
}

#[test]
fn swap_remove_moves_the_last_into_the_hole() {
    let boxes: Vec<Aabb> = (0..40)
        .map(|i| Aabb::new([i as f32; 3], [i as f32 + 0.5; 3]))
        .collect();
    let mut c = Aabbs::from_slice(&boxes).expect("valid");
    let mut mirror = boxes.clone();
    // From the middle: the last takes the index.
    assert_eq!(c.swap_remove(5), boxes[5]);
    assert_eq!(c.get(5), Some(boxes[39]));
    assert_eq!(c.len(), 39);
    mirror.swap_remove(5);
    // The last one itself: no move.
    assert_eq!(c.swap_remove(38), boxes[38]);
    mirror.swap_remove(38);
    assert_eq!(c.iter().collect::<Vec<_>>(), mirror);
    // Queries follow the moves: box 39 (now at index 5) and box 5 (gone).
    for &b in Backend::available() {
        let p = c.with_backend(b).expect("available");
        assert_eq!(p.hits(&[39.25f32; 3]).collect::<Vec<_>>(), [5]);
        assert_eq!(p.count_hits(&[5.25f32; 3]), 0);
        assert_eq!(p.count_hits(&[38.25f32; 3]), 0);
    }
    // Down to empty, across chunk boundaries (32, 16).
    while !c.is_empty() {
        let i = c.len() / 2;
        assert_eq!(c.swap_remove(i), mirror.swap_remove(i));
        assert_eq!(c.iter().collect::<Vec<_>>(), mirror);
        assert_eq!(c, Aabbs::from_slice(&mirror).expect("valid"));
    }
    assert_eq!(c, Aabbs::new());
}

#[test]
fn hit_mask_too_short_panics_on_every_backend() {
    let mut rng = TestRng::new(6);
    for len in [1usize, 63, 64, 65, 128, 129] {
        let words = len.div_ceil(64);
        let c = Aabbs::build(&fillers(&mut rng, len));
        let message = format!(
            "hit_mask: a container of {len} primitives needs {words} mask words, got {}",
            words - 1
        );
        for backend in receivers() {
            // Even a query that hits nothing (NaN) checks the length first.
            for q in [[0.0f32; 3], [f32::NAN; 3]] {
                let mut mask = vec![0u64; words - 1];
                let result = catch_unwind(AssertUnwindSafe(|| {
                    c.hit_mask_on(backend, &q, &mut mask);
                }));
                let payload = result.expect_err("a too-short mask must panic");
                let text = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                assert_eq!(text, message, "{backend:?}");
            }
            // Exactly enough words is fine.
            let mut mask = vec![0u64; words];
            c.hit_mask_on(backend, &[0.0f32; 3], &mut mask);
        }
    }
    // An empty container needs no words at all.
    let empty = Aabbs::new();
    empty.hit_mask(&[0.0f32; 3], &mut []);
}
