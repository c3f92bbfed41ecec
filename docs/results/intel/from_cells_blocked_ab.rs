//! Throwaway probe (not built by the crate; 2026-11-29, issue 22): `probe-lc THREADS`. Cargo.toml:
//! `new = { path = "/work/main", package = "bvlanes" }`, `old = { path = "<worktree of 3c19a9f, version 0.1.1>", package = "bvlanes" }`,
//! `rand_xoshiro = "0.8.1"`.
// probe-lc T: ClusterGrid::from_cells(..).with_threads(T).assign_into, old (3c19a9f: bins, flat batch up to 512 cells)
// against new (blocked lights where blocked_lights_pay), lists asserted equal; time ratio new/old, medians of 7 interleaved rounds.
use std::time::Instant;
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
fn main() {
    let threads: usize = std::env::args().nth(1).map_or(1, |s| s.parse().unwrap());
    let mut r = Xoshiro256PlusPlus::seed_from_u64(11);
    let mut u = |lo: f32, hi: f32| lo + (hi - lo) * ((r.next_u64() >> 40) as f32 / (1u64 << 24) as f32);
    for nl in [3000usize, 10000, 30000, 100000] {
        let ls: Vec<([f32; 3], f32)> = (0..nl).map(|_| ([u(0.0, 32.0), u(0.0, 32.0), u(0.0, 32.0)], u(0.5, 2.0))).collect();
        let lo = old::Spheres::from_slice(&ls.iter().map(|l| old::Sphere::new(l.0, l.1)).collect::<Vec<_>>()).unwrap();
        let ln = new::Spheres::from_slice(&ls.iter().map(|l| new::Sphere::new(l.0, l.1)).collect::<Vec<_>>()).unwrap();
        let mut line = format!("threads {threads}, lights {nl:>6}:");
        for nc in [256usize, 600, 1024, 4096, 16384, 65536] {
            let s = 32.0 / (nc as f32).cbrt();
            let cs: Vec<([f32; 3], [f32; 3])> = (0..nc).map(|_| { let c = [u(0.0, 32.0), u(0.0, 32.0), u(0.0, 32.0)]; let h = [u(0.25, 0.75) * s, u(0.25, 0.75) * s, u(0.25, 0.75) * s]; ([c[0]-h[0], c[1]-h[1], c[2]-h[2]], [c[0]+h[0], c[1]+h[1], c[2]+h[2]]) }).collect();
            let go = old::cull::ClusterGrid::from_cells(old::Aabbs::from_slice(&cs.iter().map(|b| old::Aabb::new(b.0, b.1)).collect::<Vec<_>>()).unwrap()).with_threads(threads);
            let gn = new::cull::ClusterGrid::from_cells(new::Aabbs::from_slice(&cs.iter().map(|b| new::Aabb::new(b.0, b.1)).collect::<Vec<_>>()).unwrap()).with_threads(threads);
            let mut a = old::cull::LightLists::default();
            let mut b = new::cull::LightLists::default();
            let mut rat = vec![];
            let rounds = 7;
            for _ in 0..rounds {
                let t = Instant::now(); go.assign_into(&lo, &mut a); let x = t.elapsed().as_secs_f64();
                let t = Instant::now(); gn.assign_into(&ln, &mut b); let y = t.elapsed().as_secs_f64();
                rat.push(y / x);
            }
            assert_eq!(a.offsets, b.offsets); assert_eq!(a.indices, b.indices);
            rat.sort_by(f64::total_cmp);
            line += &format!(" {nc}: {:.2}x", rat[rounds / 2]);
        }
        println!("{line}");
    }
}
