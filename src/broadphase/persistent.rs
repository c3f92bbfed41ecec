//! [`SweepAndPrune`]: the pair set kept from frame to frame, recomputed only around the boxes
//! that moved.

use super::Sweep;
use super::sorted::{Row, Shape, SortedBoxes, box_rows, order_key, sweep_order};
use super::sweep::window_scan;
use crate::lanes::{Lanes, WithLanes, dispatch};
use crate::radix::radix_sort;
use crate::round::{extent_up, f32_at_most, reach_down};
use crate::soa::Aabbs;

/// Above this share of moved boxes an update recomputes everything (one in eight).
const MOVED_SHARE_FOR_FULL: usize = 8;

/// The overlapping pairs of a set of boxes that changes from frame to frame (temporal
/// coherence, seed 002).
///
/// [`update`](Self::update) takes this frame's boxes (box `i` is the same object in every
/// frame) and returns every overlapping pair `(i, j)`, `i < j`, once, **ascending** — the same set
/// as [`Sweep::complete_pairs`], in `(i, j)` order. When the number of boxes is unchanged and at
/// most one box in eight moved (any change of its bounds), only the pairs of the moved boxes are
/// recomputed: the old pairs between unmoved boxes stand, each moved box is tested against the
/// boxes whose min x lies within the widest box of its own, and the sorted order is repaired by
/// insertion sort from the previous frame's. Otherwise the whole set is swept again.
/// [`added`](Self::added) and [`removed`](Self::removed) give the difference from the previous
/// update.
///
/// ```
/// use bvlanes::broadphase::{Sweep, SweepAndPrune};
/// use bvlanes::{Aabb, Aabbs};
/// let mut sap = SweepAndPrune::new(Sweep::new());
/// let mut boxes = vec![Aabb::new([0.0; 3], [1.0; 3]), Aabb::new([3.0; 3], [4.0; 3])];
/// assert_eq!(sap.update(&Aabbs::from_slice(&boxes)?), []);
/// boxes[1] = Aabb::new([0.5; 3], [1.5; 3]); // box 1 moves onto box 0
/// assert_eq!(sap.update(&Aabbs::from_slice(&boxes)?), [(0, 1)]);
/// assert_eq!(sap.added(), [(0, 1)]);
/// assert_eq!(sap.removed(), []);
/// # Ok::<(), bvlanes::BvError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct SweepAndPrune {
    sweep: Sweep,
    /// The sweep axis (0, 1, 2) of the last full sweep, kept by incremental updates.
    axis: usize,
    /// Last frame's boxes, by index, as rows along `axis`.
    rows: Vec<Row>,
    /// Last frame's sorted order (original indices in ascending (min x, index) order).
    order: Vec<u32>,
    /// Last frame's pairs, ascending.
    pairs: Vec<(u32, u32)>,
    /// The buffer of the frame before last's pairs, reused for the next merge.
    spare: Vec<(u32, u32)>,
    added: Vec<(u32, u32)>,
    removed: Vec<(u32, u32)>,
}

impl SweepAndPrune {
    /// An empty structure sweeping with `sweep`'s backend and threads.
    #[must_use]
    pub fn new(sweep: Sweep) -> SweepAndPrune {
        SweepAndPrune {
            sweep,
            ..SweepAndPrune::default()
        }
    }

