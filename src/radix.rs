//! The least-significant-digit radix sort the sweeps (sort by min x) and the blocked containers
//! (sort by space-filling-curve key) share.

/// The stable order of `keys` (an index permutation) by a least-significant-digit radix sort:
/// three passes of 11 bits over `(key, index)` packed in a `u64`, the three digits' counts taken
/// in one pass over the keys.
pub(crate) fn radix_sort(keys: &[u32]) -> Vec<u32> {
    const BITS: u32 = 11;
    const BUCKETS: usize = 1 << BITS;
    let digit = |k: u32, pass: u32| ((k >> (pass * BITS)) as usize) & (BUCKETS - 1);
    let mut count = vec![[0usize; BUCKETS]; 3];
    for &k in keys {
        count[0][digit(k, 0)] += 1;
        count[1][digit(k, 1)] += 1;
        count[2][digit(k, 2)] += 1;
    }
    let mut items: Vec<u64> = keys
        .iter()
        .enumerate()
        .map(|(i, &k)| (u64::from(k) << 32) | i as u64)
        .collect();
    let mut other = vec![0u64; items.len()];
    for (pass, count) in (0..3).zip(&count) {
        // A pass whose digit is the same for every key moves nothing.
        if count.contains(&items.len()) {
            continue;
        }
        let mut next = [0usize; BUCKETS];
        let mut sum = 0;
        for (b, &c) in count.iter().enumerate() {
            next[b] = sum;
            sum += c;
        }
        for &v in &items {
            let d = digit((v >> 32) as u32, pass);
            other[next[d]] = v;
            next[d] += 1;
        }
        core::mem::swap(&mut items, &mut other);
    }
    items.iter().map(|&v| v as u32).collect()
}

/// Sorts `v` ascending, every element `<= max`: by LSD radix passes, as many as `max` needs (one
/// scratch buffer), of 8-bit digits below 2,048 values (fewer buckets to count and sum) and
/// 11-bit ones above; `sort_unstable` below 128 values. (The blocked containers' hit lists;
/// measured here, 1,000 lists of indices below 1,000,000: 200 each 1.37 ms with
/// `sort_unstable`, 0.78 with 8-bit and 1.70 with 11-bit digits; 1,000 each 8.2, 3.05, 3.3;
/// 3,000 each 26.4, 8.3, 7.2.)
pub(crate) fn sort_indices(v: &mut [u32], max: u32) {
    if v.len() < 128 {
        v.sort_unstable();
    } else if v.len() < 2048 {
        lsd::<8, 256>(v, max);
    } else {
        lsd::<11, 2048>(v, max);
    }
}

/// [`sort_indices`] with `BITS`-bit digits (`BUCKETS = 2^BITS`).
fn lsd<const BITS: u32, const BUCKETS: usize>(v: &mut [u32], max: u32) {
    let passes = (32 - max.leading_zeros()).div_ceil(BITS);
    let mut other = vec![0u32; v.len()];
    let (mut from, mut to): (&mut [u32], &mut [u32]) = (v, &mut other);
    for pass in 0..passes {
        let shift = pass * BITS;
        let digit = |x: u32| ((x >> shift) as usize) & (BUCKETS - 1);
        let mut next = [0usize; BUCKETS];
        for &x in from.iter() {
            next[digit(x)] += 1;
        }
        let mut sum = 0;
        for n in &mut next {
            let c = *n;
            *n = sum;
            sum += c;
        }
        for &x in from.iter() {
            let d = digit(x);
            to[next[d]] = x;
            next[d] += 1;
        }
        core::mem::swap(&mut from, &mut to);
    }
    if passes % 2 == 1 {
        // The sorted values are in the scratch buffer.
        to.copy_from_slice(from);
    }
}

#[cfg(test)]
mod tests {
    use super::{radix_sort, sort_indices};

    #[test]
    fn sort_indices_sorts_at_every_width() {
        let mut x = 0x9e37_79b9u32;
        for (len, max) in [
            (0, 0),
            (5, 9),
            (600, 100),
            (3000, 5000),
            (5000, 1 << 22),
            (4000, u32::MAX),
        ] {
            let mut v: Vec<u32> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    if max == u32::MAX { x } else { x % (max + 1) }
                })
                .collect();
            let mut want = v.clone();
            want.sort_unstable();
            sort_indices(&mut v, max);
            assert_eq!(v, want, "{len} values up to {max}");
        }
    }

    #[test]
    fn radix_sort_is_a_stable_sort() {
        let mut x = 0x1234_5678u32;
        let mut keys: Vec<u32> = (0..if cfg!(miri) { 300 } else { 5000 })
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x % 977 * 4_000_001
            })
            .collect();
        keys.extend([0, u32::MAX, 0, u32::MAX]);
        let perm = radix_sort(&keys);
        let mut want: Vec<u32> = (0..keys.len() as u32).collect();
        want.sort_by_key(|&i| (keys[i as usize], i));
        assert_eq!(perm, want);
        assert_eq!(radix_sort(&[]), Vec::<u32>::new());
        assert_eq!(radix_sort(&[7, 7, 7]), [0, 1, 2]);
    }
}
