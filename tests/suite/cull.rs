//! Light assignment (`bvlanes::cull`) against the brute force it is defined by: every light
//! queried against every cell with the crate's exact sphere-box test, on every backend.

use crate::common;

use bvlanes::cull::{CellOrder, ClusterGrid, LightLists, LightMasks};
use bvlanes::{Aabb, Aabbs, Backend, BvError, Sphere, Spheres};
use common::TestRng;

/// The lists the brute force gives: for each light, `cells.hits(light)` on backend `b`.
fn brute(cells: &Aabbs, lights: &Spheres, b: Backend) -> Vec<Vec<u32>> {
    let mut per_cell = vec![Vec::new(); cells.len()];
    let pinned = cells.with_backend(b).unwrap();
    for (l, light) in lights.iter().enumerate() {
        for c in pinned.hits(&light) {
            per_cell[c as usize].push(l as u32);
        }
    }
    per_cell
}

/// Checks `assign` and `assign_masks` of `grid` on every backend against the brute force.
fn check(grid: &ClusterGrid, lights: &Spheres, what: &str) {
    let cells = grid.cells();
    assert_eq!(cells.len(), grid.len());
    let want = brute(&cells, lights, Backend::Scalar);
    let mut masks = LightMasks::new();
    for &b in Backend::available() {
        assert_eq!(brute(&cells, lights, b), want, "{what}: brute force on {b}");
        let g = grid.clone().with_backend(b).unwrap();
        let lists = g.assign(lights);
        // The same output whatever the thread count.
        for threads in [1, 2, 3, 8] {
            let t = g.clone().with_threads(threads);
            assert_eq!(t.assign(lights), lists, "{what}: {threads} threads on {b}");
        }
        assert_eq!(lists.cells(), grid.len(), "{what}");
        assert_eq!(lists.offsets.first(), Some(&0), "{what}");
        for (c, w) in want.iter().enumerate() {
            assert_eq!(lists.cell(c), &w[..], "{what}: cell {c} on {b}");
        }
        assert_eq!(
            lists.indices.len(),
            want.iter().map(Vec::len).sum::<usize>()
        );
        g.assign_masks(lights, &mut masks);
        let mut single = LightMasks::new();
        g.clone().with_threads(1).assign_masks(lights, &mut single);
        assert_eq!(masks, single, "{what}: masks, 1 thread vs default on {b}");
        assert_eq!(masks.words_per_cell(), lights.len().div_ceil(32));
        assert_eq!(masks.words().len(), grid.len() * masks.words_per_cell());
        for (c, w) in want.iter().enumerate() {
            let from_mask: Vec<u32> = (0..lights.len())
                .filter(|&l| masks.contains(c, l))
                .map(|l| l as u32)
                .collect();
            assert_eq!(&from_mask, w, "{what}: mask of cell {c} on {b}");
        }
    }
}

fn random_lights(rng: &mut TestRng, n: usize, around: Aabb, max_r: f32) -> Spheres {
    let lights: Vec<Sphere> = (0..n)
        .map(|_| {
            let c = [0, 1, 2].map(|a| {
                let (lo, hi) = (f64::from(around.min[a]), f64::from(around.max[a]));
                let pad = (hi - lo) * 0.2;
                let t = f64::from(rng.unit());
                let v = (lo - pad) + (hi - lo + 2.0 * pad) * t;
                v.clamp(-3e38, 3e38) as f32
            });
            let r = if rng.chance(0.1) {
                0.0
            } else {
                rng.range(0.0, max_r)
            };
            Sphere::new(c, r)
        })
        .collect();
    Spheres::from_slice(&lights).unwrap()
}

