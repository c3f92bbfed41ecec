//! The code around the crate's `unsafe` blocks, at sizes Miri runs (issue 7, "Miri"): the index
//! writers that store into a `Vec`'s spare capacity before `set_len` (every tier, every hit
//! density, across the 1,024-lane output window, after prefixes that leave odd spare
//! capacity), the AVX2 entry points when the tier is available (under Miri: when the build
//! enables `avx2,fma,popcnt`), the broadphase batch entry point, and the batched queries (issue
//! 20: `count_hits_many`, `hits_many_into`, `for_each_hit_many`, on one tile and just past one,
//! into a reused `HitLists`), and a blocked container's hit writer (whole nodes and chunks
//! through its order table, into spare capacity). Answers are compared with the scalar tier, whose code is safe, or
//! with the one-query methods.

use crate::common;

use bvlanes::broadphase::{Partition, Sweep};
use bvlanes::{
    Aabb, Aabbs, Backend, BlockQuery, Blocked, HitLists, Octahedra, Octahedron, Query, Sphere,
    Spheres, pairwise,
};
use common::*;

/// Lengths around the chunk (16) and output window (1,024) boundaries; Miri runs fewer.
const LENS: &[usize] = if cfg!(miri) {
    &[0, 17, 1025]
} else {
    &[0, 1, 15, 16, 17, 31, 1023, 1024, 1025, 2049, 4100]
};

/// Boxes along x, `[i, i + 0.5]`: a query box `[lo, hi]` hits a contiguous run of them, and a
/// sphere hits a run too; densities from none to all.
fn boxes(len: usize) -> Aabbs {
    let items: Vec<Aabb> = (0..len)
        .map(|i| Aabb::new([i as f32, 0.0, 0.0], [i as f32 + 0.5, 1.0, 1.0]))
        .collect();
    Aabbs::from_slice(&items).expect("valid")
}

/// Queries hitting nothing, one box, every other box (a comb: half of each chunk), a run, and
/// everything.
fn queries(len: usize) -> Vec<Aabb> {
    let n = len as f32;
    vec![
        Aabb::new([-5.0, 0.0, 0.0], [-1.0, 1.0, 1.0]),
        Aabb::new([3.0, 0.0, 0.0], [3.2, 1.0, 1.0]),
        Aabb::new([n / 3.0, 0.0, 0.0], [n / 2.0 + 7.0, 1.0, 1.0]),
        Aabb::new([-1.0, 0.0, 0.0], [n + 1.0, 1.0, 1.0]),
    ]
}

/// Sphere queries over the same boxes: nothing, one box, a run, everything. The sphere kernel's
/// index writer is the software-pipelined one on the 8- and 16-lane tiers
/// (`Kernel::PIPELINE_OUTPUT`), so these reach its stores too.
fn sphere_queries(len: usize) -> Vec<Sphere> {
    let n = len as f32;
    vec![
        Sphere::new([-5.0, 0.5, 0.5], 1.0),
        Sphere::new([3.1, 0.5, 0.5], 0.1),
        Sphere::new([n / 2.0, 0.5, 0.5], n / 6.0 + 1.0),
        Sphere::new([n / 2.0, 0.5, 0.5], n + 2.0),
    ]
}

/// `extend(out)` (an `extend_hits` on one backend) into fresh vectors, after prefixes and with
/// spare capacity of every residue: it must append `want` and leave the prefix alone.
fn check_prefixes(what: &str, want: &[u32], extend: impl Fn(&mut Vec<u32>)) {
    // Fresh, with a prefix, and with spare capacity of every residue.
    let variants: &[(usize, usize)] = if cfg!(miri) {
        &[(0, 0), (7, 17)]
    } else {
        &[(0, 0), (3, 0), (1, 5), (7, 17), (2, 1000)]
    };
    for &(prefix, spare) in variants {
        let mut out: Vec<u32> = Vec::with_capacity(prefix + spare);
        out.extend((0..prefix as u32).map(|i| u32::MAX - i));
        extend(&mut out);
        assert_eq!(out.len(), prefix + want.len(), "{what}");
        assert_eq!(out[prefix..], want[..], "{what}");
        assert!(out[..prefix].iter().all(|&i| i > u32::MAX - 10));
    }
}

/// The hits of `q` on the scalar tier (safe code).
fn scalar_hits<Q: Query<Aabbs>>(c: &Aabbs, q: &Q) -> Vec<u32> {
    c.with_backend(Backend::Scalar)
        .expect("scalar")
        .hits(q)
        .collect()
}

