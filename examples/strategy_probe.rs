//! Measures the box-query strategies ([`BoxStrategy`]) of `Aabbs` against each other on every
//! available backend, to choose the default. Run with
//!
//! ```text
//! cargo run --release --example strategy_probe [-- OBJECTS ROUNDS BOXES SETS]
//! ```
//!
//! Two workloads:
//!
//! * (a) the AABO readme's recipe (seed 003): OBJECTS objects (default 1,000,000), each a cloud of
//!   50 points uniform in the unit ball placed uniformly in `[-50, 50]^3`, bounded by
//!   `Aabb::from_points`; the queries are the first 100 objects, every query against every
//!   object. Prints the stage-pass counts (the readme's "partial" columns) too.
//! * (b) BOXES boxes (default 4,096: L2-resident) scattered in `[-100, 100]^3`, SETS data sets
//!   (default 4: 448 KiB in all) visited in turn (so no branch pattern repeats back to back), one
//!   query per set sized by bisection for about 1 % or 50 % hits.
//!
//! Strategies and backends are interleaved within each round (the order rotates per round);
//! the figure printed is the median over ROUNDS rounds (default 7) of the time per box test, and
//! its ratio to `Direct` on the same backend. The machine may be shared: compare ratios.

use bvlanes::{Aabb, Aabbs, Backend, BoxStrategy, Staged};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use std::hint::black_box;
use std::time::Instant;

fn unit(rng: &mut Xoshiro256PlusPlus) -> f32 {
    (rng.next_u32() >> 8) as f32 * (1.0 / 16_777_216.0)
}

fn uniform(rng: &mut Xoshiro256PlusPlus, lo: f32, hi: f32) -> f32 {
    lo + (hi - lo) * unit(rng)
}

/// A point uniform in the unit ball (rejection sampling).
fn in_ball(rng: &mut Xoshiro256PlusPlus) -> [f32; 3] {
    loop {
        let p = [
            uniform(rng, -1.0, 1.0),
            uniform(rng, -1.0, 1.0),
            uniform(rng, -1.0, 1.0),
        ];
        if p[0] * p[0] + p[1] * p[1] + p[2] * p[2] <= 1.0 {
            return p;
        }
    }
}

/// The readme's objects: 50 points in the unit ball around a centre uniform in `[-50, 50]^3`.
fn readme_objects(n: usize) -> Vec<Aabb> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0xAAB0);
    (0..n)
        .map(|_| {
            let c = [
                uniform(&mut rng, -50.0, 50.0),
                uniform(&mut rng, -50.0, 50.0),
                uniform(&mut rng, -50.0, 50.0),
            ];
            let pts = (0..50).map(|_| {
                let p = in_ball(&mut rng);
                [c[0] + p[0], c[1] + p[1], c[2] + p[2]]
            });
            Aabb::from_points(pts).expect("50 finite points")
        })
        .collect()
}

/// Boxes scattered in `[-100, 100]^3` with half-extents in `[0.25, 2.5]` (the benches' recipe).
fn scattered_boxes(n: usize, seed: u64) -> Vec<Aabb> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let h = [0; 3].map(|_| uniform(&mut rng, 0.25, 2.5));
            let c = [0, 1, 2].map(|i| uniform(&mut rng, -100.0 + h[i], 100.0 - h[i]));
            Aabb::new(
                [0, 1, 2].map(|i| c[i] - h[i]),
                [0, 1, 2].map(|i| c[i] + h[i]),
            )
        })
        .collect()
}

