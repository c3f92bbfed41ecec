//! [`Sphere`].

use bytemuck::{Pod, Zeroable};

/// A closed ball: every point within `radius` of `center` (the surface included).
///
/// ```
/// use bvlanes::Sphere;
/// let s = Sphere::new([1.0, 2.0, 3.0], 0.5);
/// assert_eq!(s.radius, 0.5);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Sphere {
    /// Centre.
    pub center: [f32; 3],
    /// Radius, `>= 0` in a container; a query with `radius == f32::INFINITY` hits everything.
    pub radius: f32,
}

impl Sphere {
    /// A sphere from its centre (anything convertible to `[f32; 3]`) and radius.
    #[inline]
    #[must_use]
    pub fn new(center: impl Into<[f32; 3]>, radius: f32) -> Sphere {
        Sphere {
            center: center.into(),
            radius,
        }
    }
}

impl Sphere {
    /// The largest radius a container accepts: `2^62` (about 4.6e18). It keeps the squared reach
    /// `(r + r_query)^2` of every exact sphere test finite for query radii below `2^63`; larger
    /// query radii (up to `+inf`) are handled by scaling the query. No real scene comes near it.
    pub const MAX_RADIUS: f32 = 4_611_686_018_427_387_904.0;

    /// Whether this sphere is valid in a container: finite centre, radius in
    /// `0..=`[`MAX_RADIUS`](Sphere::MAX_RADIUS) (`-0.0` counts as zero).
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.check(0).is_ok()
    }

    pub(crate) fn check(&self, index: usize) -> Result<(), crate::error::BvError> {
        if !super::all_finite(&self.center) || !self.radius.is_finite() {
            Err(crate::error::BvError::NonFinite { index })
        } else if self.radius < 0.0 {
            Err(crate::error::BvError::NegativeRadius { index })
        } else if self.radius > Sphere::MAX_RADIUS {
            Err(crate::error::BvError::RadiusTooLarge { index })
        } else {
            Ok(())
        }
    }
}
