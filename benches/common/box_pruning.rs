//! The algorithm of box pruning v17 (Pierre Terdiman, "Box pruning revisited", part 17, 2017),
//! written in Rust for the broadphase peer rows of issue 21: the algorithm the targets
//! are set against ("3x v17 at 10,000 boxes, 4x at 100,000"), so that they can be judged as a
//! ratio in one run on whatever processor the bench runs on. This is not his code (C++ with
//! MSVC inline assembly): it is the same algorithm and the same data layout, so it should cost
//! about what his program costs on the same CPU; `docs/benchmarks.md` compares its ratios to the
//! issue's measurements of his program.
//!
//! [`box_pruning`] finds every overlapping pair of closed boxes:
//!
//! 1. The boxes' min x become order-preserving `u32` keys (a float's bits with the sign flipped,
//!    or all bits for a negative; `-0.0` is made `+0.0` first) and are radix sorted, 8 bits a pass,
//!    four passes, a pass skipped where every key has the same digit.
//! 2. The split: the centre of the scene's y and z bounds. A box strictly on one side of both
//!    planes goes to one of four quadrant buckets; a box that meets a plane to the fifth, the
//!    "cross" bucket. Boxes in two different quadrant buckets are strictly separated, so the
//!    pairs are those inside each bucket and those between the cross bucket and each bucket.
//! 3. Each bucket holds, in sorted order, the x keys `(min, max)` (followed by six sentinel
//!    keys `u32::MAX` that end every scan without a bounds check), the y/z values as one 16-byte
//!    vector `[-min y, -min z, max y, max z]`, and the original index.
//! 4. A complete sweep inside each bucket: box `i` against the boxes after it while their min x
//!    key is at most its max x key, unrolled five at a time (the sixth sentinel covers the
//!    look-ahead); a bipartite sweep between the cross bucket and each other bucket, both ways
//!    (`<` one way, `<=` the other, so a pair with equal min x is found once).
//! 5. The y/z test is one 4-lane compare: `[-max y, -max z, min y, min z]` of the query is not
//!    greater than the candidate's vector in any lane (SSE on x86_64 through `wide::f32x4`).
//!
//! Pairs come out as `(min, max)` of the two original indices, in sweep order (not sorted), into
//! a fresh `Vec` (his program appends them to a growable array of `u32`).
//!
//! The boxes must be finite (Terdiman's scenes are): a NaN would make the keys' order and the
//! sentinels meaningless.

use bvlanes::Aabb;
use wide::f32x4;

/// Sentinel keys after each bucket's x keys: the unrolled scan reads the fifth box ahead.
const SENTINELS: usize = 6;

/// The bucket of each combination of (right, left, upper, lower) of the split planes (bit 0:
/// min y > limit y, bit 1: max y < limit y, bit 2: min z > limit z, bit 3: max z < limit z):
/// quadrants 0-3, and 4 (the cross bucket) for a box that meets a plane. Combinations with
/// both sides of one plane cannot happen for a box (min <= max); they map to 4 too.
const BUCKET: [u8; 16] = [4, 4, 4, 4, 4, 3, 2, 4, 4, 1, 0, 4, 4, 4, 4, 4];

/// The number of buckets: four quadrants and the cross bucket, last.
const BUCKETS: usize = 5;

/// The order-preserving `u32` key of a finite float (`-0.0` and `+0.0` have the same key).
#[inline(always)]
fn key(f: f32) -> u32 {
    let bits = (f + 0.0).to_bits();
    bits ^ (((bits as i32) >> 31) as u32 | 0x8000_0000)
}

/// The permutation that sorts `keys` ascending (stable): least significant digit first, one
/// histogram pass for all four digits, a digit's pass skipped when one value holds every key.
fn radix_order(keys: &[u32]) -> Vec<u32> {
    let n = keys.len();
    let mut hist = [[0u32; 256]; 4];
    for &k in keys {
        for (d, h) in hist.iter_mut().enumerate() {
            h[((k >> (8 * d)) & 255) as usize] += 1;
        }
    }
    let mut order: Vec<u32> = (0..n as u32).collect();
    let mut next = vec![0u32; n];
    for (d, h) in hist.iter().enumerate() {
        if h.iter().any(|&c| c as usize == n) {
            continue;
        }
        let mut start = [0u32; 256];
        let mut sum = 0;
        for (s, &c) in start.iter_mut().zip(h) {
            *s = sum;
            sum += c;
        }
        for &i in &order {
            let digit = ((keys[i as usize] >> (8 * d)) & 255) as usize;
            next[start[digit] as usize] = i;
            start[digit] += 1;
        }
        std::mem::swap(&mut order, &mut next);
    }
    order
}

