//! A run of cells: what every kind of grid produces per light (the cells `start, start + step,
//! ...` it meets), before the runs become lists or masks.

/// The cells each light of a range meets, as runs `start, start + step, ...` (`n` cells, the
/// same `step` for every run), lights ascending: what one task of an assignment produces, before
/// it becomes lists or masks. A run is 12 bytes where its `(cell, light)` pairs would take 8
/// each, and the pairs are only spelled out by the pass that writes them.
#[derive(Clone, Debug, Default)]
pub(crate) struct CellRuns {
    step: u32,
    /// `[start, n, light]`.
    runs: Vec<[u32; 3]>,
    /// The sum of the runs' `n`.
    pairs: u64,
}

/// Where an assignment's tasks put the runs of cells their lights meet.
pub(crate) trait RunSink {
    /// Adds the run of `n >= 1` cells from `start` (stepping by the sink's step) met by `light`
    /// (lights ascending).
    fn push(&mut self, start: u32, n: u32, light: u32);
}

impl RunSink for CellRuns {
    #[inline(always)]
    fn push(&mut self, start: u32, n: u32, light: u32) {
        debug_assert!(n >= 1);
        self.runs.push([start, n, light]);
        self.pairs += u64::from(n);
    }
}

impl CellRuns {
    /// Drops the runs (keeping the allocation); every run from now on steps by `step`.
    pub(crate) fn reset(&mut self, step: u32) {
        self.step = step;
        self.runs.clear();
        self.pairs = 0;
    }

    /// The runs, `[start, n, light]`.
    pub(crate) fn runs(&self) -> &[[u32; 3]] {
        &self.runs
    }

    /// The number of pairs.
    pub(crate) fn pairs(&self) -> u64 {
        self.pairs
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
}
