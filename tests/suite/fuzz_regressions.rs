//! Regression tests for what the fuzz targets (`fuzz/`, see `docs/reliability.md`) found: each
//! test is the minimised finding, written out.

use crate::froxel_ref;

use bvlanes::cull::ClusterGrid;
use bvlanes::{Aabb, BvError, Octahedron, Sphere, Spheres, UpTet, UpTets};
use froxel_ref::{Camera, froxel_dist};
use std::time::{Duration, Instant};

/// Grid dimensions whose product overflows `u64` (found by the `lights` target): the cell count
/// check multiplied in `u64`, so debug builds panicked ("attempt to multiply with overflow") and
/// release builds wrapped, accepting `[2^22, 2^21, 2^21]` (`2^64` cells) as a grid of 0 cells.
/// More than `u32::MAX` cells is `BvError::GridDims`, however many more.
#[test]
fn grid_dims_whose_product_overflows_u64_are_rejected() {
    let bounds = Aabb::new([0.0; 3], [1.0; 3]);
    for dims in [
        [1 << 22, 1 << 21, 1 << 21], // exactly 2^64: wrapped to 0
        [u32::MAX; 3],
        [u32::MAX, u32::MAX, 2],
        [1 << 31, 1 << 31, 1 << 3], // 2^65
        [1 << 16, 1 << 16, 1],      // 2^32, just past u32::MAX: no overflow, rejected before too
    ] {
        assert_eq!(
            ClusterGrid::uniform(bounds, dims).unwrap_err(),
            BvError::GridDims { dims },
            "uniform {dims:?}"
        );
        assert_eq!(
            ClusterGrid::froxels(1920, 1080, 1.0, 0.1, 100.0, dims).unwrap_err(),
            BvError::GridDims { dims },
            "froxels {dims:?}"
        );
    }
}

/// Directed sums of terms that cancel across very different magnitudes (found by the
/// `containers` target as a "slow unit": one input of 127 bytes took 35 s). The exact sum of
/// `1 + 2^-23`, `1.5 * 2^-53` and `-(1 + 2^-23)` is `1.5 * 2^-53`, but the leading component of
/// its f64 expansion is `2^-52`, a third off; the directed rounding walked from there one f32
/// step at a time, about 2^22 steps: `Octahedron::from_aabb` of that point took 1.6 s in release
/// (17 s in debug), and so did a point query against `UpTets`. Each call now takes microseconds.
#[test]
fn directed_sums_of_cancelling_terms_are_fast_and_exact() {
    let a = 1.0f32 + f32::EPSILON;
    let t = 1.5 * 2f32.powi(-53);
    let start = Instant::now();
    for k in (-60..=60).step_by(4) {
        let s = 2f32.powi(k);
        let p = [a * s, t * s, -a * s];
        let o = Octahedron::from_aabb(&Aabb::new(p, p));
        // Axis A is x + y + z: both bounds are the exact sum, an f32.
        assert_eq!((o.up.min[0], o.down.max[0]), (t * s, t * s), "scale 2^{k}");
        for n in [
            [-p[0], p[1], p[2]],
            [p[0], -p[1], p[2]],
            [p[0], p[1], -p[2]],
        ] {
            let o = Octahedron::from_aabb(&Aabb::new(n, n));
            assert!(o.is_valid(), "scale 2^{k}: {n:?}");
        }
        let tets = UpTets::from_slice(&[UpTet::new([-4.0 * s; 4])]).unwrap();
        assert_eq!(tets.count_hits(&p), 1, "scale 2^{k}: the point is inside");
    }
    let took = start.elapsed();
    assert!(
        took < Duration::from_secs(2),
        "124 directed sums of cancelling terms took {took:?} (the walk from a poor start again?)"
    );
}

/// A light crossing one plane of its froxel into a neighbour thinner than its reach (found by
/// the `lights` target on the first version of `Froxels::few_cells`, which listed the light's
/// froxel and that neighbour only). A 150-degree view with `far` 5.25: slice 0 is
/// `0.625..5`, slices 1 to 3 are 0.08 deep, and the light at depth 4.5, radius 0.875, crosses
/// slice 0's far plane and reaches slices 1, 2 and 3; slice 2 was missing.
#[test]
fn a_light_through_a_thin_neighbouring_slice_is_listed_beyond_it() {
    let cam = Camera {
        w: 3,
        h: 3,
        fov_y: 2.625,
        near: 0.625,
        far: 5.25,
        dims: [1, 4, 4],
    };
    let light = Sphere::new([-4.5, -4.5, -4.5], 0.875);
    let grid = cam.grid();
    let lists = grid.assign(&Spheres::from_slice(&[light]).unwrap());
    let p = light.center.map(f64::from);
    let r = f64::from(light.radius);
    let mut met = 0;
    for x in 0..cam.dims[0] {
        for y in 0..cam.dims[1] {
            for z in 0..cam.dims[2] {
                let dist = froxel_dist(p, &cam.corners([x, y, z]));
                let listed = lists.cell(grid.cell_index([x, y, z]).unwrap()) == [0];
                // Clear cases only (the reference's own rounding aside).
                if dist <= r - 1e-6 {
                    assert!(
                        listed,
                        "froxel {:?} at distance {dist} is not listed",
                        [x, y, z]
                    );
                    met += 1;
                } else if dist > r + 1e-6 {
                    assert!(
                        !listed,
                        "froxel {:?} at distance {dist} is listed",
                        [x, y, z]
                    );
                }
            }
        }
    }
    // Row 1 of slices 0 to 3.
    assert_eq!(met, 4);
}