/// A cube query around `c` with the smallest half-side (by bisection) hitting `target` of `boxes`.
fn calibrated_query(boxes: &Aabbs, c: [f32; 3], target: f64) -> Aabb {
    let cube = |h: f32| Aabb::new(c.map(|v| v - h), c.map(|v| v + h));
    let (mut lo, mut hi) = (0.0f32, 400.0f32);
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        if (boxes.count_hits(&cube(mid)) as f64) < target * boxes.len() as f64 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    cube(hi)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One workload: sets of (container, queries); `tests` = box tests per pass over all of them.
struct Workload {
    name: String,
    sets: Vec<(Aabbs, Vec<Aabb>)>,
}

impl Workload {
    fn tests(&self) -> f64 {
        self.sets
            .iter()
            .map(|(c, q)| (c.len() * q.len()) as f64)
            .sum()
    }

    /// One timed pass: every query of every set; `extend` collects indices instead of counting.
    fn pass(&self, b: Backend, s: BoxStrategy, extend: bool, out: &mut Vec<u32>) -> (f64, usize) {
        let t = Instant::now();
        let mut total = 0;
        for (c, queries) in &self.sets {
            let p = c.with_backend(b).expect("available");
            for q in queries {
                let q = Staged(*q, s);
                if extend {
                    out.clear();
                    p.extend_hits(black_box(&q), out);
                    total += out.len();
                } else {
                    total += p.count_hits(black_box(&q));
                }
            }
        }
        (t.elapsed().as_secs_f64(), black_box(total))
    }
}

fn measure(w: &Workload, rounds: usize, reps: usize, extend: bool) {
    let backends = Backend::available();
    let n_cfg = backends.len() * BoxStrategy::ALL.len();
    let mut times = vec![Vec::new(); n_cfg];
    let mut out = Vec::new();
    let mut hits = None;
    for round in 0..rounds {
        for k in 0..n_cfg {
            let k = (k + round * 5) % n_cfg; // rotate the order
            let (b, s) = (
                backends[k / BoxStrategy::ALL.len()],
                BoxStrategy::ALL[k % BoxStrategy::ALL.len()],
            );
            let mut t = 0.0;
            for _ in 0..reps {
                let (dt, h) = w.pass(b, s, extend, &mut out);
                assert_eq!(*hits.get_or_insert(h), h, "strategies disagree");
                t += dt;
            }
            times[k].push(t / reps as f64 / w.tests() * 1e9);
        }
    }
    let what = if extend { "extend_hits" } else { "count_hits" };
    let hits = hits.unwrap_or(0);
    println!(
        "\n{} [{what}] ({:.3} % hits, median of {rounds} rounds, ns per box test; ratio to direct)",
        w.name,
        100.0 * hits as f64 / w.tests()
    );
    print!("{:<8}", "backend");
    for s in BoxStrategy::ALL {
        print!("{:>20}", s.name());
    }
    println!();
    for (bi, b) in backends.iter().enumerate() {
        print!("{:<8}", b.name());
        let base = median(&mut times[bi * BoxStrategy::ALL.len()].clone());
        for si in 0..BoxStrategy::ALL.len() {
            let m = median(&mut times[bi * BoxStrategy::ALL.len() + si].clone());
            print!("{:>11.4} ({:>5.2}x)", m, m / base);
        }
        println!();
    }
}

/// The readme's "partial" columns: boxes passing each stage, summed over the queries.
fn stage_table(w: &Workload) {
    println!("\n{}: stage passes summed over the queries", w.name);
    for s in BoxStrategy::ALL {
        let mut counts = vec![0usize; s.stages()];
        for (c, queries) in &w.sets {
            for q in queries {
                for (stage, n) in counts.iter_mut().enumerate() {
                    *n += c.count_stage_passes(q, s, stage).expect("stage exists");
                }
            }
        }
        println!("  {:<8} {counts:?}", s.name());
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let objects: usize = args
        .next()
        .map_or(1_000_000, |a| a.parse().expect("OBJECTS"));
    let rounds: usize = args.next().map_or(7, |a| a.parse().expect("ROUNDS"));
    let boxes: usize = args.next().map_or(4096, |a| a.parse().expect("BOXES"));
    let n_sets: u64 = args.next().map_or(4, |a| a.parse().expect("SETS"));
    println!(
        "backends: {:?}; default strategy: {}",
        Backend::available(),
        BoxStrategy::default()
    );

    let t = Instant::now();
    let objs = readme_objects(objects);
    let queries = objs[..100.min(objs.len())].to_vec();
    let readme = Workload {
        name: format!(
            "(a) AABO readme recipe, {objects} objects x {} queries",
            queries.len()
        ),
        sets: vec![(Aabbs::from_slice(&objs).expect("valid"), queries)],
    };
    drop(objs);
    println!("built (a) in {:.1} s", t.elapsed().as_secs_f64());
    stage_table(&readme);
    let reps = (2e7 / readme.tests()).ceil() as usize;
    measure(&readme, rounds, reps, false);
    measure(&readme, rounds, reps, true);
    drop(readme);

    for (label, target) in [("1 %", 0.01), ("50 %", 0.5)] {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x4096);
        let sets = (0..n_sets)
            .map(|set| {
                let c = Aabbs::from_slice(&scattered_boxes(boxes, set)).expect("valid");
                let centre = [0; 3].map(|_| uniform(&mut rng, -20.0, 20.0));
                let q = calibrated_query(&c, centre, target);
                (c, vec![q])
            })
            .collect();
        let w = Workload {
            name: format!("(b) {boxes} boxes x {n_sets} sets, ~{label} hits"),
            sets,
        };
        stage_table(&w);
        let reps = (2e7 / w.tests()).ceil() as usize;
        measure(&w, rounds, reps, false);
        measure(&w, rounds, reps, true);
    }
}
