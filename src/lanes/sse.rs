//! The four-lane tier: `wide::f32x4` (SSE2 on x86_64, NEON on aarch64, simd128 on wasm). Safe code.

use super::{Chunk, Lanes, Lanes64, WithLanes, left_pack_table};
use core::mem::MaybeUninit;
use wide::{f32x4, f64x2, u32x4};

/// This tier's entry point: runs `job` four lanes at a time.
#[inline(always)]
pub(super) fn run<J: WithLanes>(job: J) -> J::Output {
    job.run::<F32x4>()
}

/// Four f32 lanes.
#[derive(Clone, Copy, Debug)]
struct F32x4(f32x4);

/// Left-pack tables for the four nibbles of a chunk: `PACK4[q][m]` holds the positions in the
/// chunk (`4 * q` plus the set-bit positions of the 4-bit mask `m`), so one splat of the chunk's
/// base serves all four.
static PACK4: [[[u32; 4]; 16]; 4] = {
    let packed = left_pack_table::<16>();
    let mut table = [[[0u32; 4]; 16]; 4];
    let mut q = 0;
    while q < 4 {
        let mut i = 0;
        while i < 16 {
            let mut k = 0;
            while k < 4 {
                table[q][i][k] = ((packed[i] >> (8 * k)) & 0xff) as u32 + 4 * q as u32;
                k += 1;
            }
            i += 1;
        }
        q += 1;
    }
    table
};

/// Population count of a 4-bit value from a nibble table (baseline x86_64 has no POPCNT).
#[inline(always)]
fn popcount4(nibble: u32) -> usize {
    ((0x4332_3221_3221_2110u64 >> (nibble * 4)) & 15) as usize
}

impl Lanes for F32x4 {
    const N: usize = 4;
    const ENTRY_POINT_IS_A_CALL: bool = false;
    type Mask = f32x4;

    #[inline(always)]
    fn splat(x: f32) -> Self {
        F32x4(f32x4::splat(x))
    }
    #[inline(always)]
    fn load(chunk: &Chunk, j: usize) -> Self {
        let lanes: [f32; 4] = chunk.0[j * 4..j * 4 + 4].try_into().expect("four lanes");
        F32x4(f32x4::new(lanes))
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        F32x4(self.0 + o.0)
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        F32x4(self.0 - o.0)
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        F32x4(self.0 * o.0)
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        // `fast_min` is `minps` on x86 (`self < o ? self : o`); NaN never reaches a kernel's
        // min/max (queries are screened, containers hold finite values) except in the OBB SAT
        // kernels' `max` of the gaps, and there only when the margin is already `+inf` or NaN,
        // which alone decides the answer; so the NEON form agrees.
        F32x4(self.0.fast_min(o.0))
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        F32x4(self.0.fast_max(o.0))
    }
    #[inline(always)]
    fn abs(self) -> Self {
        F32x4(self.0.abs())
    }
    #[inline(always)]
    fn le(self, o: Self) -> f32x4 {
        self.0.simd_le(o.0)
    }
    #[inline(always)]
    fn lt(self, o: Self) -> f32x4 {
        self.0.simd_lt(o.0)
    }
    #[inline(always)]
    fn test_bits(self, o: Self) -> f32x4 {
        let (a, b): (u32x4, u32x4) = (bytemuck::cast(self.0), bytemuck::cast(o.0));
        // All ones where the AND is non-zero.
        bytemuck::cast(!(a & b).simd_eq(u32x4::ZERO))
    }
    #[inline(always)]
    fn and(a: f32x4, b: f32x4) -> f32x4 {
        a & b
    }
    #[inline(always)]
    fn bits(m: f32x4) -> u32 {
        m.to_bitmask()
    }
    type Counts = u32x4;
    #[inline(always)]
    fn counts_zero() -> u32x4 {
        u32x4::ZERO
    }
    #[inline(always)]
    fn count(acc: u32x4, m: f32x4) -> u32x4 {
        // A set lane is all ones, -1 as an integer: subtracting it adds 1 (`psubd` wraps).
        acc - bytemuck::cast::<f32x4, u32x4>(m)
    }
    #[inline(always)]
    fn counts_add(a: u32x4, b: u32x4) -> u32x4 {
        a + b
    }
    #[inline(always)]
    fn counts_store(acc: u32x4, out: &mut [u32; 16]) {
        out[..4].copy_from_slice(&acc.to_array());
    }
    super::index_writer_without_packing!();
    #[inline(always)]
    fn write_chunk_indices(bits: u32, base: u32, out: &mut [MaybeUninit<u32>]) -> usize {
        let out = &mut out[..16];
        let mut n = 0;
        let base = u32x4::splat(base);
        for (q, table) in PACK4.iter().enumerate() {
            let nibble = (bits >> (4 * q)) & 15;
            let idx = u32x4::new(table[nibble as usize]) + base;
            let dst: &mut [MaybeUninit<u32>; 4] = (&mut out[n..n + 4]).try_into().expect("4 slots");
            *dst = idx.to_array().map(MaybeUninit::new);
            n += popcount4(nibble);
        }
        n
    }
    #[inline(always)]
    fn write_block_indices(bits: u32, base: u32, out: &mut [u32; 16]) -> usize {
        debug_assert!(bits <= 15, "a block's mask has 4 bits");
        // One quad of the chunk writer: the block's 4 slots, not the chunk's 16.
        let nibble = bits & 15;
        let idx = u32x4::new(PACK4[0][nibble as usize]) + u32x4::splat(base);
        let dst: &mut [u32; 4] = (&mut out[..4]).try_into().expect("4 slots");
        *dst = idx.to_array();
        popcount4(nibble)
    }
    #[inline(always)]
    fn count_chunk(bits: u32) -> usize {
        popcount4(bits & 15)
            + popcount4((bits >> 4) & 15)
            + popcount4((bits >> 8) & 15)
            + popcount4((bits >> 12) & 15)
    }

    type F64 = F64x2;
}

/// Two f64 lanes.
#[derive(Clone, Copy, Debug)]
struct F64x2(f64x2);

impl Lanes64 for F64x2 {
    const N: usize = 2;

    #[inline(always)]
    fn splat(x: f64) -> Self {
        F64x2(f64x2::splat(x))
    }
    #[inline(always)]
    fn load(s: &[f64], i: usize) -> Self {
        let lanes: [f64; 2] = s[i..i + 2].try_into().expect("two lanes");
        F64x2(f64x2::new(lanes))
    }
    #[inline(always)]
    fn gather(table: &[f64], idx: &[u32; 4]) -> Self {
        F64x2(f64x2::new([table[idx[0] as usize], table[idx[1] as usize]]))
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        F64x2(self.0 + o.0)
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        F64x2(self.0 - o.0)
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        F64x2(self.0 * o.0)
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        // `minpd` on x86; NaN never reaches the f64 kernels (finite inputs), see `F32x4::min`.
        F64x2(self.0.fast_min(o.0))
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        F64x2(self.0.fast_max(o.0))
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        F64x2(self.0.sqrt())
    }
    #[inline(always)]
    fn lt(self, o: Self) -> u32 {
        self.0.simd_lt(o.0).to_bitmask()
    }
    #[inline(always)]
    fn le(self, o: Self) -> u32 {
        self.0.simd_le(o.0).to_bitmask()
    }
    #[inline(always)]
    fn trunc(self, out: &mut [u32; 4]) {
        let [a, b] = self.0.to_array();
        out[0] = a as u32;
        out[1] = b as u32;
    }
}
