//! A physics broadphase frame loop: `SweepAndPrune` with collision filters.
//!
//! 50,000 bodies in a 400 m cube: 47,500 static boxes (walls, props), 2,000 moving bodies and
//! 500 pieces of debris, which fly and bounce off the world's walls. Statics never pair with
//! statics, bodies pair with everything, debris pairs with statics and bodies only. Each frame
//! the moved boxes are written into one `Aabbs` in place (`Aabbs::set`) and `SweepAndPrune`
//! recomputes the pairs around them; `added()` / `removed()` are the contacts that begin and
//! end. Every 60 frames the result is checked against a full sweep, and the full sweep's time is
//! printed beside the update's. Then the same frames run with spheres (bodies as their bounding
//! spheres, `Sphere::from_aabb`), unfiltered.
//!
//! Run with `cargo run --release --example broadphase_frames`.

use bvlanes::broadphase::{CollisionFilter, Filtered, Sweep, SweepAndPrune};
use bvlanes::{Aabb, Aabbs, Sphere, Spheres};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use std::time::{Duration, Instant};

const STATIC: u32 = 1;
const BODY: u32 = 2;
const DEBRIS: u32 = 4;

const WORLD: f32 = 400.0;
const STATICS: usize = 47_500;
const BODIES: usize = 2_000;
const DEBRIS_PIECES: usize = 500;
const FRAMES: usize = 240;
/// Seconds a frame.
const DT: f32 = 1.0 / 60.0;

/// A moving box: its half extent, centre and velocity (m/s).
struct Mover {
    half: [f32; 3],
    center: [f32; 3],
    velocity: [f32; 3],
}

impl Mover {
    fn aabb(&self) -> Aabb {
        let (c, h) = (self.center, self.half);
        Aabb::new(
            [0, 1, 2].map(|k| c[k] - h[k]),
            [0, 1, 2].map(|k| c[k] + h[k]),
        )
    }

    /// One step, bouncing off the world's walls.
    fn step(&mut self) {
        for k in 0..3 {
            self.center[k] += self.velocity[k] * DT;
            let (lo, hi) = (self.half[k], WORLD - self.half[k]);
            if self.center[k] < lo || self.center[k] > hi {
                self.velocity[k] = -self.velocity[k];
                self.center[k] = self.center[k].clamp(lo, hi);
            }
        }
    }
}

fn main() -> Result<(), bvlanes::BvError> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut unit = move || (rng.next_u32() >> 8) as f32 / (1u32 << 24) as f32;

    // Boxes 0..STATICS are static; then the bodies, then the debris.
    let mut boxes: Vec<Aabb> = (0..STATICS)
        .map(|_| {
            let c = [0; 3].map(|_| unit() * WORLD);
            let h = [0; 3].map(|_| 0.5 + unit() * 2.5);
            Aabb::new(
                [0, 1, 2].map(|k| c[k] - h[k]),
                [0, 1, 2].map(|k| c[k] + h[k]),
            )
        })
        .collect();
    let mut movers: Vec<Mover> = (0..BODIES + DEBRIS_PIECES)
        .map(|i| {
            let size = if i < BODIES { 1.5 } else { 0.3 };
            let half = [0; 3].map(|_| size * (0.5 + unit()));
            Mover {
                half,
                center: [0; 3].map(|_| half[0] + unit() * (WORLD - 2.0 * half[0])),
                velocity: [0; 3].map(|_| (unit() - 0.5) * 20.0),
            }
        })
        .collect();
    boxes.extend(movers.iter().map(Mover::aabb));
    let filters: Vec<CollisionFilter> = (0..boxes.len())
        .map(|i| match i {
            i if i < STATICS => CollisionFilter::new(STATIC, BODY | DEBRIS),
            i if i < STATICS + BODIES => CollisionFilter::new(BODY, STATIC | BODY | DEBRIS),
            _ => CollisionFilter::new(DEBRIS, STATIC | BODY),
        })
        .collect();

    let sweep = Sweep::new().with_threads(1);
    let mut set = Aabbs::from_slice(&boxes)?;
    let mut sap = SweepAndPrune::new(sweep);
    let (mut began, mut ended) = (0usize, 0usize);
    let (mut in_updates, mut in_sweeps, mut sweeps) = (Duration::ZERO, Duration::ZERO, 0u32);
    for frame in 0..FRAMES {
        for (i, m) in movers.iter_mut().enumerate() {
            m.step();
            set.set(STATICS + i, m.aabb())?;
        }
        let frame_set = Filtered::new(&set, &filters)?;
        let start = Instant::now();
        let pairs = sap.update(&frame_set).len();
        in_updates += start.elapsed();
        began += sap.added().len();
        ended += sap.removed().len();
        if frame % 60 == 59 {
            let start = Instant::now();
            let mut full = sweep.complete_pairs(&frame_set);
            in_sweeps += start.elapsed();
            sweeps += 1;
            full.sort_unstable();
            assert_eq!(
                sap.pairs(),
                full,
                "frame {frame}: the update equals a full sweep"
            );
            println!("frame {frame:3}: {pairs} pairs (checked against a full sweep)");
        }
    }
    let per_update = in_updates.as_secs_f64() * 1e3 / FRAMES as f64;
    let per_sweep = in_sweeps.as_secs_f64() * 1e3 / f64::from(sweeps);
    println!(
        "{} boxes ({} moving a frame), {FRAMES} frames: contacts began {began}, ended {ended}",
        set.len(),
        movers.len()
    );
    println!(
        "SweepAndPrune::update {per_update:.2} ms a frame; a full sweep {per_sweep:.2} ms ({:.1}x)",
        per_sweep / per_update
    );

    // The same world as spheres (each box's bounding sphere), no filters: a sphere's frame.
    let balls: Vec<Sphere> = set.iter().map(|b| Sphere::from_aabb(&b)).collect();
    let mut balls = Spheres::from_slice(&balls)?;
    let mut sap = SweepAndPrune::new(sweep);
    let start = Instant::now();
    for _ in 0..FRAMES / 4 {
        for (i, m) in movers.iter_mut().enumerate() {
            m.step();
            balls.set(STATICS + i, Sphere::from_aabb(&m.aabb()))?;
        }
        sap.update(&balls);
    }
    let per_update = start.elapsed().as_secs_f64() * 1e3 / (FRAMES / 4) as f64;
    let mut full = sweep.complete_pairs(&balls);
    full.sort_unstable();
    assert_eq!(sap.pairs(), full, "spheres: the update equals a full sweep");
    println!(
        "spheres: {} pairs, SweepAndPrune::update {per_update:.2} ms a frame",
        full.len()
    );
    Ok(())
}
