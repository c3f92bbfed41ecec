//! Kernels: one generic body per primitive pair, written once over [`Lanes`], and the driver that
//! walks a container chunk by chunk and hands each 16-lane chunk's hit mask to a [`Sink`].
//!
//! A kernel is a prepared query bound to a container's columns ([`Kernel`]); `block` evaluates one
//! vector of `V::N` primitives and returns their hit bits. [`drive`] is the only loop: it
//! assembles chunk masks, masks the padding lanes of the last chunk, opens output windows and stops
//! early when the sink asks. [`run`] hands a kernel and its sink to the ISA layer's one
//! [`dispatch`] as a job; the whole query then runs on one tier. [`Prepared`] is what a bound query
//! is: one kernel, or [`Either`] of two chosen once per query. Nothing here names a tier.

mod box_box;
mod box_staged;
#[cfg(test)]
mod drive_tests;
mod frustum;
mod group;
mod obb_obb;
mod octahedron;
mod pairwise;
mod sphere_box;
mod sphere_obb;
mod sphere_sphere;
mod tet;
mod view_volume;

pub use box_box::AabbsInsideBox;
pub use box_box::AabbsVsBox;
pub(crate) use box_box::box_overlaps;
pub(crate) use box_staged::half_spaces;
pub use box_staged::{
    AabbsStagePrefix, AabbsVsBoxMinMax, AabbsVsBoxSevenSided, AabbsVsBoxXyz, BoxKernel,
};
pub use frustum::AabbsInsideFrustum;
pub(crate) use frustum::PlaneConstants;
pub use frustum::{AabbsVsFrustum, SpheresVsFrustum};
pub(crate) use obb_obb::{AABB_QUERY_SCALE, MARGIN_FLOOR, OBB_QUERY_SCALE};
pub use obb_obb::{AabbsNearObb, AabbsNearObbFaces, AabbsVsObb, ObbsVsObb};
pub use octahedron::OctahedraVsOctahedron;
pub(crate) use octahedron::intersection_sums_meet;
pub use pairwise::{AabbPairs, OctahedronPairs, SphereAabbPairs, SphereObbPairs};
pub(crate) use sphere_box::HUGE_RADIUS_SCALE;
pub use sphere_box::{AabbsVsSphere, SpheresVsBox};
pub use sphere_obb::{AabbsNearSphere, ObbsVsSphere, ObbsVsSphereConservative};
pub use sphere_sphere::SpheresVsSphere;
pub(crate) use sphere_sphere::spheres_overlap;
pub(crate) use tet::all_le;
pub use tet::{TetsAbove, TetsBelow};
pub(crate) use view_volume::{SpheresVsViewVolume, ViewVolume};

pub(crate) use crate::soa::Cols;

use crate::lanes::{Backend, Chunk, Lanes, WithLanes, dispatch};
use core::ops::Range;

/// A query prepared against one container: evaluates blocks of `V::N` primitives. `Clone`, so
/// that the wide tiers can run on a copy (see `Drive`).
pub trait Kernel: Clone {
    /// Whether the driver software-pipelines an index writer's output for this kernel (a
    /// [`Sink::MASKS_AHEAD`] sink, on the 8- and 16-lane tiers; see [`drive`]). Chosen per
    /// kernel by measurement (2026-11-26, AMD Zen 5, `extend_hits` over `count_hits` at 4,096
    /// primitives, eight sets cycled; `docs/benchmarks.md`, "Limit rows"): it pays for the sphere
    /// against boxes, whose few operations per lane leave the loads in charge (half the boxes
    /// hit, AVX-512: 1.39-1.45x chunk by chunk, 1.08-1.15x pipelined), and costs the other pairs
    /// measured, with four chunks of work in flight (frustum against boxes on AVX-512: 1.01-1.16x
    /// chunk by chunk, 1.68-1.94x pipelined; boxes and tetrahedra 0.15-0.4 more).
    const PIPELINE_OUTPUT: bool = false;
    /// Number of primitives (lanes past it are padding).
    fn len(&self) -> usize;
    /// Hit bits of lanes `chunk * 16 + j * V::N ..` (bit `i` = lane `i` of the block, `V::N`
    /// bits). Padding lanes may be set; the driver masks them.
    fn block<V: Lanes>(&self, chunk: usize, j: usize) -> u32;
}

