//! Regression tests for what the fuzz targets (`fuzz/`, see `docs/reliability.md`) found: each
//! test is the minimised finding, written out.

use bvlanes::cull::ClusterGrid;
use bvlanes::{Aabb, BvError};

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
