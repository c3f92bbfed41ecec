//! Panics (issue 7): no public function panics on a value its types admit, except the documented
//! ones (`docs/reliability.md`, "Panics", lists them). Every public function is called here with
//! wild values: NaN of several kinds, infinities, signed zeros, subnormals, `f32::MAX`, inverted
//! and empty shapes, `usize::MAX` / `u32::MAX` indices, counts and sizes. The tests run in the
//! debug profile, so an arithmetic overflow is a panic too.

use crate::common;

use bvlanes::broadphase::{self, CollisionFilter, Filtered, Sweep, SweepAndPrune, SweepAxis};
use bvlanes::cull::{CellOrder, ClusterGrid, LightLists, LightMasks};
use bvlanes::{
    Aabb, Aabbs, Backend, Blocked, BoxStrategy, BvError, Conservative, DownTet, DownTets, Frustum,
    Obb, Obbs, Octahedra, Octahedron, Pinned, Sphere, Spheres, Staged, UpTet, UpTets, pairwise,
    seeds,
};
use common::*;
use std::panic::{AssertUnwindSafe, catch_unwind};

const ROUNDS: usize = if cfg!(miri) { 4 } else { 400 };

/// A wild value of any kind (valid or not).
fn wild(rng: &mut TestRng) -> f32 {
    match rng.below(4) {
        0 => rng.pick(&NON_FINITE),
        1 => rng.pick(&SPECIAL),
        2 => adversarial_value(rng),
        _ => rng.sym(10.0),
    }
}

fn wild3(rng: &mut TestRng) -> [f32; 3] {
    [wild(rng), wild(rng), wild(rng)]
}

fn wild4(rng: &mut TestRng) -> [f32; 4] {
    [wild(rng), wild(rng), wild(rng), wild(rng)]
}

fn wild_usize(rng: &mut TestRng) -> usize {
    rng.pick(&[
        0,
        1,
        2,
        3,
        15,
        16,
        63,
        64,
        65,
        u32::MAX as usize - 1,
        u32::MAX as usize,
        u32::MAX as usize + 1,
        usize::MAX / 2,
        usize::MAX - 1,
        usize::MAX,
    ])
}

fn wild_u32(rng: &mut TestRng) -> u32 {
    rng.pick(&[
        0,
        1,
        2,
        3,
        7,
        16,
        65_535,
        65_536,
        u32::MAX / 2,
        u32::MAX - 1,
        u32::MAX,
    ])
}

fn wild_sphere(rng: &mut TestRng) -> Sphere {
    Sphere::new(wild3(rng), wild(rng))
}

fn wild_aabb(rng: &mut TestRng) -> Aabb {
    Aabb::new(wild3(rng), wild3(rng))
}

fn wild_obb(rng: &mut TestRng) -> Obb {
    if rng.chance(0.5) {
        Obb::wild(rng)
    } else {
        Obb::new(wild3(rng), wild3(rng), [wild3(rng), wild3(rng), wild3(rng)])
    }
}

fn wild_octahedron(rng: &mut TestRng) -> Octahedron {
    Octahedron::new(UpTet::new(wild4(rng)), DownTet::new(wild4(rng)))
}

fn wild_frustum(rng: &mut TestRng) -> Frustum {
    match rng.below(3) {
        0 => Frustum::wild(rng),
        1 => {
            let m: [[f32; 4]; 4] = core::array::from_fn(|_| wild4(rng));
            Frustum::from_view_projection(m).unwrap_or_else(|_| Frustum::wild(rng))
        }
        _ => Frustum::from_planes(core::array::from_fn(|_| wild4(rng)))
            .unwrap_or_else(|_| Frustum::wild(rng)),
    }
}

/// Some valid primitives, maybe none.
fn valid<T: Shape>(rng: &mut TestRng, wild: impl Fn(&mut TestRng) -> T) -> Vec<T> {
    let n = rng.pick(&[0, 1, 5, 17, 40]);
    (0..4 * n + 8)
        .map(|_| {
            if rng.chance(0.5) {
                T::random(rng, [0.0; 3], 3.0)
            } else {
                wild(rng)
            }
        })
        .filter(|t| t.valid())
        .take(n)
        .collect()
}

