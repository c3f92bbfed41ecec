//! The containers: structure-of-arrays storage, one aligned, lane-padded column per component.
//!
//! | container | primitive | columns |
//! |---|---|---|
//! | [`Spheres`] | [`Sphere`] | centre x, y, z, radius |
//! | [`Aabbs`] | [`Aabb`] | min x, y, z, max x, y, z, and the derived diagonal key `sum(max)` rounded up |
//! | [`UpTets`] | [`UpTet`] | min A, B, C, D |
//! | [`DownTets`] | [`DownTet`] | max A, B, C, D |
//! | [`Obbs`] | [`Obb`] | centre x, y, z, half extents x, y, z, axes (9 columns, row by row) |
//! | [`Octahedra`] | [`Octahedron`] | up min A..D, then down max A..D (separate arrays: a query that fails the up half never reads the down half) |
//!
//! Every container validates what goes in (finite values, non-inverted bounds, non-negative radii)
//! and changes nothing when it returns an error.

mod cols;
mod column;

pub(crate) use cols::Cols;
pub(crate) use column::{Columns, MAX_LEN};

use crate::error::BvError;
use crate::primitive::{Aabb, DownTet, Obb, Octahedron, Sphere, UpTet};
use crate::round::sum_up;

/// A structure-of-arrays container: the bound for code generic over [`Spheres`](crate::Spheres),
/// [`Aabbs`](crate::Aabbs), [`UpTets`](crate::UpTets), [`DownTets`](crate::DownTets) and
/// [`Octahedra`](crate::Octahedra). Sealed.
///
/// ```
/// use bvlanes::{Aabb, Aabbs, Backend, Container, Pinned, Query};
/// fn hits_on_every_backend<C: Container, Q: Query<C>>(c: &C, q: &Q) -> Vec<usize> {
///     Backend::available()
///         .iter()
///         .map(|&b| Pinned::new(c, b).unwrap().count_hits(q))
///         .collect()
/// }
/// let boxes = Aabbs::from_slice(&[Aabb::new([0.0; 3], [1.0; 3])]).unwrap();
/// assert!(hits_on_every_backend(&boxes, &[0.5, 0.5, 0.5]).iter().all(|&n| n == 1));
/// ```
pub trait Container: Sealed + Sync {
    /// The primitive it holds.
    type Primitive: Copy;
    /// Number of primitives.
    fn len(&self) -> usize;
    /// Whether it holds none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Seals [`Container`]: only this module's containers implement it.
pub trait Sealed {}

/// How a primitive is stored: one row of `K` column values. Most primitives store exactly their
/// fields (a `bytemuck` cast); [`Aabb`] adds a derived column. `from_row` returns exactly the
/// primitive that went in, so `get` and equality see only the primitive's own values.
pub(crate) trait Row<const K: usize>: Copy {
    /// The stored row (called on validated primitives only).
    fn to_row(self) -> [f32; K];
    /// The primitive back from its row.
    fn from_row(row: [f32; K]) -> Self;
}

/// Primitives stored as their fields, in declaration order.
macro_rules! plain_rows {
    ($($prim:ident: $k:literal),* $(,)?) => {$(
        impl Row<$k> for $prim {
            #[inline]
            fn to_row(self) -> [f32; $k] {
                bytemuck::cast(self)
            }
            #[inline]
            fn from_row(row: [f32; $k]) -> Self {
                bytemuck::cast(row)
            }
        }
    )*};
}

plain_rows!(Sphere: 4, UpTet: 4, DownTet: 4, Octahedron: 8, Obb: 15);

/// A box is stored as min x, y, z, max x, y, z and its diagonal key `sum(max)` rounded up (the
/// 7-sided strategy's plane; see [`Aabbs::diagonal`]).
impl Row<7> for Aabb {
    #[inline]
    fn to_row(self) -> [f32; 7] {
        let [a, b, c, d, e, f]: [f32; 6] = bytemuck::cast(self);
        [a, b, c, d, e, f, sum_up(&self.max)]
    }
    #[inline]
    fn from_row(row: [f32; 7]) -> Self {
        Aabb::new([row[0], row[1], row[2]], [row[3], row[4], row[5]])
    }
}

/// Generates a container type: storage, validation and the Vec-like API. The query methods are
/// the query layer's (`src/query/methods.rs`).
macro_rules! container {
    (
        $(#[$doc:meta])*
        $name:ident, $prim:ident, $k:literal, $what:literal
    ) => {
        $(#[$doc])*
        #[derive(Clone, Default, PartialEq)]
        pub struct $name {
            cols: Columns<$k>,
        }

        impl $name {
            #[doc = concat!("An empty container of ", $what, ".")]
            #[must_use]
            pub fn new() -> Self {
                Self { cols: Columns::new() }
            }

            #[doc = concat!("An empty container with room for `capacity` ", $what, ".")]
            ///
            /// # Panics
            /// If `capacity > u32::MAX` (a container never holds more). Like
            /// [`Vec::with_capacity`], an allocation failure aborts.
            #[must_use]
            pub fn with_capacity(capacity: usize) -> Self {
                Self { cols: Columns::with_capacity(capacity) }
            }

            #[doc = concat!("A container holding `items` in order (index `i` is `items[i]`).")]
            ///
            /// # Errors
            /// The first invalid item's [`BvError`], naming its index in `items`.
            pub fn from_slice(items: &[$prim]) -> Result<Self, BvError> {
                if items.len() > MAX_LEN {
                    return Err(BvError::CapacityExceeded);
                }
                let mut c = Self::with_capacity(items.len());
                c.extend_from_slice(items)?;
                Ok(c)
            }

            #[doc = concat!("Number of ", $what, ".")]
            #[must_use]
            #[inline]
            pub fn len(&self) -> usize {
                self.cols.len()
            }

            #[doc = concat!("Whether there are no ", $what, ".")]
            #[must_use]
            #[inline]
            pub fn is_empty(&self) -> bool {
                self.cols.len() == 0
            }

            /// How many primitives fit before the columns reallocate.
            #[must_use]
            pub fn capacity(&self) -> usize {
                self.cols.capacity()
            }

            /// Makes room for `additional` more primitives.
            ///
            /// # Panics
            /// If `len() + additional > u32::MAX` (a container never holds more; see
            /// [`try_reserve`](Self::try_reserve)). Like [`Vec::reserve`], an allocation failure
            /// aborts.
            pub fn reserve(&mut self, additional: usize) {
                self.cols.reserve(additional);
            }

            /// Makes room for `additional` more primitives, or says why it cannot.
            ///
            /// # Errors
            /// [`BvError::CapacityExceeded`] if `len() + additional > u32::MAX` (nothing is
            /// allocated), [`BvError::AllocationFailed`] if the allocator refuses. The contents
            /// are unchanged either way.
            pub fn try_reserve(&mut self, additional: usize) -> Result<(), BvError> {
                self.cols.try_reserve(additional)
            }

            /// Appends `item` and returns its index.
            ///
            /// # Errors
            /// [`BvError`] naming the index the item would have had; nothing is inserted.
            pub fn push(&mut self, item: $prim) -> Result<u32, BvError> {
                let index = self.len();
                if index >= MAX_LEN {
                    return Err(BvError::CapacityExceeded);
                }
                item.check(index)?;
                self.cols.push(Row::to_row(item));
                Ok(index as u32)
            }

            /// Appends every item, or none of them.
            ///
            /// # Errors
            /// The first invalid item's [`BvError`], naming its index in `items`; the container
            /// is left as it was.
            pub fn extend_from_slice(&mut self, items: &[$prim]) -> Result<(), BvError> {
                if self.len().saturating_add(items.len()) > MAX_LEN {
                    return Err(BvError::CapacityExceeded);
                }
                for (index, item) in items.iter().enumerate() {
                    item.check(index)?;
                }
                self.cols.reserve(items.len());
                for item in items {
                    self.cols.push(Row::to_row(*item));
                }
                Ok(())
            }

            /// The primitive at `index`, if any.
            #[must_use]
            #[inline]
            pub fn get(&self, index: usize) -> Option<$prim> {
                self.cols.get(index).map(<$prim as Row<$k>>::from_row)
            }

            /// Replaces the primitive at `index`.
            ///
            /// # Errors
            /// [`BvError::IndexOutOfBounds`] past the end, or the item's validation error
            /// naming `index`; nothing is changed.
            pub fn set(&mut self, index: usize, item: $prim) -> Result<(), BvError> {
                if index >= self.len() {
                    return Err(BvError::IndexOutOfBounds { index, len: self.len() });
                }
                item.check(index)?;
                self.cols.set(index, Row::to_row(item));
                Ok(())
            }

            /// Removes the primitive at `index` and returns it; the last primitive takes its
            /// index (O(1), like [`Vec::swap_remove`]).
            ///
            /// # Panics
            /// If `index >= len()`.
            pub fn swap_remove(&mut self, index: usize) -> $prim {
                Row::from_row(self.cols.swap_remove(index))
            }

            /// Removes every primitive (keeps the allocation).
            pub fn clear(&mut self) {
                self.cols.clear();
            }

            /// The primitives in index order.
            #[inline]
            pub fn iter(&self) -> impl ExactSizeIterator<Item = $prim> + DoubleEndedIterator + '_ {
                (0..self.len()).map(|i| self.get(i).expect("index below len"))
            }
        }

        #[allow(dead_code)] // the blocked containers use them for some containers only
        impl $name {
            /// The storage.
            #[inline]
            pub(crate) fn columns(&self) -> &Columns<$k> {
                &self.cols
            }

            /// A container over `cols` (rows that passed this container's validation).
            pub(crate) fn from_columns(cols: Columns<$k>) -> Self {
                Self { cols }
            }
        }

        impl Sealed for $name {}

        impl Container for $name {
            type Primitive = $prim;
            #[inline]
            fn len(&self) -> usize {
                self.cols.len()
            }
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_list().entries(self.iter()).finish()
            }
        }

        impl TryFrom<&[$prim]> for $name {
            type Error = BvError;
            fn try_from(items: &[$prim]) -> Result<Self, BvError> {
                Self::from_slice(items)
            }
        }
    };
}

container!(
    /// Spheres in structure-of-arrays form: centre x, y, z and radius columns.
    ///
    /// Queries: a point, a [`Sphere`], an [`Aabb`] (all exact).
    ///
    /// ```
    /// use bvlanes::{Aabb, Sphere, Spheres};
    /// let lights = Spheres::from_slice(&[
    ///     Sphere::new([0.0, 0.0, 0.0], 1.0),
    ///     Sphere::new([5.0, 0.0, 0.0], 1.0),
    /// ])
    /// .unwrap();
    /// let cell = Aabb::new([0.5, -1.0, -1.0], [4.5, 1.0, 1.0]);
    /// assert_eq!(lights.hits(&cell).collect::<Vec<_>>(), [0, 1]);
    /// assert_eq!(lights.count_hits(&[5.0, 1.0, 0.0]), 1); // on the surface: closed
    /// ```
    Spheres, Sphere, 4, "spheres"
);

container!(
    /// Axis-aligned boxes in structure-of-arrays form: min x, y, z and max x, y, z columns, plus
    /// a seventh derived column, the diagonal key `max.x + max.y + max.z` rounded up (see
    /// [`Aabbs::diagonal`]), which the [`BoxStrategy::SevenSided`](crate::BoxStrategy) query
    /// strategy reads (one more f32 per box). It is kept up to date by every method that changes the container and is
    /// never visible through [`get`](Aabbs::get), [`iter`](Aabbs::iter) or equality: those see
    /// exactly the six values pushed.
    ///
    /// Queries: a point, a [`Sphere`] (exact, or [`Conservative`](crate::Conservative)), an
    /// [`Aabb`] (exact, evaluated with [`BoxStrategy::default()`](crate::BoxStrategy)), a
    /// [`Staged`](crate::Staged) box (the same answers with a chosen strategy; see also
    /// [`Aabbs::count_stage_passes`](crate::Aabbs::count_stage_passes)).
    ///
    /// ```
    /// use bvlanes::{Aabb, Aabbs, Sphere};
    /// let boxes = Aabbs::from_slice(&[
    ///     Aabb::new([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]),
    ///     Aabb::new([2.0, 0.0, 0.0], [3.0, 1.0, 1.0]),
    /// ])
    /// .unwrap();
    /// let mut hits = Vec::new();
    /// boxes.extend_hits(&Sphere::new([1.5, 0.5, 0.5], 0.5), &mut hits);
    /// assert_eq!(hits, [0, 1]); // touching counts
    /// ```
    Aabbs, Aabb, 7, "boxes"
);

container!(
    /// Up tetrahedra in structure-of-arrays form: min A, B, C, D columns.
    ///
    /// Queries: a point, a [`DownTet`] (exact).
    ///
    /// ```
    /// use bvlanes::{DownTet, UpTet, UpTets};
    /// let tets = UpTets::from_slice(&[UpTet::new([-1.0; 4])]).unwrap();
    /// assert!(tets.any_hit(&[0.0, 0.0, 0.0]));
    /// assert!(!tets.any_hit(&DownTet::new([-2.0, 5.0, 5.0, 5.0])));
    /// ```
    UpTets, UpTet, 4, "up tetrahedra"
);

container!(
    /// Down tetrahedra in structure-of-arrays form: max A, B, C, D columns.
    ///
    /// Queries: a point, an [`UpTet`] (exact).
    ///
    /// ```
    /// use bvlanes::{DownTet, DownTets, UpTet};
    /// let tets = DownTets::from_slice(&[DownTet::new([1.0; 4])]).unwrap();
    /// assert!(tets.any_hit(&UpTet::new([0.5, -1.0, -1.0, -1.0])));
    /// ```
    DownTets, DownTet, 4, "down tetrahedra"
);

container!(
    /// Axis-aligned bounding octahedra (AABO) in structure-of-arrays form: the up tetrahedra's
    /// four columns and the down tetrahedra's four columns, in separate arrays, so a block of
    /// octahedra that fails the up half never reads its down half.
    ///
    /// Queries: a point (exact containment), an [`Octahedron`] (exact; or the 8-DOP test with
    /// [`Conservative`](crate::Conservative)), a [`DownTet`] (tested against the up halves only,
    /// the readme's "Tetrahedron" row: conservative for the octahedra), an [`UpTet`] (against the
    /// down halves only).
    ///
    /// ```
    /// use bvlanes::{Aabb, Octahedra, Octahedron};
    /// let a = Octahedron::from_aabb(&Aabb::new([0.0; 3], [1.0; 3]));
    /// let b = Octahedron::from_aabb(&Aabb::new([1.0, 1.0, 1.0], [2.0, 2.0, 2.0]));
    /// let world = Octahedra::from_slice(&[a, b]).unwrap();
    /// assert_eq!(world.count_hits(&a), 2); // the boxes touch at (1, 1, 1)
    /// ```
    Octahedra, Octahedron, 8, "octahedra"
);

container!(
    /// Oriented boxes in structure-of-arrays form: centre, half-extent and axis columns (15).
    ///
    /// Queries: a point, a [`Sphere`] (exact, or [`Conservative`](crate::Conservative): quick
    /// rejections in the box frame).
    ///
    /// ```
    /// use bvlanes::{Obb, Obbs, Sphere};
    /// let s = std::f32::consts::FRAC_1_SQRT_2;
    /// let diamond = Obb::new([0.0; 3], [1.0; 3], [[s, s, 0.0], [-s, s, 0.0], [0.0, 0.0, 1.0]]);
    /// let boxes = Obbs::from_slice(&[diamond]).unwrap();
    /// assert!(boxes.any_hit(&[1.4, 0.0, 0.0])); // inside the turned square (reaches 1.414)
    /// assert!(!boxes.any_hit(&[1.0, 1.0, 0.0])); // the corner of the unturned one is outside
    /// assert!(boxes.any_hit(&Sphere::new([2.0, 0.0, 0.0], 0.6)));
    /// ```
    Obbs, Obb, 15, "oriented boxes"
);

impl Obbs {
    pub(crate) fn view(&self) -> Cols<'_, 15> {
        self.cols.view(0)
    }
}

