//! [`dispatch`]: the one `match` on the backend. Every batch of the crate goes through it.

use super::{Backend, WithLanes};

/// Runs `job` on `backend`'s tier: one `match`, then the whole job on that tier (inside its
/// `#[target_feature]` entry point for the x86 tiers, so the job is compiled with its
/// instructions). A new tier is one file under `lanes/` and one arm here.
///
/// # Panics
/// If `backend` does not run on this CPU. Callers obtain backends through [`Backend::check`] or
/// [`Backend::detect`], so this is a bug guard, not a user-facing path.
#[inline]
pub(crate) fn dispatch<J: WithLanes>(backend: Backend, job: J) -> J::Output {
    match backend {
        Backend::Scalar => super::scalar::run(job),
        Backend::Sse => super::sse::run(job),
        // The availability asserts stay inside the arms that need them: hoisted above the
        // `match`, `Backend::is_available` was compiled as a call on every scalar and SSE query.
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2 => {
            assert!(
                super::avx2::is_available(),
                "avx2 backend used on a CPU without it"
            );
            // SAFETY: the assert above checked that this CPU has AVX2, FMA and POPCNT, the
            // features `avx2::run` is compiled with.
            unsafe { super::avx2::run(job) }
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512 => {
            assert!(
                super::avx512::is_available(),
                "avx512 backend used on a CPU without it"
            );
            // SAFETY: the assert above checked that this CPU has AVX-512F, AVX2, FMA and POPCNT,
            // the features `avx512::run` is compiled with.
            unsafe { super::avx512::run(job) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        Backend::Avx2 | Backend::Avx512 => {
            unreachable!("the {backend} backend is never available off x86_64")
        }
    }
}