#[test]
fn uniform_grids_equal_the_brute_force() {
    let mut rng = TestRng::named(1, "uniform");
    for round in 0..40 {
        let dims = [
            1 + rng.below(9) as u32,
            1 + rng.below(7) as u32,
            1 + rng.below(11) as u32,
        ];
        let min = [rng.sym(50.0), rng.sym(50.0), rng.sym(50.0)];
        let size = [0, 1, 2].map(|_| rng.range(0.5, 40.0));
        let bounds = Aabb::new(min, [0, 1, 2].map(|a| min[a] + size[a]));
        let order = if round % 2 == 0 {
            CellOrder::ZFastest
        } else {
            CellOrder::XFastest
        };
        let grid = ClusterGrid::uniform(bounds, dims)
            .unwrap()
            .with_order(order);
        // Half the rounds (both orders) enough lights that the assignment splits into light
        // tasks and cell ranges, on 2, 3 and 8 threads (uniform runs go along the order's
        // fastest axis, so no range cuts them; `tests/suite/cull_froxel.rs` has runs that are cut).
        let count = if round % 4 < 2 { 1500 } else { rng.below(80) };
        let lights = random_lights(&mut rng, count, bounds, size[0].max(size[1]) / 3.0);
        check(
            &grid,
            &lights,
            &format!("round {round}, dims {dims:?}, {order:?}"),
        );
    }
}

#[test]
fn lights_on_faces_edges_and_corners() {
    // Unit cells: boundaries at integers, exactly representable.
    let bounds = Aabb::new([0.0; 3], [4.0, 3.0, 2.0]);
    let grid = ClusterGrid::uniform(bounds, [4, 3, 2]).unwrap();
    let mut lights = Vec::new();
    for x in 0..=8 {
        for y in 0..=6 {
            for z in 0..=4 {
                let c = [x as f32 * 0.5, y as f32 * 0.5, z as f32 * 0.5];
                for r in [0.0, 0.5, 1e-7, 1.0, 1.5] {
                    lights.push(Sphere::new(c, r));
                }
            }
        }
    }
    // Touching a face from outside, exactly, and just not.
    lights.push(Sphere::new([-1.0, 1.5, 1.0], 1.0));
    lights.push(Sphere::new([-1.0, 1.5, 1.0], 1.0f32.next_down()));
    lights.push(Sphere::new([5.0, 4.0, 3.0], 3f32.sqrt()));
    lights.push(Sphere::new([-0.0, -0.0, -0.0], 0.0));
    let lights = Spheres::from_slice(&lights).unwrap();
    check(&grid, &lights, "faces, edges, corners");
    let lists = grid.assign(&lights);
    // A light touching the face x = 0 from outside is in the cells of that face.
    let touching = (lights.len() - 4) as u32;
    let in_face: Vec<usize> = (0..grid.len())
        .filter(|&c| lists.cell(c).contains(&touching))
        .collect();
    assert_eq!(
        in_face,
        [
            grid.cell_index([0, 1, 0]).unwrap(),
            grid.cell_index([0, 1, 1]).unwrap()
        ]
    );
    assert!((0..grid.len()).all(|c| !lists.cell(c).contains(&(touching + 1))));
}

#[test]
fn degenerate_grids_and_light_sets() {
    let mut rng = TestRng::named(2, "degenerate");
    // One cell; a flat grid (zero thickness on y); empty light list; huge lights.
    let one = ClusterGrid::uniform(Aabb::new([0.0; 3], [1.0; 3]), [1, 1, 1]).unwrap();
    let flat =
        ClusterGrid::uniform(Aabb::new([0.0, 2.0, 0.0], [3.0, 2.0, 3.0]), [3, 5, 3]).unwrap();
    let tiny = ClusterGrid::uniform(Aabb::new([1e-30; 3], [2e-30; 3]), [3, 3, 3]).unwrap();
    let huge = ClusterGrid::uniform(Aabb::new([-3e38; 3], [3e38; 3]), [4, 4, 4]).unwrap();
    for (grid, name) in [(one, "one"), (flat, "flat"), (tiny, "tiny"), (huge, "huge")] {
        check(&grid, &Spheres::new(), &format!("{name}, no lights"));
        let b = grid.cell(0).unwrap();
        let around = Aabb::new(b.min, grid.cell(grid.len() - 1).unwrap().max);
        let mut lights = random_lights(&mut rng, 50, around, 1.0);
        lights
            .push(Sphere::new([0.0; 3], Sphere::MAX_RADIUS))
            .unwrap();
        lights.push(Sphere::new([1e30, -1e30, 0.0], 0.0)).unwrap();
        check(&grid, &lights, name);
    }
}