/// `extend_hits` of `q` after prefixes and with spare capacity ([`check_prefixes`]) on every
/// backend, against the scalar tier; `hits` and `count_hits` too.
fn check_extend<Q: Query<Aabbs> + core::fmt::Debug>(c: &Aabbs, len: usize, q: &Q) {
    let want = scalar_hits(c, q);
    for &b in Backend::available() {
        let p = c.with_backend(b).expect("available");
        check_prefixes(&format!("{b:?} len {len} {q:?}"), &want, |out| {
            p.extend_hits(q, out)
        });
        assert_eq!(p.hits(q).collect::<Vec<_>>(), want);
        assert_eq!(p.count_hits(q), want.len());
    }
}

/// [`check_extend`] on a blocked container, against the flat container's scalar tier.
fn check_extend_blocked<Q>(c: &Aabbs, blocked: &Blocked<Aabbs>, len: usize, q: &Q)
where
    Q: Query<Aabbs> + BlockQuery<Aabbs> + core::fmt::Debug,
{
    let want = scalar_hits(c, q);
    for &b in Backend::available() {
        let p = blocked.with_backend(b).expect("available");
        check_prefixes(&format!("blocked {b:?} len {len} {q:?}"), &want, |out| {
            p.extend_hits(q, out)
        });
    }
}

#[test]
fn index_writers_fill_spare_capacity_exactly() {
    for &len in LENS {
        let c = boxes(len);
        for q in queries(len) {
            check_extend(&c, len, &q);
        }
        for q in sphere_queries(len) {
            check_extend(&c, len, &q);
        }
        // A blocked container's walk writes whole nodes and chunks through its order table into
        // the same kind of spare capacity, making room as it goes.
        let blocked = Blocked::new(&c);
        for q in queries(len) {
            check_extend_blocked(&c, &blocked, len, &q);
        }
        for q in sphere_queries(len) {
            check_extend_blocked(&c, &blocked, len, &q);
        }
    }
}

#[test]
fn sphere_and_octahedron_kernels_agree_with_scalar() {
    let mut rng = TestRng::new(11);
    for &len in LENS.iter().filter(|&&l| l <= 1025) {
        let spheres: Vec<Sphere> = (0..len)
            .map(|_| Sphere::random(&mut rng, [0.0; 3], 3.0))
            .collect();
        let octs: Vec<Octahedron> = (0..len)
            .map(|_| Octahedron::random(&mut rng, [0.0; 3], 3.0))
            .collect();
        let (spheres, octs) = (
            Spheres::from_slice(&spheres).expect("valid"),
            Octahedra::from_slice(&octs).expect("valid"),
        );
        let boxes = boxes(len);
        for size in [0.5, 4.0, 40.0] {
            let s = Sphere::random(&mut rng, [0.0; 3], size);
            let o = Octahedron::random(&mut rng, [0.0; 3], size);
            let scalar = |b: Backend| {
                (
                    spheres
                        .with_backend(b)
                        .expect("ok")
                        .hits(&s)
                        .collect::<Vec<_>>(),
                    boxes
                        .with_backend(b)
                        .expect("ok")
                        .hits(&s)
                        .collect::<Vec<_>>(),
                    octs.with_backend(b)
                        .expect("ok")
                        .hits(&o)
                        .collect::<Vec<_>>(),
                )
            };
            let want = scalar(Backend::Scalar);
            for &b in Backend::available() {
                assert_eq!(scalar(b), want, "{b:?} len {len} size {size}");
            }
        }
    }
}

#[test]
fn pairwise_and_broadphase_agree_with_scalar() {
    let mut rng = TestRng::new(12);
    for &len in LENS.iter().filter(|&&l| l <= 1025) {
        let spheres: Vec<Sphere> = (0..len)
            .map(|_| Sphere::random(&mut rng, [0.0; 3], 2.0))
            .collect();
        let spheres = Spheres::from_slice(&spheres).expect("valid");
        let boxes = boxes(len);
        let want_pairs = pairwise::PairsOn::new(Backend::Scalar).expect("scalar");
        let mut want = Vec::new();
        want_pairs
            .extend_overlaps(&spheres, &boxes, &mut want)
            .expect("same length");
        // The broadphase on a short prefix (its pair count grows quadratically; under Miri a
        // sweep's radix sort costs seconds whatever the length).
        let few_len = if cfg!(miri) {
            len.min(17)
        } else {
            len.min(200)
        };
        let few: Vec<Aabb> = (0..few_len)
            .map(|_| Aabb::random(&mut rng, [0.0; 3], 3.0))
            .collect();
        let few = Aabbs::from_slice(&few).expect("valid");
        let sweep = |b| {
            Sweep::new()
                .with_backend(b)
                .expect("available")
                .with_threads(1)
        };
        let want_sweep = sweep(Backend::Scalar).complete_pairs(&few);
        for &b in Backend::available() {
            let on = pairwise::PairsOn::new(b).expect("available");
            let mut got = vec![5, 6];
            on.extend_overlaps(&spheres, &boxes, &mut got)
                .expect("same length");
            assert_eq!(got[2..], want[..], "{b:?} len {len}");
            assert_eq!(sweep(b).complete_pairs(&few), want_sweep, "{b:?} len {len}");
            // Partitioned: the branch-free hit writer (`Lanes::write_indices`) runs there.
            let grid = sweep(b).with_partition(Partition::Grid([2, 2]));
            assert_eq!(
                grid.complete_pairs(&few),
                want_sweep,
                "{b:?} len {len}, grid"
            );
        }
    }
}

