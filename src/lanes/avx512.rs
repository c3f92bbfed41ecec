//! The sixteen-lane tier: `core::arch::x86_64` AVX-512 intrinsics, chosen at run time (x86_64
//! only). One vector is one whole [`Chunk`].
//!
//! # Safety model
//!
//! As for the AVX2 tier (`super::avx2`): [`F32x16`] wraps an `__m512`, and its [`Lanes`] methods
//! call AVX-512F intrinsics without checking the CPU. That is sound only where AVX-512F, AVX2, FMA
//! and POPCNT are known to be present, which the compiler keeps so: `F32x16` is private to this
//! file and named as a type argument only in [`run`], a
//! `#[target_feature(enable = "avx512f,avx2,fma,popcnt")]` function that the dispatch calls only
//! after [`is_available`] returned true. Every method is `#[inline(always)]`, so it is compiled
//! inside that entry point with the features enabled. The f64 lanes of this tier are the AVX2
//! tier's `F64x4` (four lanes: the froxel rows it serves come a few at a time), sound here for the
//! same reason (AVX2 is among the entry point's features).

use super::avx2::F64x4;
use super::{Chunk, Lanes, WithLanes};
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

mod sort;

/// Whether this CPU runs the AVX-512 tier (AVX-512F, AVX2, FMA and POPCNT). Detection is cached
/// by std.
#[inline]
pub(super) fn is_available() -> bool {
    x86_features_available!("avx512f", "avx2", "fma", "popcnt")
}

/// This tier's entry point and its one `#[target_feature]` boundary: runs `job` with sixteen
/// lanes. Everything below it is inlined (`.ci/check-inlining` checks the release build).
///
/// Callers must ensure [`is_available`] returned true (calling this is `unsafe`).
#[target_feature(enable = "avx512f,avx2,fma,popcnt")]
pub(super) fn run<J: WithLanes>(job: J) -> J::Output {
    job.run::<F32x16>()
}

/// Sixteen f32 lanes in a 512-bit register. See the module's safety model.
#[derive(Clone, Copy, Debug)]
struct F32x16(__m512);

impl Lanes for F32x16 {
    const N: usize = 16;
    const ENTRY_POINT_IS_A_CALL: bool = true;
    type Mask = __mmask16;

