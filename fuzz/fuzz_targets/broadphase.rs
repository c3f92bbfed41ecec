//! Fuzz target `broadphase`: sort-and-sweep pair sets against an O(n^2) brute force.
//!
//! Arbitrary boxes, spheres or octahedra (values from arbitrary bytes, repaired into valid
//! primitives where cheap; the invalid ones are skipped) are swept with `complete_pairs` and
//! `bipartite_pairs` (the set split in two at an arbitrary point) and their callback forms, on
//! every backend of `Backend::available()`, with 1 and 2 threads, along x, y, z and the automatic
//! axis. Every result must:
//! * hold exactly the pairs of the brute force, which tests every pair with the container's own
//!   `hits` query (`Aabbs::hits(&aabb)`, `Spheres::hits(&sphere)`, `Octahedra::hits(&octahedron)`:
//!   the documented definition of a broadphase pair), each pair once, `i < j` for complete pairs;
//! * come in the same order on every backend and thread count (for a given axis), the callback
//!   forms in the same order as the `Vec` forms, the automatic axis giving the result of the axis
//!   it reports (`axis_for`; for bipartite sets one of the three);
//! * for boxes, come in the documented sweep order (grouped by the first box in ascending (min
//!   along the axis, index) order, bipartite ties with `b`'s box first).
//!
//! Every backend and thread count also runs with the one-axis sweep and a fixed 3 x 2 grid (the
//! automatic partition splits only sets of 512 elements or more: the tiled ones), and untiled sets
//! with collision filters (`Filtered`, NaN bit patterns among them): the unfiltered pairs less the
//! rejected ones, in the same order.
//!
//! Some inputs are tiled into more than 4,096 elements (translated copies) so that sweeps with 2
//! threads really split into several tasks. `SweepAndPrune` runs a few frames of boxes, spheres
//! or octahedra, arbitrary ones moved (incremental and full updates), with collision filters in
//! some frames (some of them changed from frame to frame, the elements moved or not): each
//! frame's pairs are the sorted brute force (less the pairs the filters reject), and `added` /
//! `removed` the differences from the previous frame.
#![no_main]
#![allow(clippy::single_range_in_vec_init)] // lists of index ranges (one when not tiled)

mod input;
#[path = "../../tests/common/sweep_order.rs"]
mod sweep_order;

use bvlanes::broadphase::{
    CollisionFilter, Filtered, Partition, Sweep, SweepAndPrune, SweepAxis, Sweepable, Tracked,
};
use bvlanes::{Aabb, Aabbs, Backend, Octahedra, Octahedron, Query, Sphere, Spheres};
use core::fmt::Debug;
use core::ops::Range;
use input::Input;
use libfuzzer_sys::fuzz_target;
use sweep_order::assert_sweep_order;

type Pair = (u32, u32);

/// Elements read from the input at most.
const MAX_ITEMS: usize = 72;
/// Tiled sets have at least this many elements (two tasks need 4,096).
const TILED: usize = 4_200;

/// A shape the sweep takes, as the target sees it.
trait Shape: Copy + Debug + bytemuck::Pod {
    type Set: Sweepable + Debug;
    /// A primitive from the input, made valid where cheap.
    fn read(inp: &mut Input) -> Self;
    fn is_valid(&self) -> bool;
    fn set(items: &[Self]) -> Self::Set;
    /// Indices of the elements of `set` this one hits (the container's own test).
    fn hits(&self, set: &Self::Set, backend: Backend) -> Vec<u32>;
    /// The largest magnitude of its values.
    fn magnitude(&self) -> f32 {
        bytemuck::cast_slice::<Self, f32>(core::slice::from_ref(self))
            .iter()
            .fold(0.0, |m, v| m.max(v.abs()))
    }
    /// The same shape moved by `d` along `axis`.
    fn translated(&self, axis: usize, d: f32) -> Self;
    /// The min along `axis` that the documented order sorts by (boxes only).
    fn order_min(&self, _axis: usize) -> Option<f32> {
        None
    }
}

fn hits_of<C, Q: Query<C>>(c: &C, q: &Q, backend: Backend) -> Vec<u32>
where
    C: bvlanes::Container,
{
    bvlanes::Pinned::new(c, backend)
        .expect("available")
        .hits(q)
        .collect()
}

