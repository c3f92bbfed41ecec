//! The ISA layer: the lane traits every kernel is written against, the four tiers that implement
//! them, which tiers this CPU runs ([`Backend`]), and the one dispatch ([`dispatch`]).
//!
//! Nothing here knows what a sphere is, and nothing here imports from the rest of the crate: the
//! layers above hand their work down as a [`WithLanes`] job.
//!
//! A kernel body is generic over [`Lanes`]; each tier instantiates it: `scalar::F32x1` (one
//! lane), `sse::F32x4` (`wide::f32x4`), `avx2::F32x8` (`__m256`), `avx512::F32x16` (`__m512`,
//! one whole chunk; masks are `__mmask16`). Every tier implements each operation with the same
//! IEEE operation (no fused multiply-add anywhere; `min`/`max` return the second operand when
//! the first comparison fails), so a kernel gives bit-identical answers on every tier.
//!
//! Each tier file holds its vector types, its `is_available` and one entry point, `run`, generic
//! over the job. The x86 tiers' vector types are private to their files and their `run` is the
//! `#[target_feature]` boundary, so the compiler checks the safety argument of their intrinsics
//! (a value of `F32x8` exists only inside `avx2::run`, which runs only where AVX2 does).

/// The body of an x86_64 tier's `is_available()`: true where the build already enables every one
/// of the features (no detection needed), else std's run-time detection of each (cached by std).
#[cfg(target_arch = "x86_64")]
macro_rules! x86_features_available {
    ($($feature:tt),+) => {
        cfg!(all($(target_feature = $feature),+))
            || (true $(&& std::is_x86_feature_detected!($feature))+)
    };
}

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod backend;
mod chunk;
mod dispatch;
#[cfg(target_arch = "x86_64")]
mod network;
pub(crate) mod scalar;
mod sse;

pub use backend::{Backend, ParseBackendError};
pub use chunk::Chunk;
pub(crate) use dispatch::dispatch;

use core::mem::MaybeUninit;

/// Work written once over [`Lanes`] that runs whole on one tier: a query over a container, the
/// broadphase sweep, a light-culling pass. [`dispatch`] picks the tier once and calls `run` with
/// its vector type, inside the tier's `#[target_feature]` entry point, so everything `run` does
/// (marked `#[inline(always)]`) is compiled with that tier's instructions.
pub(crate) trait WithLanes {
    /// What the work returns.
    type Output;
    /// Does the work with `V` lanes.
    fn run<V: Lanes>(self) -> Self::Output;
}

/// A vector of `N` f32 lanes plus the few operations the kernels need.
///
/// Sealed in practice: only this crate implements it, and values of the AVX2 and AVX-512 types
/// exist only inside the `#[target_feature]` entry points of those tiers (their private types
/// can be named nowhere else).
pub trait Lanes: Copy {
    /// Lanes per vector: 1, 4, 8 or 16. Divides [`Chunk::LANES`].
    const N: usize;
    /// Whether this tier's entry point is a real call that takes the job by value (the x86
    /// tiers' `#[target_feature]` functions), rather than inlined into the dispatching caller.
    /// Behind such a call a reference inside the job carries no no-alias guarantee, so a job
    /// that reads through one while it stores (a kernel feeding an index sink) may run on a
    /// copy instead (`kernel::run`).
    const ENTRY_POINT_IS_A_CALL: bool;
    /// A lane mask produced by comparisons.
    type Mask: Copy;

