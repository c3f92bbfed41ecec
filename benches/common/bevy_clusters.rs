//! A straightforward port of Bevy's CPU light clustering for point lights and a perspective
//! camera — the peer the froxel assignment of `bvlanes::cull` is measured against (issue 5).
//!
//! # What was followed
//!
//! `crates/bevy_pbr/src/cluster/assign.rs` of `bevyengine/bevy` (the 0.17 line, commit
//! `12616cb7`, where `assign_lights_to_clusters` is called `assign_objects_to_clusters`), and
//! `Frustum` / `HalfSpace` of its `primitives` module. Per light, as there:
//!
//! 1. `Frustum::intersects_sphere(sphere, true)`: six normalised half-spaces (left, right,
//!    bottom, top and near from the rows of `clip_from_view`, far at depth `far`); the light is
//!    dropped if `n . c + d + r <= 0` for one of them.
//! 2. `cluster_space_clusterable_object_aabb`: the light's view-space box, its `z` clamped to
//!    `<= -f32::MIN_POSITIVE`, four corners projected to NDC, their `xy` range clamped to
//!    `[-1, 1]`; `ndc_position_to_cluster` (with `view_z_to_z_slice`) turns the two ends into
//!    the min and max cluster.
//! 3. The iterative sphere refinement (Persson, "Practical Clustered Shading"): for each slice in
//!    range, the sphere is cut by the slice plane nearest its centre (`project_to_plane_z`; the
//!    centre's own slice keeps the sphere); for each row in range, that circle-sphere is cut by
//!    the nearest row plane (`project_to_plane_y`); then `min_x` and `max_x` walk in while the
//!    refined sphere lies wholly beyond the next tile plane (`get_distance_x`), and the light is
//!    pushed onto every cell from `min_x` to `max_x`.
//!
//! All of it in f32, as Bevy. Left out: render layers, spot lights, probes and decals, the
//! global visible set and per-cell counts, dynamic resizing of the grid (none of them changes
//! the point lights' cells). `clip_from_view` is glam's `perspective_infinite_reverse_rh`
//! (Bevy's perspective projection), written out (`clip = (x / tan_x, y / tan_y, near, -z)`).
//!
//! # The geometry is bvlanes'
//!
//! The planes are those of `ClusterGrid::froxels` for the same camera, so the two outputs are
//! comparable cell by cell: tile `i` between slopes `s_i = (2i - n) / n * tan_x` of `x / d`,
//! rows likewise, slice `k` between depths `b_k` (`b_0 = near`, `b_n = far`, `b_k = f *
//! (far / f)^((k - 1) / (n - 1))`, `f = clamp(5, near, far)`) — computed in f64 as bvlanes
//! does, then rounded to f32 as Bevy stores them. Bevy's own planes differ in three respects,
//! all ignored here: its slice 0 starts at the eye (depth 0), not at `near`; it derives the
//! tile planes from the inverse projection matrix in f32 (ulp-level differences); and its
//! `far` is the farthest light's reach. `cluster_factors` (for `view_z_to_z_slice`) use the same
//! `f` and `far`.
//!
//! Bevy numbers rows from the top of the screen and its cells `(row * dims_x + x) * dims_z + z`;
//! the port refines with Bevy's rows (its y planes run top to bottom) but files each light
//! under bvlanes' cell index: `(x * dims_y + (dims_y - 1 - row)) * dims_z + z`
//! (`CellOrder::ZFastest`, row 0 at the bottom).
//!
//! # Output
//!
//! One `Vec<u32>` of light indices per cell, pushed to as Bevy pushes its per-cluster entity
//! lists (kept across calls and cleared, as Bevy's), then flattened into
//! `bvlanes::cull::LightLists` — offsets and indices, ascending within a cell since lights are
//! visited in order. The flattening is part of the measured cost (Bevy's cost includes building
//! its lists).
//!
//! # Conservative?
//!
//! No: the refinement replaces the part of the sphere inside a slice by the circle the slice's
//! nearest plane cuts, picks each row's cutting plane from the light's original centre (not the
//! centre moved onto the slice plane: a light near the eye whose slice circle lies rows away
//! loses rows), and tests the small cut spheres against row and tile planes that are tilted, so
//! parts of the sphere deeper in the slice can reach cells the cut spheres do not. On the indoor
//! scene of `light_scenes` it misses 42 of bvlanes' 97,133 exact pairs, none of them a touching
//! case; an f64 replica of the same steps misses the same 42 (so they are Bevy's, not f32
//! rounding of the port). `bvlanes-bench --table lights` reports the misses of each scene.

