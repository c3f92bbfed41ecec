//! Fuzz target `containers`: every container kind (`Aabbs`, `Spheres`, `UpTets`, `DownTets`,
//! `Octahedra`, `Obbs`) built from arbitrary bytes, then queried with arbitrary queries.
//!
//! Primitives come from raw `f32` bit patterns (a `bytemuck` cast of the input, or value by value:
//! NaN, infinities, subnormals, signed zeros, inverted boxes, huge radii), sometimes "repaired"
//! into valid ones (boxes sorted, radii made positive, tetrahedra and octahedra built by the
//! crate's outward-rounding constructors, oriented boxes' axes from a quaternion) so that the
//! containers fill up. A sequence of operations (`push`, `extend_from_slice`, `set`,
//! `swap_remove`, `from_slice` / `TryFrom`, `clear`) runs against a model `Vec`, checking after
//! each one that:
//! * the container holds exactly the model's primitives, bit for bit (`iter`, `get`, `len`);
//! * `is_valid()` agrees with the test suite's independent validity oracle (exact sums);
//! * a rejected primitive gives a `BvError` naming the right index (the container index for
//!   `push` and `set`, the slice index of the *first* invalid item for `from_slice` and
//!   `extend_from_slice`) and a variant describing a defect the primitive really has, and the
//!   container is exactly as before (`==` and bit-for-bit contents).
//!
//! Queries (points, spheres, boxes, `Staged` boxes with every strategy, tetrahedra, octahedra,
//! oriented boxes, frustums, and the `Conservative` form of each, all from arbitrary bits) run
//! through the test suite's harness `check_pair` (`tests/common/mod.rs`, included below): `hits`
//! (and its size hint and reverse order), `extend_hits` (appending after existing entries),
//! `count_hits`, `any_hit` and `hit_mask` (words past the container left untouched), on every
//! backend of `Backend::available()` and on the default one, must all equal the scalar REFERENCE
//! oracle of `tests/common` (one plain function per pair, the kernels' f32 formulas one lane at a
//! time): so every backend equals the reference, and the scalar backend, bit for bit.
//!
//! Batches (issue 20): a batch of up to 12 queries of one of those types (fresh ones, copies,
//! ones with one or every float NaN or infinite, inverted ones; the empty batch too) runs through
//! `count_hits_many`, `hits_many_into`, `hits_many` and `for_each_hit_many` on every backend and
//! through the container's own methods, and must give exactly the one-query `count_hits` and
//! `hits` of each query on that backend (which must agree across backends). `hits_many_into`
//! writes into one `HitLists` reused by every batch of the input, which holds the lists of the
//! previous backend or batch, of the batch reversed, or garbage in its public fields. Once per
//! input a batch runs on the model repeated to one or two tiles of the batched walk (16,384 or
//! 32,768 primitives) plus 0 to 35, so that its multi-tile path runs on any primitives.
#![no_main]

#[macro_use]
#[path = "../../tests/common/mod.rs"]
mod common;
mod input;

use bvlanes::{
    Aabb, Aabbs, Backend, BoxStrategy, BvError, Conservative, Container, DownTet, DownTets,
    Frustum, HitLists, Obb, Obbs, Octahedra, Octahedron, Pinned, Query, Sphere, Spheres, Staged,
    UpTet, UpTets,
};
use common::*;
use core::fmt::Debug;
use input::Input;
use libfuzzer_sys::fuzz_target;

/// Containers stop growing at this length (past the 64-lane mask word and several chunks).
const MAX_LEN: usize = 80;
/// Operations per input.
const MAX_OPS: usize = 48;
/// Primitives per tile of the batched walk (`TILE_CHUNKS` chunks of 16 in `src/query/many.rs`):
/// a longer container runs the multi-tile path.
const TILE: usize = 16_384;
/// Queries per batch, at most (on a tiled container: `MAX_TILED_BATCH`).
const MAX_BATCH: usize = 12;
const MAX_TILED_BATCH: usize = 5;

/// What the target needs of a primitive beyond the oracle's `Shape`.
trait Item: Shape + bytemuck::Pod {
    /// A valid primitive made from whatever `self` holds, where one is cheap to make (may stay
    /// invalid: non-finite input, overflow).
    fn repair(self) -> Self;
    /// The errors a container may report for `self` at `index`, by the documented rules: one
    /// per defect the primitive has (empty iff it is valid).
    fn errors(&self, index: usize) -> Vec<BvError>;
}

fn all_finite(f: &[f32]) -> bool {
    f.iter().all(|v| v.is_finite())
}

fn non_finite_error(f: &[f32], index: usize) -> Vec<BvError> {
    if all_finite(f) {
        Vec::new()
    } else {
        vec![BvError::NonFinite { index }]
    }
}

impl Item for Aabb {
    fn repair(mut self) -> Self {
        for i in 0..3 {
            if self.min[i] > self.max[i] {
                core::mem::swap(&mut self.min[i], &mut self.max[i]);
            }
        }
        self
    }
    fn errors(&self, index: usize) -> Vec<BvError> {
        let mut e = non_finite_error(&self.floats(), index);
        if e.is_empty() && (0..3).any(|i| self.min[i] > self.max[i]) {
            e.push(BvError::Inverted { index });
        }
        e
    }
}