/// Where hit masks go: a count, a bitmap, an index list, or an early exit.
pub trait Sink {
    /// Whether the driver may run software-pipelined for this sink: on the 8- and 16-lane tiers,
    /// for a kernel with [`Kernel::PIPELINE_OUTPUT`], over the container's whole four-chunk
    /// windows (the chunks after the last whole window, and containers of fewer than four full
    /// chunks, are pushed one by one) it computes a window's masks and [`pack`](Self::pack)s
    /// them, then pushes the window before it ([`push_packed`](Self::push_packed)). For a sink
    /// whose stores go to an address that depends on the masks before (an index writer): those
    /// addresses are then known before the next window's loads issue, which would otherwise
    /// wait behind the stores.
    const MASKS_AHEAD: bool = false;
    /// Called once, before the first `push`, with the number of lanes the driver will push (an
    /// index writer makes room for all of them here, so that no call to the allocator sits in the
    /// loop: a call there made the compiler keep the query's vectors on the stack).
    #[inline(always)]
    fn reserve(&mut self, lanes: usize) {
        let _ = lanes;
    }
    /// Takes the 16 hit bits of the chunk starting at primitive `base` (bit `i` = primitive
    /// `base + i`); returns `true` to stop.
    fn push<V: Lanes>(&mut self, base: u32, bits: u32) -> bool;
    /// For a [`MASKS_AHEAD`](Self::MASKS_AHEAD) sink: the part of a chunk's output that needs
    /// no output address, prepared when the chunk's mask is computed and handed back to
    /// [`push_packed`](Self::push_packed) a window later. The default packs the chunk's indices.
    #[inline(always)]
    fn pack<V: Lanes>(&self, base: u32, bits: u32) -> V::PackedIndices {
        V::pack_chunk_indices(bits, base)
    }
    /// [`push`](Self::push) with what [`pack`](Self::pack) prepared of the chunk; the default
    /// ignores it.
    #[inline(always)]
    fn push_packed<V: Lanes>(&mut self, base: u32, bits: u32, packed: V::PackedIndices) -> bool {
        let _ = packed;
        self.push::<V>(base, bits)
    }
    /// Called once, on the tier, after the last chunk was pushed (not after a `push` or
    /// `push_packed` that returned `true`): a sink that holds work back finishes it here.
    #[inline(always)]
    fn finish<V: Lanes>(&mut self) {}
}

// Kernels avoid closures and `array::map` on lane values: they do not reliably inline into the
// AVX2 `#[target_feature]` entry point, and an out-of-line call passes `__m256` through memory.

/// All `V::N` lane bits set: a block's mask when every lane hits.
#[inline(always)]
pub(crate) fn all_lanes<V: Lanes>() -> u32 {
    (1u32 << V::N) - 1
}

/// Three query values splatted.
#[inline(always)]
pub(crate) fn splat3<V: Lanes>(v: [f32; 3]) -> [V; 3] {
    [V::splat(v[0]), V::splat(v[1]), V::splat(v[2])]
}

/// Four query values splatted.
#[inline(always)]
pub(crate) fn splat4<V: Lanes>(v: [f32; 4]) -> [V; 4] {
    [
        V::splat(v[0]),
        V::splat(v[1]),
        V::splat(v[2]),
        V::splat(v[3]),
    ]
}

/// Hit bits of one 16-lane chunk: bit `i` = lane `i`, assembled from its `16 / V::N` blocks.
#[inline(always)]
fn chunk_bits<V: Lanes, K: Kernel>(kernel: &K, chunk: usize) -> u32 {
    // Written out for the 8- and 4-lane tiers: LLVM leaves a two-iteration loop rolled when the
    // kernel's rare path is large (the exact octahedron test), and then spills the query's
    // registers; unrolled, the exact test runs as fast as the conservative one.
    match Chunk::LANES / V::N {
        2 => kernel.block::<V>(chunk, 0) | kernel.block::<V>(chunk, 1) << V::N,
        4 => {
            (kernel.block::<V>(chunk, 0) | kernel.block::<V>(chunk, 1) << V::N)
                | (kernel.block::<V>(chunk, 2) << (2 * V::N)
                    | kernel.block::<V>(chunk, 3) << (3 * V::N))
        }
        blocks => {
            let mut bits = 0;
            for j in 0..blocks {
                bits |= kernel.block::<V>(chunk, j) << (j * V::N);
            }
            bits
        }
    }
}

