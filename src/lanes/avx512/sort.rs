//! The AVX-512 tier's short sorts: the register network of [`network`](super::super::network)
//! on eight `u64` lanes (64 keys: the broadphase's hits gathered from several cells,
//! [`Lanes::sort_keys`](super::Lanes::sort_keys)) and on sixteen `u32` lanes (128 indices: a
//! blocked container's hit lists, [`Lanes::try_sort_indices`](super::Lanes::try_sort_indices)),
//! and above 128 indices, up to 1,024, a quicksort whose parts end in the network.
//!
//! Safety: as the rest of the tier (see `super`'s safety model), these functions run only inside
//! the AVX-512 entry point, where AVX-512F is known to be present.

use super::super::network::{Keys, sort_register, sort_short};
use core::arch::x86_64::*;

/// Eight `u64` keys.
#[derive(Clone, Copy)]
struct U64x8(__m512i);

/// Sixteen `u32` keys.
#[derive(Clone, Copy)]
struct U32x16(__m512i);

/// The lane mask of the first `min(n, lanes)` lanes.
#[inline(always)]
fn first_lanes(n: usize, lanes: usize) -> u16 {
    ((1u32 << n.min(lanes)) - 1) as u16
}

impl Keys for U64x8 {
    type Key = u64;
    const LANES: usize = 8;
    #[inline(always)]
    fn pad() -> Self {
        // SAFETY: AVX-512F is present (module safety model).
        U64x8(unsafe { _mm512_set1_epi64(-1) })
    }
    #[inline(always)]
    fn min_max(self, o: Self) -> (Self, Self) {
        // SAFETY: as in `pad`.
        unsafe {
            (
                U64x8(_mm512_min_epu64(self.0, o.0)),
                U64x8(_mm512_max_epu64(self.0, o.0)),
            )
        }
    }
    #[inline(always)]
    fn exchange(self, j: usize, keeps_max: u16) -> Self {
        // SAFETY: as in `pad`. (`j` and `keeps_max` are constants once the network is inlined.)
        unsafe {
            let lanes = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
            let partner = _mm512_xor_si512(lanes, _mm512_set1_epi64(j as i64));
            let other = _mm512_permutexvar_epi64(partner, self.0);
            let (lo, hi) = (
                _mm512_min_epu64(self.0, other),
                _mm512_max_epu64(self.0, other),
            );
            U64x8(_mm512_mask_blend_epi64(keeps_max as u8, lo, hi))
        }
    }
    #[inline(always)]
    fn reverse(self) -> Self {
        // SAFETY: as in `pad`.
        U64x8(unsafe { _mm512_permutexvar_epi64(_mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7), self.0) })
    }
    #[inline(always)]
    fn load(keys: &[u64], at: usize) -> Self {
        let lanes = first_lanes(keys.len() - at, 8) as u8;
        // SAFETY: AVX-512F is present. The mask selects lanes `at .. min(len, at + 8)`, all
        // inside `keys` (`at < len`, the caller's); masked-off lanes are neither read nor
        // faulted on, and keep the pad.
        U64x8(unsafe {
            _mm512_mask_loadu_epi64(Self::pad().0, lanes, keys.as_ptr().add(at).cast())
        })
    }
    #[inline(always)]
    fn store(self, keys: &mut [u64], at: usize) {
        let lanes = first_lanes(keys.len() - at, 8) as u8;
        // SAFETY: as in `load`: the masked store writes only lanes inside `keys`, borrowed
        // mutably.
        unsafe { _mm512_mask_storeu_epi64(keys.as_mut_ptr().add(at).cast(), lanes, self.0) };
    }
}

