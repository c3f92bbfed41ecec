// The in-process A/B probe of blocked builds of oriented boxes (kind 0), spheres (1) and octahedra (2)
// (2026-11-29): two builds of bvlanes linked into one binary (old = the commit before, version set to
// 0.1.1; new = the change), Blocked::new_with_threads(&flat, THREADS) of N primitives (centres uniform
// in [0, 1000]^3, half extents 0.5..2.5, rotations from random quaternions; spheres of radius the first
// half extent; octahedra of the boxes), interleaved rounds, medians, the median of per-round ratios;
// orders asserted equal, and every level's bounds for oriented boxes and spheres.
// Run: probe-obbab N ROUNDS KIND THREADS
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use std::time::Instant;

fn main() {
    let n: usize = std::env::args().nth(1).map_or(1_000_000, |s| s.parse().unwrap());
    let reps: usize = std::env::args().nth(2).map_or(10, |s| s.parse().unwrap());
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut f = || (rng.next_u32() >> 8) as f64 / (1u32 << 24) as f64;
    let raw: Vec<([f32; 3], [f32; 3], [[f32; 3]; 3])> = (0..n)
        .map(|_| {
            let c = [f() as f32 * 1000.0, f() as f32 * 1000.0, f() as f32 * 1000.0];
            let h = [0.5 + 2.0 * f() as f32, 0.5 + 2.0 * f() as f32, 0.5 + 2.0 * f() as f32];
            let (mut x, mut y, mut z, mut w) = (f() * 2.0 - 1.0, f() * 2.0 - 1.0, f() * 2.0 - 1.0, f() * 2.0 - 1.0);
            let l = (x * x + y * y + z * z + w * w).sqrt();
            x /= l; y /= l; z /= l; w /= l;
            let rows = [
                [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y)],
                [2.0 * (x * y - w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + w * x)],
                [2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)],
            ];
            (c, h, rows.map(|r| r.map(|v| v as f32)))
        })
        .collect();
    let kind: usize = std::env::args().nth(3).map_or(0, |s| s.parse().unwrap());
    let threads: usize = std::env::args().nth(4).map_or(1, |s| s.parse().unwrap());
    let fo = old::Obbs::from_slice(&raw.iter().map(|r| old::Obb::new(r.0, r.1, r.2)).collect::<Vec<_>>()).unwrap();
    let fnw = new::Obbs::from_slice(&raw.iter().map(|r| new::Obb::new(r.0, r.1, r.2)).collect::<Vec<_>>()).unwrap();
    let so = old::Spheres::from_slice(&raw.iter().map(|r| old::Sphere::new(r.0, r.1[0])).collect::<Vec<_>>()).unwrap();
    let sn = new::Spheres::from_slice(&raw.iter().map(|r| new::Sphere::new(r.0, r.1[0])).collect::<Vec<_>>()).unwrap();
    let oo = old::Octahedra::from_slice(&raw.iter().map(|r| old::Octahedron::from_aabb(&old::Aabb::new([r.0[0] - r.1[0], r.0[1] - r.1[1], r.0[2] - r.1[2]], [r.0[0] + r.1[0], r.0[1] + r.1[1], r.0[2] + r.1[2]]))).collect::<Vec<_>>()).unwrap();
    let on = new::Octahedra::from_slice(&raw.iter().map(|r| new::Octahedron::from_aabb(&new::Aabb::new([r.0[0] - r.1[0], r.0[1] - r.1[1], r.0[2] - r.1[2]], [r.0[0] + r.1[0], r.0[1] + r.1[1], r.0[2] + r.1[2]]))).collect::<Vec<_>>()).unwrap();
    let (mut to, mut tn, mut ratio) = (vec![], vec![], vec![]);
    for _ in 0..reps {
        let (x, y);
        if kind == 0 {
            let t = Instant::now(); let a = old::Blocked::new_with_threads(&fo, threads); x = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now(); let b = new::Blocked::new_with_threads(&fnw, threads); y = t.elapsed().as_secs_f64() * 1e3;
            assert_eq!(a.order(), b.order());
            for k in 0..a.levels() { for i in 0..(n >> (4 * (k + 1))) { assert_eq!(a.bounds(k, i).map(|b| (b.min, b.max)), b.bounds(k, i).map(|b| (b.min, b.max))); } }
        } else if kind == 2 {
            let t = Instant::now(); let a = old::Blocked::new_with_threads(&oo, threads); x = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now(); let b = new::Blocked::new_with_threads(&on, threads); y = t.elapsed().as_secs_f64() * 1e3;
            assert_eq!(a.order(), b.order());
        } else {
            let t = Instant::now(); let a = old::Blocked::new_with_threads(&so, threads); x = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now(); let b = new::Blocked::new_with_threads(&sn, threads); y = t.elapsed().as_secs_f64() * 1e3;
            assert_eq!(a.order(), b.order());
            for k in 0..a.levels() { for i in 0..(n >> (4 * (k + 1))) { assert_eq!(a.bounds(k, i).map(|b| (b.min, b.max)), b.bounds(k, i).map(|b| (b.min, b.max))); } }
        }
        to.push(x); tn.push(y); ratio.push(x / y);
    }
    let med = |v: &mut Vec<f64>| { v.sort_by(f64::total_cmp); v[v.len() / 2] };
    println!("{} build {n}, threads {threads}: old {:.2} ms, new {:.2} ms, old/new median {:.3}", ["obbs", "spheres", "octahedra"][kind], med(&mut to), med(&mut tn), med(&mut ratio));
}
