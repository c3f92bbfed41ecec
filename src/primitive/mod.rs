//! The primitives: plain `#[repr(C)]`, [`Pod`](bytemuck::Pod) data, one struct per shape.
//!
//! Points are `[f32; 3]`. Constructors that take one point (a centre, a corner) take
//! `impl Into<[f32; 3]>`, so arrays, glam's `Vec3` and mint's `Vector3` work as they are. The
//! point-set constructors (`Aabb::from_points`, `Octahedron::from_points`,
//! `Sphere::from_points`) take any
//! `IntoIterator` of [`IntoPoint`]s: those same point types owned or borrowed, so `&points`,
//! `&points[..]`, `points.iter()` and `points` itself all work for a `Vec<[f32; 3]>` or a
//! `Vec<glam::Vec3>`. Constructors that compute bounds (from points, from a box, from a sphere)
//! round outward, so the result always contains its input.

mod aabb;
mod bounding_sphere;
mod frustum;
mod obb;
mod point;
mod sphere;
mod tet;

pub use aabb::Aabb;
pub use frustum::Frustum;
pub use obb::Obb;
pub use point::IntoPoint;
pub use sphere::Sphere;
pub use tet::{DownTet, Octahedron, TET_AXES, UpTet};
pub(crate) use tet::{project_down, project_up};

/// A point in 3-D space.
pub type Point = [f32; 3];

/// Every coordinate finite.
#[inline]
pub(crate) fn all_finite<const N: usize>(v: &[f32; N]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// Any coordinate NaN.
#[inline]
pub(crate) fn any_nan<const N: usize>(v: &[f32; N]) -> bool {
    v.iter().any(|x| x.is_nan())
}
