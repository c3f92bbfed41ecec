//! What a container must tell the blocked form about its primitives: the box that orders a
//! primitive along the curve, the bounds of a chunk of them, and how to reorder them.

use crate::error::BvError;
use crate::lanes::Chunk;
use crate::primitive::{Aabb, Sphere};
use crate::query::widened_sphere_box;
use crate::soa::{Aabbs, Container, Spheres};
use bytemuck::Zeroable;

/// The containers that have a blocked form ([`Blocked`](super::Blocked)): [`Aabbs`] and
/// [`Spheres`]. Sealed.
pub trait Blockable: Container + Clone + private::Layout {}

impl Blockable for Aabbs {}

pub(crate) mod private {
    use super::{Aabb, BvError, Chunk, Container};

    /// The sealed machinery of [`Blockable`](super::Blockable).
    pub trait Layout: Container + Sized {
        /// Number of primitives.
        fn count(&self) -> usize;
        /// The boxes of the primitives of chunk `chunk` whose centres place them on the curve and
        /// whose largest sides mark them outsized (not rounded: they only order): min x, y, z,
        /// max x, y, z, one lane per primitive (lanes past `count()` unspecified).
        fn key_chunk(&self, chunk: usize) -> [Chunk; 6];
        /// Bounds of the primitives of chunk `chunk` (its lanes below `count()`): a box that every
        /// primitive the container's queries can report lies in, as far as the block tests need
        /// (see `reach.rs`). Finite.
        fn chunk_bounds(&self, chunk: usize) -> Aabb;
        /// The bounds one primitive adds to its block (what `chunk_bounds` takes of it).
        fn item_bounds(item: &Self::Primitive) -> Aabb;
        /// The container whose primitive `p` is primitive `order[p]` of this one.
        fn gather(&self, order: &[u32]) -> Self;
        /// Primitive `i`, if any.
        fn item(&self, i: usize) -> Option<Self::Primitive>;
        /// The container's validation of `item` as primitive `index`.
        fn check_item(item: &Self::Primitive, index: usize) -> Result<(), BvError>;
        /// Overwrites primitive `i < count()` with a checked item.
        fn put(&mut self, i: usize, item: Self::Primitive);
        /// A hint to fetch chunk `chunk` of the columns most queries read.
        fn prefetch_chunk(&self, chunk: usize);
        /// A container holding `items` (validated, naming the index in `items`).
        fn from_items(items: &[Self::Primitive]) -> Result<Self, BvError>;
    }
}

/// Min over the first `n` lanes of `c` (n >= 1).
#[inline]
fn lanes_min(c: &Chunk, n: usize) -> f32 {
    c.0[..n].iter().copied().fold(f32::INFINITY, f32::min)
}

/// Max over the first `n` lanes of `c` (n >= 1).
#[inline]
fn lanes_max(c: &Chunk, n: usize) -> f32 {
    c.0[..n].iter().copied().fold(f32::NEG_INFINITY, f32::max)
}

impl private::Layout for Aabbs {
    #[inline]
    fn count(&self) -> usize {
        self.len()
    }

    #[inline(always)]
    fn key_chunk(&self, chunk: usize) -> [Chunk; 6] {
        let cols = self.columns();
        core::array::from_fn(|k| cols.col(k)[chunk])
    }

    fn chunk_bounds(&self, chunk: usize) -> Aabb {
        let cols = self.columns();
        let n = (self.len() - chunk * Chunk::LANES).min(Chunk::LANES);
        debug_assert!(n > 0);
        let min = |k: usize| lanes_min(&cols.col(k)[chunk], n);
        let max = |k: usize| lanes_max(&cols.col(k)[chunk], n);
        Aabb::new([min(0), min(1), min(2)], [max(3), max(4), max(5)])
    }

    #[inline]
    fn item_bounds(item: &Aabb) -> Aabb {
        *item
    }

    fn gather(&self, order: &[u32]) -> Self {
        Aabbs::from_columns(self.columns().gather(order))
    }

    #[inline]
    fn item(&self, i: usize) -> Option<Aabb> {
        self.get(i)
    }

    #[inline]
    fn check_item(item: &Aabb, index: usize) -> Result<(), BvError> {
        item.check(index)
    }

    #[inline]
    fn put(&mut self, i: usize, item: Aabb) {
        self.set_valid(i, item);
    }

    fn from_items(items: &[Aabb]) -> Result<Self, BvError> {
        Aabbs::from_slice(items)
    }

    #[inline(always)]
    fn prefetch_chunk(&self, chunk: usize) {
        // The six box columns: the diagonal key is read by the 7-sided strategy only.
        let cols = self.view();
        for k in 0..6 {
            cols.prefetch(k, chunk);
        }
    }
}

impl Blockable for Spheres {}

/// A sphere's bounds in its block: its widened box (`Conservative(sphere)`'s reach, which every
/// exact f32 sphere test's hits lie in), clamped to `-f32::MAX..=f32::MAX` (the levels hold
/// finite boxes; `reach.rs` says why the clamp changes no block test).
#[inline]
fn sphere_bounds(s: &Sphere) -> Aabb {
    let b = widened_sphere_box(s);
    let clamp = |v: f32| v.clamp(-f32::MAX, f32::MAX);
    Aabb::new(b.min.map(clamp), b.max.map(clamp))
}

impl private::Layout for Spheres {
    #[inline]
    fn count(&self) -> usize {
        self.len()
    }

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

    fn chunk_bounds(&self, chunk: usize) -> Aabb {
        let n = (self.len() - chunk * Chunk::LANES).min(Chunk::LANES);
        debug_assert!(n > 0);
        let base = chunk * Chunk::LANES;
        let mut b = sphere_bounds(&self.get(base).expect("a sphere"));
        for i in base + 1..base + n {
            let s = sphere_bounds(&self.get(i).expect("a sphere"));
            for a in 0..3 {
                b.min[a] = b.min[a].min(s.min[a]);
                b.max[a] = b.max[a].max(s.max[a]);
            }
        }
        b
    }

    #[inline]
    fn item_bounds(item: &Sphere) -> Aabb {
        sphere_bounds(item)
    }

    fn gather(&self, order: &[u32]) -> Self {
        Spheres::from_columns(self.columns().gather(order))
    }

    #[inline]
    fn item(&self, i: usize) -> Option<Sphere> {
        self.get(i)
    }

    #[inline]
    fn check_item(item: &Sphere, index: usize) -> Result<(), BvError> {
        item.check(index)
    }

    #[inline]
    fn put(&mut self, i: usize, item: Sphere) {
        self.set_valid(i, item);
    }

    fn from_items(items: &[Sphere]) -> Result<Self, BvError> {
        Spheres::from_slice(items)
    }

    #[inline(always)]
    fn prefetch_chunk(&self, chunk: usize) {
        let cols = self.view();
        for k in 0..4 {
            cols.prefetch(k, chunk);
        }
    }
}
