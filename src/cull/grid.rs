//! [`ClusterGrid`]: the cells lights are assigned to, and the assignment itself.

use super::cells::SortedCells;
use super::froxel::{FIRST_SLICE_DEPTH, Froxels, Scratch};
use super::numbering::{CellOrder, MAX_AXIS_CELLS, check_dims};
use super::output::{LightLists, LightMasks};
use super::runs::RunSink;
use super::split::{CellSplit, CollectRuns};
use super::uniform::{self, Axis};
use crate::blocked::Blocked;
use crate::error::BvError;
use crate::lanes::Backend;
use crate::lanes::Chunk;
use crate::primitive::Aabb;
use crate::query::Pinned;
use crate::soa::{Aabbs, Spheres};
use crate::tasks::{default_threads, on_pool};

/// The cells of a cluster grid, and the assignment of lights to them.
///
/// * [`ClusterGrid::uniform`]: `dims` equal boxes tiling a bounding box; lights are assigned by
///   walking only the cells near each light (its candidate range per axis), not every cell.
/// * [`ClusterGrid::from_cells`]: any boxes, binned once along two axes; each light runs the
///   batched sphere query over the few stretches of cells that can reach it (on the uniform
///   bench scene's 32,768 cells, about 630 tests per light instead of 32,768: 13x faster).
/// * [`ClusterGrid::froxels`]: a perspective camera's view volume cut into froxels, cells between
///   four side planes through the eye and two depth planes; lights are tested against the froxel
///   itself (not its box), exactly up to a tiny documented slack.
///
/// For the first two, a light is listed in a cell iff the sphere meets the cell's box (touching
/// counts), decided by the crate's exact sphere-box test, so the result equals
/// `cells().hits(&light)` for every light, whatever the backend.
#[derive(Clone, Debug)]
pub struct ClusterGrid {
    kind: Kind,
    order: CellOrder,
    backend: Backend,
    /// At most this many tasks share an assignment (1: the calling thread only).
    threads: usize,
}

#[derive(Clone, Debug)]
enum Kind {
    /// Cell `(x, y, z)` spans cell `x` of `axes[0]`, `y` of `axes[1]` and `z` of `axes[2]`.
    Uniform {
        dims: [u32; 3],
        axes: [Axis; 3],
    },
    Cells(Box<SortedCells>),
    Froxels(Froxels),
}

impl ClusterGrid {
    /// The most cells a [`uniform`](Self::uniform) or [`froxels`](Self::froxels) grid may have
    /// along one axis: `2^24`. The grid keeps a few numbers per cell boundary of each axis, so
    /// a dimension of `u32::MAX` (a negative `i32` cast, say) would otherwise ask for 16 GiB
    /// (a uniform axis) to 128 GiB (a froxel grid's rows) before any light is assigned; it is
    /// a [`BvError::GridDims`] instead. The product
    /// of the three is limited separately, to `u32::MAX` (cell indices are `u32`), and an
    /// assignment's output takes `4 (cells + 1)` bytes of offsets or `4 cells ceil(lights / 32)`
    /// bytes of masks.
    pub const MAX_AXIS_CELLS: u32 = MAX_AXIS_CELLS;

    /// `dims[0] x dims[1] x dims[2]` equal cells tiling `bounds`. The cell boundaries along each
    /// axis are `min + (max - min) * i / dims` computed in f64 and rounded to nearest f32 (the
    /// first and last are `min` and `max` exactly), shared by neighbouring cells.
    ///
    /// # Errors
    /// [`BvError::NonFinite`] or [`BvError::Inverted`] (index 0) for bad `bounds`;
    /// [`BvError::GridDims`] if a dimension is zero or above [`MAX_AXIS_CELLS`](Self::MAX_AXIS_CELLS),
    /// or there are more than `u32::MAX` cells.
    pub fn uniform(bounds: Aabb, dims: [u32; 3]) -> Result<ClusterGrid, BvError> {
        if !bounds.min.iter().chain(&bounds.max).all(|v| v.is_finite()) {
            return Err(BvError::NonFinite { index: 0 });
        }
        if (0..3).any(|a| bounds.min[a] > bounds.max[a]) {
            return Err(BvError::Inverted { index: 0 });
        }
        check_dims(dims)?;
        let axis = |a: usize| Axis::new(bounds.min[a], bounds.max[a], dims[a]);
        Ok(ClusterGrid {
            kind: Kind::Uniform {
                dims,
                axes: [axis(0), axis(1), axis(2)],
            },
            order: CellOrder::default(),
            backend: Backend::detect(),
            threads: default_threads(),
        })
    }

