//! The eight-lane tier: `core::arch::x86_64` AVX2 intrinsics, chosen at run time (x86_64 only).
//!
//! # Safety model
//!
//! [`F32x8`] wraps an `__m256`. Its [`Lanes`] methods call AVX intrinsics without checking the
//! CPU, which is sound only where AVX2, FMA and POPCNT are known to be present. The compiler keeps
//! that so: `F32x8` is private to this file, and the only place it is named as a type argument is
//! [`run`], a `#[target_feature(enable = "avx2,fma,popcnt")]` function that [`dispatch`]
//! (`super::dispatch`) calls only after [`is_available`] returned true. A job cannot keep a value
//! of it past `run` (its output type does not depend on the lane type). Every method is
//! `#[inline(always)]`, so it is compiled inside `run` with the features enabled. [`F64x4`], the
//! f64 lanes, is also the AVX-512 tier's (`super::avx512`, visible to this layer only): named
//! there only inside that tier's entry point, whose features include AVX2 and whose detection
//! requires it, so the same argument holds.
//!
//! `wide::f32x8` cannot be used here: `wide` picks its implementation at compile time, so inside a
//! `#[target_feature]` function it still emits two SSE halves.
//!
//! [`dispatch`]: super::dispatch

use super::{Chunk, Lanes, Lanes64, WithLanes, left_pack_table};
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

mod sort;

/// Whether this CPU runs the AVX2 tier (AVX2, FMA and POPCNT). Detection is cached by std.
#[inline]
pub(super) fn is_available() -> bool {
    x86_features_available!("avx2", "fma", "popcnt")
}

/// This tier's entry point and its one `#[target_feature]` boundary: runs `job` with eight lanes.
/// Everything below it is inlined (`.ci/check-inlining` checks the release build).
///
/// Callers must ensure [`is_available`] returned true (calling this is `unsafe`).
#[target_feature(enable = "avx2,fma,popcnt")]
pub(super) fn run<J: WithLanes>(job: J) -> J::Output {
    job.run::<F32x8>()
}

/// Eight f32 lanes in a 256-bit register. See the module's safety model.
#[derive(Clone, Copy, Debug)]
struct F32x8(__m256);

/// Left-pack table for eight lanes: set-bit positions of each 8-bit mask, one per byte.
static PACK8: [u64; 256] = left_pack_table::<256>();

impl Lanes for F32x8 {
    const N: usize = 8;
    const ENTRY_POINT_IS_A_CALL: bool = true;
    type Mask = __m256;

