//! Froxel grids: a perspective camera's view volume cut into cells between planes through the
//! eye, and the exact sphere-froxel decision (see `docs/algorithms.md`, "Light assignment to
//! froxels").

use super::numbering::CellOrder;
use super::runs::RunSink;
use crate::kernel::{Sink, SpheresVsViewVolume, ViewVolume};
use crate::lanes::Chunk;
use crate::lanes::{Lanes, Lanes64, left_pack_table};
use crate::round::{f32_at_least, f32_at_most};
use crate::{Aabb, Backend, BvError, Spheres};

/// The depth where slice 0 ends and the exponential slices begin (Bevy's default
/// `first_slice_depth`).
pub(super) const FIRST_SLICE_DEPTH: f32 = 5.0;

/// 2^-40: the relative slack of the sphere-froxel decision (far above the f64 rounding of the
/// few operations it runs, a few units of 2^-53).
const SLACK: f64 = 1.0 / (1u64 << 40) as f64;

/// 2^-20: the relative slack of the f32 pre-cull (see `kernel/view_volume.rs`).
const PRE_CULL_SLACK: f64 = 1.0 / (1u64 << 20) as f64;

/// 2^-100: the pre-cull's absolute floor (covers underflow in the f32 plane distances).
const PRE_CULL_FLOOR: f64 = 1.0 / (1u128 << 100) as f64;

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
        // Outward side planes: the lower one of tile 0 (negated) and the upper one of the last.
        let plane = |s: &[f64], c: &[f64], i: usize, sign: f64| {
            [(sign * c[i]) as f32, (sign * s[i] * c[i]) as f32]
        };
        let (lx, ly) = (sx.len() - 1, sy.len() - 1);
        let volume = ViewVolume {
            side: [
                plane(&sx, &cx, 0, -1.0),
                plane(&sx, &cx, lx, 1.0),
                plane(&sy, &cy, 0, -1.0),
                plane(&sy, &cy, ly, 1.0),
            ],
            near: near as f32,
            far: far as f32,
            rel: f32_at_least(PRE_CULL_SLACK * spread),
            abs: f32_at_least(PRE_CULL_SLACK * far + PRE_CULL_FLOOR),
        };
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

    /// The smallest f32 box containing froxel `(x, y, z)` (bounds rounded outwards; bounds
    /// beyond the f32 range saturate to `-f32::MAX` / `f32::MAX`).
    pub(super) fn cell_box(&self, [x, y, z]: [usize; 3]) -> Aabb {
        let (d0, d1) = (self.depth[z], self.depth[z + 1]);
        let lo = |s: f64| f32_down_mul(s, d0).min(f32_down_mul(s, d1));
        let hi = |s: f64| f32_up_mul(s, d0).max(f32_up_mul(s, d1));
        Aabb::new(
            [lo(self.sx[x]), lo(self.sy[y]), f32_down(-d1)],
            [hi(self.sx[x + 1]), hi(self.sy[y + 1]), f32_up(-d0)],
        )
    }

    /// Pushes into `out` every run of froxels `(x..x + n, y, z)` each light of chunks `chunks`
    /// (16 lights each) meets, numbered in `order`, lights ascending. The lights first go through the SIMD pre-cull
    /// against the whole view volume (`kernel/view_volume.rs`) on `backend`; the survivors
    /// join a short queue without a branch, and once [`QUEUE_AT`] or more are queued (up to 63)
    /// they are decided ([`for_each_hit`](Self::for_each_hit)) while their data is still in L1
    /// (deciding the survivors afterwards from a list of all of them costs cache misses on
    /// scattered lights: a quarter of the time on `many_lights`; deciding each chunk's
    /// survivors at once, a loop over its bits, left a mispredicted exit per chunk: 4% slower).
    pub(super) fn assign_chunks(
        &self,
        lights: &Spheres,
        chunks: core::ops::Range<usize>,
        backend: Backend,
        order: CellOrder,
        scratch: &mut Scratch,
        out: &mut impl RunSink,
    ) {
        let kernel = SpheresVsViewVolume {
            cols: lights.view().chunks(chunks.clone()),
            v: self.volume,
        };
        let decide = Decide {
            froxels: self,
            lights,
            offset: chunks.start * Chunk::LANES,
            order,
            scratch,
            out,
            queue: [0; QUEUE],
            queued: 0,
        };
        let _ = crate::kernel::run(backend, &kernel, decide);
    }

    /// The lights of `lights` that may meet some froxel, ascending: the SIMD pre-cull alone.
    #[cfg(test)]
    fn pre_cull(&self, lights: &Spheres, backend: Backend) -> Vec<u32> {
        let kernel = SpheresVsViewVolume {
            cols: lights.view(),
            v: self.volume,
        };
        crate::kernel::run(
            backend,
            &kernel,
            crate::query::sink::Indices::new(Vec::new()),
        )
        .finish()
    }

    /// The slices `k` with `depth[k] <= pd + rho` and `depth[k + 1] >= pd - rho` (those whose
    /// slab the sphere meets): the first through [`first_slice`](Self::first_slice), then a
    /// walk (the depths ascend, so the run is contiguous).
    #[inline]
    fn slice_run(&self, pd: f64, rho: f64) -> Run {
        let n = self.depth.len() - 1;
        let (lo, hi) = (pd - rho, pd + rho);
        let mut first = self.first_slice(lo);
        if first < n && self.depth[first] > hi {
            return Run { first, end: first };
        }
        let mut end = first;
        while end < n && self.depth[end] <= hi {
            end += 1;
        }
        first = first.min(end);
        Run { first, end }
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

    /// The cells of a light whose ball (radius `rho`) reaches few planes of the cell holding
    /// (or, clamped, nearest) its centre, as `hit` runs; `false` (and no run) for any other
    /// light. Three cases: the ball crosses at most one plane (below); two planes of different
    /// axes ([`by_an_edge`](Self::by_an_edge)); the centre is outside the grid, by one boundary
    /// plane ([`outside_the_grid`](Self::outside_the_grid)). No square root or search on this
    /// path, which most small lights take (`many_lights`: 7,389 of the 7,463 survivors of the
    /// pre-cull; indoor: 172 of 2,955).
    ///
    /// With `g` the centre's distances inside the six planes, all positive: if every `g > rho`
    /// the ball meets that cell only. If exactly one `g <= rho`, and the neighbour across that
    /// plane has its opposite plane farther than `rho` too (or lies at the grid's edge), the
    /// ball meets that neighbour and no other cell: the foot of the perpendicular from the
    /// centre onto the crossed plane is within `rho` of it, so inside the other five planes and
    /// the neighbour's opposite one, on the neighbour's face; and every other cell lies beyond
    /// one of those six planes. Without the neighbour's check a thin neighbour (a short slice,
    /// a flat one when `far <= 5`, an outer tile of a wide view) let the ball pass through into
    /// the cell beyond, which was not listed (found by the `lights` fuzz target; regression
    /// test in `tests/fuzz_regressions.rs`). Each distance is one the general path also
    /// evaluates, so the decision keeps the documented bounds (`rho` covers its rounding).
    #[inline(always)]
    fn few_cells(
        &self,
        [x, y, pd]: [f64; 3],
        rho: f64,
        hit: &mut LightCells<'_, impl RunSink>,
    ) -> bool {
        if pd <= 0.0 {
            return false;
        }
        let k = self.first_slice(pd);
        let slices = self.depth.len() - 1;
        // A ball as thick as its slice (most large lights) goes the general way before the
        // division and the tiles: without this exit, indoor frames (where 40 of 2,955 lights
        // end here) were 4-7% slower; with it, `many_lights` 1-2% slower than without.
        if k >= slices || 2.0 * rho >= self.depth[k + 1] - self.depth[k] {
            return false;
        }
        let inv_d = 1.0 / pd;
        let (i, j) = (self.tile(0, x * inv_d), self.tile(1, y * inv_d));
        let p = [x, y, pd];
        let g = [
            self.inside(p, 2, k, false),
            self.inside(p, 2, k + 1, true),
            self.inside(p, 0, i, false),
            self.inside(p, 0, i + 1, true),
            self.inside(p, 1, j, false),
            self.inside(p, 1, j + 1, true),
        ];
        let near = g
            .iter()
            .enumerate()
            .fold(0u32, |m, (b, &g)| m | u32::from(g <= rho) << b);
        let cell = [i, j, k];
        if !g.iter().all(|&g| g > 0.0) {
            return self.outside_the_grid(g, near, rho, cell, hit);
        }
        if near == 0 {
            hit.run(cell_u32(cell), 1);
            return true;
        }
        // The planes crossed: plane `b` (depth below, above; x below, above; y below, above)
        // of the cell.
        let b = near.trailing_zeros() as usize;
        let rest = near & (near - 1);
        let Some(n) = self.neighbour(p, rho, cell, b, rest != 0) else {
            return false;
        };
        if rest == 0 {
            match n {
                // No neighbour at the grid's edge: the cell alone.
                None => hit.run(cell_u32(cell), 1),
                // Along x the two cells make one run.
                Some(n) if n[0] != i => hit.run(cell_u32([i.min(n[0]), j, k]), 2),
                // Two runs (a light's runs may come in any order: each cell lists it once).
                Some(n) => {
                    hit.run(cell_u32(cell), 1);
                    hit.run(cell_u32(n), 1);
                }
            }
            return true;
        }
        let b2 = rest.trailing_zeros() as usize;
        if rest & (rest - 1) != 0 || b / 2 == b2 / 2 {
            // Three planes, or both planes of one axis (a cell thinner than the ball).
            return false;
        }
        let Some(n2) = self.neighbour(p, rho, cell, b2, true) else {
            return false;
        };
        self.by_an_edge(rho, cell, [b, b2], [g[b], g[b2]], [n, n2], hit)
    }

    /// The end of [`few_cells`](Self::few_cells) for a centre on or outside a plane of its
    /// cell `cell` (`g` the six distances, `near` the mask of those at most `rho`): when that
    /// is one of the grid's boundary planes (the tile or slice was clamped) and the ball
    /// reaches no other plane of the cell, the ball meets that cell alone, iff it reaches the
    /// boundary plane (the foot of the perpendicular lies inside the other five), or nothing.
    /// Anything else (beyond an inner plane by rounding, or near another plane) is not settled
    /// (`false`, no run).
    #[inline(always)]
    fn outside_the_grid(
        &self,
        g: [f64; 6],
        near: u32,
        rho: f64,
        cell: [usize; 3],
        hit: &mut LightCells<'_, impl RunSink>,
    ) -> bool {
        let b = near.trailing_zeros() as usize;
        // `near` holds every plane the centre is on or beyond: this one alone.
        if near & (near - 1) != 0 || !self.at_grid_edge(cell, b) || g[b] > 0.0 {
            return false;
        }
        if -g[b] <= rho {
            hit.run(cell_u32(cell), 1);
        }
        true
    }

    /// Whether plane `b` of `cell` (as in [`few_cells`](Self::few_cells)) is a boundary plane
    /// of the grid, with no cell across it.
    #[inline(always)]
    fn at_grid_edge(&self, cell: [usize; 3], b: usize) -> bool {
        let (a, up) = (CELL_AXIS[b], b % 2 == 1);
        if up {
            cell[a] + 1 == self.dims[a] as usize
        } else {
            cell[a] == 0
        }
    }

    /// The neighbour of `cell` across its plane `b` (see [`few_cells`](Self::few_cells)):
    /// `Some(None)` at the grid's edge, where there is none; `None` if the ball (centre `p`,
    /// radius `rho`) reaches the neighbour's opposite plane too (a thin neighbour, a short slice
    /// or an outer tile of a wide view, would let it meet the cell beyond). With
    /// `boundary_too` the neighbour's opposite plane is checked even where it is the grid's
    /// boundary: [`by_an_edge`](Self::by_an_edge) needs the whole ball inside it (the foot on
    /// one plane may lie beyond the other neighbour's far side, outside the grid).
    #[inline(always)]
    fn neighbour(
        &self,
        p: [f64; 3],
        rho: f64,
        cell: [usize; 3],
        b: usize,
        boundary_too: bool,
    ) -> Option<Option<[usize; 3]>> {
        if self.at_grid_edge(cell, b) {
            return Some(None);
        }
        let (a, up) = (CELL_AXIS[b], b % 2 == 1);
        let (c, len) = (cell[a], self.dims[a] as usize);
        let beyond = if up {
            (boundary_too || c + 2 < len).then_some((c + 2, true))
        } else {
            (boundary_too || c > 1).then_some((c - 1, false))
        };
        if let Some((q, upper)) = beyond
            && self.inside(p, a, q, upper) <= rho
        {
            return None;
        }
        let mut n = cell;
        n[a] = if up { c + 1 } else { c - 1 };
        Some(Some(n))
    }

    /// The end of [`few_cells`](Self::few_cells) for a ball that crosses two planes of its
    /// cell `c`, `b` (along two different axes) at distances `g` (the neighbours across them,
    /// `n`, checked as [`neighbour`](Self::neighbour) does with `boundary_too`; `None` at the
    /// grid's edge); `false` (and no run) when the planes are too close to parallel for the
    /// formula's rounding.
    ///
    /// Every point of the ball lies inside the cell's other four planes and the neighbours'
    /// opposite planes (checked even where one is the grid's boundary: the first version
    /// skipped that, as the one-plane case may, and listed the cell across both from a foot
    /// outside the grid, up to half again farther than `r`; found by review, regression test
    /// `by_an_edge_with_a_neighbour_at_the_grid_boundary`), so the ball meets `c`, the two
    /// neighbours `n1`, `n2` and the cell `d` across both, and nothing else; and each of the
    /// last three only where the ball meets the wedge of two half-spaces that holds it near the
    /// edge: with `cb` the cosine between the planes' unit normals (pointing into `c`), the
    /// distance from the centre to `n1`'s wedge (beyond plane 1, inside plane 2) is `g1` when
    /// the foot of the perpendicular onto plane 1 is inside plane 2 (`g1 cb <= g2`), else the
    /// distance to the planes' common line, `sqrt((g1^2 + g2^2 - 2 cb g1 g2) / (1 - cb^2))`;
    /// to `d`'s wedge (beyond both) `g1` when `g2 <= cb g1`, `g2` when `g1 <= cb g2`, else the
    /// same line distance (as [`Cell::beyond_an_edge`]). `g1`, `g2 <= rho`, so only the line
    /// can be too far. The comparison's error, as a distance, is of the order of ten units of
    /// `2^-52 (|p|_1 + rho)` divided by `1 - cb^2`: planes within about 14.5 degrees of
    /// parallel (`cb^2 > 15/16`, a side plane against a depth plane past slope 3.9, views wider
    /// than about 150 degrees) go the general way, and elsewhere it stays under about `2^-44` of
    /// that scale, a sixteenth of the slack `rho - r`.
    #[inline(always)]
    fn by_an_edge(
        &self,
        rho: f64,
        c: [usize; 3],
        [b1, b2]: [usize; 2],
        [g1, g2]: [f64; 2],
        [n1, n2]: [Option<[usize; 3]>; 2],
        hit: &mut LightCells<'_, impl RunSink>,
    ) -> bool {
        let (m1, m2) = (self.normal(c, b1), self.normal(c, b2));
        let cb = m1[0] * m2[0] + m1[1] * m2[1] + m1[2] * m2[2];
        if 1.0 - cb * cb < 1.0 / 16.0 {
            return false;
        }
        let line = near_the_line(g1, g2, cb, rho * rho);
        let met1 = n1.is_some() && (g1 * cb <= g2 || line);
        let met2 = n2.is_some() && (g2 * cb <= g1 || line);
        let met_d = n1.is_some() && n2.is_some() && (g2 <= cb * g1 || g1 <= cb * g2 || line);
        let (a1, a2) = (CELL_AXIS[b1], CELL_AXIS[b2]);
        let (n1, n2) = (n1.unwrap_or(c), n2.unwrap_or(c));
        let mut d = c;
        (d[a1], d[a2]) = (n1[a1], n2[a2]);
        if a1 == 0 {
            // Along x: the cell and `n1` make one run, `n2` and `d` another.
            pair_along_x(hit, [c, n1], [true, met1]);
            pair_along_x(hit, [n2, d], [met2, met_d]);
        } else if a2 == 0 {
            pair_along_x(hit, [c, n2], [true, met2]);
            pair_along_x(hit, [n1, d], [met1, met_d]);
        } else {
            for (cell, met) in [(c, true), (n1, met1), (n2, met2), (d, met_d)] {
                if met {
                    hit.run(cell_u32(cell), 1);
                }
            }
        }
        true
    }

    /// The unit normal of plane `b` of cell `c` (as in [`few_cells`](Self::few_cells)),
    /// pointing into the cell, in `(x, y, depth)`: the gradient of [`inside`](Self::inside).
    #[inline(always)]
    fn normal(&self, c: [usize; 3], b: usize) -> [f64; 3] {
        let (a, upper) = (CELL_AXIS[b], b % 2 == 1);
        let q = c[a] + usize::from(upper);
        let sign = if upper { -1.0 } else { 1.0 };
        match a {
            0 => [sign * self.cx[q], 0.0, -sign * (self.sx[q] * self.cx[q])],
            1 => [0.0, sign * self.cy[q], -sign * (self.sy[q] * self.cy[q])],
            _ => [0.0, 0.0, sign],
        }
    }

    /// The distance from the centre `p = (x, y, depth)` inside plane `q` of cell axis `a` (0:
    /// the tile slopes `sx`, 1: the row slopes `sy`, 2: the depths): positive on the side of
    /// the cells the plane bounds from above if `upper`, from below otherwise. For a side plane
    /// `u = s_q d` that is `(s_q d - u) c_q` or `(u - s_q d) c_q` (`c_q = 1 / sqrt(1 + s_q^2)`,
    /// so a Euclidean distance), for a depth plane `depth_q - d` or `d - depth_q`.
    #[inline(always)]
    fn inside(&self, [x, y, pd]: [f64; 3], a: usize, q: usize, upper: bool) -> f64 {
        let (u, s, c) = match a {
            0 => (x, &self.sx, &self.cx),
            1 => (y, &self.sy, &self.cy),
            _ if upper => return self.depth[q] - pd,
            _ => return pd - self.depth[q],
        };
        if upper {
            (s[q] * pd - u) * c[q]
        } else {
            (u - s[q] * pd) * c[q]
        }
    }

    /// The hits of a light centred in front of the eye (`pd > 0`), `z` its slices.
    ///
    /// Within one slice and one row, the part of the ball inside the row (a convex set, so
    /// connected) meets a contiguous run of tiles (`x / d` is continuous on it). A superset of
    /// that run comes from the ball's extent: every point `(x', y', t)` of it has
    /// `t in [t0, t1]` (the ball's depths within the slice) and
    /// `(x' - x)^2 <= rho^2 - ez^2 - ey^2`, with `ez` the centre's distance to the slice and `ey`
    /// its `y` distance to the row's bounding box over `[t0, t1]`; so `x' / t` lies between the
    /// extreme quotients of `x' = x -+ sqrt(...)` over `t0` and `t1`. Exact tests then move the
    /// run's two ends in to the first and last tiles met; the tiles between are met and listed
    /// without a test. Rows come from the same bound one axis up. Ends are decided by
    /// [`met`](Self::met); the bounds hold with `rho = r + tau`, so a tile really within `r`
    /// of the light is inside them by a margin of order `tau`, far above their rounding.
    ///
    /// The rows of a slice go through [`rows`](Self::rows) `W::N` at a time (four on AVX2 and
    /// AVX-512): their planes, bounds and the first, cheap, accept test at both ends. Only the
    /// rows whose ends that test does not settle (about a third on the indoor scene) run the rest
    /// of [`met`](Self::met) one tile at a time.
    ///
    /// The work is done in three passes, each over the whole light: every slice's
    /// [`SliceRows`] and candidate rows, then every batch of rows through `rows`, then the
    /// decisions and runs ([`decide_batch`](Self::decide_batch)), in slice and row order. Each
    /// slice's chain of dependent operations (a division, a square root, then `rows`' own chain
    /// through a square root and the tile gathers) is long and the deciding loop's branches are
    /// hard to predict; computed one slice after another with the decisions in between, the
    /// chains ran one at a time, and batched they overlap (indoor frames 15-19% faster;
    /// `docs/benchmarks.md`). Planning several lights ahead the same way was slower.
    #[inline(always)]
    fn hits_in_front<W: Lanes64>(
        &self,
        [x, y, pd]: [f64; 3],
        rho: f64,
        z: Run,
        s: &mut Scratch,
        hit: &mut LightCells<'_, impl RunSink>,
    ) {
        s.slices.clear();
        s.rows.clear();
        for k in z.first..z.end {
            if let Some(slice) = self.slice_rows([x, y, pd], rho, k) {
                let (jlo, jhi) = self.tile_span(1, y, slice.w.sqrt(), slice.r[0], slice.r[1]);
                s.slices.push(SliceSpan {
                    k: k as u32,
                    jlo: jlo as u32,
                    jhi: jhi as u32,
                    slice,
                });
            }
        }
        if let [sl] = &s.slices[..] {
            // One slice (most small lights): no other chain to overlap with, so its batches
            // go straight to their decisions (3-4% faster `many_lights` frames).
            let mut j = sl.jlo as usize;
            while j <= sl.jhi as usize {
                let lanes = self.rows::<W>(&sl.slice, j);
                self.decide_batch::<W>([x, y, pd], rho, sl, j, &lanes, hit);
                j += W::N;
            }
            return;
        }
        for (si, sl) in s.slices.iter().enumerate() {
            let mut j = sl.jlo as usize;
            while j <= sl.jhi as usize {
                s.rows.push(RowBatch {
                    si: si as u32,
                    j: j as u32,
                    lanes: self.rows::<W>(&sl.slice, j),
                });
                j += W::N;
            }
        }
        for rb in &s.rows {
            let sl = &s.slices[rb.si as usize];
            self.decide_batch::<W>([x, y, pd], rho, sl, rb.j as usize, &rb.lanes, hit);
        }
    }

    /// The decisions and runs of rows `j .. j + W::N` of slice `sl` (lanes past its last
    /// candidate row ignored), whose [`rows`](Self::rows) are `rows`, for the light centred at
    /// `(x, y, pd)` with radius `rho`: each row's run of candidate tiles, its ends moved in by
    /// [`met`](Self::met) unless the cheap accept test took them.
    #[inline(always)]
    fn decide_batch<W: Lanes64>(
        &self,
        [x, y, pd]: [f64; 3],
        rho: f64,
        sl: &SliceSpan,
        j: usize,
        rows: &RowLanes,
        hit: &mut LightCells<'_, impl RunSink>,
    ) {
        let k = sl.k as usize;
        let SliceRows { t, ez2, rho2, .. } = sl.slice;
        let (d0, d1) = (self.depth[k], self.depth[k + 1]);
        let live = (sl.jhi as usize + 1 - j).min(W::N);
        let mut ok = rows.ok & ((1 << live) - 1);
        while ok != 0 {
            let lane = ok.trailing_zeros() as usize;
            ok &= ok - 1;
            let row_j = j + lane;
            let (mut ilo, mut ihi) = (rows.ilo[lane] as usize, rows.ihi[lane] as usize);
            let (acc_lo, acc_hi) = (rows.acc_lo >> lane & 1, rows.acc_hi >> lane & 1);
            if acc_lo & acc_hi == 0 {
                let row = self.row([x, y, pd], row_j, [t, ez2], [d0, d1], [rho, rho2], true);
                let at = |i: usize| self.met(&row, i);
                if acc_lo == 0 {
                    while ilo <= ihi && !at(ilo) {
                        ilo += 1;
                    }
                    if ilo > ihi {
                        continue;
                    }
                }
                if acc_hi == 0 {
                    while ihi > ilo && !at(ihi) {
                        ihi -= 1;
                    }
                }
            }
            hit.run([ilo as u32, row_j as u32, k as u32], (ihi + 1 - ilo) as u32);
        }
    }

    /// What the rows of slice `k` share, for a light centred at `(x, y, pd)`, `pd > 0`, with
    /// radius `rho`; `None` if the ball misses the slice's slab.
    #[inline(always)]
    fn slice_rows(&self, [x, y, pd]: [f64; 3], rho: f64, k: usize) -> Option<SliceRows> {
        let rho2 = rho * rho;
        let (d0, d1) = (self.depth[k], self.depth[k + 1]);
        // The depth of the cross-section nearest the centre, and the distance to it.
        let t = pd.clamp_to(d0, d1);
        let ez = t - pd;
        let ez2 = ez * ez;
        let w = rho2 - ez2;
        if w < 0.0 {
            return None;
        }
        // The ball's depths within the slice (positive: `d0 >= near > 0`).
        let t0 = d0.at_least(pd - rho);
        let t1 = d1.at_most(pd + rho).at_least(t0);
        Some(SliceRows {
            p: [x, y, pd],
            t,
            t0,
            t1,
            r: [1.0 / t0, 1.0 / t1],
            w,
            ez2,
            rho,
            rho2,
        })
    }

    /// Rows `j .. j + W::N` of a slice (lanes past the grid read padding and are ignored): the
    /// rows whose two planes and bounding box the ball meets (`ok`), each one's candidate tiles
    /// `ilo ..= ihi` (see [`hits_in_front`](Self::hits_in_front)), and whether the first,
    /// cheap, accept test of [`met`](Self::met) takes each end. The same operations in the same
    /// order as that scalar code, lane by lane.
    #[inline(always)]
    fn rows<W: Lanes64>(&self, s: &SliceRows, j: usize) -> RowLanes {
        // No array `map` here or below: its closure can be left out of line (a call per use).
        let [x, y, pd] = [W::splat(s.p[0]), W::splat(s.p[1]), W::splat(s.p[2])];
        let (t, t0, t1) = (W::splat(s.t), W::splat(s.t0), W::splat(s.t1));
        let (r0, r1) = (W::splat(s.r[0]), W::splat(s.r[1]));
        let zero = W::splat(0.0);
        let (b0, b1) = (W::load(&self.sy_lanes, j), W::load(&self.sy_lanes, j + 1));
        let (c0, c1) = (W::load(&self.cy_lanes, j), W::load(&self.cy_lanes, j + 1));
        // The ball beyond one of the row's planes through the eye misses the row.
        let rho = W::splat(s.rho);
        let fail =
            y.sub(b0.mul(pd)).mul(c0).lt(W::splat(-s.rho)) | rho.lt(y.sub(b1.mul(pd)).mul(c1));
        // The distance to the row's bounding box over the ball's depths, and the half-width of
        // the ball there.
        let ey = b0.mul(t0).min(b0.mul(t1)).sub(y);
        let ey = ey.max(y.sub(b1.mul(t0).max(b1.mul(t1)))).max(zero);
        let wx = W::splat(s.w).sub(ey.mul(ey));
        let empty = wx.lt(zero);
        let e = wx.max(zero).sqrt();
        // The candidate tiles (`tile_span`).
        let (xm, xp) = (x.sub(e), x.add(e));
        let lo = xm.mul(r0).min(xm.mul(r1));
        let hi = xp.mul(r0).max(xp.mul(r1));
        let (mut ilo, mut ihi) = ([0u32; 4], [0u32; 4]);
        self.tile_lanes(lo).trunc(&mut ilo);
        self.tile_lanes(hi).trunc(&mut ihi);
        // The accept test of `met` at both ends: the row's cross-section at depth `t`.
        let ec = b0.mul(t).sub(y).max(y.sub(b1.mul(t))).max(zero);
        let ey0 = ec.mul(ec);
        RowLanes {
            ok: !(fail | empty),
            acc_lo: self.accepts(s, x, t, ey0, &ilo),
            acc_hi: self.accepts(s, x, t, ey0, &ihi),
            ilo,
            ihi,
        }
    }

    /// [`tile`](Self::tile) along x, lane by lane, before the truncation.
    #[inline(always)]
    fn tile_lanes<W: Lanes64>(&self, s: W) -> W {
        let (ndc, half) = (W::splat(self.ndc[0]), W::splat(self.half[0]));
        let last = W::splat(f64::from(self.dims[0] - 1));
        s.mul(ndc).add(half).max(W::splat(0.0)).min(last)
    }

    /// The accept test of [`met`](Self::met) for tile `i[k]` of each lane's row:
    /// `(ez^2 + e^2) + ey^2 <= rho^2` at depth `t`, `ey0` holding `ey^2`.
    #[inline(always)]
    fn accepts<W: Lanes64>(&self, s: &SliceRows, x: W, t: W, ey0: W, i: &[u32; 4]) -> u32 {
        let a0 = W::gather(&self.sx, i);
        let a1 = W::gather(&self.sx, &[i[0] + 1, i[1] + 1, i[2] + 1, i[3] + 1]);
        let e = a0.mul(t).sub(x).max(x.sub(a1.mul(t))).max(W::splat(0.0));
        W::splat(s.ez2).add(e.mul(e)).add(ey0).le(W::splat(s.rho2))
    }

    /// Row `j` of the slice between depths `d`, as [`met`](Self::met) sees it from the light
    /// centred at `p = (x, y, depth)` with radius and square `[rho, rho2]`: `[t, ez2]` the depth
    /// of the slice's cross-section nearest the centre and its squared distance, `pass` whether
    /// the light passes the row's two planes.
    #[inline(always)]
    fn row(
        &self,
        p: [f64; 3],
        j: usize,
        [t, ez2]: [f64; 2],
        d: [f64; 2],
        [rho, rho2]: [f64; 2],
        pass: bool,
    ) -> Row {
        let (b0, b1) = (self.sy[j], self.sy[j + 1]);
        Row {
            p,
            t,
            ez2,
            ey: axis_distances(b0, b1, p[1], t, d[0], d[1]),
            b: [b0, b1],
            cb: [self.cy[j], self.cy[j + 1]],
            d,
            rho,
            rho2,
            pass,
        }
    }

    /// Whether the light meets cell `i` of `row`: accepted through the cell's point nearest
    /// the centre on the cross-section at depth `row.t` (the sum is [`Cell::h`] at `t` in its
    /// own order, `(ez^2 + ex^2) + ey^2`, one of `least`'s candidates, so it never lists what
    /// `least` would not); rejected by the row's planes (`row.pass`), either of the tile's side
    /// planes, the cell's bounding box, or two of its planes at once
    /// ([`Cell::beyond_an_edge`]); else decided by [`Cell::least`].
    #[inline(always)]
    fn met(&self, row: &Row, i: usize) -> bool {
        let [x, y, pd] = row.p;
        let (a0, a1) = (self.sx[i], self.sx[i + 1]);
        let e = (a0 * row.t - x).at_least(x - a1 * row.t).at_least(0.0);
        if (row.ez2 + e * e) + row.ey[0] <= row.rho2 {
            return true;
        }
        if !row.pass
            || (x - a0 * pd) * self.cx[i] < -row.rho
            || (x - a1 * pd) * self.cx[i + 1] > row.rho
        {
            return false;
        }
        let [d0, d1] = row.d;
        let [_, bx] = axis_distances(a0, a1, x, row.t, d0, d1);
        if (row.ez2 + bx) + row.ey[1] > row.rho2 {
            return false;
        }
        let cell = Cell {
            a: [a0, a1],
            b: row.b,
            d: row.d,
        };
        if cell.beyond_an_edge([x, y, pd], [self.cx[i], self.cx[i + 1]], row.cb, row.rho2) {
            return false;
        }
        cell.least([x, y, pd], row.rho2) <= row.rho2
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

    /// Calls `hit.run([x, y, z], n)` for every run of froxels `(x..x + n, y, z)` the sphere `(c, r)`
    /// meets (`n >= 1`; together, every froxel it meets, once), by the decision
    /// documented on [`ClusterGrid::froxels`](super::ClusterGrid::froxels).
    ///
    /// The plane tests are separable: a cell passes its six iff its column passes its two side
    /// planes, its row its two and its slice its two depths, so the candidates are the product
    /// of three runs, found with `dims[0] + dims[1] + 2` plane distances and two binary
    /// searches. Per slice, each candidate column and row gets two squared distances along its
    /// axis, so per cell two sums settle almost every case: an *accept* through a point of the
    /// cell (the cross-section at the depth nearest the centre, clamped), and a *reject*
    /// through the cell's bounding box. Only cells between the two run the exact distance.
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
        let Some(xr) = side_run(&self.sx, &self.cx, x, p[2], rho, None) else {
            return;
        };
        let Some(yr) = side_run(&self.sy, &self.cy, y, p[2], rho, Some(&mut s.pass_y)) else {
            return;
        };
        // Every cell of the runs' product, by the same decision as the ends of a row in front.
        let rho2 = rho * rho;
        for k in z.first..z.end {
            let (d0, d1) = (self.depth[k], self.depth[k + 1]);
            // The depth of the cross-section nearest the centre, and the distance to it.
            let t = pd.clamp_to(d0, d1);
            let ez = t - pd;
            for j in yr.first..yr.end {
                let pass = s.pass_y[j - yr.first];
                let row = self.row([x, y, pd], j, [t, ez * ez], [d0, d1], [rho, rho2], pass);
                for i in xr.first..xr.end {
                    if self.met(&row, i) {
                        hit.run([i as u32, j as u32, k as u32], 1);
                    }
                }
            }
        }
    }
}

