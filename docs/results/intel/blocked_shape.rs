//! Throwaway probe (not built by the crate; 2026-11-29, issue 22): `probe-shape N H`, the shape
//! of a `Blocked<Aabbs>` of N boxes (centres uniform in [0, 1000]^3, half extents 0.5..2.5):
//! per level, the mean node extent, the nodes' volumes summed over the cube's, and the mean
//! number of nodes a box query of half extent H overlaps (1,000 queries, brute force over the
//! level). Cargo.toml: `bvlanes = { path = "..." }`, `rand_xoshiro = "0.8.1"`.
use bvlanes::{Aabb, Aabbs, Blocked};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a[1].parse().unwrap();
    let h: f32 = a[2].parse().unwrap();
    let mut r = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut u = |lo: f32, hi: f32| lo + (hi - lo) * ((r.next_u64() >> 40) as f32 / (1u64 << 24) as f32);
    let boxes: Vec<Aabb> = (0..n).map(|_| { let c = [u(0.0, 1000.0), u(0.0, 1000.0), u(0.0, 1000.0)]; let e = [u(0.5, 2.5), u(0.5, 2.5), u(0.5, 2.5)]; Aabb::new([c[0]-e[0], c[1]-e[1], c[2]-e[2]], [c[0]+e[0], c[1]+e[1], c[2]+e[2]]) }).collect();
    let qs: Vec<Aabb> = (0..1000).map(|_| { let c = [u(0.0, 1000.0), u(0.0, 1000.0), u(0.0, 1000.0)]; Aabb::new([c[0]-h, c[1]-h, c[2]-h], [c[0]+h, c[1]+h, c[2]+h]) }).collect();
    let b = Blocked::<Aabbs>::from_slice(&boxes).unwrap();
    for level in 0..b.levels() {
        let mut nodes = Vec::new();
        let mut k = 0;
        while let Some(x) = b.bounds(level, k) { nodes.push(x); k += 1; }
        let ext: [f64; 3] = core::array::from_fn(|i| nodes.iter().map(|x| (x.max[i] - x.min[i]) as f64).sum::<f64>() / nodes.len() as f64);
        let vol: f64 = nodes.iter().map(|x| (0..3).map(|i| (x.max[i] - x.min[i]) as f64).product::<f64>()).sum::<f64>();
        let hits: usize = qs.iter().map(|q| nodes.iter().filter(|x| (0..3).all(|i| x.min[i] <= q.max[i] && q.min[i] <= x.max[i])).count()).sum();
        println!("level {level}: {} nodes, mean extent {:.1} {:.1} {:.1}, volume sum / cube {:.2}, overlapping a query: {:.2}", nodes.len(), ext[0], ext[1], ext[2], vol / 1e9, hits as f64 / qs.len() as f64);
    }
}
