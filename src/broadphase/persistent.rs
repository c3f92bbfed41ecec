//! [`SweepAndPrune`]: the pair set kept from frame to frame, recomputed only around the
//! elements (boxes, spheres or octahedra) that moved.

use super::{CollisionFilter, Filtered, Sweep, Sweepable};
use crate::blocked::{BlockQuery, Blockable, Blocked};
use crate::query::HitLists;
use crate::soa::{Aabbs, Octahedra, Spheres};

/// Above this share of moved elements an update recomputes everything (one in eight).
const MOVED_SHARE_FOR_FULL: usize = 8;

/// The [`Blocked::optimize`] bound of the blocks the moved elements are queried against: past it
/// their bounds, widened by the moves, are refit (and the order rebuilt if a refit does not
/// bring them back under it).
const MAX_LOOSENESS: f64 = 1.5;

/// The sets a [`SweepAndPrune`] tracks from frame to frame: [`Aabbs`], [`Spheres`] and
/// [`Octahedra`] (a pair is the container's own test of the two elements, as [`Sweep`] reports
/// it). Sealed.
pub trait Tracked: Sweepable + Blockable + Default + core::fmt::Debug + tracked::Sealed {}

/// What [`SweepAndPrune::update`] takes for a tracked set `C`: the frame's `C`, or the `C` with a
/// [`CollisionFilter`] per element, [`Filtered`]`<C>` (the filters may change from frame to
/// frame). Sealed.
pub trait Frame<C: Tracked>: Sweepable + frame::Sealed<C> {}

mod frame {
    use super::{CollisionFilter, Filtered, Tracked};

    /// Seals [`Frame`](super::Frame): the set and its filters, if any.
    pub trait Sealed<C> {
        fn set(&self) -> &C;
        fn filters(&self) -> Option<&[CollisionFilter]>;
    }

    impl<C: Tracked> Sealed<C> for C {
        fn set(&self) -> &C {
            self
        }
        fn filters(&self) -> Option<&[CollisionFilter]> {
            None
        }
    }

    impl<C: Tracked> Sealed<C> for Filtered<'_, C> {
        fn set(&self) -> &C {
            Filtered::set(self)
        }
        fn filters(&self) -> Option<&[CollisionFilter]> {
            Some(Filtered::filters(self))
        }
    }
}

impl<C: Tracked> Frame<C> for C {}
impl<C: Tracked> Frame<C> for Filtered<'_, C> {}

mod tracked {
    use super::{Blocked, HitLists, Sweep};

    /// Seals [`Tracked`](super::Tracked): what the structure does with its own set.
    pub trait Sealed: Sized + crate::blocked::Blockable {
        /// Overwrites this set with `other` (as long), appending the changed indices to
        /// `changed`, ascending.
        fn take_changed(&mut self, other: &Self, changed: &mut Vec<u32>);
        /// [`moved_hits`](super::moved_hits) of the `moved` elements of `set`.
        fn moved_hits(
            blocked: &mut Option<Blocked<Self>>,
            set: &Self,
            moved: &[u32],
            sweep: &Sweep,
            out: &mut HitLists,
        );
    }
}

macro_rules! tracked {
    ($($c:ty),*) => {$(
        impl Tracked for $c {}

        impl tracked::Sealed for $c {
            fn take_changed(&mut self, other: &Self, changed: &mut Vec<u32>) {
                <$c>::take_changed(self, other, changed);
            }
            fn moved_hits(
                blocked: &mut Option<Blocked<Self>>,
                set: &Self,
                moved: &[u32],
                sweep: &Sweep,
                out: &mut HitLists,
            ) {
                // Each moved element read once: the blocks' moves and the batch's queries.
                let items: Vec<_> = moved
                    .iter()
                    .map(|&m| set.get(m as usize).expect("a moved element below the count"))
                    .collect();
                moved_hits(blocked, set, moved, &items, sweep, out);
            }
        }
    )*};
}