/// The four chunks from `chunk` on: their hit bits and what the sink packs of them.
#[inline(always)]
fn four_chunks<V: Lanes, K: Kernel, S: Sink>(
    kernel: &K,
    sink: &S,
    chunk: usize,
) -> [(u32, V::PackedIndices); 4] {
    [
        one_chunk::<V, K, S>(kernel, sink, chunk),
        one_chunk::<V, K, S>(kernel, sink, chunk + 1),
        one_chunk::<V, K, S>(kernel, sink, chunk + 2),
        one_chunk::<V, K, S>(kernel, sink, chunk + 3),
    ]
}

/// One chunk's hit bits and what the sink packs of them.
#[inline(always)]
fn one_chunk<V: Lanes, K: Kernel, S: Sink>(
    kernel: &K,
    sink: &S,
    chunk: usize,
) -> (u32, V::PackedIndices) {
    let bits = chunk_bits::<V, K>(kernel, chunk);
    (bits, sink.pack::<V>((chunk * Chunk::LANES) as u32, bits))
}

/// Pushes the four chunks from `chunk` on; `true` if the sink asked to stop.
#[inline(always)]
fn push_four<V: Lanes, S: Sink>(
    sink: &mut S,
    chunk: usize,
    held: [(u32, V::PackedIndices); 4],
) -> bool {
    for (k, &(bits, packed)) in held.iter().enumerate() {
        if sink.push_packed::<V>(((chunk + k) * Chunk::LANES) as u32, bits, packed) {
            return true;
        }
    }
    false
}

/// The chunk loop runs in stretches of this many chunks, but on the 8-lane tier as one flat loop,
/// for no reason but measured ones (LLVM lays the two shapes out differently, and this machine's
/// cache-resident and branchy rows move with the layout): flat, the scalar tier's tetrahedron
/// count (`limit`, 4,096) took 1.2x the time and AVX-512's sphere against 1M oriented boxes 1.13x;
/// in stretches, the AVX2 tier's batched exact octahedron count (`aabo`) took 1.2x. Measured
/// against 269dbbf on 2026-11-26 (AMD Zen 5); re-measure before changing the loop.
const STRETCH_CHUNKS: usize = 64;

/// The one loop every query runs: all full chunks, then the last chunk with its padding lanes
/// masked off. The sink sees one 16-bit mask per chunk, in order.
#[inline(always)]
pub(crate) fn drive<V: Lanes, K: Kernel, S: Sink>(kernel: &K, mut sink: S) -> S {
    let len = kernel.len();
    let full = len / Chunk::LANES;
    sink.reserve(len);
    let mut chunk = 0;
    if S::MASKS_AHEAD && K::PIPELINE_OUTPUT && V::N >= 8 && chunk + 4 <= full {
        // Software-pipelined by one window of four chunks: a window's masks are computed and its
        // indices packed, then the window before it is stored. An index writer's store address
        // depends on the masks before it; stored a window late, it is known long before the
        // loads after it issue, which otherwise wait behind it (measured: AVX-512 `extend_hits`
        // of a sphere over 4,096 boxes, half hit, 1.39-1.45x `count_hits` stored at once,
        // 1.08-1.15x a window late; docs/benchmarks.md, "Limit rows").
        let mut held = four_chunks::<V, K, S>(kernel, &sink, chunk);
        let mut held_at = chunk;
        chunk += 4;
        while chunk + 4 <= full {
            let next = four_chunks::<V, K, S>(kernel, &sink, chunk);
            if push_four::<V, S>(&mut sink, held_at, held) {
                return sink;
            }
            held = next;
            held_at = chunk;
            chunk += 4;
        }
        if push_four::<V, S>(&mut sink, held_at, held) {
            return sink;
        }
    }
    if V::N != 8 {
        while chunk < full {
            let end = full.min(chunk + STRETCH_CHUNKS);
            while chunk < end {
                let bits = chunk_bits::<V, K>(kernel, chunk);
                if sink.push::<V>((chunk * Chunk::LANES) as u32, bits) {
                    return sink;
                }
                chunk += 1;
            }
        }
    } else {
        while chunk < full {
            let bits = chunk_bits::<V, K>(kernel, chunk);
            if sink.push::<V>((chunk * Chunk::LANES) as u32, bits) {
                return sink;
            }
            chunk += 1;
        }
    }
    let rest = len - full * Chunk::LANES;
    if rest > 0 {
        let bits = chunk_bits::<V, K>(kernel, full) & ((1u32 << rest) - 1);
        if sink.push::<V>((full * Chunk::LANES) as u32, bits) {
            return sink;
        }
    }
    sink.finish::<V>();
    sink
}

