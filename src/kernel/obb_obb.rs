//! Oriented box against oriented boxes (`Obb` vs `Obbs`) and against axis-aligned boxes (`Obb` vs
//! `Aabbs`): the separating-axis test of Gottschalk et al. (Real-Time Rendering 16.13.5), 15 axes,
//! made **conservative**: an axis proves separation only if its gap exceeds a bound on everything
//! that the f32 evaluation and the stored axes' orthonormality tolerance can get wrong.
//!
//! Notation: query `A` (centre `c_A`, half extents `a`, axis rows `A_i`), primitive `B` (`c_B`,
//! `b`, `B_j`), `d = c_B - c_A`, `t_i = d . A_i`, `R_ij = A_i . B_j`, indices mod 3,
//! `i1 = i + 1`, `i2 = i + 2`. Per axis the kernel computes a signed gap `s` (positive = apart):
//!
//! ```text
//! face A_i     s = |t_i| - (a_i + ((b_0 |R_i0| + b_1 |R_i1|) + b_2 |R_i2|))
//! face B_j     s = |d . B_j| - (((a_0 |R_0j| + a_1 |R_1j|) + a_2 |R_2j|) + b_j)
//! edge A_i×B_j s = |t_i2 R_i1j - t_i1 R_i2j|
//!                  - ((a_i1 |R_i2j| + a_i2 |R_i1j|) + (b_j1 |R_ij2| + b_j2 |R_ij1|))
//! margin         = ((|d|_1 * 8) * 2^-22 + (sum(b) * 8) * 2^-13) + c_q
//! ball_apart   <=> ((ball_A + sum(b))^2 * (1 + 2^-11)) + 2^-140 < (d_0^2 + d_1^2) + d_2^2
//! hit          <=> not ball_apart and not (margin < max over the 15 axes of s)
//! ```
//!
//! The bounding-ball rejection comes first (`ball_A = |a|_2 (1 + 1.6e-4)` rounded up, a ball
//! containing the query; `sum(b)` bounds the primitive's circumradius): it is a valid separation
//! proof of its own (see `docs/algorithms.md`), so it only removes false positives, and when it
//! rejects every lane of a block nothing else is computed.
//!
//! `c_q = sum(a) 2^-12 + 2^-140` (rounded up, once per query). Dot products are
//! `(x0 y0 + x1 y1) + x2 y2`; the 15 gaps are combined with `max` in the order above (faces of
//! `A`, faces of `B`, then edges `i`-major). The margin is `2^-19 |d|_1 + 2^-10 sum(b) + 2^-12
//! sum(a) + 2^-140`; `docs/algorithms.md` ("Oriented box against oriented boxes") derives that it
//! bounds the rounding of every gap (about `18 u |d|_1 + 7 u (sum a + sum b)`, `u = 2^-24`), the
//! orthonormality tolerance of both boxes' axes (up to `9.03e-4 sum(b) + 2.0e-4 sum(a)`: the
//! edge radii use cofactor identities that hold only for exact rotations) and underflow. The `* 8`
//! before the exact power-of-two scaling is an overflow guard: when a length is so large that some
//! intermediate could overflow, the margin becomes `+inf` and nothing is separated. A NaN margin
//! (overflowing inputs) also separates nothing. So a pair whose boxes meet in real arithmetic is
//! always reported; a disjoint pair is reported only when every axis's gap is within about twice
//! the margin.
//!
//! Against `Aabbs` the box `B` is exactly axis-aligned, so every `R_ij = A_ij` is a per-query
//! constant and the radii of `A` are computed once per query in f64 and rounded up (exactly, no
//! orthonormality assumption). Per lane:
//!
//! ```text
//! d_k = ((lo_k - c_A,k) + (hi_k - c_A,k)) * 0.5       b_k = (hi_k - lo_k) * 0.5
//! face e_j     s = |d_j| - (qa_j + b_j)                  qa_j = sum_i a_i |A_ij|
//! face A_i     s = |t_i| - (ra_i + ((b_0 |A_i0| + b_1 |A_i1|) + b_2 |A_i2|))
//! edge A_i×e_j s = |d_j1 A_ij2 - d_j2 A_ij1| - (re_ij + (b_j1 |A_ij2| + b_j2 |A_ij1|))
//! margin         = (((|d|_1 + sum(b)) * 8) * 2^-23) + c_q,   c_q = sum(a) 2^-20 + 2^-140
//! ```
//!
//! with `ra_i = sum_k a_k |A_k . A_i|`, `re_ij = sum_k a_k |(A_k × A_i)_j|` (upper bounds), faces
//! of the world first, then faces of `A`, then edges. Both kernels skip the rest when the axes so
//! far (and the balls) already separate every lane of the block (the answer is the same): the
//! `Aabbs` kernel after the world faces and after the six faces, the `Obbs` one after the balls
//! and after the six faces.

