//! What a container must tell the blocked form about its primitives: the box that orders a
//! primitive along the curve, the bounds of a chunk of them, and how to reorder them.

use super::level::{DownHulls, Level, OctaHulls, UpHulls, lanes_in};
use crate::error::BvError;
use crate::lanes::Chunk;
use crate::primitive::{Aabb, DownTet, Obb, Octahedron, Sphere, UpTet};
use crate::query::sphere_reach_box;
use crate::round::{f32_at_least, f32_at_most};
use crate::soa::{Aabbs, Container, DownTets, Obbs, Octahedra, Spheres, UpTets};
use bytemuck::Zeroable;

/// The containers that have a blocked form ([`Blocked`](super::Blocked)): [`Aabbs`],
/// [`Spheres`], [`Obbs`], [`UpTets`], [`DownTets`] and [`Octahedra`]. Sealed.
pub trait Blockable: Container + Clone + private::Layout {}

impl Blockable for Aabbs {}

pub(crate) mod private {
    use super::{BvError, Chunk, Container, Level};

    /// The sealed machinery of [`Blockable`](super::Blockable).
    pub trait Layout: Container + Sized {
        /// The levels of block bounds above the primitives.
        type Level: Level;
        /// Number of primitives.
        fn count(&self) -> usize;
        /// The boxes of the primitives of chunk `chunk` whose centres place them on the curve and
        /// whose largest sides mark them outsized (not rounded: they only order): min x, y, z,
        /// max x, y, z, one lane per primitive (lanes past `count()` unspecified).
        fn key_chunk(&self, chunk: usize) -> [Chunk; 6];
        /// Bounds of the primitives of chunk `chunk` (its lanes below `count()`): a box that every
        /// primitive the container's queries can report lies in, as far as the block tests need
        /// (see `reach.rs`). Finite.
        fn chunk_bounds(&self, chunk: usize) -> <Self::Level as Level>::Bound;
        /// The bounds one primitive adds to its block (what `chunk_bounds` takes of it).
        fn item_bounds(item: &Self::Primitive) -> <Self::Level as Level>::Bound;
        /// The container whose primitive `p` is primitive `order[p]` of this one, gathered on up
        /// to `threads` threads (0: all of rayon's pool).
        fn gather(&self, order: &[u32], threads: usize) -> Self;
        /// Primitive `i`, if any.
        fn item(&self, i: usize) -> Option<Self::Primitive>;
        /// The container's validation of `item` as primitive `index`.
        fn check_item(item: &Self::Primitive, index: usize) -> Result<(), BvError>;
        /// The container's own `set`: overwrites primitive `i` with `item` after validating both
        /// (the trait is sealed, but its methods can be reached through [`Blockable`]'s bound,
        /// so none of them may skip a check the container's public methods make).
        ///
        /// [`Blockable`]: super::Blockable
        fn put(&mut self, i: usize, item: Self::Primitive) -> Result<(), BvError>;
        /// A hint to fetch chunk `chunk` of the columns most queries read.
        fn prefetch_chunk(&self, chunk: usize);
        /// A hint to fetch row `i` in every column (ahead of a [`put`](Layout::put) of it).
        fn prefetch_row(&self, i: usize);
        /// A container holding `items` (validated, naming the index in `items`).
        fn from_items(items: &[Self::Primitive]) -> Result<Self, BvError>;
    }
}

/// The `Layout` methods every container writes the same way over its rows and `K` columns:
/// count, gather, a row, its validation, `set`, `from_slice` and the prefetch of a chunk.
macro_rules! rows_layout {
    ($c:ty, $prim:ty) => {
        #[inline]
        fn count(&self) -> usize {
            self.len()
        }

        fn gather(&self, order: &[u32], threads: usize) -> Self {
            <$c>::from_columns(self.columns().gather(order, threads))
        }

        #[inline]
        fn item(&self, i: usize) -> Option<$prim> {
            self.get(i)
        }

        #[inline]
        fn check_item(item: &$prim, index: usize) -> Result<(), BvError> {
            item.check(index)
        }

        #[inline]
        fn put(&mut self, i: usize, item: $prim) -> Result<(), BvError> {
            self.set(i, item)
        }

        fn from_items(items: &[$prim]) -> Result<Self, BvError> {
            <$c>::from_slice(items)
        }

        #[inline(always)]
        fn prefetch_row(&self, i: usize) {
            self.columns().prefetch_row(i);
        }

        #[inline(always)]
        fn prefetch_chunk(&self, chunk: usize) {
            // The columns of `view()` (for boxes the six of the box: the diagonal key is read by
            // the 7-sided strategy only).
            self.view().prefetch_chunk(chunk);
        }
    };
}

