//! Sphere against spheres, exact: `(dx * dx + dy * dy) + dz * dz <= s * s` with `d = c - c_q`,
//! `s = r + r_q` (all multiplied by `2^-66` first for query radii of `2^63` and more). A point
//! query is the sphere of radius 0 (`r + 0 == r` exactly).

use super::sphere_box::HUGE_RADIUS_SCALE;
use super::{Cols, Kernel, splat3};
use crate::lanes::Lanes;

/// A `Spheres` container against one sphere.
///
/// Container radii are at most `2^62` ([`Sphere::MAX_RADIUS`](crate::Sphere::MAX_RADIUS)), so
/// `(r + r_q)^2` stays finite for query radii below `2^63`; for larger ones (`SCALED`) every
/// distance and reach is multiplied by [`HUGE_RADIUS_SCALE`] before squaring (exact: a power of
/// two).
#[derive(Clone)]
pub struct SpheresVsSphere<'a, const SCALED: bool> {
    pub(crate) cols: Cols<'a, 4>,
    pub(crate) center: [f32; 3],
    pub(crate) radius: f32,
}

/// The generic body: whether spheres `(c, r)` touch or overlap the query sphere `(q, r_q)`, every
/// length multiplied by `k` (a power of two) before squaring.
#[inline(always)]
pub(crate) fn scaled_spheres_overlap<V: Lanes>(
    c: [V; 3],
    r: V,
    q: [V; 3],
    r_q: V,
    k: V,
) -> V::Mask {
    let d = [
        c[0].sub(q[0]).mul(k),
        c[1].sub(q[1]).mul(k),
        c[2].sub(q[2]).mul(k),
    ];
    let d2 = d[0].mul(d[0]).add(d[1].mul(d[1])).add(d[2].mul(d[2]));
    let s = r.add(r_q).mul(k);
    d2.le(s.mul(s))
}

/// The generic body unscaled (`k = 1`, which the compiler folds away: `x * 1.0 == x` exactly).
#[inline(always)]
pub(crate) fn spheres_overlap<V: Lanes>(c: [V; 3], r: V, q: [V; 3], r_q: V) -> V::Mask {
    scaled_spheres_overlap(c, r, q, r_q, V::splat(1.0))
}

impl<const SCALED: bool> Kernel for SpheresVsSphere<'_, SCALED> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let center = self.cols.load3::<V>(0, c, j);
        let r = self.cols.load::<V>(3, c, j);
        let (q, r_q) = (splat3(self.center), V::splat(self.radius));
        let m = if SCALED {
            scaled_spheres_overlap(center, r, q, r_q, V::splat(HUGE_RADIUS_SCALE))
        } else {
            spheres_overlap(center, r, q, r_q)
        };
        V::bits(m)
    }
}
