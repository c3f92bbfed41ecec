//! The radix sorts the sweeps (sort by min x) and the blocked containers (sort by
//! space-filling-curve key) share.

use core::ops::Range;

/// The stable order of `keys` (an index permutation) by a radix sort over `(key, index)` packed
/// in a `u64` ([`sorted_items`]: least significant digit first, or for many wide keys the top
/// digit first, [`msd_order_runs`]).
pub(crate) fn radix_sort(keys: &[u32]) -> Vec<u32> {
    radix_sort_runs(keys, usize::MAX, 1).0
}

/// [`radix_sort`], and the runs of equal keys longer than `min_run` in it (ranges of the order,
/// ascending), found as the order is taken out. Where the top digit goes first
/// ([`msd_order_runs`]), its buckets are sorted and taken out in parallel over up to `threads`
/// threads (0: all of rayon's pool); the result is the same whatever the count.
pub(crate) fn radix_sort_runs(
    keys: &[u32],
    min_run: usize,
    threads: usize,
) -> (Vec<u32>, Vec<Range<usize>>) {
    if let Some(bits) = msd_bits(keys) {
        return msd_order_runs(keys, bits, min_run, threads);
    }
    let items = sorted_items(keys);
    let order = items.iter().map(|&v| v as u32).collect();
    let mut runs = Vec::new();
    runs_of_equal_keys(&items, min_run, 0, &mut runs);
    (order, runs)
}

/// Appends to `runs` the runs of equal keys longer than `min_run` among the sorted `items`
/// (`(key << 32) | index`), as ranges shifted by `offset`.
fn runs_of_equal_keys(items: &[u64], min_run: usize, offset: usize, runs: &mut Vec<Range<usize>>) {
    if items.len() <= min_run {
        return;
    }
    let key = |i: usize| items[i] >> 32;
    // Whether any run is long enough, branch-free (runs are rare: a scan that branches on every
    // change of key mispredicts on data with a few equal neighbours, 1.5 ms at 1,000,000).
    let long = items
        .iter()
        .zip(items.iter().skip(min_run))
        .fold(false, |any, (a, b)| any | (a >> 32 == b >> 32));
    if !long {
        return;
    }
    // A run longer than `min_run` starting at `i` has the same key at `i + min_run`, and the
    // scan meets its start first.
    let mut i = 0;
    while i + min_run < items.len() {
        if key(i) == key(i + min_run) {
            let mut end = i + min_run + 1;
            while end < items.len() && key(end) == key(i) {
                end += 1;
            }
            runs.push(offset + i..offset + end);
            i = end;
        } else {
            i += 1;
        }
    }
}

/// Keys from which the sort takes the most significant digit first ([`msd_bits`]).
const MSD_MIN: usize = 1 << 18;
/// Bits of that first digit: 256 buckets, whose write streams stay in the first-level cache.
const MSD_BITS: u32 = 8;
/// Items past a top-digit bucket's next slot whose line its scatter asks for with each item
/// (four lines of `u64`): the 256 buckets' write streams are too many for the hardware's
/// prefetchers, and each new line of a bucket otherwise waits for its fetch from memory. In one
/// process on the Intel Xeon of 2026-11-29: the blocked build of 1,000,000 boxes 1.07-1.10x
/// (16, 32 or 64 items ahead alike), a full `SweepAndPrune::update` of 100,000 boxes
/// (1.1 million pairs) 1.04x. (The 2,048-bucket passes below [`MSD_MIN`] keys, whose items stay
/// in the second-level cache, measured no better with it: 0.99x for the blocked build of
/// 100,000 boxes, 1.015x for the broadphase's sweep order.)
const SCATTER_AHEAD: usize = 32;
/// The digit of [`sorted_items`]' passes.
const LSD_BITS: u32 = 11;

/// The keys' width in bits when the top digit goes first ([`msd_order_runs`]): from
/// [`MSD_MIN`] keys of more than [`LSD_BITS`] bits (probe of 1,000,000 random 22-bit keys on the
/// Intel Xeon of 2026-11-27: 12.5-15.5 ms against 17-27 ms for two 11-bit passes over the
/// whole array, whose 2,048 write streams each miss the cache).
fn msd_bits(keys: &[u32]) -> Option<u32> {
    if keys.len() < MSD_MIN {
        return None;
    }
    // The keys' width, in a pass that vectorises (the digit counts are not needed).
    let bits = 32 - keys.iter().fold(0, |any, &k| any | k).leading_zeros();
    (bits > LSD_BITS).then_some(bits)
}

