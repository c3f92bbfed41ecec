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
    /// Builds the lists from `(cell, light)` pairs given in ascending light order (a stable
    /// counting sort by cell keeps the lights ascending within each cell).
    pub(crate) fn from_pairs(cells: usize, pairs: &[(u32, u32)]) -> LightLists {
        let mut offsets = vec![0u32; cells + 1];
        for &(c, _) in pairs {
            offsets[c as usize + 1] += 1;
        }
        for c in 0..cells {
            offsets[c + 1] = offsets[c + 1]
                .checked_add(offsets[c])
                .expect("more than u32::MAX (cell, light) pairs: CSR offsets are u32");
        }
        let mut next = offsets.clone();
        let mut indices = vec![0u32; offsets[cells] as usize];
        for &(c, l) in pairs {
            let slot = &mut next[c as usize];
            indices[*slot as usize] = l;
            *slot += 1;
        }
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
            offsets.push(
                u32::try_from(indices.len())
                    .expect("more than u32::MAX (cell, light) pairs: CSR offsets are u32"),
            );
        }
        LightLists { offsets, indices }
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