impl Spheres {
    pub(crate) fn view(&self) -> Cols<'_, 4> {
        self.cols.view(0)
    }
}

impl Aabbs {
    /// The six box columns: min x, y, z, max x, y, z.
    pub(crate) fn view(&self) -> Cols<'_, 6> {
        self.cols.view(0)
    }

    /// The six box columns followed by the diagonal column (what the 7-sided kernel reads).
    pub(crate) fn view_with_diagonal(&self) -> Cols<'_, 7> {
        self.cols.view(0)
    }

    /// The diagonal column alone.
    #[allow(dead_code)] // for kernels that read the diagonal without the box columns
    pub(crate) fn diagonal_view(&self) -> Cols<'_, 1> {
        self.cols.view(6)
    }

    /// The stored diagonal key of box `index`: `max.x + max.y + max.z` rounded toward `+inf`
    /// (one rounding of the exact sum; `+inf` if it exceeds `f32::MAX`). A box overlapping a
    /// query box has `sum(box max) >= sum(query min)` on the reals, so comparing this key with the
    /// query's `sum(min)` rounded down never rejects a real overlap. `None` past the end.
    ///
    /// ```
    /// use bvlanes::{Aabb, Aabbs};
    /// let boxes = Aabbs::from_slice(&[
    ///     Aabb::new([0.0; 3], [1.0, 2.0, 3.0]),
    ///     Aabb::new([0.0; 3], [f32::MAX; 3]),
    /// ])
    /// .unwrap();
    /// assert_eq!(boxes.diagonal(0), Some(6.0));
    /// assert_eq!(boxes.diagonal(1), Some(f32::INFINITY)); // overflow: always passes
    /// assert_eq!(boxes.diagonal(2), None);
    /// ```
    #[must_use]
    pub fn diagonal(&self, index: usize) -> Option<f32> {
        self.cols.get(index).map(|row| row[6])
    }
}