impl Item for Sphere {
    fn repair(mut self) -> Self {
        self.radius = self.radius.abs();
        self
    }
    fn errors(&self, index: usize) -> Vec<BvError> {
        let mut e = non_finite_error(&self.floats(), index);
        if self.radius < 0.0 {
            e.push(BvError::NegativeRadius { index });
        }
        if self.radius > Sphere::MAX_RADIUS {
            e.push(BvError::RadiusTooLarge { index });
        }
        e
    }
}

/// The octahedron around a sphere made of four values (the crate's outward-rounding constructor).
fn octahedron_around(f: [f32; 4]) -> Octahedron {
    Octahedron::from_sphere(&Sphere::new([f[0], f[1], f[2]], f[3].abs()))
}

impl Item for UpTet {
    fn repair(self) -> Self {
        octahedron_around(self.min).up
    }
    fn errors(&self, index: usize) -> Vec<BvError> {
        let mut e = non_finite_error(&self.min, index);
        if e.is_empty() && !up_valid(self) {
            e.push(BvError::Inverted { index });
        }
        e
    }
}

impl Item for DownTet {
    fn repair(self) -> Self {
        octahedron_around(self.max).down
    }
    fn errors(&self, index: usize) -> Vec<BvError> {
        let mut e = non_finite_error(&self.max, index);
        if e.is_empty() && !down_valid(self) {
            e.push(BvError::Inverted { index });
        }
        e
    }
}

impl Item for Octahedron {
    fn repair(self) -> Self {
        let (u, d) = (self.up.min, self.down.max);
        match u[3].to_bits() % 3 {
            0 => octahedron_around(u),
            1 => Octahedron::from_aabb(&Aabb::new([u[0], u[1], u[2]], [d[0], d[1], d[2]]).repair()),
            _ => Octahedron::from_points([[u[0], u[1], u[2]], [d[0], d[1], d[2]]]).unwrap_or(self),
        }
    }
    fn errors(&self, index: usize) -> Vec<BvError> {
        // Which defect is named when there are several is not documented: any defect it has.
        let (up_finite, down_finite) = (all_finite(&self.up.min), all_finite(&self.down.max));
        let mut e = non_finite_error(&self.floats(), index);
        let inverted = (up_finite && !up_valid(&self.up))
            || (down_finite && !down_valid(&self.down))
            || (up_finite && down_finite && (0..4).any(|k| self.up.min[k] > self.down.max[k]));
        if inverted {
            e.push(BvError::Inverted { index });
        }
        e
    }
}

/// Rows of the rotation of the quaternion `q` (normalised in f64), rounded to f32; `None` for a
/// zero or non-finite `q`.
fn rotation_of(q: [f32; 4]) -> Option<[[f32; 3]; 3]> {
    let q = q.map(f64::from);
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    if !(n.is_finite() && n > 0.0) {
        return None;
    }
    let [w, x, y, z] = q.map(|v| v / n);
    Some(
        [
            [
                1.0 - 2.0 * (y * y + z * z),
                2.0 * (x * y + w * z),
                2.0 * (x * z - w * y),
            ],
            [
                2.0 * (x * y - w * z),
                1.0 - 2.0 * (x * x + z * z),
                2.0 * (y * z + w * x),
            ],
            [
                2.0 * (x * z + w * y),
                2.0 * (y * z - w * x),
                1.0 - 2.0 * (x * x + y * y),
            ],
        ]
        .map(|row| row.map(|v| v as f32)),
    )
}

/// Whether the rows are orthonormal within `Obb::ORTHONORMAL_TOLERANCE` (dot products in f64).
fn orthonormal(axes: &[[f32; 3]; 3]) -> bool {
    (0..3).all(|a| {
        (0..3).all(|b| {
            let dot: f64 = (0..3)
                .map(|i| f64::from(axes[a][i]) * f64::from(axes[b][i]))
                .sum();
            let want = if a == b { 1.0 } else { 0.0 };
            (dot - want).abs() <= f64::from(Obb::ORTHONORMAL_TOLERANCE)
        })
    })
}

impl Item for Obb {
    fn repair(mut self) -> Self {
        self.half_extents = self.half_extents.map(f32::abs);
        let a = self.axes;
        if let Some(r) = rotation_of([a[0][0], a[0][1], a[0][2], a[1][0]]) {
            self.axes = r;
        }
        self
    }
    fn errors(&self, index: usize) -> Vec<BvError> {
        let mut e = non_finite_error(&self.floats(), index);
        if self.half_extents.iter().any(|&h| h < 0.0) {
            e.push(BvError::Inverted { index });
        }
        if all_finite(&self.floats()) && !orthonormal(&self.axes) {
            e.push(BvError::NotOrthonormal { index });
        }
        e
    }
}

/// A `T` from its floats, value by value.
fn read_shape<T: Shape>(inp: &mut Input) -> T {
    let n = T::origin().floats().len();
    let f: Vec<f32> = (0..n).map(|_| inp.value()).collect();
    T::from_floats(&f)
}

