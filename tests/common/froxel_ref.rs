//! The exact f64 froxel reference shared by `tests/suite/cull_froxel.rs` and the `lights` fuzz target
//! (`fuzz/fuzz_targets/lights.rs` includes this file by path): a froxel rebuilt from its
//! documented formulas as eight corners, and the distance from a point to it (zero inside; else
//! the nearest point over its six faces, each face two triangles). Written for clarity, not
//! speed, and independent of the crate's own froxel code.
//!
//! Its own rounding error scales with the corners it computes from, not with the light: a
//! tolerance relative to the light alone (`tests/suite/cull_froxel.rs`, `reference`) suits cameras
//! whose froxels and lights are of comparable scale, as in every test there; at extreme scales
//! (a review found wrong answers with near `1e-30` and far `3e38`, where a side face spans both)
//! it does not. The fuzz target, which draws such cameras, adds the corners' largest magnitude
//! to its tolerance.
#![allow(dead_code)]

use bvlanes::cull::ClusterGrid;

/// A point or vector in f64.
pub type V = [f64; 3];

pub fn sub(a: V, b: V) -> V {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub fn dot(a: V, b: V) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
pub fn cross(a: V, b: V) -> V {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
pub fn norm(a: V) -> f64 {
    dot(a, a).sqrt()
}

/// A camera (the arguments of `ClusterGrid::froxels`), and its froxels rebuilt from the
/// documented formulas.
#[derive(Clone, Copy, Debug)]
pub struct Camera {
    pub w: u32,
    pub h: u32,
    pub fov_y: f32,
    pub near: f32,
    pub far: f32,
    pub dims: [u32; 3],
}

impl Camera {
    /// The grid under test.
    ///
    /// # Panics
    /// If the camera is invalid.
    pub fn grid(&self) -> ClusterGrid {
        ClusterGrid::froxels(self.w, self.h, self.fov_y, self.near, self.far, self.dims).unwrap()
    }
    /// `(tan_x, tan_y)` of the half angles.
    pub fn tans(&self) -> (f64, f64) {
        let ty = (f64::from(self.fov_y) / 2.0).tan();
        (ty * f64::from(self.w) / f64::from(self.h), ty)
    }
    /// Tile boundary `i` of `n` as a slope (`x / depth`).
    pub fn slope(i: u32, n: u32, tan: f64) -> f64 {
        (-1.0 + 2.0 * f64::from(i) / f64::from(n)) * tan
    }
    /// Slice boundary `k`, as a depth.
    pub fn depth(&self, k: u32) -> f64 {
        let (near, far, n) = (f64::from(self.near), f64::from(self.far), self.dims[2]);
        let first = f64::from(ClusterGrid::FIRST_SLICE_DEPTH).max(near).min(far);
        if k == 0 {
            near
        } else if k == n {
            far
        } else {
            first * (far / first).powf(f64::from(k - 1) / f64::from(n - 1))
        }
    }
    /// The eight corners of froxel `(x, y, z)`, corner `(i, j, k)` at index `i + 2j + 4k`.
    pub fn corners(&self, [x, y, z]: [u32; 3]) -> [V; 8] {
        let (tx, ty) = self.tans();
        let [nx, ny, _] = self.dims;
        std::array::from_fn(|c| {
            let (i, j, k) = ((c & 1) as u32, (c >> 1 & 1) as u32, (c >> 2) as u32);
            let d = self.depth(z + k);
            [
                Self::slope(x + i, nx, tx) * d,
                Self::slope(y + j, ny, ty) * d,
                -d,
            ]
        })
    }
}

/// Distance from `p` to the segment `ab`.
pub fn segment_dist(p: V, a: V, b: V) -> f64 {
    let ab = sub(b, a);
    let len2 = dot(ab, ab);
    let t = if len2 > 0.0 {
        (dot(sub(p, a), ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    norm(sub(
        p,
        [a[0] + t * ab[0], a[1] + t * ab[1], a[2] + t * ab[2]],
    ))
}

/// Distance from `p` to the triangle `abc`: to its plane if the projection falls inside, else to
/// the nearest edge.
pub fn triangle_dist(p: V, a: V, b: V, c: V) -> f64 {
    let n = cross(sub(b, a), sub(c, a));
    let nn = dot(n, n);
    // A degenerate triangle (or one whose normal overflows) is measured by its edges.
    if nn > 0.0 && nn.is_finite() {
        let h = dot(sub(p, a), n) / nn;
        let q = sub(p, [h * n[0], h * n[1], h * n[2]]);
        let inside = [(a, b), (b, c), (c, a)]
            .iter()
            .all(|&(u, v)| dot(cross(sub(v, u), sub(q, u)), n) >= 0.0);
        if inside {
            return h.abs() * nn.sqrt();
        }
    }
    segment_dist(p, a, b)
        .min(segment_dist(p, b, c))
        .min(segment_dist(p, c, a))
}

/// The distance from `p` to the froxel with corners `k` (the convex hull of the eight).
pub fn froxel_dist(p: V, k: &[V; 8]) -> f64 {
    // Inside: on the inner side of both depth planes and of the four side planes through the eye.
    let d = -p[2];
    let (d0, d1) = (-k[0][2], -k[4][2]);
    let (a0, a1) = (k[0][0] / d0, k[1][0] / d0);
    let (b0, b1) = (k[0][1] / d0, k[2][1] / d0);
    if d0 <= d && d <= d1 && a0 * d <= p[0] && p[0] <= a1 * d && b0 * d <= p[1] && p[1] <= b1 * d {
        return 0.0;
    }
    // Faces as corner cycles.
    let faces = [
        [0, 2, 6, 4], // left  (x at a0)
        [1, 3, 7, 5], // right
        [0, 1, 5, 4], // bottom
        [2, 3, 7, 6], // top
        [0, 1, 3, 2], // near
        [4, 5, 7, 6], // far
    ];
    faces
        .iter()
        .map(|f| {
            let [a, b, c, e] = f.map(|i| k[i]);
            triangle_dist(p, a, b, c).min(triangle_dist(p, a, c, e))
        })
        .fold(f64::INFINITY, f64::min)
}