    /// Every lane `x`.
    fn splat(x: f32) -> Self;
    /// Lanes `j * N .. (j + 1) * N` of a chunk. Panics if `(j + 1) * N > Chunk::LANES`.
    fn load(chunk: &Chunk, j: usize) -> Self;
    /// Lane-wise `self + o`.
    fn add(self, o: Self) -> Self;
    /// Lane-wise `self - o`.
    fn sub(self, o: Self) -> Self;
    /// Lane-wise `self * o` (rounded product; never fused with a later add).
    fn mul(self, o: Self) -> Self;
    /// Lane-wise `if self < o { self } else { o }` (x86 `minps` semantics).
    fn min(self, o: Self) -> Self;
    /// Lane-wise `if self > o { self } else { o }` (x86 `maxps` semantics).
    fn max(self, o: Self) -> Self;
    /// Lane-wise `|self|` (clears the sign bit).
    fn abs(self) -> Self;
    /// Lane-wise `self <= o` (false when either is NaN).
    fn le(self, o: Self) -> Self::Mask;
    /// Lane-wise `self < o` (false when either is NaN).
    fn lt(self, o: Self) -> Self::Mask;
    /// Lane-wise `self.to_bits() & o.to_bits() != 0`: whether the two lanes' bit patterns share
    /// a set bit (the lanes carry `u32` bit sets, such as collision filters, as `f32` bit
    /// patterns; no float operation touches them, so NaN patterns pass through unchanged).
    fn test_bits(self, o: Self) -> Self::Mask;
    /// Lane-wise AND of two masks.
    fn and(a: Self::Mask, b: Self::Mask) -> Self::Mask;
    /// Bit `i` of the result is lane `i` of the mask.
    fn bits(m: Self::Mask) -> u32;
    /// `N` per-lane `u32` counters: lane `l` counts the hits of the `l`-th query of a group that
    /// a batch tests against each primitive at once (`kernel::group`).
    type Counts: Copy;
    /// Counters, all zero.
    fn counts_zero() -> Self::Counts;
    /// Adds 1 (wrapping) to the counters of the lanes set in `m`.
    fn count(acc: Self::Counts, m: Self::Mask) -> Self::Counts;
    /// Lane-wise wrapping sum of two counters.
    fn counts_add(a: Self::Counts, b: Self::Counts) -> Self::Counts;
    /// Writes the `N` counters to `out[..N]`; the rest of `out` is left alone.
    fn counts_store(acc: Self::Counts, out: &mut [u32; 16]);
    /// Writes `base + i` for each set bit `i` of the 16-bit chunk mask `bits` (ascending) to the
    /// front of `out` and returns how many were written; those slots are then initialised. May
    /// write past them, up to slot 16, but only initialised `u32` values, never uninitialised
    /// bytes ([`write_indices`](Self::write_indices) relies on it): `out.len() >= 16` is
    /// required (panics otherwise; the callers leave 16 or more).
    fn write_chunk_indices(bits: u32, base: u32, out: &mut [MaybeUninit<u32>]) -> usize;
    /// Writes `values[i]` for each set bit `i` of the 16-bit chunk mask `bits` (ascending `i`)
    /// to the front of `out` and returns how many were written, with
    /// [`write_chunk_indices`](Self::write_chunk_indices)' contract (it may write initialised
    /// values up to slot 16; `out.len() >= 16`). A blocked container's walk writes a chunk's
    /// hits through its table of the caller's indices with it.
    #[inline(always)]
    fn write_chunk_values(bits: u32, values: &[u32; 16], out: &mut [MaybeUninit<u32>]) -> usize {
        let out = &mut out[..16];
        let mut n = 0;
        for (i, &v) in values.iter().enumerate() {
            // Branch-free: always write, advance only on a hit.
            out[n & 15].write(v);
            n += ((bits >> i) & 1) as usize;
        }
        n
    }
    /// A chunk's hit indices prepared ahead of their store by
    /// [`pack_chunk_indices`](Self::pack_chunk_indices): the packed vectors on the 8- and 16-lane
    /// tiers, nothing on the others (their store does all the work).
    type PackedIndices: Copy;
    /// The part of [`write_chunk_indices`](Self::write_chunk_indices) that needs no output
    /// address: the hit indices of `bits` packed to the front, for
    /// [`store_chunk_indices`](Self::store_chunk_indices) to store later. (The index writer packs
    /// a chunk when its mask is computed and stores it a window later; see `kernel::drive`.)
    fn pack_chunk_indices(bits: u32, base: u32) -> Self::PackedIndices;
    /// Stores what [`pack_chunk_indices`](Self::pack_chunk_indices)`(bits, base)` returned: the
    /// same writes and the same count as [`write_chunk_indices`](Self::write_chunk_indices)
    /// `(bits, base, out)`, with its contract. Whatever `packed` is, the slots it counts are
    /// initialised (a sink's `set_len` relies on it).
    fn store_chunk_indices(
        bits: u32,
        base: u32,
        packed: Self::PackedIndices,
        out: &mut [MaybeUninit<u32>],
    ) -> usize;
    /// [`write_chunk_indices`](Self::write_chunk_indices) into initialised slots: writes
    /// `base + i` for each set bit `i` of the 16-bit chunk mask `bits` (ascending) to the front
    /// of `out` and returns how many; the slots after them, up to slot 16, hold unspecified
    /// values afterwards.
    #[inline(always)]
    fn write_indices(bits: u32, base: u32, out: &mut [u32; 16]) -> usize {
        let out: *mut [u32; 16] = out;
        // SAFETY: `MaybeUninit<u32>` has the layout of `u32`, so the 16 slots of `out` are 16
        // valid `MaybeUninit<u32>` slots for the borrow's duration, exclusively ours. The writer
        // only stores initialised `u32` values into them (never an uninitialised one), so every
        // slot still holds a valid `u32` when the borrow of `out` resumes.
        let slots = unsafe { &mut *out.cast::<[MaybeUninit<u32>; 16]>() };
        Self::write_chunk_indices(bits, base, slots)
    }
    /// [`write_indices`](Self::write_indices) for the `N` lanes of one block: `bits` has no bit
    /// at or above `N` (a block's mask, not a chunk's). A tier whose blocks are narrower than a
    /// chunk may store only the block's slots (the 8-lane tier makes one 8-slot store where the
    /// chunk writer makes two, the 4-lane tier one 4-slot store where it makes four: the
    /// broadphase's sweep writes a block at a time).
    #[inline(always)]
    fn write_block_indices(bits: u32, base: u32, out: &mut [u32; 16]) -> usize {
        Self::write_indices(bits, base, out)
    }
    /// Sorts `keys` ascending: the broadphase's hits gathered from several cells, keyed by their
    /// sweep position. A sort has one result, so every tier gives the same; the AVX-512 tier
    /// sorts up to 64 keys in registers (a bitonic network), the others (and longer lists) use
    /// `sort_unstable`.
    #[inline(always)]
    fn sort_keys(keys: &mut [u64]) {
        keys.sort_unstable();
    }
    /// Sorts hit indices `v` ascending (a blocked container's hit lists) if this tier has a sort
    /// for their count, and returns whether it did (if not, the caller sorts them its own way).
    /// A sort has one result, so every tier that sorts gives the same. The AVX-512 tier sorts up
    /// to 1,024: in registers up to 128 (a bitonic network), by a quicksort into such parts
    /// above; the AVX2 tier up to 128 in registers; the others sort none.
    #[inline(always)]
    fn try_sort_indices(v: &mut [u32]) -> bool {
        let _ = v;
        false
    }
    /// Number of set bits in a 16-bit chunk mask.
    #[inline(always)]
    fn count_chunk(bits: u32) -> usize {
        bits.count_ones() as usize
    }