    #[inline(always)]
    fn splat(x: f32) -> Self {
        // SAFETY: AVX is present wherever an F32x8 is used (module safety model).
        F32x8(unsafe { _mm256_set1_ps(x) })
    }
    #[inline(always)]
    fn gather_chunk(src: &[f32], idx: &[u32; 16]) -> Chunk {
        // `vgatherdps` takes signed 32-bit indices: a column longer than `i32::MAX` rows (8 GiB)
        // goes through the checked scalar loads.
        if src.len() > i32::MAX as usize || src.is_empty() {
            return super::gather_lanes(src, idx);
        }
        let mut out = Chunk([0.0; 16]);
        // SAFETY: AVX2 is present (module safety model). `idx` is 16 readable u32 (a reference
        // to an array), read as two unaligned 8-lane vectors; every index is checked to be at
        // most `src.len() - 1 < i32::MAX` (unsigned `min` equal to the index) before the
        // gathers, so each lane reads `src[idx[l]]`, inside `src`, with a non-negative signed
        // index, scaled by 4 (the size of an f32); `out.0` is 16 writable f32, 32-byte aligned
        // halves (`Chunk` is `align(64)`).
        unsafe {
            let last = _mm256_set1_epi32((src.len() - 1) as i32);
            let lo = _mm256_loadu_si256(idx.as_ptr().cast());
            let hi = _mm256_loadu_si256(idx.as_ptr().add(8).cast());
            let inside = _mm256_and_si256(
                _mm256_cmpeq_epi32(_mm256_min_epu32(lo, last), lo),
                _mm256_cmpeq_epi32(_mm256_min_epu32(hi, last), hi),
            );
            assert!(
                _mm256_movemask_epi8(inside) == -1,
                "gather: index out of bounds ({} rows)",
                src.len()
            );
            _mm256_store_ps(
                out.0.as_mut_ptr(),
                _mm256_i32gather_ps::<4>(src.as_ptr(), lo),
            );
            _mm256_store_ps(
                out.0.as_mut_ptr().add(8),
                _mm256_i32gather_ps::<4>(src.as_ptr(), hi),
            );
        }
        out
    }
    #[inline(always)]
    fn load(chunk: &Chunk, j: usize) -> Self {
        let lanes = &chunk.0[j * 8..j * 8 + 8];
        // SAFETY: `lanes` is 8 readable f32 (the slice above is bounds-checked); unaligned
        // load; AVX is present (module safety model).
        F32x8(unsafe { _mm256_loadu_ps(lanes.as_ptr()) })
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        // SAFETY: AVX is present (module safety model).
        F32x8(unsafe { _mm256_add_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        // SAFETY: AVX is present (module safety model).
        F32x8(unsafe { _mm256_sub_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        // SAFETY: AVX is present (module safety model).
        F32x8(unsafe { _mm256_mul_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        // SAFETY: AVX is present (module safety model).
        F32x8(unsafe { _mm256_min_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        // SAFETY: AVX is present (module safety model).
        F32x8(unsafe { _mm256_max_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        // SAFETY: AVX is present (module safety model).
        F32x8(unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0) })
    }
    #[inline(always)]
    fn le(self, o: Self) -> __m256 {
        // SAFETY: AVX is present (module safety model). LE_OQ: false on NaN, like `<=`.
        unsafe { _mm256_cmp_ps::<_CMP_LE_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn lt(self, o: Self) -> __m256 {
        // SAFETY: AVX is present (module safety model). LT_OQ: false on NaN, like `<`.
        unsafe { _mm256_cmp_ps::<_CMP_LT_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn test_bits(self, o: Self) -> __m256 {
        // SAFETY: AVX2 is present (module safety model). Integer AND of the bit patterns, lanes
        // equal to zero set, then inverted: all ones where the AND is non-zero.
        unsafe {
            let and = _mm256_and_si256(_mm256_castps_si256(self.0), _mm256_castps_si256(o.0));
            let zero = _mm256_cmpeq_epi32(and, _mm256_setzero_si256());
            _mm256_castsi256_ps(_mm256_xor_si256(zero, _mm256_set1_epi32(-1)))
        }
    }
    #[inline(always)]
    fn and(a: __m256, b: __m256) -> __m256 {
        // SAFETY: AVX is present (module safety model).
        unsafe { _mm256_and_ps(a, b) }
    }
    #[inline(always)]
    fn bits(m: __m256) -> u32 {
        // SAFETY: AVX is present (module safety model).
        unsafe { _mm256_movemask_ps(m) as u32 }
    }
    type Counts = __m256i;
    #[inline(always)]
    fn counts_zero() -> __m256i {
        // SAFETY: AVX is present (module safety model).
        unsafe { _mm256_setzero_si256() }
    }
    #[inline(always)]
    fn count(acc: __m256i, m: __m256) -> __m256i {
        // SAFETY: AVX2 is present (module safety model). A set lane is all ones, -1 as an
        // integer: subtracting it adds 1 (`vpsubd` wraps).
        unsafe { _mm256_sub_epi32(acc, _mm256_castps_si256(m)) }
    }
    #[inline(always)]
    fn counts_add(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: AVX2 is present (module safety model).
        unsafe { _mm256_add_epi32(a, b) }
    }
    #[inline(always)]
    fn counts_store(acc: __m256i, out: &mut [u32; 16]) {
        // SAFETY: AVX is present (module safety model); `out` has 16 writable u32, the store
        // writes the first 8 (unaligned).
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast::<__m256i>(), acc) }
    }
    #[inline(always)]
    fn write_chunk_indices(bits: u32, base: u32, out: &mut [MaybeUninit<u32>]) -> usize {
        Self::store_chunk_indices(bits, base, Self::pack_chunk_indices(bits, base), out)
    }
    #[inline(always)]
    fn write_chunk_values(bits: u32, values: &[u32; 16], out: &mut [MaybeUninit<u32>]) -> usize {
        let (lo, hi) = (bits & 0xff, (bits >> 8) & 0xff);
        // SAFETY: AVX2 is present (module safety model). The loads read the two halves of
        // `values` (16 u32); the rest are register operations.
        let packed = unsafe {
            let v_lo = _mm256_loadu_si256(values.as_ptr().cast::<__m256i>());
            let v_hi = _mm256_loadu_si256(values.as_ptr().add(8).cast::<__m256i>());
            // The hits' lane positions of each half, one per byte (`PACK8`), as the permutes'
            // lane indices.
            let p_lo = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(PACK8[lo as usize] as i64));
            let p_hi = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(PACK8[hi as usize] as i64));
            [
                _mm256_permutevar8x32_epi32(v_lo, p_lo),
                _mm256_permutevar8x32_epi32(v_hi, p_hi),
            ]
        };
        // The same two stores as the index writer's.
        Self::store_chunk_indices(bits, 0, packed, out)
    }
    #[inline(always)]
    fn try_sort_indices(v: &mut [u32]) -> bool {
        sort::try_sort_indices(v)
    }
    #[inline(always)]
    fn write_block_indices(bits: u32, base: u32, out: &mut [u32; 16]) -> usize {
        debug_assert!(bits <= 0xff, "a block's mask has 8 bits");
        let lo = bits & 0xff;
        // SAFETY: AVX2 is present (module safety model). The store writes 8 u32 at the start of
        // `out` (16 long); the rest are register operations.
        unsafe {
            let positions = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(PACK8[lo as usize] as i64));
            let indices = _mm256_add_epi32(positions, _mm256_set1_epi32(base as i32));
            _mm256_storeu_si256(out.as_mut_ptr().cast::<__m256i>(), indices);
        }
        lo.count_ones() as usize
    }
    type PackedIndices = [__m256i; 2];
    #[inline(always)]
    fn pack_chunk_indices(bits: u32, base: u32) -> [__m256i; 2] {
        let (lo, hi) = (bits & 0xff, (bits >> 8) & 0xff);
        // Lane positions of the upper half are 8..16: add 8 to every packed byte.
        let packed_hi = PACK8[hi as usize] + 0x0808_0808_0808_0808;
        // SAFETY: AVX2 is present (module safety model); register operations only.
        unsafe {
            let vbase = _mm256_set1_epi32(base as i32);
            let first = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(PACK8[lo as usize] as i64));
            let second = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(packed_hi as i64));
            [
                _mm256_add_epi32(first, vbase),
                _mm256_add_epi32(second, vbase),
            ]
        }
    }
    #[inline(always)]
    fn store_chunk_indices(
        bits: u32,
        _base: u32,
        packed: [__m256i; 2],
        out: &mut [MaybeUninit<u32>],
    ) -> usize {
        let out = &mut out[..16];
        let (lo, hi) = (bits & 0xff, (bits >> 8) & 0xff);
        let n_lo = lo.count_ones() as usize;
        // SAFETY: AVX2 is present (module safety model). Both stores are 8 u32 inside `out`
        // (16 long, bounds-checked above): the first at 0, the second at `n_lo <= 8`; every
        // lane of an `__m256i` is an initialised `u32`, whatever `packed` holds.
        unsafe {
            let dst = out.as_mut_ptr();
            _mm256_storeu_si256(dst.cast::<__m256i>(), packed[0]);
            _mm256_storeu_si256(dst.add(n_lo).cast::<__m256i>(), packed[1]);
        }
        n_lo + hi.count_ones() as usize
    }

    type F64 = F64x4;
}

/// Four f64 lanes in a 256-bit register. The module's safety model holds as for [`F32x8`].
#[derive(Clone, Copy, Debug)]
pub(super) struct F64x4(__m256d);

impl Lanes64 for F64x4 {
    const N: usize = 4;

    #[inline(always)]
    fn splat(x: f64) -> Self {
        // SAFETY: AVX is present wherever an F64x4 is used (module safety model).
        F64x4(unsafe { _mm256_set1_pd(x) })
    }
    #[inline(always)]
    fn load(s: &[f64], i: usize) -> Self {
        let lanes = &s[i..i + 4];
        // SAFETY: `lanes` is 4 readable f64 (bounds-checked above); unaligned load; AVX is
        // present (module safety model).
        F64x4(unsafe { _mm256_loadu_pd(lanes.as_ptr()) })
    }
    #[inline(always)]
    fn gather(table: &[f64], idx: &[u32; 4]) -> Self {
        // Four bounds-checked scalar loads (safe indexing; `vgatherdpd` was not tried).
        let v = idx.map(|i| table[i as usize]);
        // SAFETY: AVX is present (module safety model).
        F64x4(unsafe { _mm256_set_pd(v[3], v[2], v[1], v[0]) })
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        // SAFETY: AVX is present (module safety model).
        F64x4(unsafe { _mm256_add_pd(self.0, o.0) })
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        // SAFETY: AVX is present (module safety model).
        F64x4(unsafe { _mm256_sub_pd(self.0, o.0) })
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        // SAFETY: AVX is present (module safety model).
        F64x4(unsafe { _mm256_mul_pd(self.0, o.0) })
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        // SAFETY: AVX is present (module safety model).
        F64x4(unsafe { _mm256_min_pd(self.0, o.0) })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        // SAFETY: AVX is present (module safety model).
        F64x4(unsafe { _mm256_max_pd(self.0, o.0) })
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        // SAFETY: AVX is present (module safety model).
        F64x4(unsafe { _mm256_sqrt_pd(self.0) })
    }
    #[inline(always)]
    fn lt(self, o: Self) -> u32 {
        // SAFETY: AVX is present (module safety model). LT_OQ: false on NaN, like `<`.
        unsafe { _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LT_OQ>(self.0, o.0)) as u32 }
    }
    #[inline(always)]
    fn le(self, o: Self) -> u32 {
        // SAFETY: AVX is present (module safety model). LE_OQ: false on NaN, like `<=`.
        unsafe { _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LE_OQ>(self.0, o.0)) as u32 }
    }
    #[inline(always)]
    fn trunc(self, out: &mut [u32; 4]) {
        // SAFETY: AVX is present (module safety model); the store writes 16 bytes into
        // `out`, which is 16 bytes long (unaligned store). Lanes outside the i32 range
        // convert to `i32::MIN` (the documented unspecified value).
        unsafe {
            let v = _mm256_cvttpd_epi32(self.0);
            _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), v);
        }
    }
}