tracked!(Aabbs, Spheres, Octahedra);

/// The hits of `items`, the `moved` elements of `set`, as one batch of queries against the
/// blocks of `set` (on `sweep`'s backend and threads), into `out`: the blocks first brought to
/// this frame (the moved elements written, then optimized past [`MAX_LOOSENESS`]), or built.
fn moved_hits<C: Blockable>(
    blocked: &mut Option<Blocked<C>>,
    set: &C,
    moved: &[u32],
    items: &[C::Primitive],
    sweep: &Sweep,
    out: &mut HitLists,
) where
    C::Primitive: BlockQuery<C>,
{
    let threads = sweep.threads();
    let blocked = match blocked {
        Some(blocked) => {
            let moves: Vec<(usize, C::Primitive)> = moved
                .iter()
                .zip(items)
                .map(|(&m, &item)| (m as usize, item))
                .collect();
            blocked
                .set_many(&moves)
                .expect("elements of a valid container, at indices below its count");
            blocked.optimize(MAX_LOOSENESS);
            blocked
        }
        None => blocked.insert(Blocked::new_with_threads(set, threads)),
    };
    blocked
        .with_backend(sweep.backend())
        .expect("a sweep's backend runs on this CPU")
        .with_threads(threads)
        .hits_many_into(items, out);
}

/// The overlapping pairs of a set of boxes (or spheres, or octahedra: any [`Tracked`] set `C`)
/// that changes from frame to frame (temporal coherence, seed 002).
///
/// [`update`](Self::update) takes this frame's set (element `i` is the same object in every
/// frame) and returns every overlapping pair `(i, j)`, `i < j`, once, **ascending** — the same set
/// as [`Sweep::complete_pairs`], in `(i, j)` order. Elements with [collision filters](Filtered)
/// give the pairs whose filters accept each other, as the sweep of the same `Filtered` set does.
/// When the number of elements is unchanged (and the frames are both filtered or both not) and
/// at most one element in eight moved (any change of its values, or of its filter), only the
/// pairs of the moved elements are recomputed: the old pairs between unmoved elements stand, and
/// each moved element is queried against this frame's set in a [`Blocked<C>`](Blocked) that the
/// structure keeps from frame to frame (the moved elements written with [`Blocked::set_many`],
/// its bounds [`optimize`](Blocked::optimize)d past a looseness of 1.5), with the sweep's
/// backend and threads. Otherwise the whole set is swept again (and the blocks, if any, are
/// brought up to date with [`Blocked::update`]). So an incremental update costs a pass over the
/// elements (to find the moved ones) and over the pairs (to merge), plus a small query per moved
/// element (an update in which nothing moved returns the kept pairs); the blocks are built at
/// the first incremental update with a moved element (one [`Blocked::new`]) and take about the
/// set's own memory again. [`added`](Self::added) and [`removed`](Self::removed) give
/// the difference from the previous update. The set type is inferred from the first `update`
/// (`SweepAndPrune<Aabbs>` is the default where a type is written without it).
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
///
/// With filters (debris that collides with players only; a box that changes its filter is
/// treated as moved):
///
/// ```
/// use bvlanes::broadphase::{CollisionFilter, Filtered, Sweep, SweepAndPrune};
/// use bvlanes::{Aabb, Aabbs};
/// const PLAYER: u32 = 1;
/// const DEBRIS: u32 = 2;
/// let boxes = Aabbs::from_slice(&[Aabb::new([0.0; 3], [1.0; 3]); 3])?; // all overlap
/// let mut filters = [
///     CollisionFilter::new(PLAYER, !0),
///     CollisionFilter::new(DEBRIS, PLAYER),
///     CollisionFilter::new(DEBRIS, PLAYER),
/// ];
/// let mut sap = SweepAndPrune::new(Sweep::new());
/// assert_eq!(sap.update(&Filtered::new(&boxes, &filters)?), [(0, 1), (0, 2)]);
/// filters[2] = CollisionFilter::new(PLAYER, !0); // box 2 becomes a player
/// assert_eq!(sap.update(&Filtered::new(&boxes, &filters)?), [(0, 1), (0, 2), (1, 2)]);
/// assert_eq!(sap.added(), [(1, 2)]);
/// # Ok::<(), bvlanes::BvError>(())
/// ```
///
/// Spheres (octahedra alike):
///
/// ```
/// use bvlanes::broadphase::{Sweep, SweepAndPrune};
/// use bvlanes::{Sphere, Spheres};
/// let mut sap = SweepAndPrune::new(Sweep::new());
/// let mut balls = vec![Sphere::new([0.0; 3], 1.0), Sphere::new([3.0, 0.0, 0.0], 1.0)];
/// assert_eq!(sap.update(&Spheres::from_slice(&balls)?), []);
/// balls[1] = Sphere::new([2.0, 0.0, 0.0], 1.0); // touches sphere 0
/// assert_eq!(sap.update(&Spheres::from_slice(&balls)?), [(0, 1)]);
/// # Ok::<(), bvlanes::BvError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct SweepAndPrune<C: Tracked = Aabbs> {
    sweep: Sweep,
    /// Last frame's set.
    set: C,
    /// Last frame's filters (`None`: an unfiltered frame).
    filters: Option<Vec<CollisionFilter>>,
    /// The set as of the last update in blocks, for the moved elements' queries (`None` until
    /// the first incremental update, and after a full one that changed the count).
    blocked: Option<Blocked<C>>,
    /// The moved elements of the last update, ascending (kept for its memory).
    moved: Vec<u32>,
    /// The moved elements' hit lists of the last incremental update (kept for its memory).
    lists: HitLists,
    /// Last frame's pairs, ascending.
    pairs: Vec<(u32, u32)>,
    /// The buffer of the frame before last's pairs, reused for the next merge.
    spare: Vec<(u32, u32)>,
    added: Vec<(u32, u32)>,
    removed: Vec<(u32, u32)>,
    /// An update began and did not finish (it panicked): last frame's set, filters and blocks
    /// may be half overwritten, so the next update sweeps everything again.
    interrupted: bool,
}