/// Per-light scratch of [`Froxels::for_each_hit`], reused across lights.
#[derive(Default)]
pub(super) struct Scratch {
    /// Per candidate row of a light at or behind the eye: whether the light meets both its side
    /// half-spaces (columns test theirs in [`Froxels::met`]).
    pass_y: Vec<bool>,
    /// A light in front of the eye's slices ([`Froxels::hits_in_front`]'s first pass).
    slices: Vec<SliceSpan>,
    /// Its batches of rows (the second pass).
    rows: Vec<RowBatch>,
}

/// One slice of a light in front of the eye: slice `k`, what its rows share, and its candidate
/// rows `jlo ..= jhi`.
struct SliceSpan {
    k: u32,
    jlo: u32,
    jhi: u32,
    slice: SliceRows,
}

/// Rows `j .. j + W::N` of slice `si` of [`Scratch::slices`], as [`Froxels::rows`] sees them.
struct RowBatch {
    si: u32,
    j: u32,
    lanes: RowLanes,
}

/// The cell axis (0: x, 1: y, 2: depth) of each of a froxel's six planes in the order of
/// [`Froxels::few_cells`]: depth below, above; x below, above; y below, above.
const CELL_AXIS: [usize; 6] = [2, 2, 0, 0, 1, 1];

/// Runs for two cells `c[0]`, `c[1]` next to each other along x, each if `met` says so.
#[inline(always)]
fn pair_along_x(hit: &mut LightCells<'_, impl RunSink>, c: [[usize; 3]; 2], met: [bool; 2]) {
    match met {
        [true, true] => hit.run(cell_u32([c[0][0].min(c[1][0]), c[0][1], c[0][2]]), 2),
        [true, false] => hit.run(cell_u32(c[0]), 1),
        [false, true] => hit.run(cell_u32(c[1]), 1),
        [false, false] => {}
    }
}

