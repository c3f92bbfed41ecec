//! A froxel's bounding box: the smallest f32 box containing it, bounds rounded outwards.

use super::Froxels;
use crate::primitive::Aabb;
use crate::round::{f32_at_least, f32_at_most};

impl Froxels {
    /// The smallest f32 box containing froxel `(x, y, z)` (bounds rounded outwards; bounds
    /// beyond the f32 range saturate to `-f32::MAX` / `f32::MAX`).
    pub(in crate::cull) fn cell_box(&self, [x, y, z]: [usize; 3]) -> Aabb {
        let (d0, d1) = (self.depth[z], self.depth[z + 1]);
        let lo = |s: f64| f32_down_mul(s, d0).min(f32_down_mul(s, d1));
        let hi = |s: f64| f32_up_mul(s, d0).max(f32_up_mul(s, d1));
        Aabb::new(
            [lo(self.sx[x]), lo(self.sy[y]), f32_down(-d1)],
            [hi(self.sx[x + 1]), hi(self.sy[y + 1]), f32_up(-d0)],
        )
    }
}

/// The largest f32 at most `v`, saturating at `-f32::MAX` / `f32::MAX`.
fn f32_down(v: f64) -> f32 {
    f32_at_most(v).clamp(-f32::MAX, f32::MAX)
}

/// The smallest f32 at least `v`, saturating at `-f32::MAX` / `f32::MAX`.
fn f32_up(v: f64) -> f32 {
    f32_at_least(v).clamp(-f32::MAX, f32::MAX)
}

/// The largest f32 at most the real product `s d` (finite `s`, `d`, no underflow), saturating
/// as [`f32_down`]. The f64 product `p` is rounded to nearest: when it rounds up onto an f32,
/// that f32 is one too high, as the error `s d - p` (exact by a fused multiply-add) shows.
/// Otherwise the largest f32 at most `p` is at most the real product too: it is an f64 ulp or
/// more below `p`, and the real product is within half an ulp of `p`.
pub(super) fn f32_down_mul(s: f64, d: f64) -> f32 {
    let p = s * d;
    let f = f32_down(p);
    if f64::from(f) == p && s.mul_add(d, -p) < 0.0 {
        f.next_down().max(-f32::MAX)
    } else {
        f
    }
}

/// The smallest f32 at least the real product `s d`, as [`f32_down_mul`].
pub(super) fn f32_up_mul(s: f64, d: f64) -> f32 {
    let p = s * d;
    let f = f32_up(p);
    if f64::from(f) == p && s.mul_add(d, -p) > 0.0 {
        f.next_up().min(f32::MAX)
    } else {
        f
    }
}
