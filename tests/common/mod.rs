//! Shared test machinery: a seeded RNG, an exact arithmetic for real-number truths, the scalar
//! REFERENCE oracle (one plain function per supported pair, written for clarity, using the same f32
//! formulas in the same operation order as the kernels so that answers are bit-identical), data
//! generators (random and adversarial), and the `check_pair` harness that runs one query on one
//! container through every query method on every available backend.
//!
//! The test binaries declare it once at their root (`#[macro_use] mod common;`, in
//! `tests/suite/main.rs` and `tests/without_rayon.rs`), the fuzz targets by path; not every
//! module uses every item.
#![allow(dead_code, unused_macros)]

use bvlanes::{
    Aabb, Aabbs, Backend, BlockQuery, Blockable, Blocked, BvError, Conservative, DownTet, DownTets,
    Frustum, Obb, Obbs, Octahedra, Octahedron, Pinned, Query, Sphere, Spheres, TET_AXES, UpTet,
    UpTets,
};
use core::cmp::Ordering;
use core::fmt::Debug;
use core::ops::{Add, Neg, Sub};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

// =================================================================================================
// Random numbers
// =================================================================================================

/// A seeded generator with the few helpers the tests need.
pub struct TestRng(Xoshiro256PlusPlus);

impl TestRng {
    pub fn new(seed: u64) -> TestRng {
        TestRng(Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    /// A generator whose seed also depends on a name (so two tests with the same seed list do not
    /// see the same numbers).
    pub fn named(seed: u64, name: &str) -> TestRng {
        let h = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        TestRng::new(seed ^ h)
    }

    pub fn u32(&mut self) -> u32 {
        self.0.next_u32()
    }

    pub fn u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.u64() % n as u64) as usize
    }

    /// Uniform in `[0, 1)`, 24 random bits.
    pub fn unit(&mut self) -> f32 {
        (self.u32() >> 8) as f32 * (1.0 / 16_777_216.0)
    }

    /// Uniform in `[lo, hi)` (roughly: f32 rounding).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in `[-h, h)`.
    pub fn sym(&mut self, h: f32) -> f32 {
        self.range(-h, h)
    }

    pub fn chance(&mut self, p: f32) -> bool {
        self.unit() < p
    }

    pub fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len())]
    }

    /// A point `at + [-h, h)^3`.
    pub fn near(&mut self, at: [f32; 3], h: f32) -> [f32; 3] {
        [
            at[0] + self.sym(h),
            at[1] + self.sym(h),
            at[2] + self.sym(h),
        ]
    }
}

// =================================================================================================
// Exact arithmetic: fixed point with 256 fraction bits, wide enough for every sum of f32 values
// =================================================================================================

const LIMBS: usize = 8;
const FRAC_BITS: i32 = 256;

/// An exact dyadic number: a 512-bit two's-complement integer times `2^-256`. Every finite f32
/// (from `2^-149` to below `2^128`) and every sum, difference or halving of a few of them is
/// represented exactly. Used for the real-number truths (exact signs of sums, exact containment),
/// where f64 would round (`1.0 + 1e-20` needs 67 bits).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Exact([u64; LIMBS]);

impl Exact {
    pub const ZERO: Exact = Exact([0; LIMBS]);

    /// The exact value of a finite f32.
    pub fn of(v: f32) -> Exact {
        assert!(v.is_finite(), "Exact::of({v}): not finite");
        let bits = v.to_bits();
        let biased = (bits >> 23) & 0xff;
        let fraction = u128::from(bits & 0x7f_ffff);
        let (mantissa, exponent) = if biased == 0 {
            (fraction, -149) // subnormal (or zero)
        } else {
            (fraction | 1 << 23, biased as i32 - 150)
        };
        let shift = usize::try_from(exponent + FRAC_BITS).expect("f32 exponents are >= -149");
        let wide = mantissa << (shift % 64);
        let mut limbs = [0u64; LIMBS];
        limbs[shift / 64] = wide as u64;
        limbs[shift / 64 + 1] = (wide >> 64) as u64;
        let x = Exact(limbs);
        if bits >> 31 == 1 { -x } else { x }
    }

    /// The exact sum of some f32 values.
    pub fn sum(values: &[f32]) -> Exact {
        let mut acc = Exact::ZERO;
        for &v in values {
            acc = acc + Exact::of(v);
        }
        acc
    }

    /// `self / 2`, exactly (asserts that no bit is lost).
    pub fn half(self) -> Exact {
        assert_eq!(self.0[0] & 1, 0, "Exact::half would round");
        let mut out = [0u64; LIMBS];
        for (i, o) in out.iter_mut().enumerate() {
            let next = if i + 1 < LIMBS {
                self.0[i + 1]
            } else {
                // sign extension
                if (self.0[LIMBS - 1] as i64) < 0 {
                    u64::MAX
                } else {
                    0
                }
            };
            *o = (self.0[i] >> 1) | (next << 63);
        }
        Exact(out)
    }

    /// `self * 2^-n`, exactly.
    pub fn scaled_down(self, n: u32) -> Exact {
        (0..n).fold(self, |x, _| x.half())
    }

    /// The sign: `Less` (negative), `Equal` (zero) or `Greater` (positive).
    pub fn signum(self) -> Ordering {
        if (self.0[LIMBS - 1] as i64) < 0 {
            Ordering::Less
        } else if self.0 == [0; LIMBS] {
            Ordering::Equal
        } else {
            Ordering::Greater
        }
    }

    /// An f64 approximation (for messages and for tolerances, never for decisions).
    pub fn approx(self) -> f64 {
        let (neg, mag) = if self.signum() == Ordering::Less {
            (true, -self)
        } else {
            (false, self)
        };
        let v: f64 = mag
            .0
            .iter()
            .enumerate()
            .map(|(i, &l)| l as f64 * 2f64.powi(64 * i as i32 - FRAC_BITS))
            .sum();
        if neg { -v } else { v }
    }
}

// The limb loops index by position on purpose: iterator adaptors are slow in the debug profile
// the tests run in, and `Exact` is the hot spot of the reference.
#[allow(clippy::needless_range_loop)]
impl Add for Exact {
    type Output = Exact;
    fn add(self, o: Exact) -> Exact {
        let mut out = [0u64; LIMBS];
        let mut carry = 0u64;
        for i in 0..LIMBS {
            let (s1, c1) = self.0[i].overflowing_add(o.0[i]);
            let (s2, c2) = s1.overflowing_add(carry);
            out[i] = s2;
            carry = u64::from(c1 || c2);
        }
        Exact(out)
    }
}

#[allow(clippy::needless_range_loop)]
impl Neg for Exact {
    type Output = Exact;
    fn neg(self) -> Exact {
        let mut out = [0u64; LIMBS];
        let mut carry = 1u64;
        for i in 0..LIMBS {
            let (s, c) = (!self.0[i]).overflowing_add(carry);
            out[i] = s;
            carry = u64::from(c);
        }
        Exact(out)
    }
}

impl Sub for Exact {
    type Output = Exact;
    fn sub(self, o: Exact) -> Exact {
        self + -o
    }
}

impl PartialOrd for Exact {
    fn partial_cmp(&self, o: &Exact) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Exact {
    fn cmp(&self, o: &Exact) -> Ordering {
        (*self - *o).signum()
    }
}

impl Debug for Exact {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Exact(~{:e})", self.approx())
    }
}

/// The exact sign of the sum of finite f32 values.
pub fn sum_sign(values: &[f32]) -> Ordering {
    Exact::sum(values).signum()
}

/// `t_k(p) = n_k . p` for the four [`TET_AXES`], exactly (p may be any exact 3-D point).
pub fn exact_projections(p: [Exact; 3]) -> [Exact; 4] {
    TET_AXES.map(|n| {
        (0..3).fold(Exact::ZERO, |acc, i| {
            if n[i] > 0.0 { acc + p[i] } else { acc - p[i] }
        })
    })
}

/// The 3-D point with tetrahedral coordinates `t` (which must sum to zero), exactly:
/// `t_A + t_B = 2x`, `t_A + t_C = 2y`, `t_A + t_D = 2z` (from the axis convention).
pub fn exact_point_of(t: [Exact; 4]) -> [Exact; 3] {
    assert_eq!(
        (t[0] + t[1] + t[2] + t[3]).signum(),
        Ordering::Equal,
        "tetrahedral coordinates of a point sum to zero"
    );
    [
        (t[0] + t[1]).half(),
        (t[0] + t[2]).half(),
        (t[0] + t[3]).half(),
    ]
}

// =================================================================================================
// Directed rounding, written from the definition ("the nearest f32 on the outward side")
// =================================================================================================

/// How the f32 sum `s = a + b` (rounded to nearest, finite) compares with the exact `a + b`.
fn rounded_vs_exact(s: f32, a: f32, b: f32) -> Ordering {
    // Fast path: Dekker's Fast2Sum in f64 tells whether the f64 sum is exact; if it is, compare
    // with it directly. Otherwise (exponents far apart) use exact arithmetic.
    let (a64, b64) = (f64::from(a), f64::from(b));
    let s64 = a64 + b64;
    let exact_in_f64 = if a64.abs() >= b64.abs() {
        s64 - a64 == b64
    } else {
        s64 - b64 == a64
    };
    if exact_in_f64 {
        f64::from(s).partial_cmp(&s64).expect("finite")
    } else {
        Exact::of(s).cmp(&Exact::sum(&[a, b]))
    }
}

/// `a + b` rounded toward negative infinity (a, b not NaN; not `inf + -inf`).
pub fn add_down(a: f32, b: f32) -> f32 {
    let s = a + b;
    if !a.is_finite() || !b.is_finite() {
        return s; // an infinite operand: the sum is that infinity, exactly
    }
    if s == f32::INFINITY {
        return f32::MAX; // the exact sum is above MAX: the largest f32 below it is MAX
    }
    if s == f32::NEG_INFINITY {
        return s; // the exact sum is below -MAX: nothing finite is below it
    }
    if rounded_vs_exact(s, a, b) == Ordering::Greater {
        s.next_down()
    } else {
        s
    }
}

/// `a + b` rounded toward positive infinity.
pub fn add_up(a: f32, b: f32) -> f32 {
    let s = a + b;
    if !a.is_finite() || !b.is_finite() {
        return s;
    }
    if s == f32::NEG_INFINITY {
        return f32::MIN; // -MAX
    }
    if s == f32::INFINITY {
        return s;
    }
    if rounded_vs_exact(s, a, b) == Ordering::Less {
        s.next_up()
    } else {
        s
    }
}

/// `a * b` rounded toward positive infinity for `a, b >= 0` (the product of two f32 is exact in
/// f64).
pub fn mul_up(a: f32, b: f32) -> f32 {
    let p = a * b;
    if p.is_finite() && f64::from(p) < f64::from(a) * f64::from(b) {
        p.next_up()
    } else {
        p
    }
}

