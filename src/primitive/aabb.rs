//! [`Aabb`].

use super::{IntoPoint, Sphere, all_finite};
use crate::error::BvError;
use crate::round::{add_up, sub_down};
use bytemuck::{Pod, Zeroable};

/// A closed axis-aligned box: every point `p` with `min[i] <= p[i] <= max[i]` on each axis.
///
/// ```
/// use bvlanes::Aabb;
/// let b = Aabb::from_points([[1.0, 5.0, 0.0], [-1.0, 2.0, 3.0]]).unwrap();
/// assert_eq!(b, Aabb::new([-1.0, 2.0, 0.0], [1.0, 5.0, 3.0]));
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Aabb {
    /// Lower corner.
    pub min: [f32; 3],
    /// Upper corner.
    pub max: [f32; 3],
}

impl Aabb {
    /// A box from its lower and upper corners.
    #[inline]
    #[must_use]
    pub fn new(min: impl Into<[f32; 3]>, max: impl Into<[f32; 3]>) -> Aabb {
        Aabb {
            min: min.into(),
            max: max.into(),
        }
    }

    /// The smallest box containing every point (no rounding is involved: the bounds are input
    /// coordinates).
    ///
    /// The points may be owned or borrowed ([`IntoPoint`]): a `Vec`, an array, `&Vec`, a slice,
    /// or an iterator of points or of references to them, of `[f32; 3]` or any `Copy` type with
    /// `Into<[f32; 3]>` (glam's `Vec3`, ...).
    ///
    /// ```
    /// use bvlanes::Aabb;
    /// let points: Vec<[f32; 3]> = vec![[1.0, 5.0, 0.0], [-1.0, 2.0, 3.0]];
    /// let b = Aabb::from_points(&points)?; // borrowed; `&points[..]`, `points.iter()` too
    /// assert_eq!(b, Aabb::new([-1.0, 2.0, 0.0], [1.0, 5.0, 3.0]));
    /// assert_eq!(Aabb::from_points(points)?, b); // owned
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    ///
    /// # Errors
    /// [`BvError::NoPoints`] for no points, [`BvError::NonFinite`] naming the first point with a
    /// NaN or infinite coordinate.
    pub fn from_points<P>(
        points: impl IntoIterator<Item = impl IntoPoint<P>>,
    ) -> Result<Aabb, BvError> {
        let mut bounds: Option<Aabb> = None;
        for (index, p) in points.into_iter().enumerate() {
            let p: [f32; 3] = p.into_point();
            if !all_finite(&p) {
                return Err(BvError::NonFinite { index });
            }
            let b = bounds.get_or_insert(Aabb { min: p, max: p });
            for ((lo, hi), v) in b.min.iter_mut().zip(&mut b.max).zip(p) {
                *lo = lo.min(v);
                *hi = hi.max(v);
            }
        }
        bounds.ok_or(BvError::NoPoints)
    }

    /// The smallest box containing the sphere, rounded outward so that it contains the sphere
    /// exactly (`min = center - radius` rounded down, `max = center + radius` rounded up).
    ///
    /// ```
    /// use bvlanes::{Aabb, Sphere};
    /// let b = Aabb::from_sphere(&Sphere::new([0.1, 0.0, 0.0], 0.2));
    /// assert!(f64::from(b.max[0]) >= 0.1f32 as f64 + 0.2f32 as f64);
    /// ```
    #[must_use]
    pub fn from_sphere(sphere: &Sphere) -> Aabb {
        let (c, r) = (sphere.center, sphere.radius);
        Aabb {
            min: [0, 1, 2].map(|i| sub_down(c[i], r)),
            max: [0, 1, 2].map(|i| add_up(c[i], r)),
        }
    }

    /// Whether this box is valid in a container: finite and `min <= max` on every axis.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.check(0).is_ok()
    }

    pub(crate) fn check(&self, index: usize) -> Result<(), BvError> {
        if !all_finite(&self.min) || !all_finite(&self.max) {
            Err(BvError::NonFinite { index })
        } else if (0..3).any(|i| self.min[i] > self.max[i]) {
            Err(BvError::Inverted { index })
        } else {
            Ok(())
        }
    }
}
