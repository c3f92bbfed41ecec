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
use crate::lanes::Chunk;
use crate::primitive::{Aabb, DownTet, Obb, Octahedron, Sphere, UpTet};
use crate::round::{sum3_up, sum3_up_lanes};

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
    /// The rows of 16 validated primitives, column by column (`[k][lane]`): what the bulk
    /// constructors store a whole chunk at a time. Equal to [`to_row`](Row::to_row) of each.
    #[inline]
    fn to_rows(items: &[Self; Chunk::LANES]) -> [[f32; Chunk::LANES]; K] {
        let mut cols = [[0.0; Chunk::LANES]; K];
        for (lane, item) in items.iter().enumerate() {
            for (col, value) in cols.iter_mut().zip(item.to_row()) {
                col[lane] = value;
            }
        }
        cols
    }
}

/// A primitive's validation as the bulk constructors run it: `passes` is `check(i).is_ok()`,
/// written without branches where that is cheaper, so that a chunk of 16 items is validated
/// with one branch, and `check` runs only on a chunk that holds an invalid item (to name it).
pub(crate) trait Valid: Copy {
    /// Whether the primitive is valid (the containers' `check` would accept it).
    fn passes(&self) -> bool;
    /// The containers' validation, naming `index` in its error.
    fn check_at(&self, index: usize) -> Result<(), BvError>;
}

/// The first invalid item's error of `block` (up to 16 items, the first of them item `first`),
/// if any: one branch on [`Valid::passes`] of them all, `check` only if they do not all pass.
#[inline(always)]
fn check_block<T: Valid>(block: &[T], first: usize) -> Result<(), BvError> {
    if !block.iter().fold(true, |ok, item| ok & item.passes()) {
        for (i, item) in block.iter().enumerate() {
            item.check_at(first + i)?;
        }
    }
    Ok(())
}

/// The first invalid item's error (naming its index in `items`), if any, 16 items at a time
/// ([`check_block`]).
fn validate<T: Valid>(items: &[T]) -> Result<(), BvError> {
    for (c, block) in items.chunks(Chunk::LANES).enumerate() {
        check_block(block, c * Chunk::LANES)?;
    }
    Ok(())
}

/// Appends `items` to `cols` (which has room for them), or none of them: the first invalid
/// item's error, naming its index in `items`, and `cols` as it was. Each chunk of 16 items is
/// validated ([`check_block`]: one branch) and stored as whole chunks of the columns
/// ([`Row::to_rows`]) while it is in L1; the items before the first chunk boundary and after the
/// last go row by row. An error truncates what was appended; the capacity is untouched, since
/// nothing grows. (Row by row after a validation pass, `Aabbs::from_slice` of 1,000,000 boxes
/// took 45 ms on the Intel Xeon of 2026-11-27; this way 12-14 ms, `docs/benchmarks.md`.)
fn extend_checked<T: Row<K> + Valid, const K: usize>(
    cols: &mut Columns<K>,
    items: &[T],
) -> Result<(), BvError> {
    let start = cols.len();
    debug_assert!(
        cols.capacity() - start >= items.len(),
        "room is reserved first"
    );
    let appended = (|| {
        let head = ((Chunk::LANES - start % Chunk::LANES) % Chunk::LANES).min(items.len());
        let (head, rest) = items.split_at(head);
        let (whole, tail) = rest.as_chunks::<{ Chunk::LANES }>();
        for (i, item) in head.iter().enumerate() {
            item.check_at(i)?;
            cols.push(item.to_row());
        }
        for (c, block) in whole.iter().enumerate() {
            check_block(block, head.len() + c * Chunk::LANES)?;
            cols.push_chunk(T::to_rows(block));
        }
        let first = head.len() + whole.len() * Chunk::LANES;
        for (i, item) in tail.iter().enumerate() {
            item.check_at(first + i)?;
            cols.push(item.to_row());
        }
        Ok(())
    })();
    if appended.is_err() {
        cols.truncate(start);
    }
    appended
}

/// `-f32::MAX <= lo <= hi <= f32::MAX`: both finite and in order (a NaN fails every compare).
#[inline(always)]
fn finite_ordered(lo: f32, hi: f32) -> bool {
    (-f32::MAX <= lo) & (lo <= hi) & (hi <= f32::MAX)
}