use bvlanes::Spheres;
use bvlanes::cull::LightLists;

/// Bevy's `HalfSpace`: the points `p` with `n . p + d >= 0`, `n` of unit length.
#[derive(Clone, Copy, Debug)]
struct HalfSpace {
    n: [f32; 3],
    d: f32,
}

impl HalfSpace {
    /// Normalises `(n, d)` by `1 / |n|`, as `HalfSpace::new`.
    fn new(n: [f32; 3], d: f32) -> HalfSpace {
        let inv = 1.0 / (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        HalfSpace {
            n: n.map(|v| v * inv),
            d: d * inv,
        }
    }

    /// A plane through the eye with unit normal `n` (rounded from f64), `d = 0`.
    fn through_eye(n: [f64; 3]) -> HalfSpace {
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        HalfSpace {
            n: n.map(|v| (v / len) as f32),
            d: 0.0,
        }
    }
}

/// Bevy's `Sphere` (centre and radius, f32).
#[derive(Clone, Copy, Debug)]
struct Ball {
    c: [f32; 3],
    r: f32,
}

/// Bevy's cluster assignment for point lights, on the froxel grid of one camera.
#[derive(Debug)]
pub struct BevyClusters {
    /// Tiles across, rows, slices.
    dims: [u32; 3],
    /// `clip_from_view[0][0]` = `1 / tan_x`.
    m00: f32,
    /// `clip_from_view[1][1]` = `1 / tan_y`.
    m11: f32,
    /// The near depth (`clip.z` of every point: reverse-z infinite projection).
    near: f32,
    /// Left, right, bottom, top, near, far.
    frustum: [HalfSpace; 6],
    /// `calculate_cluster_factors(f, far, dims_z)`: `view_z_to_z_slice`'s scale and offset.
    factors: [f32; 2],
    /// `dims_x + 1` tile planes, left to right (normal towards larger `x / d`).
    x_planes: Vec<HalfSpace>,
    /// `dims_y + 1` row planes, top to bottom as Bevy's (normal towards larger `y / d`).
    y_planes: Vec<HalfSpace>,
    /// `dims_z + 1` slice planes, near to far (normal `-z`, `d` = the depth).
    z_planes: Vec<HalfSpace>,
    /// One light list per cell, bvlanes' cell order (reused across calls).
    cells: Vec<Vec<u32>>,
}

impl BevyClusters {
    /// The clusters of a camera, with the arguments of `ClusterGrid::froxels` (which must be
    /// valid for it).
    pub fn new(
        width_px: u32,
        height_px: u32,
        fov_y: f32,
        near: f32,
        far: f32,
        dims: [u32; 3],
    ) -> BevyClusters {
        assert!(dims.iter().all(|&d| d > 0) && near > 0.0 && far > near);
        let tan_y = (f64::from(fov_y) / 2.0).tan();
        let tan_x = tan_y * f64::from(width_px) / f64::from(height_px);
        let (m00, m11) = ((1.0 / tan_x) as f32, (1.0 / tan_y) as f32);
        // Frustum::from_clip_from_world_custom_far with the view at the origin: rows of
        // clip_from_view are (m00, 0, 0, 0), (0, m11, 0, 0), (0, 0, 0, near), (0, 0, -1, 0).
        let frustum = [
            HalfSpace::new([m00, 0.0, -1.0], 0.0),
            HalfSpace::new([-m00, 0.0, -1.0], 0.0),
            HalfSpace::new([0.0, m11, -1.0], 0.0),
            HalfSpace::new([0.0, -m11, -1.0], 0.0),
            HalfSpace::new([0.0, 0.0, -1.0], -near),
            HalfSpace::new([0.0, 0.0, 1.0], far),
        ];
        // Tile boundary i: x / d = s, normal (1, 0, s) (Bevy's nb x nt, d = 0).
        let slope =
            |i: u32, n: u32, tan: f64| (f64::from(2 * i) - f64::from(n)) / f64::from(n) * tan;
        let x_planes = (0..=dims[0])
            .map(|i| HalfSpace::through_eye([1.0, 0.0, slope(i, dims[0], tan_x)]))
            .collect();
        // Bevy's row boundary j (from the top) is bvlanes' boundary dims_y - j: normal (0, 1, s)
        // (Bevy's nr x nl).
        let y_planes = (0..=dims[1])
            .map(|j| HalfSpace::through_eye([0.0, 1.0, slope(dims[1] - j, dims[1], tan_y)]))
            .collect();
        // Slice boundaries as ClusterGrid::froxels: near, then f * (far / f)^((k - 1) / (n - 1)),
        // far last; z plane k: normal -z, d = view_z * normal.z = the depth.
        let (near64, far64) = (f64::from(near), f64::from(far));
        let first = 5f64.clamp(near64, far64);
        let n = dims[2];
        let mut depth: Vec<f64> = (0..=n)
            .map(|k| match k {
                0 => near64,
                k if k == n => far64,
                k => first * (far64 / first).powf(f64::from(k - 1) / f64::from(n - 1)),
            })
            .collect();
        for k in 1..depth.len() {
            depth[k] = depth[k].clamp(depth[k - 1], far64);
        }
        let z_planes = depth
            .iter()
            .map(|&b| HalfSpace {
                n: [0.0, 0.0, -1.0],
                d: b as f32,
            })
            .collect();
        // calculate_cluster_factors(first_slice_depth, far_z, z_slices, perspective).
        let (f, z_slices) = (first as f32, n as f32);
        let scale = (z_slices - 1.0) / (far / f).ln();
        BevyClusters {
            dims,
            m00,
            m11,
            near,
            frustum,
            factors: [scale, f.ln() * scale],
            x_planes,
            y_planes,
            z_planes,
            cells: vec![Vec::new(); dims.iter().map(|&d| d as usize).product()],
        }
    }

