// The in-process A/B probe of the broadphase's changes of 2026-11-27 (session 14): two builds of
// bvlanes linked into one binary (`old` = the commit before the change, its Cargo.toml version
// set to 0.1.1; `new` = the change), `Sweep::complete_pairs_into` on one thread (AVX-512, the
// detected backend), the same pairs in the same order asserted every round, rounds interleaved,
// medians and the median of per-round old/new ratios. (A run with both sides built from the same
// commit read 1.007x on spheres and 0.998x on boxes: the probe has no bias of its own.)
// Cargo.toml: old = { path = "/work/old", package = "bvlanes" }, new = { path = "/work/exp", package = "bvlanes" }
// Run: probe-bpab N ROUNDS [spheres] [THREADS], e.g. probe-bpab 10000 31 spheres
// BENCHTERD=1: the bench's own Terdiman scene (its seed, `rand_xoshiro`) instead of the xorshift
// one; BSPH=1: the spheres are the boxes' bounding spheres (`Sphere::from_aabb`). The runs of
// 2026-11-29 (366841a, 6e3e75a) used BENCHTERD=1, with `old` the parent commit.
// FRESH=1: `complete_pairs` into a new vector each call (not `complete_pairs_into`); OTHER=1:
// a vector of 1,143,694 pairs pushed one by one and kept before each timed call, as the
// bench's other rows do (session 27's runs of the pair vector's growth, 0b67add).
use std::time::Instant;
macro_rules! scene {
    ($m:ident, $n:expr, $sph:expr) => {{
        let mut s = 0x9E3779B97F4A7C15u64;
        let mut r = |m: u64| { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s % m) as f32 };
        let boxes: Vec<$m::Aabb> = if std::env::var_os("BENCHTERD").is_some() { bench_terdiman($n).into_iter().map(|(a, b)| $m::Aabb::new(a, b)).collect() } else { (0..$n).map(|_| { let c = [r(4096) - 2048.0, r(4096) - 2048.0, r(4096) - 2048.0]; let h = [r(128), r(128), r(128)]; $m::Aabb::new([c[0]-h[0], c[1]-h[1], c[2]-h[2]], [c[0]+h[0], c[1]+h[1], c[2]+h[2]]) }).collect() };
        let spheres: Vec<$m::Sphere> = if std::env::var_os("BSPH").is_some() { boxes.iter().map($m::Sphere::from_aabb).collect() } else { boxes.iter().map(|b| $m::Sphere::new([(b.min[0]+b.max[0])*0.5,(b.min[1]+b.max[1])*0.5,(b.min[2]+b.max[2])*0.5], (b.max[0]-b.min[0])*0.5)).collect() };
        ($m::Aabbs::from_slice(&boxes).unwrap(), $m::Spheres::from_slice(&spheres).unwrap())
    }};
}
fn bench_terdiman(n: usize) -> Vec<([f32; 3], [f32; 3])> {
    use rand_xoshiro::Xoshiro256PlusPlus;
    use rand_xoshiro::rand_core::{Rng, SeedableRng};
    const SEED: u64 = 0x6276_6c61_6e65_732d;
    let mix = 0x0b0c_5e00u64.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut r = Xoshiro256PlusPlus::seed_from_u64(SEED ^ mix);
    (0..n).map(|_| {
        let c = [0; 3].map(|_| (r.next_u32() % 4096) as i32 - 2048);
        let h = [0; 3].map(|_| (r.next_u32() % 128) as i32);
        ([0, 1, 2].map(|k| (c[k] - h[k]) as f32), [0, 1, 2].map(|k| (c[k] + h[k]) as f32))
    }).collect()
}
fn med(v: &mut Vec<f64>) -> f64 { v.sort_by(|a, b| a.partial_cmp(b).unwrap()); v[v.len() / 2] }
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map(|s| s.parse().unwrap()).unwrap_or(10_000);
    let rounds: usize = args.get(2).map(|s| s.parse().unwrap()).unwrap_or(15);
    let sph = args.get(3).map(|s| s == "spheres").unwrap_or(false);
    let threads: usize = args.get(4).map(|s| s.parse().unwrap()).unwrap_or(1);
    let (ob, os) = scene!(old, n, sph);
    let (nb, ns) = scene!(new, n, sph);
    let so = old::broadphase::Sweep::new().with_threads(threads);
    let sn = new::broadphase::Sweep::new().with_threads(threads);
    let reps = (100_000 / n).max(1);
    let fresh = std::env::var("FRESH").is_ok();
    let other = std::env::var("OTHER").is_ok();
    let (mut c1, mut c2): (Vec<(u32, u32)>, Vec<(u32, u32)>) = (Vec::new(), Vec::new());
    let mut churn = |c: &mut Vec<(u32, u32)>| if other { let mut v = Vec::new(); for k in 0..1_143_694u32 { v.push((k, k ^ 5)); } *c = std::hint::black_box(v); };
    let (mut to, mut tn, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    let (mut po, mut pn) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        churn(&mut c1);
        let t = Instant::now();
        for _ in 0..reps { if fresh { po = if sph { so.complete_pairs(&os) } else { so.complete_pairs(&ob) } } else if sph { so.complete_pairs_into(&os, &mut po) } else { so.complete_pairs_into(&ob, &mut po) } }
        let a = t.elapsed().as_secs_f64() * 1e3 / reps as f64;
        churn(&mut c2);
        let t = Instant::now();
        for _ in 0..reps { if fresh { pn = if sph { sn.complete_pairs(&ns) } else { sn.complete_pairs(&nb) } } else if sph { sn.complete_pairs_into(&ns, &mut pn) } else { sn.complete_pairs_into(&nb, &mut pn) } }
        let b = t.elapsed().as_secs_f64() * 1e3 / reps as f64;
        assert_eq!(po, pn, "same pairs, same order");
        to.push(a); tn.push(b); ratio.push(a / b);
    }
    println!("n {n} {} threads {threads}: old {:.3} ms, new {:.3} ms, old/new median {:.3} (min {:.3} max {:.3}), pairs {}",
        if sph {"spheres"} else {"boxes"}, med(&mut to), med(&mut tn), med(&mut ratio.clone()), ratio.iter().cloned().fold(f64::MAX, f64::min), ratio.iter().cloned().fold(0.0, f64::max), pn.len());
}
