//! The seed papers' one-vs-one tests, scalar and as published: the rows the benchmarks compare
//! against, and independent oracles for the kernels.
//!
//! These test one primitive against one primitive with the branches their authors wrote. They are
//! not the crate's kernels (those are in the containers' query methods); they exist so the
//! benchmarks can reproduce the papers' tables and so tests can check the kernels against code
//! written from the papers.
//!
//! Sources:
//! * Larsson, Akenine-Möller, Lengyel, "On Faster Sphere-Box Overlap Testing", JGT 2007 (seed
//!   000): [`sphere_aabb_arvo`] (Arvo 1990), [`sphere_aabb_qri`], [`sphere_aabb_qrf`],
//!   [`sphere_aabb_branch_free`] (the paper's vectorised "SSE" max form, written scalar) and
//!   [`sphere_aabb_conservative`] ("Cons": quick rejections only); for oriented boxes
//!   [`sphere_obb_garvo`], [`sphere_obb_qri`], [`sphere_obb_qrf`], [`sphere_obb_branch_free`] and
//!   [`sphere_obb_conservative`].
//! * "How To Detect Intersection Between A Circle And An AABB" (seed 001): the centre-extent form
//!   [`sphere_aabb_center_extent`].
//! * Real-Time Rendering, 16.13 (seed 004): [`aabb_aabb`], the k-DOP interval test
//!   [`kdop_kdop`] and the OBB/OBB separating-axis test [`obb_obb`] (16.13.5, Gottschalk et al.).
//!
//! Boxes are closed and spheres include their surface, as everywhere in the crate.
//!
//! ```
//! use bvlanes::seeds;
//! let (min, max) = ([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]);
//! assert!(seeds::sphere_aabb_arvo([2.0, 0.5, 0.5], 1.0, min, max)); // touching
//! assert!(!seeds::sphere_aabb_qrf([2.0, 0.5, 0.5], 0.9, min, max));
//! // The conservative test reports the corner region as a hit.
//! assert!(seeds::sphere_aabb_conservative([1.5, 1.5, 1.5], 0.6, min, max));
//! assert!(!seeds::sphere_aabb_arvo([1.5, 1.5, 1.5], 0.6, min, max));
//! ```

use crate::primitive::Obb;

/// Arvo's test (seed 000, `OVERLAPSPHEREAABB_ARVO`): the squared distance from the centre to the
/// box, accumulated with a branch per axis, against `r * r`.
#[inline]
#[must_use]
pub fn sphere_aabb_arvo(c: [f32; 3], r: f32, min: [f32; 3], max: [f32; 3]) -> bool {
    let mut d = 0.0;
    for i in 0..3 {
        if c[i] < min[i] {
            let e = c[i] - min[i];
            d += e * e;
        } else if c[i] > max[i] {
            let e = c[i] - max[i];
            d += e * e;
        }
    }
    d <= r * r
}

/// QRI, quick rejections intertwined (seed 000, `OVERLAPSPHEREAABB_QRI`): Arvo's loop, returning
/// early when the centre is farther than `r` from a slab.
#[inline]
#[must_use]
pub fn sphere_aabb_qri(c: [f32; 3], r: f32, min: [f32; 3], max: [f32; 3]) -> bool {
    let mut d = 0.0;
    for i in 0..3 {
        let e = c[i] - min[i];
        if e < 0.0 {
            if e < -r {
                return false;
            }
            d += e * e;
        } else {
            let e = c[i] - max[i];
            if e > 0.0 {
                if e > r {
                    return false;
                }
                d += e * e;
            }
        }
    }
    d <= r * r
}

/// QRF, quick rejections first (seed 000): all six rejection tests, then Arvo's accumulation.
#[inline]
#[must_use]
pub fn sphere_aabb_qrf(c: [f32; 3], r: f32, min: [f32; 3], max: [f32; 3]) -> bool {
    for i in 0..3 {
        if c[i] - min[i] < -r || c[i] - max[i] > r {
            return false;
        }
    }
    sphere_aabb_arvo(c, r, min, max)
}

