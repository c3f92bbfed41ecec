//! Clustered light culling on froxels (issue 5, scene 2: a dense indoor scene).
//!
//! 4,096 point lights of radius 1-5 m, uniform in a 50 x 20 x 50 m room in front of the camera
//! (view space: eye at the origin looking down -z), are assigned to the 16 x 9 x 24 froxels of a
//! 1920 x 1080 camera (45-degree vertical field of view, near 0.1, far 60). The example prints the
//! time per frame and the lights-per-cell statistics, and writes an SVG heat map of the lights per
//! cell of one depth slice.
//!
//! Usage: `cargo run --release --example light_culling -- [slice] [out.svg]`
//! (defaults: slice 21, 43-48 m deep, where the room's walls show; `target/light_culling_slice.svg`).

use bvlanes::cull::{ClusterGrid, LightLists};
use bvlanes::{Sphere, Spheres};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

const DIMS: [u32; 3] = [16, 9, 24];
const DEFAULT_SLICE: u32 = 21;
const DEFAULT_OUT: &str = "target/light_culling_slice.svg";
const FRAMES: usize = 20;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("light_culling: {e}");
            eprintln!("usage: cargo run --release --example light_culling -- [slice] [out.svg]");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let slice = match args.next() {
        None => DEFAULT_SLICE,
        Some(s) => match s.parse::<u32>() {
            Ok(k) if k < DIMS[2] => k,
            _ => return Err(format!("slice must be 0..{}, got {s:?}", DIMS[2] - 1)),
        },
    };
    let out = PathBuf::from(args.next().unwrap_or_else(|| DEFAULT_OUT.to_owned()));
    if let Some(extra) = args.next() {
        return Err(format!("unexpected argument {extra:?}"));
    }

    let grid = ClusterGrid::froxels(1920, 1080, std::f32::consts::FRAC_PI_4, 0.1, 60.0, DIMS)
        .map_err(|e| e.to_string())?;
    let lights = indoor_lights().map_err(|e| e.to_string())?;

    // Time `assign` on one thread and on every thread (the output is the same).
    let all = grid.clone();
    let one = grid.clone().with_threads(1);
    let ms_one = median_ms(|| one.assign(&lights));
    let ms_all = median_ms(|| all.assign(&lights));
    let lists = grid.assign(&lights);

    let counts: Vec<usize> = (0..grid.len()).map(|c| lists.cell(c).len()).collect();
    let (min, max) = (counts.iter().min(), counts.iter().max());
    let (min, max) = (*min.unwrap_or(&0), *max.unwrap_or(&0));
    let mean = lists.indices.len() as f64 / grid.len() as f64;
    let empty = counts.iter().filter(|&&n| n == 0).count();
    // What a test against the froxels' bounding boxes would list instead.
    let boxes = grid.cells();
    let box_pairs: usize = lights.iter().map(|l| boxes.count_hits(&l)).sum();

    println!(
        "{} lights, {}x{}x{} froxels ({} cells), 1920x1080, fov_y 45 deg, near 0.1, far 60",
        lights.len(),
        DIMS[0],
        DIMS[1],
        DIMS[2],
        grid.len()
    );
    println!(
        "assign, median of {FRAMES} frames: {ms_one:.2} ms on 1 thread, {ms_all:.2} ms on {} threads",
        all.threads()
    );
    println!("lights per cell: min {min}, mean {mean:.1}, max {max}; {empty} cells empty");
    println!(
        "light-cell pairs: {} (exact froxels), {box_pairs} if tested against the froxels' boxes ({:+.1}%)",
        lists.indices.len(),
        (box_pairs as f64 / lists.indices.len().max(1) as f64 - 1.0) * 100.0
    );

    let svg = heat_map(&grid, &lists, slice);
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    }
    std::fs::write(&out, svg).map_err(|e| format!("writing {}: {e}", out.display()))?;
    println!("heat map of slice {slice} written to {}", out.display());
    Ok(())
}

/// The scene's lights: the same numbers as `bvlanes-bench --table lights` (its `rng(0x11_6476, 0)`
/// and `uniform`, reproduced here).
fn indoor_lights() -> Result<Spheres, bvlanes::BvError> {
    const SEED: u64 = 0x6276_6c61_6e65_732d; // "bvlanes-"
    let (stream, set) = (0x11_6476u64, 0u64);
    let mix = stream.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ set.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(SEED ^ mix);
    // Uniform in [lo, hi) from 53 random bits, rounded to f32.
    let mut uniform = |lo: f64, hi: f64| {
        let unit = (rng.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0);
        (lo + (hi - lo) * unit) as f32
    };
    let lights: Vec<Sphere> = (0..4096)
        .map(|_| {
            let c = [
                uniform(-25.0, 25.0),
                uniform(-10.0, 10.0),
                uniform(-50.0, 0.0),
            ];
            Sphere::new(c, uniform(1.0, 5.0))
        })
        .collect();
    Spheres::from_slice(&lights)
}

