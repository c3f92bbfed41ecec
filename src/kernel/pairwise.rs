//! Pairwise kernels: pair `i` is primitive `i` of one container against primitive `i` of another,
//! both sides loaded as lanes ("vectorize the object pairs", seed 004 and the end of seed 000). The
//! bodies are the same generic bodies as the one-query kernels, so pair `i` answers exactly what
//! querying a one-element container of `b[i]` with `a[i]` would.

use super::box_box::box_overlaps;
use super::octahedron::intersection_sums_meet;
use super::sphere_box::dist2_to_box;
use super::sphere_obb::{local_center, negated};
use super::tet::all_le;
use super::{Cols, Kernel};
use crate::lanes::Lanes;

/// Spheres (centre, radius) against boxes (min, max), pair by pair, exact. Container radii are at
/// most `2^62`, so `r * r` is finite.
#[derive(Clone)]
pub struct SphereAabbPairs<'a> {
    pub(crate) spheres: Cols<'a, 4>,
    pub(crate) boxes: Cols<'a, 6>,
}

/// Spheres against oriented boxes, pair by pair, exact.
#[derive(Clone)]
pub struct SphereObbPairs<'a> {
    pub(crate) spheres: Cols<'a, 4>,
    pub(crate) obbs: Cols<'a, 15>,
}

/// Boxes against boxes, pair by pair.
#[derive(Clone)]
pub struct AabbPairs<'a> {
    pub(crate) a: Cols<'a, 6>,
    pub(crate) b: Cols<'a, 6>,
}

/// Octahedra against octahedra, pair by pair, exact (the eight comparisons and the sum
/// condition).
#[derive(Clone)]
pub struct OctahedronPairs<'a> {
    pub(crate) a: Cols<'a, 8>,
    pub(crate) b: Cols<'a, 8>,
}

impl Kernel for SphereAabbPairs<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.spheres.len()
    }
    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let center = self.spheres.load3::<V>(0, c, j);
        let r = self.spheres.load::<V>(3, c, j);
        let lo = self.boxes.load3::<V>(0, c, j);
        let hi = self.boxes.load3::<V>(3, c, j);
        V::bits(dist2_to_box(center, lo, hi).le(r.mul(r)))
    }
}

impl Kernel for SphereObbPairs<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.spheres.len()
    }
    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let center = self.spheres.load3::<V>(0, c, j);
        let r = self.spheres.load::<V>(3, c, j);
        let (local, h) = local_center::<V>(&self.obbs, center, c, j);
        V::bits(dist2_to_box(local, negated(h), h).le(r.mul(r)))
    }
}

impl Kernel for AabbPairs<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.a.len()
    }
    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let (a_min, a_max) = (self.a.load3::<V>(0, c, j), self.a.load3::<V>(3, c, j));
        let (b_min, b_max) = (self.b.load3::<V>(0, c, j), self.b.load3::<V>(3, c, j));
        V::bits(box_overlaps(a_min, a_max, b_min, b_max))
    }
}

impl Kernel for OctahedronPairs<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.a.len()
    }
    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let (a_up, a_down) = (self.a.load4::<V>(0, c, j), self.a.load4::<V>(4, c, j));
        let (b_up, b_down) = (self.b.load4::<V>(0, c, j), self.b.load4::<V>(4, c, j));
        let m = V::and(all_le(b_up, a_down), all_le(a_up, b_down));
        V::bits(V::and(
            m,
            intersection_sums_meet(b_up, b_down, a_up, a_down),
        ))
    }
}
