//! [`BvError`]: the one error type of the crate.

use crate::lanes::Backend;
use core::fmt;

/// Everything that can go wrong when building a container, a [`Frustum`](crate::Frustum) or
/// choosing a backend.
///
/// Validation errors name the index of the offending primitive: its index in the container for
/// [`push`](crate::Aabbs::push) and [`set`](crate::Aabbs::set), its index in the input slice for
/// [`from_slice`](crate::Aabbs::from_slice) and [`extend_from_slice`](crate::Aabbs::extend_from_slice),
/// and the index of the point for `from_points`. A call that returns an error has changed nothing.
///
/// ```
/// use bvlanes::{Aabb, Aabbs, BvError};
/// let boxes = [Aabb::new([0.0; 3], [1.0; 3]), Aabb::new([2.0, 0.0, 0.0], [1.0, 1.0, 1.0])];
/// assert_eq!(Aabbs::from_slice(&boxes).unwrap_err(), BvError::Inverted { index: 1 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BvError {
    /// A coordinate, bound or radius is NaN or infinite.
    NonFinite {
        /// Index of the offending primitive (or point).
        index: usize,
    },
    /// Inverted bounds: a box with `min > max` on some axis, a tetrahedron whose four half-spaces
    /// enclose nothing, or an octahedron whose up and down tetrahedra do not meet.
    Inverted {
        /// Index of the offending primitive.
        index: usize,
    },
    /// A sphere with a radius below zero (`-0.0` is accepted as zero).
    NegativeRadius {
        /// Index of the offending sphere.
        index: usize,
    },
    /// A sphere with a radius above [`Sphere::MAX_RADIUS`](crate::Sphere::MAX_RADIUS) (`2^62`, about
    /// 4.6e18): the squared reach of two such spheres would overflow f32.
    RadiusTooLarge {
        /// Index of the offending sphere.
        index: usize,
    },
    /// An oriented box whose axes are not orthonormal within
    /// [`Obb::ORTHONORMAL_TOLERANCE`](crate::Obb::ORTHONORMAL_TOLERANCE).
    NotOrthonormal {
        /// Index of the offending box.
        index: usize,
    },
    /// A [`Frustum`](crate::Frustum) plane with a zero normal (`a = b = c = 0`): it is not a
    /// plane.
    ZeroNormal {
        /// Index of the offending plane (0 left, 1 right, 2 bottom, 3 top, 4 near, 5 far).
        index: usize,
    },
    /// Two sequences that must match one to one differ in length: a pairwise operation's two
    /// containers, a set and its collision filters, a blocked container and the container of
    /// [`Blocked::update`](crate::Blocked::update).
    LengthMismatch {
        /// Length of the left (or the receiving) one.
        left: usize,
        /// Length of the right (or the given) one.
        right: usize,
    },
    /// The requested backend does not run on this CPU (see [`Backend::available`]).
    BackendUnavailable {
        /// The backend that was asked for.
        backend: Backend,
    },
    /// [`set`](crate::Aabbs::set) was given an index at or past the end of the container.
    IndexOutOfBounds {
        /// The index asked for.
        index: usize,
        /// The container's length.
        len: usize,
    },
    /// The container would hold more than `u32::MAX` primitives (hit indices are `u32`).
    CapacityExceeded,
    /// The allocator could not provide the memory asked for (from
    /// [`try_reserve`](crate::Aabbs::try_reserve), or for the pairs of
    /// [`try_complete_pairs`](crate::broadphase::Sweep::try_complete_pairs)).
    AllocationFailed,
    /// A broadphase call found more pairs than the caller's limit
    /// ([`try_complete_pairs`](crate::broadphase::Sweep::try_complete_pairs)).
    TooManyPairs {
        /// The limit.
        limit: usize,
    },
    /// A bounding volume was asked for an empty set of points.
    NoPoints,
    /// A cluster grid with a zero dimension, a dimension above
    /// [`ClusterGrid::MAX_AXIS_CELLS`](crate::cull::ClusterGrid::MAX_AXIS_CELLS), or more than
    /// `u32::MAX` cells.
    GridDims {
        /// The dimensions asked for.
        dims: [u32; 3],
    },
    /// Camera parameters that describe no perspective view volume (a zero viewport side, a field
    /// of view outside `(0, pi)`, `near <= 0` or `far <= near`).
    Camera {
        /// What is wrong, in words.
        what: &'static str,
    },
}

impl fmt::Display for BvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            BvError::NonFinite { index } => {
                write!(f, "primitive {index} has a NaN or infinite value")
            }
            BvError::Inverted { index } => write!(
                f,
                "primitive {index} has inverted bounds (min > max, or a tetrahedron that encloses nothing)"
            ),
            BvError::NegativeRadius { index } => {
                write!(f, "sphere {index} has a negative radius")
            }
            BvError::RadiusTooLarge { index } => write!(
                f,
                "sphere {index} has a radius above Sphere::MAX_RADIUS (2^62, about 4.6e18)"
            ),
            BvError::NotOrthonormal { index } => {
                write!(f, "oriented box {index} has axes that are not orthonormal")
            }
            BvError::ZeroNormal { index } => {
                write!(f, "frustum plane {index} has a zero normal")
            }
            BvError::LengthMismatch { left, right } => {
                write!(f, "lengths differ: {left} and {right}")
            }
            BvError::BackendUnavailable { backend } => {
                write!(f, "backend {backend} is not available on this CPU")
            }
            BvError::IndexOutOfBounds { index, len } => {
                write!(
                    f,
                    "index {index} is out of bounds for a container of length {len}"
                )
            }
            BvError::CapacityExceeded => {
                write!(f, "a container holds at most u32::MAX primitives")
            }
            BvError::AllocationFailed => write!(f, "memory allocation failed"),
            BvError::TooManyPairs { limit } => {
                write!(f, "more overlapping pairs than the limit of {limit}")
            }
            BvError::NoPoints => write!(f, "a bounding volume needs at least one point"),
            BvError::GridDims { dims } => write!(
                f,
                "a cluster grid of {dims:?} cells: every dimension must lie in 1..=ClusterGrid::MAX_AXIS_CELLS and their product be at most u32::MAX"
            ),
            BvError::Camera { what } => write!(f, "bad camera parameters: {what}"),
        }
    }
}

impl std::error::Error for BvError {}
