//! Throwaway probe (not built by the crate; 2026-11-27, issue 22): 1,000 sphere queries on
//! `Blocked<Spheres>` and 1,000 octahedron queries on `Blocked<Octahedra>` (`extend_hits`), two
//! builds of the crate linked into one binary as in `blocked_query_ab.rs`, interleaved rounds,
//! median of per-round ratios. Run: `other <primitives> <radius> <rounds>`.
use std::time::Instant;
fn med(mut v: Vec<f64>) -> f64 { v.sort_by(f64::total_cmp); v[v.len() / 2] }
macro_rules! setup {
    ($m:ident, $b:expr, $q:expr) => {{
        let sph: Vec<$m::Sphere> = $b.iter().map(|&(c, r)| $m::Sphere::new(c, r)).collect();
        let sq: Vec<$m::Sphere> = $q.iter().map(|&(c, r)| $m::Sphere::new(c, r)).collect();
        let oct: Vec<$m::Octahedron> = sph.iter().map($m::Octahedron::from_sphere).collect();
        let oq: Vec<$m::Octahedron> = sq.iter().map($m::Octahedron::from_sphere).collect();
        let bs = $m::Blocked::new_with_threads(&$m::Spheres::from_slice(&sph).unwrap(), 1);
        let bo = $m::Blocked::new_with_threads(&$m::Octahedra::from_slice(&oct).unwrap(), 1);
        (bs, sq, bo, oq)
    }};
}
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a.get(1).map_or(100_000, |s| s.parse().unwrap());
    let h: f32 = a.get(2).map_or(5.0, |s| s.parse().unwrap());
    let rounds: usize = a.get(3).map_or(31, |s| s.parse().unwrap());
    let mut s = 0x9E3779B97F4A7C15u64;
    let mut r = || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s >> 40) as f32 / (1u64 << 24) as f32 };
    let b: Vec<([f32; 3], f32)> = (0..n).map(|_| ([r()*1000.0, r()*1000.0, r()*1000.0], 0.5 + 2.0*r())).collect();
    let q: Vec<([f32; 3], f32)> = (0..1000).map(|_| ([r()*1000.0, r()*1000.0, r()*1000.0], h)).collect();
    let (sa, qa, oa, pa) = setup!(old, b, q);
    let (sb, qb, ob, pb) = setup!(new, b, q);
    for kind in ["spheres", "octahedra"] {
        let (mut ratio, mut to, mut tn) = (vec![], vec![], vec![]);
        for round in 0..rounds {
            let mut run_old = || { let t = Instant::now(); let mut out = Vec::new(); if kind == "spheres" { for x in &qa { sa.extend_hits(x, &mut out); } } else { for x in &pa { oa.extend_hits(x, &mut out); } } (t.elapsed().as_secs_f64() * 1e3, out.len()) };
            let mut run_new = || { let t = Instant::now(); let mut out = Vec::new(); if kind == "spheres" { for x in &qb { sb.extend_hits(x, &mut out); } } else { for x in &pb { ob.extend_hits(x, &mut out); } } (t.elapsed().as_secs_f64() * 1e3, out.len()) };
            let ((o, ho), (nn, hn)) = if round % 2 == 0 { let o = run_old(); (o, run_new()) } else { let nn = run_new(); (run_old(), nn) };
            assert_eq!(ho, hn);
            to.push(o); tn.push(nn); ratio.push(o / nn);
        }
        println!("{kind} n {n} h {h} extend: old {:.3} ms new {:.3} ms, old/new {:.3}", med(to), med(tn), med(ratio));
    }
}
