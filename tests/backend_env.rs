//! `BVLANES_BACKEND` overrides `Backend::detect()`. One test in its own binary: `detect()` is
//! cached per process and the variable must be set before its first call.

use bvlanes::{BACKEND_ENV, Backend, BvError};

#[test]
fn env_var_overrides_detection_once() {
    // SAFETY: this test binary has exactly one test, so no other thread reads the environment.
    unsafe { std::env::set_var(BACKEND_ENV, "SSE") };
    assert_eq!(Backend::from_env(), Ok(Some(Backend::Sse)));
    assert_eq!(
        Backend::detect(),
        Backend::Sse,
        "the override wins over the best backend"
    );

    // Cached: later changes do not move the default backend.
    // SAFETY: as above.
    unsafe { std::env::set_var(BACKEND_ENV, "scalar") };
    assert_eq!(Backend::from_env(), Ok(Some(Backend::Scalar)));
    assert_eq!(Backend::detect(), Backend::Sse);

    // Unknown names are ignored; unavailable backends are reported by from_env.
    // SAFETY: as above.
    unsafe { std::env::set_var(BACKEND_ENV, "avx9000") };
    assert_eq!(Backend::from_env(), Ok(None));
    for b in Backend::ALL {
        // SAFETY: as above.
        unsafe { std::env::set_var(BACKEND_ENV, b.name()) };
        let expected = if b.is_available() {
            Ok(Some(b))
        } else {
            Err(BvError::BackendUnavailable { backend: b })
        };
        assert_eq!(Backend::from_env(), expected);
    }
    // SAFETY: as above.
    unsafe { std::env::remove_var(BACKEND_ENV) };
    assert_eq!(Backend::from_env(), Ok(None));
    assert_eq!(Backend::best(), *Backend::available().last().unwrap());
    assert_eq!("AvX2".parse::<Backend>(), Ok(Backend::Avx2));
    assert_eq!("AVX512".parse::<Backend>(), Ok(Backend::Avx512));
    // The AVX-512 tier's f64 lanes are the AVX2 tier's: it never runs without it.
    assert!(!Backend::Avx512.is_available() || Backend::Avx2.is_available());
    assert_eq!(Backend::Avx512.lanes(), 16);
    assert!("neon".parse::<Backend>().is_err());
}