/// Whether a point at distances `g1`, `g2` from two planes whose unit normals have cosine `c`
/// (`|c| < 1`) lies within `sqrt(rho2)` of the planes' common line:
/// `g1^2 + g2^2 - 2 c g1 g2 <= rho2 (1 - c^2)`, the squared distance times `1 - c^2`, without
/// a division ([`Cell::beyond_an_edge`], [`Froxels::by_an_edge`]).
#[inline(always)]
fn near_the_line(g1: f64, g2: f64, c: f64, rho2: f64) -> bool {
    g1 * g1 + g2 * g2 - 2.0 * c * g1 * g2 <= rho2 * (1.0 - c * c)
}

/// A cell's coordinates as the runs take them.
#[inline(always)]
fn cell_u32([i, j, k]: [usize; 3]) -> [u32; 3] {
    [i as u32, j as u32, k as u32]
}

/// The candidate columns (or rows) of a light centred at or behind the eye: the run from the
/// first to the last tile whose two side half-spaces the sphere meets within `rho`. Plane
/// `u = s d` (u the axis coordinate, `d = -z`) has signed distance `g = (u + s z) / sqrt(1 + s^2)`
/// from the centre (`inv[i]` holds `1 / sqrt(1 + s_i^2)`), positive on the side of larger `u / d`;
/// tile `i` needs `g_i >= -rho` for its lower plane and `g_(i+1) <= rho` for its upper one. The
/// distance is not monotone in the slope there, so every boundary is evaluated, and `pass`
/// records, if given, per tile of the run whether it passed.
fn side_run(
    s: &[f64],
    inv: &[f64],
    u: f64,
    z: f64,
    rho: f64,
    pass: Option<&mut Vec<bool>>,
) -> Option<Run> {
    let g = |i: usize| (u + s[i] * z) * inv[i];
    let tiles = s.len() - 1;
    let ok = |i: usize| g(i) >= -rho && g(i + 1) <= rho;
    let first = (0..tiles).find(|&i| ok(i))?;
    let last = (first..tiles).rev().find(|&i| ok(i))?;
    if let Some(pass) = pass {
        pass.clear();
        pass.extend((first..=last).map(ok));
    }
    Some(Run {
        first,
        end: last + 1,
    })
}

