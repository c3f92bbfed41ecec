//! The two outputs of a light assignment: CSR lists and bitmasks, both plain `u32` slices
//! (`bytemuck`-castable) for GPU upload.

/// Per-cell light lists in CSR form: the lights of cell `c` are
/// `indices[offsets[c] as usize..offsets[c + 1] as usize]`, ascending.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LightLists {
    /// `cells + 1` offsets into `indices`, starting at 0.
    pub offsets: Vec<u32>,
    /// Light indices, cell after cell.
    pub indices: Vec<u32>,
}

impl LightLists {
    /// Builds the lists from runs of cells given in ascending light order (a stable counting
    /// sort by cell keeps the lights ascending within each cell). The counts take one pass over
    /// the runs, not the pairs: each run adds 1 at its first cell and -1 one step past its last,
    /// and a prefix sum along each chain `c, c + step, ...` turns those into per-cell counts.
    /// Then one pass over the pairs writes them. (Expanding each run's first four cells
    /// branch-free, with the cells past its end writing to a scratch slot, ran more instructions
    /// and was no faster on the indoor scene.)
    pub(crate) fn from_runs(cells: usize, runs: &CellRuns) -> LightLists {
        let counts = runs.counts(cells);
        let mut offsets = Vec::with_capacity(cells + 1);
        offsets.push(0u32);
        let mut total = 0u32;
        for &n in &counts[..cells] {
            total += n;
            offsets.push(total);
        }
        let mut next: Vec<u32> = offsets[..cells].to_vec();
        let mut indices = vec![0u32; total as usize];
        runs.for_each_pair(|c, l| {
            let slot = &mut next[c as usize];
            indices[*slot as usize] = l;
            *slot += 1;
        });
        LightLists { offsets, indices }
    }

    /// Joins the lists of consecutive light ranges (`parts` in light order): cell `c` lists
    /// part 0's lights of `c`, then part 1's, and so on. (Copying is cheap next to the sorting
    /// each part did in its own task; a second parallel call would cost more in waking the pool
    /// than it saves.)
    pub(crate) fn join(cells: usize, parts: Vec<LightLists>) -> LightLists {
        if parts.len() == 1 {
            return parts.into_iter().next().expect("one part");
        }
        let mut offsets = Vec::with_capacity(cells + 1);
        offsets.push(0u32);
        let total: usize = parts.iter().map(|p| p.indices.len()).sum();
        let mut indices = Vec::with_capacity(total);
        for c in 0..cells {
            for p in &parts {
                indices.extend_from_slice(p.cell(c));
            }
            offsets.push(indices.len() as u32);
        }
        LightLists { offsets, indices }
    }

    /// Number of cells.
    #[must_use]
    pub fn cells(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// The lights of cell `c`, ascending (empty past the last cell).
    #[must_use]
    pub fn cell(&self, c: usize) -> &[u32] {
        match (self.offsets.get(c), self.offsets.get(c + 1)) {
            (Some(&a), Some(&b)) => &self.indices[a as usize..b as usize],
            _ => &[],
        }
    }
}

/// The cells each light of a range meets, as runs `start, start + step, ...` (`n` cells, the
/// same `step` for every run), lights ascending: what one task of an assignment produces, before
/// it becomes lists or masks. A run is 12 bytes where its `(cell, light)` pairs would take 8
/// each, and the pairs are only spelled out by the pass that writes them.
#[derive(Clone, Debug)]
pub(crate) struct CellRuns {
    step: u32,
    /// `[start, n, light]`.
    runs: Vec<[u32; 3]>,
}

impl CellRuns {
    /// No runs yet; every run will step by `step`.
    pub(crate) fn new(step: u32) -> CellRuns {
        CellRuns {
            step,
            runs: Vec::new(),
        }
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

    /// The number of runs through each of cells `0..cells` (the first `cells` entries; every
    /// run lies in `0..cells`).
    fn counts(&self, cells: usize) -> Vec<u32> {
        let step = self.step as usize;
        // One step of room past the last cell for the -1 of runs that end there.
        let mut counts = vec![0u32; cells + step];
        for &[start, n, _] in &self.runs {
            counts[start as usize] += 1;
            let end = start as usize + n as usize * step;
            counts[end] = counts[end].wrapping_sub(1);
        }
        for c in step..cells {
            counts[c] = counts[c].wrapping_add(counts[c - step]);
        }
        counts
    }
}

/// One bitset of lights per cell: bit `l % 32` of word `l / 32` of cell `c` (in
/// [`words`](Self::words), `c * words_per_cell()` words in) is set iff light `l` meets cell `c`.
/// Reused across frames: [`ClusterGrid::assign_masks`](super::ClusterGrid::assign_masks) resizes
/// it in place.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LightMasks {
    words_per_cell: usize,
    words: Vec<u32>,
}

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

    #[inline]
    pub(crate) fn set(&mut self, cell: u32, light: u32) {
        let w = cell as usize * self.words_per_cell + light as usize / 32;
        self.words[w] |= 1 << (light % 32);
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
        self.words.get(c * w..(c + 1) * w).unwrap_or(&[])
    }

    /// Whether light `l` is set in cell `c`.
    #[must_use]
    pub fn contains(&self, c: usize, l: usize) -> bool {
        self.cell(c)
            .get(l / 32)
            .is_some_and(|w| w >> (l % 32) & 1 == 1)
    }
}
