//! The rows of a slice in f64 lanes, `Lanes64::N` at a time: their plane tests, candidate tiles
//! and the cheap accept test at both ends.

use super::Froxels;
use super::ordered::Ordered;
use crate::lanes::Lanes64;

impl Froxels {
    /// What the rows of slice `k` share, for a light centred at `(x, y, pd)`, `pd > 0`, with
    /// radius `rho`; `None` if the ball misses the slice's slab.
    #[inline(always)]
    pub(super) fn slice_rows(&self, [x, y, pd]: [f64; 3], rho: f64, k: usize) -> Option<SliceRows> {
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
    pub(super) fn rows<W: Lanes64>(&self, s: &SliceRows, j: usize) -> RowLanes {
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
}

/// What the rows of one slice share, as [`Froxels::rows`] sees them from one light.
#[derive(Clone, Copy, Debug)]
pub(super) struct SliceRows {
    /// The light's centre `(x, y, depth)`.
    pub(super) p: [f64; 3],
    /// The depth of the slice's cross-section nearest the centre, and the ball's depths within
    /// the slice.
    pub(super) t: f64,
    pub(super) t0: f64,
    pub(super) t1: f64,
    /// `1 / t0`, `1 / t1`.
    pub(super) r: [f64; 2],
    /// `rho^2 - ez^2`.
    pub(super) w: f64,
    /// `(t - depth)^2`.
    pub(super) ez2: f64,
    /// The light's radius with the slack, and its square.
    pub(super) rho: f64,
    pub(super) rho2: f64,
}

/// [`Froxels::rows`]' answer for `W::N` rows: bit `k` of each mask is row `j + k`'s.
pub(super) struct RowLanes {
    /// The ball meets the row's two planes and its bounding box.
    pub(super) ok: u32,
    /// The cheap accept test takes tile `ilo[k]`, tile `ihi[k]`.
    pub(super) acc_lo: u32,
    pub(super) acc_hi: u32,
    /// The first and last candidate tile.
    pub(super) ilo: [u32; 4],
    pub(super) ihi: [u32; 4],
}