    /// This frame's pairs (see the [type docs](Self)).
    pub fn update(&mut self, boxes: &Aabbs) -> &[(u32, u32)] {
        // The axis stays while updates are incremental; a full sweep chooses it again.
        let mut rows = box_rows(boxes, self.axis, self.sweep.threads());
        // The moved boxes, and in the same pass the largest x extent of any box, rounded up
        // (the windows' reach, see `moved_pairs`).
        let mut moved = Vec::new();
        let mut widest = 0.0f64;
        if rows.len() == self.rows.len() {
            for (i, (row, old)) in rows.iter().zip(&self.rows).enumerate() {
                widest = widest.max(extent_up(row[0], row[3]));
                if row != old {
                    moved.push(i as u32);
                }
            }
        }
        let incremental = rows.len() == self.rows.len()
            && moved.len() * MOVED_SHARE_FOR_FULL <= rows.len()
            && self.order.len() == rows.len();
        let old = core::mem::take(&mut self.pairs);
        if incremental {
            let keys = |i: u32| order_key(rows[i as usize][0]);
            self.order =
                repair_order(core::mem::take(&mut self.order), keys).unwrap_or_else(|| {
                    radix_sort(&(0..rows.len() as u32).map(keys).collect::<Vec<_>>())
                });
            let set = SortedBoxes::from_order(Shape::Boxes, false, &rows, self.order.clone());
            // One bit per box (a bit set stays in the L1 cache through the merge's pass over
            // every pair, where a `bool` per box of 100,000 did not).
            let mut moved_bits = vec![0u64; rows.len().div_ceil(64)];
            for &m in &moved {
                moved_bits[m as usize / 64] |= 1 << (m % 64);
            }
            let is_moved = |i: u32| moved_bits[i as usize / 64] >> (i % 64) & 1 != 0;
            let fresh = self.moved_pairs(&set, &rows, &moved, widest, is_moved);
            let touches = |&(i, j): &(u32, u32)| is_moved(i) | is_moved(j);
            // The kept pairs merged with the fresh ones into last-but-one frame's buffer (no new
            // memory for the pairs in a steady loop), the stale ones set aside, in one pass.
            let mut pairs = core::mem::take(&mut self.spare);
            let stale = merge_kept(&old, &fresh, touches, &mut pairs);
            self.pairs = pairs;
            self.spare = old;
            self.added = difference(&fresh, &stale);
            self.removed = difference(&stale, &fresh);
        } else {
            let (axis, stats) = self.sweep.axis_and_stats(&[boxes]);
            if axis != self.axis {
                self.axis = axis;
                rows = box_rows(boxes, axis, self.sweep.threads());
            }
            let order = sweep_order(&rows);
            let mut pairs =
                self.sweep
                    .sweep_rows(Shape::Boxes, (axis, stats), &rows, order.clone());
            pairs.sort_unstable();
            self.order = order;
            self.added = difference(&pairs, &old);
            self.removed = difference(&old, &pairs);
            self.pairs = pairs;
            self.spare = old;
        }
        self.rows = rows;
        &self.pairs
    }

    /// The pairs of the last update, ascending.
    #[must_use]
    pub fn pairs(&self) -> &[(u32, u32)] {
        &self.pairs
    }

    /// The pairs of the last update that the one before did not have, ascending.
    #[must_use]
    pub fn added(&self) -> &[(u32, u32)] {
        &self.added
    }

    /// The pairs of the update before the last that the last does not have, ascending.
    #[must_use]
    pub fn removed(&self) -> &[(u32, u32)] {
        &self.removed
    }

    /// Every pair with at least one moved box, ascending: each moved box against the boxes whose
    /// min x lies in `[its min x - widest, its max x]` (any box overlapping it on x starts
    /// there), `widest` the largest x extent of any box, rounded up (rounded to nearest in f32,
    /// a box from -0.03 to 1e6 is 1e6 wide, and a box moved to touch it at 1e6 would miss it).
    /// `is_moved(i)`: whether box `i` is in `moved`.
    fn moved_pairs(
        &self,
        set: &SortedBoxes,
        rows: &[Row],
        moved: &[u32],
        widest: f64,
        is_moved: impl Fn(u32) -> bool,
    ) -> Vec<(u32, u32)> {
        // In x order: consecutive moved boxes' windows then overlap, so each window is mostly
        // in the cache already (in index order, each was a fresh read of the sorted set).
        let mut by_x = moved.to_vec();
        by_x.sort_unstable_by_key(|&m| (order_key(rows[m as usize][0]), m));
        let mut out = Vec::new();
        let mut batch = Window {
            set,
            rows,
            moved: &by_x,
            widest,
            pair: |a: u32, b: u32| {
                // A pair of two moved boxes is reported by the smaller index only.
                if !is_moved(b) || a < b {
                    out.push(if a < b { (a, b) } else { (b, a) });
                }
            },
        };
        dispatch(self.sweep.backend(), &mut batch);
        out.sort_unstable();
        out
    }
}

/// Each moved box against the window of sorted boxes that may overlap it on x.
struct Window<'a, F: FnMut(u32, u32)> {
    set: &'a SortedBoxes,
    rows: &'a [Row],
    moved: &'a [u32],
    /// The largest x extent of any box, at least.
    widest: f64,
    pair: F,
}