use super::{Cols, Kernel, splat3};
use crate::lanes::Lanes;

/// `2^-140`: the absolute floor of every margin (covers underflow in the products).
pub(crate) const MARGIN_FLOOR: f32 = f32::from_bits(1 << 9);
/// `ObbsVsObb`: `|d|_1 * 8` is scaled by this (`2^-22`, so `2^-19 |d|_1`).
const OBB_DIST_SCALE: f32 = f32::from_bits((127 - 22) << 23);
/// `ObbsVsObb`: `sum(b) * 8` is scaled by this (`2^-13`, so `2^-10 sum(b)`).
const OBB_SIZE_SCALE: f32 = f32::from_bits((127 - 13) << 23);
/// `ObbsVsObb`: the query's `sum(a)` is scaled by this (`2^-12`) into `c_q`.
pub(crate) const OBB_QUERY_SCALE: f32 = f32::from_bits((127 - 12) << 23);
/// `AabbsVsObb`: `(|d|_1 + sum(b)) * 8` is scaled by this (`2^-23`, so `2^-20`).
const AABB_SCALE: f32 = f32::from_bits((127 - 23) << 23);
/// `AabbsVsObb`: the query's `sum(a)` is scaled by this (`2^-20`) into `c_q`.
pub(crate) const AABB_QUERY_SCALE: f32 = f32::from_bits((127 - 20) << 23);

/// An `Obbs` container (columns: centre x, y, z, half extents, axes row by row) against one
/// oriented box, prepared once per query.
#[derive(Clone)]
pub struct ObbsVsObb<'a> {
    pub(crate) cols: Cols<'a, 15>,
    /// The query's centre.
    pub(crate) center: [f32; 3],
    /// The query's half extents.
    pub(crate) half: [f32; 3],
    /// The query's axes (rows).
    pub(crate) axes: [[f32; 3]; 3],
    /// `sum(a) 2^-12 + 2^-140` rounded up, or `+inf` (hits everything) when `8 sum(a)` overflows.
    pub(crate) margin_q: f32,
    /// `|a|_2 (1 + 1.6e-4)` rounded up: the radius of a ball around the centre that contains the
    /// query (its axes may be `3 ε` from orthonormal in the largest singular value squared).
    pub(crate) ball: f32,
}

/// An `Aabbs` container (columns min x, y, z, max x, y, z) against one oriented box, prepared
/// once per query.
#[derive(Clone)]
pub struct AabbsVsObb<'a> {
    pub(crate) cols: Cols<'a, 6>,
    /// The query's centre.
    pub(crate) center: [f32; 3],
    /// The query's axes (rows).
    pub(crate) axes: [[f32; 3]; 3],
    /// `|A_ij|`.
    pub(crate) abs_axes: [[f32; 3]; 3],
    /// Radius of the query on world axis `j`, `sum_i a_i |A_ij|`, rounded up.
    pub(crate) qa: [f32; 3],
    /// Radius of the query on its own axis `i`, `sum_k a_k |A_k . A_i|`, rounded up.
    pub(crate) ra: [f32; 3],
    /// Radius of the query on the edge axis `A_i × e_j`, `sum_k a_k |(A_k × A_i)_j|`, rounded up.
    pub(crate) re: [[f32; 3]; 3],
    /// `sum(a) 2^-20 + 2^-140` rounded up, or `+inf` (hits everything) when `8 sum(a)` overflows.
    pub(crate) margin_q: f32,
}

/// `(x.0 * y.0 + x.1 * y.1) + x.2 * y.2`, no fused multiply-add.
#[inline(always)]
fn dot3<V: Lanes>(x: [V; 3], y: [V; 3]) -> V {
    x[0].mul(y[0]).add(x[1].mul(y[1])).add(x[2].mul(y[2]))
}

