//! Batch size sweep: count_hits_many of k queries (k = 1..32) on one thread, per backend, for
//! tetrahedra and boxes; ns per (query, primitive) median of rounds.
use bvlanes::{Aabb, Aabbs, Backend, DownTet, UpTet, UpTets};
use std::hint::black_box;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 { v.sort_by(|a, b| a.partial_cmp(b).unwrap()); v[v.len() / 2] }

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map(|s| s.parse().unwrap()).unwrap_or(262_144);
    let rounds: usize = args.get(2).map(|s| s.parse().unwrap()).unwrap_or(7);
    let mut s = 0x9E3779B97F4A7C15u64;
    let mut rnd = || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s >> 40) as f32 / (1u64 << 24) as f32 };
    let proj = |c: [f32; 3]| [c[0] + c[1] + c[2], c[0] - c[1] - c[2], -c[0] + c[1] - c[2], -c[0] - c[1] + c[2]];
    let centres: Vec<[f32; 3]> = (0..n).map(|_| [rnd() * 100.0, rnd() * 100.0, rnd() * 100.0]).collect();
    let ups: Vec<UpTet> = centres.iter().map(|&c| UpTet { min: proj(c).map(|x| x - 1.7) }).collect();
    let downs: Vec<DownTet> = ups[..32].iter().map(|u| DownTet { max: u.min.map(|x| x + 3.4) }).collect();
    let boxes: Vec<Aabb> = centres.iter().map(|&c| Aabb::new(c.map(|x| x - 1.0), c.map(|x| x + 1.0))).collect();
    let qboxes: Vec<Aabb> = boxes[..32].iter().map(|b| Aabb::new(b.min.map(|x| x - 2.0), b.max.map(|x| x + 2.0))).collect();
    let t = UpTets::from_slice(&ups).unwrap();
    let a = Aabbs::from_slice(&boxes).unwrap();
    println!("n = {n}; ns per (query, primitive), median of {rounds}");
    for &b in Backend::available() {
        let pt = t.with_backend(b).unwrap().with_threads(1);
        let pa = a.with_backend(b).unwrap().with_threads(1);
        let mut line_t = format!("{b:>7} tets :");
        let mut line_a = format!("{b:>7} boxes:");
        for k in [1usize, 2, 4, 6, 8, 10, 12, 14, 16, 32] {
            let mut tt = Vec::new();
            let mut ta = Vec::new();
            for _ in 0..rounds {
                let s0 = Instant::now(); black_box(pt.count_hits_many(black_box(&downs[..k]))); tt.push(s0.elapsed().as_secs_f64());
                let s0 = Instant::now(); black_box(pa.count_hits_many(black_box(&qboxes[..k]))); ta.push(s0.elapsed().as_secs_f64());
            }
            line_t += &format!(" {k}:{:.3}", median(tt) * 1e9 / (k * n) as f64);
            line_a += &format!(" {k}:{:.3}", median(ta) * 1e9 / (k * n) as f64);
        }
        println!("{line_t}\n{line_a}");
    }
}