impl Shape for Aabb {
    type Set = Aabbs;
    fn read(inp: &mut Input) -> Self {
        let (a, b): ([f32; 3], [f32; 3]) = (inp.values(), inp.values());
        let sort = inp.u8() & 1 == 1;
        Aabb::new(
            core::array::from_fn(|i| if sort { a[i].min(b[i]) } else { a[i] }),
            core::array::from_fn(|i| if sort { a[i].max(b[i]) } else { b[i] }),
        )
    }
    fn is_valid(&self) -> bool {
        Aabb::is_valid(self)
    }
    fn set(items: &[Self]) -> Aabbs {
        Aabbs::from_slice(items).expect("valid boxes")
    }
    fn hits(&self, set: &Aabbs, backend: Backend) -> Vec<u32> {
        hits_of(set, self, backend)
    }
    fn translated(&self, axis: usize, d: f32) -> Self {
        let mut b = *self;
        b.min[axis] += d;
        b.max[axis] += d;
        b
    }
    fn order_min(&self, axis: usize) -> Option<f32> {
        Some(self.min[axis])
    }
}

impl Shape for Sphere {
    type Set = Spheres;
    fn read(inp: &mut Input) -> Self {
        let c: [f32; 3] = inp.values();
        Sphere::new(c, inp.value().abs())
    }
    fn is_valid(&self) -> bool {
        Sphere::is_valid(self)
    }
    fn set(items: &[Self]) -> Spheres {
        Spheres::from_slice(items).expect("valid spheres")
    }
    fn hits(&self, set: &Spheres, backend: Backend) -> Vec<u32> {
        hits_of(set, self, backend)
    }
    fn translated(&self, axis: usize, d: f32) -> Self {
        let mut s = *self;
        s.center[axis] += d;
        s
    }
}

impl Shape for Octahedron {
    type Set = Octahedra;
    fn read(inp: &mut Input) -> Self {
        match inp.u8() % 4 {
            0 => Octahedron::from_aabb(&Aabb::read(inp)),
            1 => Octahedron::from_sphere(&Sphere::read(inp)),
            2 => {
                let (a, b): ([f32; 3], [f32; 3]) = (inp.values(), inp.values());
                Octahedron::from_points([a, b]).unwrap_or_default()
            }
            _ => bytemuck::cast(inp.values::<8>()),
        }
    }
    fn is_valid(&self) -> bool {
        Octahedron::is_valid(self)
    }
    fn set(items: &[Self]) -> Octahedra {
        Octahedra::from_slice(items).expect("valid octahedra")
    }
    fn hits(&self, set: &Octahedra, backend: Backend) -> Vec<u32> {
        hits_of(set, self, backend)
    }
    fn translated(&self, axis: usize, d: f32) -> Self {
        // Moving along a coordinate axis adds `n_k[axis] * d` to projection k.
        let mut o = *self;
        for k in 0..4 {
            let s = bvlanes::TET_AXES[k][axis];
            o.up.min[k] += s * d;
            o.down.max[k] += s * d;
        }
        o
    }
}

/// Every overlapping `(i, j)`, `i < j`, by the container's own test, ascending.
/// Every overlapping `(i, j)`, `i < j`, by the container's own test, ascending. Pairs are only
/// looked for within each of `groups` (consecutive ranges covering `items`; the copies of a
/// tiled set, which are apart).
fn brute_complete<T: Shape>(items: &[T], groups: &[Range<usize>], backend: Backend) -> Vec<Pair> {
    let mut out = Vec::new();
    for g in groups {
        let set = T::set(&items[g.clone()]);
        for i in g.clone() {
            let hits = items[i].hits(&set, backend);
            let js = hits
                .into_iter()
                .map(|j| g.start + j as usize)
                .filter(|&j| j > i);
            out.extend(js.map(|j| (i as u32, j as u32)));
        }
    }
    out
}

/// Every overlapping `(i in a, j in b)` of `a = items[..cut]`, `b = items[cut..]`, within each
/// of `groups`, ascending.
fn brute_bipartite<T: Shape>(
    items: &[T],
    cut: usize,
    groups: &[Range<usize>],
    backend: Backend,
) -> Vec<Pair> {
    let mut out = Vec::new();
    for g in groups {
        let b = g.start.max(cut)..g.end.max(cut);
        let set = T::set(&items[b.clone()]);
        for (i, item) in items.iter().enumerate().take(g.end.min(cut)).skip(g.start) {
            let hits = item.hits(&set, backend);
            out.extend(
                hits.into_iter()
                    .map(|j| (i as u32, (b.start - cut) as u32 + j)),
            );
        }
    }
    out
}

