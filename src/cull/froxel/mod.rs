//! Froxel grids: a perspective camera's view volume cut into cells between planes through the
//! eye, and the exact sphere-froxel decision (see `docs/algorithms.md`, "Light assignment to
//! froxels").
//!
//! Here the [`Froxels`] type, its geometry and the per-light driver; one file per step of the
//! decision: `pre_cull.rs` (the SIMD pre-cull and its queue, the per-light decisions run in its
//! sink), `few_cells.rs` (a light reaching few planes of its cell), `general.rs` (the slices,
//! then per row a run of tiles with exact tests at its ends), `rows.rs` (the rows of a slice in
//! f64 lanes), `cell_distance.rs` (the exact distance to one froxel); `cell_box.rs` (a froxel's
//! f32 bounding box), `ordered.rs` (compare-and-select `max` and `min`).

mod cell_box;
mod cell_distance;
mod few_cells;
mod general;
mod ordered;
mod pre_cull;
mod rows;
#[cfg(test)]
mod tests;

pub(super) use general::Scratch;

use super::numbering::CellOrder;
use super::runs::RunSink;
use crate::error::BvError;
use crate::kernel::ViewVolume;
use crate::lanes::Lanes64;
use ordered::Ordered;
use pre_cull::view_volume;

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
    /// `1 / sqrt(1 + s^2)` of each slope of `sx`.
    cx: Vec<f64>,
    /// `1 / sqrt(1 + s^2)` of each slope of `sy`.
    cy: Vec<f64>,
    /// `sy` and `cy` followed by three copies of their last value: the rows of a slice are
    /// loaded four at a time from any row ([`hits_in_front`](Self::hits_in_front)).
    sy_lanes: Vec<f64>,
    cy_lanes: Vec<f64>,
    /// `dims[a] / (2 tan_a)` for x and y: a slope times it, plus `dims[a] / 2`, is the tile
    /// coordinate.
    ndc: [f64; 2],
    /// `dims[a] / 2` for x and y.
    half: [f64; 2],
    /// The f32 constants of the SIMD pre-cull.
    volume: ViewVolume,
    /// Per bucket `b` of positive f32 (the values whose bits shifted right by
    /// [`SLICE_BUCKET_SHIFT`] are `b`, a factor of `2^(1/8)` or less apart), the number of slice
    /// far depths `depth[k + 1]` below the bucket's least value (all of them past +inf).
    slice_table: Vec<u32>,
}