/// `(x.0 + x.1) + x.2`.
#[inline(always)]
fn sum3<V: Lanes>(x: [V; 3]) -> V {
    x[0].add(x[1]).add(x[2])
}

/// `(|x.0| + |x.1|) + |x.2|`.
#[inline(always)]
fn norm1<V: Lanes>(x: [V; 3]) -> V {
    x[0].abs().add(x[1].abs()).add(x[2].abs())
}

/// Lanes where `margin < worst`: separated. NaN in either compares false (not separated).
#[inline(always)]
fn separated<V: Lanes>(margin: V, worst: V) -> u32 {
    V::bits(margin.lt(worst))
}

/// `1 + 2^-11`: the bounding-ball rejection's relative widening.
const BALL_WIDEN: f32 = 1.0 + 1.0 / 2048.0;

impl Kernel for ObbsVsObb<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let cb = self.cols.load3::<V>(0, c, j);
        let b = self.cols.load3::<V>(3, c, j);
        let bx = [
            self.cols.load3::<V>(6, c, j),
            self.cols.load3::<V>(9, c, j),
            self.cols.load3::<V>(12, c, j),
        ];
        let ca = splat3::<V>(self.center);
        let a = splat3::<V>(self.half);
        let ax = [
            splat3::<V>(self.axes[0]),
            splat3::<V>(self.axes[1]),
            splat3::<V>(self.axes[2]),
        ];
        let d = [cb[0].sub(ca[0]), cb[1].sub(ca[1]), cb[2].sub(ca[2])];
        let sum_b = sum3(b);

        // Bounding balls: apart if |d|^2 > (ball + sum(b))^2 (1 + 2^-11) + 2^-140.
        let reach = V::splat(self.ball).add(sum_b);
        let reach2 = reach
            .mul(reach)
            .mul(V::splat(BALL_WIDEN))
            .add(V::splat(MARGIN_FLOOR));
        let balls_apart = separated(reach2, dot3(d, d));
        if balls_apart == super::all_lanes::<V>() {
            return 0;
        }

        let eight = V::splat(8.0);
        let dist = norm1(d).mul(eight).mul(V::splat(OBB_DIST_SCALE));
        let size = sum_b.mul(eight).mul(V::splat(OBB_SIZE_SCALE));
        let margin = dist.add(size).add(V::splat(self.margin_q));

        let mut r = [[V::splat(0.0); 3]; 3];
        let mut ar = [[V::splat(0.0); 3]; 3];
        for i in 0..3 {
            for k in 0..3 {
                r[i][k] = dot3(ax[i], bx[k]);
                ar[i][k] = r[i][k].abs();
            }
        }
        let t = [dot3(d, ax[0]), dot3(d, ax[1]), dot3(d, ax[2])];

        // Faces of A.
        let mut worst = V::splat(f32::NEG_INFINITY);
        for i in 0..3 {
            let rb = dot3(b, ar[i]);
            let s = t[i].abs().sub(a[i].add(rb));
            worst = worst.max(s);
        }
        // Faces of B.
        for k in 0..3 {
            let u = dot3(d, bx[k]);
            let ra = dot3(a, [ar[0][k], ar[1][k], ar[2][k]]);
            let s = u.abs().sub(ra.add(b[k]));
            worst = worst.max(s);
        }
        if (separated(margin, worst) | balls_apart) == super::all_lanes::<V>() {
            return 0;
        }
        // Edges A_i × B_k.
        for i in 0..3 {
            let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
            for k in 0..3 {
                let (k1, k2) = ((k + 1) % 3, (k + 2) % 3);
                let e = t[i2].mul(r[i1][k]).sub(t[i1].mul(r[i2][k]));
                let ra = a[i1].mul(ar[i2][k]).add(a[i2].mul(ar[i1][k]));
                let rb = b[k1].mul(ar[i][k2]).add(b[k2].mul(ar[i][k1]));
                let s = e.abs().sub(ra.add(rb));
                worst = worst.max(s);
            }
        }
        (separated(margin, worst) | balls_apart) ^ super::all_lanes::<V>()
    }
}