/// The three signed terms `n_i * p_i` of each projection, in the axis order of [`TET_AXES`].
fn projection_terms(p: [f32; 3]) -> [[f32; 3]; 4] {
    TET_AXES.map(|n| [n[0] * p[0], n[1] * p[1], n[2] * p[2]])
}

/// The exact sum of finite values rounded toward negative infinity (`up = false`) or positive
/// infinity (`up = true`): "the nearest f32 on that side", from the definition.
pub fn sum_directed(values: &[f32], up: bool) -> f32 {
    let exact = Exact::sum(values);
    let max = Exact::of(f32::MAX);
    if exact > max {
        return if up { f32::INFINITY } else { f32::MAX };
    }
    if exact < -max {
        return if up { -f32::MAX } else { f32::NEG_INFINITY };
    }
    // Start near the answer, then walk to the nearest f32 on the requested side.
    let mut s = exact.approx() as f32;
    if s.is_infinite() {
        s = s.signum() * f32::MAX;
    }
    if up {
        while Exact::of(s) < exact {
            s = s.next_up();
        }
        while s.next_down().is_finite() && Exact::of(s.next_down()) >= exact {
            s = s.next_down();
        }
    } else {
        while Exact::of(s) > exact {
            s = s.next_down();
        }
        while s.next_up().is_finite() && Exact::of(s.next_up()) <= exact {
            s = s.next_up();
        }
    }
    s
}

/// Lower bounds of `t_k(p)`: the exact projection rounded down once.
pub fn project_down(p: [f32; 3]) -> [f32; 4] {
    projection_terms(p).map(|t| sum_directed(&t, false))
}

/// Upper bounds of `t_k(p)`: the exact projection rounded up once.
pub fn project_up(p: [f32; 3]) -> [f32; 4] {
    projection_terms(p).map(|t| sum_directed(&t, true))
}

/// `t_k(p)` in plain f32 (rounded to nearest): for generating data only.
pub fn project_plain(p: [f32; 3]) -> [f32; 4] {
    projection_terms(p).map(|t| t[0] + t[1] + t[2])
}

// =================================================================================================
// Screening (what a query must be to hit anything) and container validity, from the crate docs
// =================================================================================================

fn finite<const N: usize>(v: &[f32; N]) -> bool {
    v.iter().all(|x| x.is_finite())
}

fn has_nan<const N: usize>(v: &[f32; N]) -> bool {
    v.iter().any(|x| x.is_nan())
}

/// A point hits something only if it is finite.
pub fn point_query_ok(p: &[f32; 3]) -> bool {
    finite(p)
}

/// A sphere query: finite centre, radius `>= 0` (`+inf` fine, NaN not, `-0.0` is zero).
pub fn sphere_query_ok(s: &Sphere) -> bool {
    finite(&s.center) && s.radius >= 0.0
}

/// A box query: no NaN, `min <= max`, and some finite point on every axis (so `[inf, inf]` and
/// `[-inf, -inf]` are empty).
pub fn aabb_query_ok(b: &Aabb) -> bool {
    !has_nan(&b.min)
        && !has_nan(&b.max)
        && (0..3).all(|i| {
            b.min[i] <= b.max[i] && b.min[i] != f32::INFINITY && b.max[i] != f32::NEG_INFINITY
        })
}

/// An up tetrahedron `{t >= min}` is non-empty iff `sum(min) <= 0` (extended reals: a `-inf`
/// bound makes it non-empty unless a `+inf` bound makes it empty).
pub fn up_query_ok(u: &UpTet) -> bool {
    if has_nan(&u.min) || u.min.contains(&f32::INFINITY) {
        return false;
    }
    u.min.contains(&f32::NEG_INFINITY) || sum_sign(&u.min) != Ordering::Greater
}

/// A down tetrahedron `{t <= max}` is non-empty iff `sum(max) >= 0`.
pub fn down_query_ok(d: &DownTet) -> bool {
    if has_nan(&d.max) || d.max.contains(&f32::NEG_INFINITY) {
        return false;
    }
    d.max.contains(&f32::INFINITY) || sum_sign(&d.max) != Ordering::Less
}

/// An octahedron is non-empty iff both tetrahedra are and `up <= down` on every axis.
pub fn octahedron_query_ok(o: &Octahedron) -> bool {
    up_query_ok(&o.up) && down_query_ok(&o.down) && (0..4).all(|k| o.up.min[k] <= o.down.max[k])
}

pub fn aabb_valid(b: &Aabb) -> bool {
    finite(&b.min) && finite(&b.max) && (0..3).all(|i| b.min[i] <= b.max[i])
}

pub fn sphere_valid(s: &Sphere) -> bool {
    finite(&s.center) && s.radius.is_finite() && s.radius >= 0.0 && s.radius <= MAX_RADIUS
}

/// The largest radius a container accepts: `2^62`.
pub const MAX_RADIUS: f32 = f32::from_bits((127 + 62) << 23);

/// The scale huge query radii bring every length down by: `2^-66` (exact for powers of two).
pub const HUGE_RADIUS_SCALE: f32 = f32::from_bits((127 - 66) << 23);

pub fn up_valid(u: &UpTet) -> bool {
    finite(&u.min) && sum_sign(&u.min) != Ordering::Greater
}

pub fn down_valid(d: &DownTet) -> bool {
    finite(&d.max) && sum_sign(&d.max) != Ordering::Less
}

pub fn octahedron_valid(o: &Octahedron) -> bool {
    up_valid(&o.up) && down_valid(&o.down) && (0..4).all(|k| o.up.min[k] <= o.down.max[k])
}

pub fn obb_valid(o: &Obb) -> bool {
    let finite = finite(&o.center) && finite(&o.half_extents) && o.axes.iter().all(finite);
    finite
        && o.half_extents.iter().all(|&h| h >= 0.0)
        && (0..3).all(|a| {
            (0..3).all(|b| {
                let dot: f64 = (0..3)
                    .map(|i| f64::from(o.axes[a][i]) * f64::from(o.axes[b][i]))
                    .sum();
                (dot - if a == b { 1.0 } else { 0.0 }).abs() <= 1e-4
            })
        })
}

// =================================================================================================
// The kernels' formulas, one lane at a time
// =================================================================================================

/// x86 `maxps`: the first operand only when it is strictly greater.
pub fn maxps(a: f32, b: f32) -> f32 {
    if a > b { a } else { b }
}

/// x86 `minps`: the first operand only when it is strictly smaller.
pub fn minps(a: f32, b: f32) -> f32 {
    if a < b { a } else { b }
}

/// Closed boxes overlap: `bmin <= qmax && qmin <= bmax` on every axis.
pub fn boxes_overlap(q_min: [f32; 3], q_max: [f32; 3], b_min: [f32; 3], b_max: [f32; 3]) -> bool {
    (0..3).all(|i| b_min[i] <= q_max[i] && q_min[i] <= b_max[i])
}

/// Squared distance from `c` to the box `[lo, hi]`, clamp form, every length scaled by `k`
/// (1, or a power of two) before squaring: `e_i = (c_i - min(max(c_i, lo_i), hi_i)) * k`,
/// `d = (ex*ex + ey*ey) + ez*ez`.
pub fn scaled_dist2_to_box(c: [f32; 3], lo: [f32; 3], hi: [f32; 3], k: f32) -> f32 {
    let e = |i: usize| (c[i] - minps(maxps(c[i], lo[i]), hi[i])) * k;
    let (ex, ey, ez) = (e(0), e(1), e(2));
    (ex * ex + ey * ey) + ez * ez
}

/// [`scaled_dist2_to_box`] with `k = 1` (multiplying by 1 changes nothing).
pub fn dist2_to_box(c: [f32; 3], lo: [f32; 3], hi: [f32; 3]) -> f32 {
    scaled_dist2_to_box(c, lo, hi, 1.0)
}

/// Spheres `(c, r)` (container) and `(q, rq)` (query), lengths scaled by `k`:
/// `d = (c - q) * k`, `s = (r + rq) * k`, `(dx*dx + dy*dy) + dz*dz <= s * s`.
pub fn spheres_touch(c: [f32; 3], r: f32, q: [f32; 3], rq: f32, k: f32) -> bool {
    let (dx, dy, dz) = ((c[0] - q[0]) * k, (c[1] - q[1]) * k, (c[2] - q[2]) * k);
    let d2 = (dx * dx + dy * dy) + dz * dz;
    let s = (r + rq) * k;
    d2 <= s * s
}

/// `a[k] <= b[k]` on all four axes.
pub fn all_le4(a: [f32; 4], b: [f32; 4]) -> bool {
    (0..4).all(|k| a[k] <= b[k])
}

/// `(v0/4 + v1/4) + (v2/4 + v3/4)` and its tolerance `max|v_k| * 2^-21 + 2^-140`.
pub fn quarter_sum(v: [f32; 4]) -> (f32, f32) {
    let s = (v[0] * 0.25 + v[1] * 0.25) + (v[2] * 0.25 + v[3] * 0.25);
    let m = maxps(maxps(v[0].abs(), v[1].abs()), maxps(v[2].abs(), v[3].abs()));
    (s, m * SUM_TOL_REL + SUM_TOL_ABS)
}

/// `2^-21`.
pub const SUM_TOL_REL: f32 = 1.0 / 2_097_152.0;
/// `2^-140` (subnormal).
pub const SUM_TOL_ABS: f32 = f32::from_bits(1 << 9);

/// The octahedron sum condition within tolerance: `sum(lo) <= 0 <= sum(hi)`.
pub fn sums_straddle_zero(lo: [f32; 4], hi: [f32; 4]) -> bool {
    let (s_lo, tol_lo) = quarter_sum(lo);
    let (s_hi, tol_hi) = quarter_sum(hi);
    s_lo <= tol_lo && 0.0 - tol_hi <= s_hi
}

/// The conservative sphere box: radius widened to `r * (1 + 2^-20)` rounded up, plus `2^-74`
/// rounded up, then the box `c -/+ r'` rounded outward.
/// `r (1 + 2^-20) + 2^-74`, rounded up.
pub fn widened_radius(r: f32) -> f32 {
    const WIDEN: f32 = 1.0 + 1.0 / 1_048_576.0;
    const FLOOR: f32 = f32::from_bits(53 << 23); // 2^-74
    add_up(mul_up(r, WIDEN), FLOOR)
}

pub fn widened_sphere_box(s: &Sphere) -> Aabb {
    let r = widened_radius(s.radius);
    Aabb {
        min: s.center.map(|c| add_down(c, -r)),
        max: s.center.map(|c| add_up(c, r)),
    }
}

// =================================================================================================
// The REFERENCE: one function per supported (query, container) pair
// =================================================================================================

pub fn ref_point_aabb(p: &[f32; 3], b: &Aabb) -> bool {
    point_query_ok(p) && boxes_overlap(*p, *p, b.min, b.max)
}

pub fn ref_aabb_aabb(q: &Aabb, b: &Aabb) -> bool {
    aabb_query_ok(q) && boxes_overlap(q.min, q.max, b.min, b.max)
}