#[test]
fn primitive_constructors_and_predicates_never_panic() {
    let mut rng = TestRng::new(1);
    for _ in 0..ROUNDS * 10 {
        let s = wild_sphere(&mut rng);
        let b = wild_aabb(&mut rng);
        let o = wild_obb(&mut rng);
        let oct = wild_octahedron(&mut rng);
        let (up, down) = (oct.up, oct.down);
        let _ = (s.is_valid(), b.is_valid(), o.is_valid(), oct.is_valid());
        let _ = (up.is_valid(), down.is_valid());
        let _ = (Aabb::from_sphere(&s), Obb::from_aabb(&b), o.aabb());
        let _ = (
            up.circumscribed(),
            up.inscribed(),
            down.circumscribed(),
            down.inscribed(),
        );
        let _ = (Octahedron::from_aabb(&b), Octahedron::from_sphere(&s));
        let points: Vec<[f32; 3]> = (0..rng.below(5)).map(|_| wild3(&mut rng)).collect();
        let _ = Aabb::from_points(points.iter().copied());
        let _ = Octahedron::from_points(points.iter().copied());
        let m: [[f32; 4]; 4] = core::array::from_fn(|_| wild4(&mut rng));
        let _ = Frustum::from_view_projection(m).map(|f| f.is_valid());
        let _ = Frustum::from_view_projection_gl(m).map(|f| f.is_valid());
        let _ = Frustum::from_planes(core::array::from_fn(|_| wild4(&mut rng)));
        let _ = wild_frustum(&mut rng).is_valid();
    }
}

#[test]
fn seeds_never_panic() {
    let mut rng = TestRng::new(2);
    for _ in 0..ROUNDS * 10 {
        let (c, r, b) = (wild3(&mut rng), wild(&mut rng), wild_aabb(&mut rng));
        let o = wild_obb(&mut rng);
        let _ = seeds::sphere_aabb_arvo(c, r, b.min, b.max);
        let _ = seeds::sphere_aabb_qri(c, r, b.min, b.max);
        let _ = seeds::sphere_aabb_qrf(c, r, b.min, b.max);
        let _ = seeds::sphere_aabb_branch_free(c, r, b.min, b.max);
        let _ = seeds::sphere_aabb_center_extent(c, r, b.min, b.max);
        let _ = seeds::sphere_aabb_conservative(c, r, b.min, b.max);
        let _ = seeds::sphere_obb_garvo(c, r, &o);
        let _ = seeds::sphere_obb_qri(c, r, &o);
        let _ = seeds::sphere_obb_qrf(c, r, &o);
        let _ = seeds::sphere_obb_branch_free(c, r, &o);
        let _ = seeds::sphere_obb_conservative(c, r, &o);
        let _ = seeds::aabb_aabb(b.min, b.max, c, c);
        let k = rng.below(9);
        let v: Vec<f32> = (0..4 * k).map(|_| wild(&mut rng)).collect();
        let _ = seeds::kdop_kdop(&v[..k], &v[k..2 * k], &v[2 * k..3 * k], &v[3 * k..]);
        let _ = seeds::obb_obb(&o, &wild_obb(&mut rng));
    }
}