impl<F: FnMut(u32, u32)> WithLanes for &mut Window<'_, F> {
    type Output = ();
    #[inline(always)]
    fn run<V: Lanes>(self) {
        let set = self.set;
        for &m in self.moved {
            let q = self.rows[m as usize];
            // Rounded down twice (the difference, then to f32): every box whose min x is at
            // least `q.min_x - widest` in reals is kept.
            let lo_x = f32_at_most(reach_down(f64::from(q[0]), self.widest));
            let lo = set.partition(|x| x < lo_x);
            let hi = set.partition(|x| x <= q[3]);
            let pair = &mut self.pair;
            window_scan::<V>(set, q, lo..hi, |t| {
                let o = set.perm[t];
                if o != m {
                    pair(m, o);
                }
            });
        }
    }
}

/// The previous frame's order re-sorted by this frame's (min x key, index): insertion sort,
/// cheap when the boxes moved little; `None` (give up) past `8 n + 1024` element moves, when a
/// radix sort is cheaper.
fn repair_order(mut order: Vec<u32>, keys: impl Fn(u32) -> u32) -> Option<Vec<u32>> {
    let key = |i: u32| (keys(i), i);
    let mut budget = 8 * order.len() + 1024;
    for s in 1..order.len() {
        let v = order[s];
        let kv = key(v);
        let mut t = s;
        while t > 0 && key(order[t - 1]) > kv {
            order[t] = order[t - 1];
            t -= 1;
            budget = budget.checked_sub(1)?;
        }
        order[t] = v;
    }
    Some(order)
}

/// Writes into `out` (cleared) the ascending merge of the pairs of ascending `old` that `stale`
/// rejects and the ascending `fresh` (the two have no pair in common), and returns the pairs of
/// `old` that `stale` accepts, ascending.
fn merge_kept(
    old: &[(u32, u32)],
    fresh: &[(u32, u32)],
    stale: impl Fn(&(u32, u32)) -> bool,
    out: &mut Vec<(u32, u32)>,
) -> Vec<(u32, u32)> {
    out.clear();
    out.reserve(old.len() + fresh.len());
    let mut gone = Vec::new();
    let mut f = 0;
    for p in old {
        if stale(p) {
            gone.push(*p);
            continue;
        }
        while f < fresh.len() && fresh[f] < *p {
            out.push(fresh[f]);
            f += 1;
        }
        out.push(*p);
    }
    out.extend_from_slice(&fresh[f..]);
    gone
}

