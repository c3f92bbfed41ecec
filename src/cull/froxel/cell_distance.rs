//! The exact distance from a light's centre to one froxel, and the edge test before it.

use super::ordered::Ordered;

/// One froxel: `a[0] <= x / d <= a[1]`, `b[0] <= y / d <= b[1]`, `d[0] <= d <= d[1]`.
pub(super) struct Cell {
    pub(super) a: [f64; 2],
    pub(super) b: [f64; 2],
    pub(super) d: [f64; 2],
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
    /// least inside of (`cx`, `cy` hold `1 / sqrt(1 + s^2)` of the tile's and the row's
    /// slopes), and each pair of those three; only the distance to the planes' common line can
    /// reject (`docs/algorithms.md`, "Light assignment to froxels", "Beyond an edge"). On the
    /// indoor scene it rejects three in four of the cells that would reach
    /// [`least`](Self::least), each for a fraction of `least`'s divisions.
    #[inline(always)]
    pub(super) fn beyond_an_edge(
        &self,
        [x, y, pd]: [f64; 3],
        cx: [f64; 2],
        cy: [f64; 2],
        rho2: f64,
    ) -> bool {
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
    pub(super) fn dist2(&self, p: [f64; 3]) -> f64 {
        self.least(p, -1.0)
    }

    /// The squared distance from the point `(x, y, depth)` to the cell: the minimum of `h(t)`
    /// over `t` in `[d0, d1]`, at an end or at the stationary point of one of the quadratics
    /// `h` equals where it is active, clamped (`docs/algorithms.md`, "Light assignment to
    /// froxels", "The distance to one froxel").
    ///
    /// The candidates are taken in turn and the first one at most `enough` is returned at once
    /// (else the smallest of all), so `least(p, l) <= l` iff the distance squared is at most
    /// `l`: the end tests, which only need that answer, stop early when the light meets the
    /// cell; `enough < 0` gives the distance squared itself.
    pub(super) fn least(&self, p: [f64; 3], enough: f64) -> f64 {
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

/// Whether a point at distances `g1`, `g2` from two planes whose unit normals have cosine `c`
/// (`|c| < 1`) lies within `sqrt(rho2)` of the planes' common line:
/// `g1^2 + g2^2 - 2 c g1 g2 <= rho2 (1 - c^2)`, the squared distance times `1 - c^2`, without
/// a division ([`Cell::beyond_an_edge`], [`Froxels::by_an_edge`](super::Froxels::by_an_edge)).
#[inline(always)]
pub(super) fn near_the_line(g1: f64, g2: f64, c: f64, rho2: f64) -> bool {
    g1 * g1 + g2 * g2 - 2.0 * c * g1 * g2 <= rho2 * (1.0 - c * c)
}