    /// `src[idx[l]]` for the 16 lanes of a chunk (the blocked build's gather of its columns):
    /// 16 bounds-checked loads here; the AVX2 and AVX-512 tiers use their gather instructions
    /// after one check of all 16 indices. The same values on every tier (loads only).
    ///
    /// # Panics
    /// If an index is `>= src.len()`.
    #[inline(always)]
    fn gather_chunk(src: &[f32], idx: &[u32; 16]) -> Chunk {
        gather_lanes(src, idx)
    }

    /// The tier's f64 vector: half as many lanes on the same registers (SSE, AVX2), one lane on
    /// the scalar tier, and AVX2's four on the AVX-512 tier (the froxel rows it serves come a few
    /// at a time).
    type F64: Lanes64;
}

/// `src[idx[l]]` for 16 lanes by bounds-checked loads (a loop: an array `map` was compiled out
/// of line in the tiers' entry points, `.ci/check-inlining`).
///
/// # Panics
/// If an index is `>= src.len()`.
#[inline(always)]
fn gather_lanes(src: &[f32], idx: &[u32; 16]) -> Chunk {
    let mut lanes = [0.0f32; 16];
    for (lane, &i) in lanes.iter_mut().zip(idx) {
        *lane = src[i as usize];
    }
    Chunk(lanes)
}