impl UpTets {
    pub(crate) fn view(&self) -> Cols<'_, 4> {
        self.cols.view(0)
    }
}

impl DownTets {
    pub(crate) fn view(&self) -> Cols<'_, 4> {
        self.cols.view(0)
    }
}

impl Octahedra {
    pub(crate) fn view(&self) -> Cols<'_, 8> {
        self.cols.view(0)
    }
    pub(crate) fn up_view(&self) -> Cols<'_, 4> {
        self.cols.view(0)
    }
    pub(crate) fn down_view(&self) -> Cols<'_, 4> {
        self.cols.view(4)
    }
}

#[cfg(test)]
mod tests {
    //! The storage invariants every growth path keeps (issue 7, "Alignment and aliasing"), and the
    //! `u32::MAX` length limit, checked without allocating gigabytes.

    use super::*;
    use crate::lanes::Chunk;

    /// Every column is 64-byte aligned, exactly `len.div_ceil(16)` chunks long, and every lane
    /// past `len` is `+0.0` (so a `bytemuck` view of a column never shows a primitive past the
    /// end); nothing past `len` is reachable through `get`.
    fn check_layout<const K: usize>(cols: &Columns<K>, what: &str) {
        let len = cols.len();
        for k in 0..K {
            let col = cols.col(k);
            assert_eq!(
                col.as_ptr() as usize % 64,
                0,
                "{what}: column {k} is not 64-byte aligned"
            );
            assert_eq!(
                col.len(),
                len.div_ceil(Chunk::LANES),
                "{what}: column {k} chunks"
            );
            let lanes: &[f32] = bytemuck::cast_slice(col);
            assert_eq!(lanes.len(), col.len() * Chunk::LANES);
            assert!(
                lanes[len..].iter().all(|v| v.to_bits() == 0),
                "{what}: column {k} has a non-zero padding lane"
            );
        }
        assert!(cols.capacity() >= len, "{what}: capacity below len");
        assert_eq!(cols.get(len), None, "{what}: a row past the end");
    }