/// The branch-free form of seed 000's section 3 (its "SSE" row), scalar:
/// `e_i = max(min_i - c_i, 0) + max(c_i - max_i, 0)`, `sum(e_i^2) <= r^2`.
#[inline]
#[must_use]
pub fn sphere_aabb_branch_free(c: [f32; 3], r: f32, min: [f32; 3], max: [f32; 3]) -> bool {
    let mut d = 0.0;
    for i in 0..3 {
        let e = (min[i] - c[i]).max(0.0) + (c[i] - max[i]).max(0.0);
        d += e * e;
    }
    d <= r * r
}

/// The centre-extent form of seed 001: with box centre `b` and half extents `h`,
/// `u = max(|c - b| - h, 0)`, `dot(u, u) <= r^2`. The centre and extents are computed in f32 from
/// the corners, so at the boundary it may round differently from the corner forms.
#[inline]
#[must_use]
pub fn sphere_aabb_center_extent(c: [f32; 3], r: f32, min: [f32; 3], max: [f32; 3]) -> bool {
    let mut d = 0.0;
    for i in 0..3 {
        let b = (min[i] + max[i]) * 0.5;
        let h = (max[i] - min[i]) * 0.5;
        let u = ((c[i] - b).abs() - h).max(0.0);
        d += u * u;
    }
    d <= r * r
}

/// "Cons", the conservative test of seed 000: the quick rejections only; anything they do not
/// reject is reported as overlapping (false positives near the box's edges and corners, never a
/// false negative in real arithmetic; in f32 the sums `c +- r` round to nearest, which the crate's
/// [`Conservative`](crate::Conservative) form avoids by rounding outward).
#[inline]
#[must_use]
pub fn sphere_aabb_conservative(c: [f32; 3], r: f32, min: [f32; 3], max: [f32; 3]) -> bool {
    (0..3).all(|i| c[i] - min[i] >= -r && c[i] - max[i] <= r)
}

/// An oriented box as seed 000 treats it: the sphere centre in the box's frame (`v = c - mid`
/// projected onto each axis, summed as `(v.x a.x + v.y a.y) + v.z a.z`) and the box `[-h, h]`
/// there. Every sphere-OBB test is the corresponding sphere-AABB test on these.
#[inline]
fn obb_frame(c: [f32; 3], obb: &Obb) -> ([f32; 3], [f32; 3], [f32; 3]) {
    let v = [
        c[0] - obb.center[0],
        c[1] - obb.center[1],
        c[2] - obb.center[2],
    ];
    let t = obb.axes.map(|a| (v[0] * a[0] + v[1] * a[1]) + v[2] * a[2]);
    (t, obb.half_extents.map(|h| -h), obb.half_extents)
}

/// G-Arvo (seed 000): Arvo's test in the oriented box's frame.
#[inline]
#[must_use]
pub fn sphere_obb_garvo(c: [f32; 3], r: f32, obb: &Obb) -> bool {
    let (t, min, max) = obb_frame(c, obb);
    sphere_aabb_arvo(t, r, min, max)
}

/// QRI for oriented boxes (seed 000): G-Arvo with the quick rejections intertwined.
#[inline]
#[must_use]
pub fn sphere_obb_qri(c: [f32; 3], r: f32, obb: &Obb) -> bool {
    let (t, min, max) = obb_frame(c, obb);
    sphere_aabb_qri(t, r, min, max)
}

/// QRF for oriented boxes (seed 000): all quick rejections first, then G-Arvo's accumulation.
#[inline]
#[must_use]
pub fn sphere_obb_qrf(c: [f32; 3], r: f32, obb: &Obb) -> bool {
    let (t, min, max) = obb_frame(c, obb);
    sphere_aabb_qrf(t, r, min, max)
}

/// The branch-free form for oriented boxes (seed 000's vectorised "SSE" row, scalar):
/// `e_k = max(-h_k - t_k, 0) + max(t_k - h_k, 0)`, `sum(e_k^2) <= r^2`.
#[inline]
#[must_use]
pub fn sphere_obb_branch_free(c: [f32; 3], r: f32, obb: &Obb) -> bool {
    let (t, min, max) = obb_frame(c, obb);
    sphere_aabb_branch_free(t, r, min, max)
}

/// "Cons" for oriented boxes (seed 000): the quick rejections only, in the box frame.
#[inline]
#[must_use]
pub fn sphere_obb_conservative(c: [f32; 3], r: f32, obb: &Obb) -> bool {
    let (t, min, max) = obb_frame(c, obb);
    sphere_aabb_conservative(t, r, min, max)
}