    /// Assigns `lights` (view space) to the cells; the lists in bvlanes' CSR form and cell order.
    pub fn assign(&mut self, lights: &Spheres) -> LightLists {
        let mut lists = LightLists::new();
        self.assign_into(lights, &mut lists);
        lists
    }

    /// [`assign`](Self::assign) into `out`, reusing its arrays (as `ClusterGrid::assign_into`
    /// reuses its output: both sides of the comparison keep their buffers across frames, as a
    /// renderer, and Bevy, do).
    pub fn assign_into(&mut self, lights: &Spheres, out: &mut LightLists) {
        for c in &mut self.cells {
            c.clear();
        }
        let [_, dy, dz] = self.dims;
        let x_step = (dy * dz) as usize;
        // `Spheres::iter` must inline here: until it was `#[inline]` (commit 8a67a79) its two
        // calls per light were most of this port's `many_lights` frame (docs/benchmarks.md).
        for (l, light) in lights.iter().enumerate() {
            let s = Ball {
                c: light.center,
                r: light.radius,
            };
            if !self.frustum_intersects(s) {
                continue;
            }
            let (lo, hi) = self.cluster_space_aabb(s);
            let a = self.ndc_to_cluster(lo, lo[2]);
            let b = self.ndc_to_cluster(hi, hi[2]);
            let (min, max) = (
                [0, 1, 2].map(|i| a[i].min(b[i])),
                [0, 1, 2].map(|i| a[i].max(b[i])),
            );
            // The view-space sphere is the light itself (the view is the identity).
            let ndc = self.ndc(s.c);
            let centre = self.ndc_to_cluster(ndc, s.c[2]);
            let z_centre = (ndc[2] <= 1.0).then_some(centre[2]);
            let y_centre = if ndc[1] > 1.0 {
                None
            } else if ndc[1] < -1.0 {
                Some(dy + 1)
            } else {
                Some(centre[1])
            };
            for z in min[2]..=max[2] {
                let mut z_ball = s;
                if z_centre != Some(z) {
                    // The nearer of the slice's two planes cuts the larger circle.
                    let plane = if z_centre.is_some_and(|c| z < c) {
                        self.z_planes[z as usize + 1]
                    } else {
                        self.z_planes[z as usize]
                    };
                    match project_to_plane_z(z_ball, plane) {
                        Some(p) => z_ball = p,
                        None => continue,
                    }
                }
                for y in min[1]..=max[1] {
                    let mut y_ball = z_ball;
                    if y_centre != Some(y) {
                        let plane = if y_centre.is_some_and(|c| y < c) {
                            self.y_planes[y as usize + 1]
                        } else {
                            self.y_planes[y as usize]
                        };
                        match project_to_plane_y(y_ball, plane) {
                            Some(p) => y_ball = p,
                            None => continue,
                        }
                    }
                    // From the left, the first tile the refined sphere reaches; from the right,
                    // the last.
                    let mut min_x = min[0];
                    while min_x < max[0]
                        && -distance_x(self.x_planes[min_x as usize + 1], y_ball.c) + y_ball.r
                            <= 0.0
                    {
                        min_x += 1;
                    }
                    let mut max_x = max[0];
                    while max_x > min_x
                        && distance_x(self.x_planes[max_x as usize], y_ball.c) + y_ball.r <= 0.0
                    {
                        max_x -= 1;
                    }
                    // bvlanes' cell (x, row, z), row 0 at the bottom.
                    let row = dy - 1 - y;
                    let mut cell = ((min_x * dy + row) * dz + z) as usize;
                    for _ in min_x..=max_x {
                        self.cells[cell].push(l as u32);
                        cell += x_step;
                    }
                }
            }
        }
        // Flatten into CSR.
        out.offsets.clear();
        out.indices.clear();
        out.offsets.push(0);
        for c in &self.cells {
            out.indices.extend_from_slice(c);
            out.offsets.push(out.indices.len() as u32);
        }
    }

