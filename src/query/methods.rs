//! The query methods of every container: `with_backend`, and `count_hits`, `any_hit`,
//! `extend_hits`, `hits`, `hit_mask` and the batched `count_hits_many`, `hits_many`,
//! `hits_many_into`, `for_each_hit_many` on [`Backend::detect`] (each forwards to [`Pinned`]).

use super::{HitLists, Hits, Pinned, Query};
use crate::error::BvError;
use crate::lanes::Backend;
use crate::soa::{Aabbs, DownTets, Obbs, Octahedra, Spheres, UpTets};

/// Stamps the query methods on each container.
macro_rules! query_methods {
    ($($name:ident),* $(,)?) => {$(
        impl $name {
            /// The same query methods, pinned to `backend` (tests and benchmarks use it to run
            /// every tier side by side).
            ///
            /// # Errors
            /// [`BvError::BackendUnavailable`] if this CPU lacks `backend`.
            pub fn with_backend(&self, backend: Backend) -> Result<Pinned<'_, Self>, BvError> {
                Pinned::new(self, backend)
            }

            #[inline]
            pub(super) fn detected(&self) -> Pinned<'_, Self> {
                Pinned::new(self, Backend::detect()).expect("the detected backend is available")
            }

            /// Number of primitives hit by `query` (on [`Backend::detect`]).
            #[must_use]
            pub fn count_hits<Q: Query<Self>>(&self, query: &Q) -> usize {
                self.detected().count_hits(query)
            }

            /// Whether `query` hits any primitive; stops at the first hit.
            #[must_use]
            pub fn any_hit<Q: Query<Self>>(&self, query: &Q) -> bool {
                self.detected().any_hit(query)
            }

            /// Appends the indices of the primitives hit by `query` to `out`, ascending (room
            /// for a hit per primitive is reserved first; see [`Pinned::extend_hits`]).
            pub fn extend_hits<Q: Query<Self>>(&self, query: &Q, out: &mut Vec<u32>) {
                self.detected().extend_hits(query, out)
            }

            /// The indices of the primitives hit by `query`, ascending (computed eagerly).
            #[must_use]
            pub fn hits<Q: Query<Self>>(&self, query: &Q) -> Hits {
                self.detected().hits(query)
            }

            /// Number of primitives hit by each query of `queries` (on [`Backend::detect`]); see
            /// [`Pinned::count_hits_many`].
            #[must_use]
            pub fn count_hits_many<Q: Query<Self>>(&self, queries: &[Q]) -> Vec<u32> {
                self.detected().count_hits_many(queries)
            }

            /// The hits of each query of `queries`, as CSR lists; see [`Pinned::hits_many`].
            ///
            /// # Panics
            /// If the batch has more than `u32::MAX` hits in all.
            #[must_use]
            pub fn hits_many<Q: Query<Self>>(&self, queries: &[Q]) -> HitLists {
                self.detected().hits_many(queries)
            }

            /// The hits of each query of `queries` into `out` (its buffers reused); see
            /// [`Pinned::hits_many_into`].
            ///
            /// # Panics
            /// If the batch has more than `u32::MAX` hits in all.
            pub fn hits_many_into<Q: Query<Self>>(&self, queries: &[Q], out: &mut HitLists) {
                self.detected().hits_many_into(queries, out)
            }

            /// Calls `f(query, primitive)` for every hit of every query, in (query, primitive)
            /// order; see [`Pinned::for_each_hit_many`].
            ///
            /// # Panics
            /// If the batch has more than `u32::MAX` hits in all.
            pub fn for_each_hit_many<Q: Query<Self>>(&self, queries: &[Q], f: impl FnMut(u32, u32)) {
                self.detected().for_each_hit_many(queries, f)
            }

            /// Bit `i % 64` of `mask[i / 64]` set iff primitive `i` is hit; see
            /// [`Pinned::hit_mask`].
            ///
            /// # Panics
            /// If `mask.len() < len().div_ceil(64)`.
            pub fn hit_mask<Q: Query<Self>>(&self, query: &Q, mask: &mut [u64]) {
                self.detected().hit_mask(query, mask)
            }
        }
    )*};
}

query_methods!(Spheres, Aabbs, UpTets, DownTets, Octahedra, Obbs);
