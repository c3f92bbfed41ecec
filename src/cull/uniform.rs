//! Uniform grids: equal boxes tiling a bounding box, and each light's walk over the cells near
//! it (see `docs/algorithms.md`, "Light assignment to a uniform grid").

use super::runs::RunSink;
use crate::primitive::Aabb;
use crate::soa::Spheres;

/// One axis of a uniform grid: its cell boundaries, and the affine map that finds the cell
/// holding a coordinate without a search.
#[derive(Clone, Debug)]
pub(super) struct Axis {
    /// `cells + 1` non-decreasing boundaries: `min + (max - min) * i / cells` computed in f64
    /// and rounded to nearest f32 (the first and last are `min` and `max` exactly).
    b: Vec<f32>,
    /// `min`, and `cells / (max - min)` (infinite for a flat axis, `-inf` from `0.0` to
    /// `-0.0`: the estimates are then wrong, and the walks correct them), in f64.
    min: f64,
    scale: f64,
}

impl Axis {
    /// `cells` (at least one) equal cells from `min` to `max` (finite, `min <= max`).
    pub(super) fn new(min: f32, max: f32, cells: u32) -> Axis {
        let (lo, hi) = (f64::from(min), f64::from(max));
        let b = (0..=cells)
            .map(|i| match i {
                0 => min,
                i if i == cells => max,
                i => (lo + (hi - lo) * f64::from(i) / f64::from(cells)) as f32,
            })
            .collect();
        Axis {
            b,
            min: lo,
            scale: f64::from(cells) / (hi - lo),
        }
    }

    /// The boundaries of cell `i`.
    #[inline]
    pub(super) fn cell(&self, i: usize) -> [f32; 2] {
        [self.b[i], self.b[i + 1]]
    }

    /// The number of cells.
    #[inline]
    fn cells(&self) -> usize {
        self.b.len() - 1
    }

    /// `floor((v - min) * scale)` clamped into the cells (NaN, from a flat axis, to 0): the
    /// cell holding `v` in real arithmetic, which the rounded boundaries may move by one (or by
    /// more, where cells narrower than the f32 spacing collapse onto the same boundaries).
    #[inline]
    fn estimate(&self, v: f64) -> usize {
        let last = (self.cells() - 1) as f64;
        let g = (v - self.min) * self.scale;
        let g = if g > 0.0 { g } else { 0.0 };
        let g = if g < last { g } else { last };
        g as i64 as usize
    }

    /// The cell holding `c` (the last whose lower boundary is at most `c`, clamped into the
    /// grid): [`estimate`](Self::estimate), corrected against the boundaries themselves.
    #[inline]
    fn centre(&self, c: f32) -> usize {
        let mut m = self.estimate(f64::from(c));
        while m > 0 && self.b[m] > c {
            m -= 1;
        }
        while m + 1 < self.cells() && self.b[m + 1] <= c {
            m += 1;
        }
        m
    }

    /// The cells whose squared slab distance from `c` ([`axis_e2`]) is at most `r2`, with those
    /// distances in `e2` (cleared first), or `None` if there are none. Cells outside cannot meet
    /// a light of centre coordinate `c` and squared radius `r2`: the full test adds non-negative
    /// terms to this one.
    ///
    /// The distance falls towards the [`centre`](Self::centre) cell (where it is least) and
    /// rises away from it, so the cells form one run around the centre cell. Its ends are first
    /// estimated as the cells holding `c -+ r`, then moved onto the distances themselves: a walk
    /// of no step in all but rounding cases, where a search from the centre cell out would
    /// branch on every cell (three of these per light were a third of a uniform frame).
    #[inline]
    fn candidates(&self, c: f32, r: f32, r2: f32, e2: &mut Vec<f32>) -> Option<Candidates> {
        e2.clear();
        let d = |i: usize| axis_e2(c, self.b[i], self.b[i + 1]);
        let m = self.centre(c);
        if d(m) > r2 {
            return None;
        }
        let (cf, rf) = (f64::from(c), f64::from(r));
        // The first cell: at most `m`, in the run or below it.
        let mut first = self.estimate(cf - rf).min(m);
        if d(first) <= r2 {
            while first > 0 && d(first - 1) <= r2 {
                first -= 1;
            }
        } else {
            while d(first) > r2 {
                first += 1;
            }
        }
        // The last cell: at least `m`, in the run or above it.
        let mut last = self.estimate(cf + rf).max(m);
        if d(last) <= r2 {
            while last + 1 < self.cells() && d(last + 1) <= r2 {
                last += 1;
            }
        } else {
            while d(last) > r2 {
                last -= 1;
            }
        }
        e2.extend((first..=last).map(d));
        Some(Candidates {
            first: first as u32,
            centre: m - first,
        })
    }
}

/// The candidate run of one axis: its first cell, and the centre cell's place in it.
#[derive(Clone, Copy, Debug)]
struct Candidates {
    first: u32,
    centre: usize,
}

/// The squared distance along one axis from `c` to the slab `[lo, hi]`, as the sphere-box kernel
/// evaluates it: `e = c - min(max(c, lo), hi)` (x86 operand order, no NaN here), then `e * e`.
#[inline]
fn axis_e2(c: f32, lo: f32, hi: f32) -> f32 {
    let m = if c > lo { c } else { lo };
    let m = if m < hi { m } else { hi };
    let e = c - m;
    e * e
}

/// The cell `(x, y, z)` of a uniform grid with axes `axes`.
pub(super) fn cell_box(axes: &[Axis; 3], [x, y, z]: [usize; 3]) -> Aabb {
    let ([x0, x1], [y0, y1], [z0, z1]) = (axes[0].cell(x), axes[1].cell(y), axes[2].cell(z));
    Aabb::new([x0, y0, z0], [x1, y1, z1])
}