/// `n` random cells near the origin (centres within 10 of it), half extents up to `max_half`.
fn random_cells(rng: &mut TestRng, n: usize, max_half: f32) -> Vec<Aabb> {
    (0..n)
        .map(|_| {
            let c = rng.near([0.0; 3], 10.0);
            let h = [0, 1, 2].map(|_| rng.range(0.0, max_half));
            Aabb::new(
                [0, 1, 2].map(|a| c[a] - h[a]),
                [0, 1, 2].map(|a| c[a] + h[a]),
            )
        })
        .collect()
}

#[test]
fn from_cells_grids_equal_the_brute_force() {
    let mut rng = TestRng::named(3, "cells");
    for n in [0usize, 1, 15, 16, 17, 100, 2000] {
        let boxes = random_cells(&mut rng, n, 3.0);
        let grid = ClusterGrid::from_cells(Aabbs::from_slice(&boxes).unwrap());
        // Enough lights at 100 and 2000 cells (binned 4 x 4 and 16 x 16) that the assignment
        // is split over tasks.
        let count = if n >= 100 { 1500 } else { 70 };
        let lights = random_lights(&mut rng, count, Aabb::new([-10.0; 3], [10.0; 3]), 4.0);
        check(&grid, &lights, &format!("{n} cells"));
        assert_eq!(grid.dims(), None);
        assert_eq!(grid.cell_index([0, 0, 0]), None);
    }
}

/// `from_cells` grids with many lights assign them through a blocked container of the lights
/// (with 8,000 lights from 513 cells up to 4,000): the lists equal the brute force's on
/// every backend and thread count, with lights that touch cells exactly, zero-radius lights,
/// lights far outside and lights covering every cell; and equal the bins' (`assign_masks`
/// always bins) and a grid of one cell fewer (the flat batch of few cells).
#[test]
fn from_cells_grids_with_many_lights_equal_the_brute_force() {
    let mut rng = TestRng::named(43, "cells, many lights");
    let boxes = random_cells(&mut rng, 513, 1.5);
    let mut lights: Vec<Sphere> = (0..8_000)
        .map(|_| Sphere::new(rng.near([0.0; 3], 12.0), rng.range(0.0, 1.0)))
        .collect();
    // Touching a cell's face from outside, a point on a corner, far away, covering all.
    let b = boxes[7];
    lights[1] = Sphere::new([b.max[0] + 0.5, b.min[1], b.min[2]], 0.5);
    lights[2] = Sphere::new(b.max, 0.0);
    lights[3] = Sphere::new([1e6; 3], 2.0);
    lights[4] = Sphere::new([0.0; 3], 100.0);
    let lights = Spheres::from_slice(&lights).unwrap();
    for n in [512, 513] {
        let cells = Aabbs::from_slice(&boxes[..n]).unwrap();
        let want = brute(&cells, &lights, Backend::Scalar);
        assert!(
            want[7].contains(&1) && want[7].contains(&2),
            "touching lights meet cell 7"
        );
        assert!(want.iter().all(|w| w.contains(&4) && !w.contains(&3)));
        let grid = ClusterGrid::from_cells(cells);
        for &backend in Backend::available() {
            let g = grid.clone().with_backend(backend).unwrap();
            for threads in [1, 3] {
                let lists = g.clone().with_threads(threads).assign(&lights);
                assert_eq!(lists.cells(), n);
                for (c, w) in want.iter().enumerate() {
                    assert_eq!(lists.cell(c), &w[..], "{n} cells: cell {c} on {backend}");
                }
            }
        }
        let mut masks = LightMasks::new();
        grid.assign_masks(&lights, &mut masks);
        for (c, w) in want.iter().enumerate() {
            assert!(
                w.iter().all(|&l| masks.contains(c, l as usize)),
                "{n} cells: mask {c}"
            );
        }
        let set: u32 = masks.words().iter().map(|w| w.count_ones()).sum();
        assert_eq!(
            set as usize,
            want.iter().map(Vec::len).sum::<usize>(),
            "{n} cells"
        );
    }
}