/// The sink of the pre-cull in [`Froxels::assign_chunks`]: decides each surviving light on the
/// pre-cull's tier, `W` its f64 lanes.
struct Decide<'a, O> {
    froxels: &'a Froxels,
    lights: &'a Spheres,
    /// The index of the first light of the chunks.
    offset: usize,
    /// How the grid numbers its cells.
    order: CellOrder,
    scratch: &'a mut Scratch,
    out: &'a mut O,
    /// The survivors not yet decided (indices from `offset`), ascending.
    queue: [u32; QUEUE],
    queued: usize,
}

/// Room for [`QUEUE_AT`] survivors and one more chunk's 16.
const QUEUE: usize = QUEUE_AT + 16;

/// The survivors queued before they are decided: few enough that their data, read by the
/// pre-cull a moment before, is still in L1.
const QUEUE_AT: usize = 48;

/// `SET_LANES[m]`: the positions of the set bits of `m`, ascending, then zeros: the index
/// writers' left-pack table ([`left_pack_table`]) as bytes.
static SET_LANES: [[u8; 8]; 256] = {
    let packed = left_pack_table::<256>();
    let mut t = [[0u8; 8]; 256];
    let mut m = 0;
    while m < 256 {
        t[m] = packed[m].to_le_bytes();
        m += 1;
    }
    t
};

