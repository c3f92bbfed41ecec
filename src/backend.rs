//! Choosing a [`Backend`]: the default ([`Backend::detect`], overridden by `BVLANES_BACKEND`) and
//! the checks that report an unavailable one as a [`BvError`]. The tiers themselves, and which of
//! them this CPU runs, are the ISA layer's (`src/lanes/backend.rs`).

use crate::error::BvError;
use crate::lanes::Backend;
use std::sync::OnceLock;

/// Name of the environment variable that overrides [`Backend::detect`].
pub const BACKEND_ENV: &str = "BVLANES_BACKEND";

impl Backend {
    /// The backend queries use by default: the fastest one this CPU runs, unless the environment
    /// variable `BVLANES_BACKEND` (`scalar`, `sse`, `avx2` or `avx512`) names another available
    /// one.
    ///
    /// Decided once per process and cached. An unknown name or a backend this CPU lacks in the
    /// variable is ignored (the fastest available backend is used); use
    /// [`Backend::from_env`] to see what the variable says.
    #[must_use]
    pub fn detect() -> Backend {
        static DETECTED: OnceLock<Backend> = OnceLock::new();
        *DETECTED.get_or_init(|| match Backend::from_env() {
            Ok(Some(b)) if b.is_available() => b,
            _ => Backend::best(),
        })
    }

    /// What `BVLANES_BACKEND` asks for: `Ok(None)` when it is unset or names no backend
    /// (see [`Backend::from_str`](core::str::FromStr::from_str) for the accepted names).
    ///
    /// # Errors
    /// [`BvError::BackendUnavailable`] when it names a backend this CPU lacks.
    pub fn from_env() -> Result<Option<Backend>, BvError> {
        let Ok(value) = std::env::var(BACKEND_ENV) else {
            return Ok(None);
        };
        match value.trim().parse::<Backend>() {
            Ok(b) if b.is_available() => Ok(Some(b)),
            Ok(b) => Err(BvError::BackendUnavailable { backend: b }),
            Err(_) => Ok(None),
        }
    }

    /// `Ok(self)` if it runs here, else [`BvError::BackendUnavailable`].
    ///
    /// # Errors
    /// [`BvError::BackendUnavailable`] when this CPU lacks the backend.
    pub fn check(self) -> Result<Backend, BvError> {
        if self.is_available() {
            Ok(self)
        } else {
            Err(BvError::BackendUnavailable { backend: self })
        }
    }
}