/// A kernel and a sink on their way down to a tier: the [`WithLanes`] job of one query.
struct Drive<'k, K, S> {
    kernel: &'k K,
    sink: S,
}

impl<K: Kernel, S: Sink> WithLanes for Drive<'_, K, S> {
    type Output = S;
    #[inline(always)]
    fn run<V: Lanes>(self) -> S {
        if V::ENTRY_POINT_IS_A_CALL {
            // Behind the x86 tiers' `#[target_feature]` call the kernel reference inside the
            // job carries no no-alias guarantee, and with an index sink storing hits the
            // compiler reloaded and re-checked every column per chunk (AVX-512 `extend_hits` of
            // a sphere over 32,768 boxes 1.2x slower). A copy is a local of the entry point,
            // kept in registers. The scalar and SSE tiers are inlined into the caller, where the
            // reference is a no-alias argument; a copy there cost the scalar tier 8 % more
            // instructions (sphere against 4,096 oriented boxes).
            let kernel = self.kernel.clone();
            drive::<V, K, S>(&kernel, self.sink)
        } else {
            drive::<V, K, S>(self.kernel, self.sink)
        }
    }
}

/// Runs `kernel` over its container on `backend` (one [`dispatch`] per call) and returns the
/// sink, which travels by value through the tier's loop and comes back.
///
/// # Panics
/// If `backend` does not run on this CPU (a bug guard: see [`dispatch`]).
#[inline]
#[must_use]
pub(crate) fn run<K: Kernel, S: Sink>(backend: Backend, kernel: &K, sink: S) -> S {
    dispatch(backend, Drive { kernel, sink })
}

/// A kernel whose query can be restricted to a stretch of its container's chunks (the tiles of a
/// batch of queries, `query/many.rs`).
pub trait Tiled: Kernel {
    /// Whether a batch counts this kernel's queries a group at a time
    /// ([`Grouped`](group::Grouped)) rather than one by one (see [`Prepared::GROUPED`]).
    const GROUPED: bool = false;
    /// The same query over chunks `chunks` only: primitive `chunks.start * 16` becomes primitive
    /// 0; the last chunk keeps its padding.
    fn tile(&self, chunks: Range<usize>) -> Self;
    /// See [`Prepared::count_group`]; one query at a time unless the kernel is
    /// [`Grouped`](group::Grouped).
    #[inline(always)]
    fn count_group<V: Lanes>(kernels: &[Self], chunks: Range<usize>, counts: &mut [u32; 16]) {
        count_one_by_one::<V, Self>(kernels, chunks, counts);
    }
}

/// [`Prepared::count_group`] one query at a time.
#[inline(always)]
fn count_one_by_one<V: Lanes, P: Prepared>(
    kernels: &[P],
    chunks: Range<usize>,
    counts: &mut [u32; 16],
) {
    for (count, kernel) in counts.iter_mut().zip(kernels) {
        // A tile of a batch holds at most 16,384 primitives: the count fits a u32.
        *count = kernel.tile(chunks.clone()).drive::<V, _>(Count(0)).0 as u32;
    }
}

/// Counts hits (the sinks that write hits out are the query layer's, `query/sink.rs`).
pub(crate) struct Count(pub(crate) usize);

