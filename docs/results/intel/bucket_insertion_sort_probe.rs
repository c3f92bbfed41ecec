// probe-sort LEN LISTS ROUNDS [clustered]: LSD (the crate's) vs one bucket pass + insertion sort.
use std::time::Instant;

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

/// One pass into buckets over [min, max] (about one value a bucket), then insertion sort.
/// Returns false (v untouched) if a bucket holds more than LIMIT values.
fn bucket_insert(v: &mut [u32], scratch: &mut Vec<u32>) -> bool {
    const LOG: u32 = 11;
    const B: usize = 1 << LOG;
    const LIMIT: u32 = 12;
    let (lo, hi) = v.iter().fold((u32::MAX, 0), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    let span = hi - lo;
    let bits = 32 - span.leading_zeros();
    let want = (usize::BITS - (v.len() - 1).leading_zeros()).min(LOG); // buckets ~ len
    let shift = bits.saturating_sub(want);
    let mut count = [0u32; B];
    for &x in v.iter() {
        count[((x - lo) >> shift) as usize] += 1;
    }
    let nb = ((span >> shift) as usize) + 1;
    let mut sum = 0;
    let mut worst = 0;
    for c in &mut count[..nb] {
        let n = *c;
        worst = worst.max(n);
        *c = sum;
        sum += n;
    }
    if worst > LIMIT {
        return false;
    }
    scratch.clear();
    scratch.resize(v.len(), 0);
    for &x in v.iter() {
        let d = ((x - lo) >> shift) as usize;
        scratch[count[d] as usize] = x;
        count[d] += 1;
    }
    // Insertion sort (each value moves only within its bucket).
    v[0] = scratch[0];
    for i in 1..v.len() {
        let x = scratch[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
    true
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let len: usize = a[1].parse().unwrap();
    let lists: usize = a[2].parse().unwrap();
    let rounds: usize = a[3].parse().unwrap();
    let clustered = a.get(4).is_some();
    let mut x = 0x9e37_79b9u32;
    let mut next = || { x ^= x << 13; x ^= x >> 17; x ^= x << 5; x };
    let data: Vec<Vec<u32>> = (0..lists).map(|_| {
        let base = next() % 900_000;
        (0..len).map(|_| if clustered { base + next() % 20_000 } else { next() % 1_000_000 }).collect()
    }).collect();
    let mut want = data.clone();
    for w in &mut want { w.sort_unstable(); }
    let (mut tl, mut tb) = (Vec::new(), Vec::new());
    let mut scratch = Vec::new();
    let mut fell = 0;
    for _ in 0..rounds {
        let mut d = data.clone();
        let s = Instant::now();
        for v in &mut d { lsd::<10, 1024, 2>(v); }
        tl.push(s.elapsed().as_secs_f64() * 1e3);
        assert!(d == want);
        let mut d = data.clone();
        let s = Instant::now();
        for v in &mut d { if !bucket_insert(v, &mut scratch) { fell += 1; lsd::<10, 1024, 2>(v); } }
        tb.push(s.elapsed().as_secs_f64() * 1e3);
        assert!(d == want);
    }
    tl.sort_by(|a, b| a.partial_cmp(b).unwrap());
    tb.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!("lsd {:.3} ms, bucket+insertion {:.3} ms (ratio {:.2}), fallbacks {}", tl[rounds/2], tb[rounds/2], tl[rounds/2]/tb[rounds/2], fell);
}
