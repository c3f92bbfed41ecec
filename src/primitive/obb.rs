//! [`Obb`].

use super::{Aabb, all_finite};
use crate::error::BvError;
use crate::round::{add_up, sub_down, sum_up};
use bytemuck::{Pod, Zeroable};

/// A closed oriented box: the points `center + sum(t_k * axes[k])` with `|t_k| <= half_extents[k]`.
/// The three `axes` are orthonormal rows (a rotation, or a reflection), the box's local x, y and z.
///
/// # As a query
///
/// Against [`Obbs`](crate::Obbs) and [`Aabbs`](crate::Aabbs) an `Obb` runs the separating-axis
/// test (Real-Time Rendering 16.13.5, 15 axes; against `Obbs` after a bounding-ball rejection),
/// made **conservative**:
///
/// * every pair of boxes that meet in real arithmetic (the boxes exactly as stored, closed:
///   touching faces, edges or corners count) is reported, whatever the rounding, with parallel or
///   nearly parallel edges, and whatever the stored axes' deviation from orthonormal within
///   [`ORTHONORMAL_TOLERANCE`](Obb::ORTHONORMAL_TOLERANCE);
/// * a disjoint pair may be reported only if on each of the 15 axes its gap is within about twice
///   a margin `m`: against `Obbs`, `m = 2^-19 |d|_1 + 2^-10 sum(b) + 2^-12 sum(a) + 2^-140` (`d` the
///   offset of the centres, `a` and `b` the half extents of the query and the primitive; the
///   orthonormality tolerance of the primitives' axes is most of it); against `Aabbs`, whose axes
///   are exact, `m = 2^-20 (|d|_1 + sum(a) + sum(b)) + 2^-140`. Boxes apart by more than `2 m`
///   along a face normal of either box are never reported;
/// * a query with a NaN or infinite value, or a negative half extent, hits nothing (`-0.0` is
///   zero);
/// * a query whose axes are not orthonormal within the tolerance (which a container would reject
///   with [`BvError::NotOrthonormal`]) is tested as its bounding box [`Obb::aabb`] (rounded
///   outward, so it contains the query): still never a false negative, with more false positives;
/// * answers are bit-identical on every backend. `Conservative(obb)` runs the same test.
///
/// ```
/// use bvlanes::{Obb, Obbs};
/// let s = std::f32::consts::FRAC_1_SQRT_2;
/// let turned = [[s, s, 0.0], [-s, s, 0.0], [0.0, 0.0, 1.0]];
/// let identity = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
/// // A unit cube turned 45 degrees about z: its corner reaches x = sqrt(1/2) = 0.7071.
/// let diamond = Obb::new([0.0; 3], [0.5; 3], turned);
/// let boxes = Obbs::from_slice(&[
///     Obb::new([1.2, 0.0, 0.0], [0.5; 3], identity), // from x = 0.7: the corner pokes in
///     Obb::new([1.25, 0.0, 0.0], [0.5; 3], identity), // from x = 0.75: apart
/// ])?;
/// assert_eq!(boxes.hits(&diamond).collect::<Vec<u32>>(), [0]);
/// # Ok::<(), bvlanes::BvError>(())
/// ```
///
/// ```
/// use bvlanes::{Aabb, Obb};
/// let s = std::f32::consts::FRAC_1_SQRT_2;
/// // A unit cube turned 45 degrees about z.
/// let turned = Obb::new([0.0; 3], [0.5; 3], [[s, s, 0.0], [-s, s, 0.0], [0.0, 0.0, 1.0]]);
/// assert!(turned.is_valid());
/// assert_eq!(Obb::from_aabb(&Aabb::new([0.0; 3], [2.0; 3])).half_extents, [1.0; 3]);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Obb {
    /// Centre.
    pub center: [f32; 3],
    /// Half side lengths along the three axes, `>= 0`.
    pub half_extents: [f32; 3],
    /// The box's axes as orthonormal rows.
    pub axes: [[f32; 3]; 3],
}

impl Obb {
    /// How far the axes may be from orthonormal (each dot product from 0 or 1) in a container.
    pub const ORTHONORMAL_TOLERANCE: f32 = 1e-4;

    /// An oriented box from its centre, half extents and axes (rows).
    #[inline]
    #[must_use]
    pub fn new(
        center: impl Into<[f32; 3]>,
        half_extents: impl Into<[f32; 3]>,
        axes: [[f32; 3]; 3],
    ) -> Obb {
        Obb {
            center: center.into(),
            half_extents: half_extents.into(),
            axes,
        }
    }

    /// The oriented box equal to an axis-aligned one: identity axes, centre and half extents
    /// rounded outward so it contains the box.
    #[must_use]
    pub fn from_aabb(aabb: &Aabb) -> Obb {
        let center = [0, 1, 2].map(|i| (aabb.min[i] + aabb.max[i]) * 0.5);
        // The half extent must reach both faces from the rounded centre.
        let half_extents =
            [0, 1, 2].map(|i| add_up(aabb.max[i], -center[i]).max(add_up(center[i], -aabb.min[i])));
        Obb {
            center,
            half_extents,
            axes: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        }
    }

    /// The smallest axis-aligned box containing this one, rounded outward: along world axis `i`
    /// the reach is `sum_k |axes[k][i]| * half_extents[k]`.
    #[must_use]
    pub fn aabb(&self) -> Aabb {
        let reach = [0, 1, 2].map(|i| {
            let terms = [0, 1, 2]
                .map(|k| crate::round::mul_up(self.axes[k][i].abs(), self.half_extents[k]));
            sum_up(&terms)
        });
        Aabb {
            min: [0, 1, 2].map(|i| sub_down(self.center[i], reach[i])),
            max: [0, 1, 2].map(|i| add_up(self.center[i], reach[i])),
        }
    }

    /// Whether this box is valid in a container: finite, half extents `>= 0`, axes orthonormal
    /// within [`ORTHONORMAL_TOLERANCE`](Obb::ORTHONORMAL_TOLERANCE).
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.check(0).is_ok()
    }

    pub(crate) fn check(&self, index: usize) -> Result<(), BvError> {
        let axes_finite = self.axes.iter().all(all_finite);
        if !all_finite(&self.center) || !all_finite(&self.half_extents) || !axes_finite {
            return Err(BvError::NonFinite { index });
        }
        if self.half_extents.iter().any(|&h| h < 0.0) {
            return Err(BvError::Inverted { index });
        }
        for a in 0..3 {
            for b in a..3 {
                let dot: f64 = (0..3)
                    .map(|i| f64::from(self.axes[a][i]) * f64::from(self.axes[b][i]))
                    .sum();
                let expected = if a == b { 1.0 } else { 0.0 };
                if (dot - expected).abs() > f64::from(Obb::ORTHONORMAL_TOLERANCE) {
                    return Err(BvError::NotOrthonormal { index });
                }
            }
        }
        Ok(())
    }
}