impl Sink for Count {
    #[inline(always)]
    fn push<V: Lanes>(&mut self, _base: u32, bits: u32) -> bool {
        self.0 += V::count_chunk(bits);
        false
    }
}

/// `Tiled` for kernels that read one `cols` view and hold the query by value.
macro_rules! tiled {
    ($([$($generics:tt)*] $kernel:ty;)*) => {$(
        impl<$($generics)*> Tiled for $kernel {
            #[inline(always)]
            fn tile(&self, chunks: Range<usize>) -> Self {
                let mut k = self.clone();
                k.cols = self.cols.chunks(chunks);
                k
            }
        }
    )*};
}

tiled! {
    ['a] AabbsInsideBox<'a>;
    ['a] AabbsInsideFrustum<'a>;
    ['a] AabbsVsBoxMinMax<'a>;
    ['a] AabbsVsBoxXyz<'a>;
    ['a] AabbsVsBoxSevenSided<'a>;
    ['a, const WIDE: bool] AabbsVsFrustum<'a, WIDE>;
    ['a] SpheresVsFrustum<'a>;
    ['a] ObbsVsObb<'a>;
    ['a] AabbsVsObb<'a>;
    ['a] AabbsNearObb<'a>;
    ['a] AabbsNearObbFaces<'a>;
    ['a] AabbsNearSphere<'a>;
    ['a, const SCALED: bool] AabbsVsSphere<'a, SCALED>;
    ['a] SpheresVsBox<'a>;
    ['a, const SCALED: bool] ObbsVsSphere<'a, SCALED>;
    ['a] ObbsVsSphereConservative<'a>;
    ['a, const SCALED: bool] SpheresVsSphere<'a, SCALED>;
}

/// `Tiled` for [`Grouped`](group::Grouped) kernels that read one `cols` view and hold the query
/// by value: their batches count a group of queries at a time.
macro_rules! tiled_grouped {
    ($([$($generics:tt)*] $kernel:ty;)*) => {$(
        impl<$($generics)*> Tiled for $kernel {
            const GROUPED: bool = true;
            #[inline(always)]
            fn tile(&self, chunks: Range<usize>) -> Self {
                let mut k = self.clone();
                k.cols = self.cols.chunks(chunks);
                k
            }
            #[inline(always)]
            fn count_group<V: Lanes>(
                kernels: &[Self],
                chunks: Range<usize>,
                counts: &mut [u32; 16],
            ) {
                if !group::group_pays::<V>(kernels.len()) {
                    return count_one_by_one::<V, Self>(kernels, chunks, counts);
                }
                let values = group::values_of(kernels);
                group::count_group::<V, Self>(&kernels[0], &values, chunks, counts);
            }
        }
    )*};
}

tiled_grouped! {
    ['a] AabbsVsBox<'a>;
    ['a, const EXACT: bool] OctahedraVsOctahedron<'a, EXACT>;
    ['a] TetsBelow<'a>;
    ['a] TetsAbove<'a>;
}

/// A bound query ready to run: a [`Kernel`], or a choice between two made once per query.
pub trait Prepared: Sized {
    /// Runs over the whole container on `backend` (dispatching once) and returns the sink.
    fn run<S: Sink>(&self, backend: Backend, sink: S) -> S;
    /// [`drive`] with `V` lanes: for work already inside a tier (a [`WithLanes`] job), where
    /// [`run`](Prepared::run) would dispatch again.
    fn drive<V: Lanes, S: Sink>(&self, sink: S) -> S;
    /// The same query over chunks `chunks` of the container only (see [`Tiled`]).
    fn tile(&self, chunks: Range<usize>) -> Self;
    /// Hit bits of chunk `chunk` alone (bit `i` = primitive `chunk * 16 + i`), padding lanes
    /// cleared: for walks that pick their chunks (the blocked containers), inside a tier.
    fn chunk<V: Lanes>(&self, chunk: usize) -> u32;
    /// [`chunk`](Self::chunk) without clearing the padding lanes (they may be set): for a walk
    /// that masks the lanes itself (the blocked containers' levels, each padded to whole chunks
    /// inside one container).
    fn chunk_unmasked<V: Lanes>(&self, chunk: usize) -> u32;
    /// Whether [`count_group`](Self::count_group) tests a group of queries at once (the kernel
    /// is [`Grouped`](group::Grouped)); if not, a batch counts query by query, which it does
    /// without collecting the bound queries first.
    const GROUPED: bool = false;
    /// Inside a tier: the hits of each of `kernels` (one to `V::N` queries bound to one
    /// container) over chunks `chunks` (at most `2^32 - 1` primitives), into
    /// `counts[..kernels.len()]`; the rest of `counts` may be overwritten.
    #[inline(always)]
    fn count_group<V: Lanes>(kernels: &[Self], chunks: Range<usize>, counts: &mut [u32; 16]) {
        count_one_by_one::<V, Self>(kernels, chunks, counts);
    }
}

/// [`chunk_bits`] with the lanes past `kernel.len()` cleared.
#[inline(always)]
fn chunk_masked<V: Lanes, K: Kernel>(kernel: &K, chunk: usize) -> u32 {
    let bits = chunk_bits::<V, K>(kernel, chunk);
    let rest = kernel.len() - chunk * Chunk::LANES;
    if rest < Chunk::LANES {
        bits & ((1u32 << rest) - 1)
    } else {
        bits
    }
}

impl<K: Tiled> Prepared for K {
    #[inline]
    fn run<S: Sink>(&self, backend: Backend, sink: S) -> S {
        run(backend, self, sink)
    }
    #[inline(always)]
    fn drive<V: Lanes, S: Sink>(&self, sink: S) -> S {
        drive::<V, K, S>(self, sink)
    }
    #[inline(always)]
    fn tile(&self, chunks: Range<usize>) -> Self {
        Tiled::tile(self, chunks)
    }
    #[inline(always)]
    fn chunk<V: Lanes>(&self, chunk: usize) -> u32 {
        chunk_masked::<V, K>(self, chunk)
    }
    #[inline(always)]
    fn chunk_unmasked<V: Lanes>(&self, chunk: usize) -> u32 {
        chunk_bits::<V, K>(self, chunk)
    }
    const GROUPED: bool = K::GROUPED;
    #[inline(always)]
    fn count_group<V: Lanes>(kernels: &[Self], chunks: Range<usize>, counts: &mut [u32; 16]) {
        K::count_group::<V>(kernels, chunks, counts);
    }
}

/// One of two kernels, chosen when the query is bound, so that a rare variant (a huge sphere that
/// needs scaling) costs nothing in the common one's loop.
#[derive(Clone)]
pub enum Either<A, B> {
    /// The common kernel.
    Common(A),
    /// The rare kernel.
    Rare(B),
}

impl<A: Tiled, B: Tiled> Prepared for Either<A, B> {
    #[inline]
    fn run<S: Sink>(&self, backend: Backend, sink: S) -> S {
        match self {
            Either::Common(k) => run(backend, k, sink),
            Either::Rare(k) => run(backend, k, sink),
        }
    }
    #[inline(always)]
    fn drive<V: Lanes, S: Sink>(&self, sink: S) -> S {
        match self {
            Either::Common(k) => drive::<V, A, S>(k, sink),
            Either::Rare(k) => drive::<V, B, S>(k, sink),
        }
    }
    #[inline(always)]
    fn tile(&self, chunks: Range<usize>) -> Self {
        match self {
            Either::Common(k) => Either::Common(Tiled::tile(k, chunks)),
            Either::Rare(k) => Either::Rare(Tiled::tile(k, chunks)),
        }
    }
    #[inline(always)]
    fn chunk<V: Lanes>(&self, chunk: usize) -> u32 {
        match self {
            Either::Common(k) => chunk_masked::<V, A>(k, chunk),
            Either::Rare(k) => chunk_masked::<V, B>(k, chunk),
        }
    }
    #[inline(always)]
    fn chunk_unmasked<V: Lanes>(&self, chunk: usize) -> u32 {
        match self {
            Either::Common(k) => chunk_bits::<V, A>(k, chunk),
            Either::Rare(k) => chunk_bits::<V, B>(k, chunk),
        }
    }
}