/// A query radius whose square overflows (`2^64` and up) scales every length by `2^-66` first.
pub fn ref_sphere_aabb(q: &Sphere, b: &Aabb) -> bool {
    let r = q.radius;
    let (k, r2) = if (r * r).is_finite() {
        (1.0, r * r)
    } else {
        let rk = r * HUGE_RADIUS_SCALE;
        (HUGE_RADIUS_SCALE, rk * rk)
    };
    sphere_query_ok(q) && scaled_dist2_to_box(q.center, b.min, b.max, k) <= r2
}

pub fn ref_conservative_sphere_aabb(q: &Conservative<Sphere>, b: &Aabb) -> bool {
    sphere_query_ok(&q.0) && {
        let w = widened_sphere_box(&q.0);
        boxes_overlap(w.min, w.max, b.min, b.max)
    }
}

/// The query centre in the box's frame: `d = c - center`, `local_k = (d.x a_k.x + d.y a_k.y) + d.z a_k.z`.
pub fn obb_local(c: [f32; 3], o: &Obb) -> [f32; 3] {
    let d = [c[0] - o.center[0], c[1] - o.center[1], c[2] - o.center[2]];
    o.axes.map(|a| (d[0] * a[0] + d[1] * a[1]) + d[2] * a[2])
}

/// Sphere against an oriented box: the clamp form on `local` against `[-h, h]` (scaled for huge
/// radii, as for boxes).
pub fn ref_sphere_obb(q: &Sphere, o: &Obb) -> bool {
    let r = q.radius;
    let (k, r2) = if (r * r).is_finite() {
        (1.0, r * r)
    } else {
        let rk = r * HUGE_RADIUS_SCALE;
        (HUGE_RADIUS_SCALE, rk * rk)
    };
    let neg_h = o.half_extents.map(|h| 0.0 - h);
    sphere_query_ok(q)
        && scaled_dist2_to_box(obb_local(q.center, o), neg_h, o.half_extents, k) <= r2
}

/// A point is the sphere of radius 0 (its `r * r` is 0).
pub fn ref_point_obb(p: &[f32; 3], o: &Obb) -> bool {
    point_query_ok(p) && {
        let neg_h = o.half_extents.map(|h| 0.0 - h);
        dist2_to_box(obb_local(*p, o), neg_h, o.half_extents) <= 0.0
    }
}

/// Quick rejections in the box frame: `|local_k| - h_k <= r'` with the widened radius.
pub fn ref_conservative_sphere_obb(q: &Conservative<Sphere>, o: &Obb) -> bool {
    sphere_query_ok(&q.0) && {
        let reach = widened_radius(q.0.radius);
        let local = obb_local(q.0.center, o);
        (0..3).all(|k| local[k].abs() - o.half_extents[k] <= reach)
    }
}

// ---- oriented box against oriented boxes and boxes: the conservative separating-axis test ----

/// `2^-140`, the absolute floor of the SAT margins.
pub const SAT_FLOOR: f32 = f32::from_bits(1 << 9);

/// The smallest f32 `>= x` (`x >= 0`).
pub fn f32_at_least(x: f64) -> f32 {
    let f = x as f32;
    if f64::from(f) < x { f.next_up() } else { f }
}

/// `sum_k a_k (|c_k| + 2^-50)`, times `1 + 2^-48`, rounded up to f32 (the crate's per-query radius
/// bound, same f64 operations).
pub fn weighted_sum_up(a: [f32; 3], c: [f64; 3]) -> f32 {
    let term = |k: usize| f64::from(a[k]) * (c[k].abs() + 2f64.powi(-50));
    f32_at_least(((term(0) + term(1)) + term(2)) * (1.0 + 2f64.powi(-48)))
}

/// `sum(a) * scale + 2^-140` rounded up, `+inf` when `8 sum(a)` exceeds `f32::MAX`.
pub fn sat_query_margin(a: [f32; 3], scale: f32) -> f32 {
    let sum = (f64::from(a[0]) + f64::from(a[1])) + f64::from(a[2]);
    if sum * 8.0 > f64::from(f32::MAX) {
        return f32::INFINITY;
    }
    f32_at_least((sum * f64::from(scale) + f64::from(SAT_FLOOR)) * (1.0 + 2f64.powi(-48)))
}

fn dot_f64(x: [f32; 3], y: [f32; 3]) -> f64 {
    (f64::from(x[0]) * f64::from(y[0]) + f64::from(x[1]) * f64::from(y[1]))
        + f64::from(x[2]) * f64::from(y[2])
}

fn cross_f64(x: [f32; 3], y: [f32; 3], j: usize) -> f64 {
    let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
    f64::from(x[j1]) * f64::from(y[j2]) - f64::from(x[j2]) * f64::from(y[j1])
}

/// `(x0 y0 + x1 y1) + x2 y2` in f32.
pub fn dot3(x: [f32; 3], y: [f32; 3]) -> f32 {
    (x[0] * y[0] + x[1] * y[1]) + x[2] * y[2]
}

/// An `Obb` query: `None` if it hits nothing (NaN, infinity, negative half extent); otherwise the
/// query and whether its axes are orthonormal within the container tolerance.
pub fn obb_query(q: &Obb) -> Option<(Obb, bool)> {
    let finite = finite(&q.center) && finite(&q.half_extents) && q.axes.iter().all(finite);
    if !finite || q.half_extents.iter().any(|&h| h < 0.0) {
        return None;
    }
    Some((*q, obb_valid(q)))
}

/// The conservative SAT of an oriented box query against an oriented box, the f32 formula of
/// `src/kernel/obb_obb.rs` one lane at a time (`None` as the query's margin part means "hits
/// everything").
#[allow(clippy::needless_range_loop, clippy::neg_cmp_op_on_partial_ord)] // the kernel's loops; NaN
pub fn sat_obb_obb(q: &Obb, margin_q: f32, ball: f32, o: &Obb) -> bool {
    let (a, ax) = (q.half_extents, q.axes);
    let (b, bx) = (o.half_extents, o.axes);
    let d: [f32; 3] = core::array::from_fn(|k| o.center[k] - q.center[k]);
    let norm1 = (d[0].abs() + d[1].abs()) + d[2].abs();
    let sum_b = (b[0] + b[1]) + b[2];
    let reach = ball + sum_b;
    let reach2 = (reach * reach) * (1.0 + 1.0 / 2048.0) + SAT_FLOOR;
    if reach2 < dot3(d, d) {
        return false; // the bounding balls are apart
    }
    let margin = ((norm1 * 8.0) * 2f32.powi(-22) + (sum_b * 8.0) * 2f32.powi(-13)) + margin_q;
    let r: [[f32; 3]; 3] = core::array::from_fn(|i| core::array::from_fn(|k| dot3(ax[i], bx[k])));
    let ar = r.map(|row| row.map(f32::abs));
    let t: [f32; 3] = core::array::from_fn(|i| dot3(d, ax[i]));
    let mut worst = f32::NEG_INFINITY;
    for i in 0..3 {
        worst = maxps(worst, t[i].abs() - (a[i] + dot3(b, ar[i])));
    }
    for k in 0..3 {
        let ra = dot3(a, [ar[0][k], ar[1][k], ar[2][k]]);
        worst = maxps(worst, dot3(d, bx[k]).abs() - (ra + b[k]));
    }
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for k in 0..3 {
            let (k1, k2) = ((k + 1) % 3, (k + 2) % 3);
            let e = t[i2] * r[i1][k] - t[i1] * r[i2][k];
            let ra = a[i1] * ar[i2][k] + a[i2] * ar[i1][k];
            let rb = b[k1] * ar[i][k2] + b[k2] * ar[i][k1];
            worst = maxps(worst, e.abs() - (ra + rb));
        }
    }
    // Separated iff margin < worst (false with NaN).
    !(margin < worst)
}

/// `Obb` vs `Obbs`: screened; a skewed query is its outward bounding box as an `Obb` (everything
/// if that box is not finite).
pub fn ref_obb_obb(q: &Obb, o: &Obb) -> bool {
    let Some((q, orthonormal)) = obb_query(q) else {
        return false;
    };
    let q = if orthonormal {
        q
    } else {
        Obb::from_aabb(&q.aabb())
    };
    if !obb_valid(&q) {
        return true;
    }
    let a = q.half_extents.map(|h| f64::from(h) * f64::from(h));
    let ball = f32_at_least(((a[0] + a[1]) + a[2]).sqrt() * (1.0 + 1.6e-4));
    sat_obb_obb(
        &q,
        sat_query_margin(q.half_extents, 2f32.powi(-12)),
        ball,
        o,
    )
}

/// The conservative SAT of an orthonormal oriented box query against an axis-aligned box, the f32
/// formula of `src/kernel/obb_obb.rs` (per-query radii in f64, rounded up).
#[allow(clippy::needless_range_loop, clippy::neg_cmp_op_on_partial_ord)] // the kernel's loops; NaN
pub fn sat_obb_aabb(q: &Obb, bx: &Aabb) -> bool {
    let (a, ax) = (q.half_extents, q.axes);
    let column = |j: usize| [ax[0][j], ax[1][j], ax[2][j]];
    let abs_axes = ax.map(|row| row.map(f32::abs));
    let qa: [f32; 3] = core::array::from_fn(|j| weighted_sum_up(a, column(j).map(f64::from)));
    let ra: [f32; 3] = core::array::from_fn(|i| {
        weighted_sum_up(a, core::array::from_fn(|k| dot_f64(ax[k], ax[i])))
    });
    let re: [[f32; 3]; 3] = core::array::from_fn(|i| {
        core::array::from_fn(|j| {
            weighted_sum_up(a, core::array::from_fn(|k| cross_f64(ax[k], ax[i], j)))
        })
    });
    let margin_q = sat_query_margin(a, 2f32.powi(-20));
    let d: [f32; 3] =
        core::array::from_fn(|k| ((bx.min[k] - q.center[k]) + (bx.max[k] - q.center[k])) * 0.5);
    let b: [f32; 3] = core::array::from_fn(|k| (bx.max[k] - bx.min[k]) * 0.5);
    let sizes = ((d[0].abs() + d[1].abs()) + d[2].abs()) + ((b[0] + b[1]) + b[2]);
    let margin = ((sizes * 8.0) * 2f32.powi(-23)) + margin_q;
    let mut worst = f32::NEG_INFINITY;
    for k in 0..3 {
        worst = maxps(worst, d[k].abs() - (qa[k] + b[k]));
    }
    for i in 0..3 {
        worst = maxps(worst, dot3(d, ax[i]).abs() - (ra[i] + dot3(b, abs_axes[i])));
    }
    for i in 0..3 {
        for k in 0..3 {
            let (k1, k2) = ((k + 1) % 3, (k + 2) % 3);
            let e = d[k1] * ax[i][k2] - d[k2] * ax[i][k1];
            let rb = b[k1] * abs_axes[i][k2] + b[k2] * abs_axes[i][k1];
            worst = maxps(worst, e.abs() - (re[i][k] + rb));
        }
    }
    !(margin < worst)
}

