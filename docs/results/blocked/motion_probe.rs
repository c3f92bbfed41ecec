use bvlanes::{Aabb, Aabbs, Blocked};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use std::time::Instant;

fn unit(r: &mut Xoshiro256PlusPlus) -> f32 { (r.next_u32() >> 8) as f32 / (1u32 << 24) as f32 }

fn time_queries(b: &Blocked<Aabbs>, qs: &[Aabb]) -> (f64, usize) {
    let mut best = f64::INFINITY; let mut tot = 0;
    for _ in 0..5 {
        let t = Instant::now();
        tot = qs.iter().map(|q| b.count_hits(q)).sum();
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    (best, tot)
}

fn measures(b: &Blocked<Aabbs>, q0: f64) -> [f64; 3] {
    let mut m = [0.0; 3];
    let mut i = 0;
    while let Some(bb) = b.bounds(0, i) {
        let s: [f64; 3] = std::array::from_fn(|a| (bb.max[a] - bb.min[a]) as f64);
        m[0] += s.iter().sum::<f64>();
        m[1] += (s[0] + q0) * (s[1] + q0) * (s[2] + q0);
        m[2] += s[0] * s[1] * s[2];
        i += 1;
    }
    m
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a.get(1).map_or(1_000_000, |s| s.parse().unwrap());
    let qh: f32 = a.get(2).map_or(5.0, |s| s.parse().unwrap());
    let mut r = Xoshiro256PlusPlus::seed_from_u64(1);
    let boxes: Vec<Aabb> = (0..n).map(|_| {
        let c: [f32; 3] = std::array::from_fn(|_| unit(&mut r) * 1000.0);
        let h: [f32; 3] = std::array::from_fn(|_| 0.5 + 2.0 * unit(&mut r));
        Aabb::new(std::array::from_fn(|i| c[i] - h[i]), std::array::from_fn(|i| c[i] + h[i]))
    }).collect();
    let mut boxes = boxes;
    if std::env::var("UPDATE").is_ok() {
        let mut b = Blocked::<Aabbs>::from_slice(&boxes).unwrap();
        let moved: Vec<Aabb> = boxes.iter().map(|m| { let s: [f32; 3] = std::array::from_fn(|_| (unit(&mut r) * 2.0 - 1.0) * 2.0); Aabb::new(std::array::from_fn(|k| m.min[k] + s[k]), std::array::from_fn(|k| m.max[k] + s[k])) }).collect();
        let flat = Aabbs::from_slice(&moved).unwrap();
        let time = |f: &mut dyn FnMut()| { let mut t = vec![]; for _ in 0..7 { let s = Instant::now(); f(); t.push(s.elapsed().as_secs_f64() * 1e3); } t.sort_by(f64::total_cmp); t[3] };
        for threads in [1usize, 0] {
            let mut b1 = Blocked::new_with_threads(&Aabbs::from_slice(&boxes).unwrap(), threads);
            let tu = time(&mut || b1.update(&flat).unwrap());
            let tr = time(&mut || b1.rebuild());
            let tf = time(&mut || b1.refit());
            let ts = time(&mut || for (i, m) in moved.iter().enumerate() { b.set(i, *m).unwrap(); });
            println!("threads {threads}: update {tu:.1} ms, refit {tf:.1} ms, rebuild {tr:.1} ms, set of every box {ts:.1} ms (medians of 7)");
        }
        return;
    }
    if let Ok(v) = std::env::var("TWO") {
        let off: f32 = v.parse().unwrap();
        let a: Vec<Aabb> = boxes.iter().step_by(2).copied().collect();
        let both: Vec<Aabb> = boxes.iter().enumerate().map(|(i, b)| if i % 2 == 1 { Aabb::new(b.min.map(|v| v + off), b.max.map(|v| v + off)) } else { *b }).collect();
        let qs: Vec<Aabb> = (0..1000).map(|_| { let c: [f32; 3] = std::array::from_fn(|_| unit(&mut r) * 1000.0); Aabb::new(c.map(|v| v - qh), c.map(|v| v + qh)) }).collect();
        let ba = Blocked::<Aabbs>::from_slice(&a).unwrap();
        let bb = Blocked::<Aabbs>::from_slice(&both).unwrap();
        let (fa, fb) = (Aabbs::from_slice(&a).unwrap(), Aabbs::from_slice(&both).unwrap());
        let mut tba = vec![]; let mut tbb = vec![];
        for _ in 0..5 {
            let t = Instant::now(); let _ = Blocked::new_with_threads(&fa, 1); tba.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now(); let _ = Blocked::new_with_threads(&fb, 1); tbb.push(t.elapsed().as_secs_f64() * 1e3);
        }
        tba.sort_by(f64::total_cmp); tbb.sort_by(f64::total_cmp);
        println!("build, one thread, medians of 5: one cluster (500,000) {:.1} ms, both (1,000,000) {:.1} ms", tba[2], tbb[2]);
        for _ in 0..3 {
            let (ta, ha) = time_queries(&ba, &qs);
            let (tb, hb) = time_queries(&bb, &qs);
            println!("two clusters {off} apart: cluster alone {ta:.3} ms ({ha}) both {tb:.3} ms ({hb}) ratio {:.2}", tb / ta);
        }
        return;
    }
    if let Ok(v) = std::env::var("OUTLIER") {
        let at: f32 = v.parse().unwrap();
        boxes[0] = Aabb::new([at; 3], [at + 1.0; 3]);
        let b = Blocked::<Aabbs>::from_slice(&boxes).unwrap();
        let qs: Vec<Aabb> = (0..1000).map(|_| { let c: [f32; 3] = std::array::from_fn(|_| unit(&mut r) * 1000.0); Aabb::new(c.map(|v| v - qh), c.map(|v| v + qh)) }).collect();
        let (t, h) = time_queries(&b, &qs);
        println!("outlier at {at}: count {t:.3} ms hits {h} outsized {}", b.outsized());
        return;
    }
    let qs: Vec<Aabb> = (0..1000).map(|_| {
        let c: [f32; 3] = std::array::from_fn(|_| unit(&mut r) * 1000.0);
        Aabb::new(c.map(|v| v - qh), c.map(|v| v + qh))
    }).collect();
    let base = Blocked::<Aabbs>::from_slice(&boxes).unwrap();
    let (t0, h0) = time_queries(&base, &qs);
    let q0 = { let m = measures(&base, 0.0); let nb = (n / 16) as f64; m[0] / nb / 3.0 };
    let m0 = measures(&base, q0);
    let rel = |b: &Blocked<Aabbs>| { let m = measures(b, q0); format!("lin {:.3} vol+q0 {:.3} vol {:.3}", m[0] / m0[0], m[1] / m0[1], m[2] / m0[2]) };
    println!("mean block side {q0:.2}");
    println!("n {n} query half extent {qh}: built: looseness 1.000 count {t0:.3} ms hits {h0}");
    for d in [0.5f32, 2.0, 8.0, 32.0] {
        let mut b = base.clone();
        let mut moved = boxes.clone();
        for (i, m) in moved.iter_mut().enumerate() {
            let s: [f32; 3] = std::array::from_fn(|_| (unit(&mut r) * 2.0 - 1.0) * d);
            *m = Aabb::new(std::array::from_fn(|k| m.min[k] + s[k]), std::array::from_fn(|k| m.max[k] + s[k]));
            let _ = i;
        }
        let t = Instant::now();
        for (i, m) in moved.iter().enumerate() { b.set(i, *m).unwrap(); }
        let t_set = t.elapsed().as_secs_f64() * 1e3;
        let (ts, hs) = time_queries(&b, &qs);
        let l_set = b.looseness();
        let r_set = rel(&b);
        let t = Instant::now(); b.refit(); let t_refit = t.elapsed().as_secs_f64() * 1e3;
        let (tr, _) = time_queries(&b, &qs);
        let l_refit = b.looseness();
        let r_refit = rel(&b);
        let t = Instant::now(); b.rebuild(); let t_rebuild = t.elapsed().as_secs_f64() * 1e3;
        let (tb, hb) = time_queries(&b, &qs);
        assert_eq!(hs, hb);
        println!("  set: {r_set} | refit: {r_refit}");
        println!("jitter +-{d:5}: after set (all, {t_set:.1} ms) looseness {l_set:.3} count {ts:.3} ms ({:.2}x) | refit ({t_refit:.1} ms) looseness {l_refit:.3} count {tr:.3} ms ({:.2}x) | rebuild ({t_rebuild:.1} ms) looseness {:.3} count {tb:.3} ms", ts / t0, tr / t0, b.looseness());
    }
}