    /// The depth where a froxel grid's slice 0 ends (5, Bevy's default `first_slice_depth`).
    pub const FIRST_SLICE_DEPTH: f32 = FIRST_SLICE_DEPTH;

    /// A froxel grid: the view volume of a perspective camera (a `width_px x height_px`
    /// viewport, vertical field of view `fov_y` in radians, depths `near..far`) cut into
    /// `dims[0] x dims[1]` screen tiles and `dims[2]` depth slices.
    ///
    /// # View space
    /// Right-handed, the eye at the origin looking down `-z`, `x` right, `y` up (glam, Bevy,
    /// wgpu); lights are given in this space. The depth of a point is `d = -z`.
    ///
    /// # Cells
    /// With `tan_y = tan(fov_y / 2)` and `tan_x = tan_y * width_px / height_px`, tile `i` of
    /// `n = dims[0]` spans NDC `x` in `[-1 + 2i/n, -1 + 2(i+1)/n]`, that is the points with
    /// `s_i <= x / d <= s_{i+1}`, `s_i = (2i - n) / n * tan_x`: between two planes through the
    /// eye. Rows likewise with `y`, `tan_y` and `dims[1]`, row 0 at the bottom (Bevy counts rows
    /// from the top of the screen: its row `j` is row `dims[1] - 1 - j` here). Slices follow
    /// Bevy's `view_z_to_z_slice`: with `n = dims[2]` and `f = clamp(FIRST_SLICE_DEPTH, near,
    /// far)`, slice `k` spans depths `[b_k, b_{k+1}]`, `b_0 = near`, `b_n = far` and
    /// `b_k = f * (far / f)^((k - 1) / (n - 1))` for `0 < k < n` (so slice 0 is `near..f` and the
    /// others grow exponentially from `f` to `far`; one slice is `near..far`; when `near >= 5`,
    /// slice 0 is the flat cell at depth `near`). All of this is computed in f64 from the f32
    /// parameters; the f64 planes and depths are the grid's geometry. Cells are numbered as
    /// uniform grids' are ([`CellOrder`], `(x, y, z)` = (tile column, tile row, slice)), and
    /// [`cell`](Self::cell) gives each froxel's bounding box (rounded outwards to f32).
    ///
    /// # Assignment
    /// With `tau = 2^-40 * (|c_x| + |c_y| + |c_z| + r) * (1 + tan_x + tan_y)`, a light (centre
    /// `c`, radius `r`) is listed in every froxel it meets in real arithmetic (touching counts;
    /// behind the eye, beyond `far`, zero radius alike), the froxel itself, not its box; and in
    /// no froxel farther than `r + 2 tau` from its centre. In between, the result is
    /// deterministic (the same on every backend and thread count) but unspecified. The method
    /// (`docs/algorithms.md`, "Light assignment to froxels"): a SIMD pre-cull of all lights
    /// against the view volume on the grid's backend, then per light, slice and row a run of
    /// tiles bounded from the ball's extent and narrowed by exact f64 tests at its two ends.
    ///
    /// ```
    /// use bvlanes::cull::ClusterGrid;
    /// use bvlanes::{Sphere, Spheres};
    /// let grid = ClusterGrid::froxels(1920, 1080, 1.0, 0.1, 1000.0, [16, 8, 24])?;
    /// assert_eq!(grid.len(), 16 * 8 * 24);
    /// let lights = Spheres::from_slice(&[
    ///     Sphere::new([0.0, 0.0, -3.0], 0.01), // on the view axis, in slice 0 (0.1..5)
    ///     Sphere::new([0.0, 0.0, 20.0], 10.0), // behind the eye: in no froxel
    /// ])?;
    /// let lists = grid.assign(&lights);
    /// // The view axis is the corner of four tiles.
    /// for (x, y) in [(7, 4), (8, 4), (7, 3), (8, 3)] {
    ///     assert_eq!(lists.cell(grid.cell_index([x, y, 0]).unwrap()), [0]);
    /// }
    /// assert_eq!(lists.indices.len(), 4);
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    ///
    /// # Errors
    /// [`BvError::NonFinite`] (index 0) for a NaN or infinite `fov_y`, `near` or `far`;
    /// [`BvError::Camera`] for a zero `width_px` or `height_px`, `fov_y` outside `(0, pi)`,
    /// `near <= 0` or `far <= near`; [`BvError::GridDims`] if a dimension is zero or above
    /// [`MAX_AXIS_CELLS`](Self::MAX_AXIS_CELLS), or there are more than `u32::MAX` cells.
    pub fn froxels(
        width_px: u32,
        height_px: u32,
        fov_y: f32,
        near: f32,
        far: f32,
        dims: [u32; 3],
    ) -> Result<ClusterGrid, BvError> {
        Ok(ClusterGrid {
            kind: Kind::Froxels(Froxels::new(width_px, height_px, fov_y, near, far, dims)?),
            order: CellOrder::default(),
            backend: Backend::detect(),
            threads: default_threads(),
        })
    }