/// The bound (of level kind `$level`) of chunk `$chunk` of `$len` rows, lane `$l`'s bound being
/// `$bound`: the bounds of the chunk's rows (its lanes below `$len`) combined. A macro, not a
/// function taking a closure: the block bounds are computed inside a tier, where a closure was
/// compiled out of line (`.ci/check-inlining`).
macro_rules! fold_bounds {
    ($level:ty, $len:expr, $chunk:expr, |$l:ident| $bound:expr) => {{
        let mut b = {
            let $l = 0;
            $bound
        };
        for $l in 1..lanes_in($len, $chunk) {
            b = <$level as Level>::union(&b, &$bound);
        }
        b
    }};
}

impl private::Layout for Aabbs {
    type Level = Aabbs;

    rows_layout!(Aabbs, Aabb);

    #[inline(always)]
    fn key_chunk(&self, chunk: usize) -> [Chunk; 6] {
        let cols = self.columns();
        core::array::from_fn(|k| cols.col(k)[chunk])
    }

    #[inline(always)]
    fn chunk_bounds(&self, chunk: usize) -> Aabb {
        // The boxes themselves: the same as a level's node over them.
        Level::chunk_bound(self, chunk)
    }

    #[inline]
    fn item_bounds(item: &Aabb) -> Aabb {
        *item
    }
}

impl Blockable for Spheres {}

/// A sphere's bounds in its block: its reach box (`Conservative(sphere)`'s reach `c -/+ (r (1 +
/// 2^-20) + 2^-74)`, which every exact f32 sphere test's hits lie in, computed in f64 and rounded
/// outward: `sphere_reach_box`), clamped to `-f32::MAX..=f32::MAX` (the levels hold finite boxes;
/// `reach.rs` says why the clamp changes no block test). The same real reach as
/// `widened_sphere_box`, whose directed f32 roundings cost about three times as much here.
#[inline(always)]
fn sphere_bounds(s: &Sphere) -> Aabb {
    let b = sphere_reach_box(s);
    let clamp = |v: f32| v.clamp(-f32::MAX, f32::MAX);
    Aabb::new(b.min.map(clamp), b.max.map(clamp))
}

impl private::Layout for Spheres {
    type Level = Aabbs;

    rows_layout!(Spheres, Sphere);

    #[inline(always)]
    fn key_chunk(&self, chunk: usize) -> [Chunk; 6] {
        let cols = self.columns();
        let r = &cols.col(3)[chunk];
        let mut k = [Chunk::zeroed(); 6];
        for a in 0..3 {
            let c = &cols.col(a)[chunk];
            for l in 0..Chunk::LANES {
                k[a].0[l] = c.0[l] - r.0[l];
                k[a + 3].0[l] = c.0[l] + r.0[l];
            }
        }
        k
    }

    #[inline(always)]
    fn chunk_bounds(&self, chunk: usize) -> Aabb {
        // From the chunk's columns lane by lane (through `get`, row by row, the build was slower
        // on the tier than before it).
        let cols = self.columns();
        let (x, y, z) = (
            &cols.col(0)[chunk].0,
            &cols.col(1)[chunk].0,
            &cols.col(2)[chunk].0,
        );
        let r = &cols.col(3)[chunk].0;
        fold_bounds!(Aabbs, self.len(), chunk, |l| sphere_bounds(&Sphere {
            center: [x[l], y[l], z[l]],
            radius: r[l],
        }))
    }

    #[inline]
    fn item_bounds(item: &Sphere) -> Aabb {
        sphere_bounds(item)
    }
}