impl<O: RunSink> Decide<'_, O> {
    /// Decides the queued survivors, in order, and empties the queue.
    #[inline(always)]
    fn decide_queued<W: Lanes64>(&mut self) {
        for q in 0..self.queued {
            let l = self.offset + self.queue[q] as usize;
            let light = self.lights.get(l).expect("a survivor is a light");
            let mut hit = LightCells {
                out: &mut *self.out,
                dims: self.froxels.dims,
                order: self.order,
                light: l as u32,
            };
            self.froxels
                .for_each_hit::<W>(light.center, light.radius, self.scratch, &mut hit);
        }
        self.queued = 0;
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

impl<O: RunSink> Sink for Decide<'_, O> {
    #[inline(always)]
    fn push<V: Lanes>(&mut self, base: u32, bits: u32) -> bool {
        // The survivors join the queue without a branch per chunk or light: eight slots
        // written per half chunk from a table, the count advanced by the survivors'.
        for (h, half) in [bits & 0xff, bits >> 8 & 0xff].into_iter().enumerate() {
            let at = self.queued;
            let lanes = &SET_LANES[half as usize];
            for (slot, &lane) in self.queue[at..at + 8].iter_mut().zip(lanes) {
                *slot = base + 8 * h as u32 + u32::from(lane);
            }
            self.queued = at + half.count_ones() as usize;
        }
        if self.queued >= QUEUE_AT {
            self.decide_queued::<V::F64>();
        }
        false
    }

    #[inline(always)]
    fn finish<V: Lanes>(&mut self) {
        self.decide_queued::<V::F64>();
    }
}

