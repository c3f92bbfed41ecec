//! The levels of block bounds: what one node of a level holds, how nodes combine, and the
//! columns the block tests read.
//!
//! Two kinds of level:
//!
//! * [`Aabbs`] for the containers whose block tests are box tests (`Aabbs`, `Spheres`, `Obbs`):
//!   a node is the box around its primitives; its own sides serve the whole-block test.
//! * [`Hulls`] for the tetrahedra and octahedra, whose tests compare each of their columns with a
//!   query value: a node holds, per column, the extreme that decides whether some primitive can
//!   pass (the *outer* bound: the least of the lower bounds `min`, the greatest of the upper bounds
//!   `max`) and the extreme that decides whether every primitive passes (the *inner* bound: the
//!   greatest `min`, the least `max`). Both are exact f32 minima and maxima: no rounding.

use super::MAX_LEVELS;
use crate::lanes::Chunk;
use crate::primitive::Aabb;
use crate::round::f32_at_most;
use crate::soa::{Aabbs, Cols, Columns};
use core::fmt::Debug;

/// A level of block bounds. Sealed (crate-private machinery of the blocked containers).
pub trait Level: Clone + Debug + Send + Sync {
    /// One node's bounds.
    type Bound: Copy + Debug + Send;
    /// A level holding `bounds` (node `i` is `bounds[i]`).
    fn from_bounds(bounds: &[Self::Bound]) -> Self;
    /// Number of nodes.
    fn len(&self) -> usize;
    /// The bounds of nodes `16 * chunk ..` (up to 16 of them, at least one) combined: the parent's
    /// node.
    fn chunk_bound(&self, chunk: usize) -> Self::Bound;
    /// Node `i < len()`.
    fn node(&self, i: usize) -> Self::Bound;
    /// Overwrites node `i < len()`.
    fn set_node(&mut self, i: usize, bound: Self::Bound);
    /// A hint to fetch node `i` (ahead of a [`node`](Level::node) and
    /// [`set_node`](Level::set_node) of it); nothing past the end.
    fn prefetch_node(&self, i: usize);
    /// Whether `outer` already bounds everything `inner` bounds (for both of its uses).
    fn contains(outer: &Self::Bound, inner: &Self::Bound) -> bool;
    /// The least bound of both.
    fn union(a: &Self::Bound, b: &Self::Bound) -> Self::Bound;
    /// A hint to fetch the columns of the chunks `first + i` for each set bit `i` of `bits` (the
    /// children a walk is about to visit; one view of the columns for all of them).
    fn prefetch_chunks(&self, first: usize, bits: u32);
    /// Per axis, a lower bound of the sides of `bounds` (the nodes of one level; box levels: the
    /// whole-block test of a box query skips a level whose nodes are all wider than the query
    /// box). Levels that are not boxes give `0`.
    fn min_sides(bounds: &[Self::Bound]) -> [f32; 3];
    /// A linear size of a node's bounds, never negative, zero for a point (what
    /// [`Blocked::looseness`](super::Blocked::looseness) sums): a box's three sides; a hull's
    /// outer tetrahedra's sizes (see [`Hulls`]).
    fn size(bound: &Self::Bound) -> f64;
}

/// Prefetches every column of chunk `first + i` of `cols` for each set bit `i` of `bits`.
#[inline(always)]
fn prefetch_each<const K: usize>(cols: &Cols<'_, K>, first: usize, mut bits: u32) {
    while bits != 0 {
        cols.prefetch_chunk(first + bits.trailing_zeros() as usize);
        bits &= bits - 1;
    }
}

/// Min over the first `n` lanes of `c` (n >= 1).
#[inline(always)]
fn lanes_min(c: &Chunk, n: usize) -> f32 {
    if n == Chunk::LANES {
        return halving(c.0, |a, b| if a < b { a } else { b });
    }
    c.0[..n].iter().copied().fold(f32::INFINITY, f32::min)
}

/// Max over the first `n` lanes of `c` (n >= 1).
#[inline(always)]
fn lanes_max(c: &Chunk, n: usize) -> f32 {
    if n == Chunk::LANES {
        return halving(c.0, |a, b| if a > b { a } else { b });
    }
    c.0[..n].iter().copied().fold(f32::NEG_INFINITY, f32::max)
}