/// `from_cells` grids search each light's window of cells sorted along one axis: every cell
/// count 0..=67 (tails of the 16-lane chunks), and per sort axis the cases at a window's edges.
#[test]
fn from_cells_windows_miss_nothing() {
    let mut rng = TestRng::named(41, "windows");
    for n in 0..=67usize {
        let boxes: Vec<Aabb> = (0..n)
            .map(|_| {
                let c = rng.near([0.0; 3], 8.0);
                let h = [0, 1, 2].map(|_| {
                    if rng.chance(0.2) {
                        0.0
                    } else {
                        rng.range(0.0, 2.0)
                    }
                });
                Aabb::new(
                    [0, 1, 2].map(|a| c[a] - h[a]),
                    [0, 1, 2].map(|a| c[a] + h[a]),
                )
            })
            .collect();
        let grid = ClusterGrid::from_cells(Aabbs::from_slice(&boxes).unwrap());
        let lights = random_lights(&mut rng, 24, Aabb::new([-8.0; 3], [8.0; 3]), 3.0);
        check(&grid, &lights, &format!("{n} random cells"));
    }
    // Cells strung out along axis `a` (so the window runs along it), with one cell whose extent
    // rounds down in f32 (-0.03 .. 1e6 is 1e6 wide), points, signed zeros, and cells at huge and
    // tiny magnitudes; lights touching ends exactly, of zero, tiny and huge radius.
    for a in 0..3 {
        let at = |along: f32, other: [f32; 2]| {
            let mut p = [0.0; 3];
            p[a] = along;
            p[(a + 1) % 3] = other[0];
            p[(a + 2) % 3] = other[1];
            p
        };
        let mut boxes = vec![
            Aabb::new(at(-0.03, [0.0; 2]), at(1.0e6, [1.0; 2])),
            Aabb::new(at(-0.0, [0.0; 2]), at(0.0, [1.0; 2])),
            Aabb::new(at(0.0, [0.0; 2]), at(-0.0, [0.0; 2])),
            Aabb::new(at(1.0e6, [2.0; 2]), at(1.0e6, [2.0; 2])),
            Aabb::new(at(-3e38, [0.0; 2]), at(-2e38, [1.0; 2])),
            Aabb::new(at(2e38, [-1e-30; 2]), at(3e38, [1e-30; 2])),
            Aabb::new(at(1e-38, [0.0; 2]), at(2e-38, [1e-38; 2])),
        ];
        for i in 0..40 {
            let x = i as f32 * 25_000.0;
            boxes.push(Aabb::new(at(x, [0.0; 2]), at(x + 1.0, [1.0; 2])));
        }
        let grid = ClusterGrid::from_cells(Aabbs::from_slice(&boxes).unwrap());
        let mut lights = Vec::new();
        for r in [0.0, 1e-30, 0.5, 1e6, Sphere::MAX_RADIUS] {
            for along in [
                1.0e6, -0.03, 0.0, -0.0, 1e-38, 2e-38, -2e38, 2e38, 3e38, 24_999.5,
            ] {
                lights.push(Sphere::new(at(along, [0.5; 2]), r));
                lights.push(Sphere::new(at(along + r, [0.5; 2]), r));
                lights.push(Sphere::new(at(along - r, [0.5; 2]), r));
                lights.push(Sphere::new(at(along, [1.0 + r; 2]), r));
            }
        }
        // Enough copies that the assignment is split over tasks.
        let once = lights.clone();
        while lights.len() < 600 {
            lights.extend_from_slice(&once);
        }
        let lights = Spheres::from_slice(&lights).unwrap();
        check(&grid, &lights, &format!("cells along axis {a}"));
    }
}

