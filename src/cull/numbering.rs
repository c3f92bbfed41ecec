//! How uniform and froxel grids number their cells: the [`CellOrder`], and the dimensions it
//! can number (every cell index a `u32`).

use crate::error::BvError;

/// How a uniform or froxel grid numbers its cells.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CellOrder {
    /// `index = (x * dims_y + y) * dims_z + z`: z fastest, as Bevy's clusters.
    #[default]
    ZFastest,
    /// `index = (z * dims_y + y) * dims_x + x`: x fastest, as a 3-D texture.
    XFastest,
}

impl CellOrder {
    /// The index of cell `(x, y, z)` of a grid with dimensions `d`.
    #[inline(always)]
    pub(super) fn index(self, d: [u32; 3], [x, y, z]: [u32; 3]) -> u32 {
        match self {
            CellOrder::ZFastest => (x * d[1] + y) * d[2] + z,
            CellOrder::XFastest => (z * d[1] + y) * d[0] + x,
        }
    }

    /// The `(x, y, z)` of cell `index < len` of a grid with dimensions `dims`.
    pub(super) fn coords(self, dims: [u32; 3], index: usize) -> [usize; 3] {
        let (i, d) = (index as u32, dims);
        let xyz = match self {
            CellOrder::ZFastest => [i / (d[1] * d[2]), i / d[2] % d[1], i % d[2]],
            CellOrder::XFastest => [i % d[0], i / d[0] % d[1], i / (d[0] * d[1])],
        };
        xyz.map(|v| v as usize)
    }
}

/// [`ClusterGrid::MAX_AXIS_CELLS`](super::ClusterGrid::MAX_AXIS_CELLS).
pub(super) const MAX_AXIS_CELLS: u32 = 1 << 24;

/// [`BvError::GridDims`] unless every dimension lies in `1..=MAX_AXIS_CELLS` and their product
/// is at most `u32::MAX`.
pub(super) fn check_dims(dims: [u32; 3]) -> Result<(), BvError> {
    let cells = dims.iter().map(|&d| u128::from(d)).product::<u128>();
    let axis_ok = dims.iter().all(|&d| (1..=MAX_AXIS_CELLS).contains(&d));
    if axis_ok && cells <= u128::from(u32::MAX) {
        Ok(())
    } else {
        Err(BvError::GridDims { dims })
    }
}