/// What the rows of one slice share, as [`Froxels::rows`] sees them from one light.
#[derive(Clone, Copy, Debug)]
struct SliceRows {
    /// The light's centre `(x, y, depth)`.
    p: [f64; 3],
    /// The depth of the slice's cross-section nearest the centre, and the ball's depths within
    /// the slice.
    t: f64,
    t0: f64,
    t1: f64,
    /// `1 / t0`, `1 / t1`.
    r: [f64; 2],
    /// `rho^2 - ez^2`.
    w: f64,
    /// `(t - depth)^2`.
    ez2: f64,
    /// The light's radius with the slack, and its square.
    rho: f64,
    rho2: f64,
}

/// [`Froxels::rows`]' answer for `W::N` rows: bit `k` of each mask is row `j + k`'s.
struct RowLanes {
    /// The ball meets the row's two planes and its bounding box.
    ok: u32,
    /// The cheap accept test takes tile `ilo[k]`, tile `ihi[k]`.
    acc_lo: u32,
    acc_hi: u32,
    /// The first and last candidate tile.
    ilo: [u32; 4],
    ihi: [u32; 4],
}

/// One row of one slice, as [`Froxels::met`] sees it from one light.
struct Row {
    /// The light's centre `(x, y, depth)`.
    p: [f64; 3],
    /// The depth of the slice's cross-section nearest the centre.
    t: f64,
    /// `(t - depth)^2`.
    ez2: f64,
    /// The row's [`axis_distances`].
    ey: [f64; 2],
    /// The row's slopes.
    b: [f64; 2],
    /// The slice's depths.
    d: [f64; 2],
    /// The light's radius with the slack, and its square.
    rho: f64,
    rho2: f64,
    /// `1 / sqrt(1 + s^2)` of the row's slopes.
    cb: [f64; 2],
    /// Whether the light passes the row's two planes (always, in front of the eye, where rows
    /// that fail are skipped before any test).
    pass: bool,
}

/// For the tile between slopes `a0 <= a1` along one axis (centre coordinate `u`) in the slice
/// `[d0, d1]`: the squared distances from `u` to the tile's cross-section at depth `t`
/// (`[a0 t, a1 t]`, computed as [`Cell::h`] does) and to the tile's bounding box over the slice.
#[inline(always)]
fn axis_distances(a0: f64, a1: f64, u: f64, t: f64, d0: f64, d1: f64) -> [f64; 2] {
    let e = (a0 * t - u).at_least(u - a1 * t).at_least(0.0);
    let lo = (a0 * d0).at_most(a0 * d1);
    let hi = (a1 * d0).at_least(a1 * d1);
    let b = (lo - u).at_least(u - hi).at_least(0.0);
    [e * e, b * b]
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
        let ex = (self.a[0] * t - x)
            .at_least(x - self.a[1] * t)
            .at_least(0.0);
        let ey = (self.b[0] * t - y)
            .at_least(y - self.b[1] * t)
            .at_least(0.0);
        let ez = t - pd;
        ez * ez + ex * ex + ey * ey
    }

    /// Whether the point `(x, y, depth)` is farther than `sqrt(rho2)` from the intersection of
    /// two of the cell's six half-spaces (so from the cell): per axis the plane the point is
    /// least inside of (signed distance `g`, positive outside; `cx`, `cy` hold
    /// `1 / sqrt(1 + s^2)` of the tile's and the row's slopes), and each pair of those three.
    /// The distance from a point to the intersection of two half-spaces with unit normals at
    /// cosine `c` (`|c| < 1`) is `g1` where `g2 <= c g1`, `g2` where `g1 <= c g2`, and else
    /// (then `g1 + g2 > 0`) the distance to their common line,
    /// `sqrt((g1^2 + g2^2 - 2 c g1 g2) / (1 - c^2))`. Only that last case can reject: `met`
    /// calls this after the single-plane tests, so `g1`, `g2 <= rho` up to rounding, and the
    /// formula is continuous across the cases. Rounding moves the computed distance by a few
    /// units of `2^-52 (|p|_1 + rho)`, far below the slack `rho - r`.
    ///
    /// On the indoor scene three in four of the cells that reach [`least`](Self::least)
    /// without this are rejected by it (the ball by an edge of the froxel: a side plane and a
    /// depth plane, or two side planes), each for a fraction of `least`'s divisions.
    #[inline(always)]
    fn beyond_an_edge(&self, [x, y, pd]: [f64; 3], cx: [f64; 2], cy: [f64; 2], rho2: f64) -> bool {
        let ([a0, a1], [b0, b1], [d0, d1]) = (self.a, self.b, self.d);
        // Per axis: the plane's `g` and the depth component of its unit normal in (x, y, d)
        // (the other components of two normals of different axes never meet in the product).
        let (gxl, gxh) = ((a0 * pd - x) * cx[0], (x - a1 * pd) * cx[1]);
        let (gx, nx) = if gxl > gxh {
            (gxl, a0 * cx[0])
        } else {
            (gxh, -(a1 * cx[1]))
        };
        let (gyl, gyh) = ((b0 * pd - y) * cy[0], (y - b1 * pd) * cy[1]);
        let (gy, ny) = if gyl > gyh {
            (gyl, b0 * cy[0])
        } else {
            (gyh, -(b1 * cy[1]))
        };
        let (gz, nz) = if d0 - pd > pd - d1 {
            (d0 - pd, -1.0)
        } else {
            (pd - d1, 1.0)
        };
        let far = |g1: f64, g2: f64, c: f64| {
            (g1 > c * g2) & (g2 > c * g1) & !near_the_line(g1, g2, c, rho2)
        };
        far(gx, gz, nx * nz) | far(gy, gz, ny * nz) | far(gx, gy, nx * ny)
    }

    /// The squared distance from `p` to the cell (the tests' entry to [`least`](Self::least)).
    #[cfg(test)]
    fn dist2(&self, p: [f64; 3]) -> f64 {
        self.least(p, -1.0)
    }

    /// The squared distance from the point `(x, y, depth)` to the cell: the minimum of `h(t)`
    /// over `t` in `[d0, d1]`. `h` is convex (a partial minimum of a convex function over a
    /// convex set), strictly, and continuously differentiable (each of `ex^2`, `ey^2` is the
    /// square of a ramp, zero with its derivative where it switches on). So its minimum over
    /// `[d0, d1]` is at an end or where `h' = 0`, and there `h` equals one of nine quadratics
    /// (each of `ex`, `ey` off, or on through its lower or its upper plane) with that
    /// quadratic's stationary point. The candidates are the ends and those points clamped to
    /// `[d0, d1]`; each is a point of the cell, so the smallest `h` among them is the distance.
    /// Only the quadratics active somewhere on `[d0, d1]` are tried: `x / t` is monotone in `t`
    /// (`t >= d0 > 0`), so `ex` is on through its lower plane, off, or on through its upper
    /// plane in that order or the reverse, and the states between those at `d0` and `d1` are
    /// the ones it takes (likewise `ey`). (A state missed by rounding at an end lasts for an
    /// ulp of `t`, where `h` is within rounding of its value at that end.)
    ///
    /// The candidates are taken in turn and the first one at most `enough` is returned at once
    /// (else the smallest of all), so `least(p, l) <= l` iff the distance squared is at most
    /// `l`: the end tests, which only need that answer, stop early when the light meets the
    /// cell; `enough < 0` gives the distance squared itself.
    fn least(&self, p: [f64; 3], enough: f64) -> f64 {
        let [x, y, pd] = p;
        let [d0, d1] = self.d;
        let mut best = self.h(p, d0).at_most(self.h(p, d1));
        if best <= enough {
            return best;
        }
        let (xs, ys) = (states(x, self.a, d0, d1), states(y, self.b, d0, d1));
        // The stationary point of (t - pd)^2 + sum (s t - u)^2 over the active terms.
        for sx in xs.0..=xs.1 {
            for sy in ys.0..=ys.1 {
                let (mut num, mut den) = (pd, 1.0);
                if sx != 1 {
                    let s = self.a[usize::from(sx / 2)];
                    num += s * x;
                    den += s * s;
                }
                if sy != 1 {
                    let s = self.b[usize::from(sy / 2)];
                    num += s * y;
                    den += s * s;
                }
                let t = num / den;
                if t.is_finite() {
                    best = best.at_most(self.h(p, t.clamp_to(d0, d1)));
                    if best <= enough {
                        return best;
                    }
                }
            }
        }
        best
    }
}

