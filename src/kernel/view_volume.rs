//! Spheres against the view volume of a froxel grid: the SIMD pre-cull of light assignment. A light
//! that survives may meet some froxel; a light rejected here meets none (with the froxel
//! decision's own slack included).
//!
//! The volume is `near <= d <= far` (depth `d = -z`) between four side planes through the eye.
//! Each plane has an outward distance `g` (positive outside), evaluated in f32 per lane:
//!
//! ```text
//! side plane u = s d (u = x or y):  g = (c_u u) + (c_z z)     (c_u, c_z) = ±(1, s) / sqrt(1 + s^2)
//! near:                             g = z + near
//! far:                              g = (0 - z) - far
//! slack radius                      rho = r + (((L + r) * K) + A)     L = (|x| + |y|) + |z|
//! rejected                    <=>   rho < g for some plane
//! ```
//!
//! With `K = 2^-20 (1 + tan_x + tan_y)` and `A = 2^-20 far + 2^-100`, both rounded up, `rho`
//! exceeds `r` plus the froxel decision's slack (`2^-40 (L + r)(1 + tan_x + tan_y)`, twice) plus
//! the error of the f32 `g` (coefficients rounded to f32 and three roundings: under
//! `2^-22 (L + far)` plus underflow) by a wide margin. So a light the exact f64 decision would
//! list in some froxel is never rejected here: the froxel lies in every half-space, and the
//! light's real distance to each plane is at most its distance to the froxel. An infinite `L`
//! makes `rho` infinite and rejects nothing.

use super::{Cols, Kernel};
use crate::lanes::Lanes;

/// The constants of one view volume (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ViewVolume {
    /// `(c_u, c_z)` of the left, right, bottom and top planes, outward.
    pub(crate) side: [[f32; 2]; 4],
    /// The near depth.
    pub(crate) near: f32,
    /// The far depth.
    pub(crate) far: f32,
    /// `K`, the relative slack.
    pub(crate) rel: f32,
    /// `A`, the absolute slack.
    pub(crate) abs: f32,
}

/// A `Spheres` container (columns centre x, y, z, radius) against one view volume.
#[derive(Clone)]
pub(crate) struct SpheresVsViewVolume<'a> {
    pub(crate) cols: Cols<'a, 4>,
    pub(crate) v: ViewVolume,
}

/// `(c_u u) + (c_z z)`, no fused multiply-add.
#[inline(always)]
fn side<V: Lanes>(c: [f32; 2], u: V, z: V) -> V {
    u.mul(V::splat(c[0])).add(z.mul(V::splat(c[1])))
}

impl Kernel for SpheresVsViewVolume<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let [x, y, z, r] = self.cols.load4::<V>(0, c, j);
        let l = x.abs().add(y.abs()).add(z.abs());
        let rho = r.add(l.add(r).mul(V::splat(self.v.rel)).add(V::splat(self.v.abs)));
        let near = z.add(V::splat(self.v.near));
        let far = V::splat(0.0).sub(z).sub(V::splat(self.v.far));
        let s = &self.v.side;
        let rejected = V::bits(rho.lt(side(s[0], x, z)))
            | V::bits(rho.lt(side(s[1], x, z)))
            | V::bits(rho.lt(side(s[2], y, z)))
            | V::bits(rho.lt(side(s[3], y, z)))
            | V::bits(rho.lt(near))
            | V::bits(rho.lt(far));
        rejected ^ super::all_lanes::<V>()
    }
}
