//! # bvlanes
//!
//! SIMD-batched bounding-volume queries over structure-of-arrays containers: one query against
//! 4, 8 or 16 primitives per instruction, on the fastest instruction set the running CPU has
//! (chosen once at run time: AVX-512, AVX2, SSE/NEON via [`wide`], or plain scalar code), with
//! bit-identical answers on every tier.
//!
//! ```
//! use bvlanes::{Aabb, Aabbs, Sphere};
//!
//! // A container of boxes (structure of arrays, validated on the way in).
//! let boxes = Aabbs::from_slice(&[
//!     Aabb::new([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]),
//!     Aabb::new([4.0, 0.0, 0.0], [5.0, 1.0, 1.0]),
//! ])?;
//! // One query against all of them.
//! let light = Sphere::new([2.0, 0.5, 0.5], 1.0);
//! assert_eq!(boxes.hits(&light).collect::<Vec<u32>>(), [0]); // touching counts
//! assert_eq!(boxes.count_hits(&[4.5, 0.5, 0.5]), 1);
//! # Ok::<(), bvlanes::BvError>(())
//! ```
//!
//! ## Supported pairs
//!
//! | container \ query | point `[f32; 3]` | [`Sphere`] | [`Aabb`] | [`DownTet`] | [`UpTet`] | [`Octahedron`] | [`Obb`] | [`Frustum`] |
//! |---|---|---|---|---|---|---|---|---|
//! | [`Spheres`] | exact | exact | exact | | | | | conservative plane test |
//! | [`Aabbs`] | exact | exact; [`Conservative`]: quick rejection | exact; [`Staged`]: a chosen [`BoxStrategy`] | | | | conservative SAT | conservative plane test (p-vertex) |
//! | [`UpTets`] | exact | | | exact | | | | |
//! | [`DownTets`] | exact | | | | exact | | | |
//! | [`Octahedra`] | exact | | | up half only | down half only | exact; [`Conservative`]: 8-DOP | | |
//! | [`Obbs`] | exact | exact; [`Conservative`]: quick rejection in the box frame | | | | | conservative SAT | |
//!
//! "Conservative SAT" ([`Obb`] queries): the 15-axis separating-axis test (Real-Time Rendering
//! 16.13.5) where an axis separates only if its gap exceeds a bound on the f32 rounding and on the
//! orthonormality tolerance of the axes. It never misses a pair of boxes that meet in real
//! arithmetic (touching counts, parallel edges included) and reports a disjoint pair only when
//! every axis's gap is within about twice a margin of `2^-19 |d|_1 + 2^-10 sum(b) + 2^-12 sum(a)`
//! against [`Obbs`] (`d` the centres' offset, `a`, `b` the half extents of query and primitive;
//! the `2^-10` is the primitive's orthonormality tolerance at work), or `2^-20 (|d|_1 + sum(a) +
//! sum(b))` against [`Aabbs`]. See the [`Obb`] docs for the query rules.
//!
//! "Conservative plane test" ([`Frustum`] queries, view-frustum culling): a sphere or box is
//! reported when it is not wholly beyond any one of the six planes. It never misses a primitive
//! that meets the frustum in real arithmetic (touching counts; each plane is evaluated against a
//! margin of `2^-21 (max|n_i| |x|_1 + |d|) + 2^-140` covering the f32 rounding), and, being a
//! per-plane test, it also reports primitives outside the frustum near its edges and corners that
//! are beyond no single plane (a sphere just off a corner, straddling the extensions of two side
//! planes). See the [`Frustum`] docs.
//!
//! Every container has `hits`, `count_hits`, `any_hit`, `extend_hits` and `hit_mask`, and
//! `with_backend(b)` for the same methods on a chosen [`Backend`]. Batches of queries:
//! `count_hits_many`, `hits_many` / `hits_many_into` (into [`HitLists`]) and `for_each_hit_many`
//! give what the one-query methods give, query by query, in one pass over the container. [`pairwise`] tests N
//! independent pairs (`left[i]` against `right[i]`) the same way.
//!
//! Large, selective scenes: [`Blocked`] keeps an [`Aabbs`], [`Spheres`], [`Obbs`], [`UpTets`],
//! [`DownTets`] or [`Octahedra`] in spatially sorted blocks of 16 with levels of bounds above them, so a query
//! tests only the blocks it can reach (and accepts blocks wholly inside a box or frustum, or
//! passing every comparison of a tetrahedron test, untested). Same query methods, the flat
//! container's answers bit for bit (the caller's indices, ascending); `set` moves a primitive,
//! `refit` and `rebuild` tighten after moves.
//!
//! ## Semantics
//!
//! * Volumes are closed: touching counts as overlap.
//! * A query containing NaN hits nothing; so does an empty query (inverted box, negative radius,
//!   a tetrahedron enclosing nothing, a point or sphere centre at infinity). Infinite bounds are
//!   fine: a sphere of infinite radius hits everything; a box with infinite bounds is a slab or
//!   half-space.
//! * Containers reject non-finite and inverted primitives (and spheres with a negative radius or
//!   one above [`Sphere::MAX_RADIUS`]) with a [`BvError`] naming the index, and change nothing
//!   when they do.
//! * Hit indices come out ascending; padding lanes are never reported.
//! * [`Conservative`] tests may report false positives, never false negatives; so may the [`Obb`]
//!   separating-axis test, within its documented margin, and the [`Frustum`] plane test (near
//!   the frustum's edges and corners, and within its margin).
//! * Constructors that compute bounds ([`Aabb::from_sphere`], [`Octahedron::from_points`],
//!   [`Sphere::from_aabb`], ...)
//!   round outward, so the volume contains its input exactly.
//! * Tests with arithmetic (spheres) are evaluated in f32 in a documented operation order (see
//!   `docs/algorithms.md`); the octahedron sum condition has a tolerance that never rejects a
//!   real intersection.
//!
//! The tetrahedral axis convention is documented once, on [`TET_AXES`]. The seed papers'
//! one-vs-one tests, as published, are in [`seeds`].

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod backend;
mod blocked;
pub mod broadphase;
pub mod cull;
mod error;
mod kernel;
mod lanes;
pub mod pairwise;
mod primitive;
mod query;
mod radix;
mod round;
mod sample;
pub mod seeds;
mod soa;
mod strategy;
mod tasks;
#[cfg(test)]
mod test_rng;

pub use backend::BACKEND_ENV;
pub use blocked::{BlockQuery, Blockable, Blocked, BlockedPinned, Optimized};
pub use error::BvError;
pub use lanes::{Backend, ParseBackendError};
pub use primitive::{
    Aabb, DownTet, Frustum, IntoPoint, Obb, Octahedron, Point, Sphere, TET_AXES, UpTet,
};
pub use query::{Conservative, HitLists, Hits, Pinned, Query};
pub use soa::{Aabbs, Container, DownTets, Obbs, Octahedra, Spheres, UpTets};
pub use strategy::{BoxStrategy, ParseBoxStrategyError, Staged};

/// The README's example, compiled and run as a doc test.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
