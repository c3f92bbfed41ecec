//! Criterion benchmarks of light assignment (issue 5), on the scenes of `common::light_scenes`:
//! Bevy's `many_lights` (100,000 lights, 17 x 9 x 24 froxels), an indoor room (4,096 lights,
//! 16 x 9 x 24 froxels) and a uniform 32^3 box grid (10,000 lights).
//!
//! Ids read as `lights/<scene>/<row>`. Froxel scenes: `bvlanes_1_thread` and
//! `bvlanes_all_threads` (every core of rayon's pool) run `ClusterGrid::assign_into`, the exact
//! froxel assignment into reused CSR lists; `bevy_port` is the Bevy-style port of
//! `common::bevy_clusters` (1 thread, CSR lists). `lights/box_cells`: the uniform scene's cells
//! as a `uniform` grid (`uniform_grid_1_thread`), as arbitrary boxes (`from_cells_1_thread`: the
//! binned search), and every light against every cell (`every_cell_1_thread`: the batched SIMD
//! query, as `from_cells` grids ran before). Every iteration assigns every light of the scene;
//! the throughput (`Throughput::Elements`) is lights per second. On the froxel scenes each
//! iteration takes the next of `FroxelScene::panned`'s light sets (the camera turning 0.75
//! degrees a frame), so that the branch predictor cannot learn one set's decisions.
//!
//! ```text
//! cargo bench --bench lights
//! cargo bench --bench lights -- many_lights --quick
//! ```
//!
//! Rayon's global pool is built once at startup with worker `i` pinned to core `i`
//! (`common::pin`): on the project's VM a woken worker otherwise starts on the busy CPU and
//! runs in parallel only milliseconds later, about the length of one assignment. If pinning is
//! unavailable, rayon's default pool is used; stderr says which.
//!
//! For the interleaved side-by-side table with pair counts and checks, run
//! `cargo run --release -p bvlanes-bench -- --table lights`.

mod common;

use bvlanes::cull::{ClusterGrid, LightLists};
use common::bevy_clusters::BevyClusters;
use common::light_scenes::{
    FroxelScene, INDOOR_LIGHTS, MANY_LIGHTS, PANNED_SETS, UNIFORM_LIGHTS, indoor, many_lights,
    uniform_grid, uniform_lights,
};
use common::pin::pin_global_pool;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Once;
use std::time::Duration;

/// Pins rayon's workers once, before any grid reads the pool's size.
fn pin_once() {
    static PIN: Once = Once::new();
    PIN.call_once(|| {
        eprintln!(
            "lights bench: rayon workers {}",
            pin_global_pool().describe()
        )
    });
}

/// One group per scene: bvlanes on 1 and all threads, and the Bevy-style port.
fn scene(c: &mut Criterion, scene: &FroxelScene) {
    let cam = scene.camera;
    let lights = &scene.lights;
    let all = cam.grid();
    let single = all.clone().with_threads(1);
    let mut bevy = BevyClusters::new(
        cam.width_px,
        cam.height_px,
        cam.fov_y,
        cam.near,
        cam.far,
        cam.dims,
    );
    // Each iteration takes the next of the panned light sets (the camera turning): on one fixed
    // set the branch predictor learns the per-light decisions within a few frames.
    let sets = scene.panned();
    let mut k = 0;
    let mut next = move || {
        k = (k + 1) % PANNED_SETS;
        k
    };
    let mut g = c.benchmark_group(format!("lights/{}", scene.name));
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Elements(lights.len() as u64));
    // Every function keeps its output across iterations, as a renderer does from frame to frame.
    let mut out = LightLists::new();
    g.bench_function("bvlanes_1_thread", |b| {
        b.iter(|| single.assign_into(black_box(&sets[next()]), &mut out))
    });
    g.bench_function("bvlanes_all_threads", |b| {
        b.iter(|| all.assign_into(black_box(&sets[next()]), &mut out))
    });
    g.bench_function("bevy_port", |b| {
        b.iter(|| bevy.assign_into(black_box(&sets[next()]), &mut out))
    });
    g.finish();
}

/// Bevy's `many_lights` scene.
fn many_lights_scene(c: &mut Criterion) {
    pin_once();
    scene(c, &many_lights(MANY_LIGHTS));
}

/// The indoor scene.
fn indoor_scene(c: &mut Criterion) {
    pin_once();
    scene(c, &indoor(INDOOR_LIGHTS));
}

/// The uniform scene's cells three ways, on one thread: the uniform grid's walk, the same cells
/// as arbitrary boxes, and every light against every cell.
fn box_cells(c: &mut Criterion) {
    pin_once();
    let lights = &uniform_lights(UNIFORM_LIGHTS);
    let grid = uniform_grid().with_threads(1);
    let cells = grid.cells();
    let boxes = ClusterGrid::from_cells(cells.clone()).with_threads(1);
    let mut g = c.benchmark_group("lights/box_cells");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Elements(lights.len() as u64));
    let mut out = LightLists::new();
    g.bench_function("uniform_grid_1_thread", |b| {
        b.iter(|| grid.assign_into(black_box(lights), &mut out))
    });
    g.bench_function("from_cells_1_thread", |b| {
        b.iter(|| boxes.assign_into(black_box(lights), &mut out))
    });
    let mut hits = Vec::new();
    g.bench_function("every_cell_1_thread", |b| {
        b.iter(|| {
            for light in black_box(lights).iter() {
                hits.clear();
                cells.extend_hits(&light, &mut hits);
            }
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().without_plots();
    targets = many_lights_scene, indoor_scene, box_cells
}
criterion_main!(benches);