impl Valid for Aabb {
    #[inline]
    fn passes(&self) -> bool {
        (0..3).fold(true, |ok, a| ok & finite_ordered(self.min[a], self.max[a]))
    }
    #[inline]
    fn check_at(&self, index: usize) -> Result<(), BvError> {
        self.check(index)
    }
}

impl Valid for Sphere {
    #[inline]
    fn passes(&self) -> bool {
        let centre = self
            .center
            .iter()
            .fold(true, |ok, &c| ok & finite_ordered(c, c));
        centre & finite_ordered(0.0, self.radius) & (self.radius <= Sphere::MAX_RADIUS)
    }
    #[inline]
    fn check_at(&self, index: usize) -> Result<(), BvError> {
        self.check(index)
    }
}

/// Primitives validated by their `check` itself (its exact sums, or their many fields).
macro_rules! checked_valid {
    ($($prim:ident),*) => {$(
        impl Valid for $prim {
            #[inline]
            fn passes(&self) -> bool {
                self.check(0).is_ok()
            }
            #[inline]
            fn check_at(&self, index: usize) -> Result<(), BvError> {
                self.check(index)
            }
        }
    )*};
}
checked_valid!(UpTet, DownTet, Octahedron, Obb);

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
        [a, b, c, d, e, f, sum3_up(&self.max)]
    }
    #[inline]
    fn from_row(row: [f32; 7]) -> Self {
        Aabb::new([row[0], row[1], row[2]], [row[3], row[4], row[5]])
    }
    /// The six coordinates transposed, and the 16 diagonal keys computed lane by lane
    /// ([`sum3_up_lanes`]: the same values as `sum_up`, without its per-call branches).
    #[inline]
    fn to_rows(items: &[Self; Chunk::LANES]) -> [[f32; Chunk::LANES]; 7] {
        let mut cols = [[0.0; Chunk::LANES]; 7];
        for (lane, item) in items.iter().enumerate() {
            let row: [f32; 6] = bytemuck::cast(*item);
            for (col, value) in cols.iter_mut().zip(row) {
                col[lane] = value;
            }
        }
        cols[6] = sum3_up_lanes(&cols[3], &cols[4], &cols[5]);
        cols
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
                if self.cols.capacity() - self.len() < items.len() {
                    // Validated before growing, so that a refused extend leaves the capacity
                    // as it was too (then validated again as it is stored, from L1).
                    validate(items)?;
                    self.cols.reserve(items.len());
                }
                extend_checked(&mut self.cols, items)
            }

            /// The primitive at `index`, if any.
            #[must_use]
            // Always: the blocked builds read their rows through it inside a tier, where the
            // octahedra's was compiled out of line (`.ci/check-inlining`).
            #[inline(always)]
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

            /// Overwrites this container's primitives with `other`'s (as many) and appends to
            /// `changed` the index of each one that differs, ascending (the broadphase's moved
            /// boxes).
            pub(crate) fn take_changed(&mut self, other: &Self, changed: &mut Vec<u32>) {
                self.cols.take_changed(&other.cols, changed);
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

// The views are `#[inline]`: the blocked walk (generic, so compiled in the caller's crate) takes
// one per prefetched chunk, and as a call each took a `vzeroupper` and the walk's registers
// (1,000 small box queries on 100,000 blocked boxes: 1.07-1.14x faster inlined).
impl Obbs {
    #[inline]
    pub(crate) fn view(&self) -> Cols<'_, 15> {
        self.cols.view(0)
    }
}

impl Spheres {
    #[inline]
    pub(crate) fn view(&self) -> Cols<'_, 4> {
        self.cols.view(0)
    }
}

impl Aabbs {
    /// The six box columns: min x, y, z, max x, y, z.
    #[inline]
    pub(crate) fn view(&self) -> Cols<'_, 6> {
        self.cols.view(0)
    }

    /// The six box columns followed by the diagonal column (what the 7-sided kernel reads).
    #[inline]
    pub(crate) fn view_with_diagonal(&self) -> Cols<'_, 7> {
        self.cols.view(0)
    }

    /// The diagonal column alone.
    #[allow(dead_code)] // for kernels that read the diagonal without the box columns
    #[inline]
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
    #[inline]
    pub(crate) fn view(&self) -> Cols<'_, 4> {
        self.cols.view(0)
    }
}

impl DownTets {
    #[inline]
    pub(crate) fn view(&self) -> Cols<'_, 4> {
        self.cols.view(0)
    }
}

