//! Light culling (issue 5): lights against the cells of a cluster grid. For now the uniform-grid
//! scene — a 32^3 grid of unit cells with 10,000 lights of radius 0.5-2 uniform in it — with the
//! brute force (every light against every cell with the batched SIMD sphere query) as the
//! baseline; the froxel scenes (Bevy's `many_lights`, an indoor scene) and the Bevy-style port
//! come with froxel grids.

use crate::Ctx;
use crate::data::{rng, uniform};
use crate::report::{Cell, Table, Target, sig3};
use crate::sampler::{Variant, find, measure, ratio};
use bvlanes::cull::{ClusterGrid, LightLists, LightMasks};
use bvlanes::{Aabb, Sphere, Spheres};
use std::hint::black_box;

/// Lights in the uniform scene by default.
const DEFAULT_LIGHTS: usize = 10_000;

/// The lights table.
pub fn run(ctx: &Ctx<'_>, _targets: &mut Vec<Target>) -> Vec<Table> {
    let n = ctx.n.unwrap_or(DEFAULT_LIGHTS);
    ctx.progress
        .note(&format!("lights: uniform 32^3 grid, {n} lights"));
    let grid =
        ClusterGrid::uniform(Aabb::new([0.0; 3], [32.0; 3]), [32, 32, 32]).expect("a valid grid");
    let mut r = rng(0x11_6475, 0);
    let lights: Vec<Sphere> = (0..n)
        .map(|_| {
            let c = [0; 3].map(|_| uniform(&mut r, 0.0, 32.0));
            Sphere::new(c, uniform(&mut r, 0.5, 2.0))
        })
        .collect();
    let lights = Spheres::from_slice(&lights).expect("valid lights");
    let cells = grid.cells();

    // Every output must equal the brute force.
    let brute = |out: &mut Vec<u32>| {
        let mut pairs = 0u64;
        for light in lights.iter() {
            out.clear();
            cells.extend_hits(&light, out);
            pairs += out.len() as u64;
        }
        pairs
    };
    let lists = grid.assign(&lights);
    let mut masks = LightMasks::new();
    grid.assign_masks(&lights, &mut masks);
    let brute_pairs = brute(&mut Vec::new());
    let mask_pairs: u64 = masks
        .words()
        .iter()
        .map(|w| u64::from(w.count_ones()))
        .sum();
    let mut agree = lists.indices.len() as u64 == brute_pairs && mask_pairs == brute_pairs;
    for (l, light) in lights.iter().enumerate().step_by(97) {
        for c in cells.hits(&light) {
            agree &= lists.cell(c as usize).binary_search(&(l as u32)).is_ok();
        }
    }

    let all = grid.clone();
    let threads = all.threads();
    let grid = grid.with_threads(1);
    let (grid, all, lights) = (&grid, &all, &lights);
    let mut vs = Vec::new();
    {
        let mut out = Vec::with_capacity(grid.len());
        vs.push(Variant::new("brute force", 1, move |_| brute(&mut out)));
    }
    vs.push(Variant::new("assign", 1, move |_| {
        black_box(grid.assign(black_box(lights))).indices.len() as u64
    }));
    let mut m = LightMasks::new();
    vs.push(Variant::new("assign_masks", 1, move |_| {
        grid.assign_masks(black_box(lights), &mut m);
        m.words().len() as u64
    }));
    vs.push(Variant::new("assign all", 1, move |_| {
        black_box(all.assign(black_box(lights))).indices.len() as u64
    }));
    let mut m = LightMasks::new();
    vs.push(Variant::new("assign_masks all", 1, move |_| {
        all.assign_masks(black_box(lights), &mut m);
        m.words().len() as u64
    }));
    ctx.progress.note(&format!(
        "lights: timing {} variants x {} rounds",
        vs.len(),
        ctx.rounds
    ));
    measure(&mut vs, ctx.rounds, ctx.slice);

    let mut t = Table::new(
        "lights",
        "Light culling: uniform 32^3 grid of unit cells",
        &[
            "scene",
            "row",
            "ms per frame",
            "cell-light pairs",
            "vs brute force",
        ],
    );
    t.notes.push(format!(
        "{n} lights of radius 0.5-2 uniform in [0, 32]^3 (fixed seed); {} cells; detected backend; \
         {} rounds, interleaved, medians",
        grid.len(),
        ctx.rounds
    ));
    t.notes.push(
        "brute force = every light against every cell with the batched SIMD sphere query (`Aabbs::extend_hits`); \
         assign = CSR lists from each light's candidate cells; assign_masks = one bitset of lights per cell \
         (it writes 32,768 x ceil(n / 32) words: 41 MB at 10,000 lights)"
            .to_owned(),
    );
    if agree {
        t.notes.push(
            "checked: assign and assign_masks report exactly the brute force's pairs".to_owned(),
        );
    } else {
        eprintln!("MISMATCH in lights: assign differs from the brute force");
        t.notes
            .push("**MISMATCH**: assign or assign_masks differs from the brute force".to_owned());
    }
    let base = find(&vs, "brute force");
    let all_label = |what: &str| format!("bvlanes {what}, {threads} threads");
    for (row, label) in [
        ("brute force", "brute force (SIMD, every cell)".to_owned()),
        ("assign", "bvlanes assign (CSR lists), 1 thread".to_owned()),
        (
            "assign_masks",
            "bvlanes assign_masks (bitsets), 1 thread".to_owned(),
        ),
        ("assign all", all_label("assign")),
        ("assign_masks all", all_label("assign_masks")),
    ] {
        let v = find(&vs, row);
        t.push(vec![
            Cell::text(format!("uniform 32^3, {n} lights")),
            Cell::text(label),
            Cell::num(v.median() * 1e3, sig3(v.median() * 1e3)),
            Cell::count(brute_pairs),
            Cell::times(ratio(base, v)),
        ]);
    }
    many_lights(ctx, &mut t);
    froxel_scene(ctx, &mut t);
    vec![t]
}