/// One bucket's boxes in sorted order.
struct Bucket<'a> {
    /// `(min x key, max x key)`, then [`SENTINELS`] keys `u32::MAX`.
    x: &'a [[u32; 2]],
    /// `[-min y, -min z, max y, max z]`.
    yz: &'a [f32x4],
    /// The original index of each box.
    index: &'a [u32],
}

impl Bucket<'_> {
    /// The number of boxes.
    fn len(&self) -> usize {
        self.yz.len()
    }

    /// The min x key of box `j`; `j <= len + 5` (a sentinel past the boxes).
    #[inline(always)]
    fn min_x(&self, j: usize) -> u32 {
        debug_assert!(j < self.x.len());
        // SAFETY: every caller passes `j < len + SENTINELS = x.len()`: see the scans.
        unsafe { self.x.get_unchecked(j)[0] }
    }

    /// Whether box `j`'s y/z intervals meet the query's (`q` = `[-max y, -max z, min y,
    /// min z]` of the query box); `j < len`.
    #[inline(always)]
    fn meets(&self, q: f32x4, j: usize) -> bool {
        debug_assert!(j < self.yz.len());
        // SAFETY: every caller passes `j < len`: a box whose min x key is at most a finite
        // box's max x key is not a sentinel.
        let b = unsafe { *self.yz.get_unchecked(j) };
        q.simd_gt(b).to_bitmask() == 0
    }

    /// The original index of box `j < len`.
    #[inline(always)]
    fn index(&self, j: usize) -> u32 {
        debug_assert!(j < self.index.len());
        // SAFETY: as in `meets`.
        unsafe { *self.index.get_unchecked(j) }
    }
}

/// The query vector of a stored y/z vector: `[-max y, -max z, min y, min z]`.
#[inline(always)]
fn query(yz: f32x4) -> f32x4 {
    let [a, b, c, d] = yz.to_array();
    -f32x4::new([c, d, a, b])
}

/// Box `i`'s candidates from `j` on (while their min x key is at most `max`) against `q`;
/// pairs with `own` pushed to `pairs`.
#[inline(always)]
fn scan(b: &Bucket<'_>, mut j: usize, max: u32, q: f32x4, own: u32, pairs: &mut Vec<(u32, u32)>) {
    let mut hit = |j: usize| {
        if b.meets(q, j) {
            let other = b.index(j);
            pairs.push((own.min(other), own.max(other)));
        }
    };
    // Five at a time while the fifth is a candidate (then so are the four before it, the keys
    // being sorted): `j + 4 < len`, and `j + 4 <= len + 4 < x.len()` for the read.
    while b.min_x(j + 4) <= max {
        hit(j);
        hit(j + 1);
        hit(j + 2);
        hit(j + 3);
        hit(j + 4);
        j += 5;
    }
    // One at a time: a sentinel (`u32::MAX` above any finite key) ends it, at `j <= len`.
    while b.min_x(j) <= max {
        hit(j);
        j += 1;
    }
}

/// Every pair inside one bucket.
fn complete(b: &Bucket<'_>, pairs: &mut Vec<(u32, u32)>) {
    for i in 0..b.len() {
        let [_, max] = b.x[i];
        scan(b, i + 1, max, query(b.yz[i]), b.index[i], pairs);
    }
}

/// Every pair of a box of `a` and a box of `b` whose min x key is at least the `a` box's
/// (`AT_LEAST`) or above it (not `AT_LEAST`).
fn bipartite<const AT_LEAST: bool>(a: &Bucket<'_>, b: &Bucket<'_>, pairs: &mut Vec<(u32, u32)>) {
    let mut start = 0;
    for i in 0..a.len() {
        if start >= b.len() {
            break;
        }
        let [min, max] = a.x[i];
        // The sentinel stops both loops at `b.len()` at the latest.
        if AT_LEAST {
            while b.min_x(start) < min {
                start += 1;
            }
        } else {
            while b.min_x(start) <= min {
                start += 1;
            }
        }
        scan(b, start, max, query(a.yz[i]), a.index[i], pairs);
    }
}