    /// Drives one container type through every growth path, checking the layout after each.
    macro_rules! growth_paths {
        ($test:ident, $c:ident, $make:expr) => {
            #[test]
            fn $test() {
                let make: fn(usize) -> _ = $make;
                // Three chunks and a bit (Miri: two and a bit).
                let n = if cfg!(miri) { 34 } else { 70 };
                let items: Vec<_> = (0..n).map(make).collect();
                let check = |c: &$c, what: &str| {
                    check_layout(&c.cols, what);
                    assert_eq!(c.iter().count(), c.len(), "{what}: iter");
                };
                let mut c = $c::new();
                check(&c, "new");
                for (i, item) in items.iter().enumerate() {
                    c.push(*item).expect("valid");
                    check(&c, &format!("push {i}"));
                }
                check(&c.clone(), "clone");
                check(&$c::default(), "default");
                for cap in [0, 1, 15, 16, 17, 1000] {
                    let mut w = $c::with_capacity(cap);
                    check(&w, "with_capacity");
                    w.extend_from_slice(&items[..cap.min(items.len())])
                        .expect("valid");
                    check(&w, "with_capacity + extend");
                }
                for n in [0, 1, 16, 17, 33, items.len()] {
                    let f = $c::from_slice(&items[..n]).expect("valid");
                    check(&f, "from_slice");
                    check(&$c::try_from(&items[..n]).expect("valid"), "try_from");
                    let mut r = f.clone();
                    r.reserve(100);
                    check(&r, "reserve");
                    r.try_reserve(1000).expect("small");
                    check(&r, "try_reserve");
                    assert_eq!(r, f, "reserving changes nothing");
                    r.extend_from_slice(&items).expect("valid");
                    check(&r, "reserve + extend");
                    r.extend_from_slice(&[items[0]; 1]).expect("valid");
                    check(&r, "extend by one");
                }
                let mut s = c.clone();
                while !s.is_empty() {
                    let k = (s.len() * 7 + 3) % s.len();
                    s.swap_remove(k);
                    check(&s, &format!("swap_remove {k}"));
                }
                c.set(5, items[n - 1]).expect("valid");
                check(&c, "set");
                c.clear();
                check(&c, "clear");
                for (i, item) in items.iter().take(20).enumerate() {
                    c.push(*item).expect("valid");
                    check(&c, &format!("clear + push {i}"));
                }
            }
        };
    }