impl Kernel for AabbsVsObb<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let lo = self.cols.load3::<V>(0, c, j);
        let hi = self.cols.load3::<V>(3, c, j);
        let ca = splat3::<V>(self.center);
        let half = V::splat(0.5);
        let mut d = [V::splat(0.0); 3];
        let mut b = [V::splat(0.0); 3];
        for k in 0..3 {
            d[k] = lo[k].sub(ca[k]).add(hi[k].sub(ca[k])).mul(half);
            b[k] = hi[k].sub(lo[k]).mul(half);
        }
        let sizes = norm1(d).add(sum3(b));
        let margin = sizes
            .mul(V::splat(8.0))
            .mul(V::splat(AABB_SCALE))
            .add(V::splat(self.margin_q));

        // Faces of the world box.
        let mut worst = V::splat(f32::NEG_INFINITY);
        for k in 0..3 {
            let s = d[k].abs().sub(V::splat(self.qa[k]).add(b[k]));
            worst = worst.max(s);
        }
        if separated(margin, worst) == super::all_lanes::<V>() {
            return 0;
        }
        // Faces of A.
        for i in 0..3 {
            let t = dot3(d, splat3(self.axes[i]));
            let rb = dot3(b, splat3(self.abs_axes[i]));
            let s = t.abs().sub(V::splat(self.ra[i]).add(rb));
            worst = worst.max(s);
        }
        if separated(margin, worst) == super::all_lanes::<V>() {
            return 0;
        }
        // Edges A_i × e_k.
        for i in 0..3 {
            for k in 0..3 {
                let (k1, k2) = ((k + 1) % 3, (k + 2) % 3);
                let e = d[k1]
                    .mul(V::splat(self.axes[i][k2]))
                    .sub(d[k2].mul(V::splat(self.axes[i][k1])));
                let rb = b[k1]
                    .mul(V::splat(self.abs_axes[i][k2]))
                    .add(b[k2].mul(V::splat(self.abs_axes[i][k1])));
                let s = e.abs().sub(V::splat(self.re[i][k]).add(rb));
                worst = worst.max(s);
            }
        }
        separated(margin, worst) ^ super::all_lanes::<V>()
    }
}

/// `2^-16`: the relative slack of [`AabbsNearObb`].
const NEAR_SCALE: f32 = f32::from_bits((127 - 16) << 23);
/// `2^-130`: the absolute slack of [`AabbsNearObb`].
const NEAR_FLOOR: f32 = f32::from_bits(1 << 19);
/// `2^-140`: scales [`AabbsNearObb`]'s overflow guard `r^2`.
const NEAR_GUARD: f32 = MARGIN_FLOOR;
/// `2^20`: [`AabbsVsObb`]'s `margin_q` times this bounds the query's `sum(a)`.
const QUERY_SUM_SCALE: f32 = f32::from_bits((127 + 20) << 23);

/// The offsets of box bounds `[lo, hi]` from a point `c` per axis, `u_k = lo_k - c_k` and
/// `w_k = c_k - hi_k` (positive where the bounds lie beyond `c`), and `r = sum_k max(|u_k|,
/// |w_k|)`, the 1-norm distance from `c` to the bounds' farthest corner: what the oriented boxes'
/// block tests ([`AabbsNearObb`], [`AabbsNearObbFaces`], `AabbsNearSphere`) start from.
#[inline(always)]
pub(crate) fn offsets_from<V: Lanes>(lo: [V; 3], hi: [V; 3], c: [V; 3]) -> ([V; 3], [V; 3], V) {
    let mut u = [V::splat(0.0); 3];
    let mut w = [V::splat(0.0); 3];
    for k in 0..3 {
        u[k] = lo[k].sub(c[k]);
        w[k] = c[k].sub(hi[k]);
    }
    let r = u[0]
        .abs()
        .max(w[0].abs())
        .add(u[1].abs().max(w[1].abs()))
        .add(u[2].abs().max(w[2].abs()));
    (u, w, r)
}

/// `(r^2 + s^2) 2^-140`: the block tests' overflow guard, `+inf` from `r` or `s` of `2^64` on.
#[inline(always)]
pub(crate) fn overflow_guard<V: Lanes>(r: V, s: V) -> V {
    r.mul(r).add(s.mul(s)).mul(V::splat(NEAR_GUARD))
}

