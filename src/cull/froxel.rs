//! Froxel grids: a perspective camera's view volume cut into cells between planes through the
//! eye, and the exact sphere-froxel decision (see `docs/algorithms.md`, "Light assignment to
//! froxels").

use crate::{Aabb, BvError};

/// The depth where slice 0 ends and the exponential slices begin (Bevy's default
/// `first_slice_depth`).
pub(super) const FIRST_SLICE_DEPTH: f32 = 5.0;

/// 2^-40: the relative slack of the sphere-froxel decision (far above the f64 rounding of the
/// few operations it runs, a few units of 2^-53).
const SLACK: f64 = 1.0 / (1u64 << 40) as f64;

/// The geometry of a froxel grid, in f64, in view space (right-handed, the eye at the origin
/// looking down -z, x right, y up; `d = -z` is the depth).
///
/// Froxel `(x, y, z)` is the closed set of points with
/// `sx[x] <= x / d <= sx[x + 1]`, `sy[y] <= y / d <= sy[y + 1]` and `depth[z] <= d <= depth[z + 1]`.
#[derive(Clone, Debug)]
pub(super) struct Froxels {
    pub(super) dims: [u32; 3],
    /// `dims[0] + 1` ascending slopes `x / d` of the tile boundaries.
    sx: Vec<f64>,
    /// `dims[1] + 1` ascending slopes `y / d`.
    sy: Vec<f64>,
    /// `dims[2] + 1` non-decreasing depths of the slice boundaries (`near` first, `far` last).
    depth: Vec<f64>,
    /// `1 + tan_x + tan_y`: the largest `|x| + |y| + d` of a point of the volume at depth 1.
    spread: f64,
}

/// The candidate range of one axis.
#[derive(Clone, Copy)]
struct Run {
    first: usize,
    end: usize,
}

impl Froxels {
    /// See [`ClusterGrid::froxels`](super::ClusterGrid::froxels).
    pub(super) fn new(
        width_px: u32,
        height_px: u32,
        fov_y: f32,
        near: f32,
        far: f32,
        dims: [u32; 3],
    ) -> Result<Froxels, BvError> {
        if ![fov_y, near, far].iter().all(|v| v.is_finite()) {
            return Err(BvError::NonFinite { index: 0 });
        }
        if width_px == 0 || height_px == 0 {
            return Err(BvError::Camera {
                what: "the viewport has a zero side",
            });
        }
        let fov = f64::from(fov_y);
        if !(fov > 0.0 && fov < std::f64::consts::PI) {
            return Err(BvError::Camera {
                what: "fov_y must lie in (0, pi)",
            });
        }
        if near <= 0.0 {
            return Err(BvError::Camera {
                what: "near must be positive",
            });
        }
        if far <= near {
            return Err(BvError::Camera {
                what: "far must exceed near",
            });
        }
        let cells = dims.iter().map(|&d| u64::from(d)).product::<u64>();
        if dims.contains(&0) || cells > u64::from(u32::MAX) {
            return Err(BvError::GridDims { dims });
        }
        let tan_y = (fov / 2.0).tan();
        let tan_x = tan_y * f64::from(width_px) / f64::from(height_px);
        // Tile i spans ndc in [-1 + 2i/n, -1 + 2(i+1)/n]; ndc u is the slope u * tan.
        let slopes = |n: u32, tan: f64| -> Vec<f64> {
            (0..=n)
                .map(|i| (f64::from(2 * i) - f64::from(n)) / f64::from(n) * tan)
                .collect()
        };
        let (near, far) = (f64::from(near), f64::from(far));
        let first = f64::from(FIRST_SLICE_DEPTH).clamp(near, far);
        let n = dims[2];
        let mut depth: Vec<f64> = (0..=n)
            .map(|k| match k {
                0 => near,
                k if k == n => far,
                k => first * (far / first).powf(f64::from(k - 1) / f64::from(n - 1)),
            })
            .collect();
        for k in 1..depth.len() {
            depth[k] = depth[k].clamp(depth[k - 1], far);
        }
        Ok(Froxels {
            dims,
            sx: slopes(dims[0], tan_x),
            sy: slopes(dims[1], tan_y),
            depth,
            spread: 1.0 + tan_x + tan_y,
        })
    }