    growth_paths!(spheres_stay_aligned, Spheres, |i| Sphere::new(
        [i as f32, -(i as f32), 0.5],
        1.0 + i as f32
    ));
    growth_paths!(aabbs_stay_aligned, Aabbs, |i| Aabb::new(
        [i as f32, 0.0, -1.0],
        [i as f32 + 1.0, 2.0, 0.0]
    ));
    growth_paths!(up_tets_stay_aligned, UpTets, |i| UpTet::new(
        [-(i as f32) - 1.0; 4]
    ));
    growth_paths!(down_tets_stay_aligned, DownTets, |i| DownTet::new(
        [i as f32 + 1.0; 4]
    ));
    growth_paths!(
        octahedra_stay_aligned,
        Octahedra,
        |i| Octahedron::from_aabb(&Aabb::new([i as f32; 3], [i as f32 + 2.0; 3]))
    );
    growth_paths!(obbs_stay_aligned, Obbs, |i| Obb::from_aabb(&Aabb::new(
        [0.0, i as f32, 0.0],
        [1.0, i as f32 + 0.5, 3.0]
    )));

    /// A container that claims `len` primitives without holding them (see
    /// `Columns::claiming_len`).
    fn claiming(len: usize) -> Spheres {
        Spheres {
            cols: Columns::claiming_len(len),
        }
    }

