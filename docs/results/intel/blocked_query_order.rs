//! Probe: the same 1,000 box queries one at a time in random order and in the Morton order of
//! their centres, on one Blocked<Aabbs> (what motivated the batches' walk order).
//! Run: `order N HALF_EXTENT ROUNDS [extend]`.

use bvlanes::{Aabb, Aabbs, Blocked};
use std::time::Instant;
fn med(mut v: Vec<f64>) -> f64 { v.sort_by(f64::total_cmp); v[v.len() / 2] }
fn spread(x: u32) -> u64 { let mut v = x as u64 & 0x3ff; v = (v | v << 16) & 0x30000ff; v = (v | v << 8) & 0x300f00f; v = (v | v << 4) & 0x30c30c3; v = (v | v << 2) & 0x9249249; v }
fn main() {
    let n: usize = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(100_000);
    let h: f32 = std::env::args().nth(2).map(|s| s.parse().unwrap()).unwrap_or(5.0);
    let rounds: usize = std::env::args().nth(3).map(|s| s.parse().unwrap()).unwrap_or(21);
    let extend = std::env::args().nth(4).is_some_and(|s| s == "extend");
    let mut s = 0x9E3779B97F4A7C15u64;
    let mut r = || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s >> 40) as f32 / (1u64 << 24) as f32 };
    let boxes: Vec<Aabb> = (0..n).map(|_| { let c = [r()*1000.0, r()*1000.0, r()*1000.0]; let h = 0.5 + 2.0*r(); Aabb::new([c[0]-h,c[1]-h,c[2]-h],[c[0]+h,c[1]+h,c[2]+h]) }).collect();
    let queries: Vec<Aabb> = (0..1000).map(|_| { let c = [r()*1000.0, r()*1000.0, r()*1000.0]; Aabb::new([c[0]-h,c[1]-h,c[2]-h],[c[0]+h,c[1]+h,c[2]+h]) }).collect();
    let mut sorted = queries.clone();
    sorted.sort_by_key(|q| { let c: Vec<u32> = (0..3).map(|a| (((q.min[a] + q.max[a]) * 0.5).clamp(0.0, 999.9) * 1.024) as u32).collect(); spread(c[0]) | spread(c[1]) << 1 | spread(c[2]) << 2 });
    let flat = Aabbs::from_slice(&boxes).unwrap();
    let b = Blocked::new_with_threads(&flat, 1);
    let mut out = Vec::new();
    let mut run = |qs: &[Aabb]| { let t = Instant::now(); let mut hits = 0; if extend { out.clear(); for q in qs { b.extend_hits(q, &mut out); } hits = out.len(); } else { for q in qs { hits += b.count_hits(q); } } (t.elapsed().as_secs_f64() * 1e3, hits) };
    let (mut tr, mut ts, mut ratio) = (vec![], vec![], vec![]);
    for _ in 0..rounds {
        let (a, ha) = run(&queries); let (c, hc) = run(&sorted); assert_eq!(ha, hc);
        tr.push(a); ts.push(c); ratio.push(a / c);
    }
    println!("n {n} h {h} {}: random order {:.3} ms, Morton order {:.3} ms, ratio {:.3}", if extend {"extend"} else {"count"}, med(tr), med(ts), med(ratio));
}
