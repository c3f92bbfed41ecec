//! Box against boxes in stages (the AABO readme's box strategies). Every strategy computes the
//! same exact closed-box test as [`AabbsVsBox`](super::AabbsVsBox); the stages only decide which
//! columns a block reads before it may stop:
//!
//! * min-max: `b.min <= q.max` on x, y, z (an open octant), then `q.min <= b.max`;
//! * x, y, z: the x slab, then the y slab, then the z slab;
//! * 7-sided: `b.min <= q.max` and the diagonal plane `sum_down(q.min) <= diag` (a closed
//!   tetrahedron), then `q.min <= b.max`. `diag` is the container's `sum(b.max)` rounded up, so
//!   the plane never rejects a real overlap and the final answer is the six comparisons'.
//!
//! A block stops after a stage that leaves no lane set. Early exits pay per vector of lanes; on
//! the one-lane tier they would be a branch per primitive that mispredicts on mixed data, so that
//! tier evaluates every stage (the answer is the same either way); there the 7-sided kernel also
//! skips the diagonal, which the max corner implies.

use super::group::Grouped;
use super::{Cols, Kernel, Prepared, Sink, Tiled, run, splat3};
use crate::lanes::Backend;
use crate::lanes::Lanes;

/// `a[i] <= b[i]` on all three axes.
#[inline(always)]
fn all_le3<V: Lanes>(a: [V; 3], b: [V; 3]) -> V::Mask {
    V::and(V::and(a[0].le(b[0]), a[1].le(b[1])), a[2].le(b[2]))
}

/// Min-max: the open octant `b.min <= q.max` first, the max corner only if a lane passed.
#[derive(Clone)]
pub struct AabbsVsBoxMinMax<'a> {
    pub(crate) cols: Cols<'a, 6>,
    pub(crate) q_min: [f32; 3],
    pub(crate) q_max: [f32; 3],
}

impl Kernel for AabbsVsBoxMinMax<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let b_min = self.cols.load3::<V>(0, c, j);
        let m1 = all_le3(b_min, splat3(self.q_max));
        if V::N > 1 && V::bits(m1) == 0 {
            return 0;
        }
        let b_max = self.cols.load3::<V>(3, c, j);
        V::bits(V::and(m1, all_le3(splat3(self.q_min), b_max)))
    }
}

/// X, y, z: one slab per stage, stopping when a block has no lane left.
#[derive(Clone)]
pub struct AabbsVsBoxXyz<'a> {
    pub(crate) cols: Cols<'a, 6>,
    pub(crate) q_min: [f32; 3],
    pub(crate) q_max: [f32; 3],
}

impl AabbsVsBoxXyz<'_> {
    /// `b.min[axis] <= q.max[axis] && q.min[axis] <= b.max[axis]`.
    #[inline(always)]
    fn slab<V: Lanes>(&self, axis: usize, c: usize, j: usize) -> V::Mask {
        let lo = self.cols.load::<V>(axis, c, j);
        let hi = self.cols.load::<V>(3 + axis, c, j);
        V::and(
            lo.le(V::splat(self.q_max[axis])),
            V::splat(self.q_min[axis]).le(hi),
        )
    }
}

impl Kernel for AabbsVsBoxXyz<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let mx = self.slab::<V>(0, c, j);
        if V::N > 1 && V::bits(mx) == 0 {
            return 0;
        }
        let mxy = V::and(mx, self.slab::<V>(1, c, j));
        if V::N > 1 && V::bits(mxy) == 0 {
            return 0;
        }
        V::bits(V::and(mxy, self.slab::<V>(2, c, j)))
    }
}

/// 7-sided: the min corner and the diagonal plane (a closed tetrahedron, four columns) first, the
/// max corner only if a lane passed.
#[derive(Clone)]
pub struct AabbsVsBoxSevenSided<'a> {
    /// Min x, y, z, max x, y, z, diagonal.
    pub(crate) cols: Cols<'a, 7>,
    pub(crate) q_min: [f32; 3],
    pub(crate) q_max: [f32; 3],
    /// `sum(q_min)` rounded down (`-inf` if a bound is `-inf`).
    pub(crate) q_sum: f32,
}

impl Kernel for AabbsVsBoxSevenSided<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let b_min = self.cols.load3::<V>(0, c, j);
        if V::N == 1 {
            // No early exit on the one-lane tier, and once the max corner is read the plane is
            // implied by it (it never rejects an overlap): the six comparisons alone.
            let b_max = self.cols.load3::<V>(3, c, j);
            let m = all_le3(b_min, splat3(self.q_max));
            return V::bits(V::and(m, all_le3(splat3(self.q_min), b_max)));
        }
        let diag = self.cols.load::<V>(6, c, j);
        let m1 = V::and(
            all_le3(b_min, splat3(self.q_max)),
            V::splat(self.q_sum).le(diag),
        );
        if V::N > 1 && V::bits(m1) == 0 {
            return 0;
        }
        let b_max = self.cols.load3::<V>(3, c, j);
        V::bits(V::and(m1, all_le3(splat3(self.q_min), b_max)))
    }
}

/// The seven half-space tests a stage is made of, as bits of a `u8`: bit `i < 3` is
/// `b.min[i] <= q.max[i]`, bit `3 + i` is `q.min[i] <= b.max[i]`, bit 6 the diagonal plane.
pub(crate) mod half_spaces {
    /// `b.min <= q.max` on x, y, z.
    pub(crate) const MIN_CORNER: u8 = 0b000_0111;
    /// `q.min <= b.max` on x, y, z.
    pub(crate) const MAX_CORNER: u8 = 0b011_1000;
    /// `sum_down(q.min) <= diag`.
    pub(crate) const DIAGONAL: u8 = 0b100_0000;
    /// Both tests of slab `axis`.
    pub(crate) const fn slab(axis: usize) -> u8 {
        (1 << axis) | (1 << (3 + axis))
    }
}

