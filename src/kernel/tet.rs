//! Tetrahedron against tetrahedra: four comparisons, no arithmetic.
//!
//! An up tetrahedron `{min}` and a down tetrahedron `{max}` intersect iff `min[k] <= max[k]` on all
//! four axes: their intersection is the octahedron `[min, max]`, whose sum conditions
//! `sum(min) <= 0 <= sum(max)` already hold for valid tetrahedra. So this test is exact for
//! tetrahedron pairs. A point is the degenerate tetrahedron of its projections, rounded outward.

use super::{Cols, Kernel, splat4};
use crate::lanes::Lanes;

/// The generic body: `a[k] <= b[k]` on all four axes.
#[inline(always)]
pub(crate) fn all_le<V: Lanes>(a: [V; 4], b: [V; 4]) -> V::Mask {
    V::and(
        V::and(a[0].le(b[0]), a[1].le(b[1])),
        V::and(a[2].le(b[2]), a[3].le(b[3])),
    )
}

/// Columns of lower bounds (an up tetrahedron, or the up half of an octahedron) against the upper
/// bounds of a down-tetrahedron query: `col[k] <= q[k]`.
#[derive(Clone)]
pub struct TetsBelow<'a> {
    pub(crate) cols: Cols<'a, 4>,
    pub(crate) q_max: [f32; 4],
}

/// Columns of upper bounds (a down tetrahedron, or the down half of an octahedron) against the
/// lower bounds of an up-tetrahedron query: `q[k] <= col[k]`.
#[derive(Clone)]
pub struct TetsAbove<'a> {
    pub(crate) cols: Cols<'a, 4>,
    pub(crate) q_min: [f32; 4],
}

impl Kernel for TetsBelow<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let min = self.cols.load4::<V>(0, c, j);
        V::bits(all_le(min, splat4(self.q_max)))
    }
}

impl Kernel for TetsAbove<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let max = self.cols.load4::<V>(0, c, j);
        V::bits(all_le(splat4(self.q_min), max))
    }
}
