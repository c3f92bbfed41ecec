// The in-process A/B probe of SweepAndPrune::update (2026-11-28): two builds of bvlanes linked
// into one binary (`old` = the commit before the change, its Cargo.toml version set to 0.1.1;
// `new` = the change), the bench's frames (Terdiman's boxes, frame f moving boxes f, f + 100, ...
// by (1, -1, 0.5), 8 frames cycled: 1 % a frame, the step back to frame 0 8 %), one thread, the
// detected backend; each round runs the 8 updates of each build and a full re-sweep of each frame
// (new build), interleaved; the pairs of both builds asserted equal every frame. Medians of the
// per-update times and of per-round old/new ratios.
// Run: probe-sapab N ROUNDS
// Cargo.toml: old = { path = "/work/old", package = "bvlanes" }, new = { path = "/work/main", package = "bvlanes" }
use std::time::Instant;
fn med(v: &mut Vec<f64>) -> f64 { v.sort_by(|a, b| a.partial_cmp(b).unwrap()); v[v.len() / 2] }
macro_rules! frames {
    ($m:ident, $n:expr) => {{
        let mut s = 0x9E3779B97F4A7C15u64;
        let mut r = |m: u64| { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s % m) as f32 };
        let mut list: Vec<$m::Aabb> = (0..$n).map(|_| { let c = [r(4096) - 2048.0, r(4096) - 2048.0, r(4096) - 2048.0]; let h = [r(128), r(128), r(128)]; $m::Aabb::new([c[0]-h[0], c[1]-h[1], c[2]-h[2]], [c[0]+h[0], c[1]+h[1], c[2]+h[2]]) }).collect();
        let mut frames = Vec::new();
        for f in 0..8 {
            for i in (f..$n).step_by(100) { let d = [1.0, -1.0, 0.5]; let b = list[i]; list[i] = $m::Aabb::new([b.min[0]+d[0], b.min[1]+d[1], b.min[2]+d[2]], [b.max[0]+d[0], b.max[1]+d[1], b.max[2]+d[2]]); }
            frames.push($m::Aabbs::from_slice(&list).unwrap());
        }
        frames
    }};
}
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a.get(1).map_or(100_000, |s| s.parse().unwrap());
    let rounds: usize = a.get(2).map_or(7, |s| s.parse().unwrap());
    let (fo, fnew) = (frames!(old, n), frames!(new, n));
    let mut so = old::broadphase::SweepAndPrune::new(old::broadphase::Sweep::new().with_threads(1));
    let mut sn = new::broadphase::SweepAndPrune::new(new::broadphase::Sweep::new().with_threads(1));
    let full = new::broadphase::Sweep::new().with_threads(1);
    for f in 0..8 { assert_eq!(so.update(&fo[f]), sn.update(&fnew[f])); }
    let (mut to, mut tn, mut tf, mut ratio) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let (mut ro, mut rn) = (0.0, 0.0);
        for f in 0..8 {
            let t = Instant::now(); let po = so.update(&fo[f]).len(); let x = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now(); let pn = sn.update(&fnew[f]).len(); let y = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now(); let pf = std::hint::black_box(full.complete_pairs(&fnew[f])).len(); let z = t.elapsed().as_secs_f64() * 1e3;
            assert_eq!(po, pn); assert_eq!(pn, pf);
            assert!(so.pairs() == sn.pairs());
            to.push(x); tn.push(y); tf.push(z); ro += x; rn += y;
        }
        ratio.push(ro / rn);
    }
    let (x, y, z) = (med(&mut to), med(&mut tn), med(&mut tf));
    println!("n {n}: update old {x:.3} ms, new {y:.3} ms (old/new per round median {:.2}); full re-sweep {z:.3} ms: full/update old {:.2}x, new {:.2}x", med(&mut ratio), z / x, z / y);
}