/// `(key << 32) | index` of every key, sorted (see [`radix_sort`]), least significant digit
/// first in passes of [`LSD_BITS`] (a pass whose digit is the same for every key moves nothing).
fn sorted_items(keys: &[u32]) -> Vec<u64> {
    const BITS: u32 = LSD_BITS;
    const BUCKETS: usize = 1 << BITS;
    let digit = |k: u32, pass: u32| ((k >> (pass * BITS)) as usize) & (BUCKETS - 1);
    let mut count = vec![[0usize; BUCKETS]; 3];
    for &k in keys {
        count[0][digit(k, 0)] += 1;
        count[1][digit(k, 1)] += 1;
        count[2][digit(k, 2)] += 1;
    }
    let pack = |(i, &k): (usize, &u32)| (u64::from(k) << 32) | i as u64;
    // A pass whose digit is the same for every key moves nothing.
    let mut passes = (0..3).filter(|&pass| !count[pass as usize].contains(&keys.len()));
    let Some(first) = passes.next() else {
        return keys.iter().enumerate().map(pack).collect();
    };
    // The first pass reads the keys themselves and packs them as it moves them (a pass packing
    // them in place first took 2-3 ms of a 1,000,000-key sort on the Intel Xeon of 2026-11-27).
    let starts = |count: &[usize; BUCKETS]| {
        let mut next = *count;
        counts_to_starts(&mut next);
        next
    };
    let mut items = vec![0u64; keys.len()];
    let mut next = starts(&count[first as usize]);
    for item in keys.iter().enumerate() {
        let d = digit(*item.1, first);
        items[next[d]] = pack(item);
        next[d] += 1;
    }
    let mut other = Vec::new();
    for pass in passes {
        other.resize(items.len(), 0);
        let mut next = starts(&count[pass as usize]);
        for &v in &items {
            let d = digit((v >> 32) as u32, pass);
            other[next[d]] = v;
            next[d] += 1;
        }
        core::mem::swap(&mut items, &mut other);
    }
    items
}

/// Buckets of the top digit ([`MSD_BITS`]).
const TOP: usize = 1 << MSD_BITS;

/// The top-digit pass of the sorts from [`MSD_MIN`] values (`msd_order_runs`, `sort_pairs`):
/// `values` (each's digit `v >> shift` below [`TOP`], `count` the digits' counts, which the
/// caller takes from its own keys) scattered into `out` (as long), bucket after bucket, each
/// bucket's values in their order. Each value asks for its bucket's line [`SCATTER_AHEAD`]
/// items ahead as it is written.
fn scatter_top_digit(
    values: impl Iterator<Item = u64>,
    shift: u32,
    count: &[usize; TOP],
    out: &mut [u64],
) {
    let mut next = *count;
    counts_to_starts(&mut next);
    for v in values {
        let d = (v >> shift) as usize;
        out[next[d]] = v;
        crate::lanes::prefetch_address(out.as_ptr().wrapping_add(next[d] + SCATTER_AHEAD));
        next[d] += 1;
    }
}

/// Bucket counts into each bucket's first position (the exclusive prefix sums), in place
/// (`usize` counters, or `u32` ones where the values number fewer than `2^32`).
#[inline]
fn counts_to_starts<T: Copy + Default + core::ops::AddAssign>(counts: &mut [T]) {
    let mut sum = T::default();
    for c in counts {
        let n = *c;
        *c = sum;
        sum += n;
    }
}

