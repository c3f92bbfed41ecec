//! Frustum against spheres and against boxes: the **conservative** plane test of view-frustum
//! culling. A primitive is reported when it is not wholly beyond any of the six planes.
//!
//! Plane `k` is `(n, d) = (a, b, c, d)`, inside `n . p + d >= 0`. Per lane and plane:
//!
//! ```text
//! spheres (centre x, radius r):   s = ((a x_0 + b x_1) + c x_2) + d
//!                                 t = s + r * nl                     nl = |n| (1 + 2^-20), up
//!                                 L = (|x_0| + |x_1|) + |x_2|
//! boxes (lo, hi):                 p_i = n_i >= 0 ? hi_i : lo_i       (chosen at bind time)
//!                                 t = s = ((a p_0 + b p_1) + c p_2) + d
//!                                 L = (max(|lo_0|, |hi_0|) + max(|lo_1|, |hi_1|)) + max(|lo_2|, |hi_2|)
//! margin                          m = ((L * P) + Q) * 2^-24          P = 8 max|n_i|
//!                                                                    Q = 8 |d| + 2^-116, up
//! rejected by the plane      <=>  t + m < 0
//! hit                        <=>  rejected by no plane
//! ```
//!
//! `t` is, in real arithmetic, `n . x + d + r |n|` (spheres; `>= 0` iff the sphere reaches the
//! inner side of the plane) or `n . p + d` at the p-vertex (boxes; `>= 0` iff some corner of the
//! box, hence the box, reaches the inner side). A primitive that meets the frustum meets every
//! half-space, so its real `t` is `>= 0` for every plane. `m` bounds the rounding error of the
//! f32 evaluation of `t` (about `4 * 2^-24 (max|n_i| L + |d|)` plus underflow), with a factor of
//! two to spare, so a real `t >= 0` never evaluates below `-m`; and `t + m` rounds to a value
//! `< 0` only if it is `< 0` exactly (rounding is monotone and 0 is representable). The derivation
//! is in `docs/algorithms.md` ("Frustum against spheres and boxes").
//!
//! Overflow: the `* 8` before the exact power-of-two scaling makes `m = +inf` whenever any
//! intermediate of `t` could overflow f32; a plane with `m = +inf` (or `t` NaN) rejects nothing.
//! `P` and `Q` are per-query constants (`+inf` for a plane too large for the guard).
//!
//! The test is per plane, so it is conservative beyond rounding: primitives outside the frustum
//! near its edges and corners, but wholly beyond no single plane, are reported (documented on
//! [`Frustum`](crate::Frustum)). Planes are evaluated in the order stored, and their rejection
//! bits are OR-ed; nothing is skipped early, so the work per block is fixed.

use super::{Cols, Kernel};
use crate::lanes::Lanes;
use crate::primitive::Frustum;
use crate::round::f32_at_least;

/// `2^-24`: the margin's final scale.
const MARGIN_SCALE: f32 = f32::from_bits((127 - 24) << 23);
/// `2^-116`: `2^-140` (the margin's absolute floor, covering underflow) before the scaling.
const FLOOR_UNSCALED: f64 = 1.0 / (1u128 << 116) as f64;
/// `1 + 2^-20`: the widening of `|n|` that covers its f64 evaluation and the f32 product `r * nl`.
const NORM_WIDEN: f64 = 1.0 + 1.0 / 1_048_576.0;

/// The per-query constants of one screened frustum (finite, non-zero normals).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PlaneConstants {
    /// The planes as stored.
    pub(crate) planes: [[f32; 4]; 6],
    /// `|n| (1 + 2^-20)` rounded up (`+inf` if beyond f32).
    pub(crate) norm: [f32; 6],
    /// `8 max(|a|, |b|, |c|)` (exact, or `+inf`).
    pub(crate) mag_n: [f32; 6],
    /// `8 |d| + 2^-116`, rounded up (or `+inf`).
    pub(crate) mag_d: [f32; 6],
}

impl PlaneConstants {
    /// The constants of a frustum that passed [`Frustum::check`].
    pub(crate) fn new(f: &Frustum) -> PlaneConstants {
        let mut k = PlaneConstants {
            planes: f.planes,
            norm: [0.0; 6],
            mag_n: [0.0; 6],
            mag_d: [0.0; 6],
        };
        for (i, p) in f.planes.iter().enumerate() {
            let sq = |v: f32| f64::from(v) * f64::from(v);
            // Squares of f32 are exact in f64; two additions and the root round by 2^-53 each.
            let norm = ((sq(p[0]) + sq(p[1])) + sq(p[2])).sqrt();
            k.norm[i] = f32_at_least(norm * NORM_WIDEN);
            k.mag_n[i] = p[0].abs().max(p[1].abs()).max(p[2].abs()) * 8.0;
            k.mag_d[i] = f32_at_least(f64::from(p[3]).abs() * 8.0 + FLOOR_UNSCALED);
        }
        k
    }

    /// For plane `k`, the `Aabbs` column (0..3 min x, y, z; 3..6 max) of its p-vertex on each axis:
    /// the max column where the normal's component is `>= 0` (so `-0.0` too), else the min one.
    pub(crate) fn p_vertex_columns(&self) -> [[u8; 3]; 6] {
        self.planes
            .map(|p| [0, 1, 2].map(|i| if p[i] >= 0.0 { 3 + i as u8 } else { i as u8 }))
    }
}

/// A `Spheres` container (columns centre x, y, z, radius) against one frustum.
#[derive(Clone)]
pub struct SpheresVsFrustum<'a> {
    pub(crate) cols: Cols<'a, 4>,
    pub(crate) k: PlaneConstants,
}