/// Every overlapping pair of `boxes` (closed: touching counts), `(min, max)` of the two indices,
/// by box pruning v17's algorithm (see the module's documentation).
///
/// # Panics
/// If there are more than `u32::MAX` boxes. (The boxes must be finite; a NaN gives wrong pairs,
/// not a panic.)
#[inline(never)]
pub fn box_pruning(boxes: &[Aabb]) -> Vec<(u32, u32)> {
    let n = boxes.len();
    assert!(u32::try_from(n).is_ok(), "too many boxes");
    let mut pairs = Vec::new();
    if n == 0 {
        return pairs;
    }
    // The scene's y/z bounds and the min x keys.
    let (mut lo, mut hi) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
    let keys: Vec<u32> = boxes
        .iter()
        .map(|b| {
            for a in 0..2 {
                lo[a] = lo[a].min(b.min[a + 1]);
                hi[a] = hi[a].max(b.max[a + 1]);
            }
            key(b.min[0])
        })
        .collect();
    let sorted = radix_order(&keys);
    let limit = [(lo[0] + hi[0]) * 0.5, (lo[1] + hi[1]) * 0.5];
    let mut counts = [0usize; BUCKETS];
    let bucket: Vec<u8> = boxes
        .iter()
        .map(|b| {
            let code = usize::from(b.min[1] > limit[0])
                | usize::from(b.max[1] < limit[0]) << 1
                | usize::from(b.min[2] > limit[1]) << 2
                | usize::from(b.max[2] < limit[1]) << 3;
            let k = BUCKET[code];
            counts[usize::from(k)] += 1;
            k
        })
        .collect();
    // Each bucket's start in the three arrays (the x keys have the sentinels too).
    let mut x_start = [0usize; BUCKETS + 1];
    let mut start = [0usize; BUCKETS + 1];
    for k in 0..BUCKETS {
        start[k + 1] = start[k] + counts[k];
        x_start[k + 1] = x_start[k] + counts[k] + SENTINELS;
    }
    let mut x = vec![[u32::MAX; 2]; n + BUCKETS * SENTINELS];
    let mut yz = vec![f32x4::ZERO; n];
    let mut index = vec![0u32; n];
    let mut fill = [0usize; BUCKETS];
    for &i in &sorted {
        let b = &boxes[i as usize];
        let k = usize::from(bucket[i as usize]);
        let at = fill[k];
        fill[k] += 1;
        x[x_start[k] + at] = [keys[i as usize], key(b.max[0])];
        yz[start[k] + at] = f32x4::new([-b.min[1], -b.min[2], b.max[1], b.max[2]]);
        index[start[k] + at] = i;
    }
    let buckets: Vec<Bucket<'_>> = (0..BUCKETS)
        .map(|k| Bucket {
            x: &x[x_start[k]..x_start[k + 1]],
            yz: &yz[start[k]..start[k + 1]],
            index: &index[start[k]..start[k + 1]],
        })
        .collect();
    for b in &buckets {
        complete(b, &mut pairs);
    }
    let cross = &buckets[BUCKETS - 1];
    for b in &buckets[..BUCKETS - 1] {
        if b.len() > 0 && cross.len() > 0 {
            bipartite::<true>(b, cross, &mut pairs);
            bipartite::<false>(cross, b, &mut pairs);
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    // Imports inside the tests: the criterion benches (no test harness) compile this module
    // with `cfg(test)` but drop the tests.

    /// The pairs of a brute force, sorted.
    fn brute(boxes: &[bvlanes::Aabb]) -> Vec<(u32, u32)> {
        let mut pairs = Vec::new();
        for (i, a) in boxes.iter().enumerate() {
            for (j, b) in boxes.iter().enumerate().skip(i + 1) {
                if (0..3).all(|k| a.min[k] <= b.max[k] && b.min[k] <= a.max[k]) {
                    pairs.push((i as u32, j as u32));
                }
            }
        }
        pairs
    }

    #[test]
    fn box_pruning_finds_every_pair_once() {
        use super::box_pruning;
        use crate::common::box_scenes::{clustered, terdiman, uniform};
        use bvlanes::Aabb;
        let mut scenes: Vec<Vec<Aabb>> = vec![
            terdiman(3_000).list,
            uniform(3_000).list,
            clustered(2_000).list,
            Vec::new(),
            vec![Aabb::new([0.0; 3], [0.0; 3]); 40],
        ];
        // Signed zeros, touching faces, one box spanning the scene, boxes touching at the split
        // planes, tails of every length.
        let mut mixed = vec![
            Aabb::new([-0.0, -1.0, -1.0], [0.0, 1.0, 1.0]),
            Aabb::new([0.0, 1.0, -0.0], [2.0, 3.0, 0.0]),
            Aabb::new([-1e6, -1e6, -1e6], [1e6, 1e6, 1e6]),
            // With the box above the split planes are y = 0 and z = 0: two boxes touching there.
            Aabb::new([5.0, -1.0, 1.0], [6.0, 0.0, 2.0]),
            Aabb::new([5.0, 0.0, 1.0], [6.0, 1.0, 2.0]),
            Aabb::new([5.0, 1.0, -1.0], [6.0, 2.0, -0.0]),
        ];
        mixed.extend(terdiman(200).list);
        for len in 0..=67 {
            scenes.push(mixed[..len].to_vec());
        }
        scenes.push(mixed);
        for boxes in &scenes {
            let mut got = box_pruning(boxes);
            got.sort_unstable();
            assert_eq!(got, brute(boxes), "{} boxes", boxes.len());
        }
    }
}