/// A primitive: a raw `bytemuck` cast or value by value, then perhaps repaired.
fn read_item<T: Item>(inp: &mut Input) -> T {
    let mode = inp.u8();
    let item: T = if mode & 1 == 0 {
        inp.pod()
    } else {
        read_shape(inp)
    };
    if mode & 2 != 0 { item.repair() } else { item }
}

fn bits<T: Shape>(items: &[T]) -> Vec<u32> {
    items
        .iter()
        .flat_map(|i| i.floats())
        .map(f32::to_bits)
        .collect()
}

/// The container holds exactly `model`, bit for bit.
fn check_holds<C: Bv>(c: &C, model: &[C::Item], what: &str)
where
    C::Item: Item,
{
    assert_eq!(c.length(), model.len(), "{what}: len");
    assert_eq!(c.is_empty_(), model.is_empty(), "{what}: is_empty");
    let items = c.items();
    assert_eq!(bits(&items), bits(model), "{what}: contents");
    assert_eq!(c.items_rev().len(), model.len(), "{what}: iter().rev()");
    assert!(
        c.get_item(model.len()).is_none(),
        "{what}: get past the end"
    );
}

/// `item`'s validity: the crate's `is_valid`, the oracle's and the documented errors agree.
fn check_validity<T: Item>(item: &T, valid_in_crate: bool) -> bool {
    let valid = item.valid();
    assert_eq!(valid_in_crate, valid, "is_valid() of {item:?}");
    assert_eq!(
        item.errors(0).is_empty(),
        valid,
        "documented errors of {item:?}"
    );
    valid
}

/// A rejected call: the error is one the documented rules allow for `items[first]`, naming
/// `index`, and the container is unchanged.
fn check_rejected<C: Bv>(
    what: &str,
    err: BvError,
    item: &C::Item,
    index: usize,
    before: &C,
    after: &C,
    model: &[C::Item],
) where
    C::Item: Item,
{
    let allowed = item.errors(index);
    assert!(
        allowed.contains(&err),
        "{what}: {item:?} rejected with {err:?}, expected one of {allowed:?}"
    );
    assert!(
        after == before,
        "{what}: a rejected call changed the container"
    );
    check_holds(after, model, what);
}

/// Reads and checks one batch against a container (see [`batch`]): the container, the input,
/// the `HitLists` reused from batch to batch, the largest batch.
type Batches<C> = fn(&C, &mut Input, &mut HitLists, usize);

fn run<C: Batched>(inp: &mut Input, queries: fn(&C, &[C::Item], &mut Input), batches: Batches<C>)
where
    C::Item: Item,
{
    let mut c = C::empty();
    let mut model: Vec<C::Item> = Vec::new();
    let mut queried = false;
    // Reused by every batch of the input, so each batch writes over an earlier one's lists.
    let mut lists = HitLists::default();
    let mut tiled = false;
    for _ in 0..MAX_OPS {
        if inp.is_empty() {
            break;
        }
        match inp.u8() % 16 {
            0..=3 if model.len() < MAX_LEN => {
                let item: C::Item = read_item(inp);
                let valid = check_validity(&item, C::item_is_valid(&item));
                let before = c.clone();
                match c.push_item(item) {
                    Ok(i) => {
                        assert!(valid, "push accepted the invalid {item:?}");
                        assert_eq!(i as usize, model.len(), "push: returned index");
                        model.push(item);
                    }
                    Err(e) => {
                        assert!(!valid, "push rejected the valid {item:?}: {e:?}");
                        check_rejected("push", e, &item, model.len(), &before, &c, &model);
                    }
                }
            }
            4 | 5 if model.len() < MAX_LEN => {
                let n = usize::from(inp.u8() % 17);
                let items: Vec<C::Item> = (0..n).map(|_| read_item(inp)).collect();
                let first_bad = items
                    .iter()
                    .position(|i| !check_validity(i, C::item_is_valid(i)));
                let before = c.clone();
                match (c.extend_items(&items), first_bad) {
                    (Ok(()), None) => model.extend_from_slice(&items),
                    (Err(e), Some(k)) => {
                        check_rejected("extend", e, &items[k], k, &before, &c, &model)
                    }
                    (r, k) => panic!("extend_from_slice: {r:?}, first invalid item {k:?}"),
                }
            }
            6 => {
                let index = usize::from(inp.u8()) % (model.len() + 2);
                let item: C::Item = read_item(inp);
                let valid = check_validity(&item, C::item_is_valid(&item));
                let before = c.clone();
                match c.set_item(index, item) {
                    Ok(()) => {
                        assert!(
                            valid && index < model.len(),
                            "set({index}, {item:?}) accepted"
                        );
                        model[index] = item;
                    }
                    Err(BvError::IndexOutOfBounds { index: i, len }) => {
                        assert_eq!((i, len), (index, model.len()), "set: out of bounds error");
                        assert!(c == before, "set: out of bounds changed the container");
                    }
                    Err(e) => {
                        assert!(index < model.len() && !valid, "set rejected: {e:?}");
                        check_rejected("set", e, &item, index, &before, &c, &model);
                    }
                }
            }
            7 if !model.is_empty() => {
                let index = usize::from(inp.u8()) % model.len();
                let got = c.swap_remove_item(index);
                let want = model.swap_remove(index);
                assert_eq!(bits(&[got]), bits(&[want]), "swap_remove({index})");
            }
            8 => {
                // A fresh container from the model plus a few more items, all or nothing.
                let n = usize::from(inp.u8() % 9);
                let extra: Vec<C::Item> = (0..n).map(|_| read_item(inp)).collect();
                let all: Vec<C::Item> = model.iter().chain(&extra).copied().collect();
                let first_bad = all.iter().position(|i| !i.valid());
                let (a, b) = (C::from_items(&all), C::try_from_items(&all));
                match (a, b, first_bad) {
                    (Ok(a), Ok(b), None) if all.len() <= MAX_LEN => {
                        assert!(a == b, "from_slice and try_from differ");
                        check_holds(&a, &all, "from_slice");
                        c = a;
                        model = all;
                    }
                    (Ok(a), Ok(_), None) => check_holds(&a, &all, "from_slice"),
                    (Err(e1), Err(e2), Some(k)) => {
                        assert_eq!(e1, e2, "from_slice and try_from errors");
                        let allowed = all[k].errors(k);
                        assert!(
                            allowed.contains(&e1),
                            "from_slice: {e1:?} not in {allowed:?}"
                        );
                    }
                    (a, b, k) => panic!("from_slice {a:?} / try_from {b:?}, first invalid {k:?}"),
                }
            }
            9 if inp.u8() == 0 => {
                c.clear_items();
                model.clear();
            }
            10 | 11 => {
                // A batch of queries, on the container or (once per input, being slower) on the
                // model repeated past one or two tiles of the batched walk, so that its
                // multi-tile path runs (lengths from exactly one or two tiles to 35 past).
                let mode = inp.u8();
                if mode & 3 == 0 && !tiled && !model.is_empty() {
                    tiled = true;
                    let tiles = if mode >= 0xe0 { 2 } else { 1 };
                    let len = tiles * TILE + usize::from((mode >> 2) & 7) * 5;
                    let long: Vec<C::Item> = model.iter().cycle().take(len).copied().collect();
                    let long = C::from_items(&long).expect("the model's items are valid");
                    batches(&long, inp, &mut lists, MAX_TILED_BATCH);
                } else {
                    batches(&c, inp, &mut lists, MAX_BATCH);
                }
            }
            _ => {
                queries(&c, &model, inp);
                queried = true;
            }
        }
        check_holds(&c, &model, "after an operation");
    }
    if !queried {
        queries(&c, &model, inp);
    }
}

