//! Probe: Blocked<Spheres>::new_with_threads(_, 1), old and new crates linked into one binary
//! (a bin of the blocked_many_ab.rs crate), 15 interleaved rounds, medians.

use std::time::Instant;
fn med(mut v: Vec<f64>) -> f64 { v.sort_by(f64::total_cmp); v[v.len() / 2] }
fn main() {
    let mut s = 0x9E3779B97F4A7C15u64;
    let mut r = || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s >> 40) as f32 / (1u64 << 24) as f32 };
    for n in [10_000usize, 100_000] {
        let sp: Vec<([f32; 3], f32)> = (0..n).map(|_| ([r()*32.0, r()*32.0, r()*32.0], 0.5 + 1.5 * r())).collect();
        let fo = old::Spheres::from_slice(&sp.iter().map(|&(c, r)| old::Sphere::new(c, r)).collect::<Vec<_>>()).unwrap();
        let fnew = new::Spheres::from_slice(&sp.iter().map(|&(c, r)| new::Sphere::new(c, r)).collect::<Vec<_>>()).unwrap();
        let (mut to, mut tn, mut ratio) = (vec![], vec![], vec![]);
        for _ in 0..15 {
            let t = Instant::now(); let b = old::Blocked::new_with_threads(&fo, 1); let a_ = t.elapsed().as_secs_f64() * 1e3; std::hint::black_box(b.levels());
            let t = Instant::now(); let b = new::Blocked::new_with_threads(&fnew, 1); let b_ = t.elapsed().as_secs_f64() * 1e3; std::hint::black_box(b.levels());
            to.push(a_); tn.push(b_); ratio.push(a_ / b_);
        }
        println!("Blocked<Spheres>::new_with_threads(_, 1), n {n}: old {:.3} ms new {:.3} ms, old/new {:.2}", med(to), med(tn), med(ratio));
    }
}
