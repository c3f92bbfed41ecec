// The in-process A/B probe of the bulk constructors (2026-11-27): two builds of bvlanes linked
// into one binary (`old` = c5b786f, its Cargo.toml version set to 0.1.1; `new` = the chunked
// constructors), 15 interleaved rounds, medians and medians of per-round ratios.
// Cargo.toml: old = { path = "/work/old", package = "bvlanes" }, new = { path = "/work/main", package = "bvlanes" }
// Run: cargo run --release -- 1000000 (and 100000, 10000)
use std::time::Instant;
fn main() {
    let n: usize = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(1_000_000);
    let rounds = 15;
    let mut s = 0x9E3779B97F4A7C15u64;
    let mut r = || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s >> 40) as f32 / (1u64 << 24) as f32 };
    let raw: Vec<([f32; 3], f32, f32)> = (0..n).map(|_| ([r()*1000.0, r()*1000.0, r()*1000.0], 0.5 + 2.0*r(), r())).collect();
    let ob: Vec<old::Aabb> = raw.iter().map(|(c, h, _)| old::Aabb::new(c.map(|v| v - h), c.map(|v| v + h))).collect();
    let nb: Vec<new::Aabb> = raw.iter().map(|(c, h, _)| new::Aabb::new(c.map(|v| v - h), c.map(|v| v + h))).collect();
    let os: Vec<old::Sphere> = raw.iter().map(|(c, h, _)| old::Sphere::new(*c, *h)).collect();
    let ns: Vec<new::Sphere> = raw.iter().map(|(c, h, _)| new::Sphere::new(*c, *h)).collect();
    let mut res: Vec<Vec<f64>> = vec![vec![]; 6];
    let mut ko = old::Aabbs::with_capacity(n);
    let mut kn = new::Aabbs::with_capacity(n);
    for _ in 0..rounds {
        let t = Instant::now(); let a = old::Aabbs::from_slice(&ob).unwrap(); res[0].push(t.elapsed().as_secs_f64()); drop(a);
        let t = Instant::now(); let a = new::Aabbs::from_slice(&nb).unwrap(); res[1].push(t.elapsed().as_secs_f64()); drop(a);
        let t = Instant::now(); let a = old::Spheres::from_slice(&os).unwrap(); res[2].push(t.elapsed().as_secs_f64()); drop(a);
        let t = Instant::now(); let a = new::Spheres::from_slice(&ns).unwrap(); res[3].push(t.elapsed().as_secs_f64()); drop(a);
        ko.clear(); let t = Instant::now(); ko.extend_from_slice(&ob).unwrap(); res[4].push(t.elapsed().as_secs_f64());
        kn.clear(); let t = Instant::now(); kn.extend_from_slice(&nb).unwrap(); res[5].push(t.elapsed().as_secs_f64());
    }
    let med = |v: &Vec<f64>| { let mut v = v.clone(); v.sort_by(f64::total_cmp); v[v.len()/2] * 1e3 };
    let ratio = |a: usize, b: usize| { let mut v: Vec<f64> = res[a].iter().zip(&res[b]).map(|(x, y)| x / y).collect(); v.sort_by(f64::total_cmp); v[v.len()/2] };
    println!("n {n}: Aabbs::from_slice old {:.2} new {:.2} ms (old/new {:.2}x); Spheres::from_slice old {:.2} new {:.2} ms ({:.2}x); Aabbs extend into reserved old {:.2} new {:.2} ms ({:.2}x)",
        med(&res[0]), med(&res[1]), ratio(0, 1), med(&res[2]), med(&res[3]), ratio(2, 3), med(&res[4]), med(&res[5]), ratio(4, 5));
}
