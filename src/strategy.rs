//! [`BoxStrategy`]: the order in which a box query against [`Aabbs`](crate::Aabbs) evaluates its
//! comparisons, and [`Staged`], a box query run with a chosen strategy.

use crate::kernel::half_spaces;
use crate::primitive::Aabb;
use core::fmt;
use core::str::FromStr;

/// How a box query against [`Aabbs`](crate::Aabbs) evaluates the exact closed-box test
/// `b.min <= q.max && q.min <= b.max` (on x, y, z): in which stages, so that a vector of boxes
/// that fails an early stage never reads the columns of the later ones. These are the AABB rows
/// of the AABO readme (seed 003).
///
/// Every strategy reports exactly the same hits, bit for bit, on every backend: the stages only
/// skip work. A block of `Backend::lanes()` boxes stops after a stage that leaves none of its
/// lanes set; the one-lane [`Backend::Scalar`](crate::Backend::Scalar) tier evaluates every stage
/// (a branch per box would mispredict on mixed data).
///
/// | strategy | stage 1 | stage 2 | stage 3 | columns read before the first exit |
/// |---|---|---|---|---|
/// | [`Direct`](Self::Direct) | all six comparisons | | | 6 |
/// | [`MinMax`](Self::MinMax) | `b.min <= q.max` (an open octant) | `q.min <= b.max` | | 3 |
/// | [`Xyz`](Self::Xyz) | x slab | y slab | z slab | 2 |
/// | [`SevenSided`](Self::SevenSided) | `b.min <= q.max` and the diagonal plane | `q.min <= b.max` | | 4 |
///
/// The plain [`Aabb`] query (and a point query) on `Aabbs` runs [`BoxStrategy::default()`];
/// [`Staged`] picks one. [`Aabbs::count_stage_passes`](crate::Aabbs::count_stage_passes) counts
/// the boxes that pass the first stages (the readme's "partial" columns).
///
/// # The default, and why
///
/// The default is [`Direct`](Self::Direct): measured, it is the fastest or within noise of the
/// fastest wherever more than a few boxes in a thousand pass a strategy's first stage, and it is
/// never far behind. A staged strategy pays a branch per vector that mispredicts when some
/// vectors continue and others do not, and saves memory traffic only when whole cache lines of
/// the later columns are skipped, i.e. on very selective queries against containers past the L2
/// cache. There [`SevenSided`](Self::SevenSided) wins: on the AABO readme's own workload
/// (0.004 % hits) it ran in 0.6x of `Direct`'s time on AVX2, because it reads four columns of
/// six. Choose it with [`Staged`] for such workloads. [`MinMax`](Self::MinMax) and
/// [`Xyz`](Self::Xyz) never won by more than noise: an open octant passes too many boxes, a
/// single slab too.
///
/// Time per box test relative to `Direct` (median of 11 interleaved rounds, `count_hits`, on a
/// shared 2-core AMD EPYC; `cargo run --release --example strategy_probe -- 1000000 11 4096 4`
/// and `-- 65536 11 1048576 2`):
///
/// | workload | hits | SSE min-max / xyz / 7-sided | AVX2 min-max / xyz / 7-sided | AVX2 `Direct` |
/// |---|---|---|---|---|
/// | readme recipe, 1,000,000 objects x 100 queries | 0.004 % | 1.74 / 1.52 / **0.75** | 1.39 / 1.22 / **0.60** | 1.00 ns |
/// | readme recipe, 65,536 objects x 100 queries | 0.006 % | 2.09 / 1.44 / 0.98 | 1.38 / 1.19 / **0.70** | 0.48 ns |
/// | 4,096 boxes (L2), 4 sets | 1 % | 1.16 / 1.03 / 1.12 | 0.93 / 0.97 / 1.21 | 0.35 ns |
/// | 4,096 boxes (L2), 4 sets | 50 % | 1.42 / 1.67 / 1.72 | 1.06 / 1.17 / 1.37 | 0.38 ns |
/// | 1,048,576 boxes (DRAM), 2 sets | 1 % | 1.46 / 1.94 / 1.25 | 1.04 / 1.21 / 1.46 | 1.14 ns |
/// | 1,048,576 boxes (DRAM), 2 sets | 50 % | 1.05 / 1.21 / 1.36 | 0.97 / 0.94 / 1.16 | 1.17 ns |
///
/// The readme recipe: clouds of 50 points in the unit ball placed uniformly in `[-50, 50]^3`,
/// bounded by [`Aabb::from_points`], the first 100 objects as queries. The boxes: the benchmarks'
/// recipe (`[-100, 100]^3`, half-extents 0.25 to 2.5), a cube query per set sized for the hit
/// rate. On the scalar tier all four are within noise of each other (every stage is evaluated).
///
/// # The octahedron rows of the readme
///
/// The readme's "AABO" and "Tetrahedron" rows are queries on [`Octahedra`](crate::Octahedra),
/// not strategies of a box query: "AABO" (up tetrahedron first, down only if it passed) is
/// [`Conservative`](crate::Conservative)`(octahedron)`, the exact octahedron test is the plain
/// [`Octahedron`](crate::Octahedron) query (same two stages plus a sum condition), and
/// "Tetrahedron" (up half only) is a [`DownTet`](crate::DownTet) query on `Octahedra`.
///
/// ```
/// use bvlanes::{Aabb, Aabbs, BoxStrategy, Staged};
/// let boxes = Aabbs::from_slice(&[
///     Aabb::new([0.0; 3], [1.0; 3]),
///     Aabb::new([2.0, 0.0, 0.0], [3.0, 1.0, 1.0]),
///     Aabb::new([0.0, 5.0, 0.0], [1.0, 6.0, 1.0]),
/// ])?;
/// let q = Aabb::new([0.5, 0.5, 0.5], [2.0, 1.0, 1.0]);
/// for s in BoxStrategy::ALL {
///     assert_eq!(boxes.hits(&Staged(q, s)).collect::<Vec<_>>(), [0, 1]);
/// }
/// // Min-max: boxes 0 and 1 have their min corner below q.max; box 2 fails on y.
/// assert_eq!(boxes.count_stage_passes(&q, BoxStrategy::MinMax, 0), Some(2));
/// assert_eq!(boxes.count_stage_passes(&q, BoxStrategy::MinMax, 1), Some(2));
/// assert_eq!(boxes.count_stage_passes(&q, BoxStrategy::MinMax, 2), None);
/// assert_eq!("7-sided".parse::<BoxStrategy>(), Ok(BoxStrategy::SevenSided));
/// # Ok::<(), bvlanes::BvError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BoxStrategy {
    /// All six comparisons per vector of boxes, no early exit. The default (see above).
    #[default]
    Direct,
    /// Stage 1: the min corner, `b.min <= q.max` on x, y, z (an open octant: three columns);
    /// stage 2: the max corner, `q.min <= b.max`.
    MinMax,
    /// Stage 1: the x slab (`b.min.x <= q.max.x && q.min.x <= b.max.x`); stage 2: the y slab;
    /// stage 3: the z slab.
    Xyz,
    /// The readme's 7-sided AABB. Stage 1: the min corner `b.min <= q.max` and the diagonal plane
    /// `sum(q.min) <= sum(b.max)` (a closed tetrahedron: four columns, the fourth being the
    /// container's stored diagonal key, see [`Aabbs::diagonal`](crate::Aabbs::diagonal)); stage
    /// 2: the max corner. The plane is evaluated conservatively (the box side rounded up, the
    /// query side rounded down, an infinite bound passes), so it never rejects a real overlap and
    /// the answer is the six comparisons'.
    SevenSided,
}