/// Primitives per tile of the batched walk (`TILE_CHUNKS` chunks of 16 in `src/query/many.rs`).
const TILE: usize = 16_384;

/// One batch against the scalar tier's one-query `hits` (ascending, counted by `count_hits`), on
/// every available tier: `count_hits_many`, `hits_many_into` (into `lists`, which holds another
/// batch's lists and then garbage in its public fields) and `for_each_hit_many`.
fn check_batch<Q: Query<Aabbs> + core::fmt::Debug>(c: &Aabbs, qs: &[Q], lists: &mut HitLists) {
    let scalar = c.with_backend(Backend::Scalar).expect("scalar");
    let mut offsets = vec![0];
    let mut indices = Vec::new();
    let mut pairs = Vec::new();
    for (k, q) in qs.iter().enumerate() {
        let before = indices.len();
        scalar.extend_hits(q, &mut indices);
        pairs.extend(indices[before..].iter().map(|&i| (k as u32, i)));
        offsets.push(indices.len() as u32);
    }
    let counts: Vec<u32> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
    for &b in Backend::available() {
        let p = c.with_backend(b).expect("available");
        let what = format!("{b:?} len {} batch {qs:?}", c.len());
        assert_eq!(p.count_hits_many(qs), counts, "{what}: count_hits_many");
        lists.offsets.extend([9, 2]);
        lists.indices.push(u32::MAX);
        p.hits_many_into(qs, lists);
        assert!(lists.offsets == offsets, "{what}: hits_many_into offsets");
        assert!(lists.indices == indices, "{what}: hits_many_into indices");
        let mut seen = Vec::new();
        p.for_each_hit_many(qs, |q, i| seen.push((q, i)));
        assert!(seen == pairs, "{what}: for_each_hit_many");
    }
}

/// The batched queries on every available tier (under Miri: scalar and SSE, and AVX2 when the
/// build enables it) against the one-query answers, on containers of one tile and of just past
/// one tile (the multi-tile path, whose hits go through the `HitLists`' scratch and are gathered
/// per query), with one `HitLists` reused throughout (the lists of the other tiers, of the other
/// containers, and garbage in its public fields): batches with a NaN query, a query across the
/// tile boundary, box and sphere queries, and the empty batch. The boxes are those of `boxes`, so
/// a query's hits are a run of indices. Under Miri the multi-tile container gets four box queries
/// only (each pass over it costs seconds there).
#[test]
fn batched_queries_agree_with_one_query_methods() {
    let lens: &[usize] = if cfg!(miri) {
        &[17, TILE + 17, 0]
    } else {
        &[17, TILE + 17, 0, 1025, TILE, TILE + 1, 2 * TILE + 33]
    };
    let t = TILE as f32;
    let nan = Aabb::new([f32::NAN, 0.0, 0.0], [t, 1.0, 1.0]);
    let across = Aabb::new([t - 2.0, 0.0, 0.0], [t + 1.0, 1.0, 1.0]);
    let mut lists = HitLists::default();
    for &len in lens {
        let c = boxes(len);
        if len > TILE {
            // Hits in the first tile, across the boundary, in the last tile only; a NaN query.
            let n = len as f32;
            let second = Aabb::new([n - 2.0, 0.0, 0.0], [n - 1.0, 1.0, 1.0]);
            let qs = [queries(len)[1], across, nan, second];
            check_batch(&c, &qs, &mut lists);
            assert!(lists.query(1).contains(&(TILE as u32)) && !lists.query(3).is_empty());
            if cfg!(miri) {
                continue;
            }
        }
        let mut qs = queries(len);
        qs.insert(1, nan);
        qs.push(across);
        check_batch(&c, &qs, &mut lists);
        check_batch(&c, &qs[..2], &mut lists);
        let spheres = [
            Sphere::new([t, 0.5, 0.5], 2.0),
            Sphere::new([2.0, 0.5, f32::INFINITY], 1.0),
            Sphere::new([5.0, 0.5, 0.5], 3.0),
        ];
        check_batch(&c, &spheres, &mut lists);
        check_batch::<Aabb>(&c, &[], &mut lists);
        assert_eq!(lists.offsets, [0]);
    }
}
