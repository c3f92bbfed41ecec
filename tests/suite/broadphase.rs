//! `bvlanes::broadphase` (sort-and-sweep pair finding) against the brute force it is defined by:
//! every pair of boxes tested with the closed-overlap predicate in plain f32 comparisons.
//!
//! For every scene, on every available backend and thread counts 1, 2, 3 and 8, with no partition
//! and with fixed grids across the other two axes (and the default `Sweep::new()` and the free
//! functions): the pairs, as a set, are the brute force's (so no pair
//! is missed, invented or reported twice); `complete_pairs` reports `(i, j)` with `i < j`; the
//! `Vec` is identical for every backend and thread count; the callback forms yield the same
//! sequence as the `Vec` forms. Scenes: Terdiman's distribution scaled down, uniform float boxes,
//! unit boxes on an integer lattice (faces, edges and corners shared exactly), and adversarial
//! constructions (touching, identical boxes, points, ties in min x, signed zeros, huge and
//! subnormal magnitudes).

use crate::common;
use crate::sweep_order;

use bvlanes::broadphase::{self, CollisionFilter, Filtered, Partition, Sweep, SweepAxis};
use bvlanes::{Aabb, Aabbs, Backend, BvError};
use common::TestRng;
use sweep_order::assert_sweep_order;

type Pair = (u32, u32);

/// Thread counts every scene runs with (0 and 1 both mean "the calling thread only").
const THREADS: [usize; 4] = [1, 2, 3, 8];

/// The long scene lengths after 0..=67. In the debug profile (where the brute force and the
/// unoptimised sweep are slow) dense scenes stop at 1000, sparse ones at 3000.
fn long_lengths(dense: bool) -> &'static [usize] {
    match (cfg!(debug_assertions), dense) {
        (true, true) => &[200, 1000],
        (true, false) => &[200, 1000, 3000],
        (false, _) => &[200, 1000, 3000, 6000],
    }
}

// =================================================================================================
// The reference
// =================================================================================================

/// Closed boxes overlap iff their intervals overlap on every axis (touching counts). (Spelled out
/// axis by axis: the brute force runs in the debug profile, where iterator adaptors are slow.)
fn overlap(a: &Aabb, b: &Aabb) -> bool {
    a.min[0] <= b.max[0]
        && b.min[0] <= a.max[0]
        && a.min[1] <= b.max[1]
        && b.min[1] <= a.max[1]
        && a.min[2] <= b.max[2]
        && b.min[2] <= a.max[2]
}

