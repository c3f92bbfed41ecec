//! [`Frustum`].

use crate::error::BvError;
use bytemuck::{Pod, Zeroable};

/// A view frustum: the intersection of six closed half-spaces, a query for light and object
/// culling against [`Spheres`](crate::Spheres) and [`Aabbs`](crate::Aabbs).
///
/// Plane `k` is `planes[k] = [a, b, c, d]`: a point `p` is inside it when
/// `a * p.x + b * p.y + c * p.z + d >= 0` (the normal `(a, b, c)` points into the frustum). The
/// order is [`LEFT`](Frustum::LEFT), [`RIGHT`](Frustum::RIGHT), [`BOTTOM`](Frustum::BOTTOM),
/// [`TOP`](Frustum::TOP), [`NEAR`](Frustum::NEAR), [`FAR`](Frustum::FAR) (the kernels do not
/// depend on it; the constructors produce it). Normals need not be unit length.
///
/// # As a query: a conservative plane test
///
/// A sphere (centre `c`, radius `r`) passes plane `(n, d)` when `n . c + d >= -r |n|` (it is not
/// wholly on the outer side); a box passes when its corner farthest along `n` (the "p-vertex")
/// is inside the plane. A primitive is reported when it passes **all six** planes. Then:
///
/// * **no false negatives**: every sphere or box that meets the frustum in real arithmetic (the
///   stored f32 planes and primitives taken exactly; closed, so touching a plane from outside
///   counts) is reported, whatever the f32 rounding: each plane is evaluated against a margin
///   that bounds the rounding (`2^-21 (max|n_i| |x|_1 + |d|) + 2^-140`, `x` the sphere's centre
///   or, for boxes, the corner of largest magnitude per axis; see `docs/algorithms.md`,
///   "Frustum against spheres and boxes"). A primitive beyond a plane by less than about twice
///   that margin may also be reported;
/// * **conservative near edges and corners**: the test looks at one plane at a time, so a
///   primitive that is outside the frustum but not wholly beyond any single plane is reported.
///   The classic picture: a sphere just off a corner of the frustum, where the left and the top
///   plane meet at an acute angle, pokes across the left plane's line and across the top plane's
///   line, each on the far side of the corner, without touching the frustum itself. Boxes show
///   the same excess, larger for big boxes diagonal to the frustum's edges (a long box lying
///   across the corner outside both planes' overlap). Culling wants exactly this trade: a few
///   extra objects drawn, none missing;
/// * a query with a NaN or infinite value, or a plane with a zero normal (`a = b = c = 0`; what
///   [`Frustum::from_planes`] refuses), hits nothing;
/// * the planes are not checked for enclosing a volume: a frustum whose six half-spaces have an
///   empty intersection (near beyond far, say) is tested plane by plane like any other, so it
///   reports every primitive that is not wholly beyond a single plane (often none);
/// * a plane whose margin would overflow f32 (`8 (max|n_i| |x|_1 + |d|)` beyond `f32::MAX`, or
///   `|d|` above about `4e37`) rejects nothing, so overflow never loses a hit;
/// * answers are bit-identical on every backend; `Conservative(frustum)` runs the same test.
///
/// ```
/// use bvlanes::{Aabb, Aabbs, Frustum, Sphere, Spheres};
/// // The box [-1, 1]^3 as six planes (a frustum whose side planes are parallel).
/// let cube = Frustum::from_planes([
///     [1.0, 0.0, 0.0, 1.0],  // left:   x >= -1
///     [-1.0, 0.0, 0.0, 1.0], // right:  x <= 1
///     [0.0, 1.0, 0.0, 1.0],  // bottom: y >= -1
///     [0.0, -1.0, 0.0, 1.0], // top:    y <= 1
///     [0.0, 0.0, 1.0, 1.0],  // near:   z >= -1
///     [0.0, 0.0, -1.0, 1.0], // far:    z <= 1
/// ])?;
/// let lights = Spheres::from_slice(&[
///     Sphere::new([0.0, 0.0, 0.0], 0.1), // inside
///     Sphere::new([2.0, 0.0, 0.0], 1.0), // touches the right plane from outside
///     Sphere::new([3.0, 0.0, 0.0], 1.0), // beyond it
/// ])?;
/// assert_eq!(lights.hits(&cube).collect::<Vec<u32>>(), [0, 1]);
/// let boxes = Aabbs::from_slice(&[Aabb::new([0.5; 3], [4.0; 3]), Aabb::new([2.0; 3], [3.0; 3])])?;
/// assert_eq!(boxes.hits(&cube).collect::<Vec<u32>>(), [0]);
/// # Ok::<(), bvlanes::BvError>(())
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Frustum {
    /// The six planes `[a, b, c, d]` (inside: `a x + b y + c z + d >= 0`), in the order left,
    /// right, bottom, top, near, far.
    pub planes: [[f32; 4]; 6],
}

