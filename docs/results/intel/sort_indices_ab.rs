//! Probe: the hit lists' sort, one body over a runtime pass count (a: before d9d6892) against
//! a const pass count (b: d9d6892), a top digit then insertion sort (c), (b) with fused prefix sums
//! (d) and a two-level bitmap (e). A binary crate with modules a..e (files below, inlined here
//! as modules); run: `probe-sort [max]`. 1,000 lists per length, 15 interleaved rounds, medians.


use std::time::Instant;
fn med(mut v: Vec<f64>) -> f64 { v.sort_by(f64::total_cmp); v[v.len() / 2] }
fn main() {
    let m: u32 = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(1_000_000);
    let mut s = 0x9E3779B97F4A7C15u64;
    let mut r = || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; s };
    for len in [200usize, 1000, 3000, 10000] {
        let lists: Vec<Vec<u32>> = (0..(1_000_000 / len).max(100)).map(|_| { let mut seen = std::collections::HashSet::new(); let mut v = Vec::new(); while v.len() < len { let x = (r() % m as u64) as u32; if seen.insert(x) { v.push(x); } } v }).collect();
        let fs: [(&str, fn(&mut [u32], u32)); 6] = [("a", a::sort_a), ("b", b::sort_b), ("c", c::sort_c), ("d", d::sort_d), ("e", e::sort_e), ("unstable", |v, _| v.sort_unstable())];
        for l in &lists { let mut e = l.clone(); e.sort_unstable(); for (name, f) in fs { let mut w = l.clone(); f(&mut w, m - 1); assert_eq!(w, e, "{name}"); } }
        let mut t = vec![vec![]; 6];
        let mut work: Vec<Vec<u32>> = lists.clone();
        for _ in 0..15 {
            for (k, (_, f)) in fs.iter().enumerate() {
                for (w, l) in work.iter_mut().zip(&lists) { w.copy_from_slice(l); }
                let t0 = Instant::now();
                for w in work.iter_mut() { f(w, m - 1); }
                t[k].push(t0.elapsed().as_secs_f64() * 1e9 / (lists.len() * len) as f64);
            }
        }
        let a = med(t[0].clone());
        print!("len {len:5}: ns/value");
        for (k, (name, _)) in fs.iter().enumerate() { let x = med(t[k].clone()); print!("  {name} {x:.2} ({:.2}x)", a / x); }
        println!();
    }
}

mod a {
pub fn sort_a(v: &mut [u32], max: u32) {
    if v.len() < 128 || u32::try_from(v.len()).is_err() {
        v.sort_unstable();
        return;
    }
    let bits = (32 - max.leading_zeros()).max(1);
    let cost = |width: u32| bits.div_ceil(width) as usize * (v.len() + (1usize << width) / 4);
    // Ties go to the narrower digit (fewer buckets to clear).
    let width = [8, 10, 11]
        .into_iter()
        .min_by_key(|&w| cost(w))
        .expect("three widths");
    match width {
        8 => lsd_a::<8, 256>(v, bits),
        10 => lsd_a::<10, 1024>(v, bits),
        _ => lsd_a::<11, 2048>(v, bits),
    }
}
fn lsd_a<const BITS: u32, const BUCKETS: usize>(v: &mut [u32], bits: u32) {
    let passes = bits.div_ceil(BITS) as usize;
    let digit = |x: u32, pass: usize| ((x >> (pass as u32 * BITS)) as usize) & (BUCKETS - 1);
    // On the stack (at most four passes of 8 bits or more): counts on the heap, walked by an
    // iterator, took 1.25x the time of the sort at 1,000 values.
    let mut counts_all = [[0u32; BUCKETS]; 4];
    let counts = &mut counts_all[..passes];
    for &x in v.iter() {
        for (pass, count) in counts.iter_mut().enumerate() {
            count[digit(x, pass)] += 1;
        }
    }
    let mut other = vec![0u32; v.len()];
    let (mut from, mut to): (&mut [u32], &mut [u32]) = (v, &mut other);
    let mut moved = 0;
    for (pass, next) in counts.iter_mut().enumerate() {
        // A pass whose digit is the same for every value moves nothing.
        if next[digit(from[0], pass)] as usize == from.len() {
            continue;
        }
        let mut sum = 0;
        for n in next.iter_mut() {
            let c = *n;
            *n = sum;
            sum += c;
        }
        for &x in from.iter() {
            let d = digit(x, pass);
            to[next[d] as usize] = x;
            next[d] += 1;
        }
        core::mem::swap(&mut from, &mut to);
        moved += 1;
    }
    if moved % 2 == 1 {
        // The sorted values are in the scratch buffer.
        to.copy_from_slice(from);
    }
}
}