/// The states of one axis's term over depths `[d0, d1]`, as the range between those at the two
/// ends: 0 when `u < a[0] t` (on through the lower plane), 2 when `u > a[1] t` (the upper), 1
/// between (off).
#[inline]
fn states(u: f64, a: [f64; 2], d0: f64, d1: f64) -> (u8, u8) {
    let at = |t: f64| {
        if u < a[0] * t {
            0
        } else if u > a[1] * t {
            2
        } else {
            1
        }
    };
    let (s0, s1) = (at(d0), at(d1));
    (s0.min(s1), s0.max(s1))
}

/// `max`, `min` and `clamp` for values known not to be NaN: one compare-and-select each (the
/// NaN-aware `f64::max` takes several instructions on x86).
trait Ordered: Copy + PartialOrd {
    /// The larger of the two.
    #[inline(always)]
    fn at_least(self, o: Self) -> Self {
        if self > o { self } else { o }
    }
    /// The smaller of the two.
    #[inline(always)]
    fn at_most(self, o: Self) -> Self {
        if self < o { self } else { o }
    }
    /// Into `[lo, hi]` (`lo <= hi`).
    #[inline(always)]
    fn clamp_to(self, lo: Self, hi: Self) -> Self {
        self.at_least(lo).at_most(hi)
    }
}

impl Ordered for f64 {}

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
fn f32_down_mul(s: f64, d: f64) -> f32 {
    let p = s * d;
    let f = f32_down(p);
    if f64::from(f) == p && s.mul_add(d, -p) < 0.0 {
        f.next_down().max(-f32::MAX)
    } else {
        f
    }
}