/// One query of type `Q` against `c`, through the oracle's harness.
fn q<C: Bv, Q: Query<C> + Debug>(
    c: &C,
    items: &[C::Item],
    query: Q,
    r: &dyn Fn(&Q, &C::Item) -> bool,
) {
    check_pair(c, items, &query, r);
}

fn point(inp: &mut Input) -> [f32; 3] {
    inp.values()
}

fn strategy(inp: &mut Input) -> BoxStrategy {
    [
        BoxStrategy::Direct,
        BoxStrategy::MinMax,
        BoxStrategy::Xyz,
        BoxStrategy::SevenSided,
    ][usize::from(inp.u8() % 4)]
}

fn aabbs(c: &Aabbs, items: &[Aabb], inp: &mut Input) {
    let k = inp.u8();
    let i = &mut *inp;
    match k % 14 {
        0 => q(c, items, point(i), &ref_point_aabb),
        1 => q(c, items, read_item::<Aabb>(i), &ref_aabb_aabb),
        2 => {
            let b = read_item::<Aabb>(i);
            q(c, items, Staged(b, strategy(i)), &|s: &Staged, x: &Aabb| {
                ref_aabb_aabb(&s.0, x)
            })
        }
        3 => q(c, items, read_item::<Sphere>(i), &ref_sphere_aabb),
        4 => q(c, items, read_item::<Obb>(i), &ref_obb_aabb),
        5 => q(c, items, read_shape::<Frustum>(i), &ref_frustum_aabb),
        6 => q(
            c,
            items,
            Conservative(point(i)),
            &conservative_is_exact(ref_point_aabb),
        ),
        7 => q(
            c,
            items,
            Conservative(read_item::<Aabb>(i)),
            &conservative_is_exact(ref_aabb_aabb),
        ),
        8 => {
            let b = read_item::<Aabb>(i);
            let s = Conservative(Staged(b, strategy(i)));
            q(c, items, s, &|s: &Conservative<Staged>, x: &Aabb| {
                ref_aabb_aabb(&s.0.0, x)
            })
        }
        9 => q(
            c,
            items,
            Conservative(read_item::<Sphere>(i)),
            &ref_conservative_sphere_aabb,
        ),
        10 => q(
            c,
            items,
            Conservative(read_item::<Obb>(i)),
            &conservative_is_exact(ref_obb_aabb),
        ),
        11 => q(
            c,
            items,
            Conservative(read_shape::<Frustum>(i)),
            &conservative_is_exact(ref_frustum_aabb),
        ),
        12 => {
            // The stored diagonal key is `sum(max)` rounded up (documented on `Aabbs::diagonal`).
            for (n, b) in items.iter().enumerate() {
                assert_eq!(
                    c.diagonal(n).map(f32::to_bits),
                    Some(sum_directed(&b.max, true).to_bits())
                );
            }
            assert_eq!(c.diagonal(items.len()), None);
        }
        _ => {
            // Staged boxes: on every backend the same stage counts, never growing from one stage
            // to the next, the last one the hit count.
            let (b, s) = (read_item::<Aabb>(i), strategy(i));
            let counts = |backend| -> Vec<usize> {
                let p = c.with_backend(backend).expect("available");
                (0..)
                    .map_while(|stage| p.count_stage_passes(&b, s, stage))
                    .collect()
            };
            let want = counts(Backend::Scalar);
            assert_eq!(want.len(), s.stages(), "{s:?}: stages");
            assert!(
                want.windows(2).all(|w| w[0] >= w[1]),
                "{s:?}: counts grow: {want:?}"
            );
            assert_eq!(
                want.last().copied(),
                Some(c.count_hits(&b)),
                "{s:?}: last stage"
            );
            for &backend in Backend::available() {
                assert_eq!(counts(backend), want, "{s:?} stage counts on {backend}");
            }
        }
    }
}