impl Keys for U32x16 {
    type Key = u32;
    const LANES: usize = 16;
    #[inline(always)]
    fn pad() -> Self {
        // SAFETY: AVX-512F is present (module safety model).
        U32x16(unsafe { _mm512_set1_epi32(-1) })
    }
    #[inline(always)]
    fn min_max(self, o: Self) -> (Self, Self) {
        // SAFETY: as in `pad`.
        unsafe {
            (
                U32x16(_mm512_min_epu32(self.0, o.0)),
                U32x16(_mm512_max_epu32(self.0, o.0)),
            )
        }
    }
    #[inline(always)]
    fn exchange(self, j: usize, keeps_max: u16) -> Self {
        // SAFETY: as in `pad`. (`j` and `keeps_max` are constants once the network is inlined.)
        unsafe {
            let lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
            let partner = _mm512_xor_si512(lanes, _mm512_set1_epi32(j as i32));
            let other = _mm512_permutexvar_epi32(partner, self.0);
            let (lo, hi) = (
                _mm512_min_epu32(self.0, other),
                _mm512_max_epu32(self.0, other),
            );
            U32x16(_mm512_mask_blend_epi32(keeps_max, lo, hi))
        }
    }
    #[inline(always)]
    fn reverse(self) -> Self {
        // SAFETY: as in `pad`.
        U32x16(unsafe {
            let lanes = _mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            _mm512_permutexvar_epi32(lanes, self.0)
        })
    }
    #[inline(always)]
    fn load(keys: &[u32], at: usize) -> Self {
        let lanes = first_lanes(keys.len() - at, 16);
        // SAFETY: as `U64x8::load`, with sixteen lanes.
        U32x16(unsafe {
            _mm512_mask_loadu_epi32(Self::pad().0, lanes, keys.as_ptr().add(at).cast())
        })
    }
    #[inline(always)]
    fn store(self, keys: &mut [u32], at: usize) {
        let lanes = first_lanes(keys.len() - at, 16);
        // SAFETY: as `U64x8::store`, with sixteen lanes.
        unsafe { _mm512_mask_storeu_epi32(keys.as_mut_ptr().add(at).cast(), lanes, self.0) };
    }
}

/// `keys` sorted ascending: in registers up to 64 keys, else by `sort_unstable`.
#[inline(always)]
pub(super) fn sort_keys(keys: &mut [u64]) {
    if !sort_short::<U64x8>(keys, 8) {
        keys.sort_unstable();
    }
}

/// Indices sorted by a quicksort whose parts end in registers, up to this many; more by
/// `radix::sort_indices`. Measured (lists of random indices below 1,000,000, one thread, the
/// Intel Xeon of 2026-11-29; quicksort / radix, a probe of this code): 200 indices 0.44 / 1.33
/// us, 500 1.87 / 3.28, 1,000 3.1 / 3.1-3.5, 3,000 10.6 / 8.4. In `Blocked<Aabbs>::extend_hits`
/// over 1,000,000 boxes (1,000 box queries, about 1,000 hits each), a bound of 1,536 against
/// 768 measured 1.04-1.06x against 1.04x.
const QUICK_MAX: usize = 1024;

/// Hit indices sorted ascending, if there are at most [`QUICK_MAX`]: in registers up to 128, by
/// a quicksort into parts of at most 128 above. Returns whether it sorted them (longer lists
/// are left to the caller's radix sort).
#[inline(always)]
pub(super) fn try_sort_indices(v: &mut [u32]) -> bool {
    if v.len() <= 128 {
        sort_indices_short(v);
    } else if v.len() <= QUICK_MAX {
        let mut scratch = [0u32; QUICK_MAX];
        let n = v.len();
        // SAFETY: AVX-512F, AVX2, FMA and POPCNT are present (module safety model): the
        // quicksort, a call of its own (it recurses), enables the tier's features as its entry
        // point does.
        unsafe { quicksort(v, &mut scratch[..n], true, MAX_DEPTH) };
    } else {
        return false;
    }
    true
}

/// At most 128 indices sorted in registers.
#[inline(always)]
fn sort_indices_short(v: &mut [u32]) {
    let sorted = sort_short::<U32x16>(v, 8);
    debug_assert!(sorted, "at most 128 indices");
}

/// Partition levels a quicksort may take before it hands a part to `sort_unstable`: pivots that
/// split off fewer than a sixteenth each time would need more.
const MAX_DEPTH: u32 = 16;