#[test]
fn cell_numbering() {
    let bounds = Aabb::new([0.0; 3], [2.0, 3.0, 4.0]);
    let z = ClusterGrid::uniform(bounds, [2, 3, 4]).unwrap();
    let x = z.clone().with_order(CellOrder::XFastest);
    assert_eq!(z.cell_index([0, 0, 1]), Some(1));
    assert_eq!(z.cell_index([0, 1, 0]), Some(4));
    assert_eq!(z.cell_index([1, 0, 0]), Some(12));
    assert_eq!(x.cell_index([1, 0, 0]), Some(1));
    assert_eq!(x.cell_index([0, 1, 0]), Some(2));
    assert_eq!(x.cell_index([0, 0, 1]), Some(6));
    assert_eq!(z.cell_index([2, 0, 0]), None);
    for g in [&z, &x] {
        for xi in 0..2u32 {
            for yi in 0..3u32 {
                for zi in 0..4u32 {
                    let c = g.cell(g.cell_index([xi, yi, zi]).unwrap()).unwrap();
                    assert_eq!(c.min, [xi as f32, yi as f32, zi as f32]);
                    assert_eq!(c.max, [xi as f32 + 1.0, yi as f32 + 1.0, zi as f32 + 1.0]);
                }
            }
        }
        assert_eq!(g.cell(24), None);
    }
    // Neighbouring cells share their boundary exactly, and the grid spans the bounds exactly.
    let odd = ClusterGrid::uniform(Aabb::new([0.1; 3], [0.7, 1.3, 9.9]), [7, 3, 13]).unwrap();
    let cells = odd.cells();
    assert_eq!(cells.get(0).unwrap().min, [0.1; 3]);
    assert_eq!(cells.get(odd.len() - 1).unwrap().max, [0.7, 1.3, 9.9]);
    for zi in 0..12 {
        let a = odd.cell(odd.cell_index([0, 0, zi]).unwrap()).unwrap();
        let b = odd.cell(odd.cell_index([0, 0, zi + 1]).unwrap()).unwrap();
        assert_eq!(a.max[2], b.min[2]);
        assert!(a.min[2] < a.max[2]);
    }
}

#[test]
fn outputs_are_plain_u32_slices() {
    let grid = ClusterGrid::uniform(Aabb::new([0.0; 3], [2.0; 3]), [2, 2, 2]).unwrap();
    let lights =
        Spheres::from_slice(&[Sphere::new([0.5; 3], 0.1), Sphere::new([1.0; 3], 0.1)]).unwrap();
    let lists: LightLists = grid.assign(&lights);
    let bytes: &[u8] = bytemuck::cast_slice(&lists.indices);
    assert_eq!(bytes.len(), 4 * lists.indices.len());
    assert_eq!(lists.offsets.len(), 9);
    assert_eq!(lists.cell(0), [0, 1]);
    assert_eq!(lists.cell(100), [] as [u32; 0]);
    let mut masks = LightMasks::new();
    grid.assign_masks(&lights, &mut masks);
    assert_eq!(masks.cell(0), [0b11]);
    assert_eq!(masks.cell(7), [0b10]);
    // Reused: a second assignment with fewer lights overwrites everything.
    grid.assign_masks(&Spheres::new(), &mut masks);
    assert_eq!((masks.words_per_cell(), masks.words().len()), (0, 0));
}

