//! Building a blocked container: the primitives ordered along a Morton curve of their centres
//! (outsized ones after all others), then the levels of block bounds bottom up.

use super::layout::Blockable;
use super::layout::private::Layout;
use crate::lanes::Chunk;
use crate::primitive::Aabb;
use crate::radix::radix_sort;
use crate::soa::Aabbs;

/// Bits per axis of the Morton key (a 1024^3 grid over the centres' bounds).
const MORTON_BITS: u32 = 10;

/// A primitive is outsized when its largest side exceeds this many times the larger of the
/// median largest side and the side of a cube that would hold one block of centres.
pub(crate) const OUTSIZED_FACTOR: f64 = 8.0;

/// Extents sampled for the median.
const MEDIAN_SAMPLES: usize = 4096;

/// `v`'s low 10 bits spread to every third bit.
#[inline]
fn spread(v: u32) -> u32 {
    let mut x = v & 0x3ff;
    x = (x | (x << 16)) & 0x0300_00ff;
    x = (x | (x << 8)) & 0x0300_f00f;
    x = (x | (x << 4)) & 0x030c_30c3;
    x = (x | (x << 2)) & 0x0924_9249;
    x
}

/// The order of `c`'s primitives along the curve (a permutation of `0..count`) and how many of
/// them are outsized (they come last).
pub(crate) fn curve_order<C: Blockable>(c: &C) -> (Vec<u32>, usize) {
    let n = c.count();
    if n == 0 {
        return (Vec::new(), 0);
    }
    let centre = |i: usize| {
        let (lo, hi) = c.key_box(i);
        core::array::from_fn::<f64, 3, _>(|a| (f64::from(lo[a]) + f64::from(hi[a])) * 0.5)
    };
    let extent = |i: usize| {
        let (lo, hi) = c.key_box(i);
        (0..3)
            .map(|a| f64::from(hi[a]) - f64::from(lo[a]))
            .fold(0.0, f64::max)
    };
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for i in 0..n {
        let m = centre(i);
        for a in 0..3 {
            lo[a] = lo[a].min(m[a]);
            hi[a] = hi[a].max(m[a]);
        }
    }
    let span: [f64; 3] = core::array::from_fn(|a| hi[a] - lo[a]);
    // The outsized threshold: from a median of sampled extents and the side of a cube holding
    // one block's worth of centres (over the largest span, so flat scenes do not shrink it).
    let step = n.div_ceil(MEDIAN_SAMPLES);
    let mut sample: Vec<f64> = (0..n).step_by(step).map(extent).collect();
    let mid = sample.len() / 2;
    let median = *sample.select_nth_unstable_by(mid, f64::total_cmp).1;
    let blocks = (n as f64 / Chunk::LANES as f64).max(1.0);
    let cell = span.iter().copied().fold(0.0, f64::max) / blocks.cbrt();
    let threshold = OUTSIZED_FACTOR * median.max(cell);
    let cells = f64::from(1u32 << MORTON_BITS);
    let scale: [f64; 3] =
        core::array::from_fn(|a| if span[a] > 0.0 { cells / span[a] } else { 0.0 });
    let max_cell = (1u32 << MORTON_BITS) - 1;
    let mut outsized = 0;
    let keys: Vec<u32> = (0..n)
        .map(|i| {
            let m = centre(i);
            let q = |a: usize| (((m[a] - lo[a]) * scale[a]) as u32).min(max_cell);
            let key = spread(q(0)) | spread(q(1)) << 1 | spread(q(2)) << 2;
            if extent(i) > threshold {
                outsized += 1;
                key | 1 << (3 * MORTON_BITS)
            } else {
                key
            }
        })
        .collect();
    (radix_sort(&keys), outsized)
}

/// The levels of block bounds over `leaves`: level 0 one box per chunk of primitives, each next
/// level one box per chunk of the level below, up to a level of at most 16 boxes.
pub(crate) fn levels<C: Blockable>(leaves: &C) -> Vec<Aabbs> {
    let mut levels = Vec::new();
    let n = leaves.count();
    if n == 0 {
        return levels;
    }
    let first: Vec<Aabb> = (0..n.div_ceil(Chunk::LANES))
        .map(|c| leaves.chunk_bounds(c))
        .collect();
    levels.push(bounds_level(&first));
    while levels.last().is_some_and(|l| l.len() > Chunk::LANES) {
        let below = levels.last().expect("a level");
        let next: Vec<Aabb> = (0..below.len().div_ceil(Chunk::LANES))
            .map(|c| Layout::chunk_bounds(below, c))
            .collect();
        levels.push(bounds_level(&next));
    }
    levels
}

/// A level's container (bounds are finite and not inverted: unions of valid boxes).
fn bounds_level(boxes: &[Aabb]) -> Aabbs {
    Aabbs::from_slice(boxes).expect("block bounds are finite, non-inverted boxes")
}

#[cfg(test)]
mod tests {
    use super::spread;

    #[test]
    fn spread_puts_each_bit_three_apart() {
        for b in 0..10 {
            assert_eq!(spread(1 << b), 1 << (3 * b));
        }
        assert_eq!(spread(0x3ff), 0x0924_9249);
        assert_eq!(spread(0xfc00), 0, "bits past the tenth are dropped");
    }
}