    /// A grid of arbitrary cells: cell `i` is `cells[i]`.
    ///
    /// Builds, once, the structure the assignments search: the cells binned by their mins along
    /// the two axes where they are smallest against their spread, kept as a second, sorted copy
    /// (`O(cells)` time and memory; `docs/algorithms.md`, "Light assignment to arbitrary
    /// cells"). Build the grid once and assign every frame. Up to 512 cells,
    /// [`assign`](Self::assign) and [`assign_into`](Self::assign_into) skip the bins and run the
    /// cells as one batch of box queries over the lights
    /// ([`Pinned::hits_many_into`](crate::Pinned::hits_many_into)), which measured faster there.
    /// With many lights (from 256 cells with at least 20,000 lights, past 512 with at least
    /// 8,000 and at most one cell per two lights) they build the lights into a
    /// [`Blocked<Spheres>`](crate::Blocked) each call and run the same batch over it, which
    /// skips the blocks of lights a cell cannot reach (measured 1.2-2.7x faster than the bins
    /// there; `docs/benchmarks.md`). The lists are the same whichever path runs;
    /// [`assign_masks`](Self::assign_masks) always bins.
    #[must_use]
    pub fn from_cells(cells: Aabbs) -> ClusterGrid {
        ClusterGrid {
            kind: Kind::Cells(Box::new(SortedCells::new(cells))),
            order: CellOrder::default(),
            backend: Backend::detect(),
            threads: default_threads(),
        }
    }

    /// The same grid numbering its cells in `order` (uniform and froxel grids; cells given by
    /// [`from_cells`](Self::from_cells) keep their own order).
    #[must_use]
    pub fn with_order(mut self, order: CellOrder) -> ClusterGrid {
        self.order = order;
        self
    }

    /// The same grid running its batched tests on `backend` (the result does not change).
    ///
    /// # Errors
    /// [`BvError::BackendUnavailable`] if this CPU lacks it.
    pub fn with_backend(mut self, backend: Backend) -> Result<ClusterGrid, BvError> {
        self.backend = backend.check()?;
        Ok(self)
    }

