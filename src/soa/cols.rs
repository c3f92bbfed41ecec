//! [`Cols`]: a read-only view of `K` columns of one container, what a kernel reads.

use crate::lanes::{Chunk, Lanes, prefetch};

/// `K` column slices of one container, all `len.div_ceil(16)` chunks long.
#[derive(Clone, Copy)]
pub struct Cols<'a, const K: usize> {
    cols: [&'a [Chunk]; K],
    len: usize,
}

impl<'a, const K: usize> Cols<'a, K> {
    pub(crate) fn new(cols: [&'a [Chunk]; K], len: usize) -> Self {
        debug_assert!(cols.iter().all(|c| c.len() == len.div_ceil(Chunk::LANES)));
        Cols { cols, len }
    }

    /// Block `j` of chunk `chunk` of column `k`.
    #[inline(always)]
    pub(crate) fn load<V: Lanes>(&self, k: usize, chunk: usize, j: usize) -> V {
        // Re-slicing to the chunk count derived from `len` is loop-invariant; with the driver's
        // loop bound derived from the same `len`, the compiler drops the per-load bounds check.
        let col = &self.cols[k][..self.len.div_ceil(Chunk::LANES)];
        V::load(&col[chunk], j)
    }

    /// Lane `lane` of chunk `chunk` of column `k` (a primitive's value, for a kernel that
    /// broadcasts it).
    #[inline(always)]
    pub(crate) fn value(&self, k: usize, chunk: usize, lane: usize) -> f32 {
        // Re-sliced as in `load`, so the bounds checks leave the loop.
        let col = &self.cols[k][..self.len.div_ceil(Chunk::LANES)];
        col[chunk].0[lane]
    }

    /// Prefetch hint for chunk `chunk` of column `k`; nothing past the end.
    #[inline(always)]
    pub(crate) fn prefetch(&self, k: usize, chunk: usize) {
        if let Some(c) = self.cols[k].get(chunk) {
            prefetch(c);
        }
    }

    /// Prefetch hint for every column of chunk `chunk`; nothing if it is past the end. One
    /// bounds check for the chunk, not one per column (the blocked walk prefetches every child
    /// it will test: with a check per column the hints were about a tenth of a small query's
    /// instructions).
    #[inline(always)]
    pub(crate) fn prefetch_chunk(&self, chunk: usize) {
        if chunk < self.len.div_ceil(Chunk::LANES) {
            for col in &self.cols {
                // In bounds (every column holds `len.div_ceil(16)` chunks); and a prefetch of
                // any address is harmless.
                crate::lanes::prefetch_address(col.as_ptr().wrapping_add(chunk));
            }
        }
    }

    /// Blocks of three consecutive columns `first..first + 3`.
    #[inline(always)]
    pub(crate) fn load3<V: Lanes>(&self, first: usize, chunk: usize, j: usize) -> [V; 3] {
        [
            self.load(first, chunk, j),
            self.load(first + 1, chunk, j),
            self.load(first + 2, chunk, j),
        ]
    }

    /// Blocks of four consecutive columns `first..first + 4`.
    #[inline(always)]
    pub(crate) fn load4<V: Lanes>(&self, first: usize, chunk: usize, j: usize) -> [V; 4] {
        [
            self.load(first, chunk, j),
            self.load(first + 1, chunk, j),
            self.load(first + 2, chunk, j),
            self.load(first + 3, chunk, j),
        ]
    }

    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Column `k`: its chunks (the last one's lanes past `len` are padding).
    #[inline(always)]
    pub(crate) fn column(&self, k: usize) -> &'a [Chunk] {
        self.cols[k]
    }

    /// Column `k` of primitive `i < len`.
    #[inline(always)]
    pub(crate) fn lane(&self, k: usize, i: usize) -> f32 {
        self.cols[k][i / Chunk::LANES].0[i % Chunk::LANES]
    }

    /// The columns of chunks `chunks` only (primitive `chunks.start * 16` becomes primitive 0;
    /// the last chunk keeps its padding).
    // Not `#[inline(always)]`: forced inline, the `from_cells` stretch loop (`cull/cells.rs`) ran
    // 5-50 % slower; a batch's tiles (`query/many.rs`) call it out of line, once per
    // (tile, query).
    pub(crate) fn chunks(&self, chunks: core::ops::Range<usize>) -> Self {
        let lanes = Chunk::LANES;
        let len = self
            .len
            .min(chunks.end * lanes)
            .saturating_sub(chunks.start * lanes);
        // A loop, not `self.cols.map(..)`: the array `map` was compiled out of line (a call per
        // query in the broadphase sweep and per stretch of `from_cells` grids).
        let mut cols = self.cols;
        for c in &mut cols {
            *c = &c[chunks.clone()];
        }
        Cols { cols, len }
    }
}
