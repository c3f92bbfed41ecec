//! Criterion benchmarks of the broadphase (issue 6): every overlapping pair among Terdiman's
//! 10,000 and 100,000 boxes (`common::box_scenes::terdiman`: integer centres uniform in
//! `[-2048, 2047]^3`, integer half-extents 0..127 per axis).
//!
//! Ids read as `broadphase/terdiman_<n>/<row>`: `sort_and_sweep` is the plain scalar
//! sort-and-sweep of `common::sort_and_sweep` (the peer), `box_pruning_v17` the algorithm of
//! Terdiman's box pruning v17 written in Rust (`common::box_pruning`: issue 21's targets are
//! ratios to it); `bvlanes_1_thread` and
//! `bvlanes_all_threads` run `bvlanes::broadphase::Sweep::complete_pairs` on the detected
//! backend, on the calling thread and on every core of rayon's pool. Every iteration finds every
//! pair (into a fresh `Vec`); the throughput (`Throughput::Elements`) is boxes per second.
//!
//! ```text
//! cargo bench --bench broadphase
//! cargo bench --bench broadphase -- terdiman_10000 --quick
//! ```
//!
//! Rayon's global pool is built once at startup with worker `i` pinned to core `i`
//! (`common::pin`); if pinning is unavailable, rayon's default pool is used; stderr says which.
//!
//! For the interleaved side-by-side table with every backend, the other scenes and the pair
//! checks, run `cargo run --release -p bvlanes-bench -- --table broadphase`.

mod common;

use bvlanes::broadphase::Sweep;
use common::box_pruning::box_pruning;
use common::box_scenes::{TERDIMAN_SIZES, terdiman};
use common::pin::pin_global_pool;
use common::sort_and_sweep::sort_and_sweep;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;

/// One group per Terdiman size: the scalar sweep, box pruning v17's algorithm and bvlanes on 1
/// and all threads.
fn terdiman_scenes(c: &mut Criterion) {
    eprintln!(
        "broadphase bench: rayon workers {}",
        pin_global_pool().describe()
    );
    for n in TERDIMAN_SIZES {
        let scene = terdiman(n);
        let (list, boxes) = (&scene.list, &scene.boxes);
        let all = Sweep::new();
        let single = all.with_threads(1);
        assert_eq!(
            single.complete_pairs(boxes).len(),
            sort_and_sweep(list).len(),
            "bvlanes and the scalar sweep disagree on terdiman {n}"
        );
        assert_eq!(
            box_pruning(list).len(),
            sort_and_sweep(list).len(),
            "box pruning and the scalar sweep disagree on terdiman {n}"
        );
        let mut g = c.benchmark_group(format!("broadphase/terdiman_{n}"));
        // A pass of the scalar sweep takes ~2 s at 100,000: criterion's minimum of 10 samples.
        g.sample_size(if n > 10_000 { 10 } else { 20 })
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(if n > 10_000 { 10 } else { 2 }))
            .throughput(Throughput::Elements(n as u64));
        g.bench_function("sort_and_sweep", |b| {
            b.iter(|| sort_and_sweep(black_box(list)))
        });
        g.bench_function("box_pruning_v17", |b| {
            b.iter(|| box_pruning(black_box(list)))
        });
        g.bench_function("bvlanes_1_thread", |b| {
            b.iter(|| single.complete_pairs(black_box(boxes)))
        });
        g.bench_function("bvlanes_all_threads", |b| {
            b.iter(|| all.complete_pairs(black_box(boxes)))
        });
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().without_plots();
    targets = terdiman_scenes
}
criterion_main!(benches);
