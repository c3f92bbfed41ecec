//! The few-cells shortcut: a light whose ball reaches few planes of the cell holding its centre
//! is decided by that cell's plane distances alone.

use super::cell_distance::near_the_line;
use super::{Froxels, LightCells, cell_u32};
use crate::cull::runs::RunSink;

impl Froxels {
    /// The cells of a light whose ball (radius `rho`) reaches few planes of the cell holding
    /// (or, clamped, nearest) its centre, as `hit` runs; `false` (and no run) for any other
    /// light. Three cases: the ball crosses at most one plane, and the neighbour across it is
    /// not so thin that the ball passes through (below); two planes of different axes
    /// ([`by_an_edge`](Self::by_an_edge)); the centre is outside the grid, by one boundary plane
    /// ([`outside_the_grid`](Self::outside_the_grid)). Why each is exact, and the bugs the
    /// neighbour checks fixed: `docs/algorithms.md`, "Light assignment to froxels", step 2. No
    /// square root or search on this path, which most small lights take (`many_lights`: 7,389
    /// of the 7,463 survivors of the pre-cull; indoor: 172 of 2,955). Each distance is one the
    /// general path also evaluates, so the decision keeps the documented bounds.
    #[inline(always)]
    pub(super) fn few_cells(
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
    /// grid's edge); `false` (and no run) when the planes are within about 14.5 degrees of
    /// parallel (`cb^2 > 15/16`), too close for the formula's rounding. The ball meets `c`, the
    /// neighbours and the cell across both, each where it reaches that cell's wedge of two
    /// half-spaces (the distance to a wedge as in `Cell::beyond_an_edge`); the derivation and the
    /// error bound: `docs/algorithms.md`, "Light assignment to froxels", step 2.
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
