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

/// `len` zeroed values, written in parallel over `threads` threads (0: the default count) when
/// there are `PARALLEL_ZERO_MIN` or more (with `rayon`): a zeroed allocation (`vec!` of zeros,
/// `calloc`) comes from fresh pages only the first time; once the allocator reuses freed
/// memory it clears the whole block on the calling thread (on Terdiman's 100,000 boxes on two
/// threads, the rows' and the cells' vectors were cleared serially while the other worker
/// waited). Written by the tasks, fresh pages are faulted in by them too.
pub(crate) fn zeroed_vec<T: bytemuck::Zeroable + Copy + Send + Sync>(
    len: usize,
    threads: usize,
) -> Vec<T> {
    #[cfg(feature = "rayon")]
    {
        let threads = threads_or_default(threads);
        if threads > 1 && len >= PARALLEL_ZERO_MIN {
            use rayon::prelude::*;
            let mut v = Vec::with_capacity(len);
            v.par_extend(
                rayon::iter::repeat_n(T::zeroed(), len).with_min_len(len.div_ceil(threads)),
            );
            return v;
        }
    }
    let _ = threads;
    bytemuck::zeroed_vec(len)
}

/// Fewest values [`zeroed_vec`] clears in parallel.
#[cfg(feature = "rayon")]
const PARALLEL_ZERO_MIN: usize = 1 << 16;

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

/// Results of one task from which [`run_tasks_into`] copies them onto `out` in parallel.
#[cfg(feature = "rayon")]
const PARALLEL_COPY_MIN: usize = 1 << 15;

/// Runs `task(item, list)` on every item, each appending its results to `list`, and appends all
/// the results to `out` in item order (so the output does not depend on the thread count). With
/// `rayon` and `threads > 1`, the calling worker takes the items from the front and appends
/// their results to `out` directly, while `threads - 1` other workers take them from the back,
/// each into a vector of its own; only those are copied onto `out` at the end (long ones in
/// parallel). Before, every task wrote a vector of its own, all copied in parallel into one of
/// their total length: on Terdiman's 100,000 boxes on two threads (the 2-vCPU Intel Xeon of
/// 2026-11-29) that join took 1.3 ms of 10.8 (each pair written twice and read once more, and a
/// reused `out` zeroed first); in one process, old/new 1.09-1.20x into a reused vector, 1.00-1.15x
/// into a new one, 1.15x on 100,000 spheres (`probe-bpab`).
pub(crate) fn run_tasks_into<I: Sync, T: Send + Sync + Copy>(
    items: &[I],
    threads: usize,
    out: &mut Vec<T>,
    task: impl Fn(&I, &mut Vec<T>) + Sync + Send,
) {
    #[cfg(feature = "rayon")]
    if items.len() > 1 && threads > 1 {
        use std::sync::{Mutex, PoisonError};
        // The items not yet taken; no lock is held while a task runs, so none is poisoned.
        let left = Mutex::new(0..items.len());
        let from_back = Mutex::new(Vec::new());
        let take_front = || left.lock().unwrap_or_else(PoisonError::into_inner).next();
        let take_back = || {
            left.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .next_back()
        };
        rayon::scope(|scope| {
            for _ in 1..threads.min(items.len()) {
                scope.spawn(|_| {
                    while let Some(t) = take_back() {
                        let mut list = Vec::new();
                        task(&items[t], &mut list);
                        from_back
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .push((t, list));
                    }
                });
            }
            while let Some(t) = take_front() {
                task(&items[t], out);
            }
        });
        let mut from_back = from_back
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        // Taken from the back, so each worker's in falling order; the workers' interleaved.
        from_back.sort_unstable_by_key(|&(t, _)| t);
        out.reserve(from_back.iter().map(|(_, list)| list.len()).sum());
        for (_, list) in from_back {
            if list.len() >= PARALLEL_COPY_MIN {
                use rayon::prelude::*;
                out.par_extend(list.par_iter().copied());
            } else {
                out.extend_from_slice(&list);
            }
        }
        return;
    }
    let _ = threads;
    for item in items {
        task(item, out);
    }
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

#[cfg(test)]
mod tests {
    use super::run_tasks_into;

    /// `run_tasks_into` appends every task's results in item order, whatever the thread count
    /// and however the tasks are split between the front and the back: tasks of every size
    /// from none to past the parallel copy's threshold, after what `out` already held.
    #[test]
    #[cfg_attr(miri, ignore = "runs a rayon pool; hundreds of thousands of values")]
    fn run_tasks_into_keeps_the_item_order() {
        let sizes = [0, 5, 1 << 15, 3, 0, (1 << 15) + 7, 100, 70_000, 1, 0];
        for items in [0, 1, 2, 3, sizes.len()] {
            let items: Vec<(usize, usize)> = sizes[..items].iter().copied().enumerate().collect();
            let task = |&(t, size): &(usize, usize), list: &mut Vec<(u32, u32)>| {
                list.extend((0..size as u32).map(|k| (t as u32, k)));
            };
            let mut want = vec![(7, 7)];
            items.iter().for_each(|item| task(item, &mut want));
            for threads in [1, 2, 3, 8] {
                let run = || {
                    let mut out = vec![(7, 7)];
                    run_tasks_into(&items, threads, &mut out, task);
                    out
                };
                #[cfg(feature = "rayon")]
                let got = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("a pool")
                    .install(run);
                #[cfg(not(feature = "rayon"))]
                let got = run();
                assert!(got == want, "{} items, {threads} threads", items.len());
            }
        }
    }
}