/// A vector of `N` f64 lanes (`N` = 1, 2 or 4) plus the few operations of the f64 kernels (the
/// rows of a froxel grid, `cull/froxel/rows.rs`). The rules of [`Lanes`] hold: one IEEE operation
/// per method, the same on every tier, no fused multiply-add, `min`/`max` with x86 semantics; so
/// a kernel written once over `Lanes64` decides the same on every tier as its one-lane instance.
/// Values of the AVX2 type live only inside the `#[target_feature]` entry points of the AVX2 and
/// AVX-512 tiers (whose f64 lanes it is), as those of [`Lanes`].
pub trait Lanes64: Copy {
    /// Lanes per vector.
    const N: usize;

    /// Every lane `x`.
    fn splat(x: f64) -> Self;
    /// `s[i..i + N]`. Panics if `s` is shorter.
    fn load(s: &[f64], i: usize) -> Self;
    /// Lane `k` is `table[idx[k]]` for `k < N`. Panics if an index is out of bounds.
    fn gather(table: &[f64], idx: &[u32; 4]) -> Self;
    /// Lane-wise `self + o`.
    fn add(self, o: Self) -> Self;
    /// Lane-wise `self - o`.
    fn sub(self, o: Self) -> Self;
    /// Lane-wise `self * o` (rounded product; never fused with a later add).
    fn mul(self, o: Self) -> Self;
    /// Lane-wise `if self < o { self } else { o }` (x86 `minpd` semantics).
    fn min(self, o: Self) -> Self;
    /// Lane-wise `if self > o { self } else { o }` (x86 `maxpd` semantics).
    fn max(self, o: Self) -> Self;
    /// Lane-wise correctly rounded square root.
    fn sqrt(self) -> Self;
    /// Bit `k` is lane `k` of `self < o` (false when either is NaN).
    fn lt(self, o: Self) -> u32;
    /// Bit `k` is lane `k` of `self <= o` (false when either is NaN).
    fn le(self, o: Self) -> u32;
    /// Writes lane `k` truncated towards zero to `out[k]` for `k < N`; for lanes in
    /// `[0, 2^31)` (others give some unspecified value, never undefined behaviour).
    fn trunc(self, out: &mut [u32; 4]);
}

/// For each `bits` value below `1 << n`, the positions of its set bits packed into bytes, lowest
/// byte first (the left-pack table of the index writers).
pub(crate) const fn left_pack_table<const SIZE: usize>() -> [u64; SIZE] {
    let mut table = [0u64; SIZE];
    let mut bits = 0;
    while bits < SIZE {
        let mut packed = 0u64;
        let mut k = 0;
        let mut i = 0;
        while i < 8 {
            if bits & (1 << i) != 0 {
                packed |= (i as u64) << (8 * k);
                k += 1;
            }
            i += 1;
        }
        table[bits] = packed;
        bits += 1;
    }
    table
}

/// Runs `job` on the four-lane tier, which every target compiles without run-time detection
/// (`wide::f32x4`: SSE2 on x86_64, NEON on aarch64, scalar arrays elsewhere): for a pass whose
/// cost is memory, not compares (a container compared with another), where choosing a tier buys
/// nothing. Answers as on every tier.
#[inline(always)]
pub(crate) fn four_lanes<J: WithLanes>(job: J) -> J::Output {
    sse::run(job)
}

/// A hint to fetch a chunk into the cache ahead of use; never faults, does nothing where the
/// target has no stable prefetch instruction.
#[inline(always)]
pub(crate) fn prefetch(chunk: &Chunk) {
    prefetch_line(chunk);
}

/// A hint to fetch the cache line holding `*value` ahead of use (see [`prefetch`]).
#[inline(always)]
pub(crate) fn prefetch_line<T>(value: &T) {
    prefetch_address(value as *const T);
}