    /// `Frustum::intersects_sphere(sphere, true)`.
    fn frustum_intersects(&self, s: Ball) -> bool {
        self.frustum.iter().all(|h| dot(h.n, s.c) + h.d + s.r > 0.0)
    }

    /// `clip_from_view * (p, 1)`, divided by `w`.
    fn ndc(&self, p: [f32; 3]) -> [f32; 3] {
        let w = -p[2];
        [self.m00 * p[0] / w, self.m11 * p[1] / w, self.near / w]
    }

    /// `cluster_space_clusterable_object_aabb`: the NDC `xy` range (clamped to `[-1, 1]`) of the
    /// light's view-space box and its view `z` range, as `(min, max)`.
    fn cluster_space_aabb(&self, s: Ball) -> ([f32; 3], [f32; 3]) {
        let mut lo = s.c.map(|v| v - s.r);
        let mut hi = s.c.map(|v| v + s.r);
        lo[2] = lo[2].min(-f32::MIN_POSITIVE);
        hi[2] = hi[2].min(-f32::MIN_POSITIVE);
        let corners = [lo, [lo[0], lo[1], hi[2]], [hi[0], hi[1], lo[2]], hi].map(|p| self.ndc(p));
        let mut nmin = corners[0];
        let mut nmax = corners[0];
        for c in &corners[1..] {
            for i in 0..3 {
                nmin[i] = nmin[i].min(c[i]);
                nmax[i] = nmax[i].max(c[i]);
            }
        }
        (
            [nmin[0].clamp(-1.0, 1.0), nmin[1].clamp(-1.0, 1.0), lo[2]],
            [nmax[0].clamp(-1.0, 1.0), nmax[1].clamp(-1.0, 1.0), hi[2]],
        )
    }

    /// `ndc_position_to_cluster`: Bevy's cluster `(x, row from the top, slice)`.
    fn ndc_to_cluster(&self, ndc: [f32; 3], view_z: f32) -> [u32; 3] {
        let [dx, dy, dz] = self.dims;
        let fx = (ndc[0] * 0.5 + 0.5).clamp(0.0, 1.0);
        let fy = (ndc[1] * -0.5 + 0.5).clamp(0.0, 1.0);
        let x = (fx * dx as f32).floor() as u32;
        let y = (fy * dy as f32).floor() as u32;
        let z = self.view_z_to_z_slice(view_z);
        [x.min(dx - 1), y.min(dy - 1), z.min(dz - 1)]
    }