/// Every container method with wild arguments, on one container.
macro_rules! container_calls {
    ($rng:expr, $c:expr, $make:expr, $prim:ty) => {{
        let (rng, c): (&mut TestRng, &mut _) = ($rng, $c);
        let make: fn(&mut TestRng) -> $prim = $make;
        let len = c.len();
        let _ = (c.is_empty(), c.capacity(), format!("{c:?}").len());
        let i = if len > 0 && rng.chance(0.5) {
            rng.below(len)
        } else {
            wild_usize(rng)
        };
        let _ = c.get(i);
        let _ = c.set(i, make(rng));
        let _ = c.push(make(rng));
        let batch: Vec<$prim> = (0..rng.below(20)).map(|_| make(rng)).collect();
        let _ = c.extend_from_slice(&batch);
        // Small requests, and requests past the limit (refused before allocating anything).
        let over = [0, 1, 100, u32::MAX as usize + 1, usize::MAX / 2, usize::MAX];
        let _ = c.try_reserve(rng.pick(&over));
        let _ = c.iter().rev().count();
        if c.len() > 0 {
            let k = rng.below(c.len());
            let _ = c.swap_remove(k);
        }
        if rng.chance(0.05) {
            c.clear();
        }
        for b in Backend::ALL {
            let _ = c.with_backend(b).map(|p| p.backend());
        }
    }};
}

/// Every query method with a query, on the default and every available backend.
fn query_calls<C: Bv, Q: bvlanes::Query<C> + core::fmt::Debug>(c: &C, q: &Q) {
    for b in receivers() {
        let _ = c.outputs(b, q);
    }
}

#[test]
fn containers_never_panic() {
    let mut rng = TestRng::new(3);
    for _ in 0..ROUNDS {
        let mut spheres = Spheres::from_slice(&valid(&mut rng, wild_sphere)).expect("valid");
        let mut boxes = Aabbs::from_slice(&valid(&mut rng, wild_aabb)).expect("valid");
        let mut obbs = Obbs::from_slice(&valid(&mut rng, wild_obb)).expect("valid");
        let mut octs = Octahedra::from_slice(&valid(&mut rng, wild_octahedron)).expect("valid");
        let mut ups = UpTets::from_slice(&valid(&mut rng, |r| UpTet::new(wild4(r)))).expect("ok");
        let mut downs =
            DownTets::from_slice(&valid(&mut rng, |r| DownTet::new(wild4(r)))).expect("ok");
        for _ in 0..4 {
            container_calls!(&mut rng, &mut spheres, wild_sphere, Sphere);
            container_calls!(&mut rng, &mut boxes, wild_aabb, Aabb);
            container_calls!(&mut rng, &mut obbs, wild_obb, Obb);
            container_calls!(&mut rng, &mut octs, wild_octahedron, Octahedron);
            container_calls!(&mut rng, &mut ups, |r| UpTet::new(wild4(r)), UpTet);
            container_calls!(&mut rng, &mut downs, |r| DownTet::new(wild4(r)), DownTet);
        }
        let (p, s, b) = (wild3(&mut rng), wild_sphere(&mut rng), wild_aabb(&mut rng));
        let (o, oct, f) = (
            wild_obb(&mut rng),
            wild_octahedron(&mut rng),
            wild_frustum(&mut rng),
        );
        query_calls(&spheres, &p);
        query_calls(&spheres, &s);
        query_calls(&spheres, &b);
        query_calls(&spheres, &f);
        query_calls(&spheres, &Conservative(s));
        query_calls(&boxes, &p);
        query_calls(&boxes, &s);
        query_calls(&boxes, &b);
        query_calls(&boxes, &o);
        query_calls(&boxes, &f);
        query_calls(&boxes, &Conservative(s));
        query_calls(&boxes, &Conservative(o));
        let strategy = BoxStrategy::ALL[rng.below(4)];
        query_calls(&boxes, &Staged(b, strategy));
        query_calls(&obbs, &p);
        query_calls(&obbs, &s);
        query_calls(&obbs, &o);
        query_calls(&obbs, &Conservative(s));
        query_calls(&octs, &p);
        query_calls(&octs, &oct);
        query_calls(&octs, &oct.up);
        query_calls(&octs, &oct.down);
        query_calls(&octs, &Conservative(oct));
        query_calls(&ups, &p);
        query_calls(&ups, &oct.down);
        query_calls(&downs, &p);
        query_calls(&downs, &oct.up);
        let stage = wild_usize(&mut rng);
        let _ = boxes.count_stage_passes(&b, strategy, stage);
        let _ = octs.count_stage_passes(&oct, stage);
        let _ = boxes.diagonal(wild_usize(&mut rng));
        for &backend in Backend::available() {
            let _ = Pinned::new(&boxes, backend).map(|p| p.count_stage_passes(&b, strategy, stage));
            let _ = Pinned::new(&octs, backend).map(|p| p.count_stage_passes(&oct, stage));
        }
    }
}

