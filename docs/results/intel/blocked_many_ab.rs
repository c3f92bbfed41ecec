//! Probe: Blocked batch forms (count_hits_many, hits_many_into), old and new crates linked into
//! one binary as `old` and `new` (path dependencies), interleaved rounds, medians of per-round
//! ratios. Run: `probe-many N HALF_EXTENT ROUNDS [hits]`; one thread.

use std::time::Instant;
fn med(mut v: Vec<f64>) -> f64 { v.sort_by(f64::total_cmp); v[v.len() / 2] }
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a[1].parse().unwrap(); let h: f32 = a[2].parse().unwrap(); let rounds: usize = a[3].parse().unwrap();
    let hits = a.get(4).is_some_and(|s| s == "hits");
    let mut s = 0x9E3779B97F4A7C15u64;
    let mut r = || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s >> 40) as f32 / (1u64 << 24) as f32 };
    let boxes: Vec<([f32; 3], [f32; 3])> = (0..n).map(|_| { let c = [r()*1000.0, r()*1000.0, r()*1000.0]; let e = 0.5 + 2.0*r(); ([c[0]-e,c[1]-e,c[2]-e],[c[0]+e,c[1]+e,c[2]+e]) }).collect();
    let queries: Vec<([f32; 3], [f32; 3])> = (0..1000).map(|_| { let c = [r()*1000.0, r()*1000.0, r()*1000.0]; ([c[0]-h,c[1]-h,c[2]-h],[c[0]+h,c[1]+h,c[2]+h]) }).collect();
    let bo = old::Blocked::new_with_threads(&old::Aabbs::from_slice(&boxes.iter().map(|&(l, u)| old::Aabb::new(l, u)).collect::<Vec<_>>()).unwrap(), 1);
    let bn = new::Blocked::new_with_threads(&new::Aabbs::from_slice(&boxes.iter().map(|&(l, u)| new::Aabb::new(l, u)).collect::<Vec<_>>()).unwrap(), 1);
    let qo: Vec<old::Aabb> = queries.iter().map(|&(l, u)| old::Aabb::new(l, u)).collect();
    let qn: Vec<new::Aabb> = queries.iter().map(|&(l, u)| new::Aabb::new(l, u)).collect();
    let po = bo.with_backend(old::Backend::detect()).unwrap().with_threads(1);
    let pn = bn.with_backend(new::Backend::detect()).unwrap().with_threads(1);
    let (mut lo, mut ln) = (old::HitLists::default(), new::HitLists::default());
    let (mut to, mut tn, mut ratio) = (vec![], vec![], vec![]);
    for _ in 0..rounds {
        let t = Instant::now(); let x = if hits { po.hits_many_into(&qo, &mut lo); lo.indices.len() } else { po.count_hits_many(&qo).iter().sum::<u32>() as usize }; let a_ = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now(); let y = if hits { pn.hits_many_into(&qn, &mut ln); ln.indices.len() } else { pn.count_hits_many(&qn).iter().sum::<u32>() as usize }; let b_ = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!(x, y); if hits { assert_eq!(lo.offsets, ln.offsets); assert_eq!(lo.indices, ln.indices); }
        to.push(a_); tn.push(b_); ratio.push(a_ / b_);
    }
    println!("n {n} h {h} {}: old {:.3} ms new {:.3} ms, old/new {:.3}", if hits { "hits_many_into" } else { "count_hits_many" }, med(to), med(tn), med(ratio));
}
