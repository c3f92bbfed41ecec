//! Fuzz target `blocked`: `Blocked<Aabbs>`, `Blocked<Spheres>`, `Blocked<Obbs>`,
//! `Blocked<UpTets>`, `Blocked<DownTets>` and `Blocked<Octahedra>` against their flat containers
//! (issue 22), with random moves.
//!
//! Primitives come from arbitrary `f32` values, sorted or made positive so that most are valid
//! (some stay invalid: NaN, infinities, radii past `Sphere::MAX_RADIUS`), and are sometimes
//! repeated (a crowd at one point) or scaled (huge, tiny, subnormal). The input's length decides
//! the container's (up to a few thousand, so that two and three levels of bounds appear; the
//! primitives then repeat the input's with offsets). A sequence of operations runs on the blocked
//! container and its flat twin:
//! * a query of every type the container answers, from arbitrary bits, on every backend of
//!   `Backend::available()` and on the default one: `hits`, `count_hits`, `any_hit`,
//!   `extend_hits` (appending after existing entries) and `hit_mask` (a word past the container
//!   left untouched) must equal the flat container's, bit for bit;
//! * `set` of a random index to an arbitrary primitive: the same `Result` as the flat `set`
//!   (an error names the index and changes nothing), the same `get` after;
//! * `set_many` of up to 8 moves: what `set` of each in turn leaves on a twin (the same
//!   container, bit for bit), or the first error and nothing changed;
//! * `refit`, `rebuild` and `optimize`: nothing visible changes (`get` of every index), the
//!   looseness is never NaN, 1 after a rebuild, and at most the threshold when `optimize` kept
//!   or refit the blocks.
#![no_main]

#[path = "../../tests/common/mod.rs"]
#[macro_use]
#[allow(unused_imports)]
mod common;
mod input;

use bvlanes::{
    Aabb, Aabbs, Backend, BlockQuery, Blockable, Blocked, BoxStrategy, Conservative, DownTet,
    DownTets, Frustum, Obb, Obbs, Octahedra, Octahedron, Optimized, Pinned, Query, Sphere, Spheres,
    Staged, UpTet, UpTets,
};
use common::Shape;
use core::fmt::Debug;
use input::Input;
use libfuzzer_sys::fuzz_target;

/// Operations per input.
const MAX_OPS: usize = 24;
/// The longest container.
const MAX_LEN: usize = 5000;

/// The blocked answers of `q` equal the flat ones on every backend, through every method.
fn same<C: Blockable + Debug, Q: BlockQuery<C> + Query<C> + Debug>(
    flat: &C,
    blocked: &Blocked<C>,
    q: &Q,
) {
    let words = flat.len().div_ceil(64);
    for &b in Backend::available() {
        let f = Pinned::new(flat, b).expect("available");
        let k = blocked.with_backend(b).expect("available");
        let want: Vec<u32> = f.hits(q).collect();
        assert_eq!(k.hits(q).collect::<Vec<_>>(), want, "{b}: hits of {q:?}");
        assert_eq!(k.count_hits(q), want.len(), "{b}: count of {q:?}");
        assert_eq!(k.any_hit(q), !want.is_empty(), "{b}: any of {q:?}");
        let mut out = vec![u32::MAX];
        k.extend_hits(q, &mut out);
        assert_eq!(out[0], u32::MAX);
        assert_eq!(out[1..], want[..], "{b}: extend_hits of {q:?}");
        let (mut m, mut w) = (vec![!0u64; words + 1], vec![!0u64; words + 1]);
        k.hit_mask(q, &mut m);
        f.hit_mask(q, &mut w);
        assert_eq!(m, w, "{b}: hit_mask of {q:?}");
    }
    assert_eq!(
        blocked.count_hits(q),
        Pinned::new(flat, Backend::detect()).unwrap().count_hits(q)
    );
}

/// A value, sometimes scaled to a huge, tiny or subnormal magnitude.
fn value(inp: &mut Input) -> f32 {
    let v = inp.value();
    match inp.u8() % 8 {
        0 => v * 1e30,
        1 => v * 1e-30,
        2 => v * 1e-40,
        _ => v,
    }
}

fn aabb(inp: &mut Input) -> Aabb {
    let (a, b): ([f32; 3], [f32; 3]) = (
        core::array::from_fn(|_| value(inp)),
        core::array::from_fn(|_| value(inp)),
    );
    if inp.u8().is_multiple_of(8) {
        Aabb::new(a, b) // maybe inverted
    } else {
        Aabb::new(
            core::array::from_fn(|i| a[i].min(b[i])),
            core::array::from_fn(|i| a[i].max(b[i])),
        )
    }
}

