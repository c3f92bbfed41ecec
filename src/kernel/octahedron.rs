//! Octahedron against octahedra, in two stages so the down half is read only when needed:
//!
//! 1. the container's up tetrahedra against the query's down tetrahedron (`up[k] <= q.down[k]`);
//! 2. only if a lane of the block passed: the query's up tetrahedron against the container's down
//!    tetrahedra (`q.up[k] <= down[k]`).
//!
//! These eight comparisons are the 8-DOP test of the AABO readme: conservative. The exact test
//! (`EXACT = true`) adds the sum condition: with `lo = max(up, q.up)` and `hi = min(down, q.down)`,
//! two octahedra meet iff `lo <= hi` (the eight comparisons) and `sum(lo) <= 0 <= sum(hi)`.
//!
//! The sums are taken as `s = (lo_A/4 + lo_B/4) + (lo_C/4 + lo_D/4)` (the quarter keeps them from
//! overflowing) and accepted within `tol = M * 2^-21 + 2^-140`, `M = max_k |lo_k|`. The rounding
//! error of `s` is below `3 * 2^-24 * M + 2^-148 < tol`, so a real intersection is never rejected;
//! a pair is reported falsely only when its gap along the sums is below about `2^-19 * M`.

use super::{Cols, Kernel, splat4};
use crate::lanes::Lanes;

/// Tolerance slope of the sum condition (see the module docs).
const SUM_TOL_REL: f32 = 1.0 / 2_097_152.0; // 2^-21
/// Absolute floor of the tolerance, covering subnormal rounding of the quarters.
const SUM_TOL_ABS: f32 = f32::from_bits(1 << 9); // 2^-140, a subnormal

/// `sum(v) / 4` and its tolerance.
#[inline(always)]
fn quarter_sum<V: Lanes>(v: [V; 4]) -> (V, V) {
    let q = V::splat(0.25);
    let s = v[0]
        .mul(q)
        .add(v[1].mul(q))
        .add(v[2].mul(q).add(v[3].mul(q)));
    let m = v[0].abs().max(v[1].abs()).max(v[2].abs().max(v[3].abs()));
    (s, m.mul(V::splat(SUM_TOL_REL)).add(V::splat(SUM_TOL_ABS)))
}

/// The generic body of the sum condition: `sum(lo) <= 0 <= sum(hi)` within tolerance.
#[inline(always)]
fn sums_straddle_zero<V: Lanes>(lo: [V; 4], hi: [V; 4]) -> V::Mask {
    let (s_lo, tol_lo) = quarter_sum(lo);
    let (s_hi, tol_hi) = quarter_sum(hi);
    let zero = V::splat(0.0);
    V::and(s_lo.le(tol_lo), zero.sub(tol_hi).le(s_hi))
}

/// The exact test's sum condition for octahedra `(up, down)` and `(q_up, q_down)` that pass the
/// eight comparisons: with `lo = max(up, q_up)` and `hi = min(down, q_down)`, whether
/// `sum(lo) <= 0 <= sum(hi)` within tolerance ([`sums_straddle_zero`]). Shared by this kernel,
/// the pairwise octahedron kernel and the broadphase sweep, so all accept exactly the same pairs.
#[inline(always)]
pub(crate) fn intersection_sums_meet<V: Lanes>(
    up: [V; 4],
    down: [V; 4],
    q_up: [V; 4],
    q_down: [V; 4],
) -> V::Mask {
    let lo = [
        up[0].max(q_up[0]),
        up[1].max(q_up[1]),
        up[2].max(q_up[2]),
        up[3].max(q_up[3]),
    ];
    let hi = [
        down[0].min(q_down[0]),
        down[1].min(q_down[1]),
        down[2].min(q_down[2]),
        down[3].min(q_down[3]),
    ];
    sums_straddle_zero(lo, hi)
}

/// An `Octahedra` container (columns up A..D, then down A..D) against one octahedron.
#[derive(Clone)]
pub struct OctahedraVsOctahedron<'a, const EXACT: bool> {
    pub(crate) cols: Cols<'a, 8>,
    pub(crate) q_up: [f32; 4],
    pub(crate) q_down: [f32; 4],
    /// Prefetch the down half ahead (large containers only, see [`PREFETCH_MIN_LEN`]).
    pub(crate) prefetch_down: bool,
    /// How often stage 1 passed lately: raised by [`HOT_STEP`] per passing block, lowered by one
    /// per chunk; the down half is prefetched only while it is above [`HOT_STEP`], i.e. while
    /// blocks pass more often than about one chunk in sixteen.
    pub(crate) hot: core::cell::Cell<u32>,
}

impl<'a, const EXACT: bool> OctahedraVsOctahedron<'a, EXACT> {
    /// The query octahedron `(q_up, q_down)` (up tetrahedron's minima, down tetrahedron's
    /// maxima) against the columns `cols`; the down half is prefetched for containers of at least
    /// [`PREFETCH_MIN_LEN`] octahedra.
    #[inline(always)]
    pub(crate) fn new(cols: Cols<'a, 8>, q_up: [f32; 4], q_down: [f32; 4]) -> Self {
        OctahedraVsOctahedron {
            prefetch_down: cols.len() >= PREFETCH_MIN_LEN,
            cols,
            q_up,
            q_down,
            hot: Default::default(),
        }
    }
}

