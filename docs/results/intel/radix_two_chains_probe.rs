// probe-radix N ROUNDS: the crate's sorted_items (11-bit LSD) vs an 8-bit LSD, on Terdiman min-x keys.
use std::time::Instant;
fn order_key(v: f32) -> u32 { let b = if v == 0.0 { 0 } else { v.to_bits() }; if b >> 31 == 1 { !b } else { b | 0x8000_0000 } }
fn counts_to_starts(counts: &mut [usize]) { let mut sum = 0; for c in counts { let n = *c; *c = sum; sum += n; } }
#[inline(never)]
fn crate_items(keys: &[u32]) -> Vec<u64> {
    const BITS: u32 = 11; const BUCKETS: usize = 1 << BITS;
    let digit = |k: u32, pass: u32| ((k >> (pass * BITS)) as usize) & (BUCKETS - 1);
    let mut count = vec![[0usize; BUCKETS]; 3];
    for &k in keys { count[0][digit(k, 0)] += 1; count[1][digit(k, 1)] += 1; count[2][digit(k, 2)] += 1; }
    let pack = |(i, &k): (usize, &u32)| (u64::from(k) << 32) | i as u64;
    let mut passes = (0..3).filter(|&pass| !count[pass as usize].contains(&keys.len()));
    let Some(first) = passes.next() else { return keys.iter().enumerate().map(pack).collect(); };
    let starts = |count: &[usize; BUCKETS]| { let mut next = *count; counts_to_starts(&mut next); next };
    let mut items = vec![0u64; keys.len()];
    let mut next = starts(&count[first as usize]);
    for item in keys.iter().enumerate() { let d = digit(*item.1, first); items[next[d]] = pack(item); next[d] += 1; }
    let mut other = Vec::new();
    for pass in passes {
        other.resize(items.len(), 0);
        let mut next = starts(&count[pass as usize]);
        for &v in &items { let d = digit((v >> 32) as u32, pass); other[next[d]] = v; next[d] += 1; }
        core::mem::swap(&mut items, &mut other);
    }
    items
}
#[inline(never)]
fn items8(keys: &[u32]) -> Vec<u64> {
    let digit = |k: u32, pass: u32| ((k >> (pass * 8)) & 255) as usize;
    let mut count = [[0u32; 256]; 4];
    for &k in keys { for p in 0..4 { count[p][digit(k, p as u32)] += 1; } }
    let n = keys.len() as u32;
    let pack = |(i, &k): (usize, &u32)| (u64::from(k) << 32) | i as u64;
    let mut passes = (0..4u32).filter(|&p| !count[p as usize].contains(&n));
    let Some(first) = passes.next() else { return keys.iter().enumerate().map(pack).collect(); };
    let starts = |c: &[u32; 256]| { let mut s = [0u32; 256]; let mut sum = 0; for (x, &c) in s.iter_mut().zip(c) { *x = sum; sum += c; } s };
    let mut items = vec![0u64; keys.len()];
    let mut next = starts(&count[first as usize]);
    for item in keys.iter().enumerate() { let d = digit(*item.1, first); items[next[d] as usize] = pack(item); next[d] += 1; }
    let mut other = vec![0u64; keys.len()];
    for pass in passes {
        let mut next = starts(&count[pass as usize]);
        for &v in &items { let d = digit((v >> 32) as u32, pass); other[next[d] as usize] = v; next[d] += 1; }
        core::mem::swap(&mut items, &mut other);
    }
    items
}

