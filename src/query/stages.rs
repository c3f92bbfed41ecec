//! The stage counts of the AABO readme's "partial" columns: how many primitives pass the first
//! stages of a staged test (`count_stage_passes` on [`Aabbs`], [`Octahedra`] and their [`Pinned`]
//! views).

use super::Pinned;
use super::pairs::{screen_aabb, screen_octahedron};
use super::sink::Count;
use crate::kernel::{AabbsStagePrefix, TetsBelow};
use crate::primitive::{Aabb, Octahedron};
use crate::query::Conservative;
use crate::round::sum_down;
use crate::soa::{Aabbs, Octahedra};
use crate::strategy::BoxStrategy;

impl Pinned<'_, Aabbs> {
    /// Number of boxes that pass stages `0..=stage` of `strategy` for the box query `query`
    /// (stage `0` is the first; the AABO readme's "partial" columns), counted on this backend;
    /// `None` if `stage >= strategy.stages()`. The last stage's count equals
    /// [`count_hits(query)`](Pinned::count_hits); counts never increase from one stage to the
    /// next. A query that hits nothing by screening (NaN, empty) passes no stage: `Some(0)`.
    ///
    /// ```
    /// use bvlanes::{Aabb, Aabbs, Backend, BoxStrategy};
    /// let boxes = Aabbs::from_slice(&[
    ///     Aabb::new([0.0; 3], [1.0; 3]),
    ///     Aabb::new([0.0, 3.0, 3.0], [1.0, 4.0, 4.0]),
    /// ])?;
    /// let q = Aabb::new([0.5; 3], [2.0; 3]);
    /// let pinned = boxes.with_backend(Backend::Scalar)?;
    /// // Both boxes overlap the query's x slab; only box 0 survives the y slab.
    /// assert_eq!(pinned.count_stage_passes(&q, BoxStrategy::Xyz, 0), Some(2));
    /// assert_eq!(pinned.count_stage_passes(&q, BoxStrategy::Xyz, 1), Some(1));
    /// assert_eq!(pinned.count_stage_passes(&q, BoxStrategy::Xyz, 2), Some(1));
    /// assert_eq!(pinned.count_stage_passes(&q, BoxStrategy::Xyz, 3), None);
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    #[must_use]
    pub fn count_stage_passes(
        &self,
        query: &Aabb,
        strategy: BoxStrategy,
        stage: usize,
    ) -> Option<usize> {
        let tests = strategy.prefix_tests(stage)?;
        let Some(q) = screen_aabb(query) else {
            return Some(0);
        };
        let kernel = AabbsStagePrefix {
            cols: self.container().view_with_diagonal(),
            q_min: q.min,
            q_max: q.max,
            q_sum: sum_down(&q.min),
            tests,
        };
        Some(crate::kernel::run(self.backend(), &kernel, Count(0)).0)
    }
}

impl Pinned<'_, Octahedra> {
    /// Number of octahedra passing the stages `0..=stage` of the octahedron query (the AABO
    /// readme's rows), counted on this backend: stage 0, the up half (`up.min <= q.down.max`, the
    /// readme's "Tetrahedron" row, the same count as the [`DownTet`](crate::DownTet) query `q.down`); stage 1,
    /// the 8-DOP test (the readme's "AABO" row, [`Conservative`]`(q)`); stage 2, the exact test
    /// ([`count_hits(q)`](Pinned::count_hits)). `None` for `stage > 2`; `Some(0)` at every stage
    /// for a query that hits nothing by screening (NaN, empty).
    ///
    /// ```
    /// use bvlanes::{Aabb, Octahedra, Octahedron};
    /// let world = Octahedra::from_slice(&[
    ///     Octahedron::from_aabb(&Aabb::new([0.0; 3], [1.0; 3])),
    ///     Octahedron::from_aabb(&Aabb::new([5.0; 3], [6.0; 3])),
    /// ])?;
    /// let q = Octahedron::from_aabb(&Aabb::new([0.5; 3], [2.0; 3]));
    /// let counts: Vec<_> = (0..4).map(|s| world.count_stage_passes(&q, s)).collect();
    /// assert_eq!(counts[2], Some(1));
    /// assert!(counts[0] >= counts[1] && counts[1] >= counts[2]);
    /// assert_eq!(counts[3], None);
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    #[must_use]
    pub fn count_stage_passes(&self, query: &Octahedron, stage: usize) -> Option<usize> {
        if stage > 2 {
            return None;
        }
        let Some(o) = screen_octahedron(query) else {
            return Some(0);
        };
        Some(match stage {
            0 => {
                let up_half = TetsBelow {
                    cols: self.container().up_view(),
                    q_max: o.down.max,
                };
                crate::kernel::run(self.backend(), &up_half, Count(0)).0
            }
            1 => self.count_hits(&Conservative(o)),
            _ => self.count_hits(&o),
        })
    }
}

impl Aabbs {
    /// Number of boxes that pass stages `0..=stage` of `strategy` for `query` (on
    /// [`Backend::detect`](crate::Backend::detect)); see [`Pinned::count_stage_passes`].
    #[must_use]
    pub fn count_stage_passes(
        &self,
        query: &Aabb,
        strategy: BoxStrategy,
        stage: usize,
    ) -> Option<usize> {
        self.detected().count_stage_passes(query, strategy, stage)
    }
}

impl Octahedra {
    /// Number of octahedra passing stages `0..=stage` of the octahedron query `query` (on
    /// [`Backend::detect`](crate::Backend::detect)): up half, 8-DOP, exact; see [`Pinned::count_stage_passes`].
    #[must_use]
    pub fn count_stage_passes(&self, query: &Octahedron, stage: usize) -> Option<usize> {
        self.detected().count_stage_passes(query, stage)
    }
}
