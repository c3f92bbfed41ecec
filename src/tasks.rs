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

/// `threads`, or the default count ([`default_threads`]) for 0: how every thread count the
/// crate takes is read.
#[inline]
pub(crate) fn threads_or_default(threads: usize) -> usize {
    if threads == 0 {
        default_threads()
    } else {
        threads
    }
}

/// The items per task when `items` are split over `threads` threads (0: the default count) into
/// a few tasks per thread, each of at least `min` items (all of them in one task when the split
/// would not pay, or on one thread). At least 1.
pub(crate) fn chunks_per_task(items: usize, min: usize, threads: usize) -> usize {
    let threads = threads_or_default(threads);
    if threads <= 1 || items < 2 * min {
        return items.max(1);
    }
    items.div_ceil(threads.saturating_mul(4)).max(min)
}

/// `items` cut into the stretches of a step's tasks ([`chunks_per_task`]: one stretch when the
/// split does not pay or on one thread), and the items per stretch (the last may hold fewer).
pub(crate) fn stretches(
    items: usize,
    min: usize,
    threads: usize,
) -> (usize, Vec<core::ops::Range<usize>>) {
    let per_task = chunks_per_task(items, min, threads);
    let stretches = (0..items)
        .step_by(per_task)
        .map(|c| c..(c + per_task).min(items))
        .collect();
    (per_task, stretches)
}

/// Fills `items` a stretch at a time, `fill(first, stretch)` with `first` the stretch's first
/// index: stretches of whole groups of `align` items, at least `min` groups each
/// ([`chunks_per_task`]), in parallel over `threads` threads (0: the default count). One
/// stretch on one thread or when the split would not pay.
pub(crate) fn fill_in_stretches<T: Send>(
    items: &mut [T],
    align: usize,
    min: usize,
    threads: usize,
    fill: impl Fn(usize, &mut [T]) + Sync + Send,
) {
    let per_task = chunks_per_task(items.len().div_ceil(align), min, threads) * align;
    let mut stretches: Vec<&mut [T]> = items.chunks_mut(per_task).collect();
    run_tasks_mut(&mut stretches, |t, stretch| fill(t * per_task, stretch));
}

/// `(a(), b())`: the two in parallel with `rayon` when `parallel`, else one after the other.
pub(crate) fn join_two<A: Send, B: Send>(
    parallel: bool,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    #[cfg(feature = "rayon")]
    if parallel {
        return rayon::join(a, b);
    }
    let _ = parallel;
    (a(), b())
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

/// Runs `a` and `b` as [`join`] does, but each of the two sides of the join runs the part its
/// worker prefers if that part is still there: worker 0 (of an even index) `a`, worker 1 (odd)
/// `b`, so that with two workers each part lands on the same worker call after call and the
/// data it writes stays in that core's caches. Unlike `rayon::broadcast`, it never waits for a
/// busy worker: a side not stolen runs on the calling worker, taking whichever part is left.
pub(crate) fn join_fixed(a: impl FnOnce() + Send, b: impl FnOnce() + Send) {
    #[cfg(feature = "rayon")]
    {
        use std::sync::Mutex;
        let (a, b) = (Mutex::new(Some(a)), Mutex::new(Some(b)));
        // Each side takes exactly one part (there are two of each); a lock is never held while
        // a part runs, so none is ever poisoned.
        let side = || {
            let prefers_b = rayon::current_thread_index().is_some_and(|i| i % 2 == 1);
            if prefers_b {
                match take(&b) {
                    Some(b) => b(),
                    None => take(&a).into_iter().for_each(|a| a()),
                }
            } else {
                match take(&a) {
                    Some(a) => a(),
                    None => take(&b).into_iter().for_each(|b| b()),
                }
            }
        };
        rayon::join(side, side);
    }
    #[cfg(not(feature = "rayon"))]
    {
        a();
        b();
    }
}