impl Blockable for Obbs {}

/// An oriented box's bounding box in f64, containing the real one: per axis `c -/+ reach`,
/// `reach = sum_k h_k |a_k|` (the products of f32 are exact in f64, the two additions lose at
/// most `2^-52` of the sum, which the factor `1 + 2^-50` covers), each end one f64 ulp outward
/// of its rounded value.
#[inline(always)]
fn obb_box(c: [f32; 3], h: [f32; 3], axes: [[f32; 3]; 3]) -> ([f64; 3], [f64; 3]) {
    let mut lo = [0.0; 3];
    let mut hi = [0.0; 3];
    for a in 0..3 {
        let term = |k: usize| f64::from(h[k]) * f64::from(axes[k][a]).abs();
        let reach = ((term(0) + term(1)) + term(2)) * (1.0 + f64::powi(2.0, -50));
        lo[a] = (f64::from(c[a]) - reach).next_down();
        hi[a] = (f64::from(c[a]) + reach).next_up();
    }
    (lo, hi)
}

/// The f32 box of [`obb_box`]'s bounds, rounded outward and clamped to `-f32::MAX..=f32::MAX`
/// (the levels hold finite boxes; `docs/algorithms.md` says why the clamp changes no block
/// test).
#[inline(always)]
fn f32_bounds(lo: [f64; 3], hi: [f64; 3]) -> Aabb {
    let clamp = |v: f32| v.clamp(-f32::MAX, f32::MAX);
    Aabb::new(
        lo.map(|v| clamp(f32_at_most(v))),
        hi.map(|v| clamp(f32_at_least(v))),
    )
}

/// An oriented box's bounds in its block.
#[inline]
fn obb_bounds(o: &Obb) -> Aabb {
    let (lo, hi) = obb_box(o.center, o.half_extents, o.axes);
    f32_bounds(lo, hi)
}

impl private::Layout for Obbs {
    type Level = Aabbs;

    rows_layout!(Obbs, Obb);

    #[inline(always)]
    fn key_chunk(&self, chunk: usize) -> [Chunk; 6] {
        // Centre -/+ the reach along each world axis, sum_k h_k |axes[k][a]| (in f32: it only
        // orders).
        let cols = self.columns();
        let mut k = [Chunk::zeroed(); 6];
        for a in 0..3 {
            let c = &cols.col(a)[chunk];
            for l in 0..Chunk::LANES {
                let mut reach = 0.0;
                for row in 0..3 {
                    let h = cols.col(3 + row)[chunk].0[l];
                    reach += h * cols.col(6 + 3 * row + a)[chunk].0[l].abs();
                }
                k[a].0[l] = c.0[l] - reach;
                k[a + 3].0[l] = c.0[l] + reach;
            }
        }
        k
    }

    #[inline(always)]
    fn chunk_bounds(&self, chunk: usize) -> Aabb {
        // The lanes' f64 boxes combined, then rounded outward once.
        let cols = self.columns();
        let v = |k: usize, l: usize| cols.col(k)[chunk].0[l];
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for l in 0..lanes_in(self.len(), chunk) {
            let axes = core::array::from_fn(|k| core::array::from_fn(|a| v(6 + 3 * k + a, l)));
            let (bl, bh) = obb_box(
                core::array::from_fn(|a| v(a, l)),
                core::array::from_fn(|a| v(3 + a, l)),
                axes,
            );
            for a in 0..3 {
                lo[a] = lo[a].min(bl[a]);
                hi[a] = hi[a].max(bh[a]);
            }
        }
        f32_bounds(lo, hi)
    }

    #[inline]
    fn item_bounds(item: &Obb) -> Aabb {
        obb_bounds(item)
    }
}

