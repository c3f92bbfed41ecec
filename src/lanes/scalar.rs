//! The one-lane tier: plain Rust, runs everywhere. Its types are visible to the crate's tests,
//! which compare other tiers and f64 kernels against them (safe code: nothing to guard).

use super::{Chunk, Lanes, Lanes64, WithLanes};
use core::mem::MaybeUninit;

/// This tier's entry point: runs `job` one lane at a time.
#[inline(always)]
pub(super) fn run<J: WithLanes>(job: J) -> J::Output {
    job.run::<F32x1>()
}

/// One f32 lane.
#[derive(Clone, Copy, Debug)]
pub struct F32x1(f32);

impl Lanes for F32x1 {
    const N: usize = 1;
    const ENTRY_POINT_IS_A_CALL: bool = false;
    type Mask = bool;

    #[inline(always)]
    fn splat(x: f32) -> Self {
        F32x1(x)
    }
    #[inline(always)]
    fn load(chunk: &Chunk, j: usize) -> Self {
        F32x1(chunk.0[j])
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        F32x1(self.0 + o.0)
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        F32x1(self.0 - o.0)
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        F32x1(self.0 * o.0)
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        // minps: the first operand only when it is strictly smaller (NaN picks the second).
        F32x1(if self.0 < o.0 { self.0 } else { o.0 })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        F32x1(if self.0 > o.0 { self.0 } else { o.0 })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        F32x1(self.0.abs())
    }
    #[inline(always)]
    fn le(self, o: Self) -> bool {
        self.0 <= o.0
    }
    #[inline(always)]
    fn lt(self, o: Self) -> bool {
        self.0 < o.0
    }
    #[inline(always)]
    fn test_bits(self, o: Self) -> bool {
        self.0.to_bits() & o.0.to_bits() != 0
    }
    #[inline(always)]
    fn and(a: bool, b: bool) -> bool {
        a & b
    }
    #[inline(always)]
    fn bits(m: bool) -> u32 {
        u32::from(m)
    }
    type Counts = u32;
    #[inline(always)]
    fn counts_zero() -> u32 {
        0
    }
    #[inline(always)]
    fn count(acc: u32, m: bool) -> u32 {
        acc.wrapping_add(u32::from(m))
    }
    #[inline(always)]
    fn counts_add(a: u32, b: u32) -> u32 {
        a.wrapping_add(b)
    }
    #[inline(always)]
    fn counts_store(acc: u32, out: &mut [u32; 16]) {
        out[0] = acc;
    }
    super::index_writer_without_packing!();
    #[inline(always)]
    fn write_chunk_indices(bits: u32, base: u32, out: &mut [MaybeUninit<u32>]) -> usize {
        let out = &mut out[..16];
        let mut n = 0;
        for i in 0..16 {
            // Branch-free: always write, advance only on a hit.
            out[n & 15].write(base + i as u32);
            n += ((bits >> i) & 1) as usize;
        }
        n
    }

    type F64 = F64x1;
}

/// One f64 lane.
#[derive(Clone, Copy, Debug)]
pub struct F64x1(f64);

impl Lanes64 for F64x1 {
    const N: usize = 1;

    #[inline(always)]
    fn splat(x: f64) -> Self {
        F64x1(x)
    }
    #[inline(always)]
    fn load(s: &[f64], i: usize) -> Self {
        F64x1(s[i])
    }
    #[inline(always)]
    fn gather(table: &[f64], idx: &[u32; 4]) -> Self {
        F64x1(table[idx[0] as usize])
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        F64x1(self.0 + o.0)
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        F64x1(self.0 - o.0)
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        F64x1(self.0 * o.0)
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        F64x1(if self.0 < o.0 { self.0 } else { o.0 })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        F64x1(if self.0 > o.0 { self.0 } else { o.0 })
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        F64x1(self.0.sqrt())
    }
    #[inline(always)]
    fn lt(self, o: Self) -> u32 {
        u32::from(self.0 < o.0)
    }
    #[inline(always)]
    fn le(self, o: Self) -> u32 {
        u32::from(self.0 <= o.0)
    }
    #[inline(always)]
    fn trunc(self, out: &mut [u32; 4]) {
        out[0] = self.0 as u32;
    }
}
