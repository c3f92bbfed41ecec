//! Regression tests for what the fuzz targets (`fuzz/`, see `docs/reliability.md`) found: each
//! test is the minimised finding, written out.

use bvlanes::cull::ClusterGrid;
use bvlanes::{Aabb, BvError, Octahedron, UpTet, UpTets};
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
