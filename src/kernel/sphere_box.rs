//! Sphere against box, exact, in the clamp form (Arvo's test without branches):
//!
//! ```text
//! e_i = c_i - min(max(c_i, lo_i), hi_i)        per axis (0 inside the slab)
//! d   = (e_x * e_x + e_y * e_y) + e_z * e_z     squared distance from c to the box
//! hit = d <= r * r
//! ```
//!
//! Evaluated in f32 in exactly this order on every tier. One body serves both directions: a
//! sphere query against `Aabbs` (box columns, sphere splatted) and a box query against `Spheres`
//! (sphere columns, box splatted).

use super::{Cols, Kernel};
use crate::lanes::Lanes;

/// The generic body: squared distance from `c` to the box `[lo, hi]`.
#[inline(always)]
pub(crate) fn dist2_to_box<V: Lanes>(c: [V; 3], lo: [V; 3], hi: [V; 3]) -> V {
    let e = [0, 1, 2].map(|i| c[i].sub(c[i].max(lo[i]).min(hi[i])));
    e[0].mul(e[0]).add(e[1].mul(e[1])).add(e[2].mul(e[2]))
}

/// An `Aabbs` container against one sphere (exact).
pub struct AabbsVsSphere<'a> {
    pub(crate) cols: Cols<'a, 6>,
    pub(crate) center: [f32; 3],
    /// `radius * radius`, rounded once per query.
    pub(crate) r2: f32,
}

impl Kernel for AabbsVsSphere<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let lo = [0, 1, 2].map(|k| self.cols.load::<V>(k, c, j));
        let hi = [3, 4, 5].map(|k| self.cols.load::<V>(k, c, j));
        let d = dist2_to_box(self.center.map(V::splat), lo, hi);
        V::bits(d.le(V::splat(self.r2)))
    }
}

/// A `Spheres` container (columns centre x, y, z, radius) against one box (exact).
pub struct SpheresVsBox<'a> {
    pub(crate) cols: Cols<'a, 4>,
    pub(crate) q_min: [f32; 3],
    pub(crate) q_max: [f32; 3],
}

impl Kernel for SpheresVsBox<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let center = [0, 1, 2].map(|k| self.cols.load::<V>(k, c, j));
        let r = self.cols.load::<V>(3, c, j);
        let d = dist2_to_box(center, self.q_min.map(V::splat), self.q_max.map(V::splat));
        V::bits(d.le(r.mul(r)))
    }
}
