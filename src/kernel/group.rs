//! Many queries at once, held in registers: a group of up to `V::N` queries of one kernel type,
//! lane `l` holding query `l`'s values, tested against one primitive at a time whose values are
//! broadcast to every lane. A batch's counts (`query/many.rs`) run this way for the kernels that
//! implement [`Grouped`]; the others run query by query over each tile.
//!
//! Each primitive's values are read once per group instead of once per query, and the group's
//! per-query hit counters are lane-wise adds (one masked `vpsubd` on AVX-512), so no mask leaves
//! the vector unit. The comparisons are the one-query kernel's, operand for operand (a primitive's
//! value broadcast to every lane is the same operand in each lane), so each query's count is bit
//! for bit what its one-query kernel counts, on every tier.

use super::{Tiled, all_le};
use crate::lanes::{Chunk, Lanes};
use core::ops::Range;

/// A kernel whose test can run with queries in the lanes and one primitive broadcast.
pub trait Grouped: Tiled {
    /// One query's values (what a group transposes).
    type Values: Copy;
    /// The query values of a group, transposed: lane `l` of each vector is query `l`'s.
    type Group<V: Lanes>: Copy;
    /// This kernel's query values.
    fn values(&self) -> Self::Values;
    /// `values[..V::N]` as a group (lane `l` = `values[l]`).
    fn group<V: Lanes>(values: &[Self::Values; 16]) -> Self::Group<V>;
    /// Hit mask of primitive `chunk * 16 + lane` of this kernel's columns against every query
    /// of `group` (lane `l` = query `l`).
    fn test<V: Lanes>(&self, group: &Self::Group<V>, chunk: usize, lane: usize) -> V::Mask;
}

/// Whether `n` queries (at most `V::N`) are counted faster as a group than one by one: when
/// they fill more than half the lanes. A group costs about the same per primitive however many
/// of its lanes are queries; one query by one costs a share of that per query. Measured
/// (2026-11-27, Intel Xeon family 6 model 207, `count_hits_many` of 1-32 queries over 262,144
/// tetrahedra or boxes, one thread, `docs/benchmarks.md`): the two break even at about 9 queries
/// on AVX-512, 3-4 on AVX2 and 2-3 on SSE; on the scalar tier (one lane) the group's loop is
/// never faster (boxes 2.9x slower).
#[inline(always)]
pub(crate) fn group_pays<V: Lanes>(n: usize) -> bool {
    V::N > 1 && 2 * n > V::N
}

/// The query values of `kernels` (one to 16), padded to 16 with the first's.
#[inline(always)]
pub(crate) fn values_of<K: Grouped>(kernels: &[K]) -> [K::Values; 16] {
    let mut values = [kernels[0].values(); 16];
    for (v, k) in values.iter_mut().zip(kernels) {
        *v = k.values();
    }
    values
}

/// The hits of the queries `values[..n]` (all bound to the container of `kernel`, `n <=
/// V::N`) over chunks `chunks` of it, into `counts[..n]` (the other lanes of `counts` are
/// overwritten with the padding lanes' counts or left alone). The chunks hold at most `2^32 - 1`
/// primitives.
#[inline(always)]
pub(crate) fn count_group<V: Lanes, K: Grouped>(
    kernel: &K,
    values: &[K::Values; 16],
    chunks: Range<usize>,
    counts: &mut [u32; 16],
) {
    let tile = kernel.tile(chunks);
    let group = K::group::<V>(values);
    let len = tile.len();
    let full = len / Chunk::LANES;
    // Two counters, so that consecutive primitives' adds do not wait for each other.
    let (mut even, mut odd) = (V::counts_zero(), V::counts_zero());
    for chunk in 0..full {
        let mut lane = 0;
        while lane < Chunk::LANES {
            even = V::count(even, tile.test::<V>(&group, chunk, lane));
            odd = V::count(odd, tile.test::<V>(&group, chunk, lane + 1));
            lane += 2;
        }
    }
    for lane in 0..len - full * Chunk::LANES {
        even = V::count(even, tile.test::<V>(&group, full, lane));
    }
    V::counts_store(V::counts_add(even, odd), counts);
}

/// `K` values per query, transposed into `K` vectors (lane `l` of vector `k` = `values[l][k]`).
#[inline(always)]
fn transpose<V: Lanes, const K: usize>(values: &[[f32; K]; 16]) -> [V; K] {
    let mut lanes = [Chunk([0.0; Chunk::LANES]); K];
    for (l, v) in values[..V::N].iter().enumerate() {
        for k in 0..K {
            lanes[k].0[l] = v[k];
        }
    }
    let mut out = [V::splat(0.0); K];
    for k in 0..K {
        out[k] = V::load(&lanes[k], 0);
    }
    out
}

