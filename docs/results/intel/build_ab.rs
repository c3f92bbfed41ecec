// The in-process A/B probe of the blocked build (2026-11-28): two builds of bvlanes linked into
// one binary (`old` = the commit before, version set to 0.1.1; `new` = the change),
// `Blocked::new_with_threads(&flat, THREADS)` of N boxes (centres uniform in [0, 1000]^3, half
// extents 0.5..2.5; THREADS 1 by default, 0 for all of rayon's pool), interleaved rounds,
// medians, the median of per-round old/new ratios; the orders asserted equal.
// Run: probe-bnab N ROUNDS [THREADS]
// Cargo.toml: old = { path = "/work/old", package = "bvlanes" }, new = { path = "/work/main", package = "bvlanes" }
use std::time::Instant;
fn med(v: &mut Vec<f64>) -> f64 { v.sort_by(|a, b| a.partial_cmp(b).unwrap()); v[v.len() / 2] }
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a.get(1).map_or(1_000_000, |s| s.parse().unwrap());
    let rounds: usize = a.get(2).map_or(11, |s| s.parse().unwrap());
    let threads: usize = a.get(3).map_or(1, |s| s.parse().unwrap());
    let mut s = 0x9E3779B97F4A7C15u64;
    let mut u = |lo: f32, hi: f32| { s ^= s << 13; s ^= s >> 7; s ^= s << 17; lo + (hi - lo) * ((s >> 40) as f32 / (1u64 << 24) as f32) };
    let raw: Vec<([f32; 3], [f32; 3])> = (0..n).map(|_| { let c = [u(0.0, 1000.0), u(0.0, 1000.0), u(0.0, 1000.0)]; let e = [u(0.5, 2.5), u(0.5, 2.5), u(0.5, 2.5)]; ([c[0]-e[0], c[1]-e[1], c[2]-e[2]], [c[0]+e[0], c[1]+e[1], c[2]+e[2]]) }).collect();
    let fo = old::Aabbs::from_slice(&raw.iter().map(|b| old::Aabb::new(b.0, b.1)).collect::<Vec<_>>()).unwrap();
    let fnew = new::Aabbs::from_slice(&raw.iter().map(|b| new::Aabb::new(b.0, b.1)).collect::<Vec<_>>()).unwrap();
    let (mut to, mut tn, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now(); let bo = old::Blocked::new_with_threads(&fo, threads); let x = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now(); let bn = new::Blocked::new_with_threads(&fnew, threads); let y = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!(bo.order(), bn.order());
        drop(bo); drop(bn);
        to.push(x); tn.push(y); ratio.push(x / y);
    }
    let mut bn = new::Blocked::new_with_threads(&fnew, 1);
    let mut tr = Vec::new();
    for _ in 0..rounds { let t = Instant::now(); bn.refit(); tr.push(t.elapsed().as_secs_f64() * 1e3); }
    println!("refit (levels) {:.2} ms", med(&mut tr));
    println!("n {n}, threads {threads}: build old {:.2} ms, new {:.2} ms, old/new median {:.3}", med(&mut to), med(&mut tn), med(&mut ratio));
}
