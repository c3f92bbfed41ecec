//! Broadphase (issue 6): every overlapping pair among `n` boxes, on the box scenes of
//! `benches/common/box_scenes.rs` — Terdiman's distribution at 10,000 and 100,000 boxes,
//! 1,000,000 uniform boxes, and a clustered scene of touching unit boxes (100,000).
//!
//! Rows per scene: the brute force (every pair with the batched SIMD box query, only where `n`
//! allows), the plain scalar sort-and-sweep (`benches/common/sort_and_sweep.rs`, the peer),
//! `bvlanes::broadphase::Sweep` on every timed backend with 1 thread, and on all threads. Every
//! row's pairs are checked, as a sorted set, against the brute force's (or, where the brute
//! force is too slow, the scalar sweep's). The target (AVX2 1 thread >= 6x the scalar
//! sweep at 100,000 Terdiman boxes) goes to the targets table.

use crate::Ctx;
use crate::common::box_scenes::{
    BoxScene, CLUSTERED_BOXES, TERDIMAN_SIZES, UNIFORM_BOXES, clustered, terdiman, uniform,
};
use crate::common::sort_and_sweep::{BruteForce, sort_and_sweep};
use crate::report::{Cell, Table, Target, sig3};
use crate::sampler::{Variant, find, measure, ratio};
use bvlanes::Backend;
use std::hint::black_box;

/// Largest `n` with a timed brute-force row (it tests `n^2 / 2` pairs: ~20 ms at 10,000 with
/// AVX2 on the project's VM, ~2 s at 100,000).
const BRUTE_TIMED_MAX: usize = 10_000;

/// Largest `n` whose reference pairs come from the brute force (run once, untimed, on every
/// core); above it the scalar sweep's pairs are the reference.
const BRUTE_CHECK_MAX: usize = 100_000;

/// The label of the scalar sweep's row (the peer).
const SWEEP: &str = "plain scalar sort-and-sweep";

/// The table's columns.
const COLUMNS: [&str; 7] = [
    "scene",
    "N",
    "row",
    "ms",
    "pairs",
    "Melem/s",
    "vs scalar sort-and-sweep",
];

/// The broadphase table: one block of rows per scene; the target into `targets`.
pub fn run(ctx: &Ctx<'_>, targets: &mut Vec<Target>) -> Vec<Table> {
    let mut t = Table::new(
        "broadphase",
        "Broadphase: every overlapping pair among N boxes",
        &COLUMNS,
    );
    let sizes: Vec<(&str, usize)> = match ctx.n {
        Some(n) => vec![("terdiman", n), ("uniform", n), ("clustered", n)],
        None => vec![
            ("terdiman", TERDIMAN_SIZES[0]),
            ("terdiman", TERDIMAN_SIZES[1]),
            ("uniform", UNIFORM_BOXES),
            ("clustered", CLUSTERED_BOXES),
        ],
    };
    t.notes.push(format!(
        "scenes (`benches/common/box_scenes.rs`, fixed seeds): terdiman = Terdiman's distribution, integer centres uniform \
         in [-2048, 2047]^3, integer half-extents 0..127 per axis; uniform = float centres uniform in a cube of side \
         400 (N / 10^6)^(1/3), half-extents uniform in [0.5, 2.5] (about two pairs per box); clustered = unit boxes on an \
         integer lattice on three floors and a wall crossing them (every neighbour touches exactly, the crossings are \
         exact duplicates); closed boxes: touching pairs count. {} rounds, interleaved, medians; Melem/s = boxes per \
         second; \"vs\" = the scalar sweep's median time over this row's (median of per-round ratios)",
        ctx.rounds
    ));
    t.notes.push(format!(
        "rows: brute force = every box against the later boxes with the batched SIMD box query (`Aabbs::extend_hits`, \
         blocks of 1,024 boxes), timed only for N <= {BRUTE_TIMED_MAX} (it tests N^2 / 2 pairs); {SWEEP} = \
         `benches/common/sort_and_sweep.rs`, a Vec of (min x, index) sorted with `sort_unstable_by(total_cmp)`, a \
         forward scan while min x_j <= max x_i, y and z tested with plain comparisons (the peer); every pass of every \
         row returns a fresh Vec of pairs"
    ));
    for (name, n) in sizes {
        ctx.progress
            .note(&format!("broadphase: {name}, {n} boxes (generating)"));
        let scene = match name {
            "terdiman" => terdiman(n),
            "uniform" => uniform(n),
            _ => clustered(n),
        };
        scene_rows(ctx, &mut t, targets, &scene);
    }
    t.notes.push(
        "not yet measured: the issue's `SweepAndPrune` update row (1 % of the boxes moving a little); \
         `SweepAndPrune` lands after `Sweep`"
            .to_owned(),
    );
    vec![t]
}