fn spheres(c: &Spheres, items: &[Sphere], inp: &mut Input) {
    let k = inp.u8();
    let i = &mut *inp;
    match k % 8 {
        0 => q(c, items, point(i), &ref_point_sphere),
        1 => q(c, items, read_item::<Sphere>(i), &ref_sphere_sphere),
        2 => q(c, items, read_item::<Aabb>(i), &ref_aabb_sphere),
        3 => q(c, items, read_shape::<Frustum>(i), &ref_frustum_sphere),
        4 => q(
            c,
            items,
            Conservative(point(i)),
            &conservative_is_exact(ref_point_sphere),
        ),
        5 => q(
            c,
            items,
            Conservative(read_item::<Sphere>(i)),
            &conservative_is_exact(ref_sphere_sphere),
        ),
        6 => q(
            c,
            items,
            Conservative(read_item::<Aabb>(i)),
            &conservative_is_exact(ref_aabb_sphere),
        ),
        _ => q(
            c,
            items,
            Conservative(read_shape::<Frustum>(i)),
            &conservative_is_exact(ref_frustum_sphere),
        ),
    }
}

fn up_tets(c: &UpTets, items: &[UpTet], inp: &mut Input) {
    let k = inp.u8();
    let i = &mut *inp;
    match k % 4 {
        0 => q(c, items, point(i), &ref_point_up),
        1 => q(c, items, read_item::<DownTet>(i), &ref_down_up),
        2 => q(
            c,
            items,
            Conservative(point(i)),
            &conservative_is_exact(ref_point_up),
        ),
        _ => q(
            c,
            items,
            Conservative(read_item::<DownTet>(i)),
            &conservative_is_exact(ref_down_up),
        ),
    }
}

fn down_tets(c: &DownTets, items: &[DownTet], inp: &mut Input) {
    let k = inp.u8();
    let i = &mut *inp;
    match k % 4 {
        0 => q(c, items, point(i), &ref_point_down),
        1 => q(c, items, read_item::<UpTet>(i), &ref_up_down),
        2 => q(
            c,
            items,
            Conservative(point(i)),
            &conservative_is_exact(ref_point_down),
        ),
        _ => q(
            c,
            items,
            Conservative(read_item::<UpTet>(i)),
            &conservative_is_exact(ref_up_down),
        ),
    }
}

fn octahedra(c: &Octahedra, items: &[Octahedron], inp: &mut Input) {
    let k = inp.u8();
    let i = &mut *inp;
    match k % 9 {
        0 => q(c, items, point(i), &ref_point_octahedron),
        1 => q(c, items, read_item::<DownTet>(i), &ref_down_octahedron),
        2 => q(c, items, read_item::<UpTet>(i), &ref_up_octahedron),
        3 => q(
            c,
            items,
            read_item::<Octahedron>(i),
            &ref_octahedron_octahedron,
        ),
        4 => q(
            c,
            items,
            Conservative(point(i)),
            &conservative_is_exact(ref_point_octahedron),
        ),
        5 => q(
            c,
            items,
            Conservative(read_item::<DownTet>(i)),
            &conservative_is_exact(ref_down_octahedron),
        ),
        6 => q(
            c,
            items,
            Conservative(read_item::<UpTet>(i)),
            &conservative_is_exact(ref_up_octahedron),
        ),
        7 => q(
            c,
            items,
            Conservative(read_item::<Octahedron>(i)),
            &ref_conservative_octahedron_octahedron,
        ),
        _ => {
            // Stage counts (up half, 8-DOP, exact): the same on every backend, the documented
            // counts at each stage.
            let o = read_item::<Octahedron>(i);
            let counts = |backend| -> Vec<usize> {
                let p = c.with_backend(backend).expect("available");
                (0..)
                    .map_while(|stage| p.count_stage_passes(&o, stage))
                    .collect()
            };
            let want = counts(Backend::Scalar);
            let expected = if octahedron_query_ok(&o) {
                vec![
                    c.count_hits(&o.down),
                    c.count_hits(&Conservative(o)),
                    c.count_hits(&o),
                ]
            } else {
                vec![0; 3]
            };
            assert_eq!(want, expected, "octahedron stage counts of {o:?}");
            for &backend in Backend::available() {
                assert_eq!(
                    counts(backend),
                    want,
                    "octahedron stage counts on {backend}"
                );
            }
        }
    }
}

