//! Throwaway probe (not built by the crate; 2026-11-29, issue 22): `probe-qab N ROUNDS H`, 1,000
//! box queries of half extent H (`extend_hits`) on `Blocked<Aabbs>` of N boxes, two builds of the
//! crate in one binary (`old` = a worktree of the parent commit with its package version
//! changed, `new` = the change), every answer asserted equal, interleaved rounds, medians and
//! the median of per-round ratios. Cargo.toml: `old = { path = "...", package = "bvlanes" }`,
//! `new = { ... }`, `rand_xoshiro = "0.8.1"`.
//! BK=avx2: both sides on the AVX2 tier (`with_backend`), else the detected one (session 27's
//! runs of the hit lists' sorts in registers, 283a6ee and 2fde21a).
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use std::time::Instant;
fn main() {
    let n: usize = std::env::args().nth(1).map_or(100_000, |s| s.parse().unwrap());
    let rounds: usize = std::env::args().nth(2).map_or(21, |s| s.parse().unwrap());
    let hq: f32 = std::env::args().nth(3).map_or(5.0, |s| s.parse().unwrap());
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut f = || (rng.next_u32() >> 8) as f32 / (1u32 << 24) as f32;
    let raw: Vec<([f32; 3], [f32; 3])> = (0..n).map(|_| {
        let c = [f() * 1000.0, f() * 1000.0, f() * 1000.0];
        let h = [0.5 + 2.0 * f(), 0.5 + 2.0 * f(), 0.5 + 2.0 * f()];
        ([c[0] - h[0], c[1] - h[1], c[2] - h[2]], [c[0] + h[0], c[1] + h[1], c[2] + h[2]])
    }).collect();
    let q: Vec<([f32; 3], [f32; 3])> = (0..1000).map(|_| {
        let c = [f() * 1000.0, f() * 1000.0, f() * 1000.0];
        ([c[0] - hq, c[1] - hq, c[2] - hq], [c[0] + hq, c[1] + hq, c[2] + hq])
    }).collect();
    let bo = old::Blocked::new(&old::Aabbs::from_slice(&raw.iter().map(|b| old::Aabb::new(b.0, b.1)).collect::<Vec<_>>()).unwrap());
    let bn = new::Blocked::new(&new::Aabbs::from_slice(&raw.iter().map(|b| new::Aabb::new(b.0, b.1)).collect::<Vec<_>>()).unwrap());
    let qo: Vec<old::Aabb> = q.iter().map(|b| old::Aabb::new(b.0, b.1)).collect();
    let qn: Vec<new::Aabb> = q.iter().map(|b| new::Aabb::new(b.0, b.1)).collect();
    for (a, b) in qo.iter().zip(&qn) { assert_eq!(bo.hits(a).collect::<Vec<u32>>(), bn.hits(b).collect::<Vec<u32>>()); }
    let (mut to, mut tn, mut r) = (vec![], vec![], vec![]);
    let mut out = Vec::new();
    let avx2 = std::env::var("BK").is_ok_and(|b| b == "avx2");
    for _ in 0..rounds {
        let t = Instant::now(); for x in &qo { out.clear(); if avx2 { bo.with_backend(old::Backend::Avx2).unwrap().extend_hits(x, &mut out) } else { bo.extend_hits(x, &mut out) } } let a = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now(); for x in &qn { out.clear(); if avx2 { bn.with_backend(new::Backend::Avx2).unwrap().extend_hits(x, &mut out) } else { bn.extend_hits(x, &mut out) } } let b = t.elapsed().as_secs_f64() * 1e3;
        to.push(a); tn.push(b); r.push(a / b);
    }
    let med = |v: &mut Vec<f64>| { v.sort_by(f64::total_cmp); v[v.len() / 2] };
    println!("queries {n}: old {:.3} ms, new {:.3} ms, old/new {:.3}", med(&mut to), med(&mut tn), med(&mut r));
}