impl Frustum {
    /// Index of the left plane in [`planes`](Frustum::planes).
    pub const LEFT: usize = 0;
    /// Index of the right plane.
    pub const RIGHT: usize = 1;
    /// Index of the bottom plane.
    pub const BOTTOM: usize = 2;
    /// Index of the top plane.
    pub const TOP: usize = 3;
    /// Index of the near plane.
    pub const NEAR: usize = 4;
    /// Index of the far plane.
    pub const FAR: usize = 5;

    /// A frustum from six planes `[a, b, c, d]` as they are (not normalised).
    ///
    /// # Errors
    /// [`BvError::NonFinite`] naming the first plane with a NaN or infinite value,
    /// [`BvError::ZeroNormal`] naming the first plane with `a = b = c = 0`.
    pub fn from_planes(planes: [[f32; 4]; 6]) -> Result<Frustum, BvError> {
        let f = Frustum { planes };
        f.check()?;
        Ok(f)
    }

    /// Whether every plane is finite with a non-zero normal (what
    /// [`from_planes`](Frustum::from_planes) accepts; a query that is not hits nothing).
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.check().is_ok()
    }

    pub(crate) fn check(&self) -> Result<(), BvError> {
        for (index, p) in self.planes.iter().enumerate() {
            if !super::all_finite(p) {
                return Err(BvError::NonFinite { index });
            }
            if p[0] == 0.0 && p[1] == 0.0 && p[2] == 0.0 {
                return Err(BvError::ZeroNormal { index });
            }
        }
        Ok(())
    }

    /// The frustum of a view-projection matrix (Gribb and Hartmann's plane extraction), for the
    /// clip convention of wgpu, Vulkan, Direct3D and Metal: a point `p` is visible when its clip
    /// coordinates `(x, y, z, w) = m * (p, 1)` satisfy `-w <= x <= w`, `-w <= y <= w` and
    /// **`0 <= z <= w`**.
    ///
    /// `m` is **column-major**: `m[col][row]`, so `m[3]` is the translation column. That is the
    /// layout of glam's `Mat4::to_cols_array_2d()`, nalgebra's and cgmath's storage, and of a
    /// matrix in a GPU uniform buffer. (A row-major `[[f32; 4]; 4]`, `m[row][col]`, must be
    /// transposed first.) For OpenGL's `-w <= z <= w` use
    /// [`from_view_projection_gl`](Frustum::from_view_projection_gl).
    ///
    /// The planes are `w + x`, `w - x`, `w + y`, `w - y`, `z`, `w - z` (rows of `m` added in f64),
    /// each **normalised** to a unit normal in f64 and rounded to the nearest f32, so the planes
    /// are the exact ones within a relative `2^-24` per coefficient (the query's guarantees are
    /// about the stored f32 planes). With unit normals, `n . p + d` is the signed distance.
    ///
    /// ```
    /// use bvlanes::{Frustum, Sphere, Spheres};
    /// // A right-handed perspective projection (glam's `perspective_rh`: depth 0..1, looking down
    /// // -z), 90 degrees vertical field of view, aspect 1, near 1, far 100; identity view.
    /// let (near, far) = (1.0f32, 100.0f32);
    /// let f = 1.0; // 1 / tan(fov / 2)
    /// let r = far / (near - far);
    /// let m = [
    ///     [f, 0.0, 0.0, 0.0],         // column 0
    ///     [0.0, f, 0.0, 0.0],         // column 1
    ///     [0.0, 0.0, r, -1.0],        // column 2
    ///     [0.0, 0.0, r * near, 0.0],  // column 3 (translation)
    /// ];
    /// let frustum = Frustum::from_view_projection(m)?;
    /// // The near plane is z = -1 facing -z: inside means z <= -1.
    /// let near_plane = frustum.planes[Frustum::NEAR];
    /// assert!((near_plane[2] + 1.0).abs() < 1e-6 && (near_plane[3] + 1.0).abs() < 1e-6);
    /// let lights = Spheres::from_slice(&[
    ///     Sphere::new([0.0, 0.0, -10.0], 1.0), // straight ahead
    ///     Sphere::new([0.0, 0.0, 10.0], 1.0),  // behind the camera
    ///     Sphere::new([30.0, 0.0, -10.0], 1.0), // far to the right of a 90-degree view
    /// ])?;
    /// assert_eq!(lights.hits(&frustum).collect::<Vec<u32>>(), [0]);
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    ///
    /// # Errors
    /// [`BvError::NonFinite`] naming the first plane that comes out NaN or infinite (a NaN or
    /// infinite entry in `m`, or a plane whose normalised offset overflows f32);
    /// [`BvError::ZeroNormal`] naming the first plane with a zero normal (a degenerate matrix).
    pub fn from_view_projection(m: [[f32; 4]; 4]) -> Result<Frustum, BvError> {
        Frustum::extract(m, false)
    }

    /// [`from_view_projection`](Frustum::from_view_projection) for OpenGL's clip convention,
    /// `-w <= z <= w`: the near plane is `w + z` instead of `z`. Same layout (`m[col][row]`),
    /// normalisation and errors.
    ///
    /// ```
    /// use bvlanes::Frustum;
    /// // An OpenGL orthographic projection of the box [-2, 2] x [-1, 1] x [-3, -1] (glOrtho with
    /// // near 1, far 3, looking down -z).
    /// let m = [
    ///     [0.5, 0.0, 0.0, 0.0],
    ///     [0.0, 1.0, 0.0, 0.0],
    ///     [0.0, 0.0, -1.0, 0.0],  // -2 / (far - near)
    ///     [0.0, 0.0, -2.0, 1.0],  // -(far + near) / (far - near)
    /// ];
    /// let f = Frustum::from_view_projection_gl(m)?;
    /// assert_eq!(f.planes[Frustum::LEFT], [1.0, 0.0, 0.0, 2.0]); // x >= -2
    /// assert_eq!(f.planes[Frustum::NEAR], [0.0, 0.0, -1.0, -1.0]); // z <= -1
    /// assert_eq!(f.planes[Frustum::FAR], [0.0, 0.0, 1.0, 3.0]); // z >= -3
    /// # Ok::<(), bvlanes::BvError>(())
    /// ```
    ///
    /// # Errors
    /// As [`from_view_projection`](Frustum::from_view_projection).
    pub fn from_view_projection_gl(m: [[f32; 4]; 4]) -> Result<Frustum, BvError> {
        Frustum::extract(m, true)
    }

    /// Gribb–Hartmann: plane `k` is row 3 plus or minus row `i` of `m` (`m[col][row]`), in f64,
    /// normalised, rounded to f32.
    fn extract(m: [[f32; 4]; 4], gl: bool) -> Result<Frustum, BvError> {
        let row = |i: usize| [0, 1, 2, 3].map(|col| f64::from(m[col][i]));
        let (x, y, z, w) = (row(0), row(1), row(2), row(3));
        let plus = |a: [f64; 4], b: [f64; 4]| [0, 1, 2, 3].map(|k| a[k] + b[k]);
        let minus = |a: [f64; 4], b: [f64; 4]| [0, 1, 2, 3].map(|k| a[k] - b[k]);
        let near = if gl { plus(w, z) } else { z };
        let raw = [
            plus(w, x),
            minus(w, x),
            plus(w, y),
            minus(w, y),
            near,
            minus(w, z),
        ];
        let mut planes = [[0.0f32; 4]; 6];
        for (index, (p, out)) in raw.iter().zip(&mut planes).enumerate() {
            if !p.iter().all(|v| v.is_finite()) {
                return Err(BvError::NonFinite { index });
            }
            let norm = ((p[0] * p[0] + p[1] * p[1]) + p[2] * p[2]).sqrt();
            if norm == 0.0 {
                return Err(BvError::ZeroNormal { index });
            }
            *out = p.map(|v| (v / norm) as f32);
            if !super::all_finite(out) {
                return Err(BvError::NonFinite { index });
            }
        }
        Ok(Frustum { planes })
    }
}
