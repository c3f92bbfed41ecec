//! A/B in one process: hits_many_into of 32 box queries of growing size over 262,144 boxes,
//! the grouped hit lists (gh) against the committed code (base), interleaved rounds, one thread.
use std::hint::black_box;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 { v.sort_by(|a, b| a.partial_cmp(b).unwrap()); v[v.len() / 2] }

macro_rules! data {
    ($k:ident, $n:expr, $grow:expr) => {{
        let mut s = 0x9E3779B97F4A7C15u64;
        let mut rnd = || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s >> 40) as f32 / (1u64 << 24) as f32 };
        let centres: Vec<[f32; 3]> = (0..$n).map(|_| [rnd() * 100.0, rnd() * 100.0, rnd() * 100.0]).collect();
        let boxes: Vec<$k::Aabb> = centres.iter().map(|&c| $k::Aabb::new(c.map(|x| x - 1.0), c.map(|x| x + 1.0))).collect();
        let qs: Vec<$k::Aabb> = boxes[..32].iter().map(|b| $k::Aabb::new(b.min.map(|x| x - 2.0 - $grow), b.max.map(|x| x + 2.0 + $grow))).collect();
        ($k::Aabbs::from_slice(&boxes).unwrap(), qs)
    }};
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map(|s| s.parse().unwrap()).unwrap_or(262_144);
    let rounds: usize = args.get(2).map(|s| s.parse().unwrap()).unwrap_or(15);
    println!("n = {n}, 32 box queries, one thread; ns per (query, primitive), medians of {rounds} interleaved rounds; ratio = grouped / base, median of per-round ratios");
    for (bg, bb) in [(gh::Backend::Avx512, base::Backend::Avx512), (gh::Backend::Avx2, base::Backend::Avx2), (gh::Backend::Sse, base::Backend::Sse)] {
        let mut line = format!("{bb:>7}:");
        for grow in [0.0f32, 2.0, 8.0, 20.0, 50.0] {
            let (ag, qg) = data!(gh, n, grow);
            let (ab, qb) = data!(base, n, grow);
            let pg = ag.with_backend(bg).unwrap().with_threads(1);
            let pb = ab.with_backend(bb).unwrap().with_threads(1);
            let (mut lg, mut lb) = (gh::HitLists::default(), base::HitLists::default());
            let (mut tg, mut tb, mut r) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..rounds {
                let s0 = Instant::now(); pg.hits_many_into(black_box(&qg), &mut lg); let a = s0.elapsed().as_secs_f64();
                let s0 = Instant::now(); pb.hits_many_into(black_box(&qb), &mut lb); let b = s0.elapsed().as_secs_f64();
                tg.push(a); tb.push(b); r.push(a / b);
            }
            assert_eq!(lg.indices, lb.indices);
            let per = (32 * n) as f64;
            line += &format!(" | {} hits/q: {:.3} vs {:.3} = {:.2}", lb.indices.len() / 32, median(tg) * 1e9 / per, median(tb) * 1e9 / per, median(r));
        }
        println!("{line}");
    }
}