/// See [`OctahedraVsOctahedron::hot`]. Measured on the project machine (AVX2): at ~1 % hits,
/// where a quarter of the 8-lane blocks pass stage 1, prefetching makes a million-octahedron query
/// ~1.7x faster; on the AABO readme's very selective queries (~0.05 % of blocks pass) any
/// prefetching after a pass cost 10-20 % (4M objects: 0.33 s vs 0.30 s per 100 queries, the
/// up-half-only query taking 0.29 s), because the prefetched lines are rarely used.
const HOT_STEP: u32 = 16;
/// Ceiling of the score (how long prefetching outlasts a dense run of passes, in chunks).
const HOT_MAX: u32 = 128;

/// From this many octahedra (1 MiB of columns, about the L2 size) the kernel prefetches the down
/// half [`PREFETCH_AHEAD_CHUNKS`] chunks ahead. Out of cache, the down half is read for only the
/// chunks whose up half passed: a sparse pattern the hardware prefetcher does not follow, so every
/// such read waited for DRAM. Measured on the project machine at 1,048,576 octahedra and ~1 %
/// density, prefetching made the AVX2 octahedron query about 1.7x faster (it was slower at 1 %
/// than at 31 % density before); in cache it only costs instructions, hence the threshold.
pub(crate) const PREFETCH_MIN_LEN: usize = 32_768;

/// How far ahead the down half is prefetched: 16 chunks (256 octahedra, 1 KiB per column).
const PREFETCH_AHEAD_CHUNKS: usize = 16;

impl<const EXACT: bool> Kernel for OctahedraVsOctahedron<'_, EXACT> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let q_down = splat4(self.q_down);
        if V::N > 1 && self.prefetch_down && j == 0 {
            let hot = self.hot.get();
            self.hot.set(hot.saturating_sub(1));
            if hot > HOT_STEP {
                for k in 4..8 {
                    self.cols.prefetch(k, c + PREFETCH_AHEAD_CHUNKS);
                }
            }
        }
        let up = self.cols.load4::<V>(0, c, j);
        let m1 = super::tet::all_le(up, q_down);
        // Early exits pay per vector of lanes; on the one-lane tier they would be a branch per
        // primitive that mispredicts on mixed data, so that tier evaluates every stage.
        if V::N > 1 && V::bits(m1) == 0 {
            return 0;
        }
        if V::N > 1 && self.prefetch_down {
            self.hot.set((self.hot.get() + HOT_STEP).min(HOT_MAX));
        }
        let q_up = splat4(self.q_up);
        let down = self.cols.load4::<V>(4, c, j);
        let m = V::and(m1, super::tet::all_le(q_up, down));
        if !EXACT {
            return V::bits(m);
        }
        if V::N > 1 && V::bits(m) == 0 {
            return 0;
        }
        V::bits(V::and(m, intersection_sums_meet(up, down, q_up, q_down)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lanes::Backend;
    use crate::primitive::{Aabb, Octahedron};
    use crate::query::sink::{Count, Indices};
    use crate::soa::Octahedra;

    /// The prefetching loop (normally only on containers of [`PREFETCH_MIN_LEN`] octahedra and
    /// more) gives the same answers as the plain one, prefetching past the end included. Small
    /// enough for Miri, which runs the `prefetch` hint's `unsafe` block here.
    #[test]
    fn prefetching_changes_no_answer() {
        // At least 18 chunks, so that a chunk 16 ahead exists and the hint runs.
        let n = if cfg!(miri) { 300 } else { 3000 };
        let items: Vec<Octahedron> = (0..n)
            .map(|i| {
                let x = (i % 97) as f32;
                Octahedron::from_aabb(&Aabb::new([x, 0.0, 0.0], [x + 1.5, 1.0, 1.0]))
            })
            .collect();
        let set = Octahedra::from_slice(&items).expect("valid");
        let his: &[f32] = if cfg!(miri) {
            &[60.0]
        } else {
            &[0.5, 10.0, 60.0, 200.0]
        };
        for &hi in his {
            let q = Octahedron::from_aabb(&Aabb::new([0.0; 3], [hi, 1.0, 1.0]));
            let kernel = |prefetch_down| OctahedraVsOctahedron::<true> {
                cols: set.view(),
                q_up: q.up.min,
                q_down: q.down.max,
                prefetch_down,
                hot: Default::default(),
            };
            let want = set.with_backend(Backend::Scalar).expect("scalar").hits(&q);
            let want: Vec<u32> = want.collect();
            for &b in Backend::available() {
                let (plain, fetching) = (kernel(false), kernel(true));
                let count =
                    |k: &OctahedraVsOctahedron<'_, true>| super::super::run(b, k, Count(0)).0;
                assert_eq!(count(&plain), want.len(), "{b:?} {hi}");
                assert_eq!(count(&fetching), want.len(), "{b:?} {hi} prefetching");
                let hits = super::super::run(b, &fetching, Indices::new(Vec::new())).finish();
                assert_eq!(hits, want, "{b:?} {hi} prefetching");
            }
        }
    }
}