#[test]
fn bad_grids_are_errors() {
    let ok = Aabb::new([0.0; 3], [1.0; 3]);
    assert_eq!(
        ClusterGrid::uniform(ok, [0, 1, 1]).unwrap_err(),
        BvError::GridDims { dims: [0, 1, 1] }
    );
    assert!(matches!(
        ClusterGrid::uniform(ok, [65536, 65536, 2]),
        Err(BvError::GridDims { .. })
    ));
    // One dimension past `MAX_AXIS_CELLS` (a negative `i32` cast, say) is refused before any
    // allocation; at the limit, the grid is built.
    let max = ClusterGrid::MAX_AXIS_CELLS;
    for dims in [[u32::MAX, 1, 1], [1, max + 1, 1], [1, 1, max + 1]] {
        assert_eq!(
            ClusterGrid::uniform(ok, dims).unwrap_err(),
            BvError::GridDims { dims }
        );
        assert_eq!(
            ClusterGrid::froxels(64, 64, 1.0, 0.1, 10.0, dims).unwrap_err(),
            BvError::GridDims { dims }
        );
    }
    assert_eq!(
        ClusterGrid::uniform(ok, [1, 1, max]).unwrap().dims(),
        Some([1, 1, max])
    );
    assert_eq!(
        ClusterGrid::uniform(Aabb::new([0.0, f32::NAN, 0.0], [1.0; 3]), [1, 1, 1]).unwrap_err(),
        BvError::NonFinite { index: 0 }
    );
    assert_eq!(
        ClusterGrid::uniform(Aabb::new([0.0, f32::INFINITY, 0.0], [1.0; 3]), [1, 1, 1])
            .unwrap_err(),
        BvError::NonFinite { index: 0 }
    );
    assert_eq!(
        ClusterGrid::uniform(Aabb::new([2.0, 0.0, 0.0], [1.0; 3]), [1, 1, 1]).unwrap_err(),
        BvError::Inverted { index: 0 }
    );
}

#[test]
fn lights_at_the_rounding_boundary() {
    // Radii within an ulp or two of the exact test's own f32 distance to a cell corner: the
    // assignment must evaluate the distance in the kernel's order ((ex^2 + ey^2) + ez^2), or some
    // of these flip.
    let mut rng = TestRng::named(4, "boundary");
    let grid = ClusterGrid::uniform(Aabb::new([0.0; 3], [3.0; 3]), [3, 3, 3]).unwrap();
    let mut lights = Vec::new();
    for _ in 0..3000 {
        let c = [
            rng.range(-1.0, -0.01),
            rng.range(-1.0, -0.01),
            rng.range(-1.0, -0.01),
        ];
        let (ex, ey, ez) = (c[0], c[1], c[2]);
        let d = (ex * ex + ey * ey) + ez * ez;
        let r = d.sqrt();
        for r in [r.next_down(), r, r.next_up()] {
            lights.push(Sphere::new(c, r));
        }
    }
    let lights = Spheres::from_slice(&lights).unwrap();
    // Both orders: the runs go along z in `ZFastest` and along x in `XFastest`, two loops that
    // must each keep the kernel's order (a review found the x loop untested once `ZFastest`
    // went along z).
    for order in [CellOrder::ZFastest, CellOrder::XFastest] {
        let grid = grid.clone().with_order(order);
        check(&grid, &lights, &format!("rounding boundary, {order:?}"));
    }
}

