//! `bvlanes::pairwise`: pair `i` answers exactly what querying a one-element container holding
//! `right[i]` with `left[i]` answers (that query is checked against the reference by the harness),
//! on every backend, every length 0..=67 and a few long ones, with random and adversarial data;
//! the outputs agree with each other; length mismatches are errors that change nothing.

use crate::common;

use bvlanes::pairwise::{self, Pairs, PairsOn};
use bvlanes::{Aabb, Aabbs, Backend, BvError, Container, Obb, Obbs, Octahedra, Octahedron};
use bvlanes::{Query, Sphere, Spheres};
use common::{Bv, Shape, TestRng};

/// Checks one pair of equal-length item lists on every backend against the one-element queries.
fn check<A, B>(left: &[A::Item], right: &[B::Item])
where
    A: Bv + Container + Pairs<B>,
    B: Bv + Container,
    A::Item: Query<B>,
{
    let (a, b) = (A::build(left), B::build(right));
    let expected: Vec<u32> = (0..left.len())
        .filter(|&i| {
            let single = B::build(&right[i..=i]);
            single.outputs(Some(Backend::Scalar), &left[i]).count == 1
        })
        .map(|i| i as u32)
        .collect();
    for &backend in Backend::available() {
        let on = PairsOn::new(backend).unwrap();
        assert_eq!(on.backend(), backend);
        assert_eq!(on.count_overlaps(&a, &b), Ok(expected.len()), "{backend}");
        let mut out = vec![7, 7];
        on.extend_overlaps(&a, &b, &mut out).unwrap();
        assert_eq!(out[..2], [7, 7], "{backend}: extend must append");
        assert_eq!(out[2..], expected[..], "{backend}: {} pairs", left.len());
        let words = left.len().div_ceil(64);
        let mut mask = vec![u64::MAX; words + 1];
        on.overlap_mask(&a, &b, &mut mask).unwrap();
        assert_eq!(
            mask[words],
            u64::MAX,
            "{backend}: words past the bitmap are untouched"
        );
        let from_mask: Vec<u32> = (0..left.len() as u32)
            .filter(|&i| mask[i as usize / 64] >> (i % 64) & 1 == 1)
            .collect();
        assert_eq!(from_mask, expected, "{backend}");
    }
    assert_eq!(pairwise::count_overlaps(&a, &b), Ok(expected.len()));
}

fn lists<T: Shape>(rng: &mut TestRng, len: usize, size: f32) -> Vec<T> {
    (0..len)
        .map(|_| {
            if rng.chance(0.1) {
                T::adversarial(rng)
            } else {
                T::random(rng, [0.0; 3], size)
            }
        })
        .collect()
}

macro_rules! pair_tests {
    ($name:ident, $a:ty, $b:ty) => {
        #[test]
        fn $name() {
            let mut rng = TestRng::new(0xBA1D);
            let lengths = (0..=67).chain([200, 1025]);
            for len in lengths {
                for size in [0.5, 3.0, 8.0] {
                    let left = lists::<<$a as Bv>::Item>(&mut rng, len, size);
                    let right = lists::<<$b as Bv>::Item>(&mut rng, len, size);
                    check::<$a, $b>(&left, &right);
                }
            }
        }
    };
}

pair_tests!(spheres_against_aabbs, Spheres, Aabbs);
pair_tests!(spheres_against_obbs, Spheres, Obbs);
pair_tests!(aabbs_against_aabbs, Aabbs, Aabbs);
pair_tests!(octahedra_against_octahedra, Octahedra, Octahedra);

#[test]
fn pairs_are_not_trivial() {
    // Touching pairs overlap; far ones do not.
    let s = Spheres::from_slice(&[Sphere::new([0.0; 3], 1.0), Sphere::new([0.0; 3], 1.0)]).unwrap();
    let b = Aabbs::from_slice(&[
        Aabb::new([1.0, 0.0, 0.0], [2.0, 1.0, 1.0]),
        Aabb::new([1.5, 0.0, 0.0], [2.0, 1.0, 1.0]),
    ])
    .unwrap();
    assert_eq!(pairwise::count_overlaps(&s, &b), Ok(1));
    let o = Obbs::from_slice(&[Obb::from_aabb(&Aabb::new([1.0, 0.0, 0.0], [2.0, 1.0, 1.0])); 2])
        .unwrap();
    assert_eq!(pairwise::count_overlaps(&s, &o), Ok(2));
    let oct =
        Octahedra::from_slice(&[Octahedron::from_aabb(&Aabb::new([0.0; 3], [1.0; 3]))]).unwrap();
    assert_eq!(pairwise::count_overlaps(&oct, &oct), Ok(1));
}

#[test]
fn length_mismatch_is_an_error_that_changes_nothing() {
    let s = Spheres::from_slice(&[Sphere::new([0.0; 3], 1.0)]).unwrap();
    let b = Aabbs::new();
    let err = BvError::LengthMismatch { left: 1, right: 0 };
    assert_eq!(pairwise::count_overlaps(&s, &b), Err(err));
    let mut out = vec![3];
    assert_eq!(pairwise::extend_overlaps(&s, &b, &mut out), Err(err));
    assert_eq!(out, [3]);
    let mut mask = [9u64];
    assert_eq!(pairwise::overlap_mask(&s, &b, &mut mask), Err(err));
    assert_eq!(mask, [9]);
    assert!(err.to_string().contains("1 and 0"), "{err}");
}

#[test]
#[should_panic(expected = "mask words")]
fn a_short_mask_panics() {
    let a = Aabbs::from_slice(&[Aabb::new([0.0; 3], [1.0; 3]); 65]).unwrap();
    let _ = pairwise::overlap_mask(&a, &a, &mut [0u64; 1]);
}
