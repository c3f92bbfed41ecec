//! Light culling: lights (spheres) against the cells of a cluster grid, in bulk, giving per-cell
//! light lists or bitmasks ready to upload to a GPU.
//!
//! ```
//! use bvlanes::cull::ClusterGrid;
//! use bvlanes::{Aabb, Sphere, Spheres};
//! // A 4 x 2 x 2 grid of unit cells over [0, 4] x [0, 2] x [0, 2].
//! let grid = ClusterGrid::uniform(Aabb::new([0.0; 3], [4.0, 2.0, 2.0]), [4, 2, 2])?;
//! let lights = Spheres::from_slice(&[
//!     Sphere::new([0.5, 0.5, 0.5], 0.25), // inside cell (0, 0, 0) only
//!     Sphere::new([2.0, 1.0, 1.0], 0.1),  // on the corner shared by 8 cells
//! ])?;
//! let lists = grid.assign(&lights);
//! let cell = |xyz| grid.cell_index(xyz).expect("inside the grid");
//! assert_eq!(lists.cell(cell([0, 0, 0])), [0]);
//! assert_eq!(lists.cell(cell([1, 1, 1])), [1]);
//! assert_eq!(lists.indices.len(), 1 + 8);
//! # Ok::<(), bvlanes::BvError>(())
//! ```
//!
//! A light is listed in a cell iff the sphere meets the cell (closed: touching counts), decided
//! by the crate's exact sphere-box test — the very f32 evaluation `Aabbs::hits(&sphere)` runs on
//! the grid's cells, so [`ClusterGrid::assign`] equals that brute force bit for bit, on every
//! backend. [`Frustum`] (six planes, a conservative query against `Spheres` and `Aabbs` on every
//! tier) is the other everyday bulk cull. Froxel grids ([`ClusterGrid::froxels`]: cells between
//! four planes through the eye and two depth planes, depth slices exponential after a first one,
//! as Bevy's) are tested against the froxels themselves, exactly up to a tiny documented slack.

mod cells;
mod froxel;
mod grid;
mod numbering;
mod output;
mod runs;
mod split;
mod uniform;

pub use crate::primitive::Frustum;
pub use grid::ClusterGrid;
pub use numbering::CellOrder;
pub use output::{LightLists, LightMasks};