impl BoxStrategy {
    /// Every strategy, in declaration order.
    pub const ALL: [BoxStrategy; 4] = [
        BoxStrategy::Direct,
        BoxStrategy::MinMax,
        BoxStrategy::Xyz,
        BoxStrategy::SevenSided,
    ];

    /// Number of stages: 1, 2, 3, 2 for `Direct`, `MinMax`, `Xyz`, `SevenSided`.
    #[must_use]
    pub const fn stages(self) -> usize {
        match self {
            BoxStrategy::Direct => 1,
            BoxStrategy::MinMax | BoxStrategy::SevenSided => 2,
            BoxStrategy::Xyz => 3,
        }
    }

    /// The lowercase name used by [`Display`](fmt::Display) and [`FromStr`]: `direct`, `min-max`,
    /// `xyz`, `7-sided`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            BoxStrategy::Direct => "direct",
            BoxStrategy::MinMax => "min-max",
            BoxStrategy::Xyz => "xyz",
            BoxStrategy::SevenSided => "7-sided",
        }
    }

    /// The half-space tests of stage `stage < stages()` (bits of [`half_spaces`]).
    pub(crate) const fn stage_tests(self, stage: usize) -> u8 {
        match (self, stage) {
            (BoxStrategy::Direct, _) => half_spaces::MIN_CORNER | half_spaces::MAX_CORNER,
            (BoxStrategy::MinMax, 0) => half_spaces::MIN_CORNER,
            (BoxStrategy::SevenSided, 0) => half_spaces::MIN_CORNER | half_spaces::DIAGONAL,
            (BoxStrategy::MinMax | BoxStrategy::SevenSided, _) => half_spaces::MAX_CORNER,
            (BoxStrategy::Xyz, axis) => half_spaces::slab(axis),
        }
    }

    /// The tests of stages `0..=stage`, or `None` if `stage >= stages()`.
    pub(crate) fn prefix_tests(self, stage: usize) -> Option<u8> {
        (stage < self.stages()).then(|| (0..=stage).fold(0, |t, s| t | self.stage_tests(s)))
    }
}

impl fmt::Display for BoxStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a [`BoxStrategy`] from a string that names none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseBoxStrategyError(pub String);

impl fmt::Display for ParseBoxStrategyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown box strategy {:?} (expected direct, min-max, xyz or 7-sided)",
            self.0
        )
    }
}

impl std::error::Error for ParseBoxStrategyError {}

impl FromStr for BoxStrategy {
    type Err = ParseBoxStrategyError;

    /// Parses [`BoxStrategy::name`], ignoring ASCII case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        BoxStrategy::ALL
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| ParseBoxStrategyError(s.to_owned()))
    }
}

/// A box query against [`Aabbs`](crate::Aabbs) run with a chosen [`BoxStrategy`]. Same answers
/// as the plain [`Aabb`] query, bit for bit, on every backend (the same screening: a query with
/// NaN or an empty one hits nothing); only the work differs.
///
/// ```
/// use bvlanes::{Aabb, Aabbs, BoxStrategy, Staged};
/// let boxes = Aabbs::from_slice(&[Aabb::new([0.0; 3], [1.0; 3])])?;
/// let touching = Aabb::new([1.0, 0.0, 0.0], [2.0, 1.0, 1.0]);
/// assert_eq!(boxes.count_hits(&Staged(touching, BoxStrategy::Xyz)), 1);
/// assert_eq!(boxes.count_hits(&Staged(touching, BoxStrategy::Direct)), boxes.count_hits(&touching));
/// # Ok::<(), bvlanes::BvError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Staged(pub Aabb, pub BoxStrategy);