fn sorted(pairs: &[Pair]) -> Vec<Pair> {
    let mut p = pairs.to_vec();
    p.sort_unstable();
    p
}

const AXES: [SweepAxis; 3] = [SweepAxis::X, SweepAxis::Y, SweepAxis::Z];

/// Every backend with 1 and 2 threads, the automatic partition; and on each, the one-axis sweep
/// (1 thread) and a fixed 3 x 2 grid (2 threads), which partitions even the small sets.
fn sweeps(axis: SweepAxis) -> Vec<Sweep> {
    let mut out = Vec::new();
    for &b in Backend::available() {
        for (t, p) in [
            (1, Partition::Auto),
            (2, Partition::Auto),
            (1, Partition::None),
            (2, Partition::Grid([3, 2])),
        ] {
            out.push(
                Sweep::new()
                    .with_backend(b)
                    .expect("available")
                    .with_threads(t)
                    .with_axis(axis)
                    .with_partition(p),
            );
        }
    }
    out
}

/// Collision filters for `n` elements, varied by `seed`: one or two of three groups, none, all,
/// and bit patterns that are NaNs or infinities as `f32`.
fn filters(n: usize, seed: u8) -> Vec<CollisionFilter> {
    const BITS: [u32; 7] = [1, 2, 4, 3, 0, u32::MAX, 0x7fc0_0001];
    (0..n)
        .map(|i| {
            let k = i * 5 + usize::from(seed);
            CollisionFilter::new(
                BITS[k % 7],
                BITS[(k / 7 + i) % 7] | (0xff80_0000 * (k as u32 & 1)),
            )
        })
        .collect()
}

/// The complete pairs of `set` under `filters`: the unfiltered pairs (`pairs`, one sweep's `Vec`)
/// less those the filters reject, in the same order, on every sweep of the automatic axis.
fn check_filtered<T: Shape>(set: &T::Set, filters: &[CollisionFilter], pairs: &[Pair]) {
    let want: Vec<Pair> = pairs
        .iter()
        .filter(|&&(i, j)| filters[i as usize].accepts(&filters[j as usize]))
        .copied()
        .collect();
    let filtered = Filtered::new(set, filters).expect("one filter per element");
    for s in sweeps(SweepAxis::Auto) {
        assert_eq!(s.complete_pairs(&filtered), want, "filtered, {s:?}");
    }
}

/// The complete sweeps along the axes of `only` (all three and the automatic one if `None`).
fn check_complete<T: Shape>(items: &[T], set: &T::Set, brute: &[Pair], only: Option<usize>) {
    let mut by_axis = Vec::new();
    for (a, &axis) in AXES.iter().enumerate() {
        if only.is_some_and(|o| o != a) {
            by_axis.push(Vec::new());
            continue;
        }
        let mut first: Option<Vec<Pair>> = None;
        for s in sweeps(axis) {
            let got = s.complete_pairs(set);
            let what = format!(
                "complete, {axis:?}, {} threads on {}",
                s.threads(),
                s.backend()
            );
            let mut cb = Vec::new();
            s.for_each_complete_pair(set, |i, j| cb.push((i, j)));
            assert_eq!(cb, got, "{what}: callback form");
            match &first {
                None => {
                    assert!(got.iter().all(|&(i, j)| i < j), "{what}: i < j");
                    assert_eq!(sorted(&got), brute, "{what}: the pair set");
                    if items.first().and_then(|x| x.order_min(a)).is_some() {
                        let key = |i: u32| (items[i as usize].order_min(a).expect("box"), 0, i);
                        assert_sweep_order(&what, &got, |&(i, j)| (key(i), key(j)));
                    }
                    first = Some(got);
                }
                Some(f) => assert_eq!(&got, f, "{what}: differs from the first sweep"),
            }
        }
        by_axis.push(first.expect("a sweep"));
    }
    if only.is_some() {
        return;
    }
    let auto = Sweep::new();
    let axis = auto.axis_for(set);
    let a = AXES.iter().position(|&x| x == axis).expect("a fixed axis");
    for s in sweeps(SweepAxis::Auto) {
        assert_eq!(s.axis_for(set), axis, "axis_for");
        assert_eq!(
            s.complete_pairs(set),
            by_axis[a],
            "complete, auto axis ({axis:?})"
        );
    }
}