/// One grid of each kind, with lights scattered around it.
fn one_of_each_kind(rng: &mut TestRng) -> Vec<(ClusterGrid, Aabb, &'static str)> {
    let bounds = Aabb::new([-4.0, 0.0, -2.0], [6.0, 3.0, 7.0]);
    let boxes: Vec<Aabb> = (0..40)
        .map(|_| {
            let c = rng.near([1.0, 1.5, 2.5], 5.0);
            let h = [0, 1, 2].map(|_| rng.range(0.0, 2.0));
            Aabb::new(
                [0, 1, 2].map(|a| c[a] - h[a]),
                [0, 1, 2].map(|a| c[a] + h[a]),
            )
        })
        .collect();
    vec![
        (
            ClusterGrid::uniform(bounds, [5, 4, 3]).unwrap(),
            bounds,
            "uniform",
        ),
        (
            ClusterGrid::from_cells(Aabbs::from_slice(&boxes).unwrap()),
            bounds,
            "cells",
        ),
        (
            ClusterGrid::froxels(640, 480, 1.0, 0.1, 40.0, [4, 3, 5]).unwrap(),
            Aabb::new([-20.0, -15.0, -45.0], [20.0, 15.0, 5.0]),
            "froxels",
        ),
    ]
}

#[test]
fn lists_reused_across_frames_equal_fresh_ones() {
    // One `LightLists` refilled by `assign_into` across grids of every kind, both cell orders,
    // light counts that grow and shrink and 1 or 3 threads (the one-task path keeps its scratch
    // in the lists, the split path its per-task runs): each time exactly what a fresh `assign`
    // gives, and well-formed CSR.
    let mut rng = TestRng::named(5, "reuse");
    let mut lists = LightLists::new();
    for (grid, around, kind) in one_of_each_kind(&mut rng) {
        for order in [CellOrder::XFastest, CellOrder::ZFastest] {
            for n in [300, 0, 2100, 33, 1, 700] {
                let lights = random_lights(&mut rng, n, around, 3.0);
                for threads in [1, 3, 1] {
                    let g = grid.clone().with_order(order).with_threads(threads);
                    g.assign_into(&lights, &mut lists);
                    let fresh = g.with_threads(1).assign(&lights);
                    let what = format!("{kind}, {order:?}, {n} lights, {threads} threads");
                    assert_eq!(lists, fresh, "{what}");
                    assert_eq!(lists.offsets.len(), grid.len() + 1, "{what}");
                    assert_eq!(*lists.offsets.last().unwrap() as usize, lists.indices.len());
                    for c in 0..grid.len() {
                        assert!(lists.cell(c).windows(2).all(|w| w[0] < w[1]), "{what}");
                    }
                }
            }
        }
    }
}

#[test]
fn masks_equal_lists_bit_for_bit() {
    // One `LightMasks` reused across grids and light counts that grow and shrink, most not a
    // multiple of 32: every word, padding bits included, is what the lists say.
    let mut rng = TestRng::named(5, "masks");
    let mut masks = LightMasks::new();
    for (grid, around, kind) in one_of_each_kind(&mut rng) {
        for n in [33, 0, 100, 31, 1, 64, 65, 300, 2100, 7] {
            let lights = random_lights(&mut rng, n, around, 3.0);
            for threads in [1, 3] {
                let g = grid.clone().with_threads(threads);
                let lists = g.assign(&lights);
                g.assign_masks(&lights, &mut masks);
                let w = n.div_ceil(32);
                let mut want = vec![0u32; grid.len() * w];
                for c in 0..grid.len() {
                    for &l in lists.cell(c) {
                        want[c * w + l as usize / 32] |= 1 << (l % 32);
                    }
                }
                let what = format!("{kind}, {n} lights, {threads} threads");
                assert_eq!(masks.words_per_cell(), w, "{what}");
                assert_eq!(masks.words(), &want[..], "{what}");
                for c in [0, grid.len() - 1] {
                    assert_eq!(masks.cell(c), &want[c * w..(c + 1) * w], "{what}");
                }
                assert_eq!(masks.cell(grid.len()), [] as [u32; 0], "{what}");
            }
        }
    }
}