    /// `view_z_to_z_slice` (perspective).
    fn view_z_to_z_slice(&self, view_z: f32) -> u32 {
        let slice = ((-view_z).ln() * self.factors[0] - self.factors[1] + 1.0) as u32;
        slice.min(self.dims[2] - 1)
    }
}

/// `a . b`.
fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `get_distance_x` (perspective): the signed distance from a tile plane through the eye
/// (`n_y = 0`, `d = 0`).
fn distance_x(plane: HalfSpace, p: [f32; 3]) -> f32 {
    plane.n[0] * p[0] + plane.n[2] * p[2]
}

/// `project_to_plane_z`: the circle a slice plane cuts from the sphere, as a sphere centred on
/// the plane (`None` if the plane misses it).
fn project_to_plane_z(s: Ball, plane: HalfSpace) -> Option<Ball> {
    let z = plane.d / plane.n[2];
    let dist = z - s.c[2];
    if dist.abs() > s.r {
        return None;
    }
    Some(Ball {
        c: [s.c[0], s.c[1], z],
        r: (s.r * s.r - dist * dist).sqrt(),
    })
}

/// `project_to_plane_y` (perspective): the circle a row plane through the eye (`n_x = 0`,
/// `d = 0`) cuts from the sphere, as a sphere centred on the plane.
fn project_to_plane_y(s: Ball, plane: HalfSpace) -> Option<Ball> {
    let dist = -(s.c[1] * plane.n[1] + s.c[2] * plane.n[2]);
    if dist.abs() > s.r {
        return None;
    }
    Some(Ball {
        c: [0, 1, 2].map(|i| s.c[i] + dist * plane.n[i]),
        r: (s.r * s.r - dist * dist).sqrt(),
    })
}

#[cfg(test)]
mod tests {
    // Imports inside the tests: the `lights` bench (no test harness) compiles this module with
    // `cfg(test)` but drops the tests.

    /// Whether every pair of `a` is a pair of `b`.
    fn subset(a: &bvlanes::cull::LightLists, b: &bvlanes::cull::LightLists) -> bool {
        (0..a.cells()).all(|c| a.cell(c).iter().all(|l| b.cell(c).binary_search(l).is_ok()))
    }

    #[test]
    fn cells_follow_bvlanes_numbering() {
        use super::BevyClusters;
        use bvlanes::cull::ClusterGrid;
        use bvlanes::{Sphere, Spheres};
        let grid = ClusterGrid::froxels(1920, 1080, 1.0, 0.1, 1000.0, [16, 8, 24]).unwrap();
        let mut port = BevyClusters::new(1920, 1080, 1.0, 0.1, 1000.0, [16, 8, 24]);
        let lights = Spheres::from_slice(&[
            Sphere::new([0.0, 0.0, -3.0], 0.01), // the corner of four tiles, slice 0
            Sphere::new([0.0, 0.0, 20.0], 10.0), // behind the eye
            Sphere::new([-1.0, 0.5, -30.0], 0.2), // left of and above the axis
            Sphere::new([3.0, -2.0, -200.0], 1.0), // right, below, far
        ])
        .unwrap();
        let (exact, ours) = (grid.assign(&lights), port.assign(&lights));
        assert_eq!(ours.cells(), grid.len());
        for (x, y) in [(7, 4), (8, 4), (7, 3), (8, 3)] {
            assert_eq!(ours.cell(grid.cell_index([x, y, 0]).unwrap()), [0]);
        }
        assert!(!ours.indices.contains(&1));
        assert!(subset(&exact, &ours));
        // Small lights away from boundaries: the same cells.
        assert_eq!(
            exact.indices.len(),
            ours.indices.len(),
            "{exact:?}\n{ours:?}"
        );
        assert_eq!(exact, ours);
    }

    #[test]
    fn conservative_on_many_lights() {
        use super::BevyClusters;
        use crate::common::light_scenes::{indoor, many_lights};
        let s = many_lights(5_000);
        let c = s.camera;
        let exact = c.grid().assign(&s.lights);
        let mut port = BevyClusters::new(c.width_px, c.height_px, c.fov_y, c.near, c.far, c.dims);
        let ours = port.assign(&s.lights);
        assert!(!exact.indices.is_empty() && subset(&exact, &ours));
        // The lists are reused: a second call gives the same.
        assert_eq!(port.assign(&s.lights), ours);
        // Between the exact pairs and the froxel boxes'.
        let boxes = c.grid().cells();
        let box_pairs: usize = s.lights.iter().map(|l| boxes.count_hits(&l)).sum();
        assert!(exact.indices.len() <= ours.indices.len() && ours.indices.len() <= box_pairs);
        // The indoor scene's lists are ascending per cell too.
        let s = indoor(500);
        let c = s.camera;
        let mut port = BevyClusters::new(c.width_px, c.height_px, c.fov_y, c.near, c.far, c.dims);
        let ours = port.assign(&s.lights);
        assert!((0..ours.cells()).all(|i| ours.cell(i).windows(2).all(|w| w[0] < w[1])));
    }
}