fn obbs(c: &Obbs, items: &[Obb], inp: &mut Input) {
    let k = inp.u8();
    let i = &mut *inp;
    match k % 6 {
        0 => q(c, items, point(i), &ref_point_obb),
        1 => q(c, items, read_item::<Sphere>(i), &ref_sphere_obb),
        2 => q(c, items, read_item::<Obb>(i), &ref_obb_obb),
        3 => q(
            c,
            items,
            Conservative(point(i)),
            &conservative_is_exact(ref_point_obb),
        ),
        4 => q(
            c,
            items,
            Conservative(read_item::<Sphere>(i)),
            &ref_conservative_sphere_obb,
        ),
        _ => q(
            c,
            items,
            Conservative(read_item::<Obb>(i)),
            &conservative_is_exact(ref_obb_obb),
        ),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut inp = Input::new(data);
    match inp.u8() % 6 {
        0 => run::<Aabbs>(&mut inp, aabbs, aabbs_batch),
        1 => run::<Spheres>(&mut inp, spheres, spheres_batch),
        2 => run::<UpTets>(&mut inp, up_tets, up_tets_batch),
        3 => run::<DownTets>(&mut inp, down_tets, down_tets_batch),
        4 => run::<Octahedra>(&mut inp, octahedra, octahedra_batch),
        _ => run::<Obbs>(&mut inp, obbs, obbs_batch),
    }
});

// =================================================================================================
// Batches: `count_hits_many`, `hits_many_into`, `hits_many` and `for_each_hit_many` against the
// one-query methods
// =================================================================================================

/// The batched methods, on a pinned backend or on the container's own (detected) backend.
trait Batched: Bv + Container {
    fn pin(&self, backend: Backend) -> Pinned<'_, Self>;
    fn own_count_hits_many<Q: Query<Self>>(&self, qs: &[Q]) -> Vec<u32>;
    fn own_hits_many_into<Q: Query<Self>>(&self, qs: &[Q], out: &mut HitLists);
    fn own_hits_many<Q: Query<Self>>(&self, qs: &[Q]) -> HitLists;
    fn own_for_each_hit_many<Q: Query<Self>>(&self, qs: &[Q], f: impl FnMut(u32, u32));
}

macro_rules! impl_batched {
    ($($c:ident),*) => {$(
        impl Batched for $c {
            fn pin(&self, backend: Backend) -> Pinned<'_, Self> {
                self.with_backend(backend).expect("an available backend")
            }
            fn own_count_hits_many<Q: Query<Self>>(&self, qs: &[Q]) -> Vec<u32> {
                self.count_hits_many(qs)
            }
            fn own_hits_many_into<Q: Query<Self>>(&self, qs: &[Q], out: &mut HitLists) {
                self.hits_many_into(qs, out)
            }
            fn own_hits_many<Q: Query<Self>>(&self, qs: &[Q]) -> HitLists {
                self.hits_many(qs)
            }
            fn own_for_each_hit_many<Q: Query<Self>>(&self, qs: &[Q], f: impl FnMut(u32, u32)) {
                self.for_each_hit_many(qs, f)
            }
        }
    )*};
}

impl_batched!(Aabbs, Spheres, UpTets, DownTets, Octahedra, Obbs);

/// Queries whose floats can be overwritten (to make NaN and infinite queries inside a batch).
trait Poison: Copy {
    /// `self` with float `at` (modulo the float count) set to `v`.
    fn poison(self, at: usize, v: f32) -> Self;
    /// Number of floats.
    fn floats_len(&self) -> usize;
}

macro_rules! impl_poison {
    ($($t:ty),*) => {$(
        impl Poison for $t {
            fn poison(self, at: usize, v: f32) -> Self {
                let mut f = self.floats();
                let n = f.len();
                f[at % n] = v;
                <$t>::from_floats(&f)
            }
            fn floats_len(&self) -> usize {
                self.floats().len()
            }
        }
    )*};
}

impl_poison!(
    [f32; 3], Aabb, Sphere, UpTet, DownTet, Octahedron, Obb, Frustum
);

impl<T: Poison> Poison for Conservative<T> {
    fn poison(self, at: usize, v: f32) -> Self {
        Conservative(self.0.poison(at, v))
    }
    fn floats_len(&self) -> usize {
        self.0.floats_len()
    }
}

impl Poison for Staged {
    fn poison(self, at: usize, v: f32) -> Self {
        Staged(self.0.poison(at, v), self.1)
    }
    fn floats_len(&self) -> usize {
        self.0.floats_len()
    }
}

/// The values a poisoned float takes.
const POISON: [f32; 6] = [
    f32::NAN,
    -f32::NAN,
    f32::from_bits(0x7f80_0001), // signalling NaN
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::MAX,
];