#[test]
fn cell_orders_list_the_same_sets() {
    let mut rng = TestRng::named(6, "orders");
    for (grid, around, kind) in one_of_each_kind(&mut rng) {
        let lights = random_lights(&mut rng, 500, around, 3.0);
        let z = grid.clone().with_order(CellOrder::ZFastest);
        let x = grid.clone().with_order(CellOrder::XFastest);
        let (lz, lx) = (z.assign(&lights), x.assign(&lights));
        let (mut mz, mut mx) = (LightMasks::new(), LightMasks::new());
        z.assign_masks(&lights, &mut mz);
        x.assign_masks(&lights, &mut mx);
        let Some(dims) = grid.dims() else {
            // Cells given one by one keep their own order.
            assert_eq!(lz, lx, "{kind}");
            assert_eq!(mz, mx, "{kind}");
            continue;
        };
        assert_eq!(lz.indices.len(), lx.indices.len(), "{kind}");
        let mut seen = vec![false; grid.len()];
        for cx in 0..dims[0] {
            for cy in 0..dims[1] {
                for cz in 0..dims[2] {
                    let (iz, ix) = (
                        z.cell_index([cx, cy, cz]).unwrap(),
                        x.cell_index([cx, cy, cz]).unwrap(),
                    );
                    let what = format!("{kind}: cell ({cx}, {cy}, {cz})");
                    assert_eq!(lz.cell(iz), lx.cell(ix), "{what}");
                    assert_eq!(mz.cell(iz), mx.cell(ix), "{what}");
                    assert_eq!(z.cell(iz), x.cell(ix), "{what}");
                    assert!(!std::mem::replace(&mut seen[ix], true), "{what}");
                }
            }
        }
    }
}

#[test]
fn bad_lights_never_reach_a_grid() {
    // Lights come as `Spheres`, which reject what a grid could not assign.
    let ok = Sphere::new([0.0; 3], 1.0);
    for (bad, nan) in [
        (Sphere::new([f32::NAN, 0.0, 0.0], 1.0), true),
        (Sphere::new([0.0, 0.0, f32::INFINITY], 1.0), true),
        (Sphere::new([0.0; 3], f32::NAN), true),
        (Sphere::new([0.0; 3], -1.0), false),
        (Sphere::new([0.0; 3], f32::INFINITY), false),
    ] {
        let err = Spheres::from_slice(&[ok, bad]).unwrap_err();
        if nan {
            assert_eq!(err, BvError::NonFinite { index: 1 }, "{bad:?}");
        }
        let mut lights = Spheres::from_slice(&[ok]).unwrap();
        assert!(lights.push(bad).is_err(), "{bad:?}");
        assert_eq!(lights.len(), 1);
    }
}

#[test]
fn cell_lists_on_shared_faces_edges_and_corners() {
    // The uniform grid's cells given one by one: lights centred on shared faces, edges and
    // corners, of radius 0, tiny and 1, land in the same cells either way, and in the brute
    // force's; no lights and a one-cell list too.
    let uniform = ClusterGrid::uniform(Aabb::new([0.0; 3], [3.0, 2.0, 2.0]), [3, 2, 2]).unwrap();
    let cells = ClusterGrid::from_cells(uniform.cells());
    let mut lights = Vec::new();
    for x in 0..=6 {
        for y in 0..=4 {
            for z in 0..=4 {
                let c = [x as f32 * 0.5, y as f32 * 0.5, z as f32 * 0.5];
                for r in [0.0, 1e-6, 1.0] {
                    lights.push(Sphere::new(c, r));
                }
            }
        }
    }
    let lights = Spheres::from_slice(&lights).unwrap();
    check(&cells, &lights, "cells on faces, edges, corners");
    assert_eq!(cells.assign(&lights), uniform.assign(&lights));
    check(&cells, &Spheres::new(), "cells, no lights");
    let one = ClusterGrid::from_cells(Aabbs::from_slice(&[Aabb::new([0.0; 3], [1.0; 3])]).unwrap());
    check(&one, &lights, "one cell");
    check(&one, &Spheres::new(), "one cell, no lights");
}