#[cfg(test)]
std::thread_local! {
    /// Tests only: makes the next incremental update of this thread panic once its elements'
    /// set and blocks have been overwritten (see `an_update_that_panicked_is_not_trusted`).
    static PANIC_MIDWAY: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

impl<C: Tracked> SweepAndPrune<C> {
    /// An empty structure sweeping with `sweep`'s backend and threads.
    #[must_use]
    pub fn new(sweep: Sweep) -> SweepAndPrune<C> {
        SweepAndPrune {
            sweep,
            ..SweepAndPrune::default()
        }
    }

    /// This frame's pairs (see the [type docs](Self)): of a `C`, or of a [`Filtered`]`<C>`.
    ///
    /// # Panics
    /// If the moved elements' queries have more than `u32::MAX` hits in all (as
    /// [`Blocked::hits_many`]). The structure stays usable after such a panic: the next update
    /// sweeps the whole set again, and its [`added`](Self::added) and
    /// [`removed`](Self::removed) are relative to the last update that completed.
    pub fn update<F: Frame<C>>(&mut self, frame: &F) -> &[(u32, u32)] {
        let (set, filters) = (frame.set(), frame.filters());
        let n = set.len();
        // Set until this update completes: after a panic midway the kept set, filters and
        // blocks cannot be trusted, and the next update starts again from the frame alone.
        // (Not the same count: the set and filters are taken whole, the whole frame is swept,
        // the blocks are dropped.)
        let restart = core::mem::replace(&mut self.interrupted, true);
        // The moved elements, found as last frame's set is overwritten with this frame's (and
        // its filters with this frame's: an element whose filter changed counts as moved).
        let same_count = !restart && self.set.len() == n;
        let same_filtering = self.filters.is_some() == filters.is_some();
        self.moved.clear();
        if same_count {
            tracked::Sealed::take_changed(&mut self.set, set, &mut self.moved);
        } else {
            self.set.clone_from(set);
        }
        match (&mut self.filters, filters) {
            (Some(kept), Some(filters)) if same_count => {
                take_refiltered(kept, filters, &mut self.moved);
            }
            (kept, filters) => *kept = filters.map(<[CollisionFilter]>::to_vec),
        }
        if same_count && same_filtering && self.moved.is_empty() {
            // Nothing moved: the pairs stand (and the blocks are neither built nor touched).
            self.added.clear();
            self.removed.clear();
            self.interrupted = false;
            return &self.pairs;
        }
        // Last frame's pairs stay in place until this frame's are complete (so that, should
        // this update panic, the next one's differences are still from them).
        if same_count && same_filtering && self.moved.len() * MOVED_SHARE_FOR_FULL <= n {
            // One bit per element (a bit set stays in the L1 cache through the merge's pass over
            // every pair, where a `bool` per box of 100,000 did not).
            let mut moved_bits = vec![0u64; n.div_ceil(64)];
            for &m in &self.moved {
                moved_bits[m as usize / 64] |= 1 << (m % 64);
            }
            let is_moved = |i: u32| moved_bits[i as usize / 64] >> (i % 64) & 1 != 0;
            let fresh = self.moved_pairs(set, filters, is_moved);
            // The kept pairs merged with the fresh ones into last-but-one frame's buffer (no new
            // memory for the pairs in a steady loop), the stale ones set aside, in one pass.
            let mut pairs = core::mem::take(&mut self.spare);
            let stale = merge_kept(&self.pairs, &fresh, is_moved, &mut pairs);
            self.spare = core::mem::replace(&mut self.pairs, pairs);
            self.added = difference(&fresh, &stale);
            self.removed = difference(&stale, &fresh);
        } else {
            let mut pairs = core::mem::take(&mut self.spare);
            self.sweep.complete_pairs_into(frame, &mut pairs);
            crate::radix::sort_pairs(&mut pairs, n);
            self.added = difference(&pairs, &self.pairs);
            self.removed = difference(&self.pairs, &pairs);
            self.spare = core::mem::replace(&mut self.pairs, pairs);
            // The blocks follow this frame (a pass over the set in their order, far cheaper
            // than the sweep), or go if the count changed (built again when next needed).
            match &mut self.blocked {
                Some(blocked) if same_count => {
                    blocked
                        .update(set)
                        .expect("the blocks hold as many elements as this frame");
                    blocked.optimize(MAX_LOOSENESS);
                }
                _ => self.blocked = None,
            }
        }
        self.interrupted = false;
        &self.pairs
    }

    /// Every pair with at least one moved element (`self.moved`, this frame's `set`), ascending:
    /// each moved element queried against the blocks, which are first brought to this frame
    /// (the moved elements written) or built. A pair of two moved elements (`is_moved`) is
    /// reported by its smaller index's query only; with `filters`, a pair only if they accept
    /// each other.
    fn moved_pairs(
        &mut self,
        set: &C,
        filters: Option<&[CollisionFilter]>,
        is_moved: impl Fn(u32) -> bool,
    ) -> Vec<(u32, u32)> {
        C::moved_hits(
            &mut self.blocked,
            set,
            &self.moved,
            &self.sweep,
            &mut self.lists,
        );
        #[cfg(test)]
        assert!(!PANIC_MIDWAY.replace(false), "a panic midway (a test's)");
        let moved = &self.moved;
        // A query's own element is among its hits; a pair of two moved ones comes from both. As
        // `moved` and each list ascend, the pairs with the moved box first come out ascending;
        // the others are sorted (as one `u64` each: a compare each), then the two are merged.
        let hits = self.lists.indices.len();
        let (mut first, mut second) = (Vec::with_capacity(hits), Vec::with_capacity(hits));
        let allowed =
            |i: u32, j: u32| filters.is_none_or(|f| f[i as usize].accepts(&f[j as usize]));
        for (q, &m) in moved.iter().enumerate() {
            for &o in self.lists.query(q) {
                if m < o {
                    if allowed(m, o) {
                        first.push((m, o));
                    }
                } else if o < m && !is_moved(o) && allowed(o, m) {
                    second.push(u64::from(o) << 32 | u64::from(m));
                }
            }
        }
        second.sort_unstable();
        let mut out = Vec::with_capacity(first.len() + second.len());
        let mut rest = first.as_slice();
        for (o, m) in second.iter().map(|&k| ((k >> 32) as u32, k as u32)) {
            let before = rest.partition_point(|&p| p < (o, m));
            out.extend_from_slice(&rest[..before]);
            rest = &rest[before..];
            out.push((o, m));
        }
        out.extend_from_slice(rest);
        out
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
}

/// Overwrites `kept` with `filters` (as long) and merges into ascending `moved` the indices
/// whose filter changed, so that `moved` ascends and holds each index once.
fn take_refiltered(
    kept: &mut [CollisionFilter],
    filters: &[CollisionFilter],
    moved: &mut Vec<u32>,
) {
    let before = moved.len();
    // 64 filters at a time: a stretch that did not change is one compare of its bytes (a
    // `memcmp`; a branch on every filter took about 23 instructions a filter), else its changes
    // as the bits of a word, then the set bits.
    for (c, (kept, filters)) in kept.chunks_mut(64).zip(filters.chunks(64)).enumerate() {
        if bytemuck::cast_slice::<_, u8>(kept) == bytemuck::cast_slice::<_, u8>(filters) {
            continue;
        }
        let mut bits = 0u64;
        for (j, (k, f)) in kept.iter_mut().zip(filters).enumerate() {
            bits |= u64::from((k.group ^ f.group) | (k.mask ^ f.mask) != 0) << j;
            *k = *f;
        }
        while bits != 0 {
            moved.push((c * 64) as u32 + bits.trailing_zeros());
            bits &= bits - 1;
        }
    }
    if moved.len() > before {
        // A few thousand moved elements at most in an incremental update: a sort costs little.
        moved.sort_unstable();
        moved.dedup();
    }
}

/// Writes into `out` (cleared) the ascending merge of the pairs of ascending `old` that touch
/// no moved box (`is_moved` of neither index) and the ascending `fresh` (the two have no pair in
/// common), and returns the pairs of `old` that touch one, ascending. The kept pairs are copied
/// a run at a time (a run ends where a stale pair is left out or a fresh one goes in), and a
/// pair's first index is looked up once per run of pairs that share it.
fn merge_kept(
    old: &[(u32, u32)],
    fresh: &[(u32, u32)],
    is_moved: impl Fn(u32) -> bool,
    out: &mut Vec<(u32, u32)>,
) -> Vec<(u32, u32)> {
    // Pairs compared as one `u64` each (a tuple's compare branches on its first index).
    let key = |(i, j): (u32, u32)| u64::from(i) << 32 | u64::from(j);
    out.clear();
    out.reserve(old.len() + fresh.len());
    let mut gone = Vec::new();
    let mut f = 0;
    // Past the last fresh pair: a key no pair of `old` (`i < j`) reaches.
    let mut next = fresh.first().map_or(u64::MAX, |&p| key(p));
    let (mut first, mut first_moved) = (u32::MAX, false);
    let mut run = 0;
    for (k, &p) in old.iter().enumerate() {
        if first != p.0 {
            first = p.0;
            first_moved = is_moved(p.0);
        }
        let stale = first_moved | is_moved(p.1);
        let at = key(p);
        if stale | (next < at) {
            out.extend_from_slice(&old[run..k]);
            while next < at {
                out.push(fresh[f]);
                f += 1;
                next = fresh.get(f).map_or(u64::MAX, |&p| key(p));
            }
            if stale {
                gone.push(p);
                run = k + 1;
            } else {
                run = k;
            }
        }
    }
    out.extend_from_slice(&old[run..]);
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
    use crate::primitive::{Aabb, Octahedron, Sphere};
    use crate::test_rng::XorShift32;

    /// Tests of [`frames_equal_full_sweeps`]: name, whether filtered, the set from the boxes.
    macro_rules! frame_tests {
        ($($(#[$doc:meta])* $name:ident: $filtered:expr, $make:expr;)*) => {$(
            $(#[$doc])*
            #[test]
            #[cfg_attr(
                miri,
                ignore = "minutes under Miri (a radix sort per frame); safe code only"
            )]
            fn $name() {
                frames_equal_full_sweeps($filtered, $make);
            }
        )*};
    }

    frame_tests! {
        updates_equal_a_full_sweep_frame_after_frame: false, |b| Aabbs::from_slice(b).unwrap();
        /// The same frames with collision filters, some of which change each frame (box moved
        /// or not; frame 5 changes filters only).
        filtered_updates_equal_a_filtered_full_sweep_frame_after_frame:
            true, |b| Aabbs::from_slice(b).unwrap();
        /// The frames' boxes as spheres (each box's bounding sphere), filtered.
        sphere_updates_equal_a_full_sweep_frame_after_frame: true, |b| {
            let balls: Vec<Sphere> = b.iter().map(Sphere::from_aabb).collect();
            Spheres::from_slice(&balls).unwrap()
        };
        /// The frames' boxes as octahedra (each box's circumscribed one), unfiltered...
        octahedron_updates_equal_a_full_sweep_frame_after_frame: false, octahedra;
        /// ... and filtered.
        filtered_octahedron_updates_equal_a_full_sweep_frame_after_frame: true, octahedra;
    }

    fn octahedra(b: &[Aabb]) -> Octahedra {
        let octs: Vec<Octahedron> = b.iter().map(Octahedron::from_aabb).collect();
        Octahedra::from_slice(&octs).unwrap()
    }

    /// Sixteen frames of 3,000 boxes made into a set by `make` (with filters if `filtered`) on
    /// every backend: each update equals the full sweep of its frame, `added` and `removed` the
    /// differences.
    fn frames_equal_full_sweeps<C: Tracked>(filtered: bool, make: impl Fn(&[Aabb]) -> C) {
        let mut rng = XorShift32(0x2545_f491);
        let mut boxes: Vec<Aabb> = (0..3000)
            .map(|_| {
                let c = [0; 3].map(|_| rng.below(1024) as f32 - 512.0);
                let h = [0; 3].map(|_| rng.below(32) as f32);
                Aabb::new(
                    [0, 1, 2].map(|k| c[k] - h[k]),
                    [0, 1, 2].map(|k| c[k] + h[k]),
                )
            })
            .collect();
        // Groups of one or two of three bits; masks of none, one, two or all groups.
        let filter = move |r: u32| {
            let group = [1, 2, 4, 3, 6][r as usize % 5];
            let mask = [0, 1, 2, 4, 5, !0, !0][(r / 5) as usize % 7];
            CollisionFilter::new(group, mask)
        };
        let mut filters: Vec<CollisionFilter> =
            (0..boxes.len()).map(|_| filter(rng.next_u32())).collect();
        for &backend in Backend::available() {
            let sweep = Sweep::new().with_backend(backend).unwrap();
            let mut sap = SweepAndPrune::new(sweep);
            let mut prev: Vec<(u32, u32)> = Vec::new();
            for frame in 0..16 {
                // Frames 0-8: 1 % of the boxes move a little (integer steps: touching faces
                // appear and vanish); frame 9: a third teleport (a full recompute, the blocks
                // brought up to date); 10: 1 % again (incremental on those blocks); 11 and 12: a
                // tenth teleport (incremental, the blocks grow loose and are optimized); 13:
                // a box is added (full, the blocks dropped); 14: nothing moves (the pairs stand,
                // no blocks built); 15: 1 % (the blocks built again). Frame 5 moves no box.
                let n = boxes.len();
                let movers = match frame {
                    9 => n / 3,
                    11 | 12 => n / 10,
                    5 | 14 => 0,
                    _ => n / 100,
                };
                if filtered && frame != 14 {
                    for _ in 0..n / 150 {
                        let i = rng.next_u32() as usize % n;
                        filters[i] = filter(rng.next_u32());
                    }
                }
                for _ in 0..movers {
                    let i = rng.next_u32() as usize % boxes.len();
                    let step = [0; 3].map(|_| rng.below(5) as f32 - 2.0);
                    let far = match frame {
                        9 => 300.0,
                        11 | 12 => 400.0,
                        _ => 0.0,
                    };
                    let b = &mut boxes[i];
                    *b = Aabb::new(
                        [0, 1, 2].map(|k| b.min[k] + step[k] + far),
                        [0, 1, 2].map(|k| b.max[k] + step[k] + far),
                    );
                }
                if frame == 13 {
                    boxes.push(Aabb::new([0.0; 3], [1000.0; 3]));
                    filters.push(CollisionFilter::ALL);
                }
                let set = make(&boxes);
                let (got, mut want) = if filtered {
                    let set = Filtered::new(&set, &filters).unwrap();
                    let got = sap.update(&set).to_vec();
                    (got, sweep.with_threads(1).complete_pairs(&set))
                } else {
                    let got = sap.update(&set).to_vec();
                    (got, sweep.with_threads(1).complete_pairs(&set))
                };
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
                // The blocks exist from the first incremental update that moved something on
                // (but after the full one that changed the count, until the next such update)
                // and stay within the looseness bound.
                let built = !matches!(frame, 0 | 13 | 14);
                assert_eq!(sap.blocked.is_some(), built, "{backend:?} frame {frame}");
                if let Some(blocked) = &sap.blocked {
                    assert!(
                        blocked.looseness() <= MAX_LOOSENESS,
                        "{backend:?} frame {frame}"
                    );
                }
            }
        }
    }

    /// An update that panics midway (its moved boxes found, the kept set overwritten with the
    /// frame, the blocks written) leaves the structure usable: the next update of the same
    /// frame sweeps it all again and returns its pairs, with the differences from the last
    /// completed update; the updates after it are incremental again. Filtered and not.
    #[test]
    #[cfg_attr(miri, ignore = "a radix sort per frame; safe code only")]
    fn an_update_that_panicked_is_not_trusted() {
        let mut rng = XorShift32(0x9e37_79b9);
        let mut frames: Vec<Vec<Aabb>> = vec![
            (0..800)
                .map(|_| {
                    let c = [0; 3].map(|_| rng.below(96) as f32);
                    Aabb::new(c, c.map(|v| v + rng.below(16) as f32))
                })
                .collect(),
        ];
        for _ in 0..3 {
            let mut boxes = frames.last().unwrap().clone();
            for _ in 0..20 {
                let i = rng.next_u32() as usize % boxes.len();
                let d = rng.below(9) as f32 - 4.0;
                boxes[i] = Aabb::new(boxes[i].min.map(|v| v + d), boxes[i].max.map(|v| v + d));
            }
            frames.push(boxes);
        }
        let filters: Vec<CollisionFilter> = (0..800)
            .map(|i| CollisionFilter::new(1 << (i % 3), 0b011 << (i % 2)))
            .collect();
        for &backend in Backend::available() {
            for filtered in [false, true] {
                let sweep = Sweep::new().with_backend(backend).unwrap();
                let mut sap = SweepAndPrune::new(sweep);
                let update = |sap: &mut SweepAndPrune, boxes: &[Aabb]| {
                    let set = Aabbs::from_slice(boxes).unwrap();
                    let (got, mut want) = if filtered {
                        let set = Filtered::new(&set, &filters).unwrap();
                        (sap.update(&set).to_vec(), sweep.complete_pairs(&set))
                    } else {
                        (sap.update(&set).to_vec(), sweep.complete_pairs(&set))
                    };
                    want.sort_unstable();
                    assert_eq!(got, want, "{backend:?} filtered {filtered}");
                    want
                };
                let first = update(&mut sap, &frames[0]);
                let second = update(&mut sap, &frames[1]);
                assert!(sap.blocked.is_some(), "an incremental update");
                // Frame 2 panics midway, and is given again.
                PANIC_MIDWAY.set(true);
                let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    update(&mut sap, &frames[2]);
                }));
                assert!(panicked.is_err() && !PANIC_MIDWAY.get());
                let third = update(&mut sap, &frames[2]);
                assert_eq!(sap.added(), difference(&third, &second));
                assert_eq!(sap.removed(), difference(&second, &third));
                assert!(sap.blocked.is_none(), "a full update: {backend:?}");
                assert!(
                    first != second && second != third,
                    "frames that differ: {backend:?} filtered {filtered}"
                );
                // Incremental again.
                let fourth = update(&mut sap, &frames[3]);
                assert!(sap.blocked.is_some(), "{backend:?}");
                assert_eq!(sap.added(), difference(&fourth, &third));
            }
        }
    }

    /// Frames that switch between filtered and unfiltered (the same boxes) are full updates
    /// with the right pairs; a filter changed with its box still is one moved box.
    #[test]
    fn frames_switching_filters_on_and_off_give_the_right_pairs() {
        let boxes = Aabbs::from_slice(&[Aabb::new([0.0; 3], [1.0; 3]); 20]).unwrap();
        let all: Vec<(u32, u32)> = (0..20)
            .flat_map(|i| (i + 1..20).map(move |j| (i, j)))
            .collect();
        let mut filters = vec![CollisionFilter::new(1, 2); 20];
        filters[0] = CollisionFilter::new(2, 1);
        let among_0 = |k: u32| {
            (1..20)
                .filter(|&j| j != k)
                .map(|j| (0, j))
                .collect::<Vec<_>>()
        };
        for &backend in Backend::available() {
            let mut sap = SweepAndPrune::new(Sweep::new().with_backend(backend).unwrap());
            assert_eq!(sap.update(&boxes), all, "{backend:?}");
            let filtered = Filtered::new(&boxes, &filters).unwrap();
            assert_eq!(sap.update(&filtered), among_0(99), "{backend:?}");
            assert_eq!(sap.removed().len(), all.len() - 19, "{backend:?}");
            // Box 7 leaves every group: its pair with box 0 goes, incrementally.
            let mut changed = filters.clone();
            changed[7] = CollisionFilter::new(0, !0);
            let filtered = Filtered::new(&boxes, &changed).unwrap();
            assert_eq!(sap.update(&filtered), among_0(7), "{backend:?}");
            assert_eq!((sap.added(), sap.removed()), (&[][..], &[(0, 7)][..]));
            assert_eq!(sap.moved, [7], "{backend:?}: one refiltered box");
            assert_eq!(sap.update(&boxes), all, "{backend:?}");
            assert_eq!(sap.added().len(), all.len() - 18, "{backend:?}");
        }
    }

    /// A box whose extent along the sweep axis rounds down in f32 (`-0.03 .. 1e6` is `1e6`
    /// wide in f32): a box moved to touch its far end is found all the same (the test of the
    /// window the moved boxes were once scanned in, kept for the blocked queries, whose blocks
    /// the wide box bloats: an outsized box).
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
    fn merge_kept_keeps_order_and_sets_the_stale_pairs_aside() {
        let old = [(0, 1), (0, 5), (2, 3), (4, 9), (7, 8)];
        let fresh = [(1, 2), (4, 5), (8, 9), (9, 10)];
        // Box 5 moved: its old pair (0, 5) is stale.
        let mut out = vec![(99, 99)];
        let stale = merge_kept(&old, &fresh, |i| i == 5, &mut out);
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
