//! Tetrahedra and octahedra along four fixed axes: [`UpTet`], [`DownTet`], [`Octahedron`] (the
//! axis-aligned bounding octahedron, AABO).
//!
//! The axis convention is documented once, on [`TET_AXES`].

use super::{Aabb, IntoPoint, Sphere, all_finite};
use crate::error::BvError;
use crate::round::{
    add_down, add_up, div3_down, exact_sum_f64, mul_up, round_f64, sum_down, sum_sign, sum_up,
};
use bytemuck::{Pod, Zeroable};
use core::cmp::Ordering;

/// The four tetrahedral axes A, B, C, D: the one place the axis convention is written down.
///
/// The four axes are the normals of a regular tetrahedron, deliberately *not* normalised so that
/// projecting a point is three additions and no multiplication:
///
/// | axis | normal `n` | `t = n · p` |
/// |---|---|---|
/// | A | `( 1,  1,  1)` | `x + y + z` |
/// | B | `( 1, -1, -1)` | `x - y - z` |
/// | C | `(-1,  1, -1)` | `-x + y - z` |
/// | D | `(-1, -1,  1)` | `-x - y + z` |
///
/// The normals sum to zero, so `t_A + t_B + t_C + t_D = 0` for every point: the map
/// `p -> (t_A, t_B, t_C, t_D)` is a bijection from 3-D space onto that hyperplane of 4-D space.
///
/// * An [`UpTet`] `{ min }` is `{ p : t_k(p) >= min[k] for all k }`, a tetrahedron that points "up".
///   It is non-empty iff `min[0] + min[1] + min[2] + min[3] <= 0` (a single point at `== 0`).
/// * A [`DownTet`] `{ max }` is `{ p : t_k(p) <= max[k] for all k }`, non-empty iff `sum(max) >= 0`.
/// * An [`Octahedron`] is the intersection of an up and a down tetrahedron: the hyperplane cut by
///   the 4-D box `[up.min, down.max]`. It is non-empty iff `up.min[k] <= down.max[k]` on every
///   axis and `sum(up.min) <= 0 <= sum(down.max)`.
pub const TET_AXES: [[f32; 3]; 4] = [
    [1.0, 1.0, 1.0],
    [1.0, -1.0, -1.0],
    [-1.0, 1.0, -1.0],
    [-1.0, -1.0, 1.0],
];

/// Signed coordinates of `p` along the axes, as the three terms of each projection.
#[inline]
fn terms(p: [f32; 3]) -> [[f32; 3]; 4] {
    TET_AXES.map(|n| [n[0] * p[0], n[1] * p[1], n[2] * p[2]])
}

/// `t_k(p)` for the four axes, each rounded down (a lower bound of the exact projection).
pub(crate) fn project_down(p: [f32; 3]) -> [f32; 4] {
    terms(p).map(|t| sum_down(&t))
}

/// `t_k(p)` for the four axes, each rounded up (an upper bound of the exact projection).
pub(crate) fn project_up(p: [f32; 3]) -> [f32; 4] {
    terms(p).map(|t| sum_up(&t))
}

/// `sqrt(3)` rounded up to f32: the length of every axis normal.
const SQRT3_UP: f32 = 1.732_050_9;

/// An "up" tetrahedron: `{ p : t_k(p) >= min[k] }` along the four [`TET_AXES`].
///
/// ```
/// use bvlanes::UpTet;
/// let up = UpTet::new([-1.0, -1.0, -1.0, -1.0]);
/// // The smallest down tetrahedron around it, and the largest inside it.
/// assert_eq!(up.circumscribed().max, [3.0, 3.0, 3.0, 3.0]);
/// let inner = up.inscribed().max[0]; // -1 + 4/3, rounded inward
/// assert!(inner <= 1.0 / 3.0 && inner > 0.333);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct UpTet {
    /// Lower bounds along axes A, B, C, D.
    pub min: [f32; 4],
}

/// A "down" tetrahedron: `{ p : t_k(p) <= max[k] }` along the four [`TET_AXES`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct DownTet {
    /// Upper bounds along axes A, B, C, D.
    pub max: [f32; 4],
}

