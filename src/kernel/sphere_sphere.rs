//! Sphere against spheres, exact: `(dx * dx + dy * dy) + dz * dz <= (r + r_q) * (r + r_q)` with
//! `d = c - c_q`. A point query is the sphere of radius 0 (`r + 0 == r` exactly).

use super::{Cols, Kernel, splat3};
use crate::lanes::Lanes;

/// A `Spheres` container against one sphere.
pub struct SpheresVsSphere<'a> {
    pub(crate) cols: Cols<'a, 4>,
    pub(crate) center: [f32; 3],
    pub(crate) radius: f32,
}

/// The generic body: whether spheres `(c, r)` touch or overlap the query sphere `(q, r_q)`.
#[inline(always)]
pub(crate) fn spheres_overlap<V: Lanes>(c: [V; 3], r: V, q: [V; 3], r_q: V) -> V::Mask {
    let d = [c[0].sub(q[0]), c[1].sub(q[1]), c[2].sub(q[2])];
    let d2 = d[0].mul(d[0]).add(d[1].mul(d[1])).add(d[2].mul(d[2]));
    let s = r.add(r_q);
    d2.le(s.mul(s))
}

impl Kernel for SpheresVsSphere<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.cols.len()
    }

    #[inline(always)]
    fn block<V: Lanes>(&self, c: usize, j: usize) -> u32 {
        let center = self.cols.load3::<V>(0, c, j);
        let r = self.cols.load::<V>(3, c, j);
        let m = spheres_overlap(center, r, splat3(self.center), V::splat(self.radius));
        V::bits(m)
    }
}