/// [`radix_sort_runs`] of keys below `2^bits` (`bits > MSD_BITS`): `(key << 32) | index`
/// scattered by their top [`MSD_BITS`] bits in index order, then each bucket sorted stably by
/// the bits below, least significant digit first, in passes of equal width up to 8 bits (a pass
/// whose digit is the same in the whole bucket moves nothing), its order and runs taken out
/// while it is in cache (equal keys share a bucket, so no run crosses one). The buckets go in
/// groups of consecutive ones over up to `threads` threads (0: all of rayon's pool).
fn msd_order_runs(
    keys: &[u32],
    bits: u32,
    min_run: usize,
    threads: usize,
) -> (Vec<u32>, Vec<Range<usize>>) {
    let shift = bits - MSD_BITS;
    let mut count = [0usize; TOP];
    for &k in keys {
        count[(k >> shift) as usize] += 1;
    }
    let mut items = vec![0u64; keys.len()];
    let packed = keys
        .iter()
        .enumerate()
        .map(|(i, &k)| (u64::from(k) << 32) | i as u64);
    scatter_top_digit(packed, 32 + shift, &count, &mut items);
    let mut order = vec![0u32; keys.len()];
    // Groups of consecutive buckets of about `per_task` items each: their bucket sizes, their
    // first position, their items and their stretch of the order, and the runs they find.
    struct Group<'a> {
        lens: &'a [usize],
        first: usize,
        items: &'a mut [u64],
        order: &'a mut [u32],
        runs: Vec<Range<usize>>,
    }
    let per_task = crate::tasks::chunks_per_task(keys.len(), MSD_MIN / 4, threads);
    let mut groups: Vec<Group> = Vec::new();
    let (mut items_left, mut order_left) = (&mut items[..], &mut order[..]);
    let (mut first_bucket, mut first, mut held) = (0, 0, 0);
    for (d, &len) in count.iter().enumerate() {
        held += len;
        if held >= per_task || d + 1 == TOP {
            let (group_items, after) = items_left.split_at_mut(held);
            items_left = after;
            let (group_order, after) = order_left.split_at_mut(held);
            order_left = after;
            groups.push(Group {
                lens: &count[first_bucket..=d],
                first,
                items: group_items,
                order: group_order,
                runs: Vec::new(),
            });
            (first_bucket, first, held) = (d + 1, first + held, 0);
        }
    }
    // (On one thread, one group: the empty ones after the last bucket that holds any go.)
    groups.retain(|g| !g.items.is_empty());
    crate::tasks::run_tasks_mut(&mut groups, |_, g| {
        let mut scratch = vec![0u64; g.lens.iter().copied().max().unwrap_or(0)];
        let mut start = 0;
        for &len in g.lens {
            let bucket = &mut g.items[start..start + len];
            // Stable: below the key's bits, the index ascends in each bucket, and equal keys
            // keep it in order (a short bucket's `sort_unstable` sorts by key and index alike).
            lsd_u64(bucket, &mut scratch[..len], [32, shift], 8);
            for (o, &v) in g.order[start..start + len].iter_mut().zip(&*bucket) {
                *o = v as u32;
            }
            runs_of_equal_keys(bucket, min_run, g.first + start, &mut g.runs);
            start += len;
        }
    });
    let runs = groups.into_iter().flat_map(|g| g.runs).collect();
    (order, runs)
}

/// Sorts `pairs` ascending (as `(i, j)` tuples), every index below `n`: `sort_unstable` below
/// [`PAIRS_RADIX_MIN`] pairs, else as `u64` keys `i << b | j` (`b` the bits of `n - 1`) by radix
/// passes of at most 11 bits, least significant digit first; from [`MSD_MIN`] pairs the top 8
/// bits first, then each of those 256 buckets (in cache) by the bits below. The pairs are the
/// broadphase's, each once, so stability does not matter. (The pairs of a full
/// `SweepAndPrune::update`, one thread, the Intel Xeon of 2026-11-28: Terdiman's 100,000 boxes,
/// 1,146,120 pairs, `sort_unstable` 29.8 ms against 19.0 with the top digit first and 26.1 for
/// LSD passes over the whole; 30,000 boxes, 102,925 pairs: 4.04 against 1.29 ms (LSD); 10,000
/// boxes: 0.21 against 0.09 ms.)
pub(crate) fn sort_pairs(pairs: &mut [(u32, u32)], n: usize) {
    if pairs.len() < PAIRS_RADIX_MIN {
        pairs.sort_unstable();
        return;
    }
    let b = usize::BITS - n.max(2).saturating_sub(1).leading_zeros();
    let mut keys: Vec<u64> = pairs
        .iter()
        .map(|&(i, j)| (u64::from(i) << b) | u64::from(j))
        .collect();
    let bits = 2 * b;
    let mut scratch = vec![0u64; keys.len()];
    if keys.len() >= MSD_MIN && bits > MSD_BITS + 8 {
        // The top digit: one pass into 256 buckets, from `keys` into `scratch`; then each
        // bucket by the bits below, in place.
        let shift = bits - MSD_BITS;
        let mut count = [0usize; TOP];
        for &k in &keys {
            count[(k >> shift) as usize] += 1;
        }
        scatter_top_digit(keys.iter().copied(), shift, &count, &mut scratch);
        let mut starts = count;
        counts_to_starts(&mut starts);
        for (&start, &len) in starts.iter().zip(&count) {
            let bucket = &mut scratch[start..start + len];
            lsd_u64(bucket, &mut keys[start..start + len], [0, shift], 11);
        }
        core::mem::swap(&mut keys, &mut scratch);
    } else {
        lsd_u64(&mut keys, &mut scratch, [0, bits], 11);
    }
    let mask = (1u64 << b) - 1;
    for (p, &k) in pairs.iter_mut().zip(&keys) {
        *p = ((k >> b) as u32, (k & mask) as u32);
    }
}