/// `f` (min or max, as a compare and select: `f32::min`'s NaN rule kept it from the vector
/// instructions) over the 16 lanes as a tree of elementwise halves, which vectorises (a fold
/// lane by lane does not: the level bounds of a million boxes took 87 instructions a box). The
/// same value as the fold for the finite lanes a container holds (min and max are exact; of two
/// zeros either sign may come out, which no comparison of a block test tells apart).
#[inline(always)]
fn halving(v: [f32; 16], f: impl Fn(f32, f32) -> f32) -> f32 {
    let h8: [f32; 8] = core::array::from_fn(|i| f(v[i], v[i + 8]));
    let h4: [f32; 4] = core::array::from_fn(|i| f(h8[i], h8[i + 4]));
    f(f(h4[0], h4[2]), f(h4[1], h4[3]))
}

/// Lanes of chunk `chunk` below `len` (at least one).
#[inline]
pub(crate) fn lanes_in(len: usize, chunk: usize) -> usize {
    let n = (len - chunk * Chunk::LANES).min(Chunk::LANES);
    debug_assert!(n > 0);
    n
}

impl Level for Aabbs {
    type Bound = Aabb;

    fn from_bounds(bounds: &[Aabb]) -> Self {
        Aabbs::from_slice(bounds).expect("block bounds are finite, non-inverted boxes")
    }

    #[inline]
    fn len(&self) -> usize {
        Aabbs::len(self)
    }

    #[inline(always)]
    fn chunk_bound(&self, chunk: usize) -> Aabb {
        // No closures: this runs inside a tier, where they were compiled out of line.
        let cols = self.columns();
        let n = lanes_in(self.len(), chunk);
        let mut ends = [0.0f32; 6];
        for (k, end) in ends.iter_mut().enumerate() {
            let c = &cols.col(k)[chunk];
            *end = if k < 3 {
                lanes_min(c, n)
            } else {
                lanes_max(c, n)
            };
        }
        Aabb::new([ends[0], ends[1], ends[2]], [ends[3], ends[4], ends[5]])
    }

    #[inline]
    fn node(&self, i: usize) -> Aabb {
        self.get(i).expect("a node")
    }

    #[inline]
    fn set_node(&mut self, i: usize, bound: Aabb) {
        // Validated like any `set` on an `Aabbs` (the trait's methods are reachable through a
        // generic bound; none may skip a container's checks).
        self.set(i, bound)
            .expect("a union of finite, non-inverted boxes inside the level");
    }

    #[inline(always)]
    fn prefetch_node(&self, i: usize) {
        // All seven columns, into the second-level cache like the leaves' rows. (The six box
        // columns alone, into the first-level cache, as `node` reads them and the diagonal is
        // written only when the node widens: no measurable difference.)
        self.columns().prefetch_row(i);
    }

    #[inline]
    fn contains(outer: &Aabb, inner: &Aabb) -> bool {
        (0..3).all(|a| outer.min[a] <= inner.min[a] && inner.max[a] <= outer.max[a])
    }

    #[inline]
    fn union(a: &Aabb, b: &Aabb) -> Aabb {
        Aabb::new(
            core::array::from_fn(|i| a.min[i].min(b.min[i])),
            core::array::from_fn(|i| a.max[i].max(b.max[i])),
        )
    }

    #[inline(always)]
    fn prefetch_chunks(&self, first: usize, bits: u32) {
        prefetch_each(&self.view(), first, bits);
    }

    fn size(b: &Aabb) -> f64 {
        (0..3)
            .map(|a| f64::from(b.max[a]) - f64::from(b.min[a]))
            .sum()
    }

    fn min_sides(bounds: &[Aabb]) -> [f32; 3] {
        let mut m = [f32::INFINITY; 3];
        for b in bounds {
            for (a, m) in m.iter_mut().enumerate() {
                let side = f32_at_most(f64::from(b.max[a]) - f64::from(b.min[a]));
                *m = m.min(side);
            }
        }
        m
    }
}

/// A level of `W` columns, each a lower bound (bit `k` of `LOWER` set: nodes combine by `min`)
/// or an upper bound (nodes combine by `max`). The tetrahedra's and octahedra's levels: see the
/// module docs for which columns are outer and inner bounds.
#[derive(Clone, Debug)]
pub struct Hulls<const W: usize, const LOWER: u32> {
    cols: Columns<W>,
}