    /// The same grid splitting its assignments over `threads` threads (`0` or `1`: the calling
    /// thread only). With the `rayon` feature (on by default) the default is every thread of
    /// rayon's current pool; without it, one thread. The output is the same whatever the count:
    /// lights are split into contiguous ranges (eight per thread, at least 256 lights each), each
    /// task collects the cells its lights meet binned by cell range (one range per thread), and
    /// then one task per cell range writes that part of the output from every light task's bin,
    /// in light order (`docs/algorithms.md`, "Threads" under light assignment).
    ///
    /// The tasks run on the rayon pool the call is made from: to use your own (for example one
    /// with each worker pinned to a core, which on some machines decides whether a second thread
    /// helps a millisecond-long frame at all: see `docs/benchmarks.md`), call
    /// `pool.install(|| grid.assign(&lights))`.
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> ClusterGrid {
        self.threads = threads.max(1);
        self
    }

    /// The most tasks an assignment is split over.
    #[must_use]
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Number of cells.
    #[must_use]
    pub fn len(&self) -> usize {
        match &self.kind {
            Kind::Uniform { dims, .. } => dims.iter().map(|&d| d as usize).product(),
            Kind::Cells(c) => c.cells.len(),
            Kind::Froxels(f) => f.dims.iter().map(|&d| d as usize).product(),
        }
    }

    /// Whether the grid has no cells (only a [`from_cells`](Self::from_cells) grid can).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The dimensions of a uniform or froxel grid.
    #[must_use]
    pub fn dims(&self) -> Option<[u32; 3]> {
        match &self.kind {
            Kind::Uniform { dims, .. } => Some(*dims),
            Kind::Froxels(f) => Some(f.dims),
            Kind::Cells(_) => None,
        }
    }

    /// The index of cell `(x, y, z)` of a uniform or froxel grid in its [`CellOrder`]; `None` outside the
    /// grid or for a [`from_cells`](Self::from_cells) grid.
    #[must_use]
    pub fn cell_index(&self, [x, y, z]: [u32; 3]) -> Option<usize> {
        let dims = self.dims()?;
        (x < dims[0] && y < dims[1] && z < dims[2]).then(|| self.index(dims, x, y, z) as usize)
    }

    #[inline]
    fn index(&self, d: [u32; 3], x: u32, y: u32, z: u32) -> u32 {
        self.order.index(d, [x, y, z])
    }

    /// The `(x, y, z)` of cell `index < len` of a grid with dimensions `dims`.
    fn coords(&self, dims: [u32; 3], index: usize) -> [usize; 3] {
        self.order.coords(dims, index)
    }

    /// Cell `index`'s box (for a froxel grid, the smallest f32 box containing the froxel, bounds
    /// beyond the f32 range saturating at `-f32::MAX` / `f32::MAX`).
    #[must_use]
    pub fn cell(&self, index: usize) -> Option<Aabb> {
        if index >= self.len() {
            return None;
        }
        match &self.kind {
            Kind::Cells(c) => c.cells.get(index),
            Kind::Froxels(f) => Some(f.cell_box(self.coords(f.dims, index))),
            Kind::Uniform { dims, axes } => {
                Some(uniform::cell_box(axes, self.coords(*dims, index)))
            }
        }
    }

    /// Every cell's box, in index order (what [`assign`](Self::assign) is defined against, except
    /// for froxel grids, whose lights are tested against the froxels themselves).
    #[must_use]
    pub fn cells(&self) -> Aabbs {
        match &self.kind {
            Kind::Cells(c) => c.cells.clone(),
            Kind::Uniform { .. } | Kind::Froxels(_) => {
                let boxes: Vec<Aabb> = (0..self.len())
                    .map(|i| self.cell(i).expect("index below len"))
                    .collect();
                Aabbs::from_slice(&boxes).expect("cells of a valid grid are valid boxes")
            }
        }
    }

    /// The lights of every cell, as CSR lists (light indices ascending within a cell).
    ///
    /// # Panics
    /// If more than `u32::MAX` (cell, light) pairs meet (the offsets are `u32`; the index list
    /// alone would take 16 GiB).
    #[must_use]
    pub fn assign(&self, lights: &Spheres) -> LightLists {
        let mut lists = LightLists::new();
        self.assign_into(lights, &mut lists);
        lists
    }