    #[inline(always)]
    fn splat(x: f32) -> Self {
        // SAFETY: AVX-512F is present wherever an F32x16 is used (module safety model).
        F32x16(unsafe { _mm512_set1_ps(x) })
    }
    #[inline(always)]
    fn gather_chunk(src: &[f32], idx: &[u32; 16]) -> Chunk {
        // `vgatherdps` takes signed 32-bit indices: a column longer than `i32::MAX` rows (8 GiB)
        // goes through the checked scalar loads.
        if src.len() > i32::MAX as usize {
            return super::gather_lanes(src, idx);
        }
        let mut out = Chunk([0.0; 16]);
        // SAFETY: AVX-512F is present (module safety model). `idx` is 16 readable u32 (a
        // reference to an array); every index is checked below `src.len() <= i32::MAX` before
        // the gather, so each lane reads `src[idx[l]]`, inside `src`, with a non-negative
        // signed index, scaled by 4 (the size of an f32); `out.0` is 16 writable f32, 64-byte
        // aligned (`Chunk` is `align(64)`).
        unsafe {
            let v = _mm512_loadu_si512(idx.as_ptr().cast());
            let outside = _mm512_cmpge_epu32_mask(v, _mm512_set1_epi32(src.len() as i32));
            assert!(
                outside == 0,
                "gather: index out of bounds ({} rows)",
                src.len()
            );
            let gathered = _mm512_i32gather_ps::<4>(v, src.as_ptr());
            _mm512_store_ps(out.0.as_mut_ptr(), gathered);
        }
        out
    }
    #[inline(always)]
    fn load(chunk: &Chunk, j: usize) -> Self {
        let lanes: &[f32; 16] = (&chunk.0[j * 16..j * 16 + 16])
            .try_into()
            .expect("16 lanes");
        // SAFETY: `lanes` is 16 readable f32 (the slice above is bounds-checked); unaligned
        // load; AVX-512F is present (module safety model).
        F32x16(unsafe { _mm512_loadu_ps(lanes.as_ptr()) })
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        // SAFETY: AVX-512F is present (module safety model).
        F32x16(unsafe { _mm512_add_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        // SAFETY: AVX-512F is present (module safety model).
        F32x16(unsafe { _mm512_sub_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        // SAFETY: AVX-512F is present (module safety model).
        F32x16(unsafe { _mm512_mul_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        // SAFETY: AVX-512F is present (module safety model). `vminps` returns the second
        // operand when either is NaN or both are zeros, as the other tiers' `minps`.
        F32x16(unsafe { _mm512_min_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        // SAFETY: AVX-512F is present (module safety model); `vmaxps` as `maxps`.
        F32x16(unsafe { _mm512_max_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        // SAFETY: AVX-512F is present (module safety model). Clears the sign bit, as the
        // other tiers' AND-NOT with -0.0.
        F32x16(unsafe { _mm512_abs_ps(self.0) })
    }
    #[inline(always)]
    fn le(self, o: Self) -> __mmask16 {
        // SAFETY: AVX-512F is present (module safety model). LE_OQ: false on NaN, like `<=`.
        unsafe { _mm512_cmp_ps_mask::<_CMP_LE_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn lt(self, o: Self) -> __mmask16 {
        // SAFETY: AVX-512F is present (module safety model). LT_OQ: false on NaN, like `<`.
        unsafe { _mm512_cmp_ps_mask::<_CMP_LT_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn test_bits(self, o: Self) -> __mmask16 {
        // SAFETY: AVX-512F is present (module safety model). `vptestmd`: bit set where the
        // lanes' AND is non-zero.
        unsafe { _mm512_test_epi32_mask(_mm512_castps_si512(self.0), _mm512_castps_si512(o.0)) }
    }
    #[inline(always)]
    fn and(a: __mmask16, b: __mmask16) -> __mmask16 {
        a & b
    }
    #[inline(always)]
    fn bits(m: __mmask16) -> u32 {
        u32::from(m)
    }
    type Counts = __m512i;
    #[inline(always)]
    fn counts_zero() -> __m512i {
        // SAFETY: AVX-512F is present (module safety model).
        unsafe { _mm512_setzero_si512() }
    }
    #[inline(always)]
    fn count(acc: __m512i, m: __mmask16) -> __m512i {
        // SAFETY: AVX-512F is present (module safety model). `acc - (-1)` in the lanes of `m`,
        // the others kept: one masked `vpsubd` (wrapping).
        unsafe { _mm512_mask_sub_epi32(acc, m, acc, _mm512_set1_epi32(-1)) }
    }
    #[inline(always)]
    fn counts_add(a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: AVX-512F is present (module safety model).
        unsafe { _mm512_add_epi32(a, b) }
    }
    #[inline(always)]
    fn counts_store(acc: __m512i, out: &mut [u32; 16]) {
        // SAFETY: AVX-512F is present (module safety model); `out` is 16 writable u32
        // (unaligned store).
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast::<__m512i>(), acc) }
    }
    #[inline(always)]
    fn write_chunk_indices(bits: u32, base: u32, out: &mut [MaybeUninit<u32>]) -> usize {
        Self::store_chunk_indices(bits, base, Self::pack_chunk_indices(bits, base), out)
    }
    #[inline(always)]
    fn write_chunk_values(bits: u32, values: &[u32; 16], out: &mut [MaybeUninit<u32>]) -> usize {
        // SAFETY: AVX-512F is present (module safety model). The load reads the 16 u32 of
        // `values`; the compress is a register operation.
        let packed = unsafe {
            let v = _mm512_loadu_si512(values.as_ptr().cast::<__m512i>());
            _mm512_maskz_compress_epi32(bits as __mmask16, v)
        };
        // The same store as the index writer's.
        Self::store_chunk_indices(bits, 0, packed, out)
    }
    type PackedIndices = __m512i;
    #[inline(always)]
    fn pack_chunk_indices(bits: u32, base: u32) -> __m512i {
        // SAFETY: AVX-512F is present (module safety model); register operations only.
        unsafe {
            let lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            let idx = _mm512_add_epi32(lanes, _mm512_set1_epi32(base as i32));
            // The hits' indices packed to the front (`vpcompressd` into a register: the
            // form that writes memory directly is slow on some processors).
            _mm512_maskz_compress_epi32(bits as __mmask16, idx)
        }
    }
    #[inline(always)]
    fn store_chunk_indices(
        bits: u32,
        _base: u32,
        packed: __m512i,
        out: &mut [MaybeUninit<u32>],
    ) -> usize {
        let out: &mut [MaybeUninit<u32>; 16] = (&mut out[..16]).try_into().expect("16 slots");
        // SAFETY: AVX-512F is present (module safety model). The store writes 16 u32, all
        // inside `out` (16 long, bounds-checked above; unaligned store); every lane of an
        // `__m512i` is an initialised `u32`, whatever `packed` holds.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast::<__m512i>(), packed) };
        (bits & 0xffff).count_ones() as usize
    }

    #[inline(always)]
    fn sort_keys(keys: &mut [u64]) {
        sort::sort_keys(keys);
    }
    #[inline(always)]
    fn try_sort_indices(v: &mut [u32]) -> bool {
        sort::try_sort_indices(v)
    }
    type F64 = F64x4;
}

/// Each lane operation of [`F32x16`] against the scalar tier's, bit for bit, on every pair of
/// special values (signed zeros, infinities, NaNs with payloads, signalling NaNs, subnormals,
/// the extremes), and its index writer against the scalar one on every 16-bit mask and beyond.
/// The kernels' tests cover the tier end to end; these pin each operation on its own, NaN
/// payloads included. (Written by a review of the tier, 2026-11-24.)
#[cfg(test)]
mod tests {
    use super::F32x16;
    use crate::lanes::scalar::F32x1;
    use crate::lanes::{Chunk, Lanes};
    use core::mem::MaybeUninit;

    fn specials() -> Vec<f32> {
        let mut v = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -7.25,
            3.0e38,
            1e-40,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7fc0_1234),
            f32::from_bits(0xffc0_4321),
            f32::from_bits(0x7f80_0001),
            f32::from_bits(0xff80_0777),
            f32::from_bits(1),
            f32::from_bits(0x8000_0001),
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
        ];
        v.sort_by_key(|x| x.to_bits());
        v
    }

    fn lanes(v: F32x16) -> [u32; 16] {
        // SAFETY: `F32x16` is one `__m512`, 64 bytes of plain f32 bits, as is `[u32; 16]`.
        unsafe { core::mem::transmute::<F32x16, [u32; 16]>(v) }
    }

    fn lane(v: F32x1) -> u32 {
        // SAFETY: `F32x1` wraps one `f32`; every bit pattern is a valid `u32`.
        unsafe { core::mem::transmute::<F32x1, u32>(v) }
    }

    /// # Safety
    /// The CPU must have AVX-512F, AVX2, FMA and POPCNT ([`super::is_available`]).
    #[target_feature(enable = "avx512f,avx2,fma,popcnt")]
    unsafe fn check_every_operation() {
        let sp = specials();
        let mut pairs: Vec<(f32, f32)> = sp
            .iter()
            .flat_map(|&a| sp.iter().map(move |&b| (a, b)))
            .collect();
        while !pairs.len().is_multiple_of(16) {
            pairs.push((0.0, 0.0));
        }
        for ch in pairs.chunks(16) {
            let ca = Chunk(core::array::from_fn(|i| ch[i].0));
            let cb = Chunk(core::array::from_fn(|i| ch[i].1));
            let (va, vb) = (F32x16::load(&ca, 0), F32x16::load(&cb, 0));
            let got = [
                lanes(va.add(vb)),
                lanes(va.sub(vb)),
                lanes(va.mul(vb)),
                lanes(va.min(vb)),
                lanes(va.max(vb)),
                lanes(va.abs()),
            ];
            let le = F32x16::bits(va.le(vb));
            let lt = F32x16::bits(va.lt(vb));
            let both = F32x16::bits(F32x16::and(va.le(vb), vb.lt(va)));
            let test = F32x16::bits(va.test_bits(vb));
            assert!(le < 1 << 16 && lt < 1 << 16 && both < 1 << 16 && test < 1 << 16);
            for i in 0..16 {
                let (a, b) = (F32x1::load(&ca, i), F32x1::load(&cb, i));
                let want = [
                    lane(a.add(b)),
                    lane(a.sub(b)),
                    lane(a.mul(b)),
                    lane(a.min(b)),
                    lane(a.max(b)),
                    lane(a.abs()),
                ];
                for (op, w) in want.iter().enumerate() {
                    assert_eq!(
                        got[op][i], *w,
                        "op {op}, a = {:?}, b = {:?}",
                        ch[i].0, ch[i].1
                    );
                }
                assert_eq!(le >> i & 1, F32x1::bits(a.le(b)));
                assert_eq!(lt >> i & 1, F32x1::bits(a.lt(b)));
                assert_eq!(both >> i & 1, F32x1::bits(F32x1::and(a.le(b), b.lt(a))));
                assert_eq!(test >> i & 1, F32x1::bits(a.test_bits(b)));
            }
        }
        for bits in 0u32..0x3_0000 {
            let (mut wide, mut one) = ([MaybeUninit::uninit(); 20], [MaybeUninit::uninit(); 20]);
            let n = F32x16::write_chunk_indices(bits, 1000, &mut wide);
            assert_eq!(
                n,
                F32x1::write_chunk_indices(bits, 1000, &mut one),
                "{bits:#x}"
            );
            // SAFETY: both writers initialised their first `n` slots (the trait's contract).
            let (w, o) = unsafe {
                (
                    wide[..n]
                        .iter()
                        .map(|x| x.assume_init())
                        .collect::<Vec<u32>>(),
                    one[..n]
                        .iter()
                        .map(|x| x.assume_init())
                        .collect::<Vec<u32>>(),
                )
            };
            assert_eq!(w, o, "{bits:#x}");
        }
    }

    #[test]
    fn every_operation_equals_the_scalar_tier_on_special_values() {
        if !super::is_available() {
            return;
        }
        // SAFETY: the tier's features were detected just above.
        unsafe { check_every_operation() }
    }

    /// # Safety
    /// The CPU must have AVX-512F ([`super::is_available`]).
    #[target_feature(enable = "avx512f,avx2,fma,popcnt")]
    unsafe fn write_into_fifteen() {
        let mut out = [MaybeUninit::uninit(); 15];
        F32x16::write_chunk_indices(1, 0, &mut out);
    }

    #[test]
    fn a_short_index_buffer_panics_instead_of_writing_past_it() {
        if !super::is_available() {
            return;
        }
        let caught = std::panic::catch_unwind(|| {
            // SAFETY: the tier's features were detected just above.
            unsafe { write_into_fifteen() }
        });
        assert!(caught.is_err(), "16 slots are required");
    }
}
