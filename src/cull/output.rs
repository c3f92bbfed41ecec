//! The two outputs of a light assignment: CSR lists and bitmasks, both plain `u32` slices
//! (`bytemuck`-castable) for GPU upload.

use super::split::{CellSplit, CollectRuns, SplitScratch, write_lists, write_masks};
use crate::query::HitLists;

/// Per-cell light lists in CSR form: the lights of cell `c` are
/// `indices[offsets[c] as usize..offsets[c + 1] as usize]`, ascending.
///
/// [`ClusterGrid::assign_into`](super::ClusterGrid::assign_into) refills a `LightLists` from one
/// frame to the next, reusing its two arrays and the scratch it keeps for that purpose (so a
/// steady frame allocates nothing that grows with the lights or cells). Equality, `Clone` and
/// `Debug` see the lists only.
#[derive(Default)]
pub struct LightLists {
    /// `cells + 1` offsets into `indices`, starting at 0.
    pub offsets: Vec<u32>,
    /// Light indices, cell after cell.
    pub indices: Vec<u32>,
    /// The runs and counts of the last assignment, kept only for their allocations.
    scratch: SplitScratch,
    /// The batch of a grid of few cells (`cells.rs`, `FEW_CELLS`), kept for its allocations.
    batch: HitLists,
}

impl PartialEq for LightLists {
    fn eq(&self, o: &LightLists) -> bool {
        self.offsets == o.offsets && self.indices == o.indices
    }
}

impl Clone for LightLists {
    fn clone(&self) -> LightLists {
        LightLists {
            offsets: self.offsets.clone(),
            indices: self.indices.clone(),
            ..LightLists::default()
        }
    }
}

impl core::fmt::Debug for LightLists {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LightLists")
            .field("offsets", &self.offsets)
            .field("indices", &self.indices)
            .finish()
    }
}

impl Eq for LightLists {}

impl LightLists {
    /// Empty lists (no cells), to be filled by
    /// [`ClusterGrid::assign_into`](super::ClusterGrid::assign_into).
    #[must_use]
    pub fn new() -> LightLists {
        LightLists::default()
    }

    /// Replaces the lists by those of an assignment split over the light tasks of `collect` and
    /// the cell ranges of `split` (see `split.rs`), reusing the arrays: `collect` (called in
    /// parallel) pushes each light task's runs, lights ascending.
    pub(crate) fn fill_split(&mut self, split: &CellSplit, collect: &impl CollectRuns) {
        let runs = self.scratch.collect(split, collect);
        write_lists(
            split,
            &runs,
            &mut self.scratch,
            &mut self.offsets,
            &mut self.indices,
        );
        self.scratch.keep_tasks(runs);
    }

    /// Fills the lists with `run`, a batch of the cells as queries (whose CSR lists per query are
    /// this type's per cell), lending it the lists' arrays.
    pub(crate) fn fill_batch(&mut self, run: impl FnOnce(&mut HitLists)) {
        core::mem::swap(&mut self.offsets, &mut self.batch.offsets);
        core::mem::swap(&mut self.indices, &mut self.batch.indices);
        run(&mut self.batch);
        core::mem::swap(&mut self.offsets, &mut self.batch.offsets);
        core::mem::swap(&mut self.indices, &mut self.batch.indices);
    }

    /// Number of cells.
    #[must_use]
    pub fn cells(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// The lights of cell `c`, ascending (empty past the last cell, or when the public fields
    /// hold offsets that are no range of `indices`).
    #[must_use]
    pub fn cell(&self, c: usize) -> &[u32] {
        match (self.offsets.get(c), self.offsets.get(c.saturating_add(1))) {
            (Some(&a), Some(&b)) => self.indices.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// One bitset of lights per cell: bit `l % 32` of word `l / 32` of cell `c` (in
/// [`words`](Self::words), `c * words_per_cell()` words in) is set iff light `l` meets cell `c`.
/// Reused across frames: [`ClusterGrid::assign_masks`](super::ClusterGrid::assign_masks) resizes
/// it in place (and keeps scratch buffers for the next call). Equality, `Clone` and `Debug` see
/// the masks only.
#[derive(Default)]
pub struct LightMasks {
    words_per_cell: usize,
    words: Vec<u32>,
    /// The runs of the last assignment, kept only for their allocations.
    scratch: SplitScratch,
}

impl Clone for LightMasks {
    fn clone(&self) -> LightMasks {
        LightMasks {
            words_per_cell: self.words_per_cell,
            words: self.words.clone(),
            scratch: SplitScratch::default(),
        }
    }
}

impl core::fmt::Debug for LightMasks {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LightMasks")
            .field("words_per_cell", &self.words_per_cell)
            .field("words", &self.words)
            .finish()
    }
}

impl PartialEq for LightMasks {
    fn eq(&self, o: &LightMasks) -> bool {
        self.words_per_cell == o.words_per_cell && self.words == o.words
    }
}

impl Eq for LightMasks {}

impl LightMasks {
    /// An empty set of masks (it grows on first use).
    #[must_use]
    pub fn new() -> LightMasks {
        LightMasks::default()
    }

    /// Resizes to `cells` masks of `lights` bits, leaving the words to be cleared by
    /// [`fill_split`](Self::fill_split).
    pub(crate) fn reset(&mut self, cells: usize, lights: usize) {
        self.words_per_cell = lights.div_ceil(32);
        self.words.resize(cells * self.words_per_cell, 0);
    }

    /// Sets the bits of an assignment split over the light tasks of `collect` and the cell
    /// ranges of `split` (see `split.rs`): `collect` (called in parallel) pushes each light
    /// task's runs.
    pub(crate) fn fill_split(&mut self, split: &CellSplit, collect: &impl CollectRuns) {
        let runs = self.scratch.collect(split, collect);
        write_masks(split, &runs, &mut self.words, self.words_per_cell);
        self.scratch.keep_tasks(runs);
    }

    /// Words per cell (`lights.div_ceil(32)`).
    #[must_use]
    pub fn words_per_cell(&self) -> usize {
        self.words_per_cell
    }

    /// Every cell's mask, cell after cell.
    #[must_use]
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// The mask of cell `c` (empty past the last cell).
    #[must_use]
    pub fn cell(&self, c: usize) -> &[u32] {
        let w = self.words_per_cell;
        let start = c.saturating_mul(w);
        self.words
            .get(start..start.saturating_add(w))
            .unwrap_or(&[])
    }

    /// Whether light `l` is set in cell `c`.
    #[must_use]
    pub fn contains(&self, c: usize, l: usize) -> bool {
        self.cell(c)
            .get(l / 32)
            .is_some_and(|w| w >> (l % 32) & 1 == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cull::runs::RunSink;

    /// A run starting where an earlier one ends: its +1 lands on the earlier -1 (wrapping
    /// arithmetic: a debug build once panicked here), and the counts are still per cell.
    #[test]
    fn runs_that_abut_count_once_per_cell() {
        let split = CellSplit::new(6, 2, 2, 1);
        let mut lists = LightLists::new();
        struct Abutting;
        impl CollectRuns for Abutting {
            fn tasks(&self) -> usize {
                1
            }
            fn collect<S: RunSink>(&self, _: usize, mut runs: S) -> S {
                runs.push(0, 2, 0); // cells 0, 2
                runs.push(4, 1, 1); // cell 4, where the first run's -1 went
                runs.push(1, 3, 2); // cells 1, 3, 5
                runs
            }
        }
        lists.fill_split(&split, &Abutting);
        assert_eq!(lists.offsets, [0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(lists.indices, [0, 2, 0, 2, 1, 2]);
    }
}