/// Pairs from which [`sort_pairs`] sorts by radix passes (below, `sort_unstable` is as fast).
const PAIRS_RADIX_MIN: usize = 256;

/// Sorts `v` by the `bits` bits from bit `at` (`[at, bits]`; the bits above equal in every
/// value, the bits below in the wanted order for equal digits: ascending, or already in place):
/// LSD passes of equal width up to `max_width` bits (at most 11; a pass whose digit is the same
/// throughout moves nothing); `scratch` as long as `v`. Fewer than 64 values go to
/// `sort_unstable`, which orders them by the bits below too, as do `2^32` values and more.
fn lsd_u64(v: &mut [u64], scratch: &mut [u64], [at, bits]: [u32; 2], max_width: u32) {
    if v.len() < 64 || u32::try_from(v.len()).is_err() {
        v.sort_unstable();
        return;
    }
    let passes = bits.div_ceil(max_width).max(1) as usize;
    let width = bits.div_ceil(passes as u32).max(1);
    // Counters on the stack, as few as the digits need (they are zeroed on every call: the
    // blocked build and `sort_pairs` call this once per bucket of their top digit).
    match (width <= 8, passes <= 3) {
        (true, true) => lsd_u64_counted::<256, 3>(v, scratch, at, passes, width),
        (true, false) => lsd_u64_counted::<256, 8>(v, scratch, at, passes, width),
        (false, true) => lsd_u64_counted::<2048, 3>(v, scratch, at, passes, width),
        (false, false) => lsd_u64_counted::<2048, 6>(v, scratch, at, passes, width),
    }
}

/// [`lsd_u64`]'s passes, `passes <= PASSES` of `width`-bit digits (`2^width <= BUCKETS`), every
/// pass's counts taken in one read of `v` first into `u32` counters (each pass counting in a
/// read of its own, after zeroing 2,048 `usize`, took the blocked build of 1,000,000 boxes
/// 1.04x the time: the Intel Xeon of 2026-11-29); `v.len()` fits a `u32`.
fn lsd_u64_counted<const BUCKETS: usize, const PASSES: usize>(
    v: &mut [u64],
    scratch: &mut [u64],
    at: u32,
    passes: usize,
    width: u32,
) {
    debug_assert!(passes <= PASSES && 1 << width <= BUCKETS);
    let mask = (1usize << width) - 1;
    let digit = |k: u64, pass: usize| (k >> (at + pass as u32 * width)) as usize & mask;
    let mut counts = [[0u32; BUCKETS]; PASSES];
    for &k in v.iter() {
        for (pass, count) in counts.iter_mut().enumerate().take(passes) {
            count[digit(k, pass)] += 1;
        }
    }
    let mut in_scratch = false;
    for (pass, next) in counts.iter_mut().enumerate().take(passes) {
        let (from, to): (&[u64], &mut [u64]) = if in_scratch {
            (&*scratch, &mut *v)
        } else {
            (&*v, &mut *scratch)
        };
        // A pass whose digit is the same for every value moves nothing.
        if next[digit(from[0], pass)] as usize == from.len() {
            continue;
        }
        counts_to_starts(&mut next[..=mask]);
        for &k in from {
            let d = digit(k, pass);
            to[next[d] as usize] = k;
            next[d] += 1;
        }
        in_scratch = !in_scratch;
    }
    if in_scratch {
        v.copy_from_slice(scratch);
    }
}

