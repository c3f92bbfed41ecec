//! Throwaway probe (not built by the crate; 2026-11-27, issues 21 and 22): the radix sort of
//! `src/radix.rs` before (least significant digit first; commit 703cfdc) and after (top 8 bits
//! first from 262,144 keys; commit e2ce744), on random keys of a given width, 15 interleaved
//! rounds, equal output asserted. To build it, paste each commit's `sorted_items` (with the
//! constants and `sorted_items_msd` it uses) into the modules `old` and `new` below, each
//! followed by `pub fn sort(keys: &[u32]) -> Vec<u64> { sorted_items(keys) }`, in a binary crate.
//! Run: `ab <keys> <bits>`.
use std::time::Instant;
fn med(mut v: Vec<f64>) -> f64 { v.sort_by(f64::total_cmp); v[v.len() / 2] }
mod new { /* sorted_items of e2ce744, and pub fn sort */ }
mod old { /* sorted_items of 703cfdc, and pub fn sort */ }
fn main() {
    let n: usize = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(1_000_000);
    let kb: u32 = std::env::args().nth(2).map(|s| s.parse().unwrap()).unwrap_or(22);
    let mut s = 0x9E3779B97F4A7C15u64;
    let keys: Vec<u32> = (0..n).map(|_| { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s >> 20) as u32 & (((1u64 << kb) - 1) as u32) }).collect();
    let (mut t0, mut t1, mut r) = (vec![], vec![], vec![]);
    for i in 0..15 {
        let (a, b);
        if i % 2 == 0 { let x = Instant::now(); let o = old::sort(&keys); a = x.elapsed().as_secs_f64(); let x = Instant::now(); let nn = new::sort(&keys); b = x.elapsed().as_secs_f64(); assert!(o == nn); }
        else { let x = Instant::now(); let nn = new::sort(&keys); b = x.elapsed().as_secs_f64(); let x = Instant::now(); let o = old::sort(&keys); a = x.elapsed().as_secs_f64(); assert!(o == nn); }
        t0.push(a * 1e3); t1.push(b * 1e3); r.push(a / b);
    }
    println!("n {n} bits {kb}: old {:.2} ms new {:.2} ms old/new {:.2}", med(t0), med(t1), med(r));
}
