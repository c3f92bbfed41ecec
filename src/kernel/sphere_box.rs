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

use super::{Cols, Kernel, splat3};
use crate::lanes::Lanes;

/// The generic body: squared distance from `c` to the box `[lo, hi]`.
#[inline(always)]
pub(crate) fn dist2_to_box<V: Lanes>(c: [V; 3], lo: [V; 3], hi: [V; 3]) -> V {
    // Written out per axis: closures and `array::map` do not always inline into the
    // `#[target_feature]` entry point.
    let ex = c[0].sub(c[0].max(lo[0]).min(hi[0]));
    let ey = c[1].sub(c[1].max(lo[1]).min(hi[1]));
    let ez = c[2].sub(c[2].max(lo[2]).min(hi[2]));
    let e = [ex, ey, ez];
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
        let lo = self.cols.load3::<V>(0, c, j);
        let hi = self.cols.load3::<V>(3, c, j);
        let d = dist2_to_box(splat3(self.center), lo, hi);
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
        let center = self.cols.load3::<V>(0, c, j);
        let r = self.cols.load::<V>(3, c, j);
        let d = dist2_to_box(center, splat3(self.q_min), splat3(self.q_max));
        V::bits(d.le(r.mul(r)))
    }
}
