//! Queries: which query types run against which containers ([`Query`]), the [`Conservative`]
//! wrapper, the backend-pinned view [`Pinned`] that runs them, the containers' query methods
//! (`methods.rs`), the stage counts of the AABO readme (`stages.rs`) and the [`Hits`] iterator.

mod many;
mod methods;
mod pairs;
pub(crate) use pairs::{aabbs_vs_sphere, sphere_reach, sphere_reach_box};
pub(crate) mod sink;
mod stages;

pub use many::HitLists;

use crate::kernel::Prepared;
use crate::lanes::Backend;
use crate::soa::Container;

/// A query type `Self` that can be tested against every primitive of container `C`.
///
/// Implemented for the supported pairs only (the table in the crate docs); sealed. The methods that
/// run a query are on the containers and on [`Pinned`]: `hits`, `count_hits`, `any_hit`,
/// `extend_hits`, `hit_mask`.
///
/// A query that contains NaN, or that is empty (an inverted box, a sphere with a negative radius,
/// a tetrahedron that encloses nothing, a point or sphere centre at infinity), hits nothing.
/// Infinite bounds are fine: a sphere of infinite radius hits everything, a box with infinite
/// bounds is the slab or half-space it describes.
pub trait Query<C>: private::Bind<C> + Sync {}

pub(crate) mod private {
    /// The sealed machinery of [`Query`](super::Query): screen the query, bind it to a container.
    pub trait Bind<C> {
        /// The kernel this query runs on `C`.
        type Kernel<'a>: crate::kernel::Prepared
        where
            C: 'a;
        /// `None` when the query hits nothing whatever the container holds (NaN, empty).
        fn bind<'a>(&self, container: &'a C) -> Option<Self::Kernel<'a>>;
    }
}

/// Selects the cheaper test of a query that may report false positives but never a false
/// negative.
///
/// * `Conservative(sphere)` against [`Aabbs`](crate::Aabbs): Larsson's quick-rejection test only
///   (the sphere's bounding box, rounded outward and widened by `2^-20` of the radius plus
///   `2^-74`, so it also contains every hit of the exact f32 test).
/// * `Conservative(octahedron)` against [`Octahedra`](crate::Octahedra): the eight-comparison
///   8-DOP test of the AABO readme, without the sum condition.
/// * Against every other container, the exact test (there is no cheaper one).
///
/// ```
/// use bvlanes::{Aabb, Aabbs, Conservative, Sphere};
/// let boxes = Aabbs::from_slice(&[Aabb::new([1.0, 1.0, 1.0], [2.0, 2.0, 2.0])]).unwrap();
/// let s = Sphere::new([0.0, 0.0, 0.0], 1.5); // reaches the box's corner region, not the box
/// assert_eq!(boxes.count_hits(&s), 0);
/// assert_eq!(boxes.count_hits(&Conservative(s)), 1); // a false positive, allowed
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Conservative<Q>(pub Q);

/// A container with its queries pinned to one [`Backend`]: the same query methods as the container,
/// run on that tier. Made by `with_backend` on any container.
///
/// ```
/// use bvlanes::{Aabb, Aabbs, Backend};
/// let boxes = Aabbs::from_slice(&[Aabb::new([0.0; 3], [1.0; 3])]).unwrap();
/// for &b in Backend::available() {
///     assert_eq!(boxes.with_backend(b).unwrap().count_hits(&[0.5, 0.5, 0.5]), 1);
/// }
/// ```
#[derive(Debug)]
pub struct Pinned<'a, C> {
    container: &'a C,
    backend: Backend,
    /// Threads of the batched methods; 0: every thread of rayon's current pool.
    threads: usize,
}

impl<C> Clone for Pinned<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for Pinned<'_, C> {}

impl<'a, C: Container> Pinned<'a, C> {
    /// Pins `container` to `backend`.
    ///
    /// # Errors
    /// [`BvError::BackendUnavailable`](crate::BvError::BackendUnavailable) if this CPU lacks it.
    pub fn new(container: &'a C, backend: Backend) -> Result<Self, crate::error::BvError> {
        Ok(Pinned {
            container,
            backend: backend.check()?,
            threads: 0,
        })
    }