/// Sorts `v` ascending, every element `<= max`: `sort_unstable` below 128 values, else by LSD
/// radix passes of 8-, 10- or 11-bit digits, as many as `max` needs, the width chosen by a cost
/// model (each pass moves every value once and sums its buckets: `passes * (len + buckets / 4)`),
/// every pass's counts taken in one read of `v` first, one scratch buffer. (The blocked
/// containers' hit lists. Measured here, AMD Zen 5, 1,000 lists of random indices below
/// 1,000,000, all in ms: 200 values each: `sort_unstable` 1.13, 8-bit digits 0.70, 10-bit 0.89;
/// 1,000 each: 6.6, 2.55, 2.02 (11-bit 2.57); 3,000 each: 21.3, 7.2, 5.0 (11-bit 5.4); the
/// model picks the fastest of each. Counting each pass in its own read, as before, cost 2.64
/// at 1,000 each.)
pub(crate) fn sort_indices(v: &mut [u32], max: u32) {
    if v.len() < 128 || u32::try_from(v.len()).is_err() {
        v.sort_unstable();
        return;
    }
    // The pass count a constant: each value's digits counted without a loop over the passes,
    // and only the passes' counts zeroed (1,000 random values below 1,000,000 on the Intel Xeon
    // of 2026-11-27: 1.3-1.5x faster than one body over a runtime pass count).
    match digits(v.len(), max) {
        (8, 1) => lsd::<8, 256, 1>(v),
        (8, 2) => lsd::<8, 256, 2>(v),
        (8, 3) => lsd::<8, 256, 3>(v),
        (8, _) => lsd::<8, 256, 4>(v),
        (10, 1) => lsd::<10, 1024, 1>(v),
        (10, 2) => lsd::<10, 1024, 2>(v),
        (10, 3) => lsd::<10, 1024, 3>(v),
        (10, _) => lsd::<10, 1024, 4>(v),
        (_, 1) => lsd::<11, 2048, 1>(v),
        (_, 2) => lsd::<11, 2048, 2>(v),
        (_, _) => lsd::<11, 2048, 3>(v),
    }
}

/// The digit width (8, 10 or 11 bits) and the number of passes [`sort_indices`] takes for
/// `len` values up to `max`: the width of least cost, ties to the narrower (fewer buckets to
/// clear).
fn digits(len: usize, max: u32) -> (u32, u32) {
    let bits = (32 - max.leading_zeros()).max(1);
    let cost = |width: u32| bits.div_ceil(width) as usize * (len + (1usize << width) / 4);
    let width = [8, 10, 11]
        .into_iter()
        .min_by_key(|&w| cost(w))
        .expect("three widths");
    (width, bits.div_ceil(width))
}

/// [`sort_indices`] with `BITS`-bit digits (`BUCKETS = 2^BITS`) in `PASSES` passes, enough for
/// every value; `v.len()` fits a `u32`.
fn lsd<const BITS: u32, const BUCKETS: usize, const PASSES: usize>(v: &mut [u32]) {
    let digit = |x: u32, pass: usize| ((x >> (pass as u32 * BITS)) as usize) & (BUCKETS - 1);
    // On the stack: counts on the heap, walked by an iterator, took 1.25x the time of the sort
    // at 1,000 values.
    let mut counts = [[0u32; BUCKETS]; PASSES];
    for &x in v.iter() {
        for (pass, count) in counts.iter_mut().enumerate() {
            count[digit(x, pass)] += 1;
        }
    }
    let mut other = vec![0u32; v.len()];
    let (mut from, mut to): (&mut [u32], &mut [u32]) = (v, &mut other);
    let mut moved = 0;
    for (pass, next) in counts.iter_mut().enumerate() {
        // A pass whose digit is the same for every value moves nothing.
        if next[digit(from[0], pass)] as usize == from.len() {
            continue;
        }
        counts_to_starts(next);
        for &x in from.iter() {
            let d = digit(x, pass);
            to[next[d] as usize] = x;
            next[d] += 1;
        }
        core::mem::swap(&mut from, &mut to);
        moved += 1;
    }
    if moved % 2 == 1 {
        // The sorted values are in the scratch buffer.
        to.copy_from_slice(from);
    }
}

#[cfg(test)]
mod tests {
    use super::{digits, radix_sort, radix_sort_runs, sort_indices, sort_pairs};
    use crate::test_rng::{XorShift32, XorShift64};