/// Positive f32 are bucketed by their bits shifted right by this many: exponent and three
/// mantissa bits.
const SLICE_BUCKET_SHIFT: u32 = 20;

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
        super::numbering::check_dims(dims)?;
        let tan_y = (fov / 2.0).tan();
        let tan_x = tan_y * f64::from(width_px) / f64::from(height_px);
        // Tile i spans ndc in [-1 + 2i/n, -1 + 2(i+1)/n]; ndc u is the slope u * tan.
        let slopes = |n: u32, tan: f64| -> Vec<f64> {
            (0..=n)
                .map(|i| (2.0 * f64::from(i) - f64::from(n)) / f64::from(n) * tan)
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
        let (sx, sy) = (slopes(dims[0], tan_x), slopes(dims[1], tan_y));
        let inv =
            |s: &[f64]| -> Vec<f64> { s.iter().map(|&s| 1.0 / (1.0 + s * s).sqrt()).collect() };
        let (cx, cy) = (inv(&sx), inv(&sy));
        let spread = 1.0 + tan_x + tan_y;
        let volume = view_volume([&sx, &cx, &sy, &cy], near, far, spread);
        let slice_table = (0..=(u32::MAX >> SLICE_BUCKET_SHIFT) / 2 + 1)
            .map(|b| {
                let least = f32::from_bits(b << SLICE_BUCKET_SHIFT);
                if least.is_nan() {
                    n
                } else {
                    depth[1..].partition_point(|&v| v < f64::from(least)) as u32
                }
            })
            .collect();
        let lanes = |v: &[f64]| -> Vec<f64> {
            let last = *v.last().expect("at least two slopes");
            v.iter().copied().chain([last; 3]).collect()
        };
        Ok(Froxels {
            dims,
            sy_lanes: lanes(&sy),
            cy_lanes: lanes(&cy),
            sx,
            sy,
            depth,
            spread,
            cx,
            cy,
            slice_table,
            half: [f64::from(dims[0]) * 0.5, f64::from(dims[1]) * 0.5],
            ndc: [
                f64::from(dims[0]) / (2.0 * tan_x),
                f64::from(dims[1]) / (2.0 * tan_y),
            ],
            volume,
        })
    }

    /// The first slice whose far depth reaches `lo`: the number of `depth[k + 1] < lo`. A
    /// binary search over all slices is a chain of dependent loads; instead the f32 at most
    /// `lo` picks its bucket of [`slice_table`](Self::slice_table), whose two ends bound the
    /// answer, and a search over the few slices between them settles it.
    #[inline(always)]
    fn first_slice(&self, lo: f64) -> usize {
        let f = lo as f32;
        let f = if f64::from(f) > lo { f.next_down() } else { f };
        if f <= 0.0 {
            // Every depth is at least `near > 0`.
            return 0;
        }
        // `f` is positive, at most +inf: its bucket and the next are in the table.
        let b = (f.to_bits() >> SLICE_BUCKET_SHIFT) as usize;
        let (s, e) = (
            self.slice_table[b] as usize,
            self.slice_table[b + 1] as usize,
        );
        s + self.depth[s + 1..=e].partition_point(|&v| v < lo)
    }

    /// The tiles along axis `a` (0: columns, 1: rows) holding the slopes `u' / t` of the points
    /// with `u' in [u - e, u + e]` and `t` between the depths whose reciprocals are `r0`, `r1`
    /// (first and last tile, clamped into the grid).
    #[inline]
    fn tile_span(&self, a: usize, u: f64, e: f64, r0: f64, r1: f64) -> (usize, usize) {
        let lo = ((u - e) * r0).at_most((u - e) * r1);
        let hi = ((u + e) * r0).at_least((u + e) * r1);
        (self.tile(a, lo), self.tile(a, hi))
    }

    /// The tile along axis `a` holding slope `s` (`floor(s n / (2 tan) + n / 2)`, clamped into
    /// the grid; `as i64` truncates towards zero and saturates, NaN to 0: the floor for
    /// non-negative values, and negative ones clamp to 0 anyway). Through `i64`, not `usize`:
    /// the unsigned conversion costs twice the instructions on x86-64.
    #[inline]
    fn tile(&self, a: usize, s: f64) -> usize {
        let last = f64::from(self.dims[a] - 1);
        (s * self.ndc[a] + self.half[a]).at_least(0.0).at_most(last) as i64 as usize
    }

    /// Calls `hit.run([x, y, z], n)` for every run of froxels `(x..x + n, y, z)` the sphere
    /// `(c, r)` meets (`n >= 1`; together, every froxel it meets, once), by the decision
    /// documented on [`ClusterGrid::froxels`](super::ClusterGrid::froxels): the few-cells
    /// shortcut, else the light's slices, then its rows in front of the eye or every candidate
    /// cell at or behind it (`docs/algorithms.md`, "Light assignment to froxels", steps 2-5).
    #[inline(always)]
    fn for_each_hit<W: Lanes64>(
        &self,
        c: [f32; 3],
        r: f32,
        s: &mut Scratch,
        hit: &mut LightCells<'_, impl RunSink>,
    ) {
        // Not `c.map(f64::from)`: an array `map` was left out of line in one binary (a call
        // per light, and a quarter of a `many_lights` frame slower).
        let p = [f64::from(c[0]), f64::from(c[1]), f64::from(c[2])];
        let r = f64::from(r);
        let rho = r + SLACK * ((p[0].abs() + p[1].abs() + p[2].abs() + r) * self.spread);
        let (x, y, pd) = (p[0], p[1], -p[2]);
        if self.few_cells([x, y, pd], rho, hit) {
            return;
        }
        // Slices: depth[k] <= pd + rho and depth[k + 1] >= pd - rho (the sphere meets the slab
        // between the two depth planes).
        let z = self.slice_run(pd, rho);
        if z.first >= z.end {
            return;
        }
        if pd > 0.0 {
            self.hits_in_front::<W>([x, y, pd], rho, z, s, hit);
            return;
        }
        self.hits_behind([x, y, pd], rho, z, s, hit);
    }
}

/// One light's runs of froxels, as [`Froxels::for_each_hit`] finds them: `run([x, y, z], n)`
/// pushes the froxels `(x..x + n, y, z)`, numbered in the grid's order, into `out`. A struct
/// whose method is inlined, not a closure: a closure called from three places was left out of
/// line (a call per run, a tenth of the frame).
struct LightCells<'a, S> {
    out: &'a mut S,
    dims: [u32; 3],
    order: CellOrder,
    light: u32,
}

impl<S: RunSink> LightCells<'_, S> {
    /// Takes one run.
    #[inline(always)]
    fn run(&mut self, xyz: [u32; 3], n: u32) {
        let start = self.order.index(self.dims, xyz);
        self.out.push(start, n, self.light);
    }
}

/// A cell's coordinates as the runs take them.
#[inline(always)]
fn cell_u32([i, j, k]: [usize; 3]) -> [u32; 3] {
    [i as u32, j as u32, k as u32]
}