mod b {
pub fn sort_b(v: &mut [u32], max: u32) {
    if v.len() < 128 || u32::try_from(v.len()).is_err() {
        v.sort_unstable();
        return;
    }
    let bits = (32 - max.leading_zeros()).max(1);
    let cost = |width: u32| bits.div_ceil(width) as usize * (v.len() + (1usize << width) / 4);
    let width = [8, 10, 11].into_iter().min_by_key(|&w| cost(w)).expect("three widths");
    match (width, bits.div_ceil(width)) {
        (8, 1) => lsd::<8, 256, 1>(v),
        (8, 2) => lsd::<8, 256, 2>(v),
        (8, 3) => lsd::<8, 256, 3>(v),
        (8, _) => lsd::<8, 256, 4>(v),
        (10, 1) => lsd::<10, 1024, 1>(v),
        (10, 2) => lsd::<10, 1024, 2>(v),
        (10, 3) => lsd::<10, 1024, 3>(v),
        (10, _) => lsd::<10, 1024, 4>(v),
        (_, 1) => lsd::<11, 2048, 1>(v),
        (_, 2) => lsd::<11, 2048, 2>(v),
        (_, _) => lsd::<11, 2048, 3>(v),
    }
}

fn lsd<const BITS: u32, const BUCKETS: usize, const PASSES: usize>(v: &mut [u32]) {
    let digit = |x: u32, pass: usize| ((x >> (pass as u32 * BITS)) as usize) & (BUCKETS - 1);
    let mut counts = [[0u32; BUCKETS]; PASSES];
    for &x in v.iter() {
        for (pass, count) in counts.iter_mut().enumerate() {
            count[digit(x, pass)] += 1;
        }
    }
    let mut other = vec![0u32; v.len()];
    let (mut from, mut to): (&mut [u32], &mut [u32]) = (v, &mut other);
    let mut moved = 0;
    for (pass, next) in counts.iter_mut().enumerate() {
        if next[digit(from[0], pass)] as usize == from.len() {
            continue;
        }
        let mut sum = 0;
        for n in next.iter_mut() {
            let c = *n;
            *n = sum;
            sum += c;
        }
        for &x in from.iter() {
            let d = digit(x, pass);
            to[next[d] as usize] = x;
            next[d] += 1;
        }
        core::mem::swap(&mut from, &mut to);
        moved += 1;
    }
    if moved % 2 == 1 {
        to.copy_from_slice(from);
    }
}
}