/// Scene 1 of issue 5, Bevy's `many_lights`: 100,000 lights of range 0.3 on a radius-50 Fibonacci
/// sphere around the camera (1920 x 1080, 45-degree vertical field of view, near 0.1, far 51 —
/// just past the farthest light, as Bevy's default far-z mode), 17 x 9 x 24 froxels.
fn many_lights(ctx: &Ctx<'_>, t: &mut Table) {
    let n = ctx.n.unwrap_or(100_000);
    let grid = ClusterGrid::froxels(
        1920,
        1080,
        std::f32::consts::FRAC_PI_4,
        0.1,
        51.0,
        [17, 9, 24],
    )
    .expect("a valid camera");
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    let lights: Vec<Sphere> = (0..n)
        .map(|i| {
            let y = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
            let r = (1.0 - y * y).sqrt();
            let a = golden * i as f64;
            let p = [a.cos() * r, y, a.sin() * r].map(|v| (50.0 * v) as f32);
            Sphere::new(p, 0.3)
        })
        .collect();
    let lights = Spheres::from_slice(&lights).expect("valid lights");
    ctx.progress.note("lights: many_lights froxel scene");
    froxel_rows(ctx, t, &grid, &lights, |exact| {
        let mut seen = vec![false; n];
        for &l in &exact.indices {
            seen[l as usize] = true;
        }
        let lit = seen.iter().filter(|&&s| s).count();
        format!("many_lights, {n} lights ({lit} in view), 17x9x24 froxels")
    });
}

/// Scene 2 of issue 5: an indoor room, 4,096 lights of radius 1-5 m in a 50 x 20 x 50 m room in
/// front of the camera (1920 x 1080, 45-degree vertical field of view, near 0.1, far 60), a
/// 16 x 9 x 24 froxel grid. Rows: the exact froxel assignment on 1 and all threads, and the pair
/// count a test against the froxels' bounding boxes would give.
fn froxel_scene(ctx: &Ctx<'_>, t: &mut Table) {
    let n = ctx.n.map_or(4_096, |n| n.min(4_096));
    let grid = ClusterGrid::froxels(
        1920,
        1080,
        std::f32::consts::FRAC_PI_4,
        0.1,
        60.0,
        [16, 9, 24],
    )
    .expect("a valid camera");
    let mut r = rng(0x11_6476, 0);
    let lights: Vec<Sphere> = (0..n)
        .map(|_| {
            let c = [
                uniform(&mut r, -25.0, 25.0),
                uniform(&mut r, -10.0, 10.0),
                uniform(&mut r, -50.0, 0.0),
            ];
            Sphere::new(c, uniform(&mut r, 1.0, 5.0))
        })
        .collect();
    let lights = Spheres::from_slice(&lights).expect("valid lights");
    ctx.progress.note("lights: indoor froxel scene");
    froxel_rows(ctx, t, &grid, &lights, |_| {
        format!("indoor, {n} lights, 16x9x24 froxels")
    });
    t.notes.push(
        "indoor scene: lights uniform in a 50 x 20 x 50 m room in front of the camera (1920 x 1080, 45-degree fov, \
         near 0.1, far 60), radius 1-5 m; its \"vs\" column is relative to the 1-thread row"
            .to_owned(),
    );
}

/// Times the exact froxel assignment of `lights` on 1 and all threads, interleaved, and adds its
/// rows to `t`: both timings, and the pair count a test against the froxels' bounding boxes
/// would give. `scene` names the scene from the exact lists.
fn froxel_rows(
    ctx: &Ctx<'_>,
    t: &mut Table,
    grid: &ClusterGrid,
    lights: &Spheres,
    scene: impl FnOnce(&LightLists) -> String,
) {
    let boxes = grid.cells();
    let box_pairs: u64 = lights.iter().map(|l| boxes.count_hits(&l) as u64).sum();
    let exact = grid.assign(lights);
    let scene = scene(&exact);
    let single = grid.clone().with_threads(1);
    let single = &single;
    let mut vs = vec![
        Variant::new("1", 1, move |_| {
            black_box(single.assign(black_box(lights))).indices.len() as u64
        }),
        Variant::new("all", 1, move |_| {
            black_box(grid.assign(black_box(lights))).indices.len() as u64
        }),
    ];
    measure(&mut vs, ctx.rounds, ctx.slice);
    let one = find(&vs, "1");
    for (v, label) in [
        (one, "bvlanes assign (exact froxels), 1 thread".to_owned()),
        (
            find(&vs, "all"),
            format!("bvlanes assign (exact froxels), {} threads", grid.threads()),
        ),
    ] {
        t.push(vec![
            Cell::text(&scene),
            Cell::text(label),
            Cell::num(v.median() * 1e3, sig3(v.median() * 1e3)),
            Cell::count(exact.indices.len() as u64),
            Cell::times(ratio(one, v)),
        ]);
    }
    t.push(vec![
        Cell::text(&scene),
        Cell::text("(pairs if tested against the froxels' bounding boxes)"),
        Cell::Empty,
        Cell::count(box_pairs),
        Cell::Empty,
    ]);
}