#[test]
fn pairwise_never_panics() {
    let mut rng = TestRng::new(4);
    for _ in 0..ROUNDS {
        let spheres = Spheres::from_slice(&valid(&mut rng, wild_sphere)).expect("valid");
        let boxes = Aabbs::from_slice(&valid(&mut rng, wild_aabb)).expect("valid");
        let obbs = Obbs::from_slice(&valid(&mut rng, wild_obb)).expect("valid");
        let octs = Octahedra::from_slice(&valid(&mut rng, wild_octahedron)).expect("valid");
        let mut out = vec![7];
        let mut mask = vec![0u64; 2];
        for &b in Backend::available() {
            let on = pairwise::PairsOn::new(b).expect("available");
            let _ = on.count_overlaps(&spheres, &boxes);
            let _ = on.count_overlaps(&spheres, &obbs);
            let _ = on.extend_overlaps(&boxes, &boxes, &mut out);
            let _ = on.extend_overlaps(&octs, &octs, &mut out);
            if boxes.len() <= 128 {
                let _ = on.overlap_mask(&boxes, &boxes, &mut mask);
            }
        }
        let _ = pairwise::count_overlaps(&octs, &octs);
        let _ = pairwise::extend_overlaps(&spheres, &boxes, &mut out);
        let _ = pairwise::overlap_mask(&spheres, &boxes, &mut vec![0; boxes.len().div_ceil(64)]);
    }
}

#[test]
fn broadphase_never_panics() {
    let mut rng = TestRng::new(5);
    for _ in 0..ROUNDS / 4 {
        let spheres = Spheres::from_slice(&valid(&mut rng, wild_sphere)).expect("valid");
        let boxes = Aabbs::from_slice(&valid(&mut rng, wild_aabb)).expect("valid");
        let octs = Octahedra::from_slice(&valid(&mut rng, wild_octahedron)).expect("valid");
        let axis = [SweepAxis::X, SweepAxis::Y, SweepAxis::Z, SweepAxis::Auto][rng.below(4)];
        for &b in Backend::available() {
            let sweep = Sweep::new()
                .with_backend(b)
                .expect("available")
                .with_threads(wild_usize(&mut rng))
                .with_axis(axis);
            let _ = (sweep.threads(), sweep.backend(), sweep.axis_for(&boxes));
            let _ = sweep.complete_pairs(&boxes);
            let _ = sweep.complete_pairs(&spheres);
            let _ = sweep.complete_pairs(&octs);
            let _ = sweep.bipartite_pairs(&boxes, &boxes);
            sweep.for_each_complete_pair(&spheres, |_, _| {});
            sweep.for_each_bipartite_pair(&octs, &octs, |_, _| {});
            let mut sap = SweepAndPrune::new(sweep);
            let mut filters: Vec<CollisionFilter> = (0..boxes.len())
                .map(|_| CollisionFilter::new(wild_u32(&mut rng), wild_u32(&mut rng)))
                .collect();
            for frame in 0..4 {
                // Frames 1 and 2 filtered, a filter changed between them.
                if frame == 2 && !filters.is_empty() {
                    let i = rng.below(filters.len());
                    filters[i] = CollisionFilter::new(wild_u32(&mut rng), wild_u32(&mut rng));
                }
                if frame % 3 == 0 {
                    let _ = sap.update(&boxes);
                } else {
                    let _ = sap.update(&Filtered::new(&boxes, &filters).expect("as many"));
                }
                let _ = (sap.pairs().len(), sap.added().len(), sap.removed().len());
            }
            // Spheres and octahedra: a full update, then an incremental one (nothing moved).
            let (mut sap_spheres, mut sap_octs) =
                (SweepAndPrune::new(sweep), SweepAndPrune::new(sweep));
            let oct_filters =
                vec![CollisionFilter::new(wild_u32(&mut rng), wild_u32(&mut rng)); octs.len()];
            for _ in 0..2 {
                let _ = sap_spheres.update(&spheres);
                let _ = sap_octs.update(&Filtered::new(&octs, &oct_filters).expect("as many"));
            }
        }
        let _ = broadphase::complete_pairs(&boxes);
        let _ = broadphase::bipartite_pairs(&spheres, &spheres);
    }
}

