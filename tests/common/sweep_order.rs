//! The documented order of a sweep's pairs, checked: shared by `tests/suite/broadphase.rs` and the
//! `broadphase` fuzz target (`fuzz/fuzz_targets/broadphase.rs` includes this file by path).
#![allow(dead_code)]

/// A box's place in the sweep: `(min along the axis, set, index)`, compared as floats (so
/// `-0.0 == 0.0`), then by set, then by index.
pub type Key = (f32, u32, u32);

/// The order of two keys (the mins are finite).
pub fn key_cmp(p: &Key, q: &Key) -> core::cmp::Ordering {
    p.0.partial_cmp(&q.0)
        .expect("finite")
        .then(p.1.cmp(&q.1))
        .then(p.2.cmp(&q.2))
}

/// Asserts that `pairs` come in the documented sweep order: each pair is `(first, second)` by
/// box keys, and the sequence of `(first, second)` is strictly increasing (grouped by the first
/// box in key order, within a group by the second box in key order).
pub fn assert_sweep_order(
    what: &str,
    pairs: &[(u32, u32)],
    keys: impl Fn(&(u32, u32)) -> (Key, Key),
) {
    let ordered = |p: &(u32, u32)| {
        let (x, y) = keys(p);
        if key_cmp(&x, &y).is_le() {
            (x, y)
        } else {
            (y, x)
        }
    };
    for (k, w) in pairs.windows(2).enumerate() {
        let (p, q) = (ordered(&w[0]), ordered(&w[1]));
        assert!(
            key_cmp(&p.0, &q.0).then(key_cmp(&p.1, &q.1)).is_lt(),
            "{what}: pairs {k} and {}, {:?} then {:?}, are not in sweep order: (first, second) \
             box keys (min along the axis, set, index) {p:?} then {q:?}",
            k + 1,
            w[0],
            w[1]
        );
    }
}