/// The smallest f32 at least the real product `s d`, as [`f32_down_mul`].
fn f32_up_mul(s: f64, d: f64) -> f32 {
    let p = s * d;
    let f = f32_up(p);
    if f64::from(f) == p && s.mul_add(d, -p) > 0.0 {
        f.next_up().min(f32::MAX)
    } else {
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cull::runs::CellRuns;

    /// Products whose f64 rounding lands on an f32 from beyond it step one f32 further out
    /// (`cell_box` rounded the f64 product, and a froxel's box left out a sliver of it).
    #[test]
    fn products_round_outwards_past_an_f32_they_round_onto() {
        let (a, b) = (1.0 + 2f64.powi(-30), 1.0 - 2f64.powi(-30));
        // a b = 1 - 2^-60, rounded to 1.0 in f64.
        assert_eq!(a * b, 1.0);
        assert_eq!(f32_down_mul(a, b), 1.0f32.next_down());
        assert_eq!(f32_up_mul(a, b), 1.0);
        assert_eq!(f32_up_mul(-a, b), (-1.0f32).next_up());
        assert_eq!(f32_down_mul(-a, b), -1.0);
        // Exact products and products off the f32 grid are rounded once.
        assert_eq!(f32_down_mul(0.5, 3.0), 1.5);
        assert_eq!(f32_up_mul(0.5, 3.0), 1.5);
        assert_eq!(f32_down_mul(0.1, 3.0), f32_at_most(0.1 * 3.0));
        assert_eq!(f32_up_mul(0.1, 3.0), f32_at_least(0.1 * 3.0));
        // Saturation.
        assert_eq!(f32_down_mul(-1e300, 1e10), -f32::MAX);
        assert_eq!(f32_up_mul(1e300, 1e10), f32::MAX);
    }
    use crate::lanes::scalar::F64x1;

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
    fn first_slice_equals_a_binary_search() {
        for (near, far, n) in [
            (0.1, 1000.0, 24),
            (0.5, 60.0, 1),
            (8.0, 9.0, 3),
            (1e-30, 3e38, 4000),
        ] {
            let f = Froxels::new(64, 32, 1.0, near, far, [4, 4, n]).unwrap();
            let mut probes: Vec<f64> = vec![-1.0, 0.0, f64::MIN_POSITIVE, 1e300, f64::INFINITY];
            for &d in &f.depth {
                probes.extend([d, d.next_down(), d.next_up(), d * 1.01, d * 0.99]);
            }
            let mut v = 1e-40f64;
            while v < 1e40 {
                probes.push(v);
                v *= 1.0137;
            }
            for lo in probes {
                let want = f.depth[1..].partition_point(|&v| v < lo);
                assert_eq!(f.first_slice(lo), want, "{near} {far} {n} {lo}");
            }
        }
    }

    /// `rows` on every tier (through `dispatch`, so the AVX2 lanes run inside their entry point)
    /// against the one-row instance: for every start row (tails included) and every live lane,
    /// the same plane verdict, candidate tiles and accept bits as the scalar code gives that
    /// row, on random and adversarial lights (huge and tiny magnitudes, zero radius, centres on
    /// planes).
    #[test]
    fn rows_are_the_same_on_every_tier() {
        use crate::lanes::Lanes;
        use rand_xoshiro::Xoshiro256PlusPlus;
        use rand_xoshiro::rand_core::{Rng, SeedableRng};

        /// `(slice, row)` -> `[ok, acc_lo, acc_hi, ilo, ihi]` for every start row and live lane.
        struct AllRows<'a> {
            f: &'a Froxels,
            slices: &'a [SliceRows],
            out: Vec<(usize, usize, [u32; 5])>,
        }
        impl crate::lanes::WithLanes for &mut AllRows<'_> {
            type Output = ();
            fn run<V: Lanes>(self) {
                let n = self.f.dims[1] as usize;
                for (i, s) in self.slices.iter().enumerate() {
                    for j in 0..n {
                        let r = self.f.rows::<V::F64>(s, j);
                        for k in 0..(n - j).min(<V::F64 as Lanes64>::N) {
                            let bits = [r.ok, r.acc_lo, r.acc_hi].map(|b| b >> k & 1);
                            let row = [bits[0], bits[1], bits[2], r.ilo[k], r.ihi[k]];
                            self.out.push((i, j + k, row));
                        }
                    }
                }
            }
        }

        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x005e_ed0f_7065);
        let mut unit = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        for (ci, (near, far, dims)) in [
            (0.1, 60.0, [16, 9, 24]),
            (0.5, 1e4, [7, 13, 5]),
            (1e-3, 3e38, [3, 1, 40]),
        ]
        .into_iter()
        .enumerate()
        {
            let f = Froxels::new(1920, 1080, 1.0, near, far, dims).unwrap();
            let mut slices = Vec::new();
            for i in 0..300 {
                let scale = [1e-3, 1.0, 60.0, 1e5, 3e38][i % 5];
                let pd = (unit() * scale).max(f64::MIN_POSITIVE);
                let mut x = (unit() * 2.0 - 1.0) * scale;
                let y = (unit() * 2.0 - 1.0) * scale;
                if i % 7 == 0 {
                    x = f.sx[i % f.sx.len()] * pd;
                }
                let r = [0.0, unit() * 1e-6 * scale, unit() * scale][i % 3];
                for k in 0..dims[2] as usize {
                    slices.extend(f.slice_rows([x, y, pd], r, k));
                }
            }
            let mut want = Vec::new();
            for (i, s) in slices.iter().enumerate() {
                for j in 0..dims[1] as usize {
                    let r = f.rows::<F64x1>(s, j);
                    want.push((
                        i,
                        j,
                        [r.ok & 1, r.acc_lo & 1, r.acc_hi & 1, r.ilo[0], r.ihi[0]],
                    ));
                }
            }
            for &b in Backend::available() {
                let mut all = AllRows {
                    f: &f,
                    slices: &slices,
                    out: Vec::new(),
                };
                crate::lanes::dispatch(b, &mut all);
                for (i, row, got) in all.out {
                    let (_, _, w) = want[i * dims[1] as usize + row];
                    assert_eq!(
                        got, w,
                        "camera {ci}, {b:?}, slice {:?}, row {row}",
                        slices[i]
                    );
                }
            }
        }
    }

    /// The SIMD pre-cull on every backend, every length 0..=67 and adversarial lights: the same
    /// survivors on every tier, and never a light the exact decision lists somewhere.
    #[test]
    fn pre_cull_is_a_superset_and_the_same_on_every_backend() {
        use crate::{Backend, Sphere};
        use rand_xoshiro::Xoshiro256PlusPlus;
        use rand_xoshiro::rand_core::{Rng, SeedableRng};
        let cameras = [
            Froxels::new(1920, 1080, 0.8, 0.1, 50.0, [16, 9, 24]).unwrap(),
            Froxels::new(64, 64, 3.0, 1e-3, 1e6, [3, 5, 7]).unwrap(),
            Froxels::new(8, 2, 0.01, 10.0, 11.0, [1, 1, 1]).unwrap(),
        ];
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x0f00_11ed);
        let mut unit = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let mut scratch = Scratch::default();
        for (ci, f) in cameras.iter().enumerate() {
            for len in 0..=67usize {
                let lights: Vec<Sphere> = (0..len)
                    .map(|i| {
                        let scale = [1e-3, 1.0, 60.0, 1e5, 3e38][i % 5];
                        let mut c = [0; 3].map(|_| ((unit() * 2.0 - 1.0) * scale) as f32);
                        let r = match i % 7 {
                            0 => 0.0,
                            1 => (unit() * 1e-6) as f32,
                            _ => (unit() * scale * 0.3) as f32,
                        };
                        match i % 11 {
                            // On a side plane of the volume (x = s d), and on the near plane.
                            0 => {
                                let x = f.sx[0] * f64::from(-c[2]);
                                c[0] = x.clamp(-f64::from(f32::MAX), f64::from(f32::MAX)) as f32;
                            }
                            1 => c[2] = -(f.depth[0] as f32),
                            2 => c = [-0.0, 0.0, -0.0],
                            _ => {}
                        }
                        Sphere::new(c, r.min(Sphere::MAX_RADIUS))
                    })
                    .collect();
                let lights = Spheres::from_slice(&lights).unwrap();
                let scalar = f.pre_cull(&lights, Backend::Scalar);
                for &b in Backend::available() {
                    assert_eq!(
                        f.pre_cull(&lights, b),
                        scalar,
                        "camera {ci}, len {len}, {b:?}"
                    );
                }
                for (l, light) in lights.iter().enumerate() {
                    let mut runs = CellRuns::default();
                    let mut one = LightCells {
                        out: &mut runs,
                        dims: f.dims,
                        order: CellOrder::default(),
                        light: l as u32,
                    };
                    f.for_each_hit::<F64x1>(light.center, light.radius, &mut scratch, &mut one);
                    if !runs.runs().is_empty() {
                        assert!(
                            scalar.binary_search(&(l as u32)).is_ok(),
                            "camera {ci}, len {len}: light {l} {light:?} listed but pre-culled"
                        );
                    }
                }
            }
        }
    }

    /// `beyond_an_edge` never rejects a cell within `rho` of the point less the slack's order
    /// (`2^-40 (|p|_1 + rho)`), and does reject cells a little farther than `rho` by an edge:
    /// random cells of three cameras, points around them (behind the eye too) at every scale.
    #[test]
    fn beyond_an_edge_rejects_only_cells_farther_than_rho() {
        use rand_xoshiro::Xoshiro256PlusPlus;
        use rand_xoshiro::rand_core::{Rng, SeedableRng};
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x000e_d6e0_ff20);
        let mut unit = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let (mut rejected, mut tested) = (0, 0);
        for f in [
            Froxels::new(1920, 1080, 0.8, 0.1, 60.0, [16, 9, 24]).unwrap(),
            Froxels::new(64, 64, 3.0, 1e-3, 1e6, [3, 5, 7]).unwrap(),
            Froxels::new(8, 2, 0.01, 10.0, 11.0, [1, 1, 1]).unwrap(),
        ] {
            for n in 0..20_000 {
                let pick = |u: f64, len: usize| ((u * len as f64) as usize).min(len - 2);
                let (i, j, k) = (
                    pick(unit(), f.sx.len()),
                    pick(unit(), f.sy.len()),
                    pick(unit(), f.depth.len()),
                );
                let cell = Cell {
                    a: [f.sx[i], f.sx[i + 1]],
                    b: [f.sy[j], f.sy[j + 1]],
                    d: [f.depth[k], f.depth[k + 1]],
                };
                // A point around the cell's box, a tenth of the time behind the eye.
                let b = f.cell_box([i, j, k]);
                let around = |lo: f32, hi: f32, u: f64| {
                    let (lo, hi) = (f64::from(lo), f64::from(hi));
                    let w = hi - lo;
                    lo - w + 3.0 * w * u
                };
                let mut p = [
                    around(b.min[0], b.max[0], unit()),
                    around(b.min[1], b.max[1], unit()),
                    -around(b.min[2], b.max[2], unit()),
                ];
                if n % 10 == 0 {
                    p[2] = -p[2].abs() * unit();
                }
                let dist = cell.dist2(p).sqrt();
                let slack = (p[0].abs() + p[1].abs() + p[2].abs() + dist) / (1u64 << 40) as f64;
                let (cx, cy) = ([f.cx[i], f.cx[i + 1]], [f.cy[j], f.cy[j + 1]]);
                let rho = dist + slack;
                assert!(
                    !cell.beyond_an_edge(p, cx, cy, rho * rho),
                    "cell {i} {j} {k}, point {p:?} at {dist}, rho {rho}"
                );
                let rho = dist * (1.0 - 1e-6 * unit());
                tested += 1;
                rejected += usize::from(cell.beyond_an_edge(p, cx, cy, rho * rho));
            }
        }
        // Points just inside the distance are rejected often (not always: only by an edge).
        assert!(rejected * 4 > tested, "{rejected} of {tested}");
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