#[test]
fn light_assignment_never_panics() {
    let mut rng = TestRng::new(6);
    for _ in 0..ROUNDS / 4 {
        let lights = Spheres::from_slice(&valid(&mut rng, wild_sphere)).expect("valid");
        let small = [1, 2, 3, 5, 16];
        let mut dims = [rng.pick(&small), rng.pick(&small), rng.pick(&small)];
        if rng.chance(0.3) {
            // Wild dimensions, but only those that are refused (a zero, or more than u32::MAX
            // cells): an accepted grid of billions of cells takes gigabytes to build.
            let wild_dims = [wild_u32(&mut rng), wild_u32(&mut rng), wild_u32(&mut rng)];
            let cells = wild_dims.iter().map(|&d| u128::from(d)).product::<u128>();
            if cells == 0 || cells > u128::from(u32::MAX) {
                dims = wild_dims;
            }
        }
        let uniform = ClusterGrid::uniform(wild_aabb(&mut rng), dims);
        let froxels = ClusterGrid::froxels(
            wild_u32(&mut rng),
            wild_u32(&mut rng),
            wild(&mut rng),
            wild(&mut rng),
            wild(&mut rng),
            dims,
        );
        let cells = Aabbs::from_slice(&valid(&mut rng, wild_aabb)).expect("valid");
        let grids = [
            uniform.ok(),
            froxels.ok(),
            Some(ClusterGrid::from_cells(cells)),
        ];
        for grid in grids.into_iter().flatten() {
            let order = [CellOrder::ZFastest, CellOrder::XFastest][rng.below(2)];
            let grid = grid.with_order(order).with_threads(wild_usize(&mut rng));
            let _ = (grid.len(), grid.is_empty(), grid.dims(), grid.threads());
            let _ = grid.cell_index([wild_u32(&mut rng), wild_u32(&mut rng), wild_u32(&mut rng)]);
            let _ = grid.cell(wild_usize(&mut rng));
            if grid.len() > 4096 {
                // Real work on a grid this big takes long, and memory: its cells are a
                // million boxes or more.
                continue;
            }
            let _ = grid.cells();
            for &b in Backend::available() {
                let g = grid.clone().with_backend(b).expect("available");
                let lists = g.assign(&lights);
                let _ = (lists.cells(), lists.cell(wild_usize(&mut rng)));
                let mut masks = LightMasks::new();
                g.assign_masks(&lights, &mut masks);
                let (c, l) = (wild_usize(&mut rng), wild_usize(&mut rng));
                let _ = (masks.cell(c), masks.contains(c, l), masks.words_per_cell());
                let _ = masks.words().len();
            }
        }
    }
}

/// Lists with the given (public) fields, whatever they hold.
fn csr(offsets: Vec<u32>, indices: Vec<u32>) -> LightLists {
    let mut lists = LightLists::new();
    lists.offsets = offsets;
    lists.indices = indices;
    lists
}

