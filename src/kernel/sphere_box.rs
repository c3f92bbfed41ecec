//! Sphere against box, exact, in the clamp form (Arvo's test without branches):
//!
//! ```text
//! e_i = (c_i - min(max(c_i, lo_i), hi_i)) * s  per axis (0 inside the slab)
//! d   = (e_x * e_x + e_y * e_y) + e_z * e_z     squared distance from c to the box
//! hit = d <= (r * s) * (r * s)
//! ```
//!
//! `s` is 1, except for a sphere query whose `r * r` overflows: then `s = 2^-66`.
//!
//! Evaluated in f32 in exactly this order on every tier. One body serves both directions: a
//! sphere query against `Aabbs` (box columns, sphere splatted) and a box query against `Spheres`
//! (sphere columns, box splatted).

use super::{Cols, Kernel, splat3};
use crate::lanes::Lanes;

/// The generic body: squared distance from `c` to the box `[lo, hi]` (the scaled body with
/// `s = 1`, which the compiler folds away: `x * 1.0 == x` exactly).
#[inline(always)]
pub(crate) fn dist2_to_box<V: Lanes>(c: [V; 3], lo: [V; 3], hi: [V; 3]) -> V {
    scaled_dist2_to_box(c, lo, hi, V::splat(1.0))
}

/// The generic body: `sum(((c_i - min(max(c_i, lo_i), hi_i)) * s)^2)`, the squared distance from
/// `c` to the box `[lo, hi]` scaled by `s^2` (`s` is 1 or a power of two). Written out per axis:
/// closures and `array::map` do not always inline into the `#[target_feature]` entry point.
#[inline(always)]
pub(crate) fn scaled_dist2_to_box<V: Lanes>(c: [V; 3], lo: [V; 3], hi: [V; 3], s: V) -> V {
    let ex = c[0].sub(c[0].max(lo[0]).min(hi[0])).mul(s);
    let ey = c[1].sub(c[1].max(lo[1]).min(hi[1])).mul(s);
    let ez = c[2].sub(c[2].max(lo[2]).min(hi[2])).mul(s);
    ex.mul(ex).add(ey.mul(ey)).add(ez.mul(ez))
}

/// An `Aabbs` container against one sphere (exact).
///
/// With `SCALED`, every distance is multiplied by [`HUGE_RADIUS_SCALE`] before squaring and `r2`
/// is `(radius * scale)^2`: used only when `radius * radius` overflows (radius `2^64` and up), so
/// that a huge sphere does not turn `inf <= inf` into a hit on far boxes. Scaling by a power of two
/// is exact.
#[derive(Clone)]
pub struct AabbsVsSphere<'a, const SCALED: bool> {
    pub(crate) cols: Cols<'a, 6>,
    pub(crate) center: [f32; 3],
    /// `radius * radius` (scaled with `SCALED`), rounded once per query.
    pub(crate) r2: f32,
}

/// The scale that keeps squared distances finite for huge query radii: `2^-66`.
pub(crate) const HUGE_RADIUS_SCALE: f32 = 1.0 / 73_786_976_294_838_206_464.0;

impl<const SCALED: bool> Kernel for AabbsVsSphere<'_, SCALED> {
    const PIPELINE_OUTPUT: bool = true;

    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let lo = self.cols.load3::<V>(0, c, j);
        let hi = self.cols.load3::<V>(3, c, j);
        let center = splat3(self.center);
        let d = if SCALED {
            scaled_dist2_to_box(center, lo, hi, V::splat(HUGE_RADIUS_SCALE))
        } else {
            dist2_to_box(center, lo, hi)
        };
        V::bits(d.le(V::splat(self.r2)))
    }
}

/// A `Spheres` container (columns centre x, y, z, radius) against one box (exact).
#[derive(Clone)]
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
