// The in-process A/B probe of the bipartite sweep (2026-11-29): two builds of bvlanes linked into
// one binary (`old` = the commit before, version set to 0.1.1; `new` = the change),
// `Sweep::bipartite_pairs(&small, &large)` on one thread: K boxes against N Terdiman boxes (the
// bench's distribution), interleaved rounds, medians, the median of per-round old/new ratios; the
// same pairs asserted. Run: probe-bip N K ROUNDS
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use std::time::Instant;
fn main() {
    let a: Vec<usize> = std::env::args().skip(1).map(|s| s.parse().unwrap()).collect();
    let (n, k, rounds) = (a[0], a[1], a[2]);
    let mut r = Xoshiro256PlusPlus::seed_from_u64(0x6276_6c61_6e65_732d);
    let mut boxes = |m: usize| -> Vec<([f32; 3], [f32; 3])> {
        (0..m).map(|_| {
            let c = [0; 3].map(|_| (r.next_u32() % 4096) as i32 - 2048);
            let h = [0; 3].map(|_| (r.next_u32() % 128) as i32);
            ([0, 1, 2].map(|j| (c[j] - h[j]) as f32), [0, 1, 2].map(|j| (c[j] + h[j]) as f32))
        }).collect()
    };
    let (large, small) = (boxes(n), boxes(k));
    let lo = old::Aabbs::from_slice(&large.iter().map(|b| old::Aabb::new(b.0, b.1)).collect::<Vec<_>>()).unwrap();
    let so = old::Aabbs::from_slice(&small.iter().map(|b| old::Aabb::new(b.0, b.1)).collect::<Vec<_>>()).unwrap();
    let ln = new::Aabbs::from_slice(&large.iter().map(|b| new::Aabb::new(b.0, b.1)).collect::<Vec<_>>()).unwrap();
    let sn = new::Aabbs::from_slice(&small.iter().map(|b| new::Aabb::new(b.0, b.1)).collect::<Vec<_>>()).unwrap();
    let (swo, swn) = (old::broadphase::Sweep::new().with_threads(1), new::broadphase::Sweep::new().with_threads(1));
    assert_eq!(swo.bipartite_pairs(&so, &lo), swn.bipartite_pairs(&sn, &ln));
    let (mut to, mut tn, mut rr) = (vec![], vec![], vec![]);
    let mut pairs = 0;
    for _ in 0..rounds {
        let t = Instant::now(); let p = swo.bipartite_pairs(&so, &lo); let x = t.elapsed().as_secs_f64() * 1e3; pairs = p.len();
        let t = Instant::now(); let _q = swn.bipartite_pairs(&sn, &ln); let y = t.elapsed().as_secs_f64() * 1e3;
        to.push(x); tn.push(y); rr.push(x / y);
    }
    let med = |v: &mut Vec<f64>| { v.sort_by(f64::total_cmp); v[v.len() / 2] };
    println!("{k} against {n}: old {:.3} ms, new {:.3} ms, old/new median {:.3}, pairs {pairs}", med(&mut to), med(&mut tn), med(&mut rr));
}