#[test]
fn outputs_with_arbitrary_fields_never_panic() {
    // `LightLists` has public fields: any offsets and indices are values of the type.
    let mut rng = TestRng::new(7);
    for _ in 0..ROUNDS {
        let offsets: Vec<u32> = (0..rng.below(6)).map(|_| wild_u32(&mut rng) % 9).collect();
        let indices: Vec<u32> = (0..rng.below(6)).map(|_| rng.u32()).collect();
        let lists = csr(offsets, indices);
        let _ = lists.cells();
        for c in [0, 1, 2, 5, usize::MAX - 1, usize::MAX] {
            let _ = lists.cell(c);
        }
    }
    let masks = LightMasks::new();
    for c in [0, 1, usize::MAX / 2, usize::MAX] {
        let _ = (masks.cell(c), masks.contains(c, usize::MAX));
    }
}

#[test]
fn parsing_and_display_never_panic() {
    let mut rng = TestRng::new(8);
    for s in [
        "", "avx2", "AVX2", " sse ", "scalar\0", "ä", "avx512", "minmax", "7-sided",
    ] {
        let _ = s.parse::<Backend>().map_err(|e| e.to_string());
        let _ = s.parse::<BoxStrategy>().map_err(|e| e.to_string());
    }
    for _ in 0..ROUNDS {
        let bytes: Vec<u8> = (0..rng.below(12)).map(|_| rng.u32() as u8).collect();
        let s = String::from_utf8_lossy(&bytes);
        let _ = s.parse::<Backend>();
        let _ = s.parse::<BoxStrategy>();
    }
    let _ = (
        Backend::detect(),
        Backend::best(),
        Backend::from_env(),
        Backend::available(),
    );
    for b in Backend::ALL {
        let _ = (
            b.is_available(),
            b.check(),
            b.lanes(),
            b.name(),
            b.to_string(),
        );
    }
    let errors = [
        BvError::NonFinite { index: usize::MAX },
        BvError::IndexOutOfBounds {
            index: usize::MAX,
            len: usize::MAX,
        },
        BvError::CapacityExceeded,
        BvError::GridDims {
            dims: [u32::MAX; 3],
        },
    ];
    for e in errors {
        let _ = e.to_string();
    }
}

/// The documented panics do panic (and nothing else does): the list in `docs/reliability.md`.
#[test]
fn documented_panics_panic() {
    let boxes = Aabbs::from_slice(&[Aabb::new([0.0; 3], [1.0; 3]); 65]).expect("valid");
    let q = [0.5f32; 3];
    let panics = |f: &mut dyn FnMut()| catch_unwind(AssertUnwindSafe(f)).is_err();
    // hit_mask / overlap_mask with a mask shorter than len.div_ceil(64) words.
    assert!(panics(&mut || boxes.hit_mask(&q, &mut [0; 1])));
    for &b in Backend::available() {
        let p = boxes.with_backend(b).expect("available");
        assert!(panics(&mut || p.hit_mask(&q, &mut [0; 1])));
        let on = pairwise::PairsOn::new(b).expect("available");
        assert!(panics(&mut || {
            let _ = on.overlap_mask(&boxes, &boxes, &mut [0; 1]);
        }));
    }
    assert!(panics(&mut || {
        let _ = pairwise::overlap_mask(&boxes, &boxes, &mut [0; 1]);
    }));
    // swap_remove past the end.
    assert!(panics(&mut || {
        let _ = boxes.clone().swap_remove(65);
    }));
    // seeds::kdop_kdop with slices of different lengths.
    assert!(panics(&mut || {
        let _ = seeds::kdop_kdop(&[0.0], &[1.0], &[0.0, 1.0], &[1.0]);
    }));
    // with_capacity and reserve past the container limit (u32::MAX primitives).
    assert!(panics(&mut || {
        let _ = Spheres::with_capacity(u32::MAX as usize + 1);
    }));
    assert!(panics(&mut || boxes.clone().reserve(usize::MAX)));
    assert!(panics(&mut || boxes
        .clone()
        .reserve(u32::MAX as usize - 64)));
    // ... and not below it (no allocation happens for a zero-sized request).
    assert!(!panics(&mut || boxes.clone().reserve(0)));
}

