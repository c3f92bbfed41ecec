//! A quick throughput comparison of the tiers for `Obb` queries against 4,096 `Obbs` and 4,096
//! `Aabbs` (and, for scale, a `Sphere` against the same `Obbs`): medians of interleaved runs, in
//! nanoseconds per primitive tested, with the ratio to the scalar tier. "sparse": queries of a few
//! units in a world of 80 (about 0.2 % hits: the early rejections decide most blocks); "dense":
//! queries as large as the world (most pairs overlap: every axis is evaluated).
//!
//! ```text
//! cargo run --release --example obb_throughput
//! ```

use bvlanes::{Aabb, Aabbs, Backend, Obb, Obbs, Sphere};
use std::hint::black_box;
use std::time::Instant;

const N: usize = 4096;
const QUERIES: usize = 64;
const ROUNDS: usize = 15;

/// A small deterministic generator (xorshift), so the example needs no dependency.
struct Gen(u64);

impl Gen {
    fn unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
    fn rotation(&mut self) -> [[f32; 3]; 3] {
        let q = loop {
            let v = [0; 4].map(|_| f64::from(self.range(-1.0, 1.0)));
            let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            if n > 0.1 {
                break v.map(|x| x / n);
            }
        };
        let [w, x, y, z] = q;
        [
            [
                1.0 - 2.0 * (y * y + z * z),
                2.0 * (x * y + w * z),
                2.0 * (x * z - w * y),
            ],
            [
                2.0 * (x * y - w * z),
                1.0 - 2.0 * (x * x + z * z),
                2.0 * (y * z + w * x),
            ],
            [
                2.0 * (x * z + w * y),
                2.0 * (y * z - w * x),
                1.0 - 2.0 * (x * x + y * y),
            ],
        ]
        .map(|row| row.map(|v| v as f32))
    }
    fn obb(&mut self, world: f32, size: f32) -> Obb {
        let c = [0; 3].map(|_| self.range(-world, world));
        let h = [0; 3].map(|_| self.range(0.2, 1.0) * size);
        Obb::new(c, h, self.rotation())
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut g = Gen(0x9E37_79B9_7F4A_7C15);
    let obb_items: Vec<Obb> = (0..N).map(|_| g.obb(40.0, 2.0)).collect();
    let aabb_items: Vec<Aabb> = (0..N)
        .map(|_| {
            let c = [0; 3].map(|_| g.range(-40.0, 40.0));
            let h = [0; 3].map(|_| g.range(0.2, 2.0));
            Aabb::new(
                [0, 1, 2].map(|i| c[i] - h[i]),
                [0, 1, 2].map(|i| c[i] + h[i]),
            )
        })
        .collect();
    let obbs = Obbs::from_slice(&obb_items).unwrap();
    let aabbs = Aabbs::from_slice(&aabb_items).unwrap();
    let queries: Vec<Obb> = (0..QUERIES).map(|_| g.obb(40.0, 6.0)).collect();
    let dense: Vec<Obb> = (0..QUERIES).map(|_| g.obb(10.0, 60.0)).collect();
    let spheres: Vec<Sphere> = queries
        .iter()
        .map(|q| Sphere::new(q.center, q.half_extents[0]))
        .collect();

    let tiers = Backend::available();
    let names = [
        "obb vs obbs, sparse",
        "obb vs aabbs, sparse",
        "sphere vs obbs, sparse",
        "obb vs obbs, dense",
        "obb vs aabbs, dense",
    ];
    // times[case][tier] = per-round ns per primitive.
    let mut times = vec![vec![Vec::new(); tiers.len()]; names.len()];
    let mut hits = vec![vec![0usize; tiers.len()]; names.len()];
    for _ in 0..ROUNDS {
        for (t, &b) in tiers.iter().enumerate() {
            let (po, pa) = (
                obbs.with_backend(b).unwrap(),
                aabbs.with_backend(b).unwrap(),
            );
            for case in 0..names.len() {
                let start = Instant::now();
                let mut total = 0;
                for _ in 0..4 {
                    for ((q, s), big) in queries.iter().zip(&spheres).zip(&dense) {
                        total += match case {
                            0 => po.count_hits(black_box(q)),
                            1 => pa.count_hits(black_box(q)),
                            2 => po.count_hits(black_box(s)),
                            3 => po.count_hits(black_box(big)),
                            _ => pa.count_hits(black_box(big)),
                        };
                    }
                }
                let ns = start.elapsed().as_nanos() as f64 / (4 * QUERIES * N) as f64;
                times[case][t].push(ns);
                hits[case][t] = total;
            }
        }
    }
    println!(
        "{N} primitives, {QUERIES} queries x 4 per round, medians of {ROUNDS} interleaved rounds"
    );
    for (case, name) in names.iter().enumerate() {
        let scalar = median(times[case][0].clone());
        for (t, b) in tiers.iter().enumerate() {
            let m = median(times[case][t].clone());
            println!(
                "{name:24} {b:7} {m:7.3} ns/primitive  x{:5.2} vs scalar  ({} hits / pass)",
                scalar / m,
                hits[case][t] / 4
            );
        }
    }
}
