//! Sphere against oriented boxes: the centre is taken into each box's frame, then the box is the
//! axis-aligned box `[-h, h]` and the clamp form of `sphere_box.rs` applies:
//!
//! ```text
//! d_i     = c_i - center_i
//! local_k = (d_x * a_k.x + d_y * a_k.y) + d_z * a_k.z        (a_k: the box's axis k)
//! e_k     = (local_k - min(max(local_k, -h_k), h_k)) * s
//! hit    <=> (e_0 * e_0 + e_1 * e_1) + e_2 * e_2 <= (r * s)^2
//! ```
//!
//! (`s` is 1, or `2^-66` for query radii whose square overflows.) The conservative form keeps the
//! quick rejections only: `|local_k| - h_k <= r'` on every axis, with `r'` the widened radius of
//! `Conservative(sphere)` against `Aabbs`; since `|e_k|` is exactly `|local_k| - h_k` outside the
//! slab, it reports every hit of the exact test. Both share the rounding of the rotation: relative
//! to real arithmetic, `local_k` is within a few ulps of `|d|`.

use super::obb_obb::{offsets_from, overflow_guard};
use super::sphere_box::{HUGE_RADIUS_SCALE, dist2_to_box, scaled_dist2_to_box};
use super::{Cols, Kernel, splat3};
use crate::lanes::Lanes;

/// Columns: centre x, y, z (0..3), half extents (3..6), axes row by row (6..15).
#[derive(Clone)]
pub struct ObbsVsSphere<'a, const SCALED: bool> {
    pub(crate) cols: Cols<'a, 15>,
    pub(crate) center: [f32; 3],
    /// `radius * radius` (scaled with `SCALED`).
    pub(crate) r2: f32,
}

/// The conservative form: quick rejections in the box frame.
#[derive(Clone)]
pub struct ObbsVsSphereConservative<'a> {
    pub(crate) cols: Cols<'a, 15>,
    pub(crate) center: [f32; 3],
    /// The widened radius `r'`.
    pub(crate) reach: f32,
}

/// The centres `q` (one per lane, or one splatted) in the frame of each box of the block, and the
/// boxes' half extents.
#[inline(always)]
pub(crate) fn local_center<V: Lanes>(
    cols: &Cols<'_, 15>,
    q: [V; 3],
    c: usize,
    j: usize,
) -> ([V; 3], [V; 3]) {
    let center = cols.load3::<V>(0, c, j);
    let h = cols.load3::<V>(3, c, j);
    let d = [
        q[0].sub(center[0]),
        q[1].sub(center[1]),
        q[2].sub(center[2]),
    ];
    let local = [
        dot3(d, cols.load3::<V>(6, c, j)),
        dot3(d, cols.load3::<V>(9, c, j)),
        dot3(d, cols.load3::<V>(12, c, j)),
    ];
    (local, h)
}

/// `[-h_x, -h_y, -h_z]` (as `0 - h`, the same operation on every tier).
#[inline(always)]
pub(crate) fn negated<V: Lanes>(h: [V; 3]) -> [V; 3] {
    let zero = V::splat(0.0);
    [zero.sub(h[0]), zero.sub(h[1]), zero.sub(h[2])]
}

/// `(d.x * a.x + d.y * a.y) + d.z * a.z`, no fused multiply-add.
#[inline(always)]
fn dot3<V: Lanes>(d: [V; 3], a: [V; 3]) -> V {
    d[0].mul(a[0]).add(d[1].mul(a[1])).add(d[2].mul(a[2]))
}

impl<const SCALED: bool> Kernel for ObbsVsSphere<'_, SCALED> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let (local, h) = local_center::<V>(&self.cols, splat3(self.center), c, j);
        let neg_h = negated(h);
        let d = if SCALED {
            scaled_dist2_to_box(local, neg_h, h, V::splat(HUGE_RADIUS_SCALE))
        } else {
            dist2_to_box(local, neg_h, h)
        };
        V::bits(d.le(V::splat(self.r2)))
    }
}

impl Kernel for ObbsVsSphereConservative<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let (local, h) = local_center::<V>(&self.cols, splat3(self.center), c, j);
        let reach = V::splat(self.reach);
        let x = local[0].abs().sub(h[0]).le(reach);
        let y = local[1].abs().sub(h[1]).le(reach);
        let z = local[2].abs().sub(h[2]).le(reach);
        V::bits(V::and(V::and(x, y), z))
    }
}

/// `2^-12`: [`AabbsNearSphere`]'s share of the bounds' summed sides (`2^-11` of the half sides).
const NEAR_SIDES: f32 = f32::from_bits((127 - 12) << 23);
/// `2^-20`: [`AabbsNearSphere`]'s share of the farthest corner's distance.
const NEAR_DISTANCE: f32 = f32::from_bits((127 - 20) << 23);
/// `2^-70`: [`AabbsNearSphere`]'s absolute slack (underflow in the squared distance).
const NEAR_FLOOR: f32 = f32::from_bits((127 - 70) << 23);

/// The block test of a sphere, a point or a conservative sphere on oriented boxes (the blocked
/// containers of `Obbs`), over box bounds: whether the query's centre `c` lies within `R` of
/// each box `B` on every axis, with `u_k = lo_k - c_k`, `w_k = c_k - hi_k`,
/// `r = sum_k max(|u_k|, |w_k|)` and `s = (hi_0 - lo_0) + (hi_1 - lo_1) + (hi_2 - lo_2)`:
///
/// ```text
/// R = (((reach + s 2^-12) + r 2^-20) + 2^-70) + (r^2 + s^2) 2^-140
/// near <=> u_k <= R and w_k <= R on every axis k
/// ```
///
/// `reach` is `1 + 2^-9` times the radius of an exact sphere query and twice the widened radius
/// of a conservative one, rounded up (0 for a point). `docs/algorithms.md` ("Blocked
/// containers") shows that a box that the exact f32 test reports lies within `1.00075 (r_q (1 +
/// 4u) + 6.95 u r) + 3.47e-4 s / 2 + 2^-72` of the centre on every axis (the conservative test's:
/// `1.734 (r_q (1 + 3u) + 4.01 u r) + ...`), and every box of a block lies inside its bounds (up
/// to a clamp at `f32::MAX` that keeps the distances); `R` exceeds that. The guard is `+inf` from
/// `r` or `s` of `2^64` on (every block passes there). Never NaN for finite bounds.
#[derive(Clone)]
pub struct AabbsNearSphere<'a> {
    pub(crate) cols: Cols<'a, 6>,
    /// The query's centre.
    pub(crate) center: [f32; 3],
    /// How far the leaf test reaches beyond a box, with room, rounded up (`+inf` past
    /// `f32::MAX`): see above.
    pub(crate) reach: f32,
}

impl Kernel for AabbsNearSphere<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let lo = self.cols.load3::<V>(0, c, j);
        let hi = self.cols.load3::<V>(3, c, j);
        let (u, w, r) = offsets_from(lo, hi, splat3::<V>(self.center));
        let s = hi[0].sub(lo[0]).add(hi[1].sub(lo[1])).add(hi[2].sub(lo[2]));
        let reach = V::splat(self.reach)
            .add(s.mul(V::splat(NEAR_SIDES)))
            .add(r.mul(V::splat(NEAR_DISTANCE)))
            .add(V::splat(NEAR_FLOOR))
            .add(overflow_guard(r, s));
        let x = V::and(u[0].le(reach), w[0].le(reach));
        let y = V::and(u[1].le(reach), w[1].le(reach));
        let z = V::and(u[2].le(reach), w[2].le(reach));
        V::bits(V::and(V::and(x, y), z))
    }
}