    /// [`assign`](Self::assign) into `lists`, replacing what they held and reusing their
    /// allocations: for a renderer that assigns every frame (a steady frame then allocates
    /// nothing on one thread, and split over threads only rayon's few bytes of task
    /// bookkeeping: the lists keep each task's runs too).
    ///
    /// # Panics
    /// As [`assign`](Self::assign): if more than `u32::MAX` (cell, light) pairs meet.
    ///
    /// ```
    /// use bvlanes::cull::{ClusterGrid, LightLists};
    /// use bvlanes::{Sphere, Spheres};
    /// let grid = ClusterGrid::froxels(1280, 720, 1.0, 0.1, 100.0, [16, 9, 24])?;
    /// let mut lists = LightLists::new();
    /// for frame in 0..3 {
    ///     let z = -10.0 - frame as f32;
    ///     let lights = Spheres::from_slice(&[Sphere::new([0.0, 0.0, z], 1.0)])?;
    ///     grid.assign_into(&lights, &mut lists);
    ///     assert_eq!(lists, grid.assign(&lights));
    /// }
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    pub fn assign_into(&self, lights: &Spheres, lists: &mut LightLists) {
        if let Kind::Cells(cells) = &self.kind {
            if let Some(boxes) = cells.blocked_lights(lights.len()) {
                let blocked = Blocked::new_with_threads(lights, self.threads);
                let blocked = blocked
                    .with_backend(self.backend)
                    .expect("the grid's backend was checked")
                    .with_threads(self.threads);
                lists.fill_batch(|out| blocked.hits_many_into(boxes, out));
                return;
            }
            if let Some(boxes) = cells.few() {
                let lights =
                    Pinned::new(lights, self.backend).expect("the grid's backend was checked");
                let lights = lights.with_threads(self.threads);
                lists.fill_batch(|out| lights.hits_many_into(boxes, out));
                return;
            }
        }
        self.split_assignment(lights, |split, tasks| lists.fill_split(split, tasks));
    }

    /// One bitset of lights per cell, written into `masks` (resized to this grid and light count,
    /// reusing its allocation): bit `l % 32` of word `l / 32` of cell `c` is set iff light `l`
    /// meets cell `c`.
    pub fn assign_masks(&self, lights: &Spheres, masks: &mut LightMasks) {
        masks.reset(self.len(), lights.len());
        self.split_assignment(lights, |split, tasks| masks.fill_split(split, tasks));
    }

