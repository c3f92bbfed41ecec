//! [`Backend`]: the instruction-set tiers, which of them this CPU runs, and their names.
//!
//! The choice of a default (`Backend::detect`, the `BVLANES_BACKEND` variable) and the checks that
//! return a [`BvError`](crate::BvError) are in `src/backend.rs`, above the error type; this file
//! knows only the tiers.

use core::fmt;
use core::str::FromStr;
use std::sync::OnceLock;

/// An instruction-set tier that runs the query kernels.
///
/// Every tier computes bit-identical answers: they run the same generic kernel body with the same
/// float operations in the same order, only the number of lanes differs.
///
/// ```
/// use bvlanes::Backend;
/// // Scalar and Sse run everywhere; Avx2 and Avx512 only where the CPU has them.
/// assert!(Backend::available().contains(&Backend::Scalar));
/// assert!(Backend::detect().is_available());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Backend {
    /// One lane at a time, plain Rust. Runs everywhere. "One lane" describes the source: the
    /// compiler may still auto-vectorise it with the build's baseline instruction set (SSE2 on
    /// x86_64), which keeps it bit-identical to the other tiers. For a truly one-at-a-time
    /// baseline, the benchmarks use Arvo's branchy scalar test.
    Scalar,
    /// Four lanes with [`wide::f32x4`]: SSE2 on x86_64, NEON on aarch64, simd128 on wasm (and
    /// `wide`'s portable fallback elsewhere). Runs everywhere.
    Sse,
    /// Eight lanes with `core::arch::x86_64` AVX2 intrinsics, selected at run time on x86_64 CPUs
    /// with AVX2, FMA and POPCNT.
    Avx2,
    /// Sixteen lanes (one whole chunk) with `core::arch::x86_64` AVX-512F intrinsics, selected at
    /// run time on x86_64 CPUs with AVX-512F, AVX2, FMA and POPCNT. Its f64 lanes (the froxel
    /// rows of light culling) are the AVX2 tier's four.
    Avx512,
}

impl Backend {
    /// Every backend this build knows, slowest first.
    pub const ALL: [Backend; 4] = [
        Backend::Scalar,
        Backend::Sse,
        Backend::Avx2,
        Backend::Avx512,
    ];

    /// The fastest backend this CPU runs, ignoring the environment.
    #[must_use]
    pub fn best() -> Backend {
        *Backend::available()
            .last()
            .expect("Scalar is always available")
    }

    /// The backends that run on this CPU, slowest first. Always starts with `Scalar, Sse`.
    #[must_use]
    pub fn available() -> &'static [Backend] {
        static AVAILABLE: OnceLock<Vec<Backend>> = OnceLock::new();
        AVAILABLE.get_or_init(|| {
            Backend::ALL
                .into_iter()
                .filter(|b| b.is_available())
                .collect()
        })
    }

    /// Whether this backend runs on this CPU.
    #[must_use]
    #[inline]
    pub fn is_available(self) -> bool {
        match self {
            Backend::Scalar | Backend::Sse => true,
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => super::avx2::is_available(),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => super::avx512::is_available(),
            #[cfg(not(target_arch = "x86_64"))]
            Backend::Avx2 | Backend::Avx512 => false,
        }
    }

    /// Lanes per instruction: 1, 4, 8 or 16.
    #[must_use]
    pub const fn lanes(self) -> usize {
        match self {
            Backend::Scalar => 1,
            Backend::Sse => 4,
            Backend::Avx2 => 8,
            Backend::Avx512 => 16,
        }
    }

    /// The lowercase name used by `BVLANES_BACKEND` and [`Display`](fmt::Display).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Backend::Scalar => "scalar",
            Backend::Sse => "sse",
            Backend::Avx2 => "avx2",
            Backend::Avx512 => "avx512",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a [`Backend`] from a string that names none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseBackendError(pub String);

impl fmt::Display for ParseBackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown backend {:?} (expected scalar, sse, avx2 or avx512)",
            self.0
        )
    }
}

impl std::error::Error for ParseBackendError {}

impl FromStr for Backend {
    type Err = ParseBackendError;

    /// Parses `scalar`, `sse`, `avx2` or `avx512`, ignoring ASCII case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Backend::ALL
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| ParseBackendError(s.to_owned()))
    }
}