/// Up to `max` queries read with `read`: fresh ones, copies of earlier ones, and ones with one
/// or every float NaN or infinite (an empty batch too).
fn read_batch<Q: Poison>(inp: &mut Input, max: usize, read: fn(&mut Input) -> Q) -> Vec<Q> {
    let n = usize::from(inp.u8()) % (max + 1);
    let mut qs: Vec<Q> = Vec::with_capacity(n);
    for _ in 0..n {
        let m = inp.u8();
        let q = match m % 8 {
            5 if !qs.is_empty() => qs[usize::from(m >> 3) % qs.len()],
            6 => read(inp).poison(usize::from(m >> 3), POISON[usize::from(m >> 3) % 6]),
            7 => {
                let mut q = read(inp);
                let v = POISON[usize::from(m >> 3) % 6];
                for at in 0..q.floats_len() {
                    q = q.poison(at, v);
                }
                q
            }
            _ => read(inp),
        };
        qs.push(q);
    }
    qs
}

/// What a batch must give on one backend: the one-query answers of each query.
struct Expected {
    counts: Vec<u32>,
    offsets: Vec<u32>,
    indices: Vec<u32>,
    pairs: Vec<(u32, u32)>,
}

/// The one-query answers of `qs` on `p` (`count_hits` and `hits`, which must agree, with hits
/// ascending and in range).
fn expected<C: Batched, Q: Query<C> + Debug>(p: &Pinned<'_, C>, qs: &[Q], len: usize) -> Expected {
    let mut e = Expected {
        counts: Vec::new(),
        offsets: vec![0],
        indices: Vec::new(),
        pairs: Vec::new(),
    };
    for (k, q) in qs.iter().enumerate() {
        let hits: Vec<u32> = p.hits(q).collect();
        let count = p.count_hits(q);
        assert_eq!(count, hits.len(), "{q:?} on {}: count_hits", p.backend());
        assert!(
            hits.windows(2).all(|w| w[0] < w[1]) && hits.iter().all(|&i| (i as usize) < len),
            "{q:?} on {}: hits not ascending or out of range: {hits:?}",
            p.backend()
        );
        e.counts.push(count as u32);
        e.pairs.extend(hits.iter().map(|&i| (k as u32, i)));
        e.indices.extend_from_slice(&hits);
        e.offsets.push(e.indices.len() as u32);
    }
    e
}

/// `lists` holds exactly the expected CSR lists.
fn check_lists(lists: &HitLists, e: &Expected, what: &dyn Fn() -> String) {
    assert_eq!(lists.offsets, e.offsets, "{}: offsets", what());
    assert_eq!(lists.indices, e.indices, "{}: indices", what());
    assert_eq!(lists.queries(), e.counts.len(), "{}: queries()", what());
}

/// One batch of queries of type `Q` against `c`: on every available backend, `count_hits_many`,
/// `hits_many_into` (into `lists`, holding another batch's lists: the previous backend's, an
/// earlier batch's, or garbage written into its public fields), `hits_many` and
/// `for_each_hit_many` equal the one-query `count_hits` and `hits` of each query, bit for bit, and
/// the one-query answers are the same on every backend; and the container's own batched methods
/// equal those of its detected backend.
fn batch<C: Batched, Q: Query<C> + Debug + Poison>(
    c: &C,
    inp: &mut Input,
    lists: &mut HitLists,
    max: usize,
    read: fn(&mut Input) -> Q,
) {
    let stale = inp.u8();
    let qs = read_batch(inp, max, read);
    let len = c.length();
    let backends = Backend::available();
    if stale & 1 != 0 {
        // Lists of another batch on this container: its queries reversed, one fewer.
        let mut other: Vec<Q> = qs.iter().rev().copied().collect();
        other.pop();
        c.pin(backends[usize::from(stale >> 2) % backends.len()])
            .hits_many_into(&other, lists);
    }
    if stale & 2 != 0 {
        // Garbage in the public fields (the method overwrites whatever it finds there).
        lists.offsets.extend([7, 3, u32::MAX]);
        lists.indices.extend([u32::MAX, 5, 5]);
    }
    let scalar = expected(&c.pin(Backend::Scalar), &qs, len);
    for &b in backends {
        let p = c.pin(b);
        let what = || format!("{} of {len} on {b}, batch {qs:?}", C::NAME);
        let e = expected(&p, &qs, len);
        assert_eq!(
            e.indices,
            scalar.indices,
            "{}: hits differ from scalar",
            what()
        );
        assert_eq!(
            e.offsets,
            scalar.offsets,
            "{}: hits differ from scalar",
            what()
        );
        assert_eq!(
            p.count_hits_many(&qs),
            e.counts,
            "{}: count_hits_many",
            what()
        );
        p.hits_many_into(&qs, lists);
        check_lists(lists, &e, &|| format!("{}: hits_many_into", what()));
        check_lists(&p.hits_many(&qs), &e, &|| format!("{}: hits_many", what()));
        let mut pairs = Vec::new();
        p.for_each_hit_many(&qs, |q, i| pairs.push((q, i)));
        assert_eq!(pairs, e.pairs, "{}: for_each_hit_many", what());
    }
    // The container's own methods: the detected backend's.
    let e = expected(&c.pin(Backend::detect()), &qs, len);
    let what = || format!("{} of {len} (own methods), batch {qs:?}", C::NAME);
    assert_eq!(
        c.own_count_hits_many(&qs),
        e.counts,
        "{}: count_hits_many",
        what()
    );
    c.own_hits_many_into(&qs, lists);
    check_lists(lists, &e, &|| format!("{}: hits_many_into", what()));
    check_lists(&c.own_hits_many(&qs), &e, &|| {
        format!("{}: hits_many", what())
    });
    let mut pairs = Vec::new();
    c.own_for_each_hit_many(&qs, |q, i| pairs.push((q, i)));
    assert_eq!(pairs, e.pairs, "{}: for_each_hit_many", what());
}