/// The bipartite sweeps along the axes of `only` (all three and the automatic one if `None`).
fn check_bipartite<T: Shape>(
    a_items: &[T],
    b_items: &[T],
    a: &T::Set,
    b: &T::Set,
    brute: &[Pair],
    only: Option<usize>,
) {
    let mut by_axis = Vec::new();
    for (k, &axis) in AXES.iter().enumerate() {
        if only.is_some_and(|o| o != k) {
            continue;
        }
        let mut first: Option<Vec<Pair>> = None;
        for s in sweeps(axis) {
            let got = s.bipartite_pairs(a, b);
            let what = format!(
                "bipartite, {axis:?}, {} threads on {}",
                s.threads(),
                s.backend()
            );
            let mut cb = Vec::new();
            s.for_each_bipartite_pair(a, b, |i, j| cb.push((i, j)));
            assert_eq!(cb, got, "{what}: callback form");
            match &first {
                None => {
                    assert_eq!(sorted(&got), brute, "{what}: the pair set");
                    let min = |x: &T| x.order_min(k);
                    if let (Some(x), Some(y)) = (a_items.first(), b_items.first())
                        && min(x).is_some()
                        && min(y).is_some()
                    {
                        assert_sweep_order(&what, &got, |&(i, j)| {
                            (
                                (min(&a_items[i as usize]).expect("box"), 1, i),
                                (min(&b_items[j as usize]).expect("box"), 0, j),
                            )
                        });
                    }
                    first = Some(got);
                }
                Some(f) => assert_eq!(&got, f, "{what}: differs from the first sweep"),
            }
        }
        by_axis.push(first.expect("a sweep"));
    }
    if only.is_some() {
        return;
    }
    for s in sweeps(SweepAxis::Auto) {
        let got = s.bipartite_pairs(a, b);
        assert!(
            by_axis.contains(&got),
            "bipartite, auto axis: not the result of any axis"
        );
    }
}

/// Copies of `items` translated along `axis` by multiples of a power of two larger than 16 times
/// the largest magnitude (so copies are apart), up to [`TILED`] elements (invalid copies, say
/// overflowed ones, are left out), and the range of each copy.
fn tiled<T: Shape>(items: &[T], axis: usize) -> (Vec<T>, Vec<Range<usize>>) {
    let mut out = items.to_vec();
    let mut groups = vec![0..items.len()];
    let m = items.iter().fold(0.0f32, |m, x| m.max(x.magnitude()));
    let raw = (m * 16.0).max(1.0);
    // The power of two at or above `raw`.
    let (exp, frac) = (raw.to_bits() >> 23, raw.to_bits() & 0x7f_ffff);
    let exp = if frac == 0 { exp } else { exp + 1 };
    if exp >= 0xff {
        return (out, groups);
    }
    let step = f32::from_bits(exp << 23);
    let mut copy = 1u32;
    while out.len() < TILED && copy < 100_000 {
        let d = step * copy as f32;
        if !d.is_finite() {
            break;
        }
        let start = out.len();
        out.extend(
            items
                .iter()
                .map(|x| x.translated(axis, d))
                .filter(T::is_valid),
        );
        groups.push(start..out.len());
        copy += 1;
    }
    (out, groups)
}

fn run<T: Shape>(inp: &mut Input) {
    let mode = inp.u8();
    let split = inp.u8();
    let mut items: Vec<T> = Vec::new();
    while !inp.is_empty() && items.len() < MAX_ITEMS {
        let x = T::read(inp);
        if x.is_valid() {
            items.push(x);
        }
    }
    // Tiled sets are swept along the tiling axis only: along another, every element's scan
    // would cross every copy (a quadratic sweep, seconds on the scalar tier).
    let mut only = None;
    let mut groups = vec![0..items.len()];
    if mode % 16 == 1 && !items.is_empty() {
        let axis = usize::from(mode >> 4) % 3;
        (items, groups) = tiled(&items, axis);
        only = Some(axis);
    }
    let backend = Backend::Scalar;
    let set = T::set(&items);
    check_complete(
        &items,
        &set,
        &brute_complete(&items, &groups, backend),
        only,
    );
    if only.is_none() {
        let pairs = Sweep::new().complete_pairs(&set);
        check_filtered::<T>(&set, &filters(items.len(), split), &pairs);
    }
    let cut = if items.is_empty() {
        0
    } else {
        usize::from(split) * items.len() / 256
    };
    let (a_items, b_items) = items.split_at(cut);
    let (a, b) = (T::set(a_items), T::set(b_items));
    let brute = brute_bipartite(&items, cut, &groups, backend);
    check_bipartite(a_items, b_items, &a, &b, &brute, only);
}

