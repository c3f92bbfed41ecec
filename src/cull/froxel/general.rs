//! The general path: the slices a light reaches, then per slice and row a run of tiles whose
//! two ends are decided exactly.

use super::cell_distance::Cell;
use super::ordered::Ordered;
use super::rows::{RowLanes, SliceRows};
use super::{Froxels, LightCells, Run};
use crate::cull::runs::RunSink;
use crate::lanes::Lanes64;

impl Froxels {
    /// The slices `k` with `depth[k] <= pd + rho` and `depth[k + 1] >= pd - rho` (those whose
    /// slab the sphere meets): the first through [`first_slice`](Self::first_slice), then a
    /// walk (the depths ascend, so the run is contiguous).
    #[inline]
    pub(super) fn slice_run(&self, pd: f64, rho: f64) -> Run {
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

    /// The hits of a light centred in front of the eye (`pd > 0`), `z` its slices: per slice and
    /// row, a superset run of tiles from the ball's extent, its two ends moved in by exact tests
    /// ([`met`](Self::met)), the tiles between listed without one (`docs/algorithms.md`, "Light
    /// assignment to froxels", step 4). The rows go through [`rows`](Self::rows) `W::N` at a
    /// time.
    ///
    /// Three passes over the whole light (every slice's [`SliceRows`], then every batch of rows,
    /// then the decisions, [`decide_batch`](Self::decide_batch)), so that the slices' long
    /// dependent chains overlap: indoor frames 15-19% faster (step 4, "Latency, not work").
    #[inline(always)]
    pub(super) fn hits_in_front<W: Lanes64>(
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

    /// The hits of a light centred at or behind the eye (`pd <= 0`), `z` its slices: every cell
    /// of the product of the runs of columns and rows whose side planes the ball reaches
    /// ([`side_run`]), by the same decision as the ends of a row in front.
    #[inline(always)]
    pub(super) fn hits_behind(
        &self,
        [x, y, pd]: [f64; 3],
        rho: f64,
        z: Run,
        s: &mut Scratch,
        hit: &mut LightCells<'_, impl RunSink>,
    ) {
        let Some(xr) = side_run(&self.sx, &self.cx, x, -pd, rho, None) else {
            return;
        };
        let Some(yr) = side_run(&self.sy, &self.cy, y, -pd, rho, Some(&mut s.pass_y)) else {
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
}

/// Per-light scratch of [`Froxels::for_each_hit`], reused across lights.
#[derive(Default)]
pub(in crate::cull) struct Scratch {
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
