//! Clustered light culling in miniature: lights are spheres, the view volume is cut into a grid of
//! box cells, and each cell collects the indices of the lights that touch it.
//!
//! Run with `cargo run --release --example light_culling`.

use bvlanes::{Aabb, Backend, Sphere, Spheres};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use std::time::Instant;

fn main() -> Result<(), bvlanes::BvError> {
    // 20,000 point lights of radius 0.5..2.5 in a 100 x 40 x 100 volume (fixed seed).
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut unit = move || (rng.next_u32() >> 8) as f32 / (1u32 << 24) as f32;
    let lights: Vec<Sphere> = (0..20_000)
        .map(|_| {
            let center = [unit() * 100.0, unit() * 40.0, unit() * 100.0];
            Sphere::new(center, 0.5 + 2.0 * unit())
        })
        .collect();
    let lights = Spheres::from_slice(&lights)?;

    // A 16 x 8 x 24 grid of cells over the same volume.
    let (nx, ny, nz) = (16, 8, 24);
    let size = [100.0 / nx as f32, 40.0 / ny as f32, 100.0 / nz as f32];
    let cells: Vec<Aabb> = (0..nz)
        .flat_map(|z| (0..ny).flat_map(move |y| (0..nx).map(move |x| (x, y, z))))
        .map(|(x, y, z)| {
            let min = [x as f32 * size[0], y as f32 * size[1], z as f32 * size[2]];
            Aabb::new(min, [min[0] + size[0], min[1] + size[1], min[2] + size[2]])
        })
        .collect();

    // Per cell: an offset into one flat index list, and a count (the layout engines upload).
    let start = Instant::now();
    let mut offsets = Vec::with_capacity(cells.len() + 1);
    let mut indices: Vec<u32> = Vec::new();
    for cell in &cells {
        offsets.push(indices.len() as u32);
        lights.extend_hits(cell, &mut indices); // exact sphere-box test, ascending indices
    }
    offsets.push(indices.len() as u32);
    let elapsed = start.elapsed();

    let busiest = offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    println!(
        "{} cells x {} lights on {}: {} light-cell pairs, busiest cell {} lights, {:.2} ms",
        cells.len(),
        lights.len(),
        Backend::detect(),
        indices.len(),
        busiest,
        elapsed.as_secs_f64() * 1e3
    );

    // Every tier gives the same answer.
    for &backend in Backend::available() {
        let pinned = lights.with_backend(backend)?;
        let total: usize = cells.iter().map(|c| pinned.count_hits(c)).sum();
        assert_eq!(total, indices.len(), "{backend}");
    }
    Ok(())
}