/// The box of an up tetrahedron with lower bounds `m` along the [`TET_AXES`](crate::TET_AXES):
/// `x = (t_A + t_B) / 2 = -(t_C + t_D) / 2`, and likewise `y` (A, C against B, D) and `z` (A, D
/// against B, C), so `x` runs from `(m_A + m_B) / 2` to `-(m_C + m_D) / 2`. In f32, halves
/// added (no overflow); it only orders, so its rounding does not matter.
#[inline(always)]
fn up_box(m: [f32; 4]) -> [f32; 6] {
    let h = m.map(|v| v * 0.5);
    [
        h[0] + h[1],
        h[0] + h[2],
        h[0] + h[3],
        -(h[2] + h[3]),
        -(h[1] + h[3]),
        -(h[1] + h[2]),
    ]
}

/// The box of a down tetrahedron with upper bounds `m`: [`up_box`] mirrored (`x` from
/// `-(m_C + m_D) / 2` to `(m_A + m_B) / 2`).
#[inline(always)]
fn down_box(m: [f32; 4]) -> [f32; 6] {
    let u = up_box(m.map(|v| -v));
    [-u[3], -u[4], -u[5], -u[0], -u[1], -u[2]]
}

/// Key boxes of chunk `chunk` from one box per lane.
#[inline(always)]
fn key_boxes(lanes: impl Fn(usize) -> [f32; 6]) -> [Chunk; 6] {
    let mut k = [Chunk::zeroed(); 6];
    for l in 0..Chunk::LANES {
        let b = lanes(l);
        for (a, v) in b.into_iter().enumerate() {
            k[a].0[l] = v;
        }
    }
    k
}

/// The `Layout` of a container of tetrahedra or octahedra: everything but the key boxes and
/// the bounds' kind, which the caller writes.
macro_rules! hull_layout {
    ($c:ty, $prim:ty) => {
        rows_layout!($c, $prim);

        #[inline(always)]
        fn chunk_bounds(&self, chunk: usize) -> <Self::Level as Level>::Bound {
            fold_bounds!(Self::Level, self.len(), chunk, |l| Self::item_bounds(
                &self.get(chunk * Chunk::LANES + l).expect("a row")
            ))
        }
    };
}

/// The blocked form of a container of up or down tetrahedra: its bounds along the four axes,
/// twice (outer and inner, `level.rs`), and the key box of [`up_box`] or [`down_box`].
macro_rules! tets_layout {
    ($c:ty, $prim:ty, $level:ty, $bounds:ident, $key_box:ident) => {
        impl Blockable for $c {}

        impl private::Layout for $c {
            type Level = $level;

            hull_layout!($c, $prim);

            #[inline(always)]
            fn key_chunk(&self, chunk: usize) -> [Chunk; 6] {
                let cols = self.columns();
                key_boxes(|l| $key_box(core::array::from_fn(|k| cols.col(k)[chunk].0[l])))
            }

            #[inline]
            fn item_bounds(item: &$prim) -> [f32; 8] {
                let m = item.$bounds;
                [m[0], m[1], m[2], m[3], m[0], m[1], m[2], m[3]]
            }
        }
    };
}

tets_layout!(UpTets, UpTet, UpHulls, min, up_box);
tets_layout!(DownTets, DownTet, DownHulls, max, down_box);

impl Blockable for Octahedra {}

impl private::Layout for Octahedra {
    type Level = OctaHulls;

    hull_layout!(Octahedra, Octahedron);

    #[inline(always)]
    fn key_chunk(&self, chunk: usize) -> [Chunk; 6] {
        let cols = self.columns();
        key_boxes(|l| {
            let (u, d) = (
                up_box(core::array::from_fn(|k| cols.col(k)[chunk].0[l])),
                down_box(core::array::from_fn(|k| cols.col(4 + k)[chunk].0[l])),
            );
            // The box of the intersection of the two tetrahedra (it only orders: a box inverted
            // by rounding is fine).
            [
                u[0].max(d[0]),
                u[1].max(d[1]),
                u[2].max(d[2]),
                u[3].min(d[3]),
                u[4].min(d[4]),
                u[5].min(d[5]),
            ]
        })
    }

    #[inline]
    fn item_bounds(item: &Octahedron) -> [f32; 16] {
        let (u, d) = (item.up.min, item.down.max);
        core::array::from_fn(|k| match k / 4 {
            0 | 2 => u[k % 4],
            _ => d[k % 4],
        })
    }
}
