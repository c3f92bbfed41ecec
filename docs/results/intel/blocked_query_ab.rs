//! Throwaway probe (not built by the crate; 2026-11-27, issue 22): 1,000 blocked box queries,
//! two builds of the crate linked into one binary (`old` = a worktree of the parent commit with
//! its package version changed, `new` = the change), interleaved rounds, median of per-round
//! ratios. Cargo.toml: `old = { path = "...", package = "bvlanes" }`, `new = { ... }`.
//! Run: `probe-qab <boxes> <half extent> <rounds> [extend]`; `OFF=5000` moves the queries out
//! of the scene (every query misses: the setup alone).
use std::time::Instant;
fn med(mut v: Vec<f64>) -> f64 { v.sort_by(f64::total_cmp); v[v.len() / 2] }
macro_rules! setup {
    ($m:ident, $boxes:expr, $queries:expr) => {{
        let b: Vec<$m::Aabb> = $boxes.iter().map(|&(lo, hi)| $m::Aabb::new(lo, hi)).collect();
        let q: Vec<$m::Aabb> = $queries.iter().map(|&(lo, hi)| $m::Aabb::new(lo, hi)).collect();
        let flat = $m::Aabbs::from_slice(&b).unwrap();
        ($m::Blocked::new_with_threads(&flat, 1), q)
    }};
}
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a.get(1).map_or(100_000, |s| s.parse().unwrap());
    let h: f32 = a.get(2).map_or(5.0, |s| s.parse().unwrap());
    let rounds: usize = a.get(3).map_or(31, |s| s.parse().unwrap());
    let extend = a.get(4).is_some_and(|s| s == "extend");
    let mut s = 0x9E3779B97F4A7C15u64;
    let mut r = || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s >> 40) as f32 / (1u64 << 24) as f32 };
    let boxes: Vec<([f32; 3], [f32; 3])> = (0..n).map(|_| { let c = [r()*1000.0, r()*1000.0, r()*1000.0]; let e = 0.5 + 2.0*r(); ([c[0]-e,c[1]-e,c[2]-e],[c[0]+e,c[1]+e,c[2]+e]) }).collect();
    let off: f32 = std::env::var("OFF").map_or(0.0, |v| v.parse().unwrap()); let queries: Vec<([f32; 3], [f32; 3])> = (0..1000).map(|_| { let c = [r()*1000.0 + off, r()*1000.0, r()*1000.0]; ([c[0]-h,c[1]-h,c[2]-h],[c[0]+h,c[1]+h,c[2]+h]) }).collect();
    let (bo, qo) = setup!(old, boxes, queries);
    let (bn, qn) = setup!(new, boxes, queries);
    let (mut to, mut tn, mut ratio) = (vec![], vec![], vec![]);
    let (mut out_o, mut out_n) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let mut run_old = || { let t = Instant::now(); let mut hits = 0; if extend { out_o.clear(); for q in &qo { bo.extend_hits(q, &mut out_o); } hits = out_o.len(); } else { for q in &qo { hits += bo.count_hits(q); } } (t.elapsed().as_secs_f64() * 1e3, hits) };
        let mut run_new = || { let t = Instant::now(); let mut hits = 0; if extend { out_n.clear(); for q in &qn { bn.extend_hits(q, &mut out_n); } hits = out_n.len(); } else { for q in &qn { hits += bn.count_hits(q); } } (t.elapsed().as_secs_f64() * 1e3, hits) };
        let ((o, ho), (nn, hn)) = if round % 2 == 0 { let o = run_old(); (o, run_new()) } else { let nn = run_new(); (run_old(), nn) };
        assert_eq!(ho, hn);
        to.push(o); tn.push(nn); ratio.push(o / nn);
    }
    println!("n {n} h {h} {}: old {:.3} ms new {:.3} ms, old/new {:.3}", if extend { "extend" } else { "count" }, med(to), med(tn), med(ratio));
}