/// The block test of an oriented box on box bounds (the blocked containers of `Aabbs`): whether
/// each box `B` of a level of bounds comes near the query's box of the world axes, with a slack
/// that covers whatever [`AabbsVsObb`] accepts. Per lane, with `u_k = lo_k - c_k`,
/// `w_k = c_k - hi_k` and `r = sum_k max(|u_k|, |w_k|)` (the farthest corner's distance in the
/// 1-norm, at least `|d|_1 + sum(b)` of every box inside `B`):
///
/// ```text
/// slack = (((r + s_a) * 2^-16) + 2^-130) + (r * r) * 2^-140
/// near  <=> u_k <= qa_k + slack  and  w_k <= qa_k + slack  on every axis k
/// ```
///
/// `s_a = margin_q * 2^20` (at least the query's `sum(a)`; `+inf` when its margin is). A box `p`
/// inside `B` that [`AabbsVsObb`] reports has, on each world axis, a computed gap
/// `|d_k| - (qa_k + b_k)` at most its margin (its world faces are among the 15 axes, and a NaN
/// gap only comes with overflowing lengths, where `r` is huge); so in real arithmetic
/// `p_lo_k - c_k <= qa_k + X` and `c_k - p_hi_k <= qa_k + X`, with the margin plus the gap's
/// rounding `X <= 2^-19 (r + sum(a)) + 2^-139` (`docs/algorithms.md`, "Blocked containers").
/// `B`'s `u_k <= p_lo_k - c_k`, and the slack exceeds `X` by a factor of 8 plus this test's own
/// rounding, so `B` passes. The guard `r^2 2^-140` is `+inf` from `r = 2^64` on: the kernel's
/// margin overflows (and it reports everything) only for `r` near `2^125`, and then every block
/// passes too. Comparisons of finite or infinite values only: `u_k`, `w_k` and `r` are never
/// NaN for finite bounds.
#[derive(Clone)]
pub struct AabbsNearObb<'a> {
    pub(crate) cols: Cols<'a, 6>,
    /// The query's centre.
    pub(crate) center: [f32; 3],
    /// The query's radius on each world axis (rounded up, as [`AabbsVsObb`]'s).
    pub(crate) qa: [f32; 3],
    /// At least the query's `sum(a)` (`+inf` when the leaf kernel's margin is).
    pub(crate) sum_a: f32,
}

impl<'a> AabbsNearObb<'a> {
    /// The block test over `cols` of the query of `leaf`.
    #[inline(always)]
    pub(crate) fn new(cols: Cols<'a, 6>, leaf: &AabbsVsObb<'_>) -> Self {
        AabbsNearObb {
            cols,
            center: leaf.center,
            qa: leaf.qa,
            // Exact power-of-two scaling of `sum(a) 2^-20 + 2^-140` rounded up.
            sum_a: leaf.margin_q * QUERY_SUM_SCALE,
        }
    }
}

impl Kernel for AabbsNearObb<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let lo = self.cols.load3::<V>(0, c, j);
        let hi = self.cols.load3::<V>(3, c, j);
        let (u, w, r) = offsets_from(lo, hi, splat3::<V>(self.center));
        let slack = r
            .add(V::splat(self.sum_a))
            .mul(V::splat(NEAR_SCALE))
            .add(V::splat(NEAR_FLOOR))
            .add(overflow_guard(r, V::splat(0.0)));
        let reach = [
            V::splat(self.qa[0]).add(slack),
            V::splat(self.qa[1]).add(slack),
            V::splat(self.qa[2]).add(slack),
        ];
        let x = V::and(u[0].le(reach[0]), w[0].le(reach[0]));
        let y = V::and(u[1].le(reach[1]), w[1].le(reach[1]));
        let z = V::and(u[2].le(reach[2]), w[2].le(reach[2]));
        V::bits(V::and(V::and(x, y), z))
    }
}

/// `2^-17`: [`AabbsNearObbFaces`]' share of the farthest corner's distance.
const FACES_DISTANCE: f32 = f32::from_bits((127 - 17) << 23);
/// `2^-6`: [`AabbsNearObbFaces`]' share of the bounds' half sides.
const FACES_SIDES: f32 = f32::from_bits((127 - 6) << 23);
/// `2^-8`: [`AabbsNearObbFaces`]' share of the query's size.
const FACES_QUERY: f32 = f32::from_bits((127 - 8) << 23);
/// `2^12`: [`ObbsVsObb`]'s `margin_q` times this bounds the query's `sum(a)`.
const OBB_QUERY_SUM_SCALE: f32 = f32::from_bits((127 + 12) << 23);