/// Pushes into `runs` the runs of the cells of a uniform grid (axes `axes`, cell `(x, y, z)`
/// numbered `index(x, y, z)`) that lights `which` meet, lights ascending: runs along z if
/// `along_z` (each light's cells `z, z + 1, ...` of one `(x, y)`), else along x.
///
/// Per light, the candidate cells of each axis, then per candidate pair of the other two axes
/// the cells along the run's axis passing the exact test in its own order,
/// `(ex^2 + ey^2) + ez^2 <= r^2`. The sums are monotone in the run axis' term, which falls
/// towards the centre's cell and rises away from it, so the passing cells form one run holding
/// the centre cell if any cell passes: its length is the number of candidates that pass and its
/// start the centre minus those that pass below the centre. Both counts run over every
/// candidate without a branch (the same count for every row of a light), where a search for
/// the run's ends would branch on each of its cells.
///
/// The run goes along the cell order's fastest axis (z in `ZFastest`, x in `XFastest`), so its
/// cells are consecutive and no cell range of a split output (whole blocks of the slower axes)
/// ever cuts it (`docs/benchmarks.md`: with eight ranges, runs along x in `ZFastest` cost 1.5x).
pub(super) fn collect<S: RunSink>(
    axes: &[Axis; 3],
    index: impl Fn(u32, u32, u32) -> u32,
    lights: &Spheres,
    which: core::ops::Range<usize>,
    along_z: bool,
    mut runs: S,
) -> S {
    let mut e2: [Vec<f32>; 3] = Default::default();
    for l in which {
        let light = lights.get(l).expect("light index below len");
        let r2 = light.radius * light.radius;
        let mut cand = [None; 3];
        for (a, axis) in axes.iter().enumerate() {
            cand[a] = axis.candidates(light.center[a], light.radius, r2, &mut e2[a]);
        }
        let [Some(cx), Some(cy), Some(cz)] = cand else {
            continue;
        };
        let [ex, ey, ez] = &e2;
        if along_z {
            for (i, &ex) in ex.iter().enumerate() {
                for (j, &ey) in ey.iter().enumerate() {
                    let exy = ex + ey;
                    let Some((z, n)) = run_around(ez, cz, |ez| exy + ez <= r2) else {
                        continue;
                    };
                    let (x, y) = (cx.first + i as u32, cy.first + j as u32);
                    runs.push(index(x, y, z), n, l as u32);
                }
            }
        } else {
            for (k, &ez) in ez.iter().enumerate() {
                for (j, &ey) in ey.iter().enumerate() {
                    let Some((x, n)) = run_around(ex, cx, |ex| (ex + ey) + ez <= r2) else {
                        continue;
                    };
                    let (y, z) = (cy.first + j as u32, cz.first + k as u32);
                    runs.push(index(x, y, z), n, l as u32);
                }
            }
        }
    }
    runs
}

/// The run of cells of candidates `c` (terms `e`) whose test `pass` holds, as its first cell
/// and length, counted without a branch (see [`collect`]); `None` if no cell passes.
#[inline(always)]
fn run_around(e: &[f32], c: Candidates, pass: impl Fn(f32) -> bool) -> Option<(u32, u32)> {
    let (mut n, mut below) = (0, 0);
    for (i, &e) in e.iter().enumerate() {
        let p = usize::from(pass(e));
        n += p;
        below += p & usize::from(i < c.centre);
    }
    (n > 0).then(|| (c.first + (c.centre - below) as u32, n as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The run of candidates equals the plain scan over every cell, around boundaries that
    /// round, on flat axes and far outside the grid.
    #[test]
    fn candidates_are_the_cells_within_reach() {
        let axes = [
            Axis::new(0.0, 32.0, 32),
            Axis::new(-0.3, 0.7, 7),
            Axis::new(1e-30, 3e-30, 3),
            Axis::new(5.0, 5.0, 4),
            Axis::new(-3e38, 3e38, 67),
            Axis::new(0.1, 0.1 + 1e-6, 1),
        ];
        let mut e2 = Vec::new();
        for axis in &axes {
            let (lo, hi) = (axis.b[0], axis.b[axis.cells()]);
            let mut cs: Vec<f32> = axis
                .b
                .iter()
                .flat_map(|&v| [v, v.next_up(), v.next_down()])
                .collect();
            cs.extend([lo - 1.0, hi + 1.0, -3e38, 3e38, 0.0, -0.0, (lo + hi) / 2.0]);
            for &c in &cs {
                for r in [0.0f32, 1e-30, 1e-7, 0.01, 0.1, 0.3, 1.0, 2.5, 1e6, 1e30] {
                    let r2 = r * r;
                    let want: Vec<usize> = (0..axis.cells())
                        .filter(|&i| axis_e2(c, axis.b[i], axis.b[i + 1]) <= r2)
                        .collect();
                    let got = axis.candidates(c, r, r2, &mut e2);
                    match got {
                        None => assert!(want.is_empty(), "{c} {r}: none, want {want:?}"),
                        Some(g) => {
                            let first = g.first as usize;
                            let cells: Vec<usize> = (first..first + e2.len()).collect();
                            assert_eq!(cells, want, "{c} {r}");
                            let m = first + g.centre;
                            assert!(e2.iter().all(|&v| v >= e2[g.centre]), "{c} {r}: centre {m}");
                            for (i, &v) in e2.iter().enumerate() {
                                assert_eq!(
                                    v.to_bits(),
                                    axis_e2(c, axis.b[first + i], axis.b[first + i + 1]).to_bits()
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
