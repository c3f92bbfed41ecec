//! The output sinks: what a query does with each block's hit bits.

use crate::kernel::Sink;
use crate::lanes::{Chunk, Lanes};
use core::mem::MaybeUninit;

pub(crate) use crate::kernel::Count;

/// Stops at the first hit.
pub(crate) struct Any(pub(crate) bool);

impl Sink for Any {
    #[inline(always)]
    fn push<V: Lanes>(&mut self, _base: u32, bits: u32) -> bool {
        self.0 = bits != 0;
        self.0
    }
}

/// Sets bit `i` of a zeroed word slice for each hit `i`.
pub(crate) struct MaskWords<'a>(pub(crate) &'a mut [u64]);

impl Sink for MaskWords<'_> {
    #[inline(always)]
    fn push<V: Lanes>(&mut self, base: u32, bits: u32) -> bool {
        // Blocks are V::N-aligned and V::N divides 64, so a block never straddles two words.
        let base = base as usize;
        self.0[base / 64] |= u64::from(bits) << (base % 64);
        false
    }
}

/// Appends hit indices to a `Vec<u32>`, left-packed per chunk by the tier's
/// `write_chunk_indices` (or, in the pipelined driver, `pack_chunk_indices` when the chunk's
/// mask is computed and `store_chunk_indices` a window later).
///
/// The tiers store whole vectors of indices and advance by the hit count, so they write into the
/// vector's spare capacity (reserved once, before the loop, for every lane being a hit plus store
/// slack) instead of zero-filled elements; [`finish`](Indices::finish) sets the length
/// to what was written. The sink owns the vector while it runs.
pub(crate) struct Indices {
    out: Vec<u32>,
    /// Number of initialised elements: the original length plus the hits written so far.
    written: usize,
}

/// Spare slots a chunk's stores may touch past the cursor.
const STORE_SLACK: usize = 20;

impl Indices {
    pub(crate) fn new(out: Vec<u32>) -> Self {
        let written = out.len();
        Indices { out, written }
    }

    pub(crate) fn finish(mut self) -> Vec<u32> {
        debug_assert!(self.written <= self.out.capacity());
        // SAFETY: elements `..out.len()` were initialised before; every element in
        // `out.len()..written` was written by `write_chunk_indices`, `store_chunk_indices` or
        // `write_chunk_values`, which initialise the slots they count, or by `push_slice`, which
        // writes every slot it counts (the cursor only ever advances over slots just written).
        unsafe { self.out.set_len(self.written) };
        self.out
    }

    /// The spare slots a chunk's stores may touch, from the cursor on (`reserve` made room for
    /// them; one range check covers the tier's stores). The spare capacity starts at
    /// `out.len()`; the cursor is `written - len` into it.
    #[inline(always)]
    fn window(&mut self) -> &mut [MaybeUninit<u32>] {
        let at = self.written - self.out.len();
        &mut self.out.spare_capacity_mut()[at..at + STORE_SLACK]
    }

    /// Appends `values[i]` for each set bit `i` of `bits` (ascending `i`), with the tier's
    /// `write_chunk_values`; makes room as it goes (for a writer that cannot reserve for every
    /// lane up front: a blocked container's walk).
    #[inline(always)]
    pub(crate) fn push_values<V: Lanes>(&mut self, bits: u32, values: &[u32; 16]) {
        self.reserve(Chunk::LANES);
        let n = V::write_chunk_values(bits, values, self.window());
        self.written += n;
    }

    /// Appends `values`.
    #[inline(always)]
    pub(crate) fn push_slice(&mut self, values: &[u32]) {
        self.reserve(values.len());
        let at = self.written - self.out.len();
        let dst = &mut self.out.spare_capacity_mut()[at..at + values.len()];
        for (d, &v) in dst.iter_mut().zip(values) {
            d.write(v);
        }
        self.written += values.len();
    }
}

impl Sink for Indices {
    const MASKS_AHEAD: bool = true;

    #[inline(always)]
    fn reserve(&mut self, lanes: usize) {
        // Room for every lane being a hit, plus the stores' slack past the last one.
        self.out
            .reserve(self.written - self.out.len() + lanes + STORE_SLACK);
    }

    #[inline(always)]
    fn push<V: Lanes>(&mut self, base: u32, bits: u32) -> bool {
        if bits != 0 {
            let n = V::write_chunk_indices(bits, base, self.window());
            self.written += n;
        }
        false
    }

    #[inline(always)]
    fn push_packed<V: Lanes>(&mut self, base: u32, bits: u32, packed: V::PackedIndices) -> bool {
        if bits != 0 {
            // As in `push`, with the indices packed earlier.
            let n = V::store_chunk_indices(bits, base, packed, self.window());
            self.written += n;
        }
        false
    }
}
