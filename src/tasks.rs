//! The crate's use of `rayon`: how many threads a batch may use, and running its tasks in order.
//! One place, so light assignment and the broadphase split work the same way.

/// The default thread count: every thread of rayon's current pool (with the `rayon` feature),
/// else 1.
pub(crate) fn default_threads() -> usize {
    #[cfg(feature = "rayon")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "rayon"))]
    {
        1
    }
}

/// Runs `task` on every item, in parallel with `rayon` when there is more than one, and returns
/// the results in item order (so the output does not depend on the thread count).
pub(crate) fn run_tasks<I: Sync, T: Send>(
    items: &[I],
    task: impl Fn(&I) -> T + Sync + Send,
) -> Vec<T> {
    #[cfg(feature = "rayon")]
    if items.len() > 1 {
        use rayon::prelude::*;
        return items.par_iter().map(&task).collect();
    }
    items.iter().map(task).collect()
}

/// Runs `task(i, &mut items[i])` on every item in place, in parallel with `rayon` when there is
/// more than one (allocating nothing).
pub(crate) fn run_tasks_mut<I: Send>(items: &mut [I], task: impl Fn(usize, &mut I) + Sync + Send) {
    #[cfg(feature = "rayon")]
    if items.len() > 1 {
        use rayon::prelude::*;
        items
            .par_iter_mut()
            .enumerate()
            .for_each(|(i, item)| task(i, item));
        return;
    }
    items
        .iter_mut()
        .enumerate()
        .for_each(|(i, item)| task(i, item));
}

/// Runs `f` on a thread of rayon's pool (the current one if it is one; else the caller blocks
/// once until `f` returns), so that the parallel calls inside `f` start from a worker: from
/// outside the pool each of them would wake the blocked caller when it ends (on the project's
/// VM about a tenth of a millisecond each, half a `many_lights` frame for two of them).
pub(crate) fn on_pool(f: impl FnOnce() + Send) {
    #[cfg(feature = "rayon")]
    rayon::scope(|_| f());
    #[cfg(not(feature = "rayon"))]
    f();
}

/// The value in `m`, taken (poisoning cannot happen: see [`join_fixed`]).
#[cfg(feature = "rayon")]
fn take<T>(m: &std::sync::Mutex<Option<T>>) -> Option<T> {
    m.lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// Runs `a` on worker 0 and `b` on worker 1 of a pool of two threads (else as [`join`]): the
/// same worker each call, so data each one writes stays in its core's caches from one call to
/// the next.
pub(crate) fn join_fixed(a: impl FnOnce() + Send, b: impl FnOnce() + Send) {
    #[cfg(feature = "rayon")]
    if rayon::current_num_threads() == 2 && rayon::current_thread_index().is_some() {
        use std::sync::Mutex;
        let (a, b) = (Mutex::new(Some(a)), Mutex::new(Some(b)));
        // Each closure is taken once, by its worker; a lock is never held while one runs, so
        // none is ever poisoned.
        rayon::broadcast(|ctx| {
            if ctx.index() == 0 {
                if let Some(a) = take(&a) {
                    a();
                }
            } else if let Some(b) = take(&b) {
                b();
            }
        });
        return;
    }
    join(a, b);
}

/// Runs `a` and `b`, in parallel with `rayon`.
pub(crate) fn join(a: impl FnOnce() + Send, b: impl FnOnce() + Send) {
    #[cfg(feature = "rayon")]
    rayon::join(a, b);
    #[cfg(not(feature = "rayon"))]
    {
        a();
        b();
    }
}