    /// `sort_pairs` equals `sort_unstable` on pairs of every count around its thresholds, for
    /// index ranges of every width (the top digit first from 262,144 pairs).
    #[test]
    #[cfg_attr(miri, ignore = "a few million values; safe code only")]
    fn sort_pairs_equals_sort_unstable() {
        let mut rng = XorShift64(0x2545_f491);
        for (len, n) in [
            (0, 1),
            (255, 1000),
            (256, 1000),
            (300, 2),
            (5_000, 100_000),
            (5_000, 1 << 32),
            (70_000, 17),
            (300_000, 100_000),
            (300_000, 3),
            (300_000, 1 << 32),
        ] {
            let mut pairs: Vec<(u32, u32)> = (0..len)
                .map(|_| {
                    let a = rng.below(n as u64) as u32;
                    let b = rng.below(n as u64) as u32;
                    (a.min(b), a.max(b))
                })
                .collect();
            let mut want = pairs.clone();
            want.sort_unstable();
            sort_pairs(&mut pairs, n);
            assert_eq!(pairs, want, "{len} pairs below {n}");
        }
    }

    #[test]
    fn sort_indices_sorts_at_every_width() {
        let mut rng = XorShift32(0x9e37_79b9);
        let mut seen = Vec::new();
        for (len, max) in [
            (0, 0),
            (5, 9),
            (600, 100),
            (3000, 5000),
            (5000, 1 << 22),
            (4000, u32::MAX),
            // 8-, 10- and 11-bit digits in every number of passes the cost model takes.
            (200, 1_000_000),
            (1000, 1_000_000),
            (20_000, 1 << 22),
            (200, 65_535),
            (200, u32::MAX),
            (3000, 1000),
            (4000, 1 << 26),
            (3000, 2000),
            (20_000, 1 << 21),
        ] {
            if len >= 128 {
                seen.push(digits(len, max));
            }
            let mut v: Vec<u32> = (0..len)
                .map(|_| {
                    if max == u32::MAX {
                        rng.next_u32()
                    } else {
                        rng.below(max + 1)
                    }
                })
                .collect();
            let mut want = v.clone();
            want.sort_unstable();
            sort_indices(&mut v, max);
            assert_eq!(v, want, "{len} values up to {max}");
        }
        // Every body but 10-bit digits in four passes (never the cheapest: 8-bit digits need
        // no more passes there, nor 11-bit ones for many values).
        seen.sort_unstable();
        seen.dedup();
        let all = [
            (8, 1),
            (8, 2),
            (8, 3),
            (8, 4),
            (10, 1),
            (10, 2),
            (10, 3),
            (11, 1),
            (11, 2),
            (11, 3),
        ];
        assert_eq!(seen, all);
    }

    /// Passes whose digit is the same in every value are skipped, so the sorted values may end
    /// in either buffer: an even and an odd number of passes moved, at each digit width.
    #[test]
    fn sort_indices_skips_constant_digits() {
        let mut rng = XorShift32(0x2545_f491);
        for len in [200, 1000, 20_000] {
            for shape in [
                |r: u32| r % 1000,                  // high digits all zero
                |r: u32| (r % 1000) << 12 | 0x0fff, // low digits constant
                |r: u32| (r % 1000) << 11 | 0x0400, // one digit constant, the next not
            ] {
                let mut v: Vec<u32> = (0..len).map(|_| shape(rng.next_u32())).collect();
                let mut want = v.clone();
                want.sort_unstable();
                sort_indices(&mut v, 1 << 22);
                assert_eq!(v, want, "{len} values");
            }
        }
    }