    /// Runs `fill` (an output's `fill_split`) with the light tasks of `lights` and the cell
    /// ranges they are written in; from a pool thread when there is more than one task, so that
    /// both parallel phases start there (see `tasks::on_pool`).
    fn split_assignment(&self, lights: &Spheres, fill: impl FnOnce(&CellSplit, &Tasks<'_>) + Send) {
        let tasks = Tasks::new(self, lights);
        let split = self.cell_split(tasks.tasks());
        if tasks.tasks() > 1 {
            on_pool(|| fill(&split, &tasks));
        } else {
            fill(&split, &tasks);
        }
    }

    /// The cell ranges the output of an assignment split over `tasks` light tasks is written in
    /// (one when there is one task), and the step of its runs. The ranges are whole blocks of
    /// the slower axes: in [`CellOrder::ZFastest`] columns of `dims[1] * dims[2]` cells, in
    /// [`CellOrder::XFastest`] rows of `dims[0]`. Froxel runs go along x: in `ZFastest` they
    /// step by `dims[1] * dims[2]` (and runs crossing a range's end are cut), in `XFastest` by 1
    /// (never cut). Uniform runs go along the fastest axis (step 1, never cut); `from_cells`
    /// runs are single cells.
    fn cell_split(&self, tasks: usize) -> CellSplit {
        let cells = u32::try_from(self.len()).expect("at most u32::MAX cells");
        let along_x = matches!(self.kind, Kind::Froxels(_));
        let (unit, step) = match (self.dims(), self.order) {
            (Some(d), CellOrder::ZFastest) if along_x => (d[1] * d[2], d[1] * d[2]),
            (Some(d), CellOrder::ZFastest) => (d[1] * d[2], 1),
            (Some(d), CellOrder::XFastest) => (d[0], 1),
            (None, _) => (1, 1),
        };
        // No more ranges than blocks of `unit` cells (the rest would be empty).
        let ranges = if tasks > 1 {
            let units = (cells / unit).max(1) as usize;
            self.threads.saturating_mul(RANGES_PER_THREAD).min(units)
        } else {
            1
        };
        CellSplit::new(cells, unit, step, ranges)
    }

    /// The number of light tasks an assignment of `n` lights is split into: one when the grid
    /// runs on one thread or there are too few lights to split.
    fn task_count(&self, n: usize) -> usize {
        match self.threads {
            1 => 1,
            t => t
                .saturating_mul(TASKS_PER_THREAD)
                .min(n / MIN_LIGHTS_PER_TASK)
                .max(1),
        }
    }

    /// Pushes into `runs` the runs of cells the lights of chunks `range` meet, lights ascending
    /// (runs along x for froxel grids, stepping as [`cell_split`](Self::cell_split) says).
    fn collect_runs<S: RunSink>(
        &self,
        lights: &Spheres,
        range: core::ops::Range<usize>,
        mut runs: S,
    ) -> S {
        let lanes = Chunk::LANES;
        let which = range.start * lanes..(range.end * lanes).min(lights.len());
        match &self.kind {
            Kind::Froxels(f) => {
                let mut scratch = Scratch::default();
                // By reference: moved into the froxel kernel's sink, the runs made one-thread
                // indoor frames 7% slower (the code around them compiled differently).
                let (backend, order) = (self.backend, self.order);
                f.assign_chunks(lights, range, backend, order, &mut scratch, &mut runs);
                runs
            }
            Kind::Cells(cells) => cells.collect(lights, which, self.backend, runs),
            Kind::Uniform { dims, axes } => {
                let index = |x, y, z| self.index(*dims, x, y, z);
                let along_z = self.order == CellOrder::ZFastest;
                uniform::collect(axes, index, lights, which, along_z, runs)
            }
        }
    }
}

/// The light tasks of one assignment, in order: contiguous runs of whole chunks of 16 lights
/// (the SIMD pre-cull of froxel grids runs on them), computed when asked for (no list to
/// allocate per call).
struct Tasks<'a> {
    grid: &'a ClusterGrid,
    lights: &'a Spheres,
    tasks: usize,
    chunks: usize,
}

impl<'a> Tasks<'a> {
    fn new(grid: &'a ClusterGrid, lights: &'a Spheres) -> Tasks<'a> {
        Tasks {
            grid,
            lights,
            tasks: grid.task_count(lights.len()),
            chunks: lights.len().div_ceil(Chunk::LANES),
        }
    }
}

impl CollectRuns for Tasks<'_> {
    fn tasks(&self) -> usize {
        self.tasks
    }

    fn collect<S: RunSink>(&self, task: usize, runs: S) -> S {
        let (chunks, tasks) = (self.chunks, self.tasks);
        let range = chunks * task / tasks..chunks * (task + 1) / tasks;
        self.grid.collect_runs(self.lights, range, runs)
    }
}

/// Each thread gets about this many tasks, so that a thread that starts late (a sleeping pool
/// worker, a busy core) leaves its share to the others.
const TASKS_PER_THREAD: usize = 8;

/// The output of a split assignment is written in about this many cell ranges per thread.
const RANGES_PER_THREAD: usize = 1;

/// Splitting an assignment pays from this many lights per task.
const MIN_LIGHTS_PER_TASK: usize = 256;
