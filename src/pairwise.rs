//! N independent pairs, 4, 8 or 16 pairs per instruction: pair `i` is primitive `i` of one
//! container against primitive `i` of another of the same length ("vectorize the object pairs",
//! seed 004, and the batched form of Larsson's 2M-pair benchmark). What a narrow phase needs after
//! a broad phase: filter candidate pairs in bulk.
//!
//! | left | right | test |
//! |---|---|---|
//! | [`Spheres`] | [`Aabbs`] | exact sphere-box |
//! | [`Spheres`] | [`Obbs`] | exact sphere-oriented box |
//! | [`Aabbs`] | [`Aabbs`] | box-box |
//! | [`Octahedra`] | [`Octahedra`] | exact octahedron (8 comparisons and the sum condition) |
//!
//! Pair `i` gives exactly the answer of querying a one-element container holding `right[i]` with
//! `left[i]`, on every backend.
//!
//! ```
//! use bvlanes::{Aabb, Aabbs, Sphere, Spheres, pairwise};
//! let spheres = Spheres::from_slice(&[Sphere::new([0.0; 3], 1.0), Sphere::new([9.0; 3], 1.0)])?;
//! let boxes = Aabbs::from_slice(&[Aabb::new([1.0; 3], [2.0; 3]), Aabb::new([0.0; 3], [1.0; 3])])?;
//! assert_eq!(pairwise::count_overlaps(&spheres, &boxes)?, 0);
//! let near = Aabbs::from_slice(&[Aabb::new([1.0, 0.0, 0.0], [2.0; 3]), Aabb::new([9.5; 3], [10.0; 3])])?;
//! let mut overlapping = Vec::new();
//! pairwise::extend_overlaps(&spheres, &near, &mut overlapping)?;
//! assert_eq!(overlapping, [0, 1]);
//! # Ok::<(), bvlanes::BvError>(())
//! ```

use crate::error::BvError;
use crate::kernel::{AabbPairs, Kernel, OctahedronPairs, SphereAabbPairs, SphereObbPairs, run};
use crate::lanes::Backend;
use crate::query::sink;
use crate::soa::{Aabbs, Container, Obbs, Octahedra, Spheres};

/// A pair of container types that can be tested pair by pair (sealed; the table in the module
/// docs).
pub trait Pairs<B>: private::BindPairs<B> {}

mod private {
    /// Binds two containers of equal length to their pairwise kernel.
    pub trait BindPairs<B> {
        /// The kernel.
        type Kernel<'a>: crate::kernel::Kernel
        where
            Self: 'a,
            B: 'a;
        /// The kernel over `self` and `b` (lengths already checked equal).
        fn bind_pairs<'a>(&'a self, b: &'a B) -> Self::Kernel<'a>;
    }
}

macro_rules! pairs {
    ($a:ty, $b:ty, $kernel:ident, $left:ident, $right:ident) => {
        impl private::BindPairs<$b> for $a {
            type Kernel<'a> = $kernel<'a>;
            fn bind_pairs<'a>(&'a self, b: &'a $b) -> $kernel<'a> {
                $kernel {
                    $left: self.view(),
                    $right: b.view(),
                }
            }
        }
        impl Pairs<$b> for $a {}
    };
}

pairs!(Spheres, Aabbs, SphereAabbPairs, spheres, boxes);
pairs!(Spheres, Obbs, SphereObbPairs, spheres, obbs);
pairs!(Aabbs, Aabbs, AabbPairs, a, b);
pairs!(Octahedra, Octahedra, OctahedronPairs, a, b);

/// The pairwise operations pinned to one [`Backend`]; the free functions use
/// [`Backend::detect`].
///
/// ```
/// use bvlanes::{Aabb, Aabbs, Backend, pairwise};
/// let a = Aabbs::from_slice(&[Aabb::new([0.0; 3], [1.0; 3])])?;
/// for &b in Backend::available() {
///     assert_eq!(pairwise::PairsOn::new(b)?.count_overlaps(&a, &a)?, 1);
/// }
/// # Ok::<(), bvlanes::BvError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairsOn {
    backend: Backend,
}