    /// The runs `radix_sort_runs` reports are exactly the maximal runs of equal keys longer
    /// than `min_run` in the sorted order (against a plain scan), and its order is
    /// `radix_sort`'s; with runs at the start, the end, of exactly `min_run` and one more.
    #[test]
    fn radix_sort_runs_finds_every_long_run() {
        let mut rng = XorShift32(0x0bad_5eed);
        for min_run in [1, 3, 64] {
            let mut keys: Vec<u32> = (0..3000).map(|_| rng.below(900)).collect();
            for (key, len) in [
                (0, min_run),
                (5, min_run + 1),
                (899, 2 * min_run + 7),
                (7, 1),
            ] {
                keys.extend(core::iter::repeat_n(key, len));
            }
            let (order, runs) = radix_sort_runs(&keys, min_run, 1);
            assert_eq!(order, radix_sort(&keys));
            let sorted: Vec<u32> = order.iter().map(|&i| keys[i as usize]).collect();
            let mut want = Vec::new();
            let mut start = 0;
            for i in 1..=sorted.len() {
                if i == sorted.len() || sorted[i] != sorted[start] {
                    if i - start > min_run {
                        want.push(start..i);
                    }
                    start = i;
                }
            }
            assert_eq!(runs, want, "min_run {min_run}");
        }
        assert_eq!(radix_sort_runs(&[], 1, 1), (vec![], vec![]));
        assert_eq!(
            radix_sort_runs(&[4, 4, 4], 2, 1),
            (vec![0, 1, 2], core::iter::once(0..3).collect())
        );
        assert_eq!(radix_sort_runs(&[4, 4, 4], 3, 1), (vec![0, 1, 2], vec![]));
    }

    /// From `MSD_MIN` keys of more than 11 bits the sort takes the top 8 bits first: the same
    /// stable order at every key width (12 bits: in-bucket passes of 4; 13: of 5 with a spare
    /// bit; 22; 32), with many equal keys, digits constant in every bucket or in some, and at
    /// the threshold and above it; and the runs of more than 64 equal keys found in it are a
    /// plain scan's, on one thread and on three.
    #[test]
    #[cfg_attr(miri, ignore = "262,144 keys and more")]
    fn the_top_digit_first_sorts_as_the_others() {
        let mut rng = XorShift32(0x9e37_79b9);
        for len in [super::MSD_MIN, super::MSD_MIN + 4321] {
            for shape in [
                (|r: u32| r & 0xfff) as fn(u32) -> u32,
                |r| r & 0x1fff,
                |r| r & 0x3f_ffff,
                |r| r,
                |r| (r % 37) << 20, // few keys: long runs, low digits zero
                |r| (r & 0xff) << 24 | 0x00ab_cdef, // constant below the top digit
                |r| {
                    if r % 3 == 0 {
                        r & 0xffff
                    } else {
                        (r & 0xf) << 16
                    }
                }, // some buckets crowded
            ] {
                let keys: Vec<u32> = (0..len).map(|_| shape(rng.next_u32())).collect();
                let mut want: Vec<u32> = (0..len as u32).collect();
                want.sort_by_key(|&i| (keys[i as usize], i));
                assert_eq!(radix_sort(&keys), want, "{len} keys");
                // The runs: those of a plain scan of the order.
                let mut want_runs = Vec::new();
                let mut start = 0;
                for end in 1..=len {
                    if end == len || keys[want[end] as usize] != keys[want[start] as usize] {
                        if end - start > 64 {
                            want_runs.push(start..end);
                        }
                        start = end;
                    }
                }
                // On one thread and on three (the buckets sorted in groups), the same.
                let want = (want, want_runs);
                for threads in [1, 3] {
                    assert_eq!(radix_sort_runs(&keys, 64, threads), want, "{len} keys");
                }
            }
        }
    }

    #[test]
    fn radix_sort_is_a_stable_sort() {
        let mut rng = XorShift32(0x1234_5678);
        let mut keys: Vec<u32> = (0..if cfg!(miri) { 300 } else { 5000 })
            .map(|_| rng.below(977) * 4_000_001)
            .collect();
        keys.extend([0, u32::MAX, 0, u32::MAX]);
        let perm = radix_sort(&keys);
        let mut want: Vec<u32> = (0..keys.len() as u32).collect();
        want.sort_by_key(|&i| (keys[i as usize], i));
        assert_eq!(perm, want);
        // Digits that vary in one pass (the first, the middle or the last), in two, in none.
        for mask in [0x7ff, 0x3f_f800, 0xffc0_0000, 0x3f_ffff, 0xffc0_07ff, 0] {
            let masked: Vec<u32> = keys
                .iter()
                .map(|k| k.wrapping_mul(2_654_435_761) & mask)
                .collect();
            let mut want: Vec<u32> = (0..masked.len() as u32).collect();
            want.sort_by_key(|&i| (masked[i as usize], i));
            assert_eq!(radix_sort(&masked), want, "mask {mask:#x}");
        }
        assert_eq!(radix_sort(&[]), Vec::<u32>::new());
        assert_eq!(radix_sort(&[7, 7, 7]), [0, 1, 2]);
    }
}