/// `SweepAndPrune` over a few frames of boxes, spheres or octahedra, some moved each frame.
fn sweep_and_prune<T: Shape>(inp: &mut Input)
where
    T::Set: Tracked,
{
    let threads = 1 + usize::from(inp.u8() & 1);
    let backends = Backend::available();
    let backend = backends[usize::from(inp.u8()) % backends.len()];
    let sweep = Sweep::new()
        .with_backend(backend)
        .expect("available")
        .with_threads(threads);
    let mut sap = SweepAndPrune::new(sweep);
    let n = usize::from(inp.u8() % 64);
    let mut boxes: Vec<T> = (0..n)
        .map(|_| T::read(inp))
        .map(|b| if b.is_valid() { b } else { T::zeroed() })
        .collect();
    let mut previous: Vec<Pair> = Vec::new();
    // Filters of every box, used in the frames whose bit of `filtered_frames` is set.
    let filtered_frames = inp.u8();
    let mut filters = filters(boxes.len(), inp.u8());
    for frame in 0..6 {
        if frame > 0 {
            // Move some boxes (at most one in eight keeps the update incremental), or resize.
            match inp.u8() % 8 {
                0 => {
                    let m = usize::from(inp.u8() % 4);
                    boxes.extend((0..m).map(|_| T::zeroed()));
                }
                1 if !boxes.is_empty() => {
                    boxes.pop();
                }
                _ => {}
            }
            let moves = usize::from(inp.u8() % 8);
            for _ in 0..moves {
                if boxes.is_empty() {
                    break;
                }
                let i = usize::from(inp.u8()) % boxes.len();
                let b = T::read(inp);
                if b.is_valid() {
                    boxes[i] = b;
                }
            }
            // Filters follow the count (new boxes take filters of their own), and a few change.
            filters.resize_with(boxes.len(), || CollisionFilter::new(1, 1));
            for _ in 0..inp.u8() % 4 {
                if !filters.is_empty() {
                    let i = usize::from(inp.u8()) % filters.len();
                    // Small bit sets (none, one or more of three groups): rejections and
                    // acceptances both common.
                    let bits = inp.u8();
                    filters[i] = CollisionFilter::new(u32::from(bits % 8), u32::from(bits / 8 % 8));
                }
            }
        }
        let set = T::set(&boxes);
        let mut want = brute_complete(&boxes, &[0..boxes.len()], Backend::Scalar);
        let got = if filtered_frames >> frame & 1 != 0 {
            want.retain(|&(i, j)| filters[i as usize].accepts(&filters[j as usize]));
            let set = Filtered::new(&set, &filters).expect("one filter per box");
            sap.update(&set).to_vec()
        } else {
            sap.update(&set).to_vec()
        };
        assert_eq!(got, want, "SweepAndPrune frame {frame}: pairs");
        assert_eq!(
            sap.pairs(),
            &want[..],
            "SweepAndPrune frame {frame}: pairs()"
        );
        let added: Vec<Pair> = want
            .iter()
            .filter(|p| previous.binary_search(p).is_err())
            .copied()
            .collect();
        let removed: Vec<Pair> = previous
            .iter()
            .filter(|p| want.binary_search(p).is_err())
            .copied()
            .collect();
        assert_eq!(
            sap.added(),
            &added[..],
            "SweepAndPrune frame {frame}: added"
        );
        assert_eq!(
            sap.removed(),
            &removed[..],
            "SweepAndPrune frame {frame}: removed"
        );
        previous = want;
    }
}

fuzz_target!(|data: &[u8]| {
    let mut inp = Input::new(data);
    match inp.u8() % 4 {
        0 => run::<Aabb>(&mut inp),
        1 => run::<Sphere>(&mut inp),
        2 => run::<Octahedron>(&mut inp),
        _ => match inp.u8() % 3 {
            0 => sweep_and_prune::<Aabb>(&mut inp),
            1 => sweep_and_prune::<Sphere>(&mut inp),
            _ => sweep_and_prune::<Octahedron>(&mut inp),
        },
    }
});
