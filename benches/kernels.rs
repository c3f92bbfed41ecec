//! Criterion benchmarks of the query kernels: every pair, size, density, backend and output.
//!
//! Ids read as `<pair>/<primitives>/<density>/<tier>/<op>`, e.g.
//! `sphere_vs_aabbs/4096/1%/avx2/count`; the baselines are `<pair>/<n>/<density>/arvo/<op>`
//! (Arvo's branchy scalar loop, sphere vs boxes only) and `<pair>/<n>/plain_sum` (a SIMD sum
//! over the same bytes: the bandwidth limit). Every iteration is one pass over one data set, and
//! successive iterations cycle through the eight data sets (see `common`), so the throughput
//! (`Throughput::Elements(n)`) is primitives tested per second.
//!
//! ```text
//! cargo bench --bench kernels                      # everything (a few minutes)
//! cargo bench --bench kernels -- sphere_vs_aabbs/4096
//! ```
//!
//! For the side-by-side ratio tables, run `cargo run --release -p bvlanes-bench`.

mod common;

use bvlanes::Backend;
use common::{
    DENSITIES, OctahedronVsOctahedra, Pair, SETS, SIZES, SphereVsAabbs, Workload, pass_arvo_count,
    pass_arvo_extend, pass_count, pass_extend, pass_sum,
};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use std::time::Duration;

/// Short measurements: the matrix is ~110 benchmarks.
fn configure(g: &mut BenchmarkGroup<'_, WallTime>, n: usize) {
    if n >= 1 << 20 {
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_millis(1500));
    } else {
        g.sample_size(30)
            .warm_up_time(Duration::from_millis(200))
            .measurement_time(Duration::from_millis(700));
    }
}

fn group<P: Pair>(c: &mut Criterion) {
    let mut g = c.benchmark_group(P::NAME);
    for &n in &SIZES {
        let w = Workload::<P>::build(n);
        configure(&mut g, n);
        g.throughput(Throughput::Elements(n as u64));
        for (d, (dname, _)) in DENSITIES.iter().enumerate() {
            let qs = &w.queries[d];
            for &b in Backend::available() {
                let pins = w.pins(b);
                let mut k = 0;
                g.bench_function(format!("{n}/{dname}/{b}/count"), |bn| {
                    bn.iter(|| {
                        k = (k + 1) % SETS;
                        pass_count::<P>(&pins, qs, k)
                    })
                });
                let mut out = Vec::with_capacity(n + 64);
                g.bench_function(format!("{n}/{dname}/{b}/extend"), |bn| {
                    bn.iter(|| {
                        k = (k + 1) % SETS;
                        pass_extend::<P>(&pins, qs, k, &mut out)
                    })
                });
            }
            if let Some(arvo) = &P::ARVO {
                let mut k = 0;
                g.bench_function(format!("{n}/{dname}/arvo/count"), |bn| {
                    bn.iter(|| {
                        k = (k + 1) % SETS;
                        pass_arvo_count(&w, arvo, d, k)
                    })
                });
                let mut out = Vec::with_capacity(n);
                g.bench_function(format!("{n}/{dname}/arvo/extend"), |bn| {
                    bn.iter(|| {
                        k = (k + 1) % SETS;
                        pass_arvo_extend(&w, arvo, d, k, &mut out)
                    })
                });
            }
        }
        // The bandwidth limit: the same bytes, summed.
        let mut k = 0;
        g.bench_function(format!("{n}/plain_sum"), |bn| {
            bn.iter(|| {
                k = (k + 1) % SETS;
                pass_sum(&w, k)
            })
        });
    }
    g.finish();
}

fn sphere_vs_aabbs(c: &mut Criterion) {
    group::<SphereVsAabbs>(c);
}

fn box_vs_aabbs(c: &mut Criterion) {
    group::<common::BoxVsAabbs>(c);
}

fn downtet_vs_uptets(c: &mut Criterion) {
    group::<common::DownTetVsUpTets>(c);
}

fn octahedron_vs_octahedra(c: &mut Criterion) {
    group::<OctahedronVsOctahedra>(c);
}

fn obbs(c: &mut Criterion) {
    group::<common::SphereVsObbs>(c);
    group::<common::ObbVsObbs>(c);
    group::<common::ObbVsAabbs>(c);
}

fn frusta(c: &mut Criterion) {
    group::<common::FrustumVsSpheres>(c);
    group::<common::FrustumVsAabbs>(c);
}

criterion_group! {
    name = benches;
    config = Criterion::default().without_plots().nresamples(20_000);
    targets = sphere_vs_aabbs, box_vs_aabbs, downtet_vs_uptets, octahedron_vs_octahedra, obbs, frusta
}
criterion_main!(benches);