/// Sorts into `out` the indices held in `out` (`in_out`) or in `other` (as long): parts of at
/// most 128 in registers, longer ones split at the median of 16 samples, each side's values
/// moved into the other buffer. A split that leaves a side empty (many equal values), or a part
/// still long after `depth` splits, is sorted by `sort_unstable`.
#[target_feature(enable = "avx512f,avx2,fma,popcnt")]
fn quicksort(out: &mut [u32], other: &mut [u32], in_out: bool, depth: u32) {
    let n = out.len();
    if n <= 128 || depth == 0 {
        if !in_out {
            out.copy_from_slice(other);
        }
        if n <= 128 {
            sort_indices_short(out);
        } else {
            out.sort_unstable();
        }
        return;
    }
    let left = if in_out {
        partition(out, other)
    } else {
        partition(other, out)
    };
    // Every value is in the other buffer now.
    if left == 0 || left == n {
        if in_out {
            out.copy_from_slice(other);
        }
        out.sort_unstable();
        return;
    }
    let (out_left, out_right) = out.split_at_mut(left);
    let (other_left, other_right) = other.split_at_mut(left);
    quicksort(out_left, other_left, !in_out, depth - 1);
    quicksort(out_right, other_right, !in_out, depth - 1);
}

/// Moves the values of `from` (more than 32) into `to` (as long): those below the median of 16
/// samples to its front, in their order, the others to its back; returns how many went to the
/// front.
#[inline(always)]
fn partition(from: &[u32], to: &mut [u32]) -> usize {
    let n = from.len();
    assert!(
        n > 32 && to.len() == n,
        "partition of {n} values into {}",
        to.len()
    );
    let mut samples = [0u32; 16];
    for (k, s) in samples.iter_mut().enumerate() {
        *s = from[k * (n / 16)];
    }
    let sorted = sort_register(U32x16::load(&samples, 0));
    sorted.store(&mut samples, 0);
    // SAFETY: AVX-512F is present (module safety model).
    let pivot = unsafe { _mm512_set1_epi32(samples[8] as i32) };
    let (mut left, mut right, mut i) = (0, 0, 0);
    // Whole registers stored at both ends while 32 values or more are left: the front's store
    // writes 16 lanes from `left`, the back's ends at `n - right`, and the lanes past the
    // values each keeps fall in the gap between the two ends, which the values not yet moved
    // (at least 16 more than this register's) keep open.
    while i + 32 <= n {
        // SAFETY: AVX-512F is present. `from[i..i + 16]` is inside `from` (`i + 32 <= n`). The
        // front store writes `to[left..left + 16]` and the back store `to[n - right - 16 ..
        // n - right]`, both inside `to` (`left + right = i <= n - 32`); each register holds
        // initialised `u32` values in every lane.
        unsafe {
            let x = _mm512_loadu_si512(from.as_ptr().add(i).cast());
            let below = _mm512_cmplt_epu32_mask(x, pivot);
            let taken = below.count_ones() as usize;
            // The kept values into the register's top lanes.
            let back = _mm512_maskz_expand_epi32(
                (0xffff_u32 << taken) as u16,
                _mm512_maskz_compress_epi32(!below, x),
            );
            _mm512_storeu_si512(to.as_mut_ptr().add(n - right - 16).cast(), back);
            let front = _mm512_maskz_compress_epi32(below, x);
            _mm512_storeu_si512(to.as_mut_ptr().add(left).cast(), front);
            left += taken;
            right += 16 - taken;
        }
        i += 16;
    }
    // The last values, each side's register compressed, then stored under a mask of its first
    // lanes (a compressing store to memory, `vpcompressd` with a memory operand, is microcoded
    // on Zen 4: on the AMD EPYC of 2026-11-29 it made this sort of 256 random indices take
    // 2.99 ns a value against 2.55, of 1,000 3.76 against 2.99).
    while i < n {
        let lanes = first_lanes(n - i, 16);
        let x = U32x16::load(from, i).0;
        // SAFETY: AVX-512F is present. The masked stores write `taken` lanes from `left` and
        // `count - taken` lanes ending at `n - right`: `left + right = i` and `count = min(16,
        // n - i)`, so both stay inside `to` and off the values already moved.
        unsafe {
            let below = _mm512_cmplt_epu32_mask(x, pivot) & lanes;
            let taken = below.count_ones() as usize;
            let kept = (lanes.count_ones() as usize) - taken;
            let front = _mm512_maskz_compress_epi32(below, x);
            _mm512_mask_storeu_epi32(
                to.as_mut_ptr().add(left).cast(),
                first_lanes(taken, 16),
                front,
            );
            let back = _mm512_maskz_compress_epi32(!below & lanes, x);
            let at = to.as_mut_ptr().add(n - right - kept);
            _mm512_mask_storeu_epi32(at.cast(), first_lanes(kept, 16), back);
            left += taken;
            right += kept;
        }
        i += 16;
    }
    left
}