/// Counts what passes a set of the seven tests (the stage-pass counts); no early exit, so every
/// tier runs the same loads.
#[derive(Clone)]
pub struct AabbsStagePrefix<'a> {
    pub(crate) cols: Cols<'a, 7>,
    pub(crate) q_min: [f32; 3],
    pub(crate) q_max: [f32; 3],
    pub(crate) q_sum: f32,
    /// Which tests (bits as in [`half_spaces`]).
    pub(crate) tests: u8,
}

impl Kernel for AabbsStagePrefix<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let zero = V::splat(0.0);
        let mut m = zero.le(zero);
        for axis in 0..3 {
            if self.tests & (1 << axis) != 0 {
                let lo = self.cols.load::<V>(axis, c, j);
                m = V::and(m, lo.le(V::splat(self.q_max[axis])));
            }
            if self.tests & (1 << (3 + axis)) != 0 {
                let hi = self.cols.load::<V>(3 + axis, c, j);
                m = V::and(m, V::splat(self.q_min[axis]).le(hi));
            }
        }
        if self.tests & half_spaces::DIAGONAL != 0 {
            let diag = self.cols.load::<V>(6, c, j);
            m = V::and(m, V::splat(self.q_sum).le(diag));
        }
        V::bits(m)
    }
}

/// A box query on `Aabbs` with its strategy chosen once per query (one `match` per call, then the
/// whole batch runs one kernel).
#[derive(Clone)]
pub enum BoxKernel<'a> {
    /// Six comparisons per block, no early exit.
    Direct(super::AabbsVsBox<'a>),
    /// Min corner, then max corner.
    MinMax(AabbsVsBoxMinMax<'a>),
    /// Slab by slab.
    Xyz(AabbsVsBoxXyz<'a>),
    /// Min corner and diagonal, then max corner.
    SevenSided(AabbsVsBoxSevenSided<'a>),
}

impl Prepared for BoxKernel<'_> {
    #[inline]
    fn run<S: Sink>(&self, backend: Backend, sink: S) -> S {
        match self {
            BoxKernel::Direct(k) => run(backend, k, sink),
            BoxKernel::MinMax(k) => run(backend, k, sink),
            BoxKernel::Xyz(k) => run(backend, k, sink),
            BoxKernel::SevenSided(k) => run(backend, k, sink),
        }
    }
    #[inline(always)]
    fn drive<V: Lanes, S: Sink>(&self, sink: S) -> S {
        match self {
            BoxKernel::Direct(k) => super::drive::<V, _, S>(k, sink),
            BoxKernel::MinMax(k) => super::drive::<V, _, S>(k, sink),
            BoxKernel::Xyz(k) => super::drive::<V, _, S>(k, sink),
            BoxKernel::SevenSided(k) => super::drive::<V, _, S>(k, sink),
        }
    }
    #[inline(always)]
    fn tile(&self, chunks: core::ops::Range<usize>) -> Self {
        match self {
            BoxKernel::Direct(k) => BoxKernel::Direct(Tiled::tile(k, chunks)),
            BoxKernel::MinMax(k) => BoxKernel::MinMax(Tiled::tile(k, chunks)),
            BoxKernel::Xyz(k) => BoxKernel::Xyz(Tiled::tile(k, chunks)),
            BoxKernel::SevenSided(k) => BoxKernel::SevenSided(Tiled::tile(k, chunks)),
        }
    }
    #[inline(always)]
    fn chunk<V: Lanes>(&self, chunk: usize) -> u32 {
        match self {
            BoxKernel::Direct(k) => super::chunk_masked::<V, _>(k, chunk),
            BoxKernel::MinMax(k) => super::chunk_masked::<V, _>(k, chunk),
            BoxKernel::Xyz(k) => super::chunk_masked::<V, _>(k, chunk),
            BoxKernel::SevenSided(k) => super::chunk_masked::<V, _>(k, chunk),
        }
    }
    #[inline(always)]
    fn chunk_unmasked<V: Lanes>(&self, chunk: usize) -> u32 {
        match self {
            BoxKernel::Direct(k) => super::chunk_bits::<V, _>(k, chunk),
            BoxKernel::MinMax(k) => super::chunk_bits::<V, _>(k, chunk),
            BoxKernel::Xyz(k) => super::chunk_bits::<V, _>(k, chunk),
            BoxKernel::SevenSided(k) => super::chunk_bits::<V, _>(k, chunk),
        }
    }
    const GROUPED: bool = true;
    /// The direct strategy's queries (every plain box query) a group at a time
    /// ([`Grouped`](super::group::Grouped)) where that pays; a group that holds a staged
    /// strategy's query (run to measure its stages) query by query.
    #[inline(always)]
    fn count_group<V: Lanes>(
        kernels: &[Self],
        chunks: core::ops::Range<usize>,
        counts: &mut [u32; 16],
    ) {
        let (BoxKernel::Direct(first), true) =
            (&kernels[0], super::group::group_pays::<V>(kernels.len()))
        else {
            return super::count_one_by_one::<V, Self>(kernels, chunks, counts);
        };
        let mut values = [first.values(); 16];
        for (v, k) in values.iter_mut().zip(kernels) {
            let BoxKernel::Direct(k) = k else {
                return super::count_one_by_one::<V, Self>(kernels, chunks, counts);
            };
            *v = k.values();
        }
        super::group::count_group::<V, _>(first, &values, chunks, counts);
    }
}