impl Octahedra {
    #[inline]
    pub(crate) fn view(&self) -> Cols<'_, 8> {
        self.cols.view(0)
    }
    #[inline]
    pub(crate) fn up_view(&self) -> Cols<'_, 4> {
        self.cols.view(0)
    }
    #[inline]
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

    /// Values that probe a validation: signed zeros, the largest finite, infinities, NaN.
    const PROBES: [f32; 9] = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f32::MAX,
        -f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];

    #[test]
    fn the_branch_free_validations_agree_with_check() {
        for &lo in &PROBES {
            for &hi in &PROBES {
                for axis in 0..3 {
                    let mut b = Aabb::new([-1.0; 3], [1.0; 3]);
                    b.min[axis] = lo;
                    b.max[axis] = hi;
                    assert_eq!(b.passes(), b.check(0).is_ok(), "{b:?}");
                    let mut s = Sphere::new([0.0; 3], 1.0);
                    s.center[axis] = lo;
                    assert_eq!(s.passes(), s.check(0).is_ok(), "{s:?}");
                }
            }
            let r = Sphere::MAX_RADIUS;
            for radius in [lo, r, r.next_up(), r.next_down(), -f32::MIN_POSITIVE] {
                let s = Sphere::new([0.0; 3], radius);
                assert_eq!(s.passes(), s.check(0).is_ok(), "{s:?}");
            }
        }
    }

    /// Appends `items` with one invalid item at every position to containers of several
    /// lengths: the error is the first invalid item's (its index in `items`, its defect), and
    /// the container is as it was, padding lanes zero, whether the item fell before the first
    /// chunk boundary, in a whole chunk or in the tail.
    macro_rules! rejects_everywhere {
        ($test:ident, $c:ident, $valid:expr, $invalid:expr) => {
            #[test]
            fn $test() {
                let valid: fn(usize) -> _ = $valid;
                let invalid = $invalid;
                let max = if cfg!(miri) { 35 } else { 67 };
                for start in [0, 1, 15, 16, 17] {
                    let base =
                        $c::from_slice(&(0..start).map(valid).collect::<Vec<_>>()).expect("valid");
                    for len in 1..=max {
                        for bad in (0..len).step_by(if cfg!(miri) { 5 } else { 1 }) {
                            for (d, defect) in invalid.iter().enumerate() {
                                let mut items: Vec<_> = (0..len).map(valid).collect();
                                items[bad] = *defect;
                                // A later invalid item of another kind is not the one named.
                                if bad + 3 < len {
                                    items[bad + 3] = invalid[(d + 1) % invalid.len()];
                                }
                                let want = defect.check(bad).expect_err("invalid");
                                // Without room (validated first) and with room (validated as
                                // it is stored, then truncated).
                                for room in [0, len] {
                                    let mut c = base.clone();
                                    c.reserve(room);
                                    let cap = c.capacity();
                                    assert_eq!(c.extend_from_slice(&items), Err(want));
                                    assert_eq!(c, base, "start {start}, len {len}, bad {bad}");
                                    assert_eq!(c.capacity(), cap, "a refused extend grew it");
                                    check_layout(&c.cols, "after a refused extend");
                                }
                                if start == 0 {
                                    assert_eq!($c::from_slice(&items), Err(want));
                                }
                            }
                        }
                    }
                }
            }
        };
    }

    rejects_everywhere!(
        aabbs_reject_at_every_position,
        Aabbs,
        |i| Aabb::new([i as f32, -0.0, -1.0], [i as f32 + 1.0, 0.0, -1.0]),
        [
            Aabb::new([0.0, 2.0, 0.0], [1.0, 1.0, 1.0]),
            Aabb::new([0.0, f32::NAN, 0.0], [1.0, 1.0, 1.0]),
            Aabb::new([0.0; 3], [1.0, 1.0, f32::INFINITY]),
        ]
    );
    rejects_everywhere!(
        spheres_reject_at_every_position,
        Spheres,
        |i| Sphere::new([i as f32, 0.0, -0.0], i as f32 * 0.5),
        [
            Sphere::new([0.0; 3], -1.0),
            Sphere::new([0.0, f32::NAN, 0.0], 1.0),
            Sphere::new([0.0; 3], f32::MAX),
        ]
    );
    rejects_everywhere!(
        up_tets_reject_at_every_position,
        UpTets,
        |i| UpTet::new([-(i as f32) - 1.0; 4]),
        [UpTet::new([1.0; 4]), UpTet::new([f32::NEG_INFINITY; 4])]
    );

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
