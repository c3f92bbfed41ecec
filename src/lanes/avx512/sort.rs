//! Short `u64` sorts in registers: a bitonic network over up to eight 512-bit registers of eight
//! keys each (64 keys), for the broadphase's hits gathered from several cells
//! ([`Lanes::sort_keys`](super::Lanes::sort_keys)).
//!
//! A register is sorted by the six compare-exchange stages of an 8-key bitonic sort, each a
//! lane permute, a `min`, a `max` and a blend. Runs of `s` sorted registers are merged pairwise:
//! the first stage compares each register of the first run with the reversed mirror register of
//! the second (so two ascending runs need no reversal first), the next ones compare registers
//! `d = s/2, s/4, .., 1` apart, and each register finishes with the three in-register stages.
//! Keys past the end pad the last registers as `u64::MAX`, which sort to the back and are not
//! stored.
//!
//! Safety: as the rest of the tier (see `super`'s safety model), these functions run only inside
//! the AVX-512 entry point, where AVX-512F is known to be present.

use core::arch::x86_64::*;

/// Lane `i` of the permutation that pairs each lane with lane `i ^ j`.
const fn partner(j: usize) -> [u64; 8] {
    let mut lanes = [0; 8];
    let mut i = 0;
    while i < 8 {
        lanes[i] = (i ^ j) as u64;
        i += 1;
    }
    lanes
}

/// The lanes that keep the max in the stage `(k, j)` of an ascending bitonic sort: those whose
/// bit `j` differs from their bit `k` (`k = 8`: bit `j` set).
const fn keeps_max(k: usize, j: usize) -> u8 {
    let mut mask = 0;
    let mut i = 0;
    while i < 8 {
        if ((i & j) != 0) != ((i & k) != 0) {
            mask |= 1 << i;
        }
        i += 1;
    }
    mask
}

/// The lanes in reverse order.
const REVERSED: [u64; 8] = [7, 6, 5, 4, 3, 2, 1, 0];

/// One compare-exchange stage inside a register: each lane against lane `i ^ J`, the lanes of
/// `MAX` keeping the larger.
#[inline(always)]
fn stage<const J: usize, const MAX: u8>(v: __m512i) -> __m512i {
    let lanes = const { partner(J) };
    // SAFETY: AVX-512F is present (module safety model); the load reads the 64-byte constant.
    unsafe {
        let other = _mm512_permutexvar_epi64(_mm512_loadu_si512(lanes.as_ptr().cast()), v);
        _mm512_mask_blend_epi64(MAX, _mm512_min_epu64(v, other), _mm512_max_epu64(v, other))
    }
}

/// The register's lanes reversed.
#[inline(always)]
fn reverse(v: __m512i) -> __m512i {
    // SAFETY: as in `stage`.
    unsafe { _mm512_permutexvar_epi64(_mm512_loadu_si512(REVERSED.as_ptr().cast()), v) }
}

/// `(min, max)` lane by lane.
#[inline(always)]
fn min_max(a: __m512i, b: __m512i) -> (__m512i, __m512i) {
    // SAFETY: AVX-512F is present (module safety model).
    unsafe { (_mm512_min_epu64(a, b), _mm512_max_epu64(a, b)) }
}

/// The last three stages: a register whose halves, quarters and pairs are in order between
/// them (after the stages across registers) sorted ascending.
#[inline(always)]
fn finish(v: __m512i) -> __m512i {
    let v = stage::<4, { keeps_max(8, 4) }>(v);
    let v = stage::<2, { keeps_max(8, 2) }>(v);
    stage::<1, { keeps_max(8, 1) }>(v)
}

/// One register sorted ascending.
#[inline(always)]
fn sort_register(v: __m512i) -> __m512i {
    let v = stage::<1, { keeps_max(2, 1) }>(v);
    let v = stage::<2, { keeps_max(4, 2) }>(v);
    let v = stage::<1, { keeps_max(4, 1) }>(v);
    finish(v)
}

/// The `R` registers (a power of two) sorted ascending as one sequence of `8 R` keys.
#[inline(always)]
fn sort_registers<const R: usize>(r: &mut [__m512i; R]) {
    for v in r.iter_mut() {
        *v = sort_register(*v);
    }
    let mut s = 1;
    while s < R {
        for base in (0..R).step_by(2 * s) {
            // The first run's register i against the second run's mirror, reversed: lane l of
            // the one meets key `16 s - 1 - (8 i + l)` of the two runs together.
            for i in 0..s {
                let (a, b) = (base + i, base + 2 * s - 1 - i);
                let (lo, hi) = min_max(r[a], reverse(r[b]));
                r[a] = lo;
                r[b] = reverse(hi);
            }
            let mut d = s / 2;
            while d >= 1 {
                for group in (base..base + 2 * s).step_by(2 * d) {
                    for i in group..group + d {
                        (r[i], r[i + d]) = min_max(r[i], r[i + d]);
                    }
                }
                d /= 2;
            }
        }
        for v in r.iter_mut() {
            *v = finish(*v);
        }
        s *= 2;
    }
}

/// `keys` (at most `8 R`) sorted ascending in `R` registers.
#[inline(always)]
fn sort_in<const R: usize>(keys: &mut [u64]) {
    let n = keys.len();
    assert!(n <= 8 * R, "{n} keys in {R} registers");
    let tail = |at: usize| (((1u32 << (n - at).min(8)) - 1) & 0xff) as u8;
    // SAFETY: AVX-512F is present (module safety model).
    let pad = unsafe { _mm512_set1_epi64(-1) };
    let mut r = [pad; R];
    for (k, v) in r.iter_mut().enumerate() {
        let at = 8 * k;
        if at < n {
            // SAFETY: AVX-512F is present. The mask selects lanes `at .. min(n, at + 8)`, all
            // inside `keys` (`at < n`); masked-off lanes are neither read nor faulted on, and
            // take the pad.
            *v = unsafe { _mm512_mask_loadu_epi64(pad, tail(at), keys.as_ptr().add(at).cast()) };
        }
    }
    sort_registers(&mut r);
    for (k, v) in r.iter().enumerate() {
        let at = 8 * k;
        if at < n {
            // SAFETY: as the load: the masked store writes only lanes inside `keys`, which is
            // borrowed mutably.
            unsafe { _mm512_mask_storeu_epi64(keys.as_mut_ptr().add(at).cast(), tail(at), *v) };
        }
    }
}

/// `keys` sorted ascending: in registers up to 64 keys, else by `sort_unstable`.
#[inline(always)]
pub(super) fn sort_keys(keys: &mut [u64]) {
    match keys.len() {
        0 | 1 => {}
        2..=8 => sort_in::<1>(keys),
        9..=16 => sort_in::<2>(keys),
        17..=32 => sort_in::<4>(keys),
        33..=64 => sort_in::<8>(keys),
        _ => keys.sort_unstable(),
    }
}