    /// The smallest f32 box containing froxel `(x, y, z)` (bounds rounded outwards; bounds
    /// beyond the f32 range saturate to `-f32::MAX` / `f32::MAX`).
    pub(super) fn cell_box(&self, [x, y, z]: [usize; 3]) -> Aabb {
        let (d0, d1) = (self.depth[z], self.depth[z + 1]);
        let lo = |s: f64| (s * d0).min(s * d1);
        let hi = |s: f64| (s * d0).max(s * d1);
        Aabb::new(
            [
                f32_down(lo(self.sx[x])),
                f32_down(lo(self.sy[y])),
                f32_down(-d1),
            ],
            [
                f32_up(hi(self.sx[x + 1])),
                f32_up(hi(self.sy[y + 1])),
                f32_up(-d0),
            ],
        )
    }

    /// Calls `hit([x, y, z])` for every froxel the sphere `(c, r)` meets, by the decision
    /// documented on [`ClusterGrid::froxels`](super::ClusterGrid::froxels). `g` is scratch.
    pub(super) fn for_each_hit(
        &self,
        c: [f32; 3],
        r: f32,
        g: &mut Vec<f64>,
        mut hit: impl FnMut([u32; 3]),
    ) {
        let p = c.map(f64::from);
        let r = f64::from(r);
        let rho = r + SLACK * ((p[0].abs() + p[1].abs() + p[2].abs() + r) * self.spread);
        let pd = -p[2];
        // Slices: depth[k] <= pd + rho and depth[k + 1] >= pd - rho (a necessary condition:
        // the sphere meets the slab between the two depth planes).
        let n = self.depth.len() - 1;
        let z = Run {
            first: self.depth[1..].partition_point(|&v| v < pd - rho),
            end: self.depth[..n].partition_point(|&v| v <= pd + rho),
        };
        if z.first >= z.end {
            return;
        }
        // Tiles: the sphere must meet both side half-spaces of the tile (necessary again).
        let x = side_run(&self.sx, p[0], p[2], rho, g);
        let y = side_run(&self.sy, p[1], p[2], rho, g);
        let (Some(x), Some(y)) = (x, y) else {
            return;
        };
        let rho2 = rho * rho;
        for i in x.first..x.end {
            for j in y.first..y.end {
                for k in z.first..z.end {
                    let cell = Cell {
                        a: [self.sx[i], self.sx[i + 1]],
                        b: [self.sy[j], self.sy[j + 1]],
                        d: [self.depth[k], self.depth[k + 1]],
                    };
                    if cell.dist2([p[0], p[1], pd]) <= rho2 {
                        hit([i as u32, j as u32, k as u32]);
                    }
                }
            }
        }
    }
}

/// The tiles along one side axis whose two side half-spaces the sphere meets within `rho`:
/// plane `u = s d` (u the axis coordinate, `d = -z`) has signed distance
/// `(u + s z) / sqrt(1 + s^2)` from the centre, positive on the side of larger `u / d`. Tile `i`
/// needs that distance `>= -rho` for its lower plane and `<= rho` for its upper one. The distance
/// is not monotone in the slope, so every boundary is evaluated; the run returned spans the first
/// to the last passing tile (a superset of the passing tiles; the exact test decides each cell).
fn side_run(s: &[f64], u: f64, z: f64, rho: f64, g: &mut Vec<f64>) -> Option<Run> {
    g.clear();
    g.extend(s.iter().map(|&s| (u + s * z) / (1.0 + s * s).sqrt()));
    let tiles = s.len() - 1;
    let ok = |i: usize| g[i] >= -rho && g[i + 1] <= rho;
    let first = (0..tiles).find(|&i| ok(i))?;
    let last = (first..tiles).rev().find(|&i| ok(i))?;
    Some(Run {
        first,
        end: last + 1,
    })
}

/// One froxel: `a[0] <= x / d <= a[1]`, `b[0] <= y / d <= b[1]`, `d[0] <= d <= d[1]`.
struct Cell {
    a: [f64; 2],
    b: [f64; 2],
    d: [f64; 2],
}

impl Cell {
    /// The squared distance from `(x, y, depth)` to the cell along the cross-section at depth `t`
    /// (a rectangle `[a0 t, a1 t] x [b0 t, b1 t]`): `(t - depth)^2 + ex^2 + ey^2`.
    #[inline]
    fn h(&self, [x, y, pd]: [f64; 3], t: f64) -> f64 {
        let ex = (self.a[0] * t - x).max(x - self.a[1] * t).max(0.0);
        let ey = (self.b[0] * t - y).max(y - self.b[1] * t).max(0.0);
        let ez = t - pd;
        ez * ez + ex * ex + ey * ey
    }