impl PairsOn {
    /// Pins the pairwise operations to `backend`.
    ///
    /// # Errors
    /// [`BvError::BackendUnavailable`] if this CPU lacks it.
    pub fn new(backend: Backend) -> Result<PairsOn, BvError> {
        Ok(PairsOn {
            backend: backend.check()?,
        })
    }

    /// The backend the operations run on.
    #[must_use]
    pub fn backend(&self) -> Backend {
        self.backend
    }

    fn bind<'a, A: Pairs<B> + Container, B: Container>(
        a: &'a A,
        b: &'a B,
    ) -> Result<A::Kernel<'a>, BvError> {
        if a.len() == b.len() {
            Ok(a.bind_pairs(b))
        } else {
            Err(BvError::LengthMismatch {
                left: a.len(),
                right: b.len(),
            })
        }
    }

    /// Number of pairs `i` whose primitives overlap.
    ///
    /// # Errors
    /// [`BvError::LengthMismatch`] if the containers differ in length.
    pub fn count_overlaps<A: Pairs<B> + Container, B: Container>(
        &self,
        a: &A,
        b: &B,
    ) -> Result<usize, BvError> {
        let kernel = Self::bind(a, b)?;
        Ok(run(self.backend, &kernel, sink::Count(0)).0)
    }

    /// Appends the indices `i` of the overlapping pairs to `out`, ascending.
    ///
    /// # Errors
    /// [`BvError::LengthMismatch`] if the containers differ in length (`out` is unchanged).
    pub fn extend_overlaps<A: Pairs<B> + Container, B: Container>(
        &self,
        a: &A,
        b: &B,
        out: &mut Vec<u32>,
    ) -> Result<(), BvError> {
        let kernel = Self::bind(a, b)?;
        let indices = sink::Indices::new(core::mem::take(out));
        *out = run(self.backend, &kernel, indices).finish();
        Ok(())
    }

    /// Bit `i % 64` of `mask[i / 64]` set iff pair `i` overlaps; the first `len.div_ceil(64)`
    /// words are overwritten.
    ///
    /// # Errors
    /// [`BvError::LengthMismatch`] if the containers differ in length (`mask` is unchanged).
    ///
    /// # Panics
    /// If `mask` has fewer than `len.div_ceil(64)` words.
    pub fn overlap_mask<A: Pairs<B> + Container, B: Container>(
        &self,
        a: &A,
        b: &B,
        mask: &mut [u64],
    ) -> Result<(), BvError> {
        let kernel = Self::bind(a, b)?;
        let len = kernel.len();
        let words = len.div_ceil(64);
        assert!(
            mask.len() >= words,
            "overlap_mask: {len} pairs need {words} mask words, got {}",
            mask.len()
        );
        let mask = &mut mask[..words];
        mask.fill(0);
        let _ = run(self.backend, &kernel, sink::MaskWords(mask));
        Ok(())
    }
}

fn detected() -> PairsOn {
    PairsOn {
        backend: Backend::detect(),
    }
}

/// Number of pairs `i` whose primitives overlap, on [`Backend::detect`].
///
/// # Errors
/// [`BvError::LengthMismatch`] if the containers differ in length.
pub fn count_overlaps<A: Pairs<B> + Container, B: Container>(
    a: &A,
    b: &B,
) -> Result<usize, BvError> {
    detected().count_overlaps(a, b)
}

/// Appends the indices of the overlapping pairs to `out`, ascending, on [`Backend::detect`].
///
/// # Errors
/// [`BvError::LengthMismatch`] if the containers differ in length (`out` is unchanged).
pub fn extend_overlaps<A: Pairs<B> + Container, B: Container>(
    a: &A,
    b: &B,
    out: &mut Vec<u32>,
) -> Result<(), BvError> {
    detected().extend_overlaps(a, b, out)
}

/// A bitmap of the overlapping pairs, on [`Backend::detect`]; see [`PairsOn::overlap_mask`].
///
/// # Errors
/// [`BvError::LengthMismatch`] if the containers differ in length.
///
/// # Panics
/// If `mask` has fewer than `len.div_ceil(64)` words.
pub fn overlap_mask<A: Pairs<B> + Container, B: Container>(
    a: &A,
    b: &B,
    mask: &mut [u64],
) -> Result<(), BvError> {
    detected().overlap_mask(a, b, mask)
}
