//! [`Chunk`]: the unit every tier loads, sixteen lanes of one column.

use bytemuck::{Pod, Zeroable};

/// Sixteen consecutive values of one column, aligned to a 64-byte cache line. A column is a
/// `Vec<Chunk>`, so it is always padded to a multiple of 16 lanes (one AVX-512 vector, two AVX2,
/// four SSE); lanes past the container's length hold `0.0` and are never reported.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Chunk(pub [f32; 16]);

impl Chunk {
    /// Lanes per chunk.
    pub const LANES: usize = 16;
}