    /// The same view with its batched methods (`count_hits_many`, `hits_many`, ...) splitting a
    /// batch over at most `threads` threads (`0` or `1`: the calling thread only). The default is
    /// every thread of rayon's current pool with the `rayon` feature (on by default), one
    /// without. The answers are the same whatever the count; the one-query methods always run on
    /// the calling thread. The tasks run on the rayon pool the call is made from.
    ///
    /// ```
    /// use bvlanes::{Aabb, Aabbs, Backend};
    /// let boxes = Aabbs::from_slice(&[Aabb::new([0.0; 3], [1.0; 3])])?;
    /// let one = boxes.with_backend(Backend::Scalar)?.with_threads(1);
    /// assert_eq!(one.threads(), 1);
    /// assert_eq!(one.count_hits_many(&[[0.5; 3], [2.0; 3]]), [1, 0]);
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// The threads a batch may use: as set by [`with_threads`](Pinned::with_threads), else the
    /// current rayon pool's (1 without the `rayon` feature).
    #[must_use]
    pub fn threads(&self) -> usize {
        crate::tasks::threads_or_default(self.threads)
    }

    /// The backend queries run on.
    #[must_use]
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The container.
    #[must_use]
    pub fn container(&self) -> &'a C {
        self.container
    }

    /// Number of primitives hit by `query`.
    #[must_use]
    pub fn count_hits<Q: Query<C>>(&self, query: &Q) -> usize {
        let Some(kernel) = query.bind(self.container) else {
            return 0;
        };
        kernel.run(self.backend, sink::Count(0)).0
    }

    /// Whether `query` hits any primitive (stops at the first hit block).
    #[must_use]
    pub fn any_hit<Q: Query<C>>(&self, query: &Q) -> bool {
        let Some(kernel) = query.bind(self.container) else {
            return false;
        };
        kernel.run(self.backend, sink::Any(false)).0
    }

    /// Appends the indices of the primitives hit by `query` to `out`, ascending.
    ///
    /// Before it starts, it makes room in `out` for every primitive being a hit (the most one
    /// query can add), so the loop never stops to grow it: a reused `out` allocates only while
    /// its capacity is below the container's length.
    pub fn extend_hits<Q: Query<C>>(&self, query: &Q, out: &mut Vec<u32>) {
        let Some(kernel) = query.bind(self.container) else {
            return;
        };
        let sink = sink::Indices::new(core::mem::take(out));
        *out = kernel.run(self.backend, sink).finish();
    }

    /// The indices of the primitives hit by `query`, ascending. Computed eagerly (into a `Vec`)
    /// when called; the iterator then owns them.
    #[must_use]
    pub fn hits<Q: Query<C>>(&self, query: &Q) -> Hits {
        let mut out = Vec::new();
        self.extend_hits(query, &mut out);
        // `extend_hits` reserved a slot per primitive; a few hits do not keep all of it.
        Hits::from_vec(out)
    }

    /// Writes a bitmap of the hits: bit `i % 64` of `mask[i / 64]` is set iff primitive `i` is hit.
    /// The first `len().div_ceil(64)` words are overwritten (bits past `len()` cleared); later words
    /// are left alone.
    ///
    /// # Panics
    /// If `mask` has fewer than `len().div_ceil(64)` words.
    pub fn hit_mask<Q: Query<C>>(&self, query: &Q, mask: &mut [u64]) {
        let mask = mask_words(self.container.len(), mask);
        if let Some(kernel) = query.bind(self.container) {
            let _ = kernel.run(self.backend, sink::MaskWords(mask));
        }
    }
}

/// The first `len.div_ceil(64)` words of `mask`, cleared: what `hit_mask` writes into.
///
/// # Panics
/// If `mask` is shorter.
pub(crate) fn mask_words(len: usize, mask: &mut [u64]) -> &mut [u64] {
    let words = len.div_ceil(64);
    assert!(
        mask.len() >= words,
        "hit_mask: a container of {len} primitives needs {words} mask words, got {}",
        mask.len()
    );
    let mask = &mut mask[..words];
    mask.fill(0);
    mask
}

/// The indices hit by a query, ascending (from `hits`).
#[derive(Clone, Debug)]
pub struct Hits(std::vec::IntoIter<u32>);

impl Hits {
    /// The hits `v` (ascending), shrunk when they hold far less than their capacity.
    pub(crate) fn from_vec(mut v: Vec<u32>) -> Hits {
        if v.capacity() > 2 * v.len() + 64 {
            v.shrink_to_fit();
        }
        Hits(v.into_iter())
    }
}

impl Iterator for Hits {
    type Item = u32;
    #[inline]
    fn next(&mut self) -> Option<u32> {
        self.0.next()
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Hits {
    #[inline]
    fn next_back(&mut self) -> Option<u32> {
        self.0.next_back()
    }
}

impl ExactSizeIterator for Hits {}
impl core::iter::FusedIterator for Hits {}