// =================================================================================================
// Regressions: the findings of the wild-value tests above, each pinned down
// =================================================================================================

/// Grid dimensions whose product overflows u64 were multiplied in u64: a debug panic, and in
/// release a wrapped product that could pass the `u32::MAX` cell limit (`2^22 * 2^21 * 2^21` is
/// `2^64`, which wrapped to 0). Now they are refused with `GridDims`.
#[test]
fn regression_grid_dims_whose_product_wraps_u64_are_refused() {
    let bounds = Aabb::new([0.0; 3], [1.0; 3]);
    for dims in [
        [1 << 22, 1 << 21, 1 << 21],
        [u32::MAX, u32::MAX, u32::MAX],
        [u32::MAX, u32::MAX, 2],
        [1 << 31, 1 << 31, 1 << 2],
    ] {
        let refused = Some(BvError::GridDims { dims });
        assert_eq!(ClusterGrid::uniform(bounds, dims).err(), refused);
        let froxels = ClusterGrid::froxels(1920, 1080, 1.0, 0.1, 100.0, dims);
        assert_eq!(froxels.err(), refused);
    }
}

/// `with_threads(usize::MAX)` overflowed `threads * 2` when a sweep or an assignment was split
/// into tasks (a debug panic; in release a wrapped task count).
#[test]
fn regression_huge_thread_counts_do_not_overflow() {
    let boxes: Vec<Aabb> = (0..600)
        .map(|i| Aabb::new([i as f32, 0.0, 0.0], [i as f32 + 1.5, 1.0, 1.0]))
        .collect();
    let boxes = Aabbs::from_slice(&boxes).expect("valid");
    let want = Sweep::new().with_threads(1).complete_pairs(&boxes);
    for threads in [usize::MAX, usize::MAX / 2 + 1, u32::MAX as usize] {
        let sweep = Sweep::new().with_threads(threads);
        assert_eq!(sweep.complete_pairs(&boxes), want, "{threads} threads");
        let lights: Vec<Sphere> = (0..600)
            .map(|i| Sphere::new([(i % 10) as f32, (i / 10 % 10) as f32, 0.5], 0.7))
            .collect();
        let lights = Spheres::from_slice(&lights).expect("valid");
        let grid = ClusterGrid::uniform(Aabb::new([0.0; 3], [10.0, 10.0, 1.0]), [10, 10, 1])
            .expect("valid grid");
        let one = grid.clone().with_threads(1).assign(&lights);
        assert_eq!(
            grid.with_threads(threads).assign(&lights),
            one,
            "{threads} threads"
        );
    }
}

/// The same in the batches and the blocked containers: `4 * threads` overflowed when a batch of
/// queries (flat or blocked) or a blocked build was split into tasks (found when
/// `SweepAndPrune`, given a sweep of `usize::MAX` threads, came to query a `Blocked<Aabbs>`).
#[test]
fn regression_huge_thread_counts_do_not_overflow_in_batches_and_blocks() {
    // Enough boxes for a split build (2,048 chunks) and for a split batch (2^22 tests).
    let boxes: Vec<Aabb> = (0..40_000)
        .map(|i| {
            let c = [(i % 40) as f32, (i / 40 % 40) as f32, (i / 1600) as f32];
            Aabb::new(c, c.map(|v| v + 1.5))
        })
        .collect();
    let flat = Aabbs::from_slice(&boxes).expect("valid");
    let queries: Vec<Aabb> = (0..300)
        .map(|i| {
            let c = [(i % 37) as f32, (i % 23) as f32, (i % 19) as f32];
            Aabb::new(c, c.map(|v| v + 2.0))
        })
        .collect();
    let one = Blocked::new_with_threads(&flat, 1);
    let want = one
        .with_backend(Backend::Scalar)
        .expect("scalar")
        .with_threads(1)
        .hits_many(&queries);
    for threads in [usize::MAX, usize::MAX / 2 + 1, u32::MAX as usize] {
        let blocked = Blocked::new_with_threads(&flat, threads);
        assert_eq!(blocked.order(), one.order(), "{threads} threads");
        let pinned = blocked
            .with_backend(Backend::Scalar)
            .expect("scalar")
            .with_threads(threads);
        assert_eq!(pinned.hits_many(&queries), want, "{threads} threads");
        let flat_batch = flat
            .with_backend(Backend::Scalar)
            .expect("scalar")
            .with_threads(threads);
        let lists = flat_batch.hits_many(&queries[..120]);
        for q in 0..120 {
            assert_eq!(
                lists.query(q),
                want.query(q),
                "{threads} threads, query {q}"
            );
        }
    }
}