impl<const W: usize, const LOWER: u32> Hulls<W, LOWER> {
    /// Whether column `k` is a lower bound.
    #[inline(always)]
    const fn lower(k: usize) -> bool {
        LOWER >> k & 1 == 1
    }

    /// Whether column `k` is an outer bound: the first half of the columns (see the level types
    /// below).
    #[inline(always)]
    const fn outer(k: usize) -> bool {
        k < W / 2
    }

    /// Columns `first..first + M` as a kernel's view.
    #[inline(always)]
    pub(crate) fn view<const M: usize>(&self, first: usize) -> Cols<'_, M> {
        self.cols.view(first)
    }
}

impl<const W: usize, const LOWER: u32> Level for Hulls<W, LOWER> {
    type Bound = [f32; W];

    fn from_bounds(bounds: &[[f32; W]]) -> Self {
        let mut cols = Columns::with_capacity(bounds.len());
        for &b in bounds {
            cols.push(b);
        }
        Hulls { cols }
    }

    #[inline]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn chunk_bound(&self, chunk: usize) -> [f32; W] {
        let n = lanes_in(self.len(), chunk);
        core::array::from_fn(|k| {
            let c = &self.cols.col(k)[chunk];
            if Self::lower(k) {
                lanes_min(c, n)
            } else {
                lanes_max(c, n)
            }
        })
    }

    #[inline]
    fn node(&self, i: usize) -> [f32; W] {
        self.cols.get(i).expect("a node")
    }

    #[inline]
    fn set_node(&mut self, i: usize, bound: [f32; W]) {
        self.cols.set(i, bound);
    }

    #[inline(always)]
    fn prefetch_node(&self, i: usize) {
        self.cols.prefetch_row(i);
    }

    #[inline]
    fn contains(outer: &[f32; W], inner: &[f32; W]) -> bool {
        (0..W).all(|k| {
            if Self::lower(k) {
                outer[k] <= inner[k]
            } else {
                inner[k] <= outer[k]
            }
        })
    }

    #[inline]
    fn union(a: &[f32; W], b: &[f32; W]) -> [f32; W] {
        core::array::from_fn(|k| {
            if Self::lower(k) {
                a[k].min(b[k])
            } else {
                a[k].max(b[k])
            }
        })
    }

    #[inline(always)]
    fn prefetch_chunks(&self, first: usize, bits: u32) {
        prefetch_each(&self.cols.view::<W>(0), first, bits);
    }

    fn min_sides(_: &[[f32; W]]) -> [f32; 3] {
        [0.0; 3]
    }

    /// The outer bounds (the first half of the columns) come in groups of four, the four
    /// tetrahedron axes of one orientation (`UpHulls` and `DownHulls` one group, `OctaHulls` an up
    /// and a down group). The four axes sum to zero, so a group bounds a tetrahedron whose size
    /// is the sum of its four upper bounds, or minus the sum of its four lower bounds (0 for a
    /// point, more the larger).
    fn size(b: &[f32; W]) -> f64 {
        let outer = (0..W).filter(|&k| Self::outer(k));
        let signed = outer.map(|k| {
            let v = f64::from(b[k]);
            if Self::lower(k) { -v } else { v }
        });
        signed.sum::<f64>().max(0.0)
    }
}

/// The levels of `UpTets`: columns 0..4 the least `min` of each axis (outer), 4..8 the greatest
/// (inner).
pub type UpHulls = Hulls<8, 0x0f>;
/// The levels of `DownTets`: columns 0..4 the greatest `max` of each axis (outer), 4..8 the
/// least (inner).
pub type DownHulls = Hulls<8, 0xf0>;
/// The levels of `Octahedra`: columns 0..8 the outer octahedron (least `up.min`, greatest
/// `down.max`), 8..16 the inner one (greatest `up.min`, least `down.max`). Each half reads as an
/// `Octahedra` container's eight columns.
pub type OctaHulls = Hulls<16, 0xf00f>;