/// Times one scene's rows, checks their pairs, adds rows and notes to `t`.
fn scene_rows(ctx: &Ctx<'_>, t: &mut Table, targets: &mut Vec<Target>, scene: &BoxScene) {
    let n = scene.len();
    let list = &scene.list;
    // The SIMD brute force runs on the widest timed backend (the detected one if none is).
    let simd = ctx
        .backends
        .iter()
        .copied()
        .max_by_key(|b| b.lanes())
        .unwrap_or_else(Backend::detect);
    let brute = BruteForce::new(list);
    let brute = &brute;

    // The reference pairs, sorted.
    ctx.progress.note(&format!(
        "broadphase: {}, {n} boxes: reference pairs",
        scene.name
    ));
    let (reference, reference_name) = if n <= BRUTE_CHECK_MAX {
        (brute_all_cores(brute, simd), "the brute force")
    } else {
        (sorted(sort_and_sweep(list)), "the scalar sort-and-sweep")
    };

    // (variant label, row label) in row order.
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut vs: Vec<Variant<'_>> = Vec::new();
    let mut checks: Vec<(String, Vec<(u32, u32)>)> = Vec::new();
    if n <= BRUTE_TIMED_MAX {
        let label = format!("brute force all pairs (SIMD {simd})");
        checks.push((label.clone(), brute.pairs(simd)));
        vs.push(Variant::new(label.clone(), 1, move |_| {
            black_box(brute.pairs(simd)).len() as u64
        }));
        rows.push((label.clone(), label));
    }
    checks.push((SWEEP.to_owned(), sorted(sort_and_sweep(list))));
    vs.push(Variant::new(SWEEP, 1, move |_| {
        black_box(sort_and_sweep(black_box(list))).len() as u64
    }));
    rows.push((SWEEP.to_owned(), SWEEP.to_owned()));

    ctx.progress.note(&format!(
        "broadphase: {}, {n} boxes: timing {} variants x {} rounds",
        scene.name,
        vs.len(),
        ctx.rounds
    ));
    measure(&mut vs, ctx.rounds, ctx.slice);

    // Checks: every row's sorted pairs equal the reference.
    let mut bad = Vec::new();
    for (label, pairs) in &checks {
        if *pairs != reference {
            eprintln!(
                "MISMATCH in broadphase ({}, N = {n}): {label} reports {} pairs, {reference_name} {}",
                scene.name,
                pairs.len(),
                reference.len()
            );
            bad.push(format!("{label} ({} pairs)", pairs.len()));
        }
    }
    if bad.is_empty() {
        t.notes.push(format!(
            "checked ({}, N = {n}): every row's pairs, as a sorted set, equal {reference_name}'s ({} pairs)",
            scene.name,
            reference.len()
        ));
    } else {
        t.notes.push(format!(
            "**MISMATCH** ({}, N = {n}): {} differ from {reference_name}'s {} pairs",
            scene.name,
            bad.join(", "),
            reference.len()
        ));
    }

    let base = find(&vs, SWEEP);
    for (variant, row) in &rows {
        let v = find(&vs, variant);
        let pairs = checks
            .iter()
            .find(|(l, _)| l == variant)
            .map_or(0, |(_, p)| p.len() as u64);
        let ms = v.median() * 1e3;
        t.push(vec![
            Cell::text(scene.name),
            Cell::count(n as u64),
            Cell::text(row),
            Cell::num(ms, sig3(ms)),
            Cell::count(pairs),
            Cell::num(
                n as f64 / v.median() / 1e6,
                sig3(n as f64 / v.median() / 1e6),
            ),
            Cell::times(ratio(base, v)),
        ]);
    }
    let _ = targets;
}

/// The brute force's pairs on every core (each thread takes every `threads`-th chunk of query
/// boxes: the later boxes have fewer partners), sorted.
fn brute_all_cores(brute: &BruteForce, backend: Backend) -> Vec<(u32, u32)> {
    const CHUNK: usize = 512;
    let n = brute.len();
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let parts: Vec<Vec<(u32, u32)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    let (mut hits, mut pairs) = (Vec::new(), Vec::new());
                    let mut start = t * CHUNK;
                    while start < n {
                        brute.extend_pairs(
                            backend,
                            start..(start + CHUNK).min(n),
                            &mut hits,
                            &mut pairs,
                        );
                        start += threads * CHUNK;
                    }
                    pairs
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a brute-force thread"))
            .collect()
    });
    sorted(parts.concat())
}

/// `pairs`, sorted.
fn sorted(mut pairs: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    pairs.sort_unstable();
    pairs
}
