//! [`IntoPoint`]: a point taken by value or by reference.

/// A point, owned or borrowed: what the point-set constructors ([`Aabb::from_points`],
/// [`Octahedron::from_points`]) take as items.
///
/// Implemented for
/// * every `P: Into<[f32; 3]>` (as `IntoPoint<P>`): `[f32; 3]`, `(f32, f32, f32)`, glam's `Vec3`,
///   mint's `Vector3<f32>`, a type of your own with `impl From<MyVec> for [f32; 3]`;
/// * `&P` for every such `P` that is also `Copy` (as `IntoPoint<P>` too): `&[f32; 3]`,
///   `&glam::Vec3`, ...
///
/// so `&Vec<[f32; 3]>`, `&points[..]`, `points.iter()`, `&Vec<glam::Vec3>` and the owned forms
/// all work without `.iter().copied()`.
///
/// The type parameter `P` is the point type read: `[f32; 3]` for both `[f32; 3]` and
/// `&[f32; 3]`. It is always inferred; it exists because the two implementations above would
/// otherwise overlap (a downstream crate may implement `From<&T> for [f32; 3]`, so the compiler
/// rejects `impl<P: Into<[f32; 3]>> IntoPoint for P` next to `impl IntoPoint for &P`). One
/// consequence: for a type `T` that converts both by value and by reference
/// (`From<T>` and `From<&T>` for `[f32; 3]`), a `&T` matches both and the compiler asks for
/// the point type: write `Aabb::from_points::<T>(&points)` (both ways give the same point).
///
/// The trait is sealed: a point type joins by implementing `Into<[f32; 3]>` (that is,
/// `From<MyVec> for [f32; 3]`), not this trait.
///
/// ```
/// use bvlanes::{Aabb, IntoPoint};
/// assert_eq!([1.0, 2.0, 3.0].into_point(), [1.0, 2.0, 3.0]);
/// assert_eq!((&[1.0, 2.0, 3.0]).into_point(), [1.0, 2.0, 3.0]);
///
/// // A point type of your own (glam's `Vec3` works the same way).
/// #[derive(Clone, Copy)]
/// struct MyVec(f32, f32, f32);
/// impl From<MyVec> for [f32; 3] {
///     fn from(v: MyVec) -> [f32; 3] {
///         [v.0, v.1, v.2]
///     }
/// }
/// let points = vec![MyVec(1.0, 5.0, 0.0), MyVec(-1.0, 2.0, 3.0)];
/// let b = Aabb::from_points(&points)?; // borrowed: `points` stays usable
/// assert_eq!(b, Aabb::from_points(points)?); // owned
/// # Ok::<(), bvlanes::BvError>(())
/// ```
///
/// [`Aabb::from_points`]: crate::Aabb::from_points
/// [`Octahedron::from_points`]: crate::Octahedron::from_points
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a point",
    label = "not a point",
    note = "a point is a type implementing `Into<[f32; 3]>` (such as `[f32; 3]` or glam's `Vec3`), \
            or a shared reference to such a type that is also `Copy`"
)]
pub trait IntoPoint<P>: sealed::Sealed<P> {
    /// The point as `[f32; 3]`.
    fn into_point(self) -> [f32; 3];
}

impl<P: Into<[f32; 3]>> IntoPoint<P> for P {
    #[inline]
    fn into_point(self) -> [f32; 3] {
        self.into()
    }
}

impl<P: Copy + Into<[f32; 3]>> IntoPoint<P> for &P {
    #[inline]
    fn into_point(self) -> [f32; 3] {
        (*self).into()
    }
}

mod sealed {
    /// Implemented exactly where [`IntoPoint`](super::IntoPoint) is.
    pub trait Sealed<P> {}

    impl<P: Into<[f32; 3]>> Sealed<P> for P {}

    impl<P: Copy + Into<[f32; 3]>> Sealed<P> for &P {}
}