/// `Obb` vs `Aabbs`: screened; a skewed query runs the box test on its outward bounding box.
pub fn ref_obb_aabb(q: &Obb, b: &Aabb) -> bool {
    match obb_query(q) {
        None => false,
        Some((q, true)) => sat_obb_aabb(&q, b),
        Some((q, false)) => {
            let bb = q.aabb();
            boxes_overlap(bb.min, bb.max, b.min, b.max)
        }
    }
}

// ---- frustum against spheres and boxes: the conservative plane test ----

/// A frustum query hits something only if every plane is finite with a non-zero normal.
pub fn frustum_query_ok(f: &Frustum) -> bool {
    f.planes
        .iter()
        .all(|p| finite(p) && !(p[0] == 0.0 && p[1] == 0.0 && p[2] == 0.0))
}

/// The per-plane constants of the frustum test (docs/algorithms.md): `nl = |n| (1 + 2^-20)`
/// rounded up from f64, `P = 8 max|n_i|`, `Q = 8 |d| + 2^-116` rounded up.
pub fn frustum_constants(f: &Frustum) -> [(f32, f32, f32); 6] {
    f.planes.map(|p| {
        let sq = |v: f32| f64::from(v) * f64::from(v);
        let norm = ((sq(p[0]) + sq(p[1])) + sq(p[2])).sqrt();
        let nl = f32_at_least(norm * (1.0 + 2f64.powi(-20)));
        let mag_n = p[0].abs().max(p[1].abs()).max(p[2].abs()) * 8.0;
        let mag_d = f32_at_least(f64::from(p[3]).abs() * 8.0 + 2f64.powi(-116));
        (nl, mag_n, mag_d)
    })
}

/// `((a x0 + b x1) + c x2) + d` in f32.
pub fn plane_value(p: [f32; 4], x: [f32; 3]) -> f32 {
    ((x[0] * p[0] + x[1] * p[1]) + x[2] * p[2]) + p[3]
}

/// Whether a plane with constants `(_, P, Q)` rejects a lane with value `t` and magnitude `l`:
/// `t + ((l * P) + Q) * 2^-24 < 0`.
pub fn plane_rejects(t: f32, l: f32, mag_n: f32, mag_d: f32) -> bool {
    let m = ((l * mag_n) + mag_d) * 2f32.powi(-24);
    t + m < 0.0
}

/// Frustum vs a sphere: rejected by a plane when `(n . c + d) + r nl` plus the margin of
/// `L = |c|_1` is below zero.
pub fn ref_frustum_sphere(q: &Frustum, s: &Sphere) -> bool {
    frustum_query_ok(q) && {
        let k = frustum_constants(q);
        let x = s.center;
        let l = (x[0].abs() + x[1].abs()) + x[2].abs();
        (0..6).all(|i| {
            let t = plane_value(q.planes[i], x) + s.radius * k[i].0;
            !plane_rejects(t, l, k[i].1, k[i].2)
        })
    }
}

/// Frustum vs a box: the p-vertex (max where the normal component is `>= 0`, else min) against
/// each plane, `L = sum_i maxps(|lo_i|, |hi_i|)`.
pub fn ref_frustum_aabb(q: &Frustum, b: &Aabb) -> bool {
    frustum_query_ok(q) && {
        let k = frustum_constants(q);
        let big: [f32; 3] = core::array::from_fn(|i| maxps(b.min[i].abs(), b.max[i].abs()));
        let l = (big[0] + big[1]) + big[2];
        (0..6).all(|i| {
            let p = q.planes[i];
            let v: [f32; 3] =
                core::array::from_fn(|a| if p[a] >= 0.0 { b.max[a] } else { b.min[a] });
            !plane_rejects(plane_value(p, v), l, k[i].1, k[i].2)
        })
    }
}

pub fn ref_point_sphere(p: &[f32; 3], s: &Sphere) -> bool {
    point_query_ok(p) && spheres_touch(s.center, s.radius, *p, 0.0, 1.0)
}

/// Query radii of `2^63` and up scale every length by `2^-66` (container radii are at most
/// `2^62`, so below that `(r + rq)^2` is finite).
pub fn ref_sphere_sphere(q: &Sphere, s: &Sphere) -> bool {
    let k = if q.radius < 2.0 * MAX_RADIUS {
        1.0
    } else {
        HUGE_RADIUS_SCALE
    };
    sphere_query_ok(q) && spheres_touch(s.center, s.radius, q.center, q.radius, k)
}

pub fn ref_aabb_sphere(q: &Aabb, s: &Sphere) -> bool {
    aabb_query_ok(q) && dist2_to_box(s.center, q.min, q.max) <= s.radius * s.radius
}

pub fn ref_point_up(p: &[f32; 3], u: &UpTet) -> bool {
    point_query_ok(p) && all_le4(u.min, project_up(*p))
}

pub fn ref_down_up(q: &DownTet, u: &UpTet) -> bool {
    down_query_ok(q) && all_le4(u.min, q.max)
}

pub fn ref_point_down(p: &[f32; 3], d: &DownTet) -> bool {
    point_query_ok(p) && all_le4(project_down(*p), d.max)
}

pub fn ref_up_down(q: &UpTet, d: &DownTet) -> bool {
    up_query_ok(q) && all_le4(q.min, d.max)
}

pub fn ref_point_octahedron(p: &[f32; 3], o: &Octahedron) -> bool {
    point_query_ok(p) && all_le4(o.up.min, project_up(*p)) && all_le4(project_down(*p), o.down.max)
}

pub fn ref_down_octahedron(q: &DownTet, o: &Octahedron) -> bool {
    down_query_ok(q) && all_le4(o.up.min, q.max)
}

pub fn ref_up_octahedron(q: &UpTet, o: &Octahedron) -> bool {
    up_query_ok(q) && all_le4(q.min, o.down.max)
}

/// The eight comparisons of the 8-DOP test.
pub fn eight_comparisons(q: &Octahedron, o: &Octahedron) -> bool {
    all_le4(o.up.min, q.down.max) && all_le4(q.up.min, o.down.max)
}

pub fn ref_octahedron_octahedron(q: &Octahedron, o: &Octahedron) -> bool {
    octahedron_query_ok(q) && eight_comparisons(q, o) && {
        let lo: [f32; 4] = core::array::from_fn(|k| maxps(o.up.min[k], q.up.min[k]));
        let hi: [f32; 4] = core::array::from_fn(|k| minps(o.down.max[k], q.down.max[k]));
        sums_straddle_zero(lo, hi)
    }
}

pub fn ref_conservative_octahedron_octahedron(
    q: &Conservative<Octahedron>,
    o: &Octahedron,
) -> bool {
    octahedron_query_ok(&q.0) && eight_comparisons(&q.0, o)
}

/// `Conservative(q)` where no cheaper test exists: the exact reference.
pub fn conservative_is_exact<Q, I>(
    exact: fn(&Q, &I) -> bool,
) -> impl Fn(&Conservative<Q>, &I) -> bool {
    move |q: &Conservative<Q>, item: &I| exact(&q.0, item)
}

/// Calls `$m!(name, Container, Query, reference)` for every supported pair, `Conservative` forms
/// included.
macro_rules! for_each_pair {
    ($m:ident) => {
        $m!(aabbs_point, Aabbs, [f32; 3], ref_point_aabb);
        $m!(aabbs_aabb, Aabbs, Aabb, ref_aabb_aabb);
        $m!(aabbs_sphere, Aabbs, Sphere, ref_sphere_aabb);
        $m!(spheres_point, Spheres, [f32; 3], ref_point_sphere);
        $m!(spheres_sphere, Spheres, Sphere, ref_sphere_sphere);
        $m!(spheres_aabb, Spheres, Aabb, ref_aabb_sphere);
        $m!(up_tets_point, UpTets, [f32; 3], ref_point_up);
        $m!(up_tets_down_tet, UpTets, DownTet, ref_down_up);
        $m!(down_tets_point, DownTets, [f32; 3], ref_point_down);
        $m!(down_tets_up_tet, DownTets, UpTet, ref_up_down);
        $m!(octahedra_point, Octahedra, [f32; 3], ref_point_octahedron);
        $m!(octahedra_down_tet, Octahedra, DownTet, ref_down_octahedron);
        $m!(octahedra_up_tet, Octahedra, UpTet, ref_up_octahedron);
        $m!(
            octahedra_octahedron,
            Octahedra,
            Octahedron,
            ref_octahedron_octahedron
        );
        $m!(
            conservative_aabbs_point,
            Aabbs,
            Conservative<[f32; 3]>,
            conservative_is_exact(ref_point_aabb)
        );
        $m!(
            conservative_aabbs_aabb,
            Aabbs,
            Conservative<Aabb>,
            conservative_is_exact(ref_aabb_aabb)
        );
        $m!(
            conservative_aabbs_sphere,
            Aabbs,
            Conservative<Sphere>,
            ref_conservative_sphere_aabb
        );
        $m!(
            conservative_spheres_point,
            Spheres,
            Conservative<[f32; 3]>,
            conservative_is_exact(ref_point_sphere)
        );
        $m!(
            conservative_spheres_sphere,
            Spheres,
            Conservative<Sphere>,
            conservative_is_exact(ref_sphere_sphere)
        );
        $m!(
            conservative_spheres_aabb,
            Spheres,
            Conservative<Aabb>,
            conservative_is_exact(ref_aabb_sphere)
        );
        $m!(
            conservative_up_tets_point,
            UpTets,
            Conservative<[f32; 3]>,
            conservative_is_exact(ref_point_up)
        );
        $m!(
            conservative_up_tets_down_tet,
            UpTets,
            Conservative<DownTet>,
            conservative_is_exact(ref_down_up)
        );
        $m!(
            conservative_down_tets_point,
            DownTets,
            Conservative<[f32; 3]>,
            conservative_is_exact(ref_point_down)
        );
        $m!(
            conservative_down_tets_up_tet,
            DownTets,
            Conservative<UpTet>,
            conservative_is_exact(ref_up_down)
        );
        $m!(
            conservative_octahedra_point,
            Octahedra,
            Conservative<[f32; 3]>,
            conservative_is_exact(ref_point_octahedron)
        );
        $m!(
            conservative_octahedra_down_tet,
            Octahedra,
            Conservative<DownTet>,
            conservative_is_exact(ref_down_octahedron)
        );
        $m!(
            conservative_octahedra_up_tet,
            Octahedra,
            Conservative<UpTet>,
            conservative_is_exact(ref_up_octahedron)
        );
        $m!(
            conservative_octahedra_octahedron,
            Octahedra,
            Conservative<Octahedron>,
            ref_conservative_octahedron_octahedron
        );
        $m!(obbs_point, Obbs, [f32; 3], ref_point_obb);
        $m!(obbs_sphere, Obbs, Sphere, ref_sphere_obb);
        $m!(
            conservative_obbs_point,
            Obbs,
            Conservative<[f32; 3]>,
            conservative_is_exact(ref_point_obb)
        );
        $m!(
            conservative_obbs_sphere,
            Obbs,
            Conservative<Sphere>,
            ref_conservative_sphere_obb
        );
        $m!(obbs_obb, Obbs, Obb, ref_obb_obb);
        $m!(aabbs_obb, Aabbs, Obb, ref_obb_aabb);
        $m!(
            conservative_obbs_obb,
            Obbs,
            Conservative<Obb>,
            conservative_is_exact(ref_obb_obb)
        );
        $m!(
            conservative_aabbs_obb,
            Aabbs,
            Conservative<Obb>,
            conservative_is_exact(ref_obb_aabb)
        );
        $m!(spheres_frustum, Spheres, Frustum, ref_frustum_sphere);
        $m!(aabbs_frustum, Aabbs, Frustum, ref_frustum_aabb);
        $m!(
            conservative_spheres_frustum,
            Spheres,
            Conservative<Frustum>,
            conservative_is_exact(ref_frustum_sphere)
        );
        $m!(
            conservative_aabbs_frustum,
            Aabbs,
            Conservative<Frustum>,
            conservative_is_exact(ref_frustum_aabb)
        );
    };
}