fn sphere(inp: &mut Input) -> Sphere {
    let c: [f32; 3] = core::array::from_fn(|_| value(inp));
    let r = value(inp);
    Sphere::new(
        c,
        if inp.u8().is_multiple_of(8) {
            r
        } else {
            r.abs()
        },
    )
}

fn frustum(inp: &mut Input) -> Frustum {
    Frustum {
        planes: core::array::from_fn(|_| core::array::from_fn(|_| value(inp))),
    }
}

fn obb(inp: &mut Input) -> Obb {
    let f: Vec<f32> = (0..15).map(|_| value(inp)).collect();
    let s = core::f32::consts::FRAC_1_SQRT_2;
    let axes = match inp.u8() % 3 {
        0 => return Obb::from_floats(&f),
        // Orthonormal axes: the identity, or turned 45 degrees about z.
        1 => [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        _ => [[s, s, 0.0], [-s, s, 0.0], [0.0, 0.0, 1.0]],
    };
    Obb::new([f[0], f[1], f[2]], [f[3], f[4], f[5]].map(f32::abs), axes)
}

/// Four bounds along the tetrahedral axes, mostly with a non-positive sum (a non-empty up
/// tetrahedron; negated, a down one); sometimes left as they come (maybe empty).
fn tet_bounds(inp: &mut Input) -> [f32; 4] {
    let m: [f32; 4] = core::array::from_fn(|_| value(inp));
    if !inp.u8().is_multiple_of(8) && m.iter().sum::<f32>() > 0.0 {
        m.map(|v| -v)
    } else {
        m
    }
}

fn up_tet(inp: &mut Input) -> UpTet {
    UpTet::new(tet_bounds(inp))
}

fn down_tet(inp: &mut Input) -> DownTet {
    DownTet::new(tet_bounds(inp).map(|v| -v))
}

/// An up and a down tetrahedron, mostly with `up <= down` on every axis (maybe still empty by
/// the sum conditions).
fn octahedron(inp: &mut Input) -> Octahedron {
    let (u, d) = (up_tet(inp).min, down_tet(inp).max);
    if inp.u8().is_multiple_of(8) {
        Octahedron::new(UpTet::new(u), DownTet::new(d))
    } else {
        Octahedron::new(
            UpTet::new(core::array::from_fn(|k| u[k].min(d[k]))),
            DownTet::new(core::array::from_fn(|k| u[k].max(d[k]))),
        )
    }
}

/// Tetrahedral bounds moved by `d` along x (`t_A`, `t_B` grow, `t_C`, `t_D` shrink).
fn shift_tet(m: [f32; 4], d: f32) -> [f32; 4] {
    [m[0] + d, m[1] + d, m[2] - d, m[3] - d]
}

/// The primitives: read from the input, then repeated with offsets up to the length asked for.
fn items<T: Copy>(inp: &mut Input, read: fn(&mut Input) -> T, shift: fn(T, f32) -> T) -> Vec<T> {
    let want = (usize::from(inp.u8()) * 20 + usize::from(inp.u8() % 20)).min(MAX_LEN);
    let fresh = usize::from(inp.u8() % 64) + 1;
    let base: Vec<T> = (0..fresh).map(|_| read(inp)).collect();
    let step = inp.value();
    (0..want)
        .map(|i| shift(base[i % fresh], step * (i / fresh) as f32))
        .collect()
}

fn run<C>(
    inp: &mut Input,
    build: fn(&[C::Primitive]) -> Result<C, bvlanes::BvError>,
    read: fn(&mut Input) -> C::Primitive,
    shift: fn(C::Primitive, f32) -> C::Primitive,
    query: fn(&C, &Blocked<C>, &mut Input),
) where
    C: Blockable + Debug + Clone + FlatAccess<P = C::Primitive>,
    C::Primitive: Debug + PartialEq,
{
    let items = items(inp, read, shift);
    let (Ok(mut flat), Ok(mut blocked)) = (build(&items), Blocked::<C>::from_slice(&items)) else {
        assert_eq!(build(&items).err(), Blocked::<C>::from_slice(&items).err());
        return;
    };
    let check_get = |flat: &C, blocked: &Blocked<C>| {
        for i in 0..=items.len() {
            assert_eq!(blocked.get(i), get(flat, i), "get({i})");
        }
    };
    for _ in 0..MAX_OPS {
        if inp.is_empty() {
            break;
        }
        match inp.u8() % 9 {
            0 => {
                let i = inp.u32() as usize % (items.len() + 1);
                let item = read(inp);
                let a = set(&mut flat, i, item);
                let b = blocked.set(i, item);
                assert_eq!(a, b, "set({i}, {item:?})");
                assert_eq!(blocked.get(i), get(&flat, i));
            }
            1 => {
                blocked.refit();
                check_get(&flat, &blocked);
                assert!(blocked.looseness() >= 0.0, "{}", blocked.looseness());
            }
            2 => {
                blocked.rebuild();
                check_get(&flat, &blocked);
                assert_eq!(blocked.looseness(), 1.0);
            }
            3 => {
                let max = f64::from(inp.u8()) / 64.0;
                match blocked.optimize(max) {
                    Optimized::Kept | Optimized::Refit => assert!(blocked.looseness() <= max),
                    Optimized::Rebuilt => assert_eq!(blocked.looseness(), 1.0),
                }
                check_get(&flat, &blocked);
            }
            8 => {
                // `set_many` of up to 8 moves against `set` of each in turn on a twin: the
                // same container when all are valid; else the first error, and nothing moved.
                let moves: Vec<(usize, C::Primitive)> = (0..inp.u8() % 9)
                    .map(|_| (inp.u32() as usize % (items.len() + 1), read(inp)))
                    .collect();
                let before = format!("{blocked:?}");
                let (mut flat_twin, mut twin) = (flat.clone(), blocked.clone());
                let want = moves.iter().try_for_each(|&(i, item)| {
                    let a = set(&mut flat_twin, i, item);
                    assert_eq!(a, twin.set(i, item), "set({i}, {item:?})");
                    a
                });
                assert_eq!(blocked.set_many(&moves), want, "set_many({moves:?})");
                if want.is_ok() {
                    flat = flat_twin;
                    assert_eq!(format!("{blocked:?}"), format!("{twin:?}"));
                } else {
                    assert_eq!(format!("{blocked:?}"), before);
                }
                check_get(&flat, &blocked);
            }
            _ => query(&flat, &blocked, inp),
        }
    }
}

/// `get` and `set` of the flat containers (the two have no shared trait for them).
trait FlatAccess: Sized {
    type P;
    fn get_(&self, i: usize) -> Option<Self::P>;
    fn set_(&mut self, i: usize, p: Self::P) -> Result<(), bvlanes::BvError>;
}

macro_rules! flat_access {
    ($($c:ty: $p:ty),*) => {$(
        impl FlatAccess for $c {
            type P = $p;
            fn get_(&self, i: usize) -> Option<$p> {
                self.get(i)
            }
            fn set_(&mut self, i: usize, p: $p) -> Result<(), bvlanes::BvError> {
                self.set(i, p)
            }
        }
    )*};
}

flat_access!(Aabbs: Aabb, Spheres: Sphere, UpTets: UpTet, DownTets: DownTet, Octahedra: Octahedron, Obbs: Obb);

fn get<C>(c: &C, i: usize) -> Option<C::Primitive>
where
    C: Blockable + FlatAccess<P = C::Primitive>,
{
    c.get_(i)
}

fn set<C>(c: &mut C, i: usize, p: C::Primitive) -> Result<(), bvlanes::BvError>
where
    C: Blockable + FlatAccess<P = C::Primitive>,
{
    c.set_(i, p)
}

fn strategy(inp: &mut Input) -> BoxStrategy {
    [
        BoxStrategy::Direct,
        BoxStrategy::MinMax,
        BoxStrategy::Xyz,
        BoxStrategy::SevenSided,
    ][usize::from(inp.u8() % 4)]
}

fn aabbs_query(flat: &Aabbs, blocked: &Blocked<Aabbs>, inp: &mut Input) {
    let p: [f32; 3] = core::array::from_fn(|_| value(inp));
    match inp.u8() % 12 {
        0 => same(flat, blocked, &p),
        1 => same(flat, blocked, &aabb(inp)),
        2 => same(flat, blocked, &Staged(aabb(inp), strategy(inp))),
        3 => same(flat, blocked, &sphere(inp)),
        4 => same(flat, blocked, &Conservative(sphere(inp))),
        5 => same(flat, blocked, &frustum(inp)),
        6 => same(flat, blocked, &obb(inp)),
        7 => same(flat, blocked, &Conservative(p)),
        8 => same(flat, blocked, &Conservative(aabb(inp))),
        9 => same(
            flat,
            blocked,
            &Conservative(Staged(aabb(inp), strategy(inp))),
        ),
        10 => same(flat, blocked, &Conservative(frustum(inp))),
        _ => same(flat, blocked, &Conservative(obb(inp))),
    }
}

fn spheres_query(flat: &Spheres, blocked: &Blocked<Spheres>, inp: &mut Input) {
    let p: [f32; 3] = core::array::from_fn(|_| value(inp));
    match inp.u8() % 8 {
        0 => same(flat, blocked, &p),
        1 => same(flat, blocked, &sphere(inp)),
        2 => same(flat, blocked, &aabb(inp)),
        3 => same(flat, blocked, &frustum(inp)),
        4 => same(flat, blocked, &Conservative(p)),
        5 => same(flat, blocked, &Conservative(sphere(inp))),
        6 => same(flat, blocked, &Conservative(aabb(inp))),
        _ => same(flat, blocked, &Conservative(frustum(inp))),
    }
}

fn obbs_query(flat: &Obbs, blocked: &Blocked<Obbs>, inp: &mut Input) {
    let p: [f32; 3] = core::array::from_fn(|_| value(inp));
    match inp.u8() % 6 {
        0 => same(flat, blocked, &p),
        1 => same(flat, blocked, &sphere(inp)),
        2 => same(flat, blocked, &obb(inp)),
        3 => same(flat, blocked, &Conservative(p)),
        4 => same(flat, blocked, &Conservative(sphere(inp))),
        _ => same(flat, blocked, &Conservative(obb(inp))),
    }
}

fn up_tets_query(flat: &UpTets, blocked: &Blocked<UpTets>, inp: &mut Input) {
    let p: [f32; 3] = core::array::from_fn(|_| value(inp));
    match inp.u8() % 4 {
        0 => same(flat, blocked, &p),
        1 => same(flat, blocked, &Conservative(p)),
        2 => same(flat, blocked, &down_tet(inp)),
        _ => same(flat, blocked, &Conservative(down_tet(inp))),
    }
}

fn down_tets_query(flat: &DownTets, blocked: &Blocked<DownTets>, inp: &mut Input) {
    let p: [f32; 3] = core::array::from_fn(|_| value(inp));
    match inp.u8() % 4 {
        0 => same(flat, blocked, &p),
        1 => same(flat, blocked, &Conservative(p)),
        2 => same(flat, blocked, &up_tet(inp)),
        _ => same(flat, blocked, &Conservative(up_tet(inp))),
    }
}

fn octahedra_query(flat: &Octahedra, blocked: &Blocked<Octahedra>, inp: &mut Input) {
    let p: [f32; 3] = core::array::from_fn(|_| value(inp));
    match inp.u8() % 8 {
        0 => same(flat, blocked, &p),
        1 => same(flat, blocked, &Conservative(p)),
        2 => same(flat, blocked, &down_tet(inp)),
        3 => same(flat, blocked, &Conservative(down_tet(inp))),
        4 => same(flat, blocked, &up_tet(inp)),
        5 => same(flat, blocked, &Conservative(up_tet(inp))),
        6 => same(flat, blocked, &octahedron(inp)),
        _ => same(flat, blocked, &Conservative(octahedron(inp))),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut inp = Input::new(data);
    match inp.u8() % 6 {
        5 => run::<Obbs>(
            &mut inp,
            Obbs::from_slice,
            obb,
            |o, d| Obb::new(o.center.map(|v| v + d), o.half_extents, o.axes),
            obbs_query,
        ),
        0 => run::<Aabbs>(
            &mut inp,
            Aabbs::from_slice,
            aabb,
            |b, d| Aabb::new(b.min.map(|v| v + d), b.max.map(|v| v + d)),
            aabbs_query,
        ),
        1 => run::<Spheres>(
            &mut inp,
            Spheres::from_slice,
            sphere,
            |s, d| Sphere::new(s.center.map(|v| v + d), s.radius),
            spheres_query,
        ),
        2 => run::<UpTets>(
            &mut inp,
            UpTets::from_slice,
            up_tet,
            |t, d| UpTet::new(shift_tet(t.min, d)),
            up_tets_query,
        ),
        3 => run::<DownTets>(
            &mut inp,
            DownTets::from_slice,
            down_tet,
            |t, d| DownTet::new(shift_tet(t.max, d)),
            down_tets_query,
        ),
        _ => run::<Octahedra>(
            &mut inp,
            Octahedra::from_slice,
            octahedron,
            |o, d| {
                Octahedron::new(
                    UpTet::new(shift_tet(o.up.min, d)),
                    DownTet::new(shift_tet(o.down.max, d)),
                )
            },
            octahedra_query,
        ),
    }
});