mod c {
/// One pass by the top digit (about two buckets a value), then an insertion sort (each value
/// moves only inside its bucket).
pub fn sort_c(v: &mut [u32], max: u32) {
    let n = v.len();
    if n < 128 || n > 4096 {
        return crate::b::sort_b(v, max);
    }
    let bits = (32 - max.leading_zeros()).max(1);
    let dbits = (usize::BITS - n.leading_zeros() + 1).min(bits).min(13);
    let shift = bits - dbits;
    let buckets = 1usize << dbits;
    let mut counts = [0u32; 8192];
    let counts = &mut counts[..buckets];
    for &x in v.iter() {
        counts[(x >> shift) as usize & (buckets - 1)] += 1;
    }
    let mut sum = 0;
    for c in counts.iter_mut() {
        let k = *c;
        *c = sum;
        sum += k;
    }
    let mut other = vec![0u32; n];
    for &x in v.iter() {
        let d = (x >> shift) as usize & (buckets - 1);
        other[counts[d] as usize] = x;
        counts[d] += 1;
    }
    // Insertion sort.
    v[0] = other[0];
    for i in 1..n {
        let x = other[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}
}

mod d {
pub fn sort_d(v: &mut [u32], max: u32) {
    if v.len() < 128 || u32::try_from(v.len()).is_err() {
        v.sort_unstable();
        return;
    }
    let bits = (32 - max.leading_zeros()).max(1);
    let cost = |width: u32| bits.div_ceil(width) as usize * (v.len() + (1usize << width) / 4);
    let width = [8, 10, 11].into_iter().min_by_key(|&w| cost(w)).expect("three widths");
    match (width, bits.div_ceil(width)) {
        (8, 1) => lsd::<8, 256, 1>(v),
        (8, 2) => lsd::<8, 256, 2>(v),
        (8, 3) => lsd::<8, 256, 3>(v),
        (8, _) => lsd::<8, 256, 4>(v),
        (10, 1) => lsd::<10, 1024, 1>(v),
        (10, 2) => lsd::<10, 1024, 2>(v),
        (10, 3) => lsd::<10, 1024, 3>(v),
        (10, _) => lsd::<10, 1024, 4>(v),
        (_, 1) => lsd::<11, 2048, 1>(v),
        (_, 2) => lsd::<11, 2048, 2>(v),
        (_, _) => lsd::<11, 2048, 3>(v),
    }
}

fn lsd<const BITS: u32, const BUCKETS: usize, const PASSES: usize>(v: &mut [u32]) {
    let digit = |x: u32, pass: usize| ((x >> (pass as u32 * BITS)) as usize) & (BUCKETS - 1);
    let mut counts = [[0u32; BUCKETS]; PASSES];
    for &x in v.iter() {
        for (pass, count) in counts.iter_mut().enumerate() {
            count[digit(x, pass)] += 1;
        }
    }
    // Every pass's starts in one loop (independent sums side by side).
    let mut sums = [0u32; PASSES];
    for b in 0..BUCKETS {
        for p in 0..PASSES {
            let c = counts[p][b];
            counts[p][b] = sums[p];
            sums[p] += c;
        }
    }
    let mut other = vec![0u32; v.len()];
    let (mut from, mut to): (&mut [u32], &mut [u32]) = (v, &mut other);
    let mut moved = 0;
    for (pass, next) in counts.iter_mut().enumerate() {
        // A pass whose digit is the same for every value moves nothing: its one bucket starts at 0
        // and the next one's at len (or it is the last).
        let d0 = digit(from[0], pass);
        if next[d0] == 0 && next.get(d0 + 1).is_none_or(|&s| s as usize == from.len()) {
            continue;
        }
        for &x in from.iter() {
            let d = digit(x, pass);
            to[next[d] as usize] = x;
            next[d] += 1;
        }
        core::mem::swap(&mut from, &mut to);
        moved += 1;
    }
    if moved % 2 == 1 {
        to.copy_from_slice(from);
    }
}
}

mod e {
use std::cell::RefCell;
thread_local! {
    static BITS: RefCell<(Vec<u64>, Vec<u64>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}
/// Two-level bitmap: words of values, a summary bit per nonzero word.
pub fn sort_e(v: &mut [u32], max: u32) {
    if v.len() < 128 {
        v.sort_unstable();
        return;
    }
    BITS.with_borrow_mut(|(words, summary)| {
        let nw = (max as usize >> 6) + 1;
        let ns = (nw >> 6) + 1;
        if words.len() < nw { words.resize(nw, 0); }
        if summary.len() < ns { summary.resize(ns, 0); }
        for &x in v.iter() {
            let w = (x >> 6) as usize;
            words[w] |= 1 << (x & 63);
            summary[w >> 6] |= 1 << (w & 63);
        }
        let mut n = 0;
        for (s, sw) in summary[..ns].iter_mut().enumerate() {
            let mut sbits = *sw;
            *sw = 0;
            while sbits != 0 {
                let w = s * 64 + sbits.trailing_zeros() as usize;
                sbits &= sbits - 1;
                let mut bits = words[w];
                words[w] = 0;
                let base = (w as u32) << 6;
                while bits != 0 {
                    v[n] = base + bits.trailing_zeros();
                    n += 1;
                    bits &= bits - 1;
                }
            }
        }
        debug_assert_eq!(n, v.len());
    });
}
}