    #[test]
    fn the_length_limit_is_an_error_not_a_wrap_around() {
        let one = Sphere::new([0.0; 3], 1.0);
        let mut full = claiming(MAX_LEN);
        assert_eq!(full.len(), u32::MAX as usize);
        assert_eq!(full.push(one), Err(BvError::CapacityExceeded));
        assert_eq!(
            full.extend_from_slice(&[one]),
            Err(BvError::CapacityExceeded)
        );
        assert_eq!(full.try_reserve(1), Err(BvError::CapacityExceeded));
        assert_eq!(full.try_reserve(usize::MAX), Err(BvError::CapacityExceeded));
        // (Not `try_reserve(0)`: this container holds no chunks, so it would allocate the 16 GiB
        // per column that a real full one already has. Miri ran out of memory on exactly that.)
        assert_eq!(full.len(), MAX_LEN, "refusals change nothing");
        // One below the limit: room for exactly one more (not tried: it would write the row).
        let mut almost = claiming(MAX_LEN - 1);
        assert_eq!(
            almost.extend_from_slice(&[one, one]),
            Err(BvError::CapacityExceeded)
        );
        assert_eq!(almost.try_reserve(2), Err(BvError::CapacityExceeded));
        assert_eq!(almost.len(), MAX_LEN - 1);
        // Sums that overflow usize are refused too, not wrapped.
        let mut half = claiming(usize::MAX / 2);
        assert_eq!(half.try_reserve(usize::MAX), Err(BvError::CapacityExceeded));
        assert_eq!(half.push(one), Err(BvError::CapacityExceeded));
        assert_eq!(half.extend_from_slice(&[]), Err(BvError::CapacityExceeded));
    }

    #[test]
    #[should_panic(expected = "exceed the container limit")]
    fn reserve_past_the_limit_panics_as_documented() {
        claiming(MAX_LEN).reserve(1);
    }

    #[test]
    #[should_panic(expected = "exceed the container limit")]
    fn reserve_that_overflows_usize_panics_as_documented() {
        claiming(10).reserve(usize::MAX);
    }

    #[test]
    #[should_panic(expected = "exceeds the container limit")]
    fn with_capacity_past_the_limit_panics_as_documented() {
        let _ = Spheres::with_capacity(MAX_LEN + 1);
    }
}
