//! Boxes sorted by min x, in SoA chunks, for the sweep: the radix sort on the float bits and the
//! copy into sorted order.

use crate::Aabbs;
use crate::soa::Chunk;

/// Column order of [`SortedBoxes::cols`]: min x, y, z, max x, y, z (as `Aabbs`).
pub(super) const MIN_X: usize = 0;

/// A set of boxes in ascending (min x, index) order.
pub(super) struct SortedBoxes {
    /// `perm[s]` is the original index of the box at sorted position `s`.
    pub(super) perm: Vec<u32>,
    /// Six columns in sorted order, `len.div_ceil(16)` chunks each; padding lanes hold `+inf` in
    /// min x (so no padding lane passes the sweep's x test and every scan stops there) and 0
    /// elsewhere.
    pub(super) cols: [Vec<Chunk>; 6],
    /// Number of boxes.
    pub(super) len: usize,
}

impl SortedBoxes {
    /// Sorts `boxes` by min x (ties by index: the radix sort is stable) and copies them.
    pub(super) fn new(boxes: &Aabbs) -> SortedBoxes {
        let view = boxes.view();
        let keys: Vec<u32> = (0..boxes.len())
            .map(|i| order_key(view.lane(MIN_X, i)))
            .collect();
        SortedBoxes::from_order(boxes, radix_sort(&keys))
    }

    /// Copies `boxes` in the order `perm` (a permutation of their indices, ascending by
    /// (min x, index)).
    pub(super) fn from_order(boxes: &Aabbs, perm: Vec<u32>) -> SortedBoxes {
        let len = boxes.len();
        debug_assert_eq!(perm.len(), len);
        let view = boxes.view();
        let at = |k: usize, i: usize| view.lane(k, i);
        let chunks = len.div_ceil(Chunk::LANES);
        let cols: [Vec<Chunk>; 6] = core::array::from_fn(|k| {
            let pad = if k == MIN_X { f32::INFINITY } else { 0.0 };
            let mut col = vec![Chunk([pad; Chunk::LANES]); chunks];
            for (s, &i) in perm.iter().enumerate() {
                col[s / Chunk::LANES].0[s % Chunk::LANES] = at(k, i as usize);
            }
            col
        });
        SortedBoxes { perm, cols, len }
    }

    /// Column `k` of the box at sorted position `s < len`.
    #[inline(always)]
    pub(super) fn get(&self, k: usize, s: usize) -> f32 {
        self.cols[k][s / Chunk::LANES].0[s % Chunk::LANES]
    }

    /// The box at sorted position `s < len`: min x, y, z, max x, y, z.
    #[inline(always)]
    pub(super) fn row(&self, s: usize) -> [f32; 6] {
        let (c, l) = (s / Chunk::LANES, s % Chunk::LANES);
        [0, 1, 2, 3, 4, 5].map(|k| self.cols[k][c].0[l])
    }
}

/// A `u32` whose unsigned order is the float order of `v` (finite or infinite, not NaN): flip
/// every bit of a negative value, only the sign bit of a positive one. `-0.0` sorts just before
/// `+0.0`; the sweep compares floats, where they are equal, and only needs the keys' order to
/// refine the float order.
#[inline]
pub(super) fn order_key(v: f32) -> u32 {
    let b = v.to_bits();
    if b >> 31 == 1 { !b } else { b | 0x8000_0000 }
}

/// The stable order of `keys` (an index permutation) by a least-significant-digit radix sort:
/// three passes of 11 bits over `(key, index)` packed in a `u64`.
pub(super) fn radix_sort(keys: &[u32]) -> Vec<u32> {
    const BITS: u32 = 11;
    const BUCKETS: usize = 1 << BITS;
    let mut items: Vec<u64> = keys
        .iter()
        .enumerate()
        .map(|(i, &k)| (u64::from(k) << 32) | i as u64)
        .collect();
    let mut other = vec![0u64; items.len()];
    for pass in 0..3 {
        let shift = 32 + pass * BITS;
        let digit = |v: u64| ((v >> shift) as usize) & (BUCKETS - 1);
        let mut count = [0usize; BUCKETS];
        for &v in &items {
            count[digit(v)] += 1;
        }
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
            let d = digit(v);
            other[next[d]] = v;
            next[d] += 1;
        }
        core::mem::swap(&mut items, &mut other);
    }
    items.iter().map(|&v| v as u32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_float_order() {
        let v = [
            f32::NEG_INFINITY,
            -f32::MAX,
            -1.5,
            -f32::MIN_POSITIVE,
            -1e-45,
            -0.0,
            0.0,
            1e-45,
            1.0,
            f32::MAX,
            f32::INFINITY,
        ];
        for w in v.windows(2) {
            assert!(order_key(w[0]) < order_key(w[1]), "{w:?}");
        }
    }

    #[test]
    fn radix_sort_is_a_stable_sort() {
        let mut x = 0x1234_5678u32;
        let mut keys: Vec<u32> = (0..5000)
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
