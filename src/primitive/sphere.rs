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
    /// Whether this sphere is valid in a container: finite centre and radius, radius `>= 0`.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.check(0).is_ok()
    }

    pub(crate) fn check(&self, index: usize) -> Result<(), crate::BvError> {
        if !super::all_finite(&self.center) || !self.radius.is_finite() {
            Err(crate::BvError::NonFinite { index })
        } else if self.radius < 0.0 {
            Err(crate::BvError::NegativeRadius { index })
        } else {
            Ok(())
        }
    }
}