/// Every `(i, j)`, `i < j`, of overlapping boxes, in lexicographic order.
#[allow(clippy::needless_range_loop)]
fn brute_complete(items: &[Aabb]) -> Vec<Pair> {
    let mut out = Vec::new();
    for i in 0..items.len() {
        for j in i + 1..items.len() {
            if overlap(&items[i], &items[j]) {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

/// Every `(i, j)`, `i` in `a`, `j` in `b`, of overlapping boxes, in lexicographic order.
#[allow(clippy::needless_range_loop)]
fn brute_bipartite(a: &[Aabb], b: &[Aabb]) -> Vec<Pair> {
    let mut out = Vec::new();
    for i in 0..a.len() {
        for j in 0..b.len() {
            if overlap(&a[i], &b[j]) {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

/// `pairs`, sorted (for comparing sets).
fn sorted(pairs: &[Pair]) -> Vec<Pair> {
    let mut v = pairs.to_vec();
    v.sort_unstable();
    v
}

// =================================================================================================
// The harness
// =================================================================================================

/// Every configuration a scene runs with: each available backend with each thread count, then
/// `Sweep::new()` (detected backend, all threads).
fn sweeps() -> Vec<(String, Sweep)> {
    let mut out = Vec::new();
    for &b in Backend::available() {
        for t in THREADS {
            let s = Sweep::new()
                .with_backend(b)
                .unwrap_or_else(|e| panic!("Sweep::with_backend({b}) on an available backend: {e}"))
                .with_threads(t);
            out.push((format!("{b}, {t} threads"), s));
        }
    }
    // The partition across the other two axes: none, and fixed grids (coarse, uneven, the
    // finest), on every backend, one thread and three (the automatic choice partitions only
    // scenes of 512 boxes or more).
    for &b in Backend::available() {
        for (t, p) in [
            (1, Partition::None),
            (1, Partition::Grid([2, 3])),
            (1, Partition::Grid([7, 7])),
            (3, Partition::Grid([5, 1])),
            (1, Partition::Grid([64, 64])),
        ] {
            let s = Sweep::new()
                .with_backend(b)
                .unwrap_or_else(|e| panic!("Sweep::with_backend({b}) on an available backend: {e}"))
                .with_threads(t)
                .with_partition(p);
            out.push((format!("{b}, {t} threads, {p:?}"), s));
        }
    }
    out.push(("Sweep::new()".to_string(), Sweep::new()));
    out
}

fn boxes_of(items: &[Aabb]) -> Aabbs {
    let c = Aabbs::from_slice(items)
        .unwrap_or_else(|e| panic!("Aabbs::from_slice rejected test data: {e}"));
    assert_eq!(c.len(), items.len());
    c
}

/// Asserts that `got`, as a set without duplicates, is `want` (sorted, duplicate-free), with a
/// message naming the missing, extra and duplicated pairs and their boxes.
fn check_set(what: &str, on: &str, got: &[Pair], want: &[Pair], a: &[Aabb], b: &[Aabb]) {
    let mut sorted = got.to_vec();
    sorted.sort_unstable();
    if sorted == want {
        return;
    }
    let mut dups: Vec<Pair> = sorted
        .windows(2)
        .filter(|w| w[0] == w[1])
        .map(|w| w[0])
        .collect();
    dups.dedup();
    sorted.dedup();
    let missing: Vec<Pair> = want
        .iter()
        .filter(|p| sorted.binary_search(p).is_err())
        .copied()
        .collect();
    let extra: Vec<Pair> = sorted
        .iter()
        .filter(|p| want.binary_search(p).is_err())
        .copied()
        .collect();
    let show = |p: &Pair| {
        format!(
            "\n    {p:?}: {:?} / {:?}",
            a.get(p.0 as usize),
            b.get(p.1 as usize)
        )
    };
    let mut msg = format!(
        "{what} on {on}: {} pairs reported, {} expected ({} boxes / {} boxes); {} missing, {} \
         extra, {} duplicated",
        got.len(),
        want.len(),
        a.len(),
        b.len(),
        missing.len(),
        extra.len(),
        dups.len()
    );
    if !missing.is_empty() {
        msg += "\n  missing:";
        missing.iter().take(6).for_each(|p| msg += &show(p));
    }
    if !extra.is_empty() {
        msg += "\n  extra:";
        extra.iter().take(6).for_each(|p| msg += &show(p));
    }
    if !dups.is_empty() {
        msg += "\n  duplicated:";
        dups.iter().take(6).for_each(|p| msg += &show(p));
    }
    panic!("{msg}");
}

/// Asserts `got == reference` (the same `Vec`, order included), naming the first difference.
fn check_same_vec(what: &str, on: &str, first_on: &str, got: &[Pair], reference: &[Pair]) {
    if got == reference {
        return;
    }
    let at = got
        .iter()
        .zip(reference)
        .position(|(x, y)| x != y)
        .unwrap_or(got.len().min(reference.len()));
    panic!(
        "{what}: the order on {on} differs from {first_on}: lengths {} vs {}, first difference at \
         position {at}: {:?} vs {:?}",
        got.len(),
        reference.len(),
        got.get(at),
        reference.get(at)
    );
}

/// Checks `complete_pairs` of `items` on every configuration against `want` (the brute force);
/// returns the (common) `Vec`.
fn check_complete_against(what: &str, items: &[Aabb], want: &[Pair]) -> Vec<Pair> {
    let boxes = boxes_of(items);
    let mut reference: Option<(String, Vec<Pair>)> = None;
    for (on, sweep) in sweeps() {
        let got = sweep.complete_pairs(&boxes);
        if let Some(&(i, j)) = got.iter().find(|(i, j)| i >= j) {
            panic!(
                "{what} on {on}: pair ({i}, {j}) is not (smaller, larger): {:?} / {:?}",
                items.get(i as usize),
                items.get(j as usize)
            );
        }
        check_set(what, &on, &got, want, items, items);
        let mut each = Vec::new();
        sweep.for_each_complete_pair(&boxes, |i, j| each.push((i, j)));
        check_same_vec(
            what,
            &format!("{on} (for_each_complete_pair)"),
            &format!("{on} (complete_pairs)"),
            &each,
            &got,
        );
        // Into a vector holding something already (cleared first).
        let mut into = vec![(7, 7); 3];
        sweep.complete_pairs_into(&boxes, &mut into);
        check_same_vec(
            what,
            &format!("{on} (complete_pairs_into)"),
            &format!("{on} (complete_pairs)"),
            &into,
            &got,
        );
        match &reference {
            Some((first_on, r)) => check_same_vec(what, &on, first_on, &got, r),
            None => reference = Some((on, got)),
        }
    }
    let (first_on, r) = reference.expect("at least one backend");
    let free = broadphase::complete_pairs(&boxes);
    check_same_vec(what, "broadphase::complete_pairs", &first_on, &free, &r);
    r
}

/// Checks `bipartite_pairs(a, b)` on every configuration; returns the (common) `Vec`.
fn check_bipartite(what: &str, a: &[Aabb], b: &[Aabb]) -> Vec<Pair> {
    check_bipartite_against(what, a, b, &brute_bipartite(a, b))
}

/// [`check_bipartite`] with the brute force's answer already computed.
fn check_bipartite_against(what: &str, a: &[Aabb], b: &[Aabb], want: &[Pair]) -> Vec<Pair> {
    let (ca, cb) = (boxes_of(a), boxes_of(b));
    let mut reference: Option<(String, Vec<Pair>)> = None;
    for (on, sweep) in sweeps() {
        let got = sweep.bipartite_pairs(&ca, &cb);
        check_set(what, &on, &got, want, a, b);
        let mut each = Vec::new();
        sweep.for_each_bipartite_pair(&ca, &cb, |i, j| each.push((i, j)));
        check_same_vec(
            what,
            &format!("{on} (for_each_bipartite_pair)"),
            &format!("{on} (bipartite_pairs)"),
            &each,
            &got,
        );
        match &reference {
            Some((first_on, r)) => check_same_vec(what, &on, first_on, &got, r),
            None => reference = Some((on, got)),
        }
    }
    let (first_on, r) = reference.expect("at least one backend");
    let free = broadphase::bipartite_pairs(&ca, &cb);
    check_same_vec(what, "broadphase::bipartite_pairs", &first_on, &free, &r);
    r
}

/// The bipartite checks of `items` against a separate container holding the same boxes: the
/// pairs are the complete pairs both ways round plus every `(i, i)` (box `i` of A overlaps box `i`
/// of B).
fn check_self_bipartite(what: &str, items: &[Aabb], complete: &[Pair]) {
    let want = sorted(
        &complete
            .iter()
            .flat_map(|&(i, j)| [(i, j), (j, i)])
            .chain((0..items.len() as u32).map(|i| (i, i)))
            .collect::<Vec<Pair>>(),
    );
    // Two separate containers built from the same boxes.
    let pairs = check_bipartite_against(&format!("{what}, A == B"), items, items, &want);
    let set = sorted(&pairs);
    for i in 0..items.len() as u32 {
        assert!(
            set.binary_search(&(i, i)).is_ok(),
            "{what}, A == B: ({i}, {i}) missing"
        );
    }
}

/// Every check of one scene: complete pairs, and bipartite against a copy of itself.
fn check_scene(what: &str, items: &[Aabb]) -> Vec<Pair> {
    let want = brute_complete(items);
    let pairs = check_complete_against(what, items, &want);
    check_self_bipartite(what, items, &want);
    pairs
}

// =================================================================================================
// Scenes
// =================================================================================================

/// Terdiman's benchmark distribution scaled down: integer centres uniform in `[-2048, 2047]^3`,
/// integer half-extents in `0..=127`, each coordinate multiplied by `scale` (a power of two keeps
/// every coordinate exact and the pairs the same).
fn terdiman(rng: &mut TestRng, n: usize, scale: f32) -> Vec<Aabb> {
    (0..n)
        .map(|_| {
            let c = [0; 3].map(|_| rng.below(4096) as i32 - 2048);
            let h = [0; 3].map(|_| rng.below(128) as i32);
            Aabb::new(
                [0, 1, 2].map(|k| (c[k] - h[k]) as f32 * scale),
                [0, 1, 2].map(|k| (c[k] + h[k]) as f32 * scale),
            )
        })
        .collect()
}

/// Uniform float boxes: corners in `[-100, 100)^3`, extents in `[0, size)` (a tenth of them
/// points or flat on one axis).
fn uniform(rng: &mut TestRng, n: usize, size: f32) -> Vec<Aabb> {
    (0..n)
        .map(|_| {
            let min = [0; 3].map(|_| rng.sym(100.0));
            let flat = if rng.chance(0.1) { rng.below(4) } else { 3 };
            let max = [0, 1, 2].map(|k| {
                if flat == k || flat == 3 && rng.chance(0.02) {
                    min[k]
                } else {
                    min[k] + rng.range(0.0, size)
                }
            });
            Aabb::new(min, max)
        })
        .collect()
}

/// A clustered scene: boxes with integer corners on a few `z` planes of an integer lattice, in
/// shuffled index order. Most are unit cubes (neighbours share faces, edges and corners exactly);
/// some are 2 long on one axis (overlapping their neighbours) or flat (zero thickness).
fn lattice(rng: &mut TestRng, n: usize) -> Vec<Aabb> {
    let side = ((n as f64 / 3.0).sqrt().ceil() as i32).max(1);
    let planes = [0, 1, 5];
    let mut cells = Vec::new();
    for &z in &planes {
        for y in 0..side {
            for x in 0..side {
                cells.push([x, y, z]);
            }
        }
    }
    // Fisher-Yates, so the index order is unrelated to the sweep order.
    for i in (1..cells.len()).rev() {
        let j = rng.below(i + 1);
        cells.swap(i, j);
    }
    cells
        .into_iter()
        .take(n)
        .map(|c| {
            let mut size = [1; 3];
            match rng.below(10) {
                0 => size[rng.below(3)] = 2,
                1 => size[rng.below(3)] = 0,
                _ => {}
            }
            Aabb::new(
                c.map(|v| v as f32),
                [0, 1, 2].map(|k| (c[k] + size[k]) as f32),
            )
        })
        .collect()
}

// =================================================================================================
// Random scenes
// =================================================================================================

/// A random collision filter's bit set: mostly one or two of four group bits, sometimes none,
/// all, or a pattern that is a NaN, an infinity or a negative zero as an `f32` (the sweep carries
/// filters in float lanes).
fn random_bits(rng: &mut TestRng) -> u32 {
    match rng.below(12) {
        0 => 0,
        1 => u32::MAX,
        2 => 0x7fc0_0000,
        3 => 0xff80_0001,
        4 => 0x8000_0000,
        5 => 0xff80_0000,
        _ => 1 << rng.below(4) | 1 << rng.below(4),
    }
}

fn random_filters(rng: &mut TestRng, n: usize) -> Vec<CollisionFilter> {
    (0..n)
        .map(|_| CollisionFilter::new(random_bits(rng), random_bits(rng)))
        .collect()
}

#[test]
fn collision_filters_remove_exactly_the_rejected_pairs() {
    let mut rng = TestRng::named(11, "filters");
    let mut kept = 0;
    for n in (0..=67).chain(long_lengths(false).iter().copied()) {
        let items = terdiman(&mut rng, n, 1.0);
        let filters = random_filters(&mut rng, n);
        let boxes = boxes_of(&items);
        let set = Filtered::new(&boxes, &filters).expect("one filter per box");
        let allowed = |&(i, j): &Pair| filters[i as usize].accepts(&filters[j as usize]);
        let want: Vec<Pair> = brute_complete(&items).into_iter().filter(allowed).collect();
        kept += want.len();
        // The unfiltered sweep's order with the rejected pairs left out.
        let order: Vec<Pair> = Sweep::new()
            .complete_pairs(&boxes)
            .into_iter()
            .filter(allowed)
            .collect();
        let what = format!("filtered terdiman, n = {n}");
        for (on, sweep) in sweeps() {
            let got = sweep.complete_pairs(&set);
            check_set(&what, &on, &got, &want, &items, &items);
            check_same_vec(&what, &on, "the unfiltered order", &got, &order);
            let mut each = Vec::new();
            sweep.for_each_complete_pair(&set, |i, j| each.push((i, j)));
            check_same_vec(&what, &format!("{on} (for_each)"), &on, &each, &got);
        }
        // Bipartite, both sides filtered: a large other side (swept) and a small one (at most
        // 128 elements: one batch of queries, the filters applied to its pairs).
        for k in [n, n.min(50)] {
            let other = terdiman(&mut rng, k, 1.0);
            let other_filters = random_filters(&mut rng, k);
            let other_boxes = boxes_of(&other);
            let b = Filtered::new(&other_boxes, &other_filters).expect("one filter per box");
            let want: Vec<Pair> = brute_bipartite(&items, &other)
                .into_iter()
                .filter(|&(i, j)| filters[i as usize].accepts(&other_filters[j as usize]))
                .collect();
            let order: Vec<Pair> = Sweep::new()
                .bipartite_pairs(&boxes, &other_boxes)
                .into_iter()
                .filter(|&(i, j)| filters[i as usize].accepts(&other_filters[j as usize]))
                .collect();
            for (on, sweep) in sweeps() {
                let got = sweep.bipartite_pairs(&set, &b);
                check_set(
                    &format!("{what}, bipartite k {k}"),
                    &on,
                    &got,
                    &want,
                    &items,
                    &other,
                );
                check_same_vec(&what, &on, "the unfiltered order", &got, &order);
            }
        }
    }
    assert!(
        kept > 100,
        "the filtered scenes are not trivial: {kept} pairs"
    );
}

/// `try_for_each_*` stopped after `k` calls has seen exactly the first `k` pairs of the `Vec`
/// form, on every configuration; `try_complete_pairs` returns the pairs up to its limit and the
/// limit error one below.
#[test]
fn early_stops_and_bounded_output() {
    use core::ops::ControlFlow;
    let mut rng = TestRng::named(12, "early stops");
    for n in [0, 1, 17, 200, 3000] {
        let items = terdiman(&mut rng, n, 1.0);
        let other = terdiman(&mut rng, n / 2 + 1, 1.0);
        let (boxes, other_boxes) = (boxes_of(&items), boxes_of(&other));
        let all = Sweep::new().complete_pairs(&boxes);
        let all_bi = Sweep::new().bipartite_pairs(&boxes, &other_boxes);
        for (on, sweep) in sweeps() {
            for k in [1, 2, all.len() / 2, all.len()] {
                let mut seen = Vec::new();
                let flow = sweep.try_for_each_complete_pair(&boxes, |i, j| {
                    seen.push((i, j));
                    if seen.len() == k {
                        ControlFlow::Break(seen.len())
                    } else {
                        ControlFlow::Continue(())
                    }
                });
                let what = format!("n {n}, stop at {k}");
                if k <= all.len() && k > 0 {
                    assert_eq!(flow, ControlFlow::Break(k), "{what} on {on}");
                    check_same_vec(&what, &on, "complete_pairs", &seen, &all[..k]);
                } else {
                    assert_eq!(flow, ControlFlow::Continue(()), "{what} on {on}");
                    check_same_vec(&what, &on, "complete_pairs", &seen, &all);
                }
            }
            for k in [1, all_bi.len().div_ceil(2)] {
                let mut seen = Vec::new();
                let flow = sweep.try_for_each_bipartite_pair(&boxes, &other_boxes, |i, j| {
                    seen.push((i, j));
                    if seen.len() == k {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                });
                let want = &all_bi[..k.min(all_bi.len())];
                assert_eq!(flow.is_break(), k <= all_bi.len() && k > 0, "n {n} on {on}");
                check_same_vec(
                    &format!("bipartite n {n}, k {k}"),
                    &on,
                    "bipartite_pairs",
                    &seen,
                    want,
                );
            }
            assert_eq!(
                sweep.try_complete_pairs(&boxes, all.len()).as_deref(),
                Ok(&all[..])
            );
            assert_eq!(
                sweep.try_complete_pairs(&boxes, usize::MAX).as_deref(),
                Ok(&all[..])
            );
            if let Some(limit) = all.len().checked_sub(1) {
                assert_eq!(
                    sweep.try_complete_pairs(&boxes, limit),
                    Err(BvError::TooManyPairs { limit }),
                    "n {n} on {on}"
                );
            }
        }
    }
}

/// `candidate_tests` of the one-axis sweep counts, for each box, the later boxes in (min x,
/// index) order whose min x is at most its max x; a grid partition of a spread-out scene tests
/// fewer.
#[test]
fn candidate_tests_count_the_one_axis_candidates() {
    let mut rng = TestRng::named(13, "candidates");
    for n in [0, 1, 5, 67, 1000] {
        let items = terdiman(&mut rng, n, 1.0);
        let boxes = boxes_of(&items);
        let key = |i: usize| (items[i].min[0], i);
        let mut want = 0u64;
        for i in 0..n {
            for j in 0..n {
                let later = key(j).0 > key(i).0 || (key(j).0 == key(i).0 && j > i);
                want += u64::from(later && items[j].min[0] <= items[i].max[0]);
            }
        }
        let x = Sweep::new().with_axis(SweepAxis::X);
        assert_eq!(
            x.with_partition(Partition::None).candidate_tests(&boxes),
            want,
            "n {n}"
        );
        if n == 1000 {
            let grid = x
                .with_partition(Partition::Grid([4, 4]))
                .candidate_tests(&boxes);
            assert!(
                grid * 3 < want,
                "a 4 x 4 grid tests {grid}, one axis {want}"
            );
        }
    }
}

/// A few boxes far out do not take the partition away: the automatic grid keeps to the middle
/// of the centres (with a grid over `mean -+ sqrt(3) sd`, one box at 1e30 put every box in one
/// cell, and the sweep tested as many candidates as the one-axis sweep); the pairs, in order,
/// are the one-axis sweep's.
#[test]
fn far_boxes_keep_the_partition() {
    let mut rng = TestRng::named(14, "far boxes");
    let items = terdiman(&mut rng, 20_000, 1.0);
    let auto = Sweep::new();
    let plain = auto.candidate_tests(&boxes_of(&items));
    let one_axis = auto
        .with_partition(Partition::None)
        .candidate_tests(&boxes_of(&items));
    assert!(plain * 3 < one_axis, "{plain} against {one_axis}");
    for far in [1e6f32, 1e30, f32::MAX] {
        let mut items = items.clone();
        items[0] = Aabb::new([far; 3], [far; 3]);
        items[7] = Aabb::new([-far, far, -far], [-far, far, -far]);
        let boxes = boxes_of(&items);
        let tests = auto.candidate_tests(&boxes);
        assert!(
            tests <= plain + plain / 5,
            "far {far}: {tests} candidates, {plain} without the far boxes"
        );
        assert_eq!(
            auto.complete_pairs(&boxes),
            auto.with_partition(Partition::None).complete_pairs(&boxes),
            "far {far}"
        );
    }
}

#[test]
fn a_filter_count_other_than_the_set_length_is_an_error() {
    let boxes = boxes_of(&[Aabb::new([0.0; 3], [1.0; 3]); 3]);
    let two = [CollisionFilter::ALL; 2];
    assert_eq!(
        Filtered::new(&boxes, &two).unwrap_err(),
        BvError::LengthMismatch { left: 3, right: 2 }
    );
    let none = CollisionFilter::new(0, u32::MAX);
    let filters = [CollisionFilter::ALL, none, CollisionFilter::ALL];
    let set = Filtered::new(&boxes, &filters).unwrap();
    assert_eq!(broadphase::complete_pairs(&set), [(0, 2)]);
    assert_eq!(set.filters(), &filters);
    assert_eq!(set.set().len(), 3);
}

#[test]
fn terdiman_scenes_equal_the_brute_force() {
    let mut rng = TestRng::named(1, "terdiman");
    let mut total = 0;
    for n in (0..=67).chain(long_lengths(false).iter().copied()) {
        let items = terdiman(&mut rng, n, 1.0);
        total += check_scene(&format!("terdiman, n = {n}"), &items).len();
    }
    assert!(total > 500, "the scenes are not trivial: {total} pairs");
}

#[test]
fn uniform_scenes_equal_the_brute_force() {
    let mut rng = TestRng::named(2, "uniform");
    let mut total = 0;
    for n in (0..=67).chain(long_lengths(true).iter().copied()) {
        // Dense for short scenes (so they have pairs), sparser for long ones.
        let size = if n < 100 { 80.0 } else { 12.0 };
        let items = uniform(&mut rng, n, size);
        total += check_scene(&format!("uniform, n = {n}, size {size}"), &items).len();
    }
    assert!(total > 1000, "the scenes are not trivial: {total} pairs");
}

#[test]
fn lattice_scenes_equal_the_brute_force() {
    let mut rng = TestRng::named(3, "lattice");
    let mut total = 0;
    for n in (0..=67).chain(long_lengths(true).iter().copied()) {
        let items = lattice(&mut rng, n);
        total += check_scene(&format!("lattice, n = {n}"), &items).len();
    }
    assert!(total > 5000, "the scenes are not trivial: {total} pairs");
}

#[test]
fn random_bipartite_scenes_equal_the_brute_force() {
    let mut rng = TestRng::named(4, "bipartite");
    let mut total = 0;
    let lengths: Vec<usize> = (0..=67).chain(long_lengths(true).iter().copied()).collect();
    for (round, &n) in lengths.iter().enumerate() {
        // B's length: another of the lengths, so every combination of short lengths occurs.
        let m = lengths[(round * 7 + 3) % lengths.len()].min(1000);
        let (a, b) = match round % 3 {
            0 => (terdiman(&mut rng, n, 1.0), terdiman(&mut rng, m, 1.0)),
            1 => (uniform(&mut rng, n, 60.0), uniform(&mut rng, m, 60.0)),
            _ => (lattice(&mut rng, n), lattice(&mut rng, m)),
        };
        let what = format!("bipartite round {round}, {n} x {m}");
        let ab = check_bipartite(&what, &a, &b);
        total += ab.len();
        // The other way round: the same pairs, transposed.
        let ba: Vec<Pair> = check_bipartite(&format!("{what}, swapped"), &b, &a)
            .into_iter()
            .map(|(j, i)| (i, j))
            .collect();
        assert_eq!(
            sorted(&ba),
            sorted(&ab),
            "{what}: B against A is A against B transposed"
        );
    }
    assert!(total > 1000, "the scenes are not trivial: {total} pairs");
}

#[test]
fn bipartite_with_an_empty_side() {
    let mut rng = TestRng::named(5, "empty side");
    for n in [0, 1, 2, 7, 64, 300] {
        let items = terdiman(&mut rng, n, 1.0);
        assert_eq!(check_bipartite(&format!("{n} x 0"), &items, &[]), []);
        assert_eq!(check_bipartite(&format!("0 x {n}"), &[], &items), []);
    }
}

// =================================================================================================
// Adversarial scenes
// =================================================================================================

const UNIT: Aabb = Aabb {
    min: [0.0; 3],
    max: [1.0; 3],
};

fn shifted(b: Aabb, d: [f32; 3]) -> Aabb {
    Aabb::new(
        [0, 1, 2].map(|k| b.min[k] + d[k]),
        [0, 1, 2].map(|k| b.max[k] + d[k]),
    )
}

/// Every direction of a 3x3x3 neighbourhood but the centre (faces: one non-zero component,
/// edges: two, corners: three).
fn directions() -> Vec<[f32; 3]> {
    let mut out = Vec::new();
    for x in [-1.0, 0.0, 1.0] {
        for y in [-1.0, 0.0, 1.0] {
            for z in [-1.0, 0.0, 1.0] {
                if [x, y, z] != [0.0; 3] {
                    out.push([x, y, z]);
                }
            }
        }
    }
    out
}

#[test]
fn touching_faces_edges_and_corners() {
    for d in directions() {
        let kind = match d.iter().filter(|&&v| v != 0.0).count() {
            1 => "face",
            2 => "edge",
            _ => "corner",
        };
        // Exactly touching: one pair, whichever box comes first.
        let touching = shifted(UNIT, d);
        assert_eq!(
            check_scene(&format!("{kind} {d:?}"), &[UNIT, touching]),
            [(0, 1)]
        );
        assert_eq!(
            check_scene(&format!("{kind} {d:?}, reversed"), &[touching, UNIT]),
            [(0, 1)]
        );
        assert_eq!(
            check_bipartite(&format!("{kind} {d:?}, bipartite"), &[UNIT], &[touching]),
            [(0, 0)]
        );
        assert_eq!(
            check_bipartite(
                &format!("{kind} {d:?}, bipartite reversed"),
                &[touching],
                &[UNIT]
            ),
            [(0, 0)]
        );
        // One ulp apart on a touching axis: nothing.
        let gap = [0, 1, 2].map(|k| match d[k] {
            v if v > 0.0 => 1f32.next_up(),
            v if v < 0.0 => -1f32.next_up(),
            _ => 0.0,
        });
        let apart = shifted(UNIT, gap);
        assert_eq!(check_scene(&format!("{kind} {gap:?}"), &[UNIT, apart]), []);
        assert_eq!(
            check_bipartite(&format!("{kind} {gap:?}, bipartite"), &[apart], &[UNIT]),
            []
        );
    }
    // The whole 3x3x3 block of unit cubes, in a scrambled order, with gapped copies further out.
    let mut items: Vec<Aabb> = directions()
        .into_iter()
        .map(|d| shifted(UNIT, d))
        .chain([UNIT])
        .collect();
    items.extend(
        directions()
            .into_iter()
            .map(|d| shifted(UNIT, d.map(|v| v * 2.0 * 1f32.next_up()))),
    );
    items.reverse();
    items.swap(3, 40);
    check_scene("3x3x3 block", &items);
    check_bipartite("3x3x3 block against the unit cube", &items, &[UNIT]);
}

#[test]
fn identical_boxes_all_pair() {
    let b = Aabb::new([-3.0, 2.0, 7.5], [4.0, 2.5, 9.0]);
    for n in [2, 3, 8, 17, 64, 65, 150] {
        let items = vec![b; n];
        let pairs = check_scene(&format!("{n} identical boxes"), &items);
        assert_eq!(pairs.len(), n * (n - 1) / 2, "{n} identical boxes");
        let ab = check_bipartite(&format!("{n} x 5 identical boxes"), &items, &[b; 5]);
        assert_eq!(ab.len(), n * 5);
    }
    // Identical boxes among others.
    let mut rng = TestRng::named(6, "identical");
    let mut items = terdiman(&mut rng, 100, 1.0);
    for i in (0..100).step_by(3) {
        items[i] = items[1];
    }
    check_scene("copies of one box among others", &items);
}

#[test]
fn points_and_zero_size_boxes() {
    let p = |v: [f32; 3]| Aabb::new(v, v);
    // Two equal points.
    assert_eq!(
        check_scene(
            "two equal points",
            &[p([1.0, 2.0, 3.0]), p([1.0, 2.0, 3.0])]
        ),
        [(0, 1)]
    );
    // Different points: nothing.
    assert_eq!(
        check_scene(
            "two points",
            &[p([1.0, 2.0, 3.0]), p([1.0, 2.0, 3f32.next_up()])]
        ),
        []
    );
    // A point on each face, edge and corner of the unit cube, and one just outside each.
    for d in directions() {
        let on = d.map(|v| 0.5 + v * 0.5);
        assert_eq!(
            check_scene(&format!("point {on:?} on the unit cube"), &[UNIT, p(on)]),
            [(0, 1)]
        );
        assert_eq!(
            check_scene(
                &format!("point {on:?} on the unit cube, reversed"),
                &[p(on), UNIT]
            ),
            [(0, 1)]
        );
        let off = on.map(|v| match v {
            1.0 => 1f32.next_up(),
            0.0 => -f32::from_bits(1),
            _ => v,
        });
        assert_eq!(
            check_scene(&format!("point {off:?} off the unit cube"), &[UNIT, p(off)]),
            []
        );
        assert_eq!(
            check_bipartite(&format!("point {on:?}, bipartite"), &[p(on)], &[UNIT]),
            [(0, 0)]
        );
    }
    // Flat boxes (zero thickness on one axis) lying on the faces of the unit cube.
    let flats = [
        Aabb::new([1.0, 0.2, 0.2], [1.0, 0.8, 0.8]),
        Aabb::new([0.2, 0.0, 0.2], [0.8, 0.0, 0.8]),
        Aabb::new([0.2, 0.2, 1.0], [0.8, 0.8, 1.0]),
    ];
    let mut items = vec![UNIT];
    items.extend(flats);
    assert_eq!(
        sorted(&check_scene("flat boxes on faces", &items)),
        [(0, 1), (0, 2), (0, 3)]
    );
    // Many points on a small integer grid (lots of exact duplicates), and a few boxes.
    let mut rng = TestRng::named(7, "points");
    for n in [10, 67, 300] {
        let items: Vec<Aabb> = (0..n)
            .map(|_| {
                let v = [0; 3].map(|_| rng.below(4) as f32);
                if rng.chance(0.1) {
                    Aabb::new(v, v.map(|c| c + 1.0))
                } else {
                    p(v)
                }
            })
            .collect();
        check_scene(&format!("{n} grid points"), &items);
        let other: Vec<Aabb> = (0..n / 2)
            .map(|_| p([0; 3].map(|_| rng.below(4) as f32)))
            .collect();
        check_bipartite(
            &format!("{n} grid points x {} points", n / 2),
            &items,
            &other,
        );
    }
}

#[test]
fn tiny_scenes() {
    assert_eq!(check_scene("no boxes", &[]), []);
    assert_eq!(check_scene("one box", &[UNIT]), []);
    assert_eq!(
        check_scene("one point", &[Aabb::new([0.0; 3], [0.0; 3])]),
        []
    );
    assert_eq!(check_scene("two equal boxes", &[UNIT, UNIT]), [(0, 1)]);
    let far = shifted(UNIT, [5.0, 0.0, 0.0]);
    assert_eq!(check_scene("two disjoint boxes", &[UNIT, far]), []);
    // Overlapping in x but not in y or z.
    let y = shifted(UNIT, [0.5, 3.0, 0.0]);
    let z = shifted(UNIT, [0.0, 0.0, -3.0]);
    assert_eq!(check_scene("x overlap only", &[UNIT, y]), []);
    assert_eq!(check_scene("x overlap only", &[z, UNIT]), []);
    assert_eq!(check_bipartite("0 x 0", &[], &[]), []);
    assert_eq!(check_bipartite("1 x 1", &[UNIT], &[UNIT]), [(0, 0)]);
    assert_eq!(check_bipartite("1 x 1 apart", &[UNIT], &[far]), []);
}

#[test]
fn one_huge_box_spanning_all_others() {
    let mut rng = TestRng::named(8, "huge box");
    let huge = Aabb::new([-5000.0; 3], [5000.0; 3]);
    for n in [1, 10, 66, 500] {
        let others = terdiman(&mut rng, n, 1.0);
        for at in [0, n / 2, n] {
            let mut items = others.clone();
            items.insert(at, huge);
            let pairs = check_scene(&format!("huge box at {at} of {}", n + 1), &items);
            let with_huge = pairs
                .iter()
                .filter(|&&(i, j)| i as usize == at || j as usize == at)
                .count();
            assert_eq!(with_huge, n, "the huge box pairs with every other");
            check_bipartite(&format!("huge box x {n}"), &[huge], &others);
            check_bipartite(&format!("{n} x huge box"), &others, &[huge]);
        }
    }
    // The same with the whole f32 range (its width overflows to infinity).
    let whole = Aabb::new([-f32::MAX; 3], [f32::MAX; 3]);
    let mut items = terdiman(&mut rng, 100, 1.0);
    items.insert(37, whole);
    let pairs = check_scene("a box spanning all of f32", &items);
    assert_eq!(
        pairs.iter().filter(|&&(i, j)| i == 37 || j == 37).count(),
        100
    );
}

#[test]
fn all_boxes_equal_in_min_x() {
    let mut rng = TestRng::named(9, "ties");
    for n in [2, 5, 17, 67, 150, 300] {
        // Every min x equal, other coordinates varied.
        let items: Vec<Aabb> = terdiman(&mut rng, n, 1.0)
            .into_iter()
            .map(|mut b| {
                b.min[0] = 0.0;
                b.max[0] = b.max[0].max(0.0);
                b
            })
            .collect();
        check_scene(&format!("{n} boxes with min x = 0"), &items);
        // Min x from a few values, max x equal to min x for some (touching in x only).
        let items: Vec<Aabb> = (0..n)
            .map(|_| {
                let x = rng.below(3) as f32;
                let w = if rng.chance(0.3) {
                    0.0
                } else {
                    rng.below(3) as f32
                };
                let y = rng.below(6) as f32;
                let z = rng.below(6) as f32;
                Aabb::new([x, y, z], [x + w, y + rng.below(3) as f32, z + 1.0])
            })
            .collect();
        check_scene(&format!("{n} boxes with min x in 0..3"), &items);
    }
}

#[test]
fn signed_zeros() {
    // -0.0 == 0.0: boxes ending at one and starting at the other touch, on every axis.
    for k in 0..3 {
        let mut left = Aabb::new([-1.0; 3], [1.0; 3]);
        let mut right = left;
        left.max[k] = -0.0;
        right.min[k] = 0.0;
        let what = format!("axis {k}: max -0.0 vs min 0.0");
        assert_eq!(check_scene(&what, &[left, right]), [(0, 1)]);
        assert_eq!(check_scene(&what, &[right, left]), [(0, 1)]);
        assert_eq!(check_bipartite(&what, &[left], &[right]), [(0, 0)]);
        assert_eq!(check_bipartite(&what, &[right], &[left]), [(0, 0)]);
        left.max[k] = 0.0;
        right.min[k] = -0.0;
        let what = format!("axis {k}: max 0.0 vs min -0.0");
        assert_eq!(check_scene(&what, &[left, right]), [(0, 1)]);
        assert_eq!(check_scene(&what, &[right, left]), [(0, 1)]);
        assert_eq!(check_bipartite(&what, &[left], &[right]), [(0, 0)]);
        assert_eq!(check_bipartite(&what, &[right], &[left]), [(0, 0)]);
    }
    // Points at +0 and -0 are the same point.
    let pz = Aabb::new([0.0; 3], [0.0; 3]);
    let nz = Aabb::new([-0.0; 3], [-0.0; 3]);
    assert_eq!(check_scene("points at +0 and -0", &[pz, nz]), [(0, 1)]);
    assert_eq!(check_scene("points at -0 and +0", &[nz, pz]), [(0, 1)]);
    assert_eq!(
        check_bipartite("points at +0 and -0", &[pz], &[nz]),
        [(0, 0)]
    );
    assert_eq!(
        check_bipartite("points at -0 and +0", &[nz], &[pz]),
        [(0, 0)]
    );
    // Random mixtures of -0.0, 0.0 and small integers on every coordinate (many ties in min x
    // between -0.0 and 0.0).
    let mut rng = TestRng::named(10, "zeros");
    let coord = |rng: &mut TestRng| rng.pick(&[-0.0, 0.0, -0.0, 0.0, -1.0, 1.0]);
    for n in [2, 9, 40, 67, 150] {
        let mk = |rng: &mut TestRng| -> Vec<Aabb> {
            (0..n)
                .map(|_| {
                    let (mut min, mut max) = ([0.0f32; 3], [0.0f32; 3]);
                    for k in 0..3 {
                        let (a, b) = (coord(rng), coord(rng));
                        (min[k], max[k]) = if a <= b { (a, b) } else { (b, a) };
                    }
                    Aabb::new(min, max)
                })
                .collect()
        };
        let items = mk(&mut rng);
        let other = mk(&mut rng);
        check_scene(&format!("{n} boxes on signed zeros"), &items);
        check_bipartite(&format!("{n} x {n} boxes on signed zeros"), &items, &other);
    }
}

#[test]
fn huge_and_tiny_magnitudes() {
    let mut rng = TestRng::named(11, "magnitudes");
    for n in [0, 3, 30, 67, 400] {
        let base = terdiman(&mut rng, n, 1.0);
        let pairs = check_scene(&format!("terdiman, n = {n}"), &base);
        // Scaling by a power of two is exact and keeps the pairs: up to ~9e37 (2^115 * 2175),
        // down to subnormals (2^-149: integer multiples of the smallest subnormal).
        for e in [115, 100, -100, -126, -140, -149] {
            let s = 2f64.powi(e) as f32; // exact (2f32.powi(-140) would underflow to 0)
            assert!(s > 0.0 && s.is_finite());
            let scaled: Vec<Aabb> = base
                .iter()
                .map(|b| Aabb::new(b.min.map(|v| v * s), b.max.map(|v| v * s)))
                .collect();
            assert!(
                scaled
                    .iter()
                    .all(|b| b.min.iter().chain(&b.max).all(|v| v.is_finite()))
            );
            let got = check_scene(&format!("terdiman, n = {n}, scaled by 2^{e}"), &scaled);
            assert_eq!(
                sorted(&got),
                sorted(&pairs),
                "scaling by 2^{e} keeps the pairs (n = {n})"
            );
        }
    }
    // Boxes near f32::MAX and near 1e38, touching there; subnormal boxes touching around zero.
    let m = f32::MAX;
    let big = [
        Aabb::new([1e38, 0.0, 0.0], [m, 1.0, 1.0]),
        Aabb::new([m, 0.0, 0.0], [m, 1.0, 1.0]),
        Aabb::new([-m, 0.0, 0.0], [-1e38, 1.0, 1.0]),
        Aabb::new([-1e38, -m, -m], [1e38, m, m]),
        Aabb::new([3e38, 1.0, 1.0], [3e38, 1e38, 1e38]),
        Aabb::new([-m, -m, -m], [-m, -m, -m]),
        Aabb::new([1e-38, 1e-38, 1e-38], [1e38, 1e38, 1e38]),
    ];
    check_scene("huge magnitudes", &big);
    let d = f32::from_bits(1); // the smallest subnormal
    let tiny = [
        Aabb::new([-d, -d, -d], [0.0, 0.0, 0.0]),
        Aabb::new([0.0, 0.0, 0.0], [d, d, d]),
        Aabb::new([d, d, d], [2.0 * d, 2.0 * d, 2.0 * d]),
        Aabb::new([2.0 * d, 0.0, 0.0], [1e-38, 1e-38, 1e-38]),
        Aabb::new([3.0 * d, -1e-38, -1e-38], [3.0 * d, -d, -d]),
        Aabb::new([1e-38, 1e-38, 1e-38], [1e-38, 1e-38, 1e-38]),
        Aabb::new([1e-38f32.next_up(), 0.0, 0.0], [1e-37, 1e-38, 1e-38]),
        Aabb::new([-1e-45, -1e-45, -1e-45], [-0.0, -0.0, -0.0]),
    ];
    let pairs = check_scene("tiny magnitudes", &tiny);
    assert!(pairs.contains(&(0, 1)) && pairs.contains(&(1, 2)) && pairs.contains(&(0, 7)));
    assert!(!pairs.contains(&(0, 2)), "{pairs:?}");
    check_bipartite("huge x tiny", &big, &tiny);
}

// =================================================================================================
// Bipartite: ties between the sets
// =================================================================================================

#[test]
fn bipartite_equal_min_x_in_both_sets_is_reported_once() {
    let mut rng = TestRng::named(12, "bipartite ties");
    for (n, m) in [(1, 1), (3, 5), (16, 16), (67, 30), (200, 250)] {
        // Every min x equal in both sets (so every pair's order in the sweep is a tie), overlapping
        // in x, varied in y and z.
        let mk = |rng: &mut TestRng, len: usize| -> Vec<Aabb> {
            (0..len)
                .map(|_| {
                    let y = rng.below(8) as f32;
                    let z = rng.below(8) as f32;
                    let w = rng.below(3) as f32;
                    Aabb::new([0.0, y, z], [w, y + rng.below(3) as f32, z + 1.0])
                })
                .collect()
        };
        let (a, b) = (mk(&mut rng, n), mk(&mut rng, m));
        check_bipartite(&format!("min x = 0 everywhere, {n} x {m}"), &a, &b);
        check_self_bipartite(
            &format!("min x = 0 everywhere, {n}"),
            &a,
            &brute_complete(&a),
        );
        // Identical boxes in both sets: every pair, once.
        let same = vec![Aabb::new([2.0, 0.0, 0.0], [2.0, 1.0, 1.0]); n];
        let pairs = check_bipartite(&format!("{n} x {m} identical"), &same, &same[..1].repeat(m));
        assert_eq!(pairs.len(), n * m);
        // Min x from a few values in both sets.
        let few = |rng: &mut TestRng, len: usize| -> Vec<Aabb> {
            (0..len)
                .map(|_| {
                    let x = rng.pick(&[-1.0, 0.0, -0.0, 1.0]);
                    let w = rng.pick(&[0.0, 0.0, 1.0, 2.0]);
                    let y = rng.below(5) as f32;
                    Aabb::new([x, y, 0.0], [x + w, y + rng.below(2) as f32, 1.0])
                })
                .collect()
        };
        let (a, b) = (few(&mut rng, n), few(&mut rng, m));
        check_bipartite(&format!("min x in a few values, {n} x {m}"), &a, &b);
    }
}

// =================================================================================================
// Order
// =================================================================================================

/// Complete pairs: boxes in ascending `(min x, index)` order.
fn assert_complete_order(what: &str, items: &[Aabb], pairs: &[Pair]) {
    let key = |i: u32| (items[i as usize].min[0], 0, i);
    assert_sweep_order(what, pairs, |&(i, j)| (key(i), key(j)));
}

/// Bipartite pairs: the merged order of the two sets, by min x, on equal min x `b`'s box first,
/// then by index.
fn assert_bipartite_order(what: &str, a: &[Aabb], b: &[Aabb], pairs: &[Pair]) {
    assert_sweep_order(what, pairs, |&(i, j)| {
        ((a[i as usize].min[0], 1, i), (b[j as usize].min[0], 0, j))
    });
}

/// The sweep along x, whose order the order tests spell out (the default axis is chosen from
/// the data).
fn x_sweep() -> Sweep {
    Sweep::new().with_axis(SweepAxis::X)
}

#[test]
fn order_is_the_sweep_order() {
    let mut rng = TestRng::named(13, "order");
    for n in [5, 30, 67, 500] {
        let scenes = [
            ("terdiman", terdiman(&mut rng, n, 1.0)),
            ("uniform", uniform(&mut rng, n, 60.0)),
            ("lattice", lattice(&mut rng, n)),
        ];
        for (name, items) in &scenes {
            let what = format!("{name}, n = {n}");
            let pairs = x_sweep().complete_pairs(&boxes_of(items));
            assert_complete_order(&what, items, &pairs);
            let other = match *name {
                "terdiman" => terdiman(&mut rng, n, 1.0),
                "uniform" => uniform(&mut rng, n, 60.0),
                _ => lattice(&mut rng, n),
            };
            let pairs = x_sweep().bipartite_pairs(&boxes_of(items), &boxes_of(&other));
            assert_bipartite_order(&format!("{what}, bipartite"), items, &other, &pairs);
        }
    }
    // Ties in min x: by index; between the sets, B's box first.
    let ties = |rng: &mut TestRng, len: usize| -> Vec<Aabb> {
        (0..len)
            .map(|_| {
                let x: f32 = rng.pick(&[0.0, 1.0]);
                let y = rng.below(4) as f32;
                Aabb::new([x, y, 0.0], [x + 1.0, y + 1.0, 1.0])
            })
            .collect()
    };
    for n in [2, 10, 67, 200] {
        let (a, b) = (ties(&mut rng, n), ties(&mut rng, n / 2 + 1));
        let pairs = x_sweep().complete_pairs(&boxes_of(&a));
        assert_complete_order(&format!("{n} boxes, min x in 0, 1"), &a, &pairs);
        let pairs = x_sweep().bipartite_pairs(&boxes_of(&a), &boxes_of(&b));
        let what = format!("{n} x {} boxes, min x in 0, 1", b.len());
        assert_bipartite_order(&what, &a, &b, &pairs);
    }
}

/// `-0.0 == 0.0` as floats, so boxes with min x `-0.0` and `+0.0` tie in min x and, by the
/// documented `(min x, index)` order, come in index order.
#[test]
fn order_ties_between_signed_zero_min_x_are_by_index() {
    let items: Vec<Aabb> = (0..40)
        .map(|i| {
            let x = [0.0, -0.0][i % 2];
            Aabb::new([x, 0.0, 0.0], [1.0, 1.0 + i as f32, 1.0])
        })
        .collect();
    let pairs =
        check_complete_against("40 boxes with min x = +-0", &items, &brute_complete(&items));
    assert_eq!(pairs.len(), 40 * 39 / 2);
    let pairs = x_sweep().complete_pairs(&boxes_of(&items));
    assert_complete_order("40 boxes with min x = +-0", &items, &pairs);
    let b: Vec<Aabb> = items.iter().rev().copied().collect();
    check_bipartite("40 x 40 boxes with min x = +-0", &items, &b);
    let pairs = x_sweep().bipartite_pairs(&boxes_of(&items), &boxes_of(&b));
    assert_bipartite_order("40 x 40 boxes with min x = +-0", &items, &b, &pairs);
}

/// Every fixed axis gives the brute force's pairs (in its own order); `Auto` picks the axis
/// along which the boxes spread out, and keeps x for isotropic data.
#[test]
fn every_axis_gives_the_same_pairs_and_auto_picks_the_spread_one() {
    let mut rng = TestRng::named(29, "axes");
    for n in [0, 1, 2, 67, 700] {
        let items = terdiman(&mut rng, n, 1.0);
        let mut want = brute_complete(&items);
        want.sort_unstable();
        let boxes = boxes_of(&items);
        for axis in [SweepAxis::X, SweepAxis::Y, SweepAxis::Z, SweepAxis::Auto] {
            for (on, sweep) in sweeps() {
                let mut got = sweep.with_axis(axis).complete_pairs(&boxes);
                got.sort_unstable();
                assert_eq!(got, want, "n {n}, {axis:?}, {on}");
            }
        }
    }
    // Long in z, thin and crowded in x and y: z is the axis.
    let items: Vec<Aabb> = (0..300)
        .map(|i| {
            let z = i as f32 * 10.0;
            Aabb::new([0.0, 0.0, z], [1.0, 1.0, z + 1.0])
        })
        .collect();
    let boxes = boxes_of(&items);
    assert_eq!(Sweep::new().axis_for(&boxes), SweepAxis::Z);
    assert_eq!(broadphase::complete_pairs(&boxes), []);
    // The same past the 1,024 elements whose extents decide the axis (a sample of them), and
    // in y: the sample's estimate picks the same axis.
    for (axis, want) in [(2, SweepAxis::Z), (1, SweepAxis::Y)] {
        let items: Vec<Aabb> = (0..20_000)
            .map(|i| {
                let mut lo = [
                    (i % 7) as f32 * 0.1,
                    (i % 5) as f32 * 0.1,
                    (i % 3) as f32 * 0.1,
                ];
                lo[axis] = i as f32 * 10.0;
                Aabb::new(lo, lo.map(|v| v + 1.0))
            })
            .collect();
        let boxes = boxes_of(&items);
        assert_eq!(Sweep::new().axis_for(&boxes), want);
        assert_eq!(broadphase::complete_pairs(&boxes), []);
    }
    // Isotropic: x.
    let items = terdiman(&mut rng, 1000, 1.0);
    assert_eq!(Sweep::new().axis_for(&boxes_of(&items)), SweepAxis::X);
}

// =================================================================================================
// Configuration
// =================================================================================================

#[test]
fn zero_threads_is_one_thread_and_unavailable_backends_are_errors() {
    let mut rng = TestRng::named(14, "config");
    for n in [0, 1, 40, 300] {
        let items = terdiman(&mut rng, n, 1.0);
        let other = terdiman(&mut rng, n / 2 + 1, 1.0);
        let (a, b) = (boxes_of(&items), boxes_of(&other));
        for &backend in Backend::available() {
            let one = Sweep::new().with_backend(backend).unwrap().with_threads(1);
            let zero = Sweep::new().with_backend(backend).unwrap().with_threads(0);
            assert_eq!(
                zero.complete_pairs(&a),
                one.complete_pairs(&a),
                "{backend}, n = {n}"
            );
            assert_eq!(
                zero.bipartite_pairs(&a, &b),
                one.bipartite_pairs(&a, &b),
                "{backend}, n = {n}"
            );
        }
    }
    for backend in Backend::ALL {
        if !backend.is_available() {
            assert_eq!(
                Sweep::new().with_backend(backend).err(),
                Some(BvError::BackendUnavailable { backend })
            );
        }
    }
}

/// More pairs than the threads' lists are copied in parallel from (65,536), split over two
/// tasks (4,096 boxes or more): `complete_pairs` and `complete_pairs_into` (into an empty
/// vector, one too small, and one with room holding stale pairs) on several threads give the
/// one-thread list, order included, on every backend.
#[test]
fn many_pairs_join_in_order_on_every_thread_count() {
    // 4,400 boxes along x, one apart and 16 wide: each touches or overlaps the next 16, 70,264
    // pairs.
    let items: Vec<Aabb> = (0..4400)
        .map(|i| {
            let x = i as f32;
            Aabb::new([x - 8.0, -1.0, -1.0], [x + 8.0, 1.0, 1.0])
        })
        .collect();
    let boxes = boxes_of(&items);
    let want = Sweep::new().with_threads(1).complete_pairs(&boxes);
    assert_eq!(want.len(), 4400 * 16 - 16 * 17 / 2);
    for &b in Backend::available() {
        for t in [2, 3, 8] {
            let s = Sweep::new().with_backend(b).unwrap().with_threads(t);
            let on = format!("{b}, {t} threads");
            assert!(s.complete_pairs(&boxes) == want, "complete_pairs on {on}");
            for start in [Vec::new(), vec![(7, 7); 10], vec![(7, 7); 100_000]] {
                let mut out = start;
                let room = out.capacity();
                s.complete_pairs_into(&boxes, &mut out);
                assert!(out == want, "complete_pairs_into on {on}, capacity {room}");
            }
        }
    }
}

/// Sets long enough that the sweep's rows and cell ranges are made in several stretches
/// (32,768 elements or more): on two and three threads, boxes, spheres and octahedra give the
/// one-thread pairs, in order, complete and bipartite (one backend: the stretches are above the
/// tiers).
#[test]
fn long_sets_made_in_stretches_give_the_one_thread_pairs() {
    use bvlanes::{Octahedra, Octahedron, Sphere, Spheres};
    let mut rng = TestRng::named(10, "stretches");
    let n = 40_000;
    let items = uniform(&mut rng, n, 2.0);
    let boxes = boxes_of(&items);
    let spheres = Spheres::from_slice(
        &items
            .iter()
            .map(|b| Sphere::new(b.min, (b.max[0] - b.min[0]) * 0.5))
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let octahedra =
        Octahedra::from_slice(&items.iter().map(Octahedron::from_aabb).collect::<Vec<_>>())
            .unwrap();
    let (half, rest) = items.split_at(n / 2);
    let (a, b) = (boxes_of(half), boxes_of(rest));
    let one = Sweep::new().with_threads(1);
    let want = (
        one.complete_pairs(&boxes),
        one.complete_pairs(&spheres),
        one.complete_pairs(&octahedra),
        one.bipartite_pairs(&a, &b),
    );
    assert!(!want.0.is_empty() && !want.1.is_empty() && !want.2.is_empty() && !want.3.is_empty());
    for t in [2, 3] {
        let s = Sweep::new().with_threads(t);
        assert!(s.complete_pairs(&boxes) == want.0, "boxes, {t} threads");
        assert!(s.complete_pairs(&spheres) == want.1, "spheres, {t} threads");
        assert!(
            s.complete_pairs(&octahedra) == want.2,
            "octahedra, {t} threads"
        );
        assert!(
            s.bipartite_pairs(&a, &b) == want.3,
            "bipartite, {t} threads"
        );
    }
}