/// Columns `first..first + 4` of one primitive, each broadcast to every lane.
#[inline(always)]
fn broadcast4<V: Lanes, const C: usize>(
    cols: &super::Cols<'_, C>,
    first: usize,
    chunk: usize,
    lane: usize,
) -> [V; 4] {
    [
        V::splat(cols.value(first, chunk, lane)),
        V::splat(cols.value(first + 1, chunk, lane)),
        V::splat(cols.value(first + 2, chunk, lane)),
        V::splat(cols.value(first + 3, chunk, lane)),
    ]
}

impl Grouped for super::TetsBelow<'_> {
    type Values = [f32; 4];
    type Group<V: Lanes> = [V; 4];
    #[inline(always)]
    fn values(&self) -> [f32; 4] {
        self.q_max
    }
    #[inline(always)]
    fn group<V: Lanes>(values: &[[f32; 4]; 16]) -> [V; 4] {
        transpose::<V, 4>(values)
    }
    #[inline(always)]
    fn test<V: Lanes>(&self, group: &[V; 4], chunk: usize, lane: usize) -> V::Mask {
        // The one-query kernel's `col[k] <= q_max[k]`, the column broadcast.
        all_le(broadcast4::<V, 4>(&self.cols, 0, chunk, lane), *group)
    }
}

impl Grouped for super::TetsAbove<'_> {
    type Values = [f32; 4];
    type Group<V: Lanes> = [V; 4];
    #[inline(always)]
    fn values(&self) -> [f32; 4] {
        self.q_min
    }
    #[inline(always)]
    fn group<V: Lanes>(values: &[[f32; 4]; 16]) -> [V; 4] {
        transpose::<V, 4>(values)
    }
    #[inline(always)]
    fn test<V: Lanes>(&self, group: &[V; 4], chunk: usize, lane: usize) -> V::Mask {
        // The one-query kernel's `q_min[k] <= col[k]`, the column broadcast.
        all_le(*group, broadcast4::<V, 4>(&self.cols, 0, chunk, lane))
    }
}

impl Grouped for super::AabbsVsBox<'_> {
    /// Query min x, y, z, then max x, y, z.
    type Values = [f32; 6];
    type Group<V: Lanes> = [V; 6];
    #[inline(always)]
    fn values(&self) -> [f32; 6] {
        let (n, x) = (self.q_min, self.q_max);
        [n[0], n[1], n[2], x[0], x[1], x[2]]
    }
    #[inline(always)]
    fn group<V: Lanes>(values: &[[f32; 6]; 16]) -> [V; 6] {
        transpose::<V, 6>(values)
    }
    #[inline(always)]
    fn test<V: Lanes>(&self, g: &[V; 6], chunk: usize, lane: usize) -> V::Mask {
        let c = &self.cols;
        let b_min = [
            V::splat(c.value(0, chunk, lane)),
            V::splat(c.value(1, chunk, lane)),
            V::splat(c.value(2, chunk, lane)),
        ];
        let b_max = [
            V::splat(c.value(3, chunk, lane)),
            V::splat(c.value(4, chunk, lane)),
            V::splat(c.value(5, chunk, lane)),
        ];
        // The one-query kernel's body, operand for operand.
        super::box_overlaps([g[0], g[1], g[2]], [g[3], g[4], g[5]], b_min, b_max)
    }
}

impl<const EXACT: bool> Grouped for super::OctahedraVsOctahedron<'_, EXACT> {
    /// Query up A..D (minima), then down A..D (maxima).
    type Values = [f32; 8];
    type Group<V: Lanes> = [V; 8];
    #[inline(always)]
    fn values(&self) -> [f32; 8] {
        let (u, d) = (self.q_up, self.q_down);
        [u[0], u[1], u[2], u[3], d[0], d[1], d[2], d[3]]
    }
    #[inline(always)]
    fn group<V: Lanes>(values: &[[f32; 8]; 16]) -> [V; 8] {
        transpose::<V, 8>(values)
    }
    #[inline(always)]
    fn test<V: Lanes>(&self, g: &[V; 8], chunk: usize, lane: usize) -> V::Mask {
        // The one-query kernel's stages, operand for operand (without its prefetching: a tile
        // is read once per group, from cache after the first).
        let q_up = [g[0], g[1], g[2], g[3]];
        let q_down = [g[4], g[5], g[6], g[7]];
        let up = broadcast4::<V, 8>(&self.cols, 0, chunk, lane);
        let m1 = all_le(up, q_down);
        // As in the one-query kernel, the early exits are for the vector tiers only.
        if V::N > 1 && V::bits(m1) == 0 {
            return m1;
        }
        let down = broadcast4::<V, 8>(&self.cols, 4, chunk, lane);
        let m = V::and(m1, all_le(q_up, down));
        if !EXACT || (V::N > 1 && V::bits(m) == 0) {
            return m;
        }
        V::and(m, super::intersection_sums_meet(up, down, q_up, q_down))
    }
}
