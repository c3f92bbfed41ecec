//! Throughput of `Frustum` queries against spheres and boxes on each backend.
//! `cargo run --release --example frustum_throughput`
use bvlanes::{Aabb, Aabbs, Backend, Frustum, Sphere, Spheres};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use std::hint::black_box;
use std::time::Instant;

fn main() -> Result<(), bvlanes::BvError> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let mut unit = move || (rng.next_u32() >> 8) as f32 / (1u32 << 24) as f32;
    // A 90-degree perspective camera at the origin looking down -z, near 1, far 100.
    let r = 100.0f32 / (1.0 - 100.0);
    let f = Frustum::from_view_projection([
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, r, -1.0],
        [0.0, 0.0, r, 0.0],
    ])?;
    for n in [4_096usize, 1_048_576] {
        // Objects uniform in [-100, 100]^3: about 1/6 of them in view.
        let spheres: Vec<Sphere> = (0..n)
            .map(|_| {
                let c = [
                    unit() * 200.0 - 100.0,
                    unit() * 200.0 - 100.0,
                    unit() * 200.0 - 100.0,
                ];
                Sphere::new(c, 0.5 + unit())
            })
            .collect();
        let boxes: Vec<Aabb> = spheres.iter().map(Aabb::from_sphere).collect();
        let (s, b) = (Spheres::from_slice(&spheres)?, Aabbs::from_slice(&boxes)?);
        let reps = (16_777_216 / n).max(4);
        let mut times: Vec<Vec<(f64, f64)>> = vec![Vec::new(); Backend::available().len()];
        let mut counts = (0, 0);
        for _round in 0..15 {
            for (bi, &be) in Backend::available().iter().enumerate() {
                let (ps, pb) = (s.with_backend(be)?, b.with_backend(be)?);
                let t0 = Instant::now();
                for _ in 0..reps {
                    counts.0 = black_box(ps.count_hits(black_box(&f)));
                }
                let t1 = Instant::now();
                for _ in 0..reps {
                    counts.1 = black_box(pb.count_hits(black_box(&f)));
                }
                let t2 = Instant::now();
                let per = |d: std::time::Duration| d.as_secs_f64() * 1e9 / (reps * n) as f64;
                times[bi].push((per(t1 - t0), per(t2 - t1)));
            }
        }
        for (bi, &be) in Backend::available().iter().enumerate() {
            let mut sp: Vec<f64> = times[bi].iter().map(|t| t.0).collect();
            let mut bx: Vec<f64> = times[bi].iter().map(|t| t.1).collect();
            sp.sort_by(f64::total_cmp);
            bx.sort_by(f64::total_cmp);
            println!(
                "n = {n:>9}  {be:<6}  spheres {:.3} ns/prim ({:.0} M/s)  boxes {:.3} ns/prim ({:.0} M/s)  hits {} / {}",
                sp[7],
                1e3 / sp[7],
                bx[7],
                1e3 / bx[7],
                counts.0,
                counts.1
            );
        }
    }
    Ok(())
}
