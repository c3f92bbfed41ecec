//! Bounding spheres: [`Sphere::from_aabb`] and [`Sphere::from_points`], which hold their input
//! exactly. A file of their own, so that `sphere.rs` imports no other primitive and `aabb.rs`
//! (whose `Aabb::from_sphere` needs the sphere) stays above it without a circle.

use super::{Aabb, IntoPoint, Sphere};
use crate::error::BvError;
use crate::round::f32_at_least;

impl Sphere {
    /// A sphere containing the box exactly: centred at the box's midpoint (rounded to the
    /// nearest f32), its radius the distance to the farthest corner rounded up, so that every
    /// point of the box lies within it in exact arithmetic; the radius is that distance rounded
    /// up to f32, or the next f32 above. A box of zero size gives radius 0. The radius of a box
    /// wider than about `2^62` exceeds [`MAX_RADIUS`](Sphere::MAX_RADIUS) (and of one wider
    /// than `f32::MAX`, or with a NaN or infinite coordinate, is `+inf`, never NaN): such a
    /// sphere is not [valid](Sphere::is_valid) in a container.
    ///
    /// ```
    /// use bvlanes::{Aabb, Sphere};
    /// let s = Sphere::from_aabb(&Aabb::new([0.0; 3], [2.0, 2.0, 2.0]));
    /// assert_eq!(s.center, [1.0; 3]);
    /// assert!(f64::from(s.radius) >= 3f64.sqrt()); // the corners' distance
    /// assert!(s.radius < 1.7321);
    /// ```
    #[must_use]
    pub fn from_aabb(aabb: &Aabb) -> Sphere {
        let center: [f32; 3] = core::array::from_fn(|k| {
            // Between min and max (both finite f32, their sum exact enough in f64): finite.
            ((f64::from(aabb.min[k]) + f64::from(aabb.max[k])) * 0.5) as f32
        });
        let reach = core::array::from_fn(|k| {
            let c = f64::from(center[k]);
            up(f64::from(aabb.max[k]) - c).max(up(c - f64::from(aabb.min[k])))
        });
        Sphere {
            center,
            radius: radius_up([reach]),
        }
    }

    /// A sphere containing every point exactly: centred at the midpoint of the points'
    /// bounding box ([`Aabb::from_points`]), its radius the greatest distance from there to a
    /// point, rounded up as in [`from_aabb`](Sphere::from_aabb). A bounding sphere, not the
    /// smallest one: its radius is at most that of the box's [`from_aabb`](Sphere::from_aabb)
    /// sphere, which is at most `sqrt(3)` times the smallest enclosing sphere's (whose diameter
    /// is at least the box's largest side), plus the rounding. The points may be owned or
    /// borrowed, as for [`Aabb::from_points`]; they are collected first (read twice).
    ///
    /// ```
    /// use bvlanes::Sphere;
    /// let points: Vec<[f32; 3]> = vec![[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.0, 1.0, 0.0]];
    /// let s = Sphere::from_points(&points)?;
    /// assert_eq!(s.center, [1.0, 0.5, 0.0]);
    /// assert!(f64::from(s.radius) >= 1.25f64.sqrt()); // the distance to [0, 0, 0] and [2, 0, 0]
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    ///
    /// # Errors
    /// [`BvError::NoPoints`] for no points, [`BvError::NonFinite`] naming the first point with a
    /// NaN or infinite coordinate.
    pub fn from_points<P>(
        points: impl IntoIterator<Item = impl IntoPoint<P>>,
    ) -> Result<Sphere, BvError> {
        let points: Vec<[f32; 3]> = points.into_iter().map(IntoPoint::into_point).collect();
        let center = Sphere::from_aabb(&Aabb::from_points(&points)?).center;
        let reach = points
            .iter()
            .map(|p| core::array::from_fn(|k| up((f64::from(p[k]) - f64::from(center[k])).abs())));
        Ok(Sphere {
            center,
            radius: radius_up(reach),
        })
    }
}

/// `x >= 0` rounded to nearest in f64, made an upper bound of the exact value it rounds:
/// the next f64 up, unless `x` is zero (a difference or product of nonzero finite values
/// never rounds to zero here, so a zero is exact).
fn up(x: f64) -> f64 {
    if x == 0.0 { 0.0 } else { x.next_up() }
}

/// The smallest f32 at least the greatest length of the vectors `reach` (each component an
/// upper bound of a distance along an axis, `>= 0`): every square, sum and root rounded up;
/// `+inf` if a component is NaN (from an infinite coordinate).
fn radius_up(reach: impl IntoIterator<Item = [f64; 3]>) -> f32 {
    let mut squared: f64 = 0.0;
    for d in reach {
        let s = up(up(up(d[0] * d[0]) + up(d[1] * d[1])) + up(d[2] * d[2]));
        if s.is_nan() {
            return f32::INFINITY;
        }
        squared = squared.max(s);
    }
    f32_at_least(up(squared.sqrt()))
}