/// A hint to fetch the cache line at `address`, which need not be valid: a prefetch reads
/// nothing architecturally and never faults, so a caller may compute the address with
/// `wrapping_add` and skip a bounds check per line.
#[inline(always)]
pub(crate) fn prefetch_address<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` is SSE, part of the x86_64 baseline; a prefetch reads nothing
    // architecturally and never faults, whatever the address.
    unsafe {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

/// A hint to fetch the cache line at `address` into the second-level cache, not the first
/// (for lines written a while later: `Blocked::set_many` measured faster with it than with
/// [`prefetch_address`]); any address, as there.
#[inline(always)]
pub(crate) fn prefetch_address_l2<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht1` is SSE, part of the x86_64 baseline; a prefetch reads nothing
    // architecturally and never faults, whatever the address.
    unsafe {
        use core::arch::x86_64::{_MM_HINT_T1, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T1>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

/// [`Lanes::test_bits`] on every available tier against the scalar tier's, on bit patterns that
/// are NaNs, infinities, signed zeros, subnormals and single bits (the collision filters the
/// broadphase carries in `f32` lanes).
/// The index-writer items of a tier that packs nothing ahead (its store does all the work):
/// `PackedIndices = ()` and `store_chunk_indices` = `write_chunk_indices`. Used inside an
/// `impl Lanes` block (the scalar and SSE tiers, which the driver never pipelines).
macro_rules! index_writer_without_packing {
    () => {
        type PackedIndices = ();
        #[inline(always)]
        fn pack_chunk_indices(_bits: u32, _base: u32) {}
        #[inline(always)]
        fn store_chunk_indices(
            bits: u32,
            base: u32,
            (): (),
            out: &mut [MaybeUninit<u32>],
        ) -> usize {
            Self::write_chunk_indices(bits, base, out)
        }
    };
}
pub(crate) use index_writer_without_packing;

#[cfg(test)]
mod tests {
    use super::{Backend, Chunk, Lanes, WithLanes, dispatch};
    use core::mem::MaybeUninit;

    const PATTERNS: [u32; 16] = [
        0,
        1,
        0x8000_0000,
        0xffff_ffff,
        0x7fc0_0000,
        0xffc0_0001,
        0x7f80_0000,
        0xff80_0000,
        0x0000_0001,
        0x0040_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x5555_5555,
        0xaaaa_aaaa,
        0x0001_0000,
        0x8000_0001,
    ];

    /// Bit `i` of chunk-lane `i`'s `a[i] test_bits b[i]`, per block, on tier `V`.
    struct TestBits(Chunk, Chunk);

    impl WithLanes for TestBits {
        type Output = u32;
        #[inline(always)]
        fn run<V: Lanes>(self) -> u32 {
            let mut out = 0;
            for j in 0..Chunk::LANES / V::N {
                let m = V::load(&self.0, j).test_bits(V::load(&self.1, j));
                out |= V::bits(m) << (j * V::N);
            }
            out
        }
    }

    #[test]
    fn test_bits_is_the_same_on_every_backend() {
        for shift in 0..16 {
            let a = Chunk(PATTERNS.map(f32::from_bits));
            let b = Chunk(core::array::from_fn(|i| {
                f32::from_bits(PATTERNS[(i + shift) % 16])
            }));
            let want: u32 = (0..16)
                .map(|i| u32::from(PATTERNS[i] & PATTERNS[(i + shift) % 16] != 0) << i)
                .sum();
            for &backend in Backend::available() {
                assert_eq!(
                    dispatch(backend, TestBits(a, b)),
                    want,
                    "{backend:?} shift {shift}"
                );
            }
        }
    }

    /// `Lanes::sort_keys` of each list on tier `V`.
    struct SortKeys(Vec<Vec<u64>>);

    impl WithLanes for SortKeys {
        type Output = Vec<Vec<u64>>;
        #[inline(always)]
        fn run<V: Lanes>(mut self) -> Vec<Vec<u64>> {
            for keys in &mut self.0 {
                V::sort_keys(keys);
            }
            self.0
        }
    }

    /// `sort_keys` equals `sort_unstable` on every backend, for every length from 0 to 140
    /// (every register count of the AVX-512 network, each with every fill of its last
    /// register, and past it), on random keys, keys with many equal values, the extremes (0 and
    /// `u64::MAX`, which is also the network's padding), sorted and reversed input, and runs
    /// sorted each (the broadphase's hits from several cells).
    #[test]
    fn sort_keys_equals_sort_unstable_on_every_backend() {
        let mut rng = crate::test_rng::XorShift64(0x5eed_0050_47ed);
        let mut lists = Vec::new();
        for len in 0..=140usize {
            let random: Vec<u64> = (0..len).map(|_| rng.next_u64()).collect();
            let few: Vec<u64> = (0..len).map(|_| rng.next_u64() % 3).collect();
            let extremes: Vec<u64> = (0..len)
                .map(|_| [0, u64::MAX, 1, u64::MAX - 1][(rng.next_u64() % 4) as usize])
                .collect();
            let mut ascending = random.clone();
            ascending.sort_unstable();
            let descending: Vec<u64> = ascending.iter().rev().copied().collect();
            let mut runs = random.clone();
            for run in runs.chunks_mut(len / 3 + 1) {
                run.sort_unstable();
            }
            lists.extend([random, few, extremes, ascending, descending, runs]);
        }
        let want: Vec<Vec<u64>> = lists
            .iter()
            .map(|keys| {
                let mut keys = keys.clone();
                keys.sort_unstable();
                keys
            })
            .collect();
        for &backend in Backend::available() {
            let got = dispatch(backend, SortKeys(lists.clone()));
            for (k, (got, want)) in got.iter().zip(&want).enumerate() {
                assert_eq!(got, want, "{backend:?}: list {k} ({} keys)", want.len());
            }
        }
    }

    /// Per-lane counters on tier `V`: lane `i` of the chunk counts the rounds `r < rounds` in
    /// which `a[i] <= b[(i + r) % 16]`, alternate rounds in two counters that are then summed.
    struct Counters {
        a: Chunk,
        b: Chunk,
        rounds: usize,
    }

    impl WithLanes for Counters {
        type Output = [u32; 16];
        #[inline(always)]
        fn run<V: Lanes>(self) -> [u32; 16] {
            let mut out = [0; 16];
            for j in 0..Chunk::LANES / V::N {
                let (mut even, mut odd) = (V::counts_zero(), V::counts_zero());
                for r in 0..self.rounds {
                    let b = Chunk(core::array::from_fn(|i| self.b.0[(i + r) % 16]));
                    let m = V::load(&self.a, j).le(V::load(&b, j));
                    if r % 2 == 0 {
                        even = V::count(even, m);
                    } else {
                        odd = V::count(odd, m);
                    }
                }
                let mut lanes = [u32::MAX; 16];
                V::counts_store(V::counts_add(even, odd), &mut lanes);
                assert!(lanes[V::N..].iter().all(|&x| x == u32::MAX), "wrote past N");
                out[j * V::N..(j + 1) * V::N].copy_from_slice(&lanes[..V::N]);
            }
            out
        }
    }

    #[test]
    fn counters_count_the_set_lanes_on_every_backend() {
        let a = Chunk(PATTERNS.map(f32::from_bits));
        let b = Chunk(core::array::from_fn(|i| {
            f32::from_bits(PATTERNS[(i + 5) % 16])
        }));
        for rounds in [0, 1, 2, 7, 16, 33] {
            let want: [u32; 16] = core::array::from_fn(|i| {
                (0..rounds).filter(|&r| a.0[i] <= b.0[(i + r) % 16]).count() as u32
            });
            assert!(
                rounds < 2
                    || want.iter().any(|&n| n > 0) && want.iter().any(|&n| n < rounds as u32)
            );
            for &backend in Backend::available() {
                let job = Counters { a, b, rounds };
                assert_eq!(dispatch(backend, job), want, "{backend:?} {rounds} rounds");
            }
        }
    }

    /// The hit indices `base + i` of mask `bits`, ascending.
    fn hits_of(bits: u32, base: u32) -> Vec<u32> {
        (0..16)
            .filter(|i| bits >> i & 1 != 0)
            .map(|i| base + i)
            .collect()
    }

    /// Every 16-bit chunk mask (and bits above them, which the writers ignore) through
    /// `write_chunk_indices`, and through `pack_chunk_indices` of it and of the next chunk's mask
    /// (its complement) before either is stored with `store_chunk_indices`, as the pipelined
    /// driver does, and the hit lanes of a table of values through `write_chunk_values`, on tier
    /// `V`: the failures as strings, empty if every store wrote the ascending hit indices (or
    /// values) and counted them.
    struct IndexWriters {
        base: u32,
    }

    impl WithLanes for IndexWriters {
        type Output = Vec<String>;
        #[inline(always)]
        fn run<V: Lanes>(self) -> Vec<String> {
            let mut failures = Vec::new();
            let (base, next) = (self.base, self.base.wrapping_add(16));
            for bits in (0u32..0x1_0000).chain([0x1_0000, 0xffff_ffff, 0x8001_0001]) {
                let other = !bits & 0xffff;
                let mut slots = [[MaybeUninit::new(0xdead_beef_u32); 20]; 3];
                let n = [V::write_chunk_indices(bits, base, &mut slots[0]), {
                    let packed = V::pack_chunk_indices(bits, base);
                    let packed_next = V::pack_chunk_indices(other, next);
                    let n = V::store_chunk_indices(bits, base, packed, &mut slots[1]);
                    let n_next = V::store_chunk_indices(other, next, packed_next, &mut slots[2]);
                    if slots[2][..n_next]
                        .iter()
                        // SAFETY: every slot was initialised above, and the writers store
                        // only initialised values (their contract).
                        .map(|x| unsafe { x.assume_init() })
                        .ne(hits_of(other, next))
                    {
                        failures.push(format!("bits {bits:#x}: the next chunk's indices"));
                    }
                    n
                }];
                // The value writer, through a table of distinct values (the hit lanes' values
                // must come out, in lane order).
                let values: [u32; 16] = core::array::from_fn(|i| {
                    base.rotate_left(i as u32) ^ 0x9e37_79b9_u32.wrapping_mul(i as u32)
                });
                let mut value_slots = [MaybeUninit::new(0xdead_beef_u32); 20];
                let n_values = V::write_chunk_values(bits, &values, &mut value_slots);
                // SAFETY: as below.
                let got: Vec<u32> = value_slots[..n_values]
                    .iter()
                    .map(|x| unsafe { x.assume_init() })
                    .collect();
                let want: Vec<u32> = hits_of(bits, 0)
                    .iter()
                    .map(|&i| values[i as usize])
                    .collect();
                if got != want {
                    failures.push(format!("bits {bits:#x}, value writer: {got:?}"));
                }
                if bits < 1 << V::N {
                    // A block's mask through the block writer.
                    let mut block = [0xdead_beef_u32; 16];
                    let n = V::write_block_indices(bits, base, &mut block);
                    if block[..n] != hits_of(bits, base)[..] {
                        failures.push(format!("bits {bits:#x}, block writer: {:?}", &block[..n]));
                    }
                }
                let want = hits_of(bits, base);
                for (k, &n) in n.iter().enumerate() {
                    // SAFETY: as above.
                    let got: Vec<u32> = slots[k][..n]
                        .iter()
                        .map(|x| unsafe { x.assume_init() })
                        .collect();
                    if got != want {
                        failures.push(format!("bits {bits:#x}, writer {k}: {got:?}"));
                    }
                }
            }
            failures
        }
    }

    #[test]
    fn index_and_value_writers_write_the_hits_on_every_backend() {
        for base in [0, 1000, u32::MAX - 31] {
            for &backend in Backend::available() {
                let failures = dispatch(backend, IndexWriters { base });
                assert!(
                    failures.is_empty(),
                    "{backend:?} base {base}: {} failures, first {}",
                    failures.len(),
                    failures[0]
                );
            }
        }
    }
}
