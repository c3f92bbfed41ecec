//! Deterministic random data (`rand_xoshiro`, fixed seeds): uniform numbers, points in a ball,
//! random rotations.

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// Base seed of every generator in the binary.
const SEED: u64 = 0x6276_6c61_6e65_732d; // "bvlanes-"

/// The generator of stream `stream`, data set `set` (independent for distinct arguments).
pub fn rng(stream: u64, set: u64) -> Xoshiro256PlusPlus {
    let mix = stream.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ set.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    Xoshiro256PlusPlus::seed_from_u64(SEED ^ mix)
}

/// Uniform in `[0, 1)` with 53 random bits.
pub fn unit(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
}

/// Uniform in `[lo, hi)`, rounded to f32.
pub fn uniform(rng: &mut Xoshiro256PlusPlus, lo: f64, hi: f64) -> f32 {
    (lo + (hi - lo) * unit(rng)) as f32
}

/// A point uniform in the unit ball (rejection sampling).
pub fn in_unit_ball(rng: &mut Xoshiro256PlusPlus) -> [f64; 3] {
    loop {
        let p = [0; 3].map(|_| 2.0 * unit(rng) - 1.0);
        if p[0] * p[0] + p[1] * p[1] + p[2] * p[2] <= 1.0 {
            return p;
        }
    }
}

/// A uniformly random rotation, as three orthonormal rows rounded to f32.
pub fn rotation(rng: &mut Xoshiro256PlusPlus) -> [[f32; 3]; 3] {
    crate::common::rotation_from_uniforms([unit(rng), unit(rng), unit(rng)])
}
