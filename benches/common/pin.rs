//! Pins rayon's global pool for the timings: one worker per core id, worker `i` pinned to core
//! `i` (`core_affinity`).
//!
//! Why: on the project's VM a woken rayon worker is first placed on the waker's (busy) CPU, and
//! the idle CPU pulls it over only several milliseconds later. A light assignment frame takes
//! 1-3 ms, so unpinned "all threads" rows measured about 1.0x of one thread; with the workers
//! pinned, each starts at once on its own core. Used by the `lights` criterion benchmark and the
//! `bvlanes-bench` binary, never by the library.

/// How rayon's global pool was set up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pinning {
    /// Built with this many workers, worker `i` pinned to core `i`.
    Pinned(usize),
    /// Rayon's default pool (unpinned), for this reason.
    Unpinned(String),
}

impl Pinning {
    /// One line for a report header.
    pub fn describe(&self) -> String {
        match self {
            Pinning::Pinned(n) => format!("pinned, worker i to core i ({n} workers)"),
            Pinning::Unpinned(why) => format!("not pinned ({why})"),
        }
    }
}

/// Builds rayon's global pool with one worker per core id, worker `i` pinned to core `i`.
///
/// Must run before anything uses the global pool (`ClusterGrid`'s default thread count reads
/// it). Nothing is built if the core ids are unknown or a probe thread cannot be pinned to every
/// one of them: then rayon's default pool is used and the reason returned.
#[cfg(feature = "rayon")]
pub fn pin_global_pool() -> Pinning {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    let ids = match core_affinity::get_core_ids() {
        Some(ids) if !ids.is_empty() => ids,
        _ => return Pinning::Unpinned("the core ids are not available".to_owned()),
    };
    // Probe on a scratch thread (pinning the calling thread would stay): every core must take it.
    let probe = ids.clone();
    let pinnable =
        std::thread::spawn(move || probe.iter().all(|&id| core_affinity::set_for_current(id)))
            .join()
            .unwrap_or(false);
    if !pinnable {
        return Pinning::Unpinned("setting the thread affinity failed".to_owned());
    }
    let n = ids.len();
    let failed = Arc::new(AtomicUsize::new(0));
    let f = Arc::clone(&failed);
    let built = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(|i| format!("rayon-pinned-{i}"))
        .start_handler(move |i| {
            if !core_affinity::set_for_current(ids[i]) {
                f.fetch_add(1, Ordering::Relaxed);
            }
        })
        .build_global();
    if let Err(e) = built {
        return Pinning::Unpinned(format!("rayon's global pool already exists: {e}"));
    }
    // Every worker has run its start handler once it has run a broadcast job.
    rayon::broadcast(|_| ());
    match failed.load(Ordering::Relaxed) {
        0 => Pinning::Pinned(n),
        k => Pinning::Unpinned(format!(
            "{k} of {n} workers could not be pinned, the rest are"
        )),
    }
}

/// Without the `rayon` feature the assignment runs on the calling thread: nothing to pin.
#[cfg(not(feature = "rayon"))]
pub fn pin_global_pool() -> Pinning {
    Pinning::Unpinned("built without the `rayon` feature: one thread".to_owned())
}