/// An axis-aligned bounding octahedron (AABO): the intersection of an [`UpTet`] and a
/// [`DownTet`]. As an 8-DOP it has the same shape; stored as two tetrahedra, a test can read one
/// half and stop.
///
/// ```
/// use bvlanes::{Aabb, Octahedron};
/// let o = Octahedron::from_points([[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]).unwrap();
/// assert_eq!(o.up.min[0], 0.0); // min of x + y + z
/// assert_eq!(o.down.max[0], 6.0); // max of x + y + z
/// let b = Octahedron::from_aabb(&Aabb::new([0.0; 3], [1.0; 3]));
/// assert_eq!(b.up.min, [0.0, -2.0, -2.0, -2.0]);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Octahedron {
    /// The up tetrahedron (lower bounds).
    pub up: UpTet,
    /// The down tetrahedron (upper bounds).
    pub down: DownTet,
}

impl UpTet {
    /// An up tetrahedron from its four lower bounds.
    #[inline]
    #[must_use]
    pub const fn new(min: [f32; 4]) -> UpTet {
        UpTet { min }
    }

    /// The smallest [`DownTet`] enclosing this tetrahedron: `max[k] = min[k] - sum(min)`
    /// (rounded up, so it encloses exactly). An unbounded tetrahedron (a `-inf` bound) gives the
    /// whole space (every bound `+inf`).
    #[must_use]
    pub fn circumscribed(&self) -> DownTet {
        let s = sum_down(&self.min);
        if s == f32::NEG_INFINITY {
            return DownTet::new([f32::INFINITY; 4]);
        }
        DownTet {
            max: self.min.map(|m| add_up(m, -s)),
        }
    }

    /// The largest [`DownTet`] enclosed by this tetrahedron: `max[k] = min[k] - sum(min) / 3`
    /// (rounded down, so it stays inside). The sum is rounded once from its exact value, so a
    /// single-point tetrahedron (`sum(min) == 0` exactly) gives that point. A tetrahedron thinner
    /// than the rounding of its coordinates can give an empty result (`is_valid()` false): no
    /// non-empty f32 tetrahedron fits inside it.
    #[must_use]
    pub fn inscribed(&self) -> DownTet {
        let third = div3_down(-sum_up(&self.min));
        DownTet {
            max: self.min.map(|m| add_down(m, third)),
        }
    }

    /// Whether this tetrahedron is valid in a container: finite and non-empty (`sum(min) <= 0`).
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.check(0).is_ok()
    }

    pub(crate) fn check(&self, index: usize) -> Result<(), BvError> {
        if !all_finite(&self.min) {
            Err(BvError::NonFinite { index })
        } else if sum_sign(&self.min) == Ordering::Greater {
            Err(BvError::Inverted { index })
        } else {
            Ok(())
        }
    }
}

impl DownTet {
    /// A down tetrahedron from its four upper bounds.
    #[inline]
    #[must_use]
    pub const fn new(max: [f32; 4]) -> DownTet {
        DownTet { max }
    }

    /// The smallest [`UpTet`] enclosing this tetrahedron: `min[k] = max[k] - sum(max)`
    /// (rounded down, so it encloses exactly). An unbounded tetrahedron (a `+inf` bound) gives the
    /// whole space (every bound `-inf`).
    #[must_use]
    pub fn circumscribed(&self) -> UpTet {
        let s = sum_up(&self.max);
        if s == f32::INFINITY {
            return UpTet::new([f32::NEG_INFINITY; 4]);
        }
        UpTet {
            min: self.max.map(|m| add_down(m, -s)),
        }
    }

    /// The largest [`UpTet`] enclosed by this tetrahedron: `min[k] = max[k] - sum(max) / 3`
    /// (rounded up, so it stays inside). As for [`UpTet::inscribed`], a single point gives itself
    /// and a tetrahedron thinner than the rounding can give an empty result.
    #[must_use]
    pub fn inscribed(&self) -> UpTet {
        let third = div3_down(sum_down(&self.max));
        UpTet {
            min: self.max.map(|m| add_up(m, -third)),
        }
    }

    /// Whether this tetrahedron is valid in a container: finite and non-empty (`sum(max) >= 0`).
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.check(0).is_ok()
    }

    pub(crate) fn check(&self, index: usize) -> Result<(), BvError> {
        if !all_finite(&self.max) {
            Err(BvError::NonFinite { index })
        } else if sum_sign(&self.max) == Ordering::Less {
            Err(BvError::Inverted { index })
        } else {
            Ok(())
        }
    }
}

impl Octahedron {
    /// An octahedron from its two tetrahedra.
    #[inline]
    #[must_use]
    pub const fn new(up: UpTet, down: DownTet) -> Octahedron {
        Octahedron { up, down }
    }