    /// The squared distance from the point `(x, y, depth)` to the cell: the minimum of `h(t)`
    /// over `t` in `[d0, d1]`. `h` is convex (a partial minimum of a convex function over a
    /// convex set), strictly, and continuously differentiable (each of `ex^2`, `ey^2` is the
    /// square of a ramp, zero with its derivative where it switches on). So its minimum over
    /// `[d0, d1]` is at an end or where `h' = 0`, and there `h` equals one of nine quadratics
    /// (each of `ex`, `ey` off, or on through its lower or its upper plane) with that
    /// quadratic's stationary point. The candidates are the ends and those nine points clamped
    /// to `[d0, d1]`; each is a point of the cell, so the smallest `h` among them is the distance.
    fn dist2(&self, p: [f64; 3]) -> f64 {
        let [x, y, pd] = p;
        let [d0, d1] = self.d;
        let mut best = self.h(p, d0).min(self.h(p, d1));
        // The stationary point of (t - pd)^2 + sum (s t - u)^2 over the active terms.
        let xs = [None, Some(self.a[0]), Some(self.a[1])];
        let ys = [None, Some(self.b[0]), Some(self.b[1])];
        for sx in xs {
            for sy in ys {
                let (mut num, mut den) = (pd, 1.0);
                if let Some(s) = sx {
                    num += s * x;
                    den += s * s;
                }
                if let Some(s) = sy {
                    num += s * y;
                    den += s * s;
                }
                let t = num / den;
                if t.is_finite() {
                    best = best.min(self.h(p, t.clamp(d0, d1)));
                }
            }
        }
        best
    }
}

/// The largest f32 at most `v`, saturating at `-f32::MAX` / `f32::MAX`.
fn f32_down(v: f64) -> f32 {
    let mut f = v as f32;
    if f64::from(f) > v {
        f = f.next_down();
    }
    f.clamp(-f32::MAX, f32::MAX)
}

/// The smallest f32 at least `v`, saturating at `-f32::MAX` / `f32::MAX`.
fn f32_up(v: f64) -> f32 {
    let mut f = v as f32;
    if f64::from(f) < v {
        f = f.next_up();
    }
    f.clamp(-f32::MAX, f32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_follow_bevy() {
        let f = Froxels::new(1920, 1080, 1.0, 0.1, 1000.0, [16, 9, 24]).unwrap();
        assert_eq!(f.depth.len(), 25);
        assert_eq!(f.depth[0], 0.1f32 as f64);
        assert_eq!(f.depth[1], 5.0);
        assert_eq!(f.depth[24], 1000.0);
        let ratio = (1000.0f64 / 5.0).powf(1.0 / 23.0);
        for k in 1..24 {
            assert!((f.depth[k + 1] / f.depth[k] - ratio).abs() < 1e-12);
        }
        let one = Froxels::new(4, 4, 1.0, 0.5, 50.0, [1, 1, 1]).unwrap();
        assert_eq!(one.depth, [0.5, 50.0]);
        assert_eq!(one.sx, [-(0.5f64.tan()), 0.5f64.tan()]);
        // near beyond the first slice depth: slice 0 is the plane d = near, as Bevy's formula
        // never picks slice 0 then.
        let deep = Froxels::new(4, 4, 1.0, 8.0, 50.0, [1, 1, 3]).unwrap();
        assert_eq!(deep.depth[..2], [8.0, 8.0]);
        assert!((deep.depth[2] - 20.0).abs() < 1e-12);
        assert_eq!(deep.depth[3], 50.0);
    }

    #[test]
    fn distance_to_a_cell() {
        let c = Cell {
            a: [-1.0, 1.0],
            b: [0.0, 0.5],
            d: [1.0, 2.0],
        };
        assert_eq!(c.dist2([0.0, 0.25, 1.5]), 0.0);
        assert_eq!(c.dist2([0.0, 0.25, 0.5]), 0.25);
        assert_eq!(c.dist2([0.0, 0.25, 3.0]), 1.0);
        // Off the corner (1, 0, 1) at 45 degrees outside the plane x = d: the closest point is on
        // the edge through (1, 0, 1) and (2, 0, 2).
        let dd = c.dist2([2.0, 0.0, 1.0]);
        assert!((dd - 0.5).abs() < 1e-15, "{dd}");
        // Behind the eye: the closest point is (0, 0, 1) on the near face.
        assert_eq!(c.dist2([0.0, 0.0, -1.0]), 4.0);
    }
}
