//! Fuzz target `lights`: light assignment (`bvlanes::cull::ClusterGrid`) against brute force.
//!
//! Arbitrary grids and lights (values from arbitrary bytes: NaN, infinities, subnormals, huge and
//! tiny magnitudes; invalid lights are skipped):
//! * `ClusterGrid::uniform` and `ClusterGrid::froxels` with arbitrary parameters either build or
//!   return one of the documented errors for what is wrong with them (never panic);
//!   `ClusterGrid::from_cells` takes arbitrary valid boxes;
//! * on every backend of `Backend::available()`, with 1 and 2 threads and both `CellOrder`s,
//!   `assign` gives well-formed CSR lists (offsets from 0, light indices ascending in each cell)
//!   equal to the first configuration's (cells matched by their `(x, y, z)`), and `assign_masks`
//!   the same sets as bitmasks;
//! * uniform and `from_cells` grids: the lists equal the documented brute force,
//!   `cells().hits(&light)` for every light (the crate's exact sphere-box test); a uniform grid's
//!   cell boundaries are the documented `min + (max - min) * i / dims` (f64, rounded to nearest);
//! * froxel grids: the documented guarantee against an independent f64 brute force (the froxel
//!   rebuilt from its documented formulas as eight corners, the distance from the light's centre
//!   to it; the approach of `tests/suite/cull_froxel.rs`): a light is listed in every froxel it
//!   clearly meets, and in none clearly farther than `r + 2 tau` (`tau = 2^-40 (|c|_1 + r)
//!   (1 + tan_x + tan_y)`); "clearly" leaves out a band for the reference's own f64 rounding.
//!
//! Some inputs repeat their lights past 512 so that two threads really split the lights into
//! several tasks; every copy must then land in exactly the cells of its original.
#![no_main]

mod input;

use bvlanes::cull::{CellOrder, ClusterGrid, LightLists, LightMasks};
use bvlanes::{Aabb, Aabbs, Backend, BvError, Sphere, Spheres};
use input::Input;
use libfuzzer_sys::fuzz_target;

/// Lights read from the input at most.
const MAX_LIGHTS: usize = 12;
/// Repeated light sets have this many lights (two tasks need 512).
const REPEATED: usize = 520;
/// Grids with more cells are only built, not assigned to.
const MAX_CELLS: u128 = 4096;

fn read_dims(inp: &mut Input, small: u8) -> [u32; 3] {
    if inp.u8() == 255 {
        [inp.u32(), inp.u32(), inp.u32()]
    } else {
        [0; 3].map(|_| u32::from(inp.u8() % (small + 1)))
    }
}

fn dims_ok(dims: [u32; 3]) -> bool {
    let axis_ok = dims
        .iter()
        .all(|&d| (1..=ClusterGrid::MAX_AXIS_CELLS).contains(&d));
    axis_ok && cells_of(dims) <= u128::from(u32::MAX)
}

/// The exact number of cells (no overflow: three u32 fit in u128).
fn cells_of(dims: [u32; 3]) -> u128 {
    dims.iter().map(|&d| u128::from(d)).product()
}

fn read_lights(inp: &mut Input) -> Vec<Sphere> {
    let mut out = Vec::new();
    while !inp.is_empty() && out.len() < MAX_LIGHTS {
        let c: [f32; 3] = inp.values();
        let r = inp.value();
        let s = Sphere::new(c, if inp.u8() & 1 == 0 { r.abs() } else { r });
        if s.is_valid() {
            out.push(s);
        }
    }
    out
}

/// For every light, the cells listing it, ascending.
fn cells_per_light(lists: &LightLists, lights: usize) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new(); lights];
    for c in 0..lists.cells() {
        for &l in lists.cell(c) {
            out[l as usize].push(c as u32);
        }
    }
    out
}

/// The CSR lists of `per_light` (cells of each light) over `cells` cells.
fn lists_from(per_light: &[Vec<u32>], cells: usize) -> LightLists {
    let mut per_cell = vec![Vec::new(); cells];
    for (l, cs) in per_light.iter().enumerate() {
        for &c in cs {
            per_cell[c as usize].push(l as u32);
        }
    }
    let mut offsets = vec![0u32];
    let mut indices = Vec::new();
    for cell in per_cell {
        indices.extend(cell);
        offsets.push(indices.len() as u32);
    }
    let mut lists = LightLists::new();
    (lists.offsets, lists.indices) = (offsets, indices);
    lists
}