// =================================================================================================
// Data generators
// =================================================================================================

/// Half-size of the random world cube.
pub const WORLD: f32 = 8.0;

/// Finite values that stress rounding, signed zeros, subnormals and huge magnitudes.
pub const SPECIAL: [f32; 31] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.0,
    0.1,
    -0.3,
    1e-20,
    -1e-20,
    1e-30,
    -1e-30,
    f32::MIN_POSITIVE,
    -f32::MIN_POSITIVE,
    f32::from_bits(1), // smallest subnormal
    -f32::from_bits(1),
    f32::from_bits(3),
    1e20,
    -1e20,
    1e30,
    -1e30,
    3e38,
    -3e38,
    f32::MAX,
    f32::MIN,
    16_777_216.0,
    16_777_218.0,
    1.0 + f32::EPSILON,
    1.0 - f32::EPSILON / 2.0,
    1.844_674_4e19, // about sqrt(f32::MAX): squares overflow just above it
    2e19,
];

/// NaNs of several kinds and the infinities.
pub const NON_FINITE: [f32; 6] = [
    f32::NAN,
    -f32::NAN,
    f32::from_bits(0x7f80_0001), // signalling NaN
    f32::from_bits(0xffc0_1234), // negative NaN with a payload
    f32::INFINITY,
    f32::NEG_INFINITY,
];

/// Coordinates of a coarse grid: random primitives built on it touch each other often.
pub const GRID: [f32; 9] = [-2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 1.5, 2.0];

/// Scales applied to grid values (powers of two keep the grid exact, the others round).
pub const SCALES: [f32; 9] = [
    1.0,
    1e-30,
    1e30,
    0.1,
    3.0,
    1.0 / 1024.0,
    1.0e-40,
    1.0e19,
    1.0e37,
];

/// An adversarial finite value: a special value, or a (scaled) grid value.
pub fn adversarial_value(rng: &mut TestRng) -> f32 {
    match rng.below(3) {
        0 => rng.pick(&SPECIAL),
        1 => rng.pick(&GRID),
        _ => rng.pick(&GRID) * rng.pick(&SCALES),
    }
}

fn adversarial_vec3(rng: &mut TestRng) -> [f32; 3] {
    [
        adversarial_value(rng),
        adversarial_value(rng),
        adversarial_value(rng),
    ]
}

/// Lowers the largest-magnitude bound until `sum(min) <= 0` exactly (repairs f32 rounding).
pub fn repair_up(mut min: [f32; 4]) -> UpTet {
    let mut steps = 0;
    while sum_sign(&min) == Ordering::Greater {
        let k = (0..4)
            .max_by(|&a, &b| min[a].abs().total_cmp(&min[b].abs()))
            .expect("four axes");
        min[k] = min[k].next_down();
        steps += 1;
        assert!(
            steps < 64,
            "repair_up: {min:?} is not a rounding error away"
        );
    }
    UpTet::new(min)
}

/// Raises the largest-magnitude bound until `sum(max) >= 0` exactly.
pub fn repair_down(max: [f32; 4]) -> DownTet {
    DownTet::new(repair_up(max.map(|m| -m)).min.map(|m| -m))
}

/// A primitive or query type the generators know.
pub trait Shape: Copy + Debug + PartialEq {
    /// A valid primitive near `at` (within about `WORLD`), of size up to about `size`.
    fn random(rng: &mut TestRng, at: [f32; 3], size: f32) -> Self;
    /// A valid primitive built from special values: touching, tiny, huge, signed zeros.
    fn adversarial(rng: &mut TestRng) -> Self;
    /// A non-empty primitive containing the origin, of size about `size`.
    fn around_origin(rng: &mut TestRng, size: f32) -> Self;
    /// What a padding lane holds: all zero (the origin).
    fn origin() -> Self;
    /// A valid primitive so big it contains every small query near the origin.
    fn everything() -> Self;
    /// Whether a container accepts it (the oracle's validation).
    fn valid(&self) -> bool;
    /// Its floats, in declaration order.
    fn floats(&self) -> Vec<f32>;
    /// The inverse of `floats`.
    fn from_floats(f: &[f32]) -> Self;

    /// Anything: sometimes valid, sometimes NaN, infinite, inverted or empty (queries only).
    fn wild(rng: &mut TestRng) -> Self {
        let base = if rng.chance(0.5) {
            Self::adversarial(rng)
        } else {
            let size = rng.pick(&[0.0, 1.0, 5.0]);
            Self::random(rng, [0.0; 3], size)
        };
        let mut f = base.floats();
        match rng.below(5) {
            0 | 1 => {}
            2 => {
                let i = rng.below(f.len());
                f[i] = rng.pick(&NON_FINITE);
            }
            3 => {
                for x in &mut f {
                    if rng.chance(0.3) {
                        *x = if rng.chance(0.2) {
                            rng.pick(&NON_FINITE)
                        } else {
                            adversarial_value(rng)
                        };
                    }
                }
            }
            _ => {
                let i = rng.below(f.len());
                f[i] = -f[i];
            }
        }
        Self::from_floats(&f)
    }
}

impl Shape for [f32; 3] {
    fn random(rng: &mut TestRng, at: [f32; 3], _size: f32) -> Self {
        rng.near(at, WORLD)
    }
    fn adversarial(rng: &mut TestRng) -> Self {
        adversarial_vec3(rng)
    }
    fn around_origin(rng: &mut TestRng, _size: f32) -> Self {
        rng.pick(&[[0.0; 3], [-0.0, 0.0, -0.0], [-0.0; 3]])
    }
    fn origin() -> Self {
        [0.0; 3]
    }
    fn everything() -> Self {
        [0.0; 3]
    }
    fn valid(&self) -> bool {
        finite(self)
    }
    fn floats(&self) -> Vec<f32> {
        self.to_vec()
    }
    fn from_floats(f: &[f32]) -> Self {
        [f[0], f[1], f[2]]
    }
}

impl Shape for Sphere {
    fn random(rng: &mut TestRng, at: [f32; 3], size: f32) -> Self {
        Sphere::new(rng.near(at, WORLD), rng.unit() * size)
    }
    fn adversarial(rng: &mut TestRng) -> Self {
        let r = if rng.chance(0.1) {
            -0.0
        } else {
            adversarial_value(rng).abs().min(MAX_RADIUS) // bigger ones are refused
        };
        Sphere::new(adversarial_vec3(rng), r)
    }
    fn around_origin(rng: &mut TestRng, size: f32) -> Self {
        let c = rng.near([0.0; 3], size);
        let norm = (f64::from(c[0]).powi(2) + f64::from(c[1]).powi(2) + f64::from(c[2]).powi(2))
            .sqrt() as f32;
        Sphere::new(c, norm * 1.01 + rng.unit() * size)
    }
    fn origin() -> Self {
        Sphere::new([0.0; 3], 0.0)
    }
    fn everything() -> Self {
        Sphere::new([0.0; 3], 1e18) // its square is still finite
    }
    fn valid(&self) -> bool {
        sphere_valid(self)
    }
    fn floats(&self) -> Vec<f32> {
        vec![self.center[0], self.center[1], self.center[2], self.radius]
    }
    fn from_floats(f: &[f32]) -> Self {
        Sphere::new([f[0], f[1], f[2]], f[3])
    }
}

impl Shape for Aabb {
    fn random(rng: &mut TestRng, at: [f32; 3], size: f32) -> Self {
        let c = rng.near(at, WORLD);
        let h: [f32; 3] = core::array::from_fn(|_| rng.unit() * size);
        Aabb::new(
            core::array::from_fn::<f32, 3, _>(|i| c[i] - h[i]),
            core::array::from_fn::<f32, 3, _>(|i| c[i] + h[i]),
        )
    }
    fn adversarial(rng: &mut TestRng) -> Self {
        let (a, b) = (adversarial_vec3(rng), adversarial_vec3(rng));
        Aabb::new(
            core::array::from_fn::<f32, 3, _>(|i| if a[i] <= b[i] { a[i] } else { b[i] }),
            core::array::from_fn::<f32, 3, _>(|i| if a[i] <= b[i] { b[i] } else { a[i] }),
        )
    }
    fn around_origin(rng: &mut TestRng, size: f32) -> Self {
        let lo: [f32; 3] = core::array::from_fn(|_| -rng.unit() * size);
        let hi: [f32; 3] = core::array::from_fn(|_| rng.unit() * size);
        Aabb::new(lo, hi)
    }
    fn origin() -> Self {
        Aabb::new([0.0; 3], [0.0; 3])
    }
    fn everything() -> Self {
        Aabb::new([-1e30; 3], [1e30; 3])
    }
    fn valid(&self) -> bool {
        aabb_valid(self)
    }
    fn floats(&self) -> Vec<f32> {
        [self.min, self.max].concat()
    }
    fn from_floats(f: &[f32]) -> Self {
        Aabb::new([f[0], f[1], f[2]], [f[3], f[4], f[5]])
    }
}

impl Shape for UpTet {
    fn random(rng: &mut TestRng, at: [f32; 3], size: f32) -> Self {
        let t = project_plain(rng.near(at, WORLD));
        repair_up(core::array::from_fn(|k| t[k] - rng.unit() * size))
    }
    fn adversarial(rng: &mut TestRng) -> Self {
        let min: [f32; 4] = core::array::from_fn(|_| adversarial_value(rng));
        if sum_sign(&min) == Ordering::Greater {
            UpTet::new(min.map(|m| -m)) // the exact sum flips sign
        } else {
            UpTet::new(min)
        }
    }
    fn around_origin(rng: &mut TestRng, size: f32) -> Self {
        UpTet::new(core::array::from_fn(|_| -rng.unit() * size))
    }
    fn origin() -> Self {
        UpTet::new([0.0; 4])
    }
    fn everything() -> Self {
        UpTet::new([-1e30; 4])
    }
    fn valid(&self) -> bool {
        up_valid(self)
    }
    fn floats(&self) -> Vec<f32> {
        self.min.to_vec()
    }
    fn from_floats(f: &[f32]) -> Self {
        UpTet::new([f[0], f[1], f[2], f[3]])
    }
}

