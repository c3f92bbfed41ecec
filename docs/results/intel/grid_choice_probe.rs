// probe-grid SCENE N ROUNDS GRID...: complete_pairs_into on one thread (detected backend), the grids
// ("auto", "none", "AxB") interleaved every round; median ms per grid and the median of per-round
// ratios to the first grid. SCENE: terdiman, bsph (terdiman boxes' bounding spheres), tsph
// (terdiman-like spheres, radius = half the x extent), uniform, clustered.
use bvlanes::broadphase::{Partition, Sweep};
use bvlanes::{Aabb, Aabbs, Sphere, Spheres};
use std::time::Instant;
enum Set { B(Aabbs), S(Spheres) }
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let scene = a[1].as_str();
    let n: usize = a[2].parse().unwrap();
    let rounds: usize = a[3].parse().unwrap();
    let mut s = 0x9E3779B97F4A7C15u64;
    let mut r = |m: u64| { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s % m) as f32 };
    let mut u = |m: f32| { r(1 << 24) / (1u32 << 24) as f32 * m };
    let terd = |r: &mut dyn FnMut(u64) -> f32| -> Vec<Aabb> { (0..n).map(|_| { let c = [r(4096) - 2048.0, r(4096) - 2048.0, r(4096) - 2048.0]; let h = [r(128), r(128), r(128)]; Aabb::new([c[0]-h[0], c[1]-h[1], c[2]-h[2]], [c[0]+h[0], c[1]+h[1], c[2]+h[2]]) }).collect() };
    let set = match scene {
        "terdiman" => Set::B(Aabbs::from_slice(&terd(&mut r)).unwrap()),
        "bsph" => Set::S(Spheres::from_slice(&terd(&mut r).iter().map(Sphere::from_aabb).collect::<Vec<_>>()).unwrap()),
        "tsph" => Set::S(Spheres::from_slice(&terd(&mut r).iter().map(|b| Sphere::new([(b.min[0]+b.max[0])*0.5,(b.min[1]+b.max[1])*0.5,(b.min[2]+b.max[2])*0.5], (b.max[0]-b.min[0])*0.5)).collect::<Vec<_>>()).unwrap()),
        "uniform" => { let side = 400.0 * (n as f32 / 1e6).cbrt(); Set::B(Aabbs::from_slice(&(0..n).map(|_| { let c = [u(side), u(side), u(side)]; let h = [0.5 + u(2.0), 0.5 + u(2.0), 0.5 + u(2.0)]; Aabb::new([c[0]-h[0], c[1]-h[1], c[2]-h[2]], [c[0]+h[0], c[1]+h[1], c[2]+h[2]]) }).collect::<Vec<_>>()).unwrap()) }
        _ => { // clustered as in benches/common/box_scenes.rs
            let quota = n.div_ceil(4); let d = ((quota as f64 / 4.0).sqrt().ceil() as i32).max(1); let w = 4 * d;
            let mut list = Vec::new();
            'p: for plane in 0..4 { for i in 0..quota as i32 { if list.len() == n { break 'p; } let (x, v) = (i % w, i / w); let c = if plane < 3 { [x, plane * d / 3, v] } else { [x, v, d / 2] }; let m = c.map(|c| c as f32); list.push(Aabb::new(m, m.map(|c| c + 1.0))); } }
            Set::B(Aabbs::from_slice(&list).unwrap())
        }
    };
    let grids: Vec<(String, Sweep)> = a[4..].iter().map(|g| { let p = match g.as_str() { "auto" => Partition::Auto, "none" => Partition::None, s => { let v: Vec<u16> = s.split('x').map(|x| x.parse().unwrap()).collect(); Partition::Grid([v[0], v[1]]) } }; (g.clone(), Sweep::new().with_threads(1).with_partition(p)) }).collect();
    let reps = (200_000 / n).max(1);
    let mut t = vec![Vec::new(); grids.len()];
    let mut ratio = vec![Vec::new(); grids.len()];
    let mut out = Vec::new();
    let mut first_pairs = None;
    for _ in 0..rounds {
        let mut this = Vec::new();
        for (_, sw) in &grids {
            let s0 = Instant::now();
            for _ in 0..reps { match &set { Set::B(b) => sw.complete_pairs_into(b, &mut out), Set::S(b) => sw.complete_pairs_into(b, &mut out) } }
            this.push(s0.elapsed().as_secs_f64() * 1e3 / reps as f64);
            match &first_pairs { None => first_pairs = Some(out.clone()), Some(p) => assert!(p == &out) }
        }
        for k in 0..grids.len() { t[k].push(this[k]); ratio[k].push(this[k] / this[0]); }
    }
    let med = |v: &mut Vec<f64>| { v.sort_by(f64::total_cmp); v[v.len() / 2] };
    for (k, (g, sw)) in grids.iter().enumerate() {
        let cand = match &set { Set::B(b) => sw.candidate_tests(b), Set::S(b) => sw.candidate_tests(b) } as f64 / n as f64;
        println!("{scene} {n} {g:>6}: {:8.3} ms  x{:.3} of first  candidates/elem {cand:.1}", med(&mut t[k]), med(&mut ratio[k]));
    }
}