/// The lists are well formed for `cells` cells and `lights` lights.
fn check_form(lists: &LightLists, cells: usize, lights: usize, what: &str) {
    assert_eq!(lists.offsets.len(), cells + 1, "{what}: offsets");
    assert_eq!(lists.offsets[0], 0, "{what}: first offset");
    assert!(
        lists.offsets.windows(2).all(|w| w[0] <= w[1]),
        "{what}: offsets ascend"
    );
    assert_eq!(
        *lists.offsets.last().expect("cells + 1") as usize,
        lists.indices.len(),
        "{what}"
    );
    for c in 0..cells {
        let cell = lists.cell(c);
        assert!(
            cell.windows(2).all(|w| w[0] < w[1]),
            "{what}: cell {c} not ascending"
        );
        assert!(
            cell.iter().all(|&l| (l as usize) < lights),
            "{what}: cell {c}: light index"
        );
    }
}

/// The masks hold the same sets as the lists.
fn check_masks(masks: &LightMasks, lists: &LightLists, lights: usize, what: &str) {
    let w = lights.div_ceil(32);
    assert_eq!(masks.words_per_cell(), w, "{what}: words per cell");
    let mut want = vec![0u32; lists.cells() * w];
    for c in 0..lists.cells() {
        for &l in lists.cell(c) {
            want[c * w + l as usize / 32] |= 1 << (l % 32);
        }
    }
    assert_eq!(
        masks.words(),
        &want[..],
        "{what}: assign_masks differs from assign"
    );
}

/// Runs `grid` on every backend, thread count and cell order, checks that all agree, and
/// returns the lists in `CellOrder::ZFastest`.
fn assign_everywhere(grid: &ClusterGrid, lights: &Spheres) -> LightLists {
    let n = lights.len();
    let cells = grid.len();
    let mut masks = LightMasks::new();
    let mut first: Option<LightLists> = None;
    let orders: &[CellOrder] = if grid.dims().is_some() {
        &[CellOrder::ZFastest, CellOrder::XFastest]
    } else {
        &[CellOrder::ZFastest]
    };
    for &order in orders {
        for &b in Backend::available() {
            for t in [1, 2] {
                let what = format!("{order:?}, {b}, {t} threads");
                let g = grid
                    .clone()
                    .with_order(order)
                    .with_backend(b)
                    .expect("available")
                    .with_threads(t);
                let lists = g.assign(lights);
                check_form(&lists, cells, n, &what);
                g.assign_masks(lights, &mut masks);
                check_masks(&masks, &lists, n, &what);
                // Compare in ZFastest numbering.
                let lists = match (order, g.dims()) {
                    (CellOrder::XFastest, Some(d)) => {
                        let z = grid.clone().with_order(CellOrder::ZFastest);
                        let mut per_light = cells_per_light(&lists, n);
                        let to_z = |c: u32| {
                            let c = c as usize;
                            let (x, y, k) = (
                                c % d[0] as usize,
                                c / d[0] as usize % d[1] as usize,
                                c / (d[0] as usize * d[1] as usize),
                            );
                            let xyz = [x as u32, y as u32, k as u32];
                            assert_eq!(g.cell_index(xyz), Some(c), "{what}: cell_index");
                            z.cell_index(xyz).expect("inside") as u32
                        };
                        for cs in &mut per_light {
                            *cs = cs.iter().map(|&c| to_z(c)).collect();
                            cs.sort_unstable();
                        }
                        lists_from(&per_light, cells)
                    }
                    _ => lists,
                };
                match &first {
                    None => first = Some(lists),
                    Some(f) => {
                        assert_eq!(&lists, f, "{what}: differs from the first configuration")
                    }
                }
            }
        }
    }
    first.expect("a configuration")
}

/// `lights` repeated up to [`REPEATED`]: every copy must land where its original does.
fn check_repeated(grid: &ClusterGrid, lights: &[Sphere], lists: &LightLists) {
    if lights.is_empty() {
        return;
    }
    let many: Vec<Sphere> = lights.iter().copied().cycle().take(REPEATED).collect();
    let big = assign_everywhere(grid, &Spheres::from_slice(&many).expect("valid lights"));
    let small = cells_per_light(lists, lights.len());
    for (l, cs) in cells_per_light(&big, many.len()).iter().enumerate() {
        assert_eq!(
            cs,
            &small[l % lights.len()],
            "light {l}, a copy of {}",
            l % lights.len()
        );
    }
}