impl Shape for DownTet {
    fn random(rng: &mut TestRng, at: [f32; 3], size: f32) -> Self {
        let t = project_plain(rng.near(at, WORLD));
        repair_down(core::array::from_fn(|k| t[k] + rng.unit() * size))
    }
    fn adversarial(rng: &mut TestRng) -> Self {
        DownTet::new(UpTet::adversarial(rng).min.map(|m| -m))
    }
    fn around_origin(rng: &mut TestRng, size: f32) -> Self {
        DownTet::new(core::array::from_fn(|_| rng.unit() * size))
    }
    fn origin() -> Self {
        DownTet::new([0.0; 4])
    }
    fn everything() -> Self {
        DownTet::new([1e30; 4])
    }
    fn valid(&self) -> bool {
        down_valid(self)
    }
    fn floats(&self) -> Vec<f32> {
        self.max.to_vec()
    }
    fn from_floats(f: &[f32]) -> Self {
        DownTet::new([f[0], f[1], f[2], f[3]])
    }
}

/// A rotation from a unit quaternion (rows are the box axes), rounded to f32: orthonormal within
/// a few ulps, far inside the container's tolerance.
pub fn rotation(rng: &mut TestRng) -> [[f32; 3]; 3] {
    let q: [f64; 4] = loop {
        let v: [f64; 4] = core::array::from_fn(|_| f64::from(rng.sym(1.0)));
        let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if n > 0.1 {
            break v.map(|x| x / n);
        }
    };
    let [w, x, y, z] = q;
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y + w * z),
            2.0 * (x * z - w * y),
        ],
        [
            2.0 * (x * y - w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z + w * x),
        ],
        [
            2.0 * (x * z + w * y),
            2.0 * (y * z - w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
    .map(|row| row.map(|v| v as f32))
}

/// Identity axes, or the axes permuted and negated (exact rotations by quarter turns).
fn exact_rotation(rng: &mut TestRng) -> [[f32; 3]; 3] {
    let perms = [[0, 1, 2], [1, 2, 0], [2, 0, 1]];
    let p = perms[rng.below(3)];
    let mut axes = [[0.0f32; 3]; 3];
    for (k, row) in axes.iter_mut().enumerate() {
        row[p[k]] = if rng.chance(0.5) { 1.0 } else { -1.0 };
    }
    axes
}

impl Shape for Obb {
    fn random(rng: &mut TestRng, at: [f32; 3], size: f32) -> Self {
        let axes = if rng.chance(0.2) {
            exact_rotation(rng)
        } else {
            rotation(rng)
        };
        let h: [f32; 3] = core::array::from_fn(|_| rng.unit() * size);
        Obb::new(rng.near(at, WORLD), h, axes)
    }
    fn adversarial(rng: &mut TestRng) -> Self {
        let h: [f32; 3] = core::array::from_fn(|_| {
            if rng.chance(0.1) {
                -0.0
            } else {
                adversarial_value(rng).abs()
            }
        });
        let axes = if rng.chance(0.5) {
            exact_rotation(rng)
        } else {
            rotation(rng)
        };
        Obb::new(adversarial_vec3(rng), h, axes)
    }
    fn around_origin(rng: &mut TestRng, size: f32) -> Self {
        let c = rng.near([0.0; 3], size);
        let reach = c.iter().map(|v| v.abs()).sum::<f32>() * 1.01;
        Obb::new(c, [reach + rng.unit() * size; 3], rotation(rng))
    }
    fn origin() -> Self {
        Obb::new(
            [0.0; 3],
            [0.0; 3],
            [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        )
    }
    fn everything() -> Self {
        Obb::new(
            [0.0; 3],
            [1e30; 3],
            [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        )
    }
    fn valid(&self) -> bool {
        obb_valid(self)
    }
    fn floats(&self) -> Vec<f32> {
        let mut f = self.center.to_vec();
        f.extend(self.half_extents);
        f.extend(self.axes.iter().flatten());
        f
    }
    fn from_floats(f: &[f32]) -> Self {
        Obb::new(
            [f[0], f[1], f[2]],
            [f[3], f[4], f[5]],
            [
                [f[6], f[7], f[8]],
                [f[9], f[10], f[11]],
                [f[12], f[13], f[14]],
            ],
        )
    }
}

impl Shape for Octahedron {
    fn random(rng: &mut TestRng, at: [f32; 3], size: f32) -> Self {
        loop {
            let o = match rng.below(5) {
                0 => Octahedron::from_aabb(&Aabb::random(rng, at, size)),
                1 => {
                    let c = rng.near(at, WORLD);
                    let n = 1 + rng.below(4);
                    Octahedron::from_points((0..n).map(|_| rng.near(c, size))).expect("some points")
                }
                2 => Octahedron::from_sphere(&Sphere::random(rng, at, size)),
                3 => {
                    // A general 4-D box around a point: some corners cut by the sum conditions.
                    let t = project_plain(rng.near(at, WORLD));
                    let up = repair_up(core::array::from_fn(|k| t[k] - rng.unit() * size));
                    let down = repair_down(core::array::from_fn(|k| t[k] + rng.unit() * size));
                    Octahedron::new(up, down)
                }
                _ => {
                    // An up and a down tetrahedron around two nearby points: often slivers.
                    let p = rng.near(at, WORLD);
                    let q = rng.near(p, size);
                    let (tp, tq) = (project_plain(p), project_plain(q));
                    let up = repair_up(core::array::from_fn(|k| tp[k] - rng.unit() * size));
                    let down = repair_down(core::array::from_fn(|k| tq[k] + rng.unit() * size));
                    Octahedron::new(up, down)
                }
            };
            if o.valid() {
                return o;
            }
        }
    }
    fn adversarial(rng: &mut TestRng) -> Self {
        for _ in 0..50 {
            let o = match rng.below(4) {
                0 => Octahedron::from_aabb(&Aabb::adversarial(rng)),
                1 => {
                    let n = 1 + rng.below(3);
                    Octahedron::from_points((0..n).map(|_| adversarial_vec3(rng)))
                        .expect("some points")
                }
                2 => {
                    let up = UpTet::adversarial(rng);
                    Octahedron::new(up, up.circumscribed())
                }
                _ => {
                    let (a, b): ([f32; 4], [f32; 4]) = (
                        core::array::from_fn(|_| rng.pick(&GRID)),
                        core::array::from_fn(|_| rng.pick(&GRID)),
                    );
                    let scale = rng.pick(&SCALES);
                    Octahedron::new(
                        UpTet::new(core::array::from_fn(|k| a[k].min(b[k]) * scale)),
                        DownTet::new(core::array::from_fn(|k| a[k].max(b[k]) * scale)),
                    )
                }
            };
            if o.valid() {
                return o;
            }
        }
        Octahedron::origin()
    }
    fn around_origin(rng: &mut TestRng, size: f32) -> Self {
        Octahedron::new(
            UpTet::around_origin(rng, size),
            DownTet::around_origin(rng, size),
        )
    }
    fn origin() -> Self {
        Octahedron::new(UpTet::origin(), DownTet::origin())
    }
    fn everything() -> Self {
        Octahedron::new(UpTet::everything(), DownTet::everything())
    }
    fn valid(&self) -> bool {
        octahedron_valid(self)
    }
    fn floats(&self) -> Vec<f32> {
        [self.up.min, self.down.max].concat()
    }
    fn from_floats(f: &[f32]) -> Self {
        Octahedron::new(
            UpTet::new([f[0], f[1], f[2], f[3]]),
            DownTet::new([f[4], f[5], f[6], f[7]]),
        )
    }
}

// ---- frusta: perspective and orthographic view-projections, built in f64 ----

/// A random unit vector (f64).
fn unit_vector(rng: &mut TestRng) -> [f64; 3] {
    loop {
        let v: [f64; 3] = core::array::from_fn(|_| f64::from(rng.sym(1.0)));
        let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        if n > 0.1 {
            return v.map(|x| x / n);
        }
    }
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot_f64x3(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// A right-handed look-at view matrix (rows, f64) from `eye` looking along the unit `forward`.
pub fn look_along(eye: [f64; 3], forward: [f64; 3]) -> [[f64; 4]; 4] {
    let helper = if forward[1].abs() < 0.9 {
        [0.0, 1.0, 0.0]
    } else {
        [1.0, 0.0, 0.0]
    };
    let s = cross(forward, helper);
    let sn = dot_f64x3(s, s).sqrt();
    let s = s.map(|x| x / sn);
    let u = cross(s, forward);
    [
        [s[0], s[1], s[2], -dot_f64x3(s, eye)],
        [u[0], u[1], u[2], -dot_f64x3(u, eye)],
        [
            -forward[0],
            -forward[1],
            -forward[2],
            dot_f64x3(forward, eye),
        ],
        [0.0, 0.0, 0.0, 1.0],
    ]
}

/// A right-handed perspective projection (rows, f64), depth `0..w` (wgpu/Vulkan/D3D).
pub fn perspective(fov_y: f64, aspect: f64, near: f64, far: f64) -> [[f64; 4]; 4] {
    let h = 1.0 / (fov_y / 2.0).tan();
    let r = far / (near - far);
    [
        [h / aspect, 0.0, 0.0, 0.0],
        [0.0, h, 0.0, 0.0],
        [0.0, 0.0, r, r * near],
        [0.0, 0.0, -1.0, 0.0],
    ]
}

/// A right-handed orthographic projection of `[l, r] x [b, t] x [-far, -near]` (rows, f64), depth
/// `0..w`.
pub fn orthographic(l: f64, r: f64, b: f64, t: f64, near: f64, far: f64) -> [[f64; 4]; 4] {
    [
        [2.0 / (r - l), 0.0, 0.0, -(r + l) / (r - l)],
        [0.0, 2.0 / (t - b), 0.0, -(t + b) / (t - b)],
        [0.0, 0.0, -1.0 / (far - near), -near / (far - near)],
        [0.0, 0.0, 0.0, 1.0],
    ]
}

/// `a * b` (rows, f64).
pub fn mat_mul(a: [[f64; 4]; 4], b: [[f64; 4]; 4]) -> [[f64; 4]; 4] {
    core::array::from_fn(|i| core::array::from_fn(|j| (0..4).map(|k| a[i][k] * b[k][j]).sum()))
}

/// A row-major f64 matrix as the column-major f32 array `Frustum::from_view_projection` takes.
pub fn to_cols_f32(m: [[f64; 4]; 4]) -> [[f32; 4]; 4] {
    core::array::from_fn(|col| core::array::from_fn(|row| m[row][col] as f32))
}

/// A random frustum: perspective (mostly) or orthographic, eye at `eye`, looking along `forward`,
/// near and far from `near`, depth `depth`.
pub fn camera_frustum(
    rng: &mut TestRng,
    eye: [f64; 3],
    forward: [f64; 3],
    near: f64,
    depth: f64,
) -> Frustum {
    let view = look_along(eye, forward);
    let far = near + depth;
    let proj = if rng.chance(0.75) {
        let fov = f64::from(rng.range(0.3, 2.6));
        perspective(fov, f64::from(rng.range(0.4, 2.5)), near, far)
    } else {
        let (w, h) = (
            f64::from(rng.range(0.05, 1.0)) * depth,
            f64::from(rng.range(0.05, 1.0)) * depth,
        );
        orthographic(-w, w, -h, h, near, far)
    };
    Frustum::from_view_projection(to_cols_f32(mat_mul(proj, view)))
        .expect("a camera frustum is valid")
}

impl Shape for Frustum {
    fn random(rng: &mut TestRng, at: [f32; 3], size: f32) -> Self {
        let eye = rng.near(at, WORLD).map(f64::from);
        let depth = f64::from(size.max(0.05)) * f64::from(rng.range(0.5, 2.0));
        let near = f64::from(rng.range(0.01, 1.0)) * depth.min(1.0);
        let forward = unit_vector(rng);
        camera_frustum(rng, eye, forward, near, depth)
    }
    fn adversarial(rng: &mut TestRng) -> Self {
        let planes: [[f32; 4]; 6] = core::array::from_fn(|_| {
            let mut p: [f32; 4] = core::array::from_fn(|_| match rng.below(3) {
                0 => rng.pick(&[0.0, -0.0, 1.0, -1.0]),
                _ => adversarial_value(rng),
            });
            if p[0] == 0.0 && p[1] == 0.0 && p[2] == 0.0 {
                let axis = rng.below(3);
                p[axis] = rng.pick(&[1.0, -1.0, 1e-30, -1e30]);
            }
            p
        });
        Frustum { planes }
    }
    fn around_origin(rng: &mut TestRng, size: f32) -> Self {
        let forward = unit_vector(rng);
        let depth = f64::from(size.max(0.05)) * f64::from(rng.range(0.5, 2.0));
        let near = f64::from(rng.range(0.01, 1.0)) * depth.min(1.0);
        // The origin on the view axis, strictly between the near and far planes.
        let dist = near + depth * f64::from(rng.range(0.2, 0.8));
        let eye = forward.map(|f| -f * dist);
        camera_frustum(rng, eye, forward, near, depth)
    }
    fn origin() -> Self {
        Frustum {
            planes: [
                [1.0, 0.0, 0.0, 0.0],
                [-1.0, 0.0, 0.0, 0.0],
                [0.0, 1.0, 0.0, 0.0],
                [0.0, -1.0, 0.0, 0.0],
                [0.0, 0.0, 1.0, 0.0],
                [0.0, 0.0, -1.0, 0.0],
            ],
        }
    }
    fn everything() -> Self {
        let mut f = Frustum::origin();
        for p in &mut f.planes {
            p[3] = 1e30;
        }
        f
    }
    fn valid(&self) -> bool {
        self.is_valid()
    }
    fn floats(&self) -> Vec<f32> {
        self.planes.iter().flatten().copied().collect()
    }
    fn from_floats(f: &[f32]) -> Self {
        Frustum {
            planes: core::array::from_fn(|k| core::array::from_fn(|i| f[4 * k + i])),
        }
    }
}

impl<Q: Shape> Shape for Conservative<Q> {
    fn random(rng: &mut TestRng, at: [f32; 3], size: f32) -> Self {
        Conservative(Q::random(rng, at, size))
    }
    fn adversarial(rng: &mut TestRng) -> Self {
        Conservative(Q::adversarial(rng))
    }
    fn around_origin(rng: &mut TestRng, size: f32) -> Self {
        Conservative(Q::around_origin(rng, size))
    }
    fn origin() -> Self {
        Conservative(Q::origin())
    }
    fn everything() -> Self {
        Conservative(Q::everything())
    }
    fn valid(&self) -> bool {
        self.0.valid()
    }
    fn floats(&self) -> Vec<f32> {
        self.0.floats()
    }
    fn from_floats(f: &[f32]) -> Self {
        Conservative(Q::from_floats(f))
    }
    fn wild(rng: &mut TestRng) -> Self {
        Conservative(Q::wild(rng))
    }
}

// =================================================================================================
// The containers, behind one trait so the harness can be generic
// =================================================================================================

/// Words the harness adds past what `hit_mask` needs; they must come back untouched.
pub const EXTRA_MASK_WORDS: usize = 2;
/// What the mask buffer holds before `hit_mask` (set bits everywhere, past `len` included).
pub const MASK_SENTINEL: u64 = 0xA5A5_5A5A_DEAD_BEEF;
/// What `extend_hits` appends to.
pub const PREFIX: [u32; 2] = [u32::MAX, 12_345];

/// Everything the query methods of one receiver (a pinned view, or the container itself) return.
#[derive(Clone, Debug, PartialEq)]
pub struct Outputs {
    pub hits: Vec<u32>,
    pub hits_size_hint: (usize, Option<usize>),
    pub hits_rev: Vec<u32>,
    pub extended_prefixed: Vec<u32>,
    pub count: usize,
    pub any: bool,
    pub mask: Vec<u64>,
}

impl Outputs {
    /// What every receiver must return when the hits are `expected`, for a container of `len`.
    pub fn expected(expected: &[u32], len: usize) -> Outputs {
        let words = len.div_ceil(64);
        let mut mask = vec![0u64; words];
        for &i in expected {
            mask[i as usize / 64] |= 1 << (i % 64);
        }
        mask.extend([MASK_SENTINEL; EXTRA_MASK_WORDS]);
        Outputs {
            hits: expected.to_vec(),
            hits_size_hint: (expected.len(), Some(expected.len())),
            hits_rev: expected.iter().rev().copied().collect(),
            extended_prefixed: PREFIX.iter().chain(expected).copied().collect(),
            count: expected.len(),
            any: !expected.is_empty(),
            mask,
        }
    }
}

/// Runs every query method of `$r` (a container or a `Pinned`) once.
macro_rules! outputs_of {
    ($r:expr, $q:expr, $len:expr) => {{
        let (r, q, len) = ($r, $q, $len);
        let hits_iter = r.hits(q);
        let hits_size_hint = hits_iter.size_hint();
        let hits: Vec<u32> = hits_iter.clone().collect();
        let hits_rev: Vec<u32> = hits_iter.rev().collect();
        let mut extended_prefixed = PREFIX.to_vec();
        r.extend_hits(q, &mut extended_prefixed);
        let count = r.count_hits(q);
        let any = r.any_hit(q);
        let mut mask = vec![MASK_SENTINEL; len.div_ceil(64) + EXTRA_MASK_WORDS];
        r.hit_mask(q, &mut mask);
        Outputs {
            hits,
            hits_size_hint,
            hits_rev,
            extended_prefixed,
            count,
            any,
            mask,
        }
    }};
}

/// A container type, seen generically.
pub trait Bv: Sized + Clone + PartialEq + Debug {
    type Item: Shape;
    const NAME: &'static str;
    fn empty() -> Self;
    fn with_cap(capacity: usize) -> Self;
    fn from_items(items: &[Self::Item]) -> Result<Self, BvError>;
    fn try_from_items(items: &[Self::Item]) -> Result<Self, BvError>;
    fn push_item(&mut self, item: Self::Item) -> Result<u32, BvError>;
    fn extend_items(&mut self, items: &[Self::Item]) -> Result<(), BvError>;
    fn set_item(&mut self, index: usize, item: Self::Item) -> Result<(), BvError>;
    fn swap_remove_item(&mut self, index: usize) -> Self::Item;
    fn get_item(&self, index: usize) -> Option<Self::Item>;
    fn clear_items(&mut self);
    fn items(&self) -> Vec<Self::Item>;
    fn items_rev(&self) -> Vec<Self::Item>;
    fn length(&self) -> usize;
    fn is_empty_(&self) -> bool;
    fn cap(&self) -> usize;
    fn reserve_more(&mut self, additional: usize);
    fn item_is_valid(item: &Self::Item) -> bool;
    fn pinned(&self, backend: Backend) -> Result<(), BvError>;
    /// The outputs of every query method on `backend`, or on the default (detected) backend.
    fn outputs<Q: Query<Self>>(&self, backend: Option<Backend>, q: &Q) -> Outputs;
    fn hit_mask_on<Q: Query<Self>>(&self, backend: Option<Backend>, q: &Q, mask: &mut [u64]);

    /// Builds a container, checking that it holds exactly `items`.
    fn build(items: &[Self::Item]) -> Self {
        let c = Self::from_items(items)
            .unwrap_or_else(|e| panic!("{}::from_slice rejected test data: {e}", Self::NAME));
        assert_eq!(c.length(), items.len());
        assert_eq!(
            c.items(),
            items,
            "{}: iter() does not round-trip",
            Self::NAME
        );
        c
    }
}

macro_rules! impl_bv {
    ($c:ident, $item:ident) => {
        impl Bv for $c {
            type Item = $item;
            const NAME: &'static str = stringify!($c);
            fn empty() -> Self {
                $c::new()
            }
            fn with_cap(capacity: usize) -> Self {
                $c::with_capacity(capacity)
            }
            fn from_items(items: &[$item]) -> Result<Self, BvError> {
                $c::from_slice(items)
            }
            fn try_from_items(items: &[$item]) -> Result<Self, BvError> {
                $c::try_from(items)
            }
            fn push_item(&mut self, item: $item) -> Result<u32, BvError> {
                self.push(item)
            }
            fn extend_items(&mut self, items: &[$item]) -> Result<(), BvError> {
                self.extend_from_slice(items)
            }
            fn set_item(&mut self, index: usize, item: $item) -> Result<(), BvError> {
                self.set(index, item)
            }
            fn swap_remove_item(&mut self, index: usize) -> $item {
                self.swap_remove(index)
            }
            fn get_item(&self, index: usize) -> Option<$item> {
                self.get(index)
            }
            fn clear_items(&mut self) {
                self.clear()
            }
            fn items(&self) -> Vec<$item> {
                let it = self.iter();
                assert_eq!(it.len(), self.len(), "iter() is ExactSize");
                it.collect()
            }
            fn items_rev(&self) -> Vec<$item> {
                self.iter().rev().collect()
            }
            fn length(&self) -> usize {
                self.len()
            }
            fn is_empty_(&self) -> bool {
                self.is_empty()
            }
            fn cap(&self) -> usize {
                self.capacity()
            }
            fn reserve_more(&mut self, additional: usize) {
                self.reserve(additional)
            }
            fn item_is_valid(item: &$item) -> bool {
                item.is_valid()
            }
            fn pinned(&self, backend: Backend) -> Result<(), BvError> {
                self.with_backend(backend).map(|p| {
                    assert_eq!(p.backend(), backend);
                    assert!(core::ptr::eq(p.container(), self));
                })
            }
            fn outputs<Q: Query<Self>>(&self, backend: Option<Backend>, q: &Q) -> Outputs {
                match backend {
                    Some(b) => {
                        let p = self.with_backend(b).expect("an available backend");
                        outputs_of!(p, q, self.len())
                    }
                    None => outputs_of!(self, q, self.len()),
                }
            }
            fn hit_mask_on<Q: Query<Self>>(
                &self,
                backend: Option<Backend>,
                q: &Q,
                mask: &mut [u64],
            ) {
                match backend {
                    Some(b) => self
                        .with_backend(b)
                        .expect("an available backend")
                        .hit_mask(q, mask),
                    None => self.hit_mask(q, mask),
                }
            }
        }
    };
}

impl_bv!(Aabbs, Aabb);
impl_bv!(Spheres, Sphere);
impl_bv!(UpTets, UpTet);
impl_bv!(DownTets, DownTet);
impl_bv!(Octahedra, Octahedron);
impl_bv!(Obbs, Obb);

// =================================================================================================
// The harness
// =================================================================================================

/// Every backend a query is run on: each available one pinned, then the default (`None`).
pub fn receivers() -> Vec<Option<Backend>> {
    let avail = Backend::available();
    assert!(
        avail.starts_with(&[Backend::Scalar, Backend::Sse]),
        "Scalar and Sse always run"
    );
    avail.iter().copied().map(Some).chain([None]).collect()
}

/// Asserts that, on every backend, every query method reports exactly `expected` (ascending
/// indices below `len`) for query `q` on `c`. `items` is only used for the failure message.
pub fn check_against<C: Bv, Q: Query<C> + Debug>(
    c: &C,
    items: &[C::Item],
    q: &Q,
    expected: &[u32],
) {
    let len = c.length();
    assert!(
        expected.windows(2).all(|w| w[0] < w[1]) && expected.iter().all(|&i| (i as usize) < len),
        "bad expectation {expected:?} for length {len}"
    );
    let want = Outputs::expected(expected, len);
    for backend in receivers() {
        let got = c.outputs(backend, q);
        if got != want {
            let on = backend.map_or("default".to_string(), |b| b.to_string());
            let mut msg = format!(
                "{} (len {len}) vs {q:?} on backend {on}:\n  expected {want:?}\n  got      {got:?}",
                C::NAME
            );
            let diff: Vec<u32> = got
                .hits
                .iter()
                .filter(|i| !expected.contains(i))
                .chain(expected.iter().filter(|i| !got.hits.contains(i)))
                .copied()
                .collect();
            for i in diff.iter().take(4) {
                msg += &format!("\n  index {i}: {:?}", items.get(*i as usize));
            }
            if got.hits.iter().any(|&i| i as usize >= len) {
                msg += "\n  (an index past the length: a padding lane was reported)";
            }
            if !got.hits.windows(2).all(|w| w[0] < w[1]) {
                msg += "\n  (hits not strictly ascending)";
            }
            panic!("{msg}");
        }
    }
}

/// The reference answer: indices of the items the reference says `q` hits.
pub fn reference_hits<Q, I>(items: &[I], q: &Q, reference: &dyn Fn(&Q, &I) -> bool) -> Vec<u32> {
    items
        .iter()
        .enumerate()
        .filter(|(_, it)| reference(q, it))
        .map(|(i, _)| u32::try_from(i).expect("small test containers"))
        .collect()
}

/// Checks one query on one container (built from `items`) against the reference, on every backend
/// and through every query method. Returns the hits.
pub fn check_pair<C: Bv, Q: Query<C> + Debug>(
    c: &C,
    items: &[C::Item],
    q: &Q,
    reference: &dyn Fn(&Q, &C::Item) -> bool,
) -> Vec<u32> {
    let expected = reference_hits(items, q, reference);
    check_against(c, items, q, &expected);
    expected
}

/// Container lengths every test sweeps: all of 0..=67 (empty, partial and full blocks of 1, 4, 8
/// and 16 lanes, several chunks, and a mask word boundary at 64).
pub const LENGTHS: core::ops::RangeInclusive<usize> = 0..=67;

/// Hit counts seen over a test run: the test fails if it never saw the cases it is about.
#[derive(Debug, Default)]
pub struct Coverage {
    pub none: usize,
    pub some: usize,
    pub all: usize,
}

impl Coverage {
    pub fn record(&mut self, hits: usize, len: usize) {
        if len == 0 {
            return;
        }
        match hits {
            0 => self.none += 1,
            h if h == len => self.all += 1,
            _ => self.some += 1,
        }
    }
}

// ---- Blocked containers ----

/// The flat containers the blocked ones are checked against: built from a slice, `set`, `get`
/// (the crate has no trait for them).
pub trait Flat: Blockable + Sized {
    fn flat_from(items: &[Self::Primitive]) -> Self;
    fn put_row(&mut self, i: usize, item: Self::Primitive);
    fn row(&self, i: usize) -> Option<Self::Primitive>;
}

macro_rules! flat {
    ($($c:ty),*) => {$(
        impl Flat for $c {
            fn flat_from(items: &[Self::Primitive]) -> Self {
                <$c>::from_slice(items).unwrap()
            }
            fn put_row(&mut self, i: usize, item: Self::Primitive) {
                self.set(i, item).unwrap();
            }
            fn row(&self, i: usize) -> Option<Self::Primitive> {
                self.get(i)
            }
        }
    )*};
}

flat!(Aabbs, Spheres, Obbs, UpTets, DownTets, Octahedra);

/// A blocked container of `items` checked against its flat one: its order and rows, then
/// `rounds` of queries (the caller's) on the built container, after random moves (`set` of a
/// quarter of the rows to `moved(rng, kind)`, `kind` 0, 1 or 2 at random: near, far, huge),
/// after a `refit`, after a `rebuild` and after an `update` of every row (to `moved(rng, 0)`).
pub fn check_moves<C: Flat + Debug>(
    name: &str,
    items: &[C::Primitive],
    rng: &mut TestRng,
    rounds: impl Fn(&C, &Blocked<C>, &mut TestRng, &mut Coverage),
    moved: impl Fn(&mut TestRng, usize) -> C::Primitive,
) -> Coverage
where
    C::Primitive: PartialEq + Debug + Copy,
{
    let mut coverage = Coverage::default();
    let mut flat = C::flat_from(items);
    let mut blocked = Blocked::<C>::from_slice(items).unwrap();
    assert_eq!(Blocked::new(&flat).order(), blocked.order(), "{name}");
    let mut sorted = blocked.order().to_vec();
    sorted.sort_unstable();
    assert!(
        sorted.iter().copied().eq(0..items.len() as u32),
        "{name}: order is a permutation"
    );
    for (i, item) in items.iter().enumerate() {
        assert_eq!(blocked.get(i), Some(*item), "{name}: get({i})");
    }
    assert_eq!(blocked.get(items.len()), None);
    rounds(&flat, &blocked, rng, &mut coverage);
    if items.is_empty() {
        return coverage;
    }
    // The same moves by `set` one at a time and by `set_many` in batches of 0 to 40 (shorter
    // and longer than its look-ahead): the same container, down to its looseness.
    let mut batched = blocked.clone();
    let mut moves = Vec::new();
    for _ in 0..(items.len() / 4).max(1) {
        let i = rng.below(items.len());
        let kind = rng.below(3);
        let p = moved(rng, kind);
        blocked.set(i, p).unwrap();
        flat.put_row(i, p);
        assert_eq!(blocked.get(i), Some(p), "{name}: get({i}) after set");
        moves.push((i, p));
    }
    let mut rest = &moves[..];
    while !rest.is_empty() || rng.below(2) == 0 {
        let (batch, after) = rest.split_at(rng.below(41).min(rest.len()));
        batched.set_many(batch).unwrap();
        rest = after;
    }
    // A batch with an index past the end fails and changes nothing, not even the moves before.
    let before = format!("{batched:?}");
    let bad = [moves[0], (items.len(), moves[0].1)];
    assert_eq!(
        batched.set_many(&bad),
        Err(BvError::IndexOutOfBounds {
            index: items.len(),
            len: items.len()
        }),
        "{name}"
    );
    assert_eq!(format!("{batched:?}"), before, "{name}: a failed set_many");
    assert_eq!(
        format!("{batched:?}"),
        format!("{blocked:?}"),
        "{name}: set_many against set of each"
    );
    assert_eq!(
        batched.looseness().to_bits(),
        blocked.looseness().to_bits(),
        "{name}"
    );
    rounds(&flat, &blocked, rng, &mut coverage);
    blocked.refit();
    rounds(&flat, &blocked, rng, &mut coverage);
    blocked.rebuild();
    for i in 0..items.len() {
        assert_eq!(
            blocked.get(i),
            flat.row(i),
            "{name}: get({i}) after rebuild"
        );
    }
    rounds(&flat, &blocked, rng, &mut coverage);
    let moved: Vec<C::Primitive> = (0..items.len()).map(|_| moved(rng, 0)).collect();
    flat = C::flat_from(&moved);
    blocked.update(&flat).unwrap();
    for i in 0..items.len() {
        assert_eq!(blocked.get(i), flat.row(i), "{name}: get({i}) after update");
    }
    rounds(&flat, &blocked, rng, &mut coverage);
    coverage
}

/// Every method of every backend: the blocked answers equal the flat ones. Returns the hit count.
///
/// The flat answers are taken once, from the scalar reference: the flat container gives them bit
/// for bit on every backend (`differential.rs` checks that), so one reference for all the
/// blocked backends checks as much as a flat scan per backend did, in a quarter of the flat
/// scans (which are most of this function's time in a debug build).
pub fn same_answers<C: Blockable, Q: BlockQuery<C> + Query<C> + Debug>(
    flat: &C,
    blocked: &Blocked<C>,
    q: &Q,
) -> usize {
    assert_eq!(flat.len(), blocked.len());
    let f = Pinned::new(flat, Backend::Scalar).unwrap();
    let want: Vec<u32> = f.hits(q).collect();
    let words = flat.len().div_ceil(64);
    let mut want_mask = vec![u64::MAX; words + 1];
    f.hit_mask(q, &mut want_mask);
    for &b in Backend::available() {
        let k = blocked.with_backend(b).unwrap();
        let got: Vec<u32> = k.hits(q).collect();
        assert_eq!(got, want, "{b:?} hits of {q:?} over {} boxes", flat.len());
        assert_eq!(k.count_hits(q), want.len(), "{b:?} count of {q:?}");
        assert_eq!(k.any_hit(q), !want.is_empty(), "{b:?} any of {q:?}");
        let mut out = vec![7, 7];
        k.extend_hits(q, &mut out);
        assert_eq!(out[..2], [7, 7]);
        assert_eq!(out[2..], want[..], "{b:?} extend_hits of {q:?}");
        let mut mask = vec![u64::MAX; words + 1];
        k.hit_mask(q, &mut mask);
        assert_eq!(mask, want_mask, "{b:?} hit_mask of {q:?}");
    }
    // The container's own methods run the detected backend.
    let count = want.len();
    assert_eq!(blocked.count_hits(q), count);
    assert_eq!(blocked.hits(q).count(), count);
    count
}