    /// The smallest octahedron containing every point: projections rounded outward.
    ///
    /// The points may be owned or borrowed, as for [`Aabb::from_points`] ([`IntoPoint`]).
    ///
    /// ```
    /// use bvlanes::Octahedron;
    /// let points: Vec<[f32; 3]> = vec![[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]];
    /// let o = Octahedron::from_points(&points[..])?; // borrowed; `&points`, `points.iter()` too
    /// assert_eq!(o.down.max[0], 6.0); // max of x + y + z
    /// assert_eq!(Octahedron::from_points(points)?, o); // owned
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    ///
    /// # Errors
    /// [`BvError::NoPoints`] for no points, [`BvError::NonFinite`] naming the first point with a
    /// NaN or infinite coordinate.
    pub fn from_points<P>(
        points: impl IntoIterator<Item = impl IntoPoint<P>>,
    ) -> Result<Octahedron, BvError> {
        // Extremes of the exact projections in f64 (a projection is a sum of three f32, exact in
        // f64 unless the coordinates' exponents are far apart; then the point's outward-rounded
        // f32 bounds stand in, which are exact f64 values too). One directed rounding at the end
        // gives the same result as rounding every projection outward and taking the extremes.
        let mut lo = [f64::INFINITY; 4];
        let mut hi = [f64::NEG_INFINITY; 4];
        let mut any = false;
        for (index, p) in points.into_iter().enumerate() {
            let p: [f32; 3] = p.into_point();
            if !all_finite(&p) {
                return Err(BvError::NonFinite { index });
            }
            any = true;
            for (k, t) in terms(p).iter().enumerate() {
                let (l, h) = match exact_sum_f64(t) {
                    Some(x) => (x, x),
                    None => (f64::from(sum_down(t)), f64::from(sum_up(t))),
                };
                lo[k] = lo[k].min(l);
                hi[k] = hi[k].max(h);
            }
        }
        if !any {
            return Err(BvError::NoPoints);
        }
        Ok(Octahedron::new(
            UpTet::new(lo.map(|x| round_f64(x, false))),
            DownTet::new(hi.map(|x| round_f64(x, true))),
        ))
    }

    /// The smallest octahedron containing the box (its eight corners), rounded outward.
    #[must_use]
    pub fn from_aabb(aabb: &Aabb) -> Octahedron {
        // Along normal n, the box's extreme corners take min or max per axis by the sign of n.
        let pick = |n: [f32; 3], lower: bool| -> [f32; 3] {
            [0, 1, 2].map(|i| {
                let use_min = (n[i] > 0.0) == lower;
                n[i] * if use_min { aabb.min[i] } else { aabb.max[i] }
            })
        };
        Octahedron {
            up: UpTet::new(TET_AXES.map(|n| {
                let t = pick(n, true);
                sum_down(&t)
            })),
            down: DownTet::new(TET_AXES.map(|n| {
                let t = pick(n, false);
                sum_up(&t)
            })),
        }
    }

    /// The smallest octahedron containing the sphere: `t_k(center) -/+ sqrt(3) * radius`, rounded
    /// outward.
    #[must_use]
    pub fn from_sphere(sphere: &Sphere) -> Octahedron {
        let reach = mul_up(sphere.radius, SQRT3_UP);
        Octahedron {
            up: UpTet::new(project_down(sphere.center).map(|t| add_down(t, -reach))),
            down: DownTet::new(project_up(sphere.center).map(|t| add_up(t, reach))),
        }
    }

    /// Whether this octahedron is valid in a container: finite and non-empty.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.check(0).is_ok()
    }

    pub(crate) fn check(&self, index: usize) -> Result<(), BvError> {
        self.up.check(index)?;
        self.down.check(index)?;
        if (0..4).any(|k| self.up.min[k] > self.down.max[k]) {
            Err(BvError::Inverted { index })
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqrt3_up_is_an_upper_bound_and_tight() {
        let s = f64::from(SQRT3_UP);
        assert!(s * s >= 3.0);
        let below = f64::from(SQRT3_UP.next_down());
        assert!(below * below < 3.0);
    }

    #[test]
    fn axes_sum_to_zero() {
        for i in 0..3 {
            assert_eq!(TET_AXES.iter().map(|n| n[i]).sum::<f32>(), 0.0);
        }
    }

    #[test]
    fn circumscribed_and_inscribed_nest() {
        let up = UpTet::new([-1.5, -0.25, -2.0, 0.5]);
        let outer = up.circumscribed();
        let inner = up.inscribed();
        for k in 0..4 {
            assert!(inner.max[k] <= outer.max[k]);
        }
        // The circumscribed down tetrahedron touches the up tetrahedron's vertices:
        // its sum is -3 * sum(up).
        assert_eq!(outer.max.iter().sum::<f32>(), 3.25 * 3.0);
    }
}
