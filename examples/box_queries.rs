//! A broadphase inner loop: each moving box is tested against every static box, and the
//! candidate pairs are collected. Also shows `Conservative` spheres and `hit_mask`.
//!
//! Run with `cargo run --release --example box_queries`.

use bvlanes::{Aabb, Aabbs, Conservative, Sphere};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

fn main() -> Result<(), bvlanes::BvError> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(42);
    let mut unit = move || (rng.next_u32() >> 8) as f32 / (1u32 << 24) as f32;
    let mut random_box = |extent: f32| {
        let c = [unit() * 200.0, unit() * 200.0, unit() * 200.0];
        let h = [unit() * extent, unit() * extent, unit() * extent];
        Aabb::new(
            [c[0] - h[0], c[1] - h[1], c[2] - h[2]],
            [c[0] + h[0], c[1] + h[1], c[2] + h[2]],
        )
    };

    let statics: Vec<Aabb> = (0..50_000).map(|_| random_box(3.0)).collect();
    let statics = Aabbs::from_slice(&statics)?;
    let movers: Vec<Aabb> = (0..1_000).map(|_| random_box(5.0)).collect();

    let mut pairs: Vec<(u32, u32)> = Vec::new();
    let mut hits = Vec::new();
    for (i, mover) in movers.iter().enumerate() {
        hits.clear();
        statics.extend_hits(mover, &mut hits);
        pairs.extend(hits.iter().map(|&j| (i as u32, j)));
    }
    println!(
        "{} movers x {} static boxes: {} overlapping pairs",
        movers.len(),
        statics.len(),
        pairs.len()
    );

    // A bitmap of the boxes a blast radius touches, exact and conservative.
    let blast = Sphere::new([100.0, 100.0, 100.0], 20.0);
    let mut mask = vec![0u64; statics.len().div_ceil(64)];
    statics.hit_mask(&blast, &mut mask);
    let exact: u32 = mask.iter().map(|w| w.count_ones()).sum();
    let conservative = statics.count_hits(&Conservative(blast));
    println!(
        "blast touches {exact} boxes; the conservative test reports {conservative} (never fewer)"
    );
    assert!(conservative >= exact as usize);
    Ok(())
}