/// AABB against AABB (Real-Time Rendering 16.13.1): overlap iff the intervals overlap on every
/// axis.
#[inline]
#[must_use]
pub fn aabb_aabb(a_min: [f32; 3], a_max: [f32; 3], b_min: [f32; 3], b_max: [f32; 3]) -> bool {
    (0..3).all(|i| a_min[i] <= b_max[i] && b_min[i] <= a_max[i])
}

/// k-DOP against k-DOP (Real-Time Rendering 16.13.2): two k-DOPs over the same `k / 2` directions
/// overlap only if their intervals `[min, max]` overlap along every direction (a conservative
/// test: the directions are not all separating axes).
///
/// # Panics
/// If the four slices differ in length.
#[inline]
#[must_use]
pub fn kdop_kdop(a_min: &[f32], a_max: &[f32], b_min: &[f32], b_max: &[f32]) -> bool {
    let k = a_min.len();
    assert!(
        a_max.len() == k && b_min.len() == k && b_max.len() == k,
        "kdop_kdop: all four interval slices must have the same length"
    );
    (0..k).all(|i| a_min[i] <= b_max[i] && b_min[i] <= a_max[i])
}

/// The `epsilon` [`obb_obb`] adds to every `|r_ij|` against parallel edges: `1e-6`, the value of
/// Ericson's *Real-Time Collision Detection* 4.4.1 listing of the same test.
pub const OBB_OBB_EPSILON: f32 = 1e-6;

/// OBB against OBB (Real-Time Rendering 16.13.5, the separating-axis test of Gottschalk et al.):
/// in `a`'s frame, with `t` the offset of the centres and `r_ij = a_i · b_j`, the boxes are
/// disjoint iff one of the 15 axes has `|t · s| > d_A + d_B` (equation 16.43): the faces of `a`
/// (16.47), the faces of `b` (16.49) and the nine `a_i × b_j`. As is usual for this test (and in
/// Gottschalk's RAPID and Ericson's listing) `|r_ij|` is taken as `|r_ij| + epsilon`
/// ([`OBB_OBB_EPSILON`]) so that parallel edges (`a_i × b_j ≈ 0`) do not yield a separating axis
/// out of rounding noise. Plain f32, no margin: unlike the crate's `Obb` queries it is not
/// guaranteed against rounding (touching and nearly touching pairs can go either way).
#[must_use]
pub fn obb_obb(a: &Obb, b: &Obb) -> bool {
    let dot = |x: [f32; 3], y: [f32; 3]| x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    let (ha, hb) = (a.half_extents, b.half_extents);
    let mut r = [[0.0f32; 3]; 3];
    let mut abs_r = [[0.0f32; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            r[i][j] = dot(a.axes[i], b.axes[j]);
            abs_r[i][j] = r[i][j].abs() + OBB_OBB_EPSILON;
        }
    }
    let d = [
        b.center[0] - a.center[0],
        b.center[1] - a.center[1],
        b.center[2] - a.center[2],
    ];
    let t = [dot(d, a.axes[0]), dot(d, a.axes[1]), dot(d, a.axes[2])];
    // s = a_i (16.47).
    for i in 0..3 {
        let db = hb[0] * abs_r[i][0] + hb[1] * abs_r[i][1] + hb[2] * abs_r[i][2];
        if t[i].abs() > ha[i] + db {
            return false;
        }
    }
    // s = b_j (16.49).
    for j in 0..3 {
        let ts = t[0] * r[0][j] + t[1] * r[1][j] + t[2] * r[2][j];
        let da = ha[0] * abs_r[0][j] + ha[1] * abs_r[1][j] + ha[2] * abs_r[2][j];
        if ts.abs() > da + hb[j] {
            return false;
        }
    }
    // s = a_i × b_j.
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let ts = t[i2] * r[i1][j] - t[i1] * r[i2][j];
            let da = ha[i1] * abs_r[i2][j] + ha[i2] * abs_r[i1][j];
            let db = hb[j1] * abs_r[i][j2] + hb[j2] * abs_r[i][j1];
            if ts.abs() > da + db {
                return false;
            }
        }
    }
    true
}
