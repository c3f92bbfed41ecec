//! The output sinks: what a query does with each block's hit bits.

use crate::kernel::Sink;
use crate::lanes::Lanes;

/// Counts hits.
pub(crate) struct Count(pub(crate) usize);

impl Sink for Count {
    #[inline(always)]
    fn push<V: Lanes>(&mut self, _base: u32, bits: u32) -> bool {
        self.0 += V::count_chunk(bits);
        false
    }
}

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

/// Appends hit indices to a `Vec<u32>`, left-packed per block by the tier's `write_indices`.
///
/// The vector is kept longer than what has been written (zero-filled by `resize`, which only
/// touches the newly added tail), so each block can store a whole vector of indices and advance by
/// its hit count; [`finish`](Indices::finish) truncates to the hits. The sink owns the vector
/// while it runs (see [`run`](crate::kernel::run) for why).
pub(crate) struct Indices {
    out: Vec<u32>,
    written: usize,
}

impl Indices {
    pub(crate) fn new(out: Vec<u32>) -> Self {
        let written = out.len();
        Indices { out, written }
    }

    pub(crate) fn finish(mut self) -> Vec<u32> {
        self.out.truncate(self.written);
        self.out
    }
}

impl Sink for Indices {
    #[inline(always)]
    fn window(&mut self, lanes: usize) {
        // Room for every lane of the window being a hit, plus a chunk of store slack.
        let need = self.written + lanes + 20;
        if self.out.len() < need {
            self.out.resize(need, 0);
        }
    }

    #[inline(always)]
    fn push<V: Lanes>(&mut self, base: u32, bits: u32) -> bool {
        if bits != 0 {
            // One range check covers the vector stores (`window` keeps spare slots).
            let dst = &mut self.out[self.written..self.written + 20];
            self.written += V::write_chunk_indices(bits, base, dst);
        }
        false
    }
}