/// The brute force of box grids: `cells().hits(&light)` for every light.
fn check_box_grid(grid: &ClusterGrid, lights: &[Sphere], repeat: bool) {
    let set = Spheres::from_slice(lights).expect("valid lights");
    let lists = assign_everywhere(grid, &set);
    let cells = grid.clone().with_order(CellOrder::ZFastest).cells();
    assert_eq!(cells.len(), grid.len(), "cells()");
    let scalar = cells.with_backend(Backend::Scalar).expect("scalar");
    let per_light: Vec<Vec<u32>> = lights.iter().map(|l| scalar.hits(l).collect()).collect();
    assert_eq!(
        lists,
        lists_from(&per_light, cells.len()),
        "assign vs cells().hits(&light)"
    );
    if repeat {
        check_repeated(grid, lights, &lists);
    }
}

fn uniform(inp: &mut Input, repeat: bool) {
    let bounds = Aabb::new(inp.values::<3>(), inp.values::<3>());
    let dims = read_dims(inp, 5);
    let finite = bounds.min.iter().chain(&bounds.max).all(|v| v.is_finite());
    let mut allowed = Vec::new();
    if !finite {
        allowed.push(BvError::NonFinite { index: 0 });
    } else if (0..3).any(|a| bounds.min[a] > bounds.max[a]) {
        allowed.push(BvError::Inverted { index: 0 });
    }
    if !dims_ok(dims) {
        allowed.push(BvError::GridDims { dims });
    }
    if allowed.is_empty() && cells_of(dims) > MAX_CELLS {
        return; // a valid grid too big to build here
    }
    let grid = match ClusterGrid::uniform(bounds, dims) {
        Ok(g) => {
            assert!(allowed.is_empty(), "uniform({bounds:?}, {dims:?}) accepted");
            g
        }
        Err(e) => {
            assert!(
                allowed.contains(&e),
                "uniform({bounds:?}, {dims:?}): {e:?}, allowed {allowed:?}"
            );
            return;
        }
    };
    assert_eq!(grid.len() as u128, cells_of(dims));
    assert_eq!(grid.dims(), Some(dims));
    // The documented boundaries: min + (max - min) * i / d in f64, rounded to nearest; the
    // first and last exactly min and max.
    let boundary = |a: usize, i: u32| -> f32 {
        let (lo, hi) = (f64::from(bounds.min[a]), f64::from(bounds.max[a]));
        match i {
            0 => bounds.min[a],
            i if i == dims[a] => bounds.max[a],
            i => (lo + (hi - lo) * f64::from(i) / f64::from(dims[a])) as f32,
        }
    };
    for x in 0..dims[0] {
        for y in 0..dims[1] {
            for z in 0..dims[2] {
                let c = grid.cell_index([x, y, z]).expect("inside");
                let b = grid.cell(c).expect("a cell");
                let xyz = [x, y, z];
                for a in 0..3 {
                    assert_eq!(
                        b.min[a].to_bits(),
                        boundary(a, xyz[a]).to_bits(),
                        "cell {xyz:?} min"
                    );
                    assert_eq!(
                        b.max[a].to_bits(),
                        boundary(a, xyz[a] + 1).to_bits(),
                        "cell {xyz:?} max"
                    );
                }
            }
        }
    }
    assert_eq!(grid.cell_index(dims), None);
    let lights = read_lights(inp);
    check_box_grid(&grid, &lights, repeat);
}

fn from_cells(inp: &mut Input, repeat: bool) {
    let n = usize::from(inp.u8() % 24);
    let boxes: Vec<Aabb> = (0..n)
        .map(|_| {
            let (a, b) = (inp.values::<3>(), inp.values::<3>());
            Aabb::new(
                core::array::from_fn(|i| a[i].min(b[i])),
                core::array::from_fn(|i| a[i].max(b[i])),
            )
        })
        .filter(Aabb::is_valid)
        .collect();
    let grid = ClusterGrid::from_cells(Aabbs::from_slice(&boxes).expect("valid boxes"));
    assert_eq!(grid.len(), boxes.len());
    assert_eq!(grid.dims(), None);
    let lights = read_lights(inp);
    check_box_grid(&grid, &lights, repeat);
}

// ---- the froxel brute force: the test suite's own (tests/common/froxel_ref.rs) ----

#[path = "../../tests/common/froxel_ref.rs"]
mod froxel_ref;

use froxel_ref::{Camera, froxel_dist};

