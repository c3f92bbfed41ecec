// probe-sapfull N ROUNDS: SweepAndPrune full updates (the count changes every frame: n, n - 1, n, ...),
// old and new crate in one process, one thread, rounds interleaved; medians and the median old/new ratio.
use std::time::Instant;
macro_rules! frames {
    ($m:ident, $n:expr) => {{
        let mut s = 0x9E3779B97F4A7C15u64;
        let mut r = |m: u64| { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s % m) as f32 };
        let boxes: Vec<$m::Aabb> = (0..$n).map(|_| { let c = [r(4096) - 2048.0, r(4096) - 2048.0, r(4096) - 2048.0]; let h = [r(128), r(128), r(128)]; $m::Aabb::new([c[0]-h[0], c[1]-h[1], c[2]-h[2]], [c[0]+h[0], c[1]+h[1], c[2]+h[2]]) }).collect();
        ($m::Aabbs::from_slice(&boxes).unwrap(), $m::Aabbs::from_slice(&boxes[1..]).unwrap())
    }};
}
fn med(v: &mut Vec<f64>) -> f64 { v.sort_by(|a, b| a.partial_cmp(b).unwrap()); v[v.len() / 2] }
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a[1].parse().unwrap();
    let rounds: usize = a[2].parse().unwrap();
    let (oa, ob) = frames!(old, n);
    let (na, nb) = frames!(new, n);
    let mut so: old::broadphase::SweepAndPrune = old::broadphase::SweepAndPrune::new(old::broadphase::Sweep::new().with_threads(1));
    let mut sn: new::broadphase::SweepAndPrune = new::broadphase::SweepAndPrune::new(new::broadphase::Sweep::new().with_threads(1));
    let (mut to, mut tn, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..rounds {
        let (fo, fnw) = if k % 2 == 0 { (&oa, &na) } else { (&ob, &nb) };
        let t = std::time::Instant::now(); let po = so.update(fo).len(); let x = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now(); let pn = sn.update(fnw).len(); let y = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!(po, pn);
        assert_eq!(so.pairs(), sn.pairs());
        to.push(x); tn.push(y); ratio.push(x / y);
    }
    println!("n {n}: full update old {:.2} ms, new {:.2} ms, old/new median {:.3}", med(&mut to), med(&mut tn), med(&mut ratio));
}