/// Two interleaved halves: each half its own counts and cursors (two independent chains).
#[inline(never)]
fn items_x2(keys: &[u32]) -> Vec<u64> {
    const BITS: u32 = 11; const BUCKETS: usize = 1 << BITS;
    let digit = |k: u32, pass: u32| ((k >> (pass * BITS)) as usize) & (BUCKETS - 1);
    let n = keys.len();
    let h = n / 2;
    let pack = |i: usize, k: u32| (u64::from(k) << 32) | i as u64;
    // Which passes: a digit constant over all keys is skipped (one OR/AND pass).
    let (or, and) = keys.iter().fold((0u32, !0u32), |(o, a), &k| (o | k, a & k));
    let varying = or ^ and;
    let passes: Vec<u32> = (0..3).filter(|&p| (varying >> (p * BITS)) & (BUCKETS as u32 - 1) != 0).collect();
    if passes.is_empty() { return keys.iter().enumerate().map(|(i, &k)| pack(i, k)).collect(); }
    let mut items: Vec<u64> = Vec::new();
    let mut other = vec![0u64; n];
    for (pi, &pass) in passes.iter().enumerate() {
        let key_at = |src: &[u64], keys: &[u32], i: usize| if pi == 0 { keys[i] } else { (src[i] >> 32) as u32 };
        let mut ca = vec![0u32; BUCKETS];
        let mut cb = vec![0u32; BUCKETS];
        for i in 0..h { ca[digit(key_at(&items, keys, i), pass)] += 1; cb[digit(key_at(&items, keys, h + i), pass)] += 1; }
        if n % 2 == 1 { cb[digit(key_at(&items, keys, n - 1), pass)] += 1; }
        let mut na = vec![0u32; BUCKETS];
        let mut nb = vec![0u32; BUCKETS];
        let mut sum = 0;
        for d in 0..BUCKETS { na[d] = sum; nb[d] = sum + ca[d]; sum += ca[d] + cb[d]; }
        for i in 0..h {
            let (ka, kb) = (key_at(&items, keys, i), key_at(&items, keys, h + i));
            let va = if pi == 0 { pack(i, ka) } else { items[i] };
            let vb = if pi == 0 { pack(h + i, kb) } else { items[h + i] };
            let (da, db) = (digit(ka, pass), digit(kb, pass));
            other[na[da] as usize] = va; na[da] += 1;
            other[nb[db] as usize] = vb; nb[db] += 1;
        }
        if n % 2 == 1 { let k = key_at(&items, keys, n - 1); let v = if pi == 0 { pack(n - 1, k) } else { items[n - 1] }; let d = digit(k, pass); other[nb[d] as usize] = v; }
        if pi == 0 { items = vec![0u64; n]; }
        core::mem::swap(&mut items, &mut other);
    }
    items
}
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a[1].parse().unwrap(); let rounds: usize = a[2].parse().unwrap();
    let mut s = 0x9E3779B97F4A7C15u64;
    let mut r = |m: u64| { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s % m) as f32 };
    let uniform = a.get(3).is_some();
    let sets: Vec<Vec<u32>> = (0..8).map(|_| (0..n).map(|_| if uniform { order_key(r(1 << 30) / 1e4 - 5e4) } else { order_key(r(4096) - 2048.0 - r(128)) }).collect()).collect();
    assert_eq!(crate_items(&sets[0]), items8(&sets[0]));
    for k in [0usize, 1, 2, 3, 17] { let v: Vec<u32> = sets[0][..k.min(n)].to_vec(); assert_eq!(crate_items(&v), items_x2(&v)); }
    assert_eq!(crate_items(&sets[0]), items_x2(&sets[0])); assert_eq!(crate_items(&sets[1][..n-1]), items_x2(&sets[1][..n-1]));
    let mut tc = Vec::new();
    let mut ta = Vec::new(); let mut tb = Vec::new();
    for k in 0..rounds {
        let keys = &sets[k % 8];
        let t = Instant::now(); std::hint::black_box(crate_items(keys)); ta.push(t.elapsed().as_secs_f64() * 1e6);
        let t = Instant::now(); std::hint::black_box(items8(keys)); tb.push(t.elapsed().as_secs_f64() * 1e6);
        let t = Instant::now(); std::hint::black_box(items_x2(keys)); tc.push(t.elapsed().as_secs_f64() * 1e6);
    }
    ta.sort_by(f64::total_cmp); tb.sort_by(f64::total_cmp); tc.sort_by(f64::total_cmp);
    println!("n {n}: crate 11-bit {:.1} us, 8-bit {:.1} us, 11-bit two chains {:.1} us (medians)", ta[rounds / 2], tb[rounds / 2], tc[rounds / 2]);
}