/// The median wall time of `FRAMES` calls of `frame`, in milliseconds.
fn median_ms(mut frame: impl FnMut() -> LightLists) -> f64 {
    let mut ms: Vec<f64> = (0..FRAMES)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(frame());
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    ms[FRAMES / 2]
}

/// Viridis, sampled at five points and interpolated linearly.
const STOPS: [[u8; 3]; 5] = [
    [0x44, 0x01, 0x54],
    [0x3b, 0x52, 0x8b],
    [0x21, 0x91, 0x8c],
    [0x5e, 0xc9, 0x62],
    [0xfd, 0xe7, 0x25],
];

/// The colour of `t` in `[0, 1]`.
fn colour(t: f64) -> [u8; 3] {
    let x = t.clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    let i = (x as usize).min(STOPS.len() - 2);
    let f = x - i as f64;
    std::array::from_fn(|c| {
        let (a, b) = (f64::from(STOPS[i][c]), f64::from(STOPS[i + 1][c]));
        (a + (b - a) * f).round() as u8
    })
}

fn hex([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// An SVG heat map of the lights per cell of depth slice `slice`: one square per screen tile,
/// row 0 (the bottom of the screen) at the bottom, the count in each, and a colour scale.
fn heat_map(grid: &ClusterGrid, lists: &LightLists, slice: u32) -> String {
    let [nx, ny, _] = DIMS;
    let count = |x: u32, y: u32| {
        let c = grid.cell_index([x, y, slice]).expect("inside the grid");
        lists.cell(c).len()
    };
    let max = (0..nx)
        .flat_map(|x| (0..ny).map(move |y| (x, y)))
        .map(|(x, y)| count(x, y))
        .max()
        .unwrap_or(0)
        .max(1);
    // The slice's depths, from any of its cells' boxes (exact up to f32 rounding).
    let b = grid
        .cell(grid.cell_index([0, 0, slice]).expect("inside the grid"))
        .expect("a cell");
    let (d0, d1) = (-b.max[2], -b.min[2]);

    let (cell, left, top) = (56u32, 20u32, 50u32);
    let (map_w, map_h) = (nx * cell, ny * cell);
    let legend_x = left + map_w + 30;
    let (width, height) = (legend_x + 80, top + map_h + 40);
    let mut s = String::new();
    let mut w = |line: String| {
        s.push_str(&line);
        s.push('\n');
    };
    w(format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif">"#
    ));
    w(format!(
        r#"<rect width="{width}" height="{height}" fill="white"/>"#
    ));
    w(format!(
        r#"<text x="{left}" y="30" font-size="18">Lights per froxel, slice {slice} (depth {d0:.2} to {d1:.2} m), {nx} x {ny} tiles</text>"#
    ));
    for y in 0..ny {
        for x in 0..nx {
            let n = count(x, y);
            let t = n as f64 / max as f64;
            let (px, py) = (left + x * cell, top + (ny - 1 - y) * cell);
            let ink = if t > 0.6 { "black" } else { "white" };
            w(format!(
                r#"<rect x="{px}" y="{py}" width="{cell}" height="{cell}" fill="{}" stroke="white" stroke-width="1"><title>tile ({x}, {y}): {n} lights</title></rect>"#,
                hex(colour(t))
            ));
            w(format!(
                r#"<text x="{}" y="{}" font-size="15" fill="{ink}" text-anchor="middle" dominant-baseline="central">{n}</text>"#,
                px + cell / 2,
                py + cell / 2
            ));
        }
    }
    w(format!(
        r#"<text x="{left}" y="{}" font-size="13">column 0 at the left, row 0 (bottom of the screen) at the bottom</text>"#,
        top + map_h + 25
    ));
    // The colour scale: 0 at the bottom, the slice's maximum at the top.
    let mut stops = String::new();
    for i in 0..=10 {
        let t = f64::from(i) / 10.0;
        let _ = write!(
            stops,
            r#"<stop offset="{t}" stop-color="{}"/>"#,
            hex(colour(t))
        );
    }
    w(format!(
        r#"<defs><linearGradient id="scale" x1="0" y1="1" x2="0" y2="0">{stops}</linearGradient></defs>"#
    ));
    w(format!(
        r#"<rect x="{legend_x}" y="{top}" width="20" height="{map_h}" fill="url(#scale)" stroke="black" stroke-width="0.5"/>"#
    ));
    for i in 0..=4u32 {
        let value = max as f64 * f64::from(i) / 4.0;
        let py = f64::from(top + map_h) - f64::from(map_h) * f64::from(i) / 4.0;
        w(format!(
            r#"<text x="{}" y="{py}" font-size="12" dominant-baseline="central">{value:.0}</text>"#,
            legend_x + 26
        ));
    }
    w(format!(
        r#"<text x="{legend_x}" y="{}" font-size="12">lights</text>"#,
        top - 16
    ));
    w("</svg>".to_owned());
    s
}