/// Every level of a blocked container's bounds in one [`Level`] value, each level from a chunk
/// boundary on: node `i` of level `k` is node `16 * first_chunks()[k] + i` of [`all`](Self::all),
/// and the lanes after a level's last node, up to the end of its chunk, hold a copy of that node
/// as built (valid bounds, never read: the walk masks them off). One value for all the levels
/// lets a walk bind each block test once instead of once per level: a box query of half extent 5
/// on 100,000 boxes took 3,018 instructions with a level per `Level` value (each level's tests
/// bound and copied into arrays indexed by level) and takes 2,270, one that misses the scene 996
/// and 490 (AVX2 under callgrind, 2026-11-27).
#[derive(Clone, Debug)]
pub(crate) struct Levels<L: Level> {
    /// The nodes of every level, level 0 first.
    all: L,
    /// Number of levels (at most [`MAX_LEVELS`]).
    count: usize,
    /// Per level: its first chunk in `all`.
    first: [usize; MAX_LEVELS],
    /// Per level: its number of nodes (0 past the last level).
    lens: [usize; MAX_LEVELS],
    /// Per level: a lower bound of its nodes' sides per axis ([`Level::min_sides`]); bounds only
    /// grow under `set`, so they stay lower bounds.
    min_sides: [[f32; 3]; MAX_LEVELS],
}

impl<L: Level> Levels<L> {
    /// The levels whose nodes are `levels[k]` (level 0 first, at most [`MAX_LEVELS`], none
    /// empty).
    pub(crate) fn from_levels(levels: &[Vec<L::Bound>]) -> Self {
        assert!(levels.len() <= MAX_LEVELS, "at most MAX_LEVELS levels");
        let mut first = [0; MAX_LEVELS];
        let mut lens = [0; MAX_LEVELS];
        let mut min_sides = [[0.0; 3]; MAX_LEVELS];
        let mut nodes = Vec::new();
        for (k, level) in levels.iter().enumerate() {
            let last = *level.last().expect("a level holds a node");
            first[k] = nodes.len() / Chunk::LANES;
            lens[k] = level.len();
            min_sides[k] = L::min_sides(level);
            nodes.extend_from_slice(level);
            nodes.resize(nodes.len().next_multiple_of(Chunk::LANES), last);
        }
        Levels {
            all: L::from_bounds(&nodes),
            count: levels.len(),
            first,
            lens,
            min_sides,
        }
    }

    /// Number of levels.
    #[inline]
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// Number of nodes of level `k` (0 past the last level).
    #[inline]
    pub(crate) fn len(&self, k: usize) -> usize {
        self.lens.get(k).copied().unwrap_or(0)
    }

    /// Every level's nodes (see the type's docs): what a walk binds its block tests to.
    #[inline(always)]
    pub(crate) fn all(&self) -> &L {
        &self.all
    }

    /// Per level: its first chunk in [`all`](Self::all).
    #[inline(always)]
    pub(crate) fn first_chunks(&self) -> &[usize; MAX_LEVELS] {
        &self.first
    }

    /// Per level: its number of nodes (0 past the last level).
    #[inline(always)]
    pub(crate) fn lens(&self) -> &[usize; MAX_LEVELS] {
        &self.lens
    }

    /// Level `k`'s lower bound of its nodes' sides per axis.
    #[inline]
    pub(crate) fn min_sides(&self, k: usize) -> [f32; 3] {
        self.min_sides[k]
    }

    /// Node `i` of level `k`, if there is one.
    pub(crate) fn get(&self, k: usize, i: usize) -> Option<L::Bound> {
        (i < self.len(k)).then(|| self.all.node(self.at(k, i)))
    }

    /// Node `i < len(k)` of level `k`.
    #[inline]
    pub(crate) fn node(&self, k: usize, i: usize) -> L::Bound {
        debug_assert!(i < self.len(k));
        self.all.node(self.at(k, i))
    }

    /// Overwrites node `i < len(k)` of level `k` (the lanes repeating a level's last node keep
    /// their old bounds: the walk never reads them).
    #[inline]
    pub(crate) fn set_node(&mut self, k: usize, i: usize, bound: L::Bound) {
        debug_assert!(i < self.len(k));
        let at = self.at(k, i);
        self.all.set_node(at, bound);
    }

    /// A hint to fetch node `i` of level `k` (see [`Level::prefetch_node`]).
    #[inline(always)]
    pub(crate) fn prefetch_node(&self, k: usize, i: usize) {
        self.all.prefetch_node(self.at(k, i));
    }

    /// Where node `i` of level `k` is in `all`.
    #[inline(always)]
    fn at(&self, k: usize, i: usize) -> usize {
        self.first[k] * Chunk::LANES + i
    }
}