#[allow(clippy::neg_cmp_op_on_partial_ord)] // `!(near > 0.0)`: NaN is a bad camera too
fn froxels(inp: &mut Input, repeat: bool) {
    const SIDES: [u32; 10] = [0, 1, 2, 3, 16, 100, 1080, 1920, 3840, u32::MAX];
    let side = |inp: &mut Input| match inp.u8() {
        b @ 0..200 => SIDES[usize::from(b) % SIDES.len()],
        _ => inp.u32(),
    };
    let (w, h) = (side(inp), side(inp));
    let (fov_y, near, far) = (inp.value(), inp.value(), inp.value());
    let dims = read_dims(inp, 4);
    let mut allowed = Vec::new();
    if ![fov_y, near, far].iter().all(|v| v.is_finite()) {
        allowed.push(BvError::NonFinite { index: 0 });
    }
    let fov = f64::from(fov_y);
    let camera_bad = w == 0
        || h == 0
        || !(fov > 0.0 && fov < core::f64::consts::PI)
        || !(near > 0.0)
        || !(far > near);
    if !dims_ok(dims) {
        allowed.push(BvError::GridDims { dims });
    }
    if allowed.is_empty() && !camera_bad && cells_of(dims) > MAX_CELLS {
        return; // a valid grid too big to build here
    }
    let grid = match ClusterGrid::froxels(w, h, fov_y, near, far, dims) {
        Ok(g) => {
            assert!(
                allowed.is_empty() && !camera_bad,
                "froxels({w}, {h}, {fov_y}, {near}, {far}, {dims:?}) accepted"
            );
            g
        }
        Err(BvError::Camera { what }) => {
            assert!(
                camera_bad,
                "froxels({w}, {h}, {fov_y}, {near}, {far}, {dims:?}): Camera {what}"
            );
            return;
        }
        Err(e) => {
            assert!(
                allowed.contains(&e),
                "froxels({w}, {h}, {fov_y}, {near}, {far}, {dims:?}): {e:?}, allowed {allowed:?}"
            );
            return;
        }
    };
    assert_eq!(grid.len() as u128, cells_of(dims));
    let cam = Camera {
        w,
        h,
        fov_y,
        near,
        far,
        dims,
    };
    let lights = read_lights(inp);
    let set = Spheres::from_slice(&lights).expect("valid lights");
    let lists = assign_everywhere(&grid, &set);
    let z = grid.clone().with_order(CellOrder::ZFastest);
    let (tx, ty) = cam.tans();
    for x in 0..dims[0] {
        for y in 0..dims[1] {
            for k in 0..dims[2] {
                let xyz = [x, y, k];
                let c = z.cell_index(xyz).expect("inside");
                let corners = cam.corners(xyz);
                let scale = corners.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
                // The cell's box contains the froxel (documented, rounded outwards).
                let b = z.cell(c).expect("a cell");
                for corner in &corners {
                    for a in 0..3 {
                        // Bounds beyond the f32 range saturate at -f32::MAX / f32::MAX.
                        let max = f64::from(f32::MAX);
                        let corner = corner.map(|v| v.clamp(-max, max));
                        let tol = 1e-9 * scale;
                        assert!(
                            f64::from(b.min[a]) <= corner[a] + tol
                                && corner[a] - tol <= f64::from(b.max[a]),
                            "cell {xyz:?}: box {b:?} does not contain corner {corner:?}"
                        );
                    }
                }
                let listed = lists.cell(c);
                for (l, s) in lights.iter().enumerate() {
                    let p = s.center.map(f64::from);
                    let r = f64::from(s.radius);
                    let size = p[0].abs() + p[1].abs() + p[2].abs() + r;
                    let tau = 2f64.powi(-40) * size * (1.0 + tx + ty);
                    // The reference's own rounding, with room to spare.
                    let tol = 1e-9 * (size + scale) * (1.0 + tx + ty);
                    let dist = froxel_dist(p, &corners);
                    let is_listed = listed.binary_search(&(l as u32)).is_ok();
                    if dist <= r - tol {
                        assert!(
                            is_listed,
                            "light {l} {s:?} meets froxel {xyz:?} (distance {dist}) but is not listed; {cam:?}"
                        );
                    }
                    if dist > r + 2.0 * tau + tol {
                        assert!(
                            !is_listed,
                            "light {l} {s:?} is listed in froxel {xyz:?} at distance {dist} > r + 2 tau ({tau}); {cam:?}"
                        );
                    }
                }
            }
        }
    }
    if repeat {
        check_repeated(&grid, &lights, &lists);
    }
}

fuzz_target!(|data: &[u8]| {
    let mut inp = Input::new(data);
    let mode = inp.u8();
    let repeat = mode & 0x80 != 0;
    match mode % 3 {
        0 => uniform(&mut inp, repeat),
        1 => froxels(&mut inp, repeat),
        _ => from_cells(&mut inp, repeat),
    }
});
