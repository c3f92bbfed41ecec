//! The baselines of issue 6 (broadphase), shared by the `broadphase` criterion benchmark and
//! `bvlanes-bench --table broadphase`:
//!
//! * [`sort_and_sweep`]: the plain scalar sort-and-sweep, written the straightforward way — the
//!   peer bvlanes' sweep is measured against.
//! * [`BruteForce`]: all pairs with bvlanes' batched SIMD box query (`Aabbs::extend_hits`), the
//!   reference the other rows' pairs are checked against where `n` allows.
//!
//! Both report closed-box overlaps (touching counts) as `(i, j)` with `i < j`, each pair once.

use bvlanes::{Aabb, Aabbs, Backend};

/// Every overlapping pair of `boxes`, by a plain scalar sort-and-sweep: a `Vec` of
/// `(min_x, index)` sorted on `f32::total_cmp`, then for each box a forward scan while
/// `min_x_j <= max_x_i`, testing y and z with plain comparisons. Pairs as `(min, max)` of the two
/// indices, in sweep order.
#[inline(never)]
pub fn sort_and_sweep(boxes: &[Aabb]) -> Vec<(u32, u32)> {
    let mut order: Vec<(f32, u32)> = boxes
        .iter()
        .enumerate()
        .map(|(i, b)| (b.min[0], i as u32))
        .collect();
    order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    let mut pairs = Vec::new();
    for (p, &(_, i)) in order.iter().enumerate() {
        let a = &boxes[i as usize];
        for &(min_x, j) in &order[p + 1..] {
            if min_x > a.max[0] {
                break;
            }
            let b = &boxes[j as usize];
            if a.min[1] <= b.max[1]
                && b.min[1] <= a.max[1]
                && a.min[2] <= b.max[2]
                && b.min[2] <= a.max[2]
            {
                pairs.push((i.min(j), i.max(j)));
            }
        }
    }
    pairs
}

/// Boxes per block of [`BruteForce`]: a box is tested against the rest of its own block and
/// every later block, so about `n^2 / 2 + n BLOCK / 2` box tests in all.
const BLOCK: usize = 1024;

/// All pairs by brute force with bvlanes' SIMD box query: the boxes cut into blocks of
/// [`BLOCK`] (`Aabbs` each); box `i` queries its own block (keeping `j > i`) and every later block.
#[derive(Clone, Debug)]
pub struct BruteForce {
    list: Vec<Aabb>,
    blocks: Vec<Aabbs>,
}

impl BruteForce {
    /// The blocks of `boxes`.
    pub fn new(boxes: &[Aabb]) -> BruteForce {
        BruteForce {
            list: boxes.to_vec(),
            blocks: boxes
                .chunks(BLOCK)
                .map(|c| Aabbs::from_slice(c).expect("valid boxes"))
                .collect(),
        }
    }

    /// Number of boxes.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Every overlapping pair, `(i, j)` with `i < j`, ascending; the queries run on `backend`.
    ///
    /// # Panics
    /// If this CPU lacks `backend`.
    pub fn pairs(&self, backend: Backend) -> Vec<(u32, u32)> {
        let mut pairs = Vec::new();
        self.extend_pairs(backend, 0..self.list.len(), &mut Vec::new(), &mut pairs);
        pairs
    }

    /// The pairs `(i, j)`, `i < j`, of the boxes `i` in `range`, appended to `pairs` (ascending);
    /// `hits` is scratch.
    ///
    /// # Panics
    /// If this CPU lacks `backend` or `range` ends past the boxes.
    pub fn extend_pairs(
        &self,
        backend: Backend,
        range: std::ops::Range<usize>,
        hits: &mut Vec<u32>,
        pairs: &mut Vec<(u32, u32)>,
    ) {
        let pinned: Vec<_> = self
            .blocks
            .iter()
            .map(|b| b.with_backend(backend).expect("an available backend"))
            .collect();
        for i in range {
            let query = &self.list[i];
            let own = i / BLOCK;
            for (k, block) in pinned.iter().enumerate().skip(own) {
                hits.clear();
                block.extend_hits(query, hits);
                let base = (k * BLOCK) as u32;
                pairs.extend(
                    hits.iter()
                        .map(|&h| base + h)
                        .filter(|&j| j as usize > i)
                        .map(|j| (i as u32, j)),
                );
            }
        }
    }
}