fn staged(i: &mut Input) -> Staged {
    let b = read_item::<Aabb>(i);
    Staged(b, strategy(i))
}

/// A batch of one of the query types `aabbs` runs.
fn aabbs_batch(c: &Aabbs, inp: &mut Input, lists: &mut HitLists, max: usize) {
    let (i, l) = (&mut *inp, lists);
    match i.u8() % 12 {
        0 => batch(c, i, l, max, point),
        1 => batch(c, i, l, max, read_item::<Aabb>),
        2 => batch(c, i, l, max, staged),
        3 => batch(c, i, l, max, read_item::<Sphere>),
        4 => batch(c, i, l, max, read_item::<Obb>),
        5 => batch(c, i, l, max, read_shape::<Frustum>),
        6 => batch(c, i, l, max, |i| Conservative(point(i))),
        7 => batch(c, i, l, max, |i| Conservative(read_item::<Aabb>(i))),
        8 => batch(c, i, l, max, |i| Conservative(staged(i))),
        9 => batch(c, i, l, max, |i| Conservative(read_item::<Sphere>(i))),
        10 => batch(c, i, l, max, |i| Conservative(read_item::<Obb>(i))),
        _ => batch(c, i, l, max, |i| Conservative(read_shape::<Frustum>(i))),
    }
}

/// A batch of one of the query types `spheres` runs.
fn spheres_batch(c: &Spheres, inp: &mut Input, lists: &mut HitLists, max: usize) {
    let (i, l) = (&mut *inp, lists);
    match i.u8() % 8 {
        0 => batch(c, i, l, max, point),
        1 => batch(c, i, l, max, read_item::<Sphere>),
        2 => batch(c, i, l, max, read_item::<Aabb>),
        3 => batch(c, i, l, max, read_shape::<Frustum>),
        4 => batch(c, i, l, max, |i| Conservative(point(i))),
        5 => batch(c, i, l, max, |i| Conservative(read_item::<Sphere>(i))),
        6 => batch(c, i, l, max, |i| Conservative(read_item::<Aabb>(i))),
        _ => batch(c, i, l, max, |i| Conservative(read_shape::<Frustum>(i))),
    }
}

/// A batch of one of the query types `up_tets` runs.
fn up_tets_batch(c: &UpTets, inp: &mut Input, lists: &mut HitLists, max: usize) {
    let (i, l) = (&mut *inp, lists);
    match i.u8() % 4 {
        0 => batch(c, i, l, max, point),
        1 => batch(c, i, l, max, read_item::<DownTet>),
        2 => batch(c, i, l, max, |i| Conservative(point(i))),
        _ => batch(c, i, l, max, |i| Conservative(read_item::<DownTet>(i))),
    }
}

/// A batch of one of the query types `down_tets` runs.
fn down_tets_batch(c: &DownTets, inp: &mut Input, lists: &mut HitLists, max: usize) {
    let (i, l) = (&mut *inp, lists);
    match i.u8() % 4 {
        0 => batch(c, i, l, max, point),
        1 => batch(c, i, l, max, read_item::<UpTet>),
        2 => batch(c, i, l, max, |i| Conservative(point(i))),
        _ => batch(c, i, l, max, |i| Conservative(read_item::<UpTet>(i))),
    }
}

/// A batch of one of the query types `octahedra` runs.
fn octahedra_batch(c: &Octahedra, inp: &mut Input, lists: &mut HitLists, max: usize) {
    let (i, l) = (&mut *inp, lists);
    match i.u8() % 8 {
        0 => batch(c, i, l, max, point),
        1 => batch(c, i, l, max, read_item::<DownTet>),
        2 => batch(c, i, l, max, read_item::<UpTet>),
        3 => batch(c, i, l, max, read_item::<Octahedron>),
        4 => batch(c, i, l, max, |i| Conservative(point(i))),
        5 => batch(c, i, l, max, |i| Conservative(read_item::<DownTet>(i))),
        6 => batch(c, i, l, max, |i| Conservative(read_item::<UpTet>(i))),
        _ => batch(c, i, l, max, |i| Conservative(read_item::<Octahedron>(i))),
    }
}

/// A batch of one of the query types `obbs` runs.
fn obbs_batch(c: &Obbs, inp: &mut Input, lists: &mut HitLists, max: usize) {
    let (i, l) = (&mut *inp, lists);
    match i.u8() % 6 {
        0 => batch(c, i, l, max, point),
        1 => batch(c, i, l, max, read_item::<Sphere>),
        2 => batch(c, i, l, max, read_item::<Obb>),
        3 => batch(c, i, l, max, |i| Conservative(point(i))),
        4 => batch(c, i, l, max, |i| Conservative(read_item::<Sphere>(i))),
        _ => batch(c, i, l, max, |i| Conservative(read_item::<Obb>(i))),
    }
}
