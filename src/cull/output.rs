//! The two outputs of a light assignment: CSR lists and bitmasks, both plain `u32` slices
//! (`bytemuck`-castable) for GPU upload.

/// Per-cell light lists in CSR form: the lights of cell `c` are
/// `indices[offsets[c] as usize..offsets[c + 1] as usize]`, ascending.
///
/// [`ClusterGrid::assign_into`](super::ClusterGrid::assign_into) refills a `LightLists` from one
/// frame to the next, reusing its two arrays and the scratch it keeps for that purpose (so a
/// steady frame allocates nothing). Equality, `Clone` and `Debug` see the lists only.
#[derive(Default)]
pub struct LightLists {
    /// `cells + 1` offsets into `indices`, starting at 0.
    pub offsets: Vec<u32>,
    /// Light indices, cell after cell.
    pub indices: Vec<u32>,
    /// The runs of the last one-task assignment and the per-cell counts and cursors: kept only
    /// for their allocations.
    runs: CellRuns,
    cursors: Vec<u32>,
    /// The lists of each task of the last split assignment, kept for their allocations.
    parts: Vec<LightLists>,
}

/// The documented panic of an assignment whose offsets would pass `u32::MAX`.
const TOO_MANY_PAIRS: &str = "more than u32::MAX (cell, light) pairs: CSR offsets are u32";

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

    /// Replaces the lists by those of runs of cells given in ascending light order (a stable
    /// counting sort by cell keeps the lights ascending within each cell), reusing the arrays.
    /// The counts take one pass over the runs, not the pairs: each run adds 1 at its first cell
    /// and -1 one step past its last, and a prefix sum along each chain `c, c + step, ...` turns
    /// those into per-cell counts. Then one pass over the pairs writes them. (Expanding each
    /// run's first four cells branch-free, with the cells past its end writing to a scratch
    /// slot, ran more instructions and was no faster on the indoor scene.)
    pub(crate) fn fill(&mut self, cells: usize, runs: &CellRuns) {
        let cursors = &mut self.cursors;
        runs.counts(cells, cursors);
        self.offsets.clear();
        self.offsets.push(0u32);
        let mut total = 0u32;
        for c in &mut cursors[..cells] {
            // The count becomes the cell's first slot.
            let n = *c;
            *c = total;
            total = total.checked_add(n).expect(TOO_MANY_PAIRS);
            self.offsets.push(total);
        }
        self.indices.clear();
        self.indices.resize(total as usize, 0);
        let indices = &mut self.indices;
        runs.for_each_pair(|c, l| {
            let slot = &mut cursors[c as usize];
            indices[*slot as usize] = l;
            *slot += 1;
        });
    }

    /// Replaces the lists by those of the runs `collect` writes into a buffer (cleared first,
    /// and kept for the next call).
    pub(crate) fn fill_with(&mut self, cells: usize, collect: impl FnOnce(&mut CellRuns)) {
        let mut runs = core::mem::take(&mut self.runs);
        collect(&mut runs);
        self.fill(cells, &runs);
        self.runs = runs;
    }

    /// `tasks` lists kept from the last split assignment (or new ones), to be filled by one task
    /// each and then [`join`](Self::join)ed.
    pub(crate) fn take_parts(&mut self, tasks: usize) -> Vec<LightLists> {
        let mut parts = core::mem::take(&mut self.parts);
        parts.resize_with(tasks, LightLists::default);
        parts
    }

    /// Replaces the lists by the join of those of consecutive light ranges (`parts` in light
    /// order, kept afterwards for their allocations), reusing the arrays: cell `c` lists part
    /// 0's lights of `c`, then part 1's, and so on. (Copying is cheap next to the sorting each
    /// part did in its own task; a second parallel call would cost more in waking the pool than
    /// it saves.)
    pub(crate) fn join(&mut self, cells: usize, parts: Vec<LightLists>) {
        self.offsets.clear();
        self.offsets.push(0u32);
        self.indices.clear();
        for c in 0..cells {
            for p in &parts {
                self.indices.extend_from_slice(p.cell(c));
            }
            self.offsets
                .push(u32::try_from(self.indices.len()).expect(TOO_MANY_PAIRS));
        }
        self.parts = parts;
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

/// The cells each light of a range meets, as runs `start, start + step, ...` (`n` cells, the
/// same `step` for every run), lights ascending: what one task of an assignment produces, before
/// it becomes lists or masks. A run is 12 bytes where its `(cell, light)` pairs would take 8
/// each, and the pairs are only spelled out by the pass that writes them.
#[derive(Clone, Debug, Default)]
pub(crate) struct CellRuns {
    step: u32,
    /// `[start, n, light]`.
    runs: Vec<[u32; 3]>,
}

impl CellRuns {
    /// Drops the runs (keeping the allocation); every run from now on steps by `step`.
    pub(crate) fn reset(&mut self, step: u32) {
        self.step = step;
        self.runs.clear();
    }

    /// Adds the run of `n >= 1` cells from `start` met by `light` (lights ascending).
    #[inline]
    pub(crate) fn push(&mut self, start: u32, n: u32, light: u32) {
        self.runs.push([start, n, light]);
    }

    /// Calls `f(cell, light)` for every pair, run after run.
    #[inline]
    pub(crate) fn for_each_pair(&self, mut f: impl FnMut(u32, u32)) {
        let step = self.step;
        for &[start, n, light] in &self.runs {
            let mut c = start;
            for _ in 0..n {
                f(c, light);
                c = c.wrapping_add(step);
            }
        }
    }

    /// Fills the first `cells` entries of `counts` with the number of runs through each cell
    /// (every run lies in `0..cells`); the entries after them are scratch.
    fn counts(&self, cells: usize, counts: &mut Vec<u32>) {
        let step = self.step as usize;
        // One step of room past the last cell for the -1 of runs that end there.
        counts.clear();
        counts.resize(cells + step, 0);
        for &[start, n, _] in &self.runs {
            counts[start as usize] = counts[start as usize].wrapping_add(1);
            let end = start as usize + n as usize * step;
            counts[end] = counts[end].wrapping_sub(1);
        }
        for c in step..cells {
            counts[c] = counts[c].wrapping_add(counts[c - step]);
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
    /// The runs of each task of the last assignment, kept only for their allocations.
    runs: Vec<CellRuns>,
}

impl Clone for LightMasks {
    fn clone(&self) -> LightMasks {
        LightMasks {
            words_per_cell: self.words_per_cell,
            words: self.words.clone(),
            runs: Vec::new(),
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

    /// Clears and resizes to `cells` masks of `lights` bits.
    pub(crate) fn reset(&mut self, cells: usize, lights: usize) {
        self.words_per_cell = lights.div_ceil(32);
        self.words.clear();
        self.words.resize(cells * self.words_per_cell, 0);
    }

    /// Sets the bit of every pair of `runs`.
    pub(crate) fn set_runs(&mut self, runs: &CellRuns) {
        let (words, per_cell) = (&mut self.words, self.words_per_cell);
        runs.for_each_pair(|cell, light| {
            words[cell as usize * per_cell + light as usize / 32] |= 1 << (light % 32);
        });
    }

    /// `tasks` run buffers kept from the last assignment (or new ones), one per task.
    pub(crate) fn take_runs(&mut self, tasks: usize) -> Vec<CellRuns> {
        let mut runs = core::mem::take(&mut self.runs);
        runs.resize_with(tasks, CellRuns::default);
        runs
    }

    /// Sets the bit of every pair of every buffer of `runs`, and keeps them for the next call.
    pub(crate) fn set_all(&mut self, runs: Vec<CellRuns>) {
        for r in &runs {
            self.set_runs(r);
        }
        self.runs = runs;
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

    /// A run starting where an earlier one ends: its +1 lands on the earlier -1 (wrapping
    /// arithmetic: a debug build once panicked here), and the counts are still per cell.
    #[test]
    fn runs_that_abut_count_once_per_cell() {
        let mut runs = CellRuns::default();
        runs.reset(2);
        runs.push(0, 2, 0); // cells 0, 2
        runs.push(4, 1, 1); // cell 4, where the first run's -1 went
        runs.push(1, 3, 2); // cells 1, 3, 5
        let mut counts = Vec::new();
        runs.counts(6, &mut counts);
        assert_eq!(&counts[..6], [1, 1, 1, 1, 1, 1]);
        let mut lists = LightLists::new();
        lists.fill(6, &runs);
        assert_eq!(lists.offsets, [0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(lists.indices, [0, 2, 0, 2, 1, 2]);
    }
}
