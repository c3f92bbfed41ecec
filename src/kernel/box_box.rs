//! Box against boxes: `bmin <= qmax && qmin <= bmax` on every axis (closed boxes: touching faces
//! overlap). Also serves a point (a zero-size box) and the conservative sphere test (the sphere's
//! outward-rounded bounding box).

use super::{Cols, Kernel, splat3};
use crate::lanes::Lanes;

/// The generic body: whether boxes `[b_min, b_max]` overlap the query box `[q_min, q_max]`.
/// Comparisons only, so infinite query bounds behave as half-spaces.
#[inline(always)]
pub(crate) fn box_overlaps<V: Lanes>(
    q_min: [V; 3],
    q_max: [V; 3],
    b_min: [V; 3],
    b_max: [V; 3],
) -> V::Mask {
    let x = V::and(b_min[0].le(q_max[0]), q_min[0].le(b_max[0]));
    let y = V::and(b_min[1].le(q_max[1]), q_min[1].le(b_max[1]));
    let z = V::and(b_min[2].le(q_max[2]), q_min[2].le(b_max[2]));
    V::and(V::and(x, y), z)
}

/// An `Aabbs` container (columns min x, y, z, max x, y, z) against one query box.
#[derive(Clone)]
pub struct AabbsVsBox<'a> {
    pub(crate) cols: Cols<'a, 6>,
    pub(crate) q_min: [f32; 3],
    pub(crate) q_max: [f32; 3],
}

impl Kernel for AabbsVsBox<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let b_min = self.cols.load3::<V>(0, c, j);
        let b_max = self.cols.load3::<V>(3, c, j);
        let m = box_overlaps(splat3(self.q_min), splat3(self.q_max), b_min, b_max);
        V::bits(m)
    }
}

/// An `Aabbs` container against one query box, the other way round: whether each box lies wholly
/// inside the query, `q_min <= b_min && b_max <= q_max` on every axis (comparisons only, exact).
/// The blocked containers' "accept the whole block" test: every box inside a block's bounds that
/// lie inside the query overlaps the query.
#[derive(Clone)]
pub struct AabbsInsideBox<'a> {
    pub(crate) cols: Cols<'a, 6>,
    pub(crate) q_min: [f32; 3],
    pub(crate) q_max: [f32; 3],
}

impl Kernel for AabbsInsideBox<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let b_min = self.cols.load3::<V>(0, c, j);
        let b_max = self.cols.load3::<V>(3, c, j);
        let (q_min, q_max) = (splat3::<V>(self.q_min), splat3::<V>(self.q_max));
        let x = V::and(q_min[0].le(b_min[0]), b_max[0].le(q_max[0]));
        let y = V::and(q_min[1].le(b_min[1]), b_max[1].le(q_max[1]));
        let z = V::and(q_min[2].le(b_min[2]), b_max[2].le(q_max[2]));
        V::bits(V::and(V::and(x, y), z))
    }
}
