//! Probe: `Blocked::set` of each move against `Blocked::set_many` of the same 1 % of the boxes
//! (moved by up to one unit, there and back in alternate rounds), in one process, interleaved
//! rounds, median of per-round ratios; `FLUSH=1` writes 512 MB between timings (the bench table
//! streams that much between two rounds of its refit rows). Args: `N ROUNDS [many]`
//! (`many`: both sides `set_many`, an A/A check). Cargo: `bvlanes` by path, `rand_xoshiro`.
use bvlanes::{Aabb, Aabbs, Blocked};
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::time::Instant;

fn unit(r: &mut Xoshiro256PlusPlus) -> f64 { (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64 }
fn uni(r: &mut Xoshiro256PlusPlus, a: f32, b: f32) -> f32 { a + (b - a) * unit(r) as f32 }

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map_or(1_000_000, |s| s.parse().unwrap());
    let rounds: usize = args.get(2).map_or(21, |s| s.parse().unwrap());
    let mode = args.get(3).cloned().unwrap_or_default();
    let mut r = Xoshiro256PlusPlus::seed_from_u64(7);
    let items: Vec<Aabb> = (0..n).map(|_| {
        let c = [0; 3].map(|_| uni(&mut r, 0.0, 1000.0));
        let h = [0; 3].map(|_| uni(&mut r, 0.5, 2.5));
        Aabb::new([0, 1, 2].map(|k| c[k] - h[k]), [0, 1, 2].map(|k| c[k] + h[k]))
    }).collect();
    let blocked = Blocked::new_with_threads(&Aabbs::from_slice(&items).unwrap(), 1);
    let m = n / 100;
    let moved: Vec<(usize, Aabb, Aabb)> = (0..m).map(|_| {
        let i = (unit(&mut r) * n as f64) as usize % n;
        let b = items[i];
        let d = [0; 3].map(|_| uni(&mut r, -1.0, 1.0));
        (i, Aabb::new([0, 1, 2].map(|k| b.min[k] + d[k]), [0, 1, 2].map(|k| b.max[k] + d[k])), b)
    }).collect();
    let fwd: Vec<(usize, Aabb)> = moved.iter().map(|&(i, m, _)| (i, m)).collect();
    let bwd: Vec<(usize, Aabb)> = moved.iter().map(|&(i, _, b)| (i, b)).collect();
    let mut a = blocked.clone();
    let mut b = blocked.clone();
    let (mut ta, mut tb, mut ratios) = (vec![], vec![], vec![]);
    let mut junk = vec![0u64; if std::env::var("FLUSH").is_ok() { 64 << 20 } else { 0 }];
    let mut flush = || { for (i, v) in junk.iter_mut().enumerate().step_by(8) { *v = v.wrapping_add(i as u64); } };
    for round in 0..rounds {
        let list = if round % 2 == 0 { &fwd } else { &bwd };
        flush();
        let t = Instant::now();
        if mode != "many" { for &(i, x) in list { a.set(i, x).unwrap(); } } else { a.set_many(list).unwrap(); }
        let x = t.elapsed().as_secs_f64() * 1e3;
        flush();
        let t = Instant::now();
        b.set_many(list).unwrap();
        let y = t.elapsed().as_secs_f64() * 1e3;
        if round >= 2 { ta.push(x); tb.push(y); ratios.push(x / y); }
    }
    let med = |v: &mut Vec<f64>| { v.sort_by(f64::total_cmp); v[v.len() / 2] };
    // Same answers.
    for i in (0..n).step_by(97) { assert_eq!(a.get(i), b.get(i)); }
    for lv in 0..a.levels() { for node in 0..(n >> (4 * (lv + 1))) { assert_eq!(a.bounds(lv, node), b.bounds(lv, node)); } }
    println!("looseness {} {}", a.looseness(), b.looseness());
    println!("n {n} moves {m}: set each {:.3} ms, set_many {:.3} ms, ratio {:.2}x (min {:.2} max {:.2})",
        med(&mut ta), med(&mut tb), med(&mut ratios.clone()),
        ratios.iter().cloned().fold(f64::INFINITY, f64::min), ratios.iter().cloned().fold(0.0, f64::max));
}