/// `LightLists::cell` indexed `indices` with its (public) offsets unchecked, and computed
/// `c + 1` unchecked; `LightMasks::cell` computed `c * words` unchecked. Malformed lists and
/// huge cell numbers now give an empty slice, as the docs say for cells past the end.
#[test]
fn regression_light_list_accessors_take_any_cell_and_any_fields() {
    let lists = csr(vec![0, 5, 2], vec![1, 2]);
    assert_eq!(lists.cells(), 2);
    assert_eq!(lists.cell(0), &[] as &[u32], "offsets past the indices");
    assert_eq!(lists.cell(1), &[] as &[u32], "decreasing offsets");
    assert_eq!(lists.cell(usize::MAX), &[] as &[u32]);
    let good = csr(vec![0, 1, 2], vec![7, 9]);
    assert_eq!(
        (good.cell(0), good.cell(1), good.cell(2)),
        (&[7][..], &[9][..], &[][..])
    );
    let grid = ClusterGrid::uniform(Aabb::new([0.0; 3], [1.0; 3]), [2, 1, 1]).expect("valid");
    let lights: Vec<Sphere> = (0..40).map(|i| Sphere::new([0.25; 3], i as f32)).collect();
    let mut masks = LightMasks::new();
    grid.assign_masks(&Spheres::from_slice(&lights).expect("valid"), &mut masks);
    assert_eq!(masks.words_per_cell(), 2);
    assert_eq!(masks.cell(1).len(), 2);
    for c in [2, usize::MAX / 2, usize::MAX / 2 + 1, usize::MAX] {
        assert_eq!(masks.cell(c), &[] as &[u32], "cell {c}");
        assert!(!masks.contains(c, 0));
    }
}

// =================================================================================================
// The list in the docs
// =================================================================================================

/// Every public function with a `# Panics` section in `src/` is in the list of
/// `docs/reliability.md`, section "Panics" (and the list names nothing else).
#[test]
#[cfg_attr(miri, ignore = "reads files: Miri isolates the file system")]
fn docs_list_every_documented_panic() {
    fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("readable src") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut documented = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("UTF-8 source");
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if line.trim() != "/// # Panics" {
                continue;
            }
            let item = lines[i..]
                .iter()
                .map(|l| l.trim())
                .find(|l| l.contains("fn ") && !l.starts_with("//"))
                .expect("a function after its docs");
            if let Some(rest) = item.strip_prefix("pub fn ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                documented.push(name);
            }
        }
    }
    documented.sort();
    documented.dedup();
    let docs = std::fs::read_to_string(root.join("docs/reliability.md")).expect("the docs");
    let section = docs
        .split("\n## ")
        .find(|s| s.starts_with("Panics"))
        .expect("a Panics section");
    // The list: lines `- PANIC \`path::name\` ...`.
    let mut listed: Vec<String> = section
        .lines()
        .filter_map(|l| l.strip_prefix("- PANIC `"))
        .map(|l| {
            let path = &l[..l.find('`').expect("closing backquote")];
            path.rsplit("::").next().expect("a name").to_string()
        })
        .collect();
    listed.sort();
    listed.dedup();
    assert_eq!(
        listed, documented,
        "docs/reliability.md's panic list and the # Panics sections of src/ differ"
    );
}
