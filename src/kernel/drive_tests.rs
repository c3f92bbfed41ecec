//! [`drive`](super::drive) on every backend with a synthetic kernel and a recording sink: every
//! chunk pushed once, in order, with its base and its bits, padding lanes cleared, the early stop
//! honoured (no `finish` after it), in both loop shapes (`Kernel::PIPELINE_OUTPUT` on and off)
//! and at every length around the windows' edges.

use super::{Kernel, Sink, run};
use crate::lanes::{Backend, Chunk, Lanes};

/// Bit `i` of primitive `i`'s hash: about half the lanes hit, a different pattern per chunk,
/// the same on every tier (computed per lane, not per block).
fn hit(i: usize) -> u32 {
    let h = (i as u64 ^ 0x9e37_79b9_7f4a_7c15).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    ((h >> 31) & 1) as u32
}

/// A kernel over `len` primitives whose lane `i` hits iff `hit(i)`, padding lanes included (the
/// driver must clear those).
#[derive(Clone)]
struct Hashed<const PIPELINE: bool> {
    len: usize,
}

impl<const PIPELINE: bool> Kernel for Hashed<PIPELINE> {
    const PIPELINE_OUTPUT: bool = PIPELINE;
    fn len(&self) -> usize {
        self.len
    }
    fn block<V: Lanes>(&self, chunk: usize, j: usize) -> u32 {
        let first = chunk * Chunk::LANES + j * V::N;
        (0..V::N).map(|i| hit(first + i) << i).sum()
    }
}

/// Records every `(base, bits)` pushed, through the default `pack` / `push_packed` (so that the
/// base the pipelined loop hands on reaches `push`), and stops after `stop_after` pushes.
struct Recorder {
    pushed: Vec<(u32, u32)>,
    stop_after: usize,
    finished: usize,
}

impl Sink for Recorder {
    const MASKS_AHEAD: bool = true;
    fn push<V: Lanes>(&mut self, base: u32, bits: u32) -> bool {
        self.pushed.push((base, bits));
        self.pushed.len() >= self.stop_after
    }
    fn finish<V: Lanes>(&mut self) {
        self.finished += 1;
    }
}

/// What `drive` must push for `len` primitives stopping after `stop_after` pushes, and whether it
/// calls `finish`.
fn expected(len: usize, stop_after: usize) -> (Vec<(u32, u32)>, usize) {
    let chunks = len.div_ceil(Chunk::LANES);
    let all: Vec<(u32, u32)> = (0..chunks)
        .map(|c| {
            let base = c * Chunk::LANES;
            let bits = (0..Chunk::LANES)
                .filter(|&i| base + i < len)
                .map(|i| hit(base + i) << i)
                .sum();
            (base as u32, bits)
        })
        .collect();
    if stop_after <= all.len() {
        (all[..stop_after].to_vec(), 0)
    } else {
        (all, 1)
    }
}

fn check<const PIPELINE: bool>() {
    let lengths = (0..=200).chain([255, 256, 257, 1000, 1024, 4100]);
    for len in lengths {
        for stop_after in [usize::MAX, 1, 3, 4, 5, 8, 9, 13] {
            let want = expected(len, stop_after);
            for &backend in Backend::available() {
                let sink = Recorder {
                    pushed: Vec::new(),
                    stop_after,
                    finished: 0,
                };
                let got = run(backend, &Hashed::<PIPELINE> { len }, sink);
                assert_eq!(
                    (got.pushed, got.finished),
                    want,
                    "{backend:?} pipeline {PIPELINE} len {len} stop after {stop_after}"
                );
            }
        }
    }
}

#[test]
fn every_chunk_once_in_order_chunk_by_chunk() {
    check::<false>();
}

#[test]
fn every_chunk_once_in_order_pipelined() {
    check::<true>();
}
