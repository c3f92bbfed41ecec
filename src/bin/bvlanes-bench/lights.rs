//! Light culling (issue 5): lights against the cells of a cluster grid. For now the uniform-grid
//! scene — a 32^3 grid of unit cells with 10,000 lights of radius 0.5-2 uniform in it — with the
//! brute force (every light against every cell with the batched SIMD sphere query) as the
//! baseline; the froxel scenes (Bevy's `many_lights`, an indoor scene) and the Bevy-style port
//! come with froxel grids.

use crate::Ctx;
use crate::data::{rng, uniform};
use crate::report::{Cell, Table, Target, sig3};
use crate::sampler::{Variant, find, measure, ratio};
use bvlanes::cull::{ClusterGrid, LightMasks};
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
    vec![t]
}