/// The block test of an oriented box on oriented boxes (the blocked containers of `Obbs`), over
/// box bounds: the separating-axis test of each box `B` against the query on the query's three
/// face axes `A_i` only, with a slack. With `c_B = lo / 2 + hi / 2`, `h_B = hi / 2 - lo / 2`,
/// `d = c_B - c_A`, `r = sum_k max(|lo_k - c_k|, |hi_k - c_k|)` and `s = sum_k h_B,k`:
///
/// ```text
/// gap_i = |d . A_i| - ((h_B,0 |A_i0| + h_B,1 |A_i1|) + h_B,2 |A_i2|)
/// slack = (((r 2^-17 + s 2^-6) + s_a 2^-8) + 2^-130) + (r^2 + s^2) 2^-140
/// near <=> not (a_i + slack < gap_i) on every face axis i
/// ```
///
/// `s_a = margin_q 2^12` (at least the query's `sum(a)`; `+inf` when [`ObbsVsObb`] hits
/// everything). The face axes of the query are three of [`ObbsVsObb`]'s 15: a reported primitive
/// has a real gap there of at most twice its margin, and its projection lies inside `B`'s
/// (`docs/algorithms.md`, "Blocked containers"). A NaN gap (an offset that overflowed) never
/// fails, and the guard makes every block pass from `r` or `s` of `2^64` on.
#[derive(Clone)]
pub struct AabbsNearObbFaces<'a> {
    pub(crate) cols: Cols<'a, 6>,
    /// The query's centre.
    pub(crate) center: [f32; 3],
    /// The query's half extents.
    pub(crate) half: [f32; 3],
    /// The query's axes (rows).
    pub(crate) axes: [[f32; 3]; 3],
    /// At least the query's `sum(a)` (`+inf` when the leaf kernel hits everything).
    pub(crate) sum_a: f32,
}

impl<'a> AabbsNearObbFaces<'a> {
    /// The block test over `cols` of the query of `leaf`.
    #[inline(always)]
    pub(crate) fn new(cols: Cols<'a, 6>, leaf: &ObbsVsObb<'_>) -> Self {
        AabbsNearObbFaces {
            cols,
            center: leaf.center,
            half: leaf.half,
            axes: leaf.axes,
            // Exact power-of-two scaling of `sum(a) 2^-12 + 2^-140` rounded up.
            sum_a: leaf.margin_q * OBB_QUERY_SUM_SCALE,
        }
    }
}

impl Kernel for AabbsNearObbFaces<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let lo = self.cols.load3::<V>(0, c, j);
        let hi = self.cols.load3::<V>(3, c, j);
        let ca = splat3::<V>(self.center);
        let half = V::splat(0.5);
        let mut d = [V::splat(0.0); 3];
        let mut h = [V::splat(0.0); 3];
        for k in 0..3 {
            let (l, u) = (lo[k].mul(half), hi[k].mul(half));
            d[k] = l.add(u).sub(ca[k]);
            h[k] = u.sub(l);
        }
        let (_, _, r) = offsets_from(lo, hi, ca);
        let s = h[0].add(h[1]).add(h[2]);
        let slack = r
            .mul(V::splat(FACES_DISTANCE))
            .add(s.mul(V::splat(FACES_SIDES)))
            .add(V::splat(self.sum_a).mul(V::splat(FACES_QUERY)))
            .add(V::splat(NEAR_FLOOR))
            .add(overflow_guard(r, s));
        let mut fail = 0;
        for i in 0..3 {
            let t = dot3(d, splat3(self.axes[i]));
            let abs_axis = [
                self.axes[i][0].abs(),
                self.axes[i][1].abs(),
                self.axes[i][2].abs(),
            ];
            let gap = t.abs().sub(dot3(h, splat3(abs_axis)));
            fail |= V::bits(V::splat(self.half[i]).add(slack).lt(gap));
        }
        !fail & super::all_lanes::<V>()
    }
}
