//! Short sorts in registers, for any tier: a bitonic network over up to eight vector registers
//! of keys ([`Keys`]: the few operations it needs, which a tier implements on its own vectors;
//! `avx512/sort.rs` for eight `u64` or sixteen `u32` lanes, `avx2/sort.rs` for eight `u32`).
//!
//! A register is sorted by the compare-exchange stages of a bitonic sort over its lanes (six for
//! eight lanes, ten for sixteen), each a lane permute, a `min`, a `max` and a blend. Runs of `s`
//! sorted registers are merged pairwise: the first stage compares each register of the first
//! run with the reversed mirror register of the second (so two ascending runs need no reversal
//! first), the next ones compare registers `d = s/2, s/4, .., 1` apart, and each register
//! finishes with the stages inside it. Keys past the end pad the last registers as the key
//! type's maximum, which sorts to the back and is not stored. The stage loops run over
//! constants, so once inlined into a tier's entry point every permutation and blend mask is a
//! constant. Nothing here is `unsafe`; the tiers' methods are, under their safety models.

/// A register of sorted keys' lanes: the operations the network needs.
pub(super) trait Keys: Copy {
    /// The key type.
    type Key: Copy;
    /// Keys per register.
    const LANES: usize;
    /// Every lane the largest key.
    fn pad() -> Self;
    /// Lane-wise `(min, max)`.
    fn min_max(self, o: Self) -> (Self, Self);
    /// One compare-exchange stage: each lane against lane `i ^ j`, the lanes of `keeps_max`
    /// taking the larger.
    fn exchange(self, j: usize, keeps_max: u16) -> Self;
    /// The lanes in reverse order.
    fn reverse(self) -> Self;
    /// `keys[at..]`'s first lanes (as many as there are, at least one), the rest the pad.
    fn load(keys: &[Self::Key], at: usize) -> Self;
    /// The first lanes into `keys[at..]` (as many as it holds, at least one).
    fn store(self, keys: &mut [Self::Key], at: usize);
}

/// The lanes (of `lanes`) that keep the max in the stage `(k, j)` of an ascending bitonic sort:
/// those whose bit `j` differs from their bit `k` (`k = lanes`: those with bit `j` set).
#[inline(always)]
fn keeps_max(lanes: usize, k: usize, j: usize) -> u16 {
    (0..lanes)
        .filter(|&i| ((i & j) != 0) != ((i & k) != 0))
        .fold(0, |mask, i| mask | (1 << i))
}

/// The stages `(K::LANES, j)` for `j = LANES/2 .. 1`: a register whose halves, quarters and so
/// on are in order between them (after the stages across registers) sorted ascending.
#[inline(always)]
fn finish<K: Keys>(mut v: K) -> K {
    let mut j = K::LANES / 2;
    while j >= 1 {
        v = v.exchange(j, keeps_max(K::LANES, K::LANES, j));
        j /= 2;
    }
    v
}

/// One register sorted ascending.
#[inline(always)]
pub(super) fn sort_register<K: Keys>(mut v: K) -> K {
    let mut k = 2;
    while k < K::LANES {
        let mut j = k / 2;
        while j >= 1 {
            v = v.exchange(j, keeps_max(K::LANES, k, j));
            j /= 2;
        }
        k *= 2;
    }
    finish(v)
}

/// The `R` registers (a power of two) sorted ascending as one sequence of `LANES * R` keys.
#[inline(always)]
fn sort_registers<K: Keys, const R: usize>(r: &mut [K; R]) {
    for v in r.iter_mut() {
        *v = sort_register(*v);
    }
    let mut s = 1;
    while s < R {
        for base in (0..R).step_by(2 * s) {
            // The first run's register i against the second run's mirror, reversed: lane l of
            // the one meets key `2 s LANES - 1 - (LANES i + l)` of the two runs together.
            for i in 0..s {
                let (a, b) = (base + i, base + 2 * s - 1 - i);
                let (lo, hi) = r[a].min_max(r[b].reverse());
                r[a] = lo;
                r[b] = hi.reverse();
            }
            let mut d = s / 2;
            while d >= 1 {
                for group in (base..base + 2 * s).step_by(2 * d) {
                    for i in group..group + d {
                        (r[i], r[i + d]) = r[i].min_max(r[i + d]);
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

/// `keys` (at most `K::LANES * R`) sorted ascending in `R` registers.
#[inline(always)]
fn sort_in<K: Keys, const R: usize>(keys: &mut [K::Key]) {
    let n = keys.len();
    assert!(n <= K::LANES * R, "{n} keys in {R} registers");
    let mut r = [K::pad(); R];
    for (k, v) in r.iter_mut().enumerate() {
        if K::LANES * k < n {
            *v = K::load(keys, K::LANES * k);
        }
    }
    sort_registers(&mut r);
    for (k, v) in r.iter().enumerate() {
        if K::LANES * k < n {
            v.store(keys, K::LANES * k);
        }
    }
}

/// `keys` sorted ascending in the fewest registers of `K` that hold them (1, 2, 4, 8, or 16 if
/// `max_registers` allows it), returning `true`; `false`, leaving them as they are, if they
/// need more than `max_registers` (8 or 16, a constant at every call). The one length dispatch
/// of every tier's short sorts.
#[inline(always)]
pub(super) fn sort_short<K: Keys>(keys: &mut [K::Key], max_registers: usize) -> bool {
    match keys.len().div_ceil(K::LANES) {
        _ if keys.len() < 2 => {}
        1 => sort_in::<K, 1>(keys),
        2 => sort_in::<K, 2>(keys),
        3 | 4 => sort_in::<K, 4>(keys),
        5..=8 if max_registers >= 8 => sort_in::<K, 8>(keys),
        9..=16 if max_registers >= 16 => sort_in::<K, 16>(keys),
        _ => return false,
    }
    true
}