/// The pairs of ascending `a` not in ascending `b`.
fn difference(a: &[(u32, u32)], b: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut j = 0;
    let mut out = Vec::new();
    for &p in a {
        while j < b.len() && b[j] < p {
            j += 1;
        }
        if j >= b.len() || b[j] != p {
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broadphase::SweepAxis;
    use crate::lanes::Backend;
    use crate::primitive::Aabb;

    #[test]
    #[cfg_attr(
        miri,
        ignore = "minutes under Miri (a radix sort per frame); safe code only"
    )]
    fn updates_equal_a_full_sweep_frame_after_frame() {
        let mut x = 0x2545_f491u32;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let mut boxes: Vec<Aabb> = (0..3000)
            .map(|_| {
                let c = [0; 3].map(|_| (next() % 1024) as f32 - 512.0);
                let h = [0; 3].map(|_| (next() % 32) as f32);
                Aabb::new(
                    [0, 1, 2].map(|k| c[k] - h[k]),
                    [0, 1, 2].map(|k| c[k] + h[k]),
                )
            })
            .collect();
        for &backend in Backend::available() {
            let sweep = Sweep::new().with_backend(backend).unwrap();
            let mut sap = SweepAndPrune::new(sweep);
            let mut prev: Vec<(u32, u32)> = Vec::new();
            for frame in 0..12 {
                // Frames 0-8: 1 % of the boxes move a little (integer steps: touching faces
                // appear and vanish); frame 9: a third teleport (full recompute); 10: boxes are
                // added; 11: nothing moves.
                let n = boxes.len();
                let movers = match frame {
                    9 => n / 3,
                    11 => 0,
                    _ => n / 100,
                };
                for _ in 0..movers {
                    let i = next() as usize % boxes.len();
                    let step = [0; 3].map(|_| (next() % 5) as f32 - 2.0);
                    let far = if frame == 9 { 300.0 } else { 0.0 };
                    let b = &mut boxes[i];
                    *b = Aabb::new(
                        [0, 1, 2].map(|k| b.min[k] + step[k] + far),
                        [0, 1, 2].map(|k| b.max[k] + step[k] + far),
                    );
                }
                if frame == 10 {
                    boxes.push(Aabb::new([0.0; 3], [1000.0; 3]));
                }
                let set = Aabbs::from_slice(&boxes).unwrap();
                let got = sap.update(&set).to_vec();
                let mut want = sweep.with_threads(1).complete_pairs(&set);
                want.sort_unstable();
                assert_eq!(got, want, "{backend:?} frame {frame}");
                assert_eq!(
                    sap.added(),
                    difference(&want, &prev),
                    "{backend:?} frame {frame}"
                );
                assert_eq!(
                    sap.removed(),
                    difference(&prev, &want),
                    "{backend:?} frame {frame}"
                );
                prev = want;
            }
        }
    }

    /// A box whose extent along the sweep axis rounds down in f32 (`-0.03 .. 1e6` is `1e6`
    /// wide in f32): a box moved to touch its far end is in its window all the same.
    #[test]
    fn a_box_whose_extent_rounds_down_is_found_by_a_moved_box() {
        for &backend in Backend::available() {
            for (axis, a) in [(SweepAxis::X, 0), (SweepAxis::Y, 1), (SweepAxis::Z, 2)] {
                for (lo, hi) in [(-0.03f32, 1.0e6f32), (-1e-30, 1.0), (-3.0, 3.0e38)] {
                    // Small boxes far apart on another axis, the wide one, and a mover.
                    let on = |min_a: f32, max_a: f32, other: f32| {
                        let (mut min, mut max) = ([other; 3], [other + 1.0; 3]);
                        min[a] = min_a;
                        max[a] = max_a;
                        Aabb::new(min, max)
                    };
                    let mut boxes: Vec<Aabb> = (0..16)
                        .map(|i| on(0.0, 1.0, 10.0 * i as f32 + 100.0))
                        .collect();
                    boxes[0] = on(lo, hi, 0.0);
                    boxes[1] = on(-9.0, -8.0, 0.0);
                    let sweep = Sweep::new().with_backend(backend).unwrap().with_axis(axis);
                    let mut sap = SweepAndPrune::new(sweep);
                    assert_eq!(sap.update(&Aabbs::from_slice(&boxes).unwrap()), []);
                    // One box of sixteen moves: an incremental update.
                    boxes[1] = on(hi, hi, 0.0);
                    let got = sap.update(&Aabbs::from_slice(&boxes).unwrap());
                    assert_eq!(got, [(0, 1)], "{backend:?} {axis:?} {lo} {hi}");
                }
            }
        }
    }

    #[test]
    fn insertion_sort_gives_up_on_incoherent_motion() {
        let keys = |i: u32| 1000 - i;
        assert_eq!(
            repair_order((0..10).collect(), keys),
            Some((0..10).rev().collect())
        );
        assert_eq!(repair_order((0..2000).collect(), keys), None);
    }

    #[test]
    fn merge_kept_keeps_order_and_sets_the_stale_pairs_aside() {
        let old = [(0, 1), (0, 5), (2, 3), (4, 9), (7, 8)];
        let fresh = [(1, 2), (4, 5), (8, 9), (9, 10)];
        // Box 5 moved: its old pair (0, 5) is stale.
        let mut out = vec![(99, 99)];
        let stale = merge_kept(&old, &fresh, |&(i, j)| i == 5 || j == 5, &mut out);
        assert_eq!(stale, [(0, 5)]);
        assert_eq!(
            out,
            [
                (0, 1),
                (1, 2),
                (2, 3),
                (4, 5),
                (4, 9),
                (7, 8),
                (8, 9),
                (9, 10)
            ]
        );
        let stale = merge_kept(&[], &fresh, |_| true, &mut out);
        assert_eq!((stale.len(), &out[..]), (0, &fresh[..]));
    }
}
