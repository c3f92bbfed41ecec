//! The box scenes of issue 6 (broadphase: every overlapping pair among `n` boxes), shared by the
//! `broadphase` criterion benchmark and `bvlanes-bench --table broadphase`. Every scene is
//! deterministic (fixed seeds) and its boxes are the first `n` of one fixed sequence.
//!
//! * [`terdiman`]: Terdiman's distribution ("Box pruning revisited") — integer centres uniform
//!   in `[-2048, 2047]^3`, integer half-extents uniform in `0..=127` per axis (about 11.8k pairs
//!   at 10,000 boxes; the pair count grows as `n^2`).
//! * [`uniform`]: float boxes, centres uniform in a cube whose side grows as `n^(1/3)` so that
//!   there are about two pairs per box at every `n`, half-extents uniform in `[0.5, 2.5]` per
//!   axis (100,000 boxes by default: see [`UNIFORM_BOXES`]).
//! * [`clustered`]: unit boxes on an integer lattice on four planes — three floors and a wall
//!   crossing them — so every box touches its lattice neighbours exactly (faces, edges and
//!   corners: closed boxes count them), and the wall's boxes where it crosses a floor are exact
//!   duplicates of that floor's boxes.

use bvlanes::{Aabb, Aabbs};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// The Terdiman sizes of the issue.
pub const TERDIMAN_SIZES: [usize; 2] = [10_000, 100_000];

/// Boxes in the uniform scene by default, where every row runs (the scalar sweep included).
pub const UNIFORM_BOXES: usize = 100_000;

/// The large uniform scene (issue 21): in a cube with a few pairs per box, a box's x interval
/// meets those of about `n^(2/3) (2 pairs)^(1/3) / 2` others (about 7,900 at 10^6, 1,600 at
/// 10^5), so a sort-and-sweep along one axis tests ~8e9 candidate pairs here (over a minute per
/// pass for the scalar sweep); the partitioned sweep tests a few dozen per box.
pub const UNIFORM_LARGE: usize = 1_000_000;

/// Boxes in the clustered scene by default.
pub const CLUSTERED_BOXES: usize = 100_000;

/// One scene: its boxes as a plain array (the baselines' input) and as bvlanes' container.
#[derive(Clone, Debug)]
pub struct BoxScene {
    /// Short name: `terdiman`, `uniform`, `clustered`.
    pub name: &'static str,
    /// The boxes, index `i` is box `i`.
    pub list: Vec<Aabb>,
    /// The same boxes in structure-of-arrays form.
    pub boxes: Aabbs,
}

impl BoxScene {
    fn new(name: &'static str, list: Vec<Aabb>) -> BoxScene {
        let boxes = Aabbs::from_slice(&list).expect("valid boxes");
        BoxScene { name, list, boxes }
    }

    /// Number of boxes.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// Terdiman's distribution: `n` boxes, integer centres uniform in `[-2048, 2047]^3`, integer
/// half-extents uniform in `0..=127` per axis (exact in f32: every coordinate is an integer of
/// magnitude below 2^12).
pub fn terdiman(n: usize) -> BoxScene {
    let mut r = rng(0x0b0c_5e00, 0);
    let list = (0..n)
        .map(|_| {
            // 4096 and 128 divide 2^32: no modulo bias.
            let c = [0; 3].map(|_| (r.next_u32() % 4096) as i32 - 2048);
            let h = [0; 3].map(|_| (r.next_u32() % 128) as i32);
            Aabb::new(
                [0, 1, 2].map(|k| (c[k] - h[k]) as f32),
                [0, 1, 2].map(|k| (c[k] + h[k]) as f32),
            )
        })
        .collect();
    BoxScene::new("terdiman", list)
}

/// Uniform float boxes: centres uniform in `[0, side)^3` with `side = 400 (n / 10^6)^(1/3)`,
/// half-extents uniform in `[0.5, 2.5]` per axis — about two overlapping pairs per box at any
/// `n` (at 10^6: `n E[(2(h_i + h_j))^3] / (2 side^3)`, with `E[...] = 264`, gives 2.06).
pub fn uniform(n: usize) -> BoxScene {
    let side = 400.0 * (n as f64 / 1e6).cbrt();
    let mut r = rng(0x0b0c_5e01, 0);
    let list = (0..n)
        .map(|_| {
            let c = [0; 3].map(|_| unit(&mut r) * side);
            let h = [0; 3].map(|_| 0.5 + 2.0 * unit(&mut r));
            Aabb::new(
                [0, 1, 2].map(|k| (c[k] - h[k]) as f32),
                [0, 1, 2].map(|k| (c[k] + h[k]) as f32),
            )
        })
        .collect();
    BoxScene::new("uniform", list)
}

/// A clustered scene: `n` unit boxes `[x, x + 1] x [y, y + 1] x [z, z + 1]` on an integer
/// lattice, a quarter on each of four planes, every plane `w = 4 d` cells long along x (the usual
/// sweep axis) and `d` cells deep (`w d >= n / 4`):
///
/// * three floors (`y = 0`, `y = d / 3`, `y = 2 d / 3`; cells over `x` and `z` in `[0, d)`),
/// * one wall (`z = d / 2`; cells over `x` and `y` in `[0, d)`), which crosses every floor: its
///   boxes on those rows are exact duplicates of floor boxes.
///
/// Each plane is filled row by row (x fastest); no jitter, so every neighbour touches exactly.
pub fn clustered(n: usize) -> BoxScene {
    let quota = n.div_ceil(4);
    let d = ((quota as f64 / 4.0).sqrt().ceil() as i32).max(1);
    let w = 4 * d;
    let mut list = Vec::with_capacity(n);
    'planes: for plane in 0..4 {
        for i in 0..quota as i32 {
            if list.len() == n {
                break 'planes;
            }
            let (x, v) = (i % w, i / w);
            let corner = if plane < 3 {
                [x, plane * d / 3, v]
            } else {
                [x, v, d / 2]
            };
            let min = corner.map(|c| c as f32);
            list.push(Aabb::new(min, min.map(|c| c + 1.0)));
        }
    }
    BoxScene::new("clustered", list)
}

/// The generator of stream `stream`, set `set` (the same mixing as `bvlanes-bench`'s `data::rng`).
fn rng(stream: u64, set: u64) -> Xoshiro256PlusPlus {
    const SEED: u64 = 0x6276_6c61_6e65_732d; // "bvlanes-"
    let mix = stream.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ set.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    Xoshiro256PlusPlus::seed_from_u64(SEED ^ mix)
}

/// Uniform in `[0, 1)` from 53 random bits.
fn unit(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
}