/// An `Aabbs` container (columns min x, y, z, max x, y, z) against one frustum. `WIDE`: the
/// margin counts twice (`t + 2m < 0` rejects), the blocked spheres' block test: a box containing
/// a sphere's widened reach is then rejected by no plane that fails to reject the sphere
/// (`src/blocked/reach.rs`).
#[derive(Clone)]
pub struct AabbsVsFrustum<'a, const WIDE: bool = false> {
    pub(crate) cols: Cols<'a, 6>,
    pub(crate) k: PlaneConstants,
    /// [`PlaneConstants::p_vertex_columns`].
    pub(crate) pick: [[u8; 3]; 6],
}

/// `((a x_0 + b x_1) + c x_2) + d`, no fused multiply-add.
#[inline(always)]
fn plane_value<V: Lanes>(p: [f32; 4], x: [V; 3]) -> V {
    x[0].mul(V::splat(p[0]))
        .add(x[1].mul(V::splat(p[1])))
        .add(x[2].mul(V::splat(p[2])))
        .add(V::splat(p[3]))
}

/// A block of boxes: its six columns (min x, y, z, max x, y, z: a plane's p- or n-vertex picks
/// three) and `L = (max(|lo_0|, |hi_0|) + max(|lo_1|, |hi_1|)) + max(|lo_2|, |hi_2|)`.
#[inline(always)]
fn box_corners<V: Lanes>(cols: &Cols<'_, 6>, c: usize, j: usize) -> ([V; 6], V) {
    let lo = cols.load3::<V>(0, c, j);
    let hi = cols.load3::<V>(3, c, j);
    let big = [
        lo[0].abs().max(hi[0].abs()),
        lo[1].abs().max(hi[1].abs()),
        lo[2].abs().max(hi[2].abs()),
    ];
    let l = big[0].add(big[1]).add(big[2]);
    ([lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]], l)
}

/// Bits of the lanes that plane `i` rejects: `t + m < 0`, `m = ((L * P) + Q) * 2^-24`. False
/// when either is NaN.
#[inline(always)]
fn rejects<V: Lanes>(k: &PlaneConstants, i: usize, t: V, l: V) -> u32 {
    V::bits(t.add(margin(k, i, l)).lt(V::splat(0.0)))
}

/// Plane `i`'s margin `m = ((L * P) + Q) * 2^-24`.
#[inline(always)]
fn margin<V: Lanes>(k: &PlaneConstants, i: usize, l: V) -> V {
    l.mul(V::splat(k.mag_n[i]))
        .add(V::splat(k.mag_d[i]))
        .mul(V::splat(MARGIN_SCALE))
}

impl Kernel for SpheresVsFrustum<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let x = self.cols.load3::<V>(0, c, j);
        let r = self.cols.load::<V>(3, c, j);
        let l = x[0].abs().add(x[1].abs()).add(x[2].abs());
        let mut rejected = 0;
        for i in 0..6 {
            let s = plane_value(self.k.planes[i], x);
            let t = s.add(r.mul(V::splat(self.k.norm[i])));
            rejected |= rejects(&self.k, i, t, l);
        }
        rejected ^ super::all_lanes::<V>()
    }
}

impl<const WIDE: bool> Kernel for AabbsVsFrustum<'_, WIDE> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let (corners, l) = box_corners::<V>(&self.cols, c, j);
        let mut rejected = 0;
        for i in 0..6 {
            let pick = self.pick[i];
            let p = [
                corners[usize::from(pick[0]) % 6],
                corners[usize::from(pick[1]) % 6],
                corners[usize::from(pick[2]) % 6],
            ];
            let t = plane_value(self.k.planes[i], p);
            // `2m` is exact (a power-of-two scaling); the sum rounds as `t + m` does.
            let t = if WIDE {
                t.add(margin(&self.k, i, l))
            } else {
                t
            };
            rejected |= rejects(&self.k, i, t, l);
        }
        rejected ^ super::all_lanes::<V>()
    }
}

/// An `Aabbs` container against one frustum, the other way round: whether each box lies wholly
/// inside every plane, provably in real arithmetic. Per plane, at the box's n-vertex (the corner
/// the p-vertex test does not pick) with the same `t` and margin `m`:
///
/// ```text
/// inside the plane  <=>  m <= t  and  m < inf
/// ```
///
/// `m` bounds the rounding error of `t` either way (see the module docs), so `t >= m` means the
/// real `t` at the n-vertex is `>= 0`: every point of the box, hence every box inside it, is on
/// the inner side, and the p-vertex test of such a box rejects it by no plane. A finite `m` also
/// rules out overflow in `t`. The blocked containers' "accept the whole block" test for frusta.
#[derive(Clone)]
pub struct AabbsInsideFrustum<'a> {
    pub(crate) cols: Cols<'a, 6>,
    pub(crate) k: PlaneConstants,
    /// [`PlaneConstants::p_vertex_columns`].
    pub(crate) pick: [[u8; 3]; 6],
}

impl Kernel for AabbsInsideFrustum<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let (corners, l) = box_corners::<V>(&self.cols, c, j);
        let mut inside = super::all_lanes::<V>();
        for i in 0..6 {
            // The n-vertex: the other column of each axis (min <-> max).
            let pick = self.pick[i];
            let n = [
                corners[(usize::from(pick[0]) + 3) % 6],
                corners[(usize::from(pick[1]) + 3) % 6],
                corners[(usize::from(pick[2]) + 3) % 6],
            ];
            let t = plane_value(self.k.planes[i], n);
            let m = margin(&self.k, i, l);
            inside &= V::bits(V::and(m.le(t), m.lt(V::splat(f32::INFINITY))));
        }
        inside
    }
}
