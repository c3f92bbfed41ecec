//! Shared by the `kernels` (criterion) benchmark and the `bvlanes-bench` binary (its `limit`
//! table): deterministic data sets, the four measured (query, container) pairs, and the two
//! baselines (Arvo's branchy scalar sphere-box test over an array of structs, and a plain SIMD sum
//! over the same bytes).
//!
//! The `lights` benchmark and the binary's `lights` table share the three submodules: the froxel
//! scenes of issue 5 ([`light_scenes`]), the Bevy-style light clustering port
//! ([`bevy_clusters`]), and the pinning of rayon's workers to cores for the timings ([`pin`]).
//! The `broadphase` benchmark and the binary's `broadphase` table share the box scenes of issue 6
//! ([`box_scenes`]) and its baselines, the plain scalar sort-and-sweep and the SIMD brute force
//! ([`sort_and_sweep`]).
//!
//! # Data
//!
//! For each size `n` there are [`SETS`] independent data sets (fixed seeds). Set `s` holds `n`
//! boxes scattered uniformly in the cube `[-100, 100]^3` (centre uniform, half-extents uniform in
//! `[0.25, 2.5]` per axis, each box fully inside the cube); the tetrahedra and octahedra are the
//! outward-rounded bounding volumes of those boxes. Each set has one query per density target, centred
//! uniformly in `[-20, 20]^3`, whose size (sphere radius, box / octahedron half-side, down
//! tetrahedron offset) is found by bisection against that very set so that the hit fraction is
//! about 1 % or about 50 %. The measured fractions are kept in [`Workload::hits`].
//!
//! # The rotation
//!
//! A branch predictor memorises a repeated pass: Arvo's branchy loop over the same 4,096 boxes run
//! again and again looks several times faster than over fresh data. So every measurement — the
//! baselines and the kernels alike — cycles through the [`SETS`] data sets in turn (set `k`, with
//! its own query, then set `k + 1`, ...), never the same pass twice in a row. At 1,048,576
//! primitives the eight sets also keep the working set (8 x 24 MiB for boxes) well above the
//! L3 cache, so those sizes measure DRAM.

#![allow(dead_code)] // each bench target uses a different part of this module

pub mod bevy_clusters;
pub mod box_pruning;
pub mod box_scenes;
pub mod light_scenes;
pub mod pin;
pub mod sort_and_sweep;

use bvlanes::{
    Aabb, Aabbs, Backend, Container, DownTet, Frustum, Obb, Obbs, Octahedra, Octahedron, Pinned,
    Query, Sphere, Spheres, TET_AXES, UpTet, UpTets,
};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use std::hint::black_box;

/// Number of data sets every measurement cycles through.
pub const SETS: usize = 8;

/// The container sizes measured: L2-resident (4,096) and DRAM (1,048,576, times [`SETS`]).
pub const SIZES: [usize; 2] = [4_096, 1 << 20];

/// Target hit densities: label and fraction.
pub const DENSITIES: [(&str, f64); 2] = [("1%", 0.01), ("50%", 0.5)];

/// Half the side of the cube the primitives are scattered in.
pub const HALF_SIDE: f32 = 100.0;

/// Base seed of every data set.
const SEED: u64 = 0x6276_6c61_6e65_7321; // "bvlanes!"

fn rng_for(stream: u64, n: usize, set: usize) -> Xoshiro256PlusPlus {
    let mix = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (set as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ stream.wrapping_mul(0x1656_67B1_9E37_79F9);
    Xoshiro256PlusPlus::seed_from_u64(SEED ^ mix)
}

/// Uniform in `[0, 1)` with 24 random bits.
fn unit(rng: &mut Xoshiro256PlusPlus) -> f32 {
    (rng.next_u32() >> 8) as f32 * (1.0 / 16_777_216.0)
}

fn uniform(rng: &mut Xoshiro256PlusPlus, lo: f32, hi: f32) -> f32 {
    lo + (hi - lo) * unit(rng)
}

/// The `n` boxes of data set `set` (deterministic).
pub fn gen_boxes(n: usize, set: usize) -> Vec<Aabb> {
    let mut rng = rng_for(1, n, set);
    (0..n)
        .map(|_| {
            let mut min = [0.0; 3];
            let mut max = [0.0; 3];
            for axis in 0..3 {
                let h = uniform(&mut rng, 0.25, 2.5);
                let c = uniform(&mut rng, -HALF_SIDE + h, HALF_SIDE - h);
                min[axis] = c - h;
                max[axis] = c + h;
            }
            Aabb::new(min, max)
        })
        .collect()
}

/// Centre of the query of data set `set` for density number `density` (deterministic).
pub fn gen_center(n: usize, set: usize, density: usize) -> [f32; 3] {
    let mut rng = rng_for(2 + density as u64, n, set);
    [0; 3].map(|_| uniform(&mut rng, -20.0, 20.0))
}

/// The scalar baselines of a pair (only sphere vs boxes has one).
pub struct Scalar<P: Pair> {
    /// Number of hits.
    pub count: fn(&[P::Prim], &P::Query) -> usize,
    /// Appends the hit indices.
    pub extend: fn(&[P::Prim], &P::Query, &mut Vec<u32>),
}

/// One measured (query, container) pair.
pub trait Pair: Sized + 'static {
    /// Benchmark group name, e.g. `sphere_vs_aabbs`.
    const NAME: &'static str;
    /// Human-readable description for the table.
    const WHAT: &'static str;
    /// The primitive stored in the container (its bytes are what a full pass reads).
    type Prim: bytemuck::Pod + Send;
    /// The container.
    type Container: Container + Send;
    /// The query.
    type Query: Copy + Send + Query<Self::Container>;
    /// Arvo's branchy test, for sphere vs boxes.
    const ARVO: Option<Scalar<Self>> = None;

    /// The primitive derived from a generated box.
    fn prim(b: &Aabb) -> Self::Prim;
    /// The container of `prims` (in order).
    fn container(prims: &[Self::Prim]) -> Self::Container;
    /// The query of the given size around `center`; larger sizes hit supersets.
    fn query(center: [f32; 3], size: f32) -> Self::Query;
    /// `container.with_backend(b)`.
    fn pin(c: &Self::Container, b: Backend) -> Pinned<'_, Self::Container> {
        Pinned::new(c, b).expect("backend from Backend::available()")
    }
    /// `pinned.count_hits(q)`.
    fn count(p: Pinned<'_, Self::Container>, q: &Self::Query) -> usize {
        p.count_hits(q)
    }
    /// `pinned.extend_hits(q, out)`.
    fn extend(p: Pinned<'_, Self::Container>, q: &Self::Query, out: &mut Vec<u32>) {
        p.extend_hits(q, out)
    }

    /// Extra facts about the data for the table (e.g. how often a staged kernel's first stage
    /// passes).
    fn note(w: &Workload<Self>, d: usize) -> Option<String> {
        let _ = (w, d);
        None
    }
}

/// A sphere against `Aabbs` (exact).
pub struct SphereVsAabbs;
/// A box against `Aabbs`.
pub struct BoxVsAabbs;
/// A down tetrahedron against `UpTets`.
pub struct DownTetVsUpTets;
/// An octahedron against `Octahedra` (exact).
pub struct OctahedronVsOctahedra;
/// A sphere against `Obbs` (exact).
pub struct SphereVsObbs;
/// An oriented box against `Obbs` (conservative separating-axis test).
pub struct ObbVsObbs;
/// An oriented box against `Aabbs` (conservative separating-axis test).
pub struct ObbVsAabbs;
/// A view frustum against `Spheres` (conservative plane test).
pub struct FrustumVsSpheres;
/// A view frustum against `Aabbs` (conservative plane test).
pub struct FrustumVsAabbs;

/// The query frustum of the frustum pairs: a 90-degree view from `eye` along +z, near plane
/// 0.01 in front, far plane `size` in front (planes as given, not normalised).
fn frustum_query(eye: [f32; 3], size: f32) -> Frustum {
    let [x, y, z] = eye;
    Frustum::from_planes([
        [1.0, 0.0, 1.0, -(x + z)],
        [-1.0, 0.0, 1.0, x - z],
        [0.0, 1.0, 1.0, -(y + z)],
        [0.0, -1.0, 1.0, y - z],
        [0.0, 0.0, 1.0, -(z + 0.01)],
        [0.0, 0.0, -1.0, z + size.max(0.02)],
    ])
    .expect("finite planes with non-zero normals")
}

impl Pair for FrustumVsSpheres {
    const NAME: &'static str = "frustum_vs_spheres";
    const WHAT: &'static str =
        "Frustum query vs Spheres (conservative plane test), 16 B per sphere";
    type Prim = Sphere;
    type Container = Spheres;
    type Query = Frustum;
    /// The generated box's centre, and a radius of its mean half extent.
    fn prim(b: &Aabb) -> Sphere {
        let c = [0, 1, 2].map(|i| 0.5 * (b.min[i] + b.max[i]));
        let r = (0..3).map(|i| b.max[i] - b.min[i]).sum::<f32>() / 6.0;
        Sphere::new(c, r)
    }
    fn container(prims: &[Sphere]) -> Spheres {
        Spheres::from_slice(prims).expect("generated spheres are valid")
    }
    fn query(center: [f32; 3], size: f32) -> Frustum {
        frustum_query(center, size)
    }
}

impl Pair for FrustumVsAabbs {
    const NAME: &'static str = "frustum_vs_aabbs";
    const WHAT: &'static str = "Frustum query vs Aabbs (conservative plane test), 24 B per box";
    type Prim = Aabb;
    type Container = Aabbs;
    type Query = Frustum;
    fn prim(b: &Aabb) -> Aabb {
        *b
    }
    fn container(prims: &[Aabb]) -> Aabbs {
        Aabbs::from_slice(prims).expect("generated boxes are valid")
    }
    fn query(center: [f32; 3], size: f32) -> Frustum {
        frustum_query(center, size)
    }
}

/// The oriented query box of the Obb pairs: a cube of half side `size` around `center`, turned
/// by a fixed rotation.
fn obb_query(center: [f32; 3], size: f32) -> Obb {
    let mut state = 0x0bb0_0bb0_u64;
    Obb::new(center, [size; 3], rotation_from_bits(&mut state))
}

fn cube(center: [f32; 3], half: f32) -> Aabb {
    Aabb::new(center.map(|c| c - half), center.map(|c| c + half))
}

impl Pair for SphereVsAabbs {
    const NAME: &'static str = "sphere_vs_aabbs";
    const WHAT: &'static str = "Sphere query vs Aabbs (exact), 24 B per box";
    type Prim = Aabb;
    type Container = Aabbs;
    type Query = Sphere;
    const ARVO: Option<Scalar<Self>> = Some(Scalar {
        count: arvo_count,
        extend: arvo_extend,
    });
    fn prim(b: &Aabb) -> Aabb {
        *b
    }
    fn container(prims: &[Aabb]) -> Aabbs {
        Aabbs::from_slice(prims).expect("generated boxes are valid")
    }
    fn query(center: [f32; 3], size: f32) -> Sphere {
        Sphere::new(center, size)
    }
}

impl Pair for SphereVsObbs {
    const NAME: &'static str = "sphere_vs_obbs";
    const WHAT: &'static str = "Sphere query vs Obbs (exact), 60 B per oriented box";
    type Prim = Obb;
    type Container = Obbs;
    type Query = Sphere;
    const ARVO: Option<Scalar<Self>> = Some(Scalar {
        count: garvo_count,
        extend: garvo_extend,
    });
    /// The generated box's centre and half extents, rotated about its centre by a rotation
    /// derived from the box's own bits (deterministic, uniform enough for a benchmark).
    fn prim(b: &Aabb) -> Obb {
        let center = [0, 1, 2].map(|i| 0.5 * (b.min[i] + b.max[i]));
        let half = [0, 1, 2].map(|i| 0.5 * (b.max[i] - b.min[i]));
        let mut h = (u64::from(b.min[0].to_bits()) << 32) | u64::from(b.max[1].to_bits());
        Obb::new(center, half, rotation_from_bits(&mut h))
    }
    fn container(prims: &[Obb]) -> Obbs {
        Obbs::from_slice(prims).expect("generated oriented boxes are valid")
    }
    fn query(center: [f32; 3], size: f32) -> Sphere {
        Sphere::new(center, size)
    }
}

impl Pair for ObbVsObbs {
    const NAME: &'static str = "obb_vs_obbs";
    const WHAT: &'static str = "Obb query vs Obbs (conservative SAT), 60 B per oriented box";
    type Prim = Obb;
    type Container = Obbs;
    type Query = Obb;
    fn prim(b: &Aabb) -> Obb {
        SphereVsObbs::prim(b)
    }
    fn container(prims: &[Obb]) -> Obbs {
        SphereVsObbs::container(prims)
    }
    fn query(center: [f32; 3], size: f32) -> Obb {
        obb_query(center, size)
    }
}

impl Pair for ObbVsAabbs {
    const NAME: &'static str = "obb_vs_aabbs";
    const WHAT: &'static str = "Obb query vs Aabbs (conservative SAT), 24 B per box";
    type Prim = Aabb;
    type Container = Aabbs;
    type Query = Obb;
    fn prim(b: &Aabb) -> Aabb {
        *b
    }
    fn container(prims: &[Aabb]) -> Aabbs {
        Aabbs::from_slice(prims).expect("generated boxes are valid")
    }
    fn query(center: [f32; 3], size: f32) -> Obb {
        obb_query(center, size)
    }
}

/// A rotation (Shoemake's uniform unit quaternion) from three splitmix64 draws of `state`.
fn rotation_from_bits(state: &mut u64) -> [[f32; 3]; 3] {
    let mut next = || {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    rotation_from_uniforms([next(), next(), next()])
}

/// The rotation of Shoemake's unit quaternion for three numbers uniform in `[0, 1)` (uniform
/// over rotations when they are), as three orthonormal rows rounded to f32 (orthonormal to about
/// 1e-7).
pub fn rotation_from_uniforms([u1, u2, u3]: [f64; 3]) -> [[f32; 3]; 3] {
    let tau = std::f64::consts::TAU;
    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
    let (x, y) = (a * (tau * u2).sin(), a * (tau * u2).cos());
    let (z, w) = (b * (tau * u3).sin(), b * (tau * u3).cos());
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - z * w),
            2.0 * (x * z + y * w),
        ],
        [
            2.0 * (x * y + z * w),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - x * w),
        ],
        [
            2.0 * (x * z - y * w),
            2.0 * (y * z + x * w),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
    .map(|row| row.map(|v| v as f32))
}

impl Pair for BoxVsAabbs {
    const NAME: &'static str = "box_vs_aabbs";
    const WHAT: &'static str = "Aabb query vs Aabbs, 24 B per box";
    type Prim = Aabb;
    type Container = Aabbs;
    type Query = Aabb;
    fn prim(b: &Aabb) -> Aabb {
        *b
    }
    fn container(prims: &[Aabb]) -> Aabbs {
        Aabbs::from_slice(prims).expect("generated boxes are valid")
    }
    fn query(center: [f32; 3], size: f32) -> Aabb {
        cube(center, size)
    }
}

impl Pair for DownTetVsUpTets {
    const NAME: &'static str = "downtet_vs_uptets";
    const WHAT: &'static str = "DownTet query vs UpTets, 16 B per tetrahedron";
    type Prim = UpTet;
    type Container = UpTets;
    type Query = DownTet;
    fn prim(b: &Aabb) -> UpTet {
        Octahedron::from_aabb(b).up
    }
    fn container(prims: &[UpTet]) -> UpTets {
        UpTets::from_slice(prims).expect("generated tetrahedra are valid")
    }
    fn query(center: [f32; 3], size: f32) -> DownTet {
        // The down tetrahedron {t_k(p) <= t_k(center) + size}: a regular tetrahedron around
        // `center` that grows with `size`.
        DownTet::new(
            TET_AXES.map(|n| n[0] * center[0] + n[1] * center[1] + n[2] * center[2] + size),
        )
    }
}

impl Pair for OctahedronVsOctahedra {
    const NAME: &'static str = "octahedron_vs_octahedra";
    const WHAT: &'static str = "Octahedron query vs Octahedra (exact), 32 B per octahedron";
    type Prim = Octahedron;
    type Container = Octahedra;
    type Query = Octahedron;
    fn prim(b: &Aabb) -> Octahedron {
        Octahedron::from_aabb(b)
    }
    fn container(prims: &[Octahedron]) -> Octahedra {
        Octahedra::from_slice(prims).expect("generated octahedra are valid")
    }
    fn query(center: [f32; 3], size: f32) -> Octahedron {
        Octahedron::from_aabb(&cube(center, size))
    }

    /// The kernel reads the down half of a block only if its up half passes: how often that is.
    fn note(w: &Workload<Self>, d: usize) -> Option<String> {
        let (mut prims, mut blocks4, mut blocks8) = (0usize, 0usize, 0usize);
        let mut idx = Vec::new();
        for (set, q) in w.sets.iter().zip(&w.queries[d]) {
            idx.clear();
            set.extend_hits(&q.down, &mut idx); // the up halves only: stage 1
            prims += idx.len();
            let distinct = |shift: u32| {
                let mut v: Vec<u32> = idx.iter().map(|i| i >> shift).collect();
                v.dedup();
                v.len()
            };
            blocks4 += distinct(2);
            blocks8 += distinct(3);
        }
        let total = (w.n * SETS) as f64;
        Some(format!(
            "stage 1 (up half) passes {:.1}% of octahedra, {:.1}% of 4-lane and {:.1}% of 8-lane blocks",
            prims as f64 / total * 100.0,
            blocks4 as f64 / (total / 4.0) * 100.0,
            blocks8 as f64 / (total / 8.0) * 100.0
        ))
    }
}

/// The data of one pair at one size: [`SETS`] containers, their primitives as an array of
/// structs, and one calibrated query per set and density.
pub struct Workload<P: Pair> {
    /// Primitives per set.
    pub n: usize,
    /// The primitives of each set, array-of-structs (read by the baselines).
    pub aos: Vec<Vec<P::Prim>>,
    /// The container of each set.
    pub sets: Vec<P::Container>,
    /// `queries[d][s]`: the query of set `s` for density `DENSITIES[d]`.
    pub queries: [Vec<P::Query>; 2],
    /// `hits[d][s]`: how many primitives of set `s` that query hits.
    pub hits: [Vec<usize>; 2],
    /// `sizes[d][s]`: the calibrated query size.
    pub sizes: [Vec<f32>; 2],
    /// The same values as the container, one 64-byte-aligned array per component (the layout the
    /// container uses), read by the plain sum.
    pub cols: Vec<Vec<Vec<Line>>>,
}

impl<P: Pair> Workload<P> {
    /// Generates the [`SETS`] data sets of `n` primitives and calibrates their queries.
    pub fn build(n: usize) -> Self {
        let mut w = Workload {
            n,
            aos: Vec::with_capacity(SETS),
            sets: Vec::with_capacity(SETS),
            queries: [Vec::new(), Vec::new()],
            hits: [Vec::new(), Vec::new()],
            sizes: [Vec::new(), Vec::new()],
            cols: Vec::with_capacity(SETS),
        };
        // The sets are independent: build them on every core (generation only; nothing here is
        // timed), then store them in order.
        let threads = std::thread::available_parallelism()
            .map_or(1, |t| t.get())
            .min(SETS);
        let built: Vec<BuiltSet<P>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    scope.spawn(move || {
                        (t..SETS)
                            .step_by(threads)
                            .map(|set| (set, build_set::<P>(n, set)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            let mut all: Vec<(usize, BuiltSet<P>)> = handles
                .into_iter()
                .flat_map(|h| h.join().expect("data generation does not panic"))
                .collect();
            all.sort_by_key(|(set, _)| *set);
            all.into_iter().map(|(_, b)| b).collect()
        });
        for b in built {
            for d in 0..DENSITIES.len() {
                w.queries[d].push(b.queries[d]);
                w.hits[d].push(b.hits[d]);
                w.sizes[d].push(b.sizes[d]);
            }
            w.cols.push(b.cols);
            w.aos.push(b.prims);
            w.sets.push(b.container);
        }
        w
    }

    /// Every set pinned to backend `b`.
    pub fn pins(&self, b: Backend) -> Vec<Pinned<'_, P::Container>> {
        self.sets.iter().map(|c| P::pin(c, b)).collect()
    }

    /// Mean hit fraction over the sets for density number `d`.
    pub fn density(&self, d: usize) -> f64 {
        self.hits[d].iter().sum::<usize>() as f64 / (self.n * SETS) as f64
    }

    /// Smallest and largest hit fraction over the sets for density number `d`.
    pub fn density_range(&self, d: usize) -> (f64, f64) {
        let f = |h: &usize| *h as f64 / self.n as f64;
        let min = self.hits[d].iter().map(f).fold(f64::INFINITY, f64::min);
        let max = self.hits[d].iter().map(f).fold(0.0, f64::max);
        (min, max)
    }

    /// The bytes of set `s` as f32 (what a full pass over the container reads).
    pub fn floats(&self, s: usize) -> &[f32] {
        bytemuck::cast_slice(&self.aos[s])
    }

    /// Bytes per primitive.
    pub fn bytes_per_prim(&self) -> usize {
        size_of::<P::Prim>()
    }
}

/// One generated data set with its calibrated queries.
struct BuiltSet<P: Pair> {
    prims: Vec<P::Prim>,
    container: P::Container,
    cols: Vec<Vec<Line>>,
    queries: [P::Query; 2],
    hits: [usize; 2],
    sizes: [f32; 2],
}

/// Generates data set `set` of `n` primitives and calibrates its queries.
fn build_set<P: Pair>(n: usize, set: usize) -> BuiltSet<P> {
    let prims: Vec<P::Prim> = gen_boxes(n, set).iter().map(P::prim).collect();
    let container = P::container(&prims);
    let pinned = P::pin(&container, Backend::best());
    // A coarse size from a prefix (the boxes are in random order), refined on the whole set: a
    // few passes over a large set instead of fifty.
    let prefix_len = n.min(CALIBRATION_PREFIX);
    let prefix = P::container(&prims[..prefix_len]);
    let prefix = P::pin(&prefix, Backend::best());
    let mut queries = Vec::new();
    let (mut hits, mut sizes) = ([0; 2], [0.0; 2]);
    for (d, &(_, target)) in DENSITIES.iter().enumerate() {
        let center = gen_center(n, set, d);
        let (mut size, mut h) =
            calibrate::<P>(prefix, prefix_len, center, target, (0.0, 1000.0), 48);
        if prefix_len < n {
            (size, h) = calibrate::<P>(pinned, n, center, target, (0.8 * size, 1.25 * size), 14);
        }
        queries.push(P::query(center, size));
        hits[d] = h;
        sizes[d] = size;
    }
    let k = size_of::<P::Prim>() / size_of::<f32>();
    BuiltSet {
        cols: to_columns(bytemuck::cast_slice(&prims), k),
        queries: [queries[0], queries[1]],
        hits,
        sizes,
        prims,
        container,
    }
}

/// Calibration bisects on the first this many primitives first.
const CALIBRATION_PREFIX: usize = 1 << 16;

/// The query size (by bisection within `range`, `steps` halvings) whose hits are closest to
/// `target` of the container, and its hits.
fn calibrate<P: Pair>(
    p: Pinned<'_, P::Container>,
    n: usize,
    center: [f32; 3],
    target: f64,
    range: (f32, f32),
    steps: usize,
) -> (f32, usize) {
    let want = (target * n as f64).round().max(1.0) as usize;
    let (mut lo, mut hi) = range;
    for _ in 0..steps {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if P::count(p, &P::query(center, mid)) < want {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // `lo` or `hi`, whichever is closer to the target.
    let (c_lo, c_hi) = (
        P::count(p, &P::query(center, lo)),
        P::count(p, &P::query(center, hi)),
    );
    if want.abs_diff(c_lo) < want.abs_diff(c_hi) {
        (lo, c_lo)
    } else {
        (hi, c_hi)
    }
}

// ---- Arvo's test (seed 000), exactly as published: branchy, scalar, one box at a time ----
// The test itself is `bvlanes::seeds::sphere_aabb_arvo` (`#[inline]`, so the loop below compiles
// as if it were written here, `r * r` hoisted).

/// Arvo's test in a plain loop over an array of boxes: the number of hits.
#[inline(never)]
pub fn arvo_count(boxes: &[Aabb], s: &Sphere) -> usize {
    let mut hits = 0;
    for b in boxes {
        if bvlanes::seeds::sphere_aabb_arvo(s.center, s.radius, b.min, b.max) {
            hits += 1;
        }
    }
    hits
}

/// Arvo's test in a plain loop over an array of boxes: appends the hit indices.
#[inline(never)]
pub fn arvo_extend(boxes: &[Aabb], s: &Sphere, out: &mut Vec<u32>) {
    for (i, b) in boxes.iter().enumerate() {
        if bvlanes::seeds::sphere_aabb_arvo(s.center, s.radius, b.min, b.max) {
            out.push(i as u32);
        }
    }
}

/// G-Arvo (Arvo in the box frame, seed 000) in a plain loop over oriented boxes: the hits.
#[inline(never)]
pub fn garvo_count(boxes: &[Obb], s: &Sphere) -> usize {
    let mut hits = 0;
    for b in boxes {
        if bvlanes::seeds::sphere_obb_garvo(s.center, s.radius, b) {
            hits += 1;
        }
    }
    hits
}

/// G-Arvo in a plain loop over oriented boxes: appends the hit indices.
#[inline(never)]
pub fn garvo_extend(boxes: &[Obb], s: &Sphere, out: &mut Vec<u32>) {
    for (i, b) in boxes.iter().enumerate() {
        if bvlanes::seeds::sphere_obb_garvo(s.center, s.radius, b) {
            out.push(i as u32);
        }
    }
}

// ---- the plain SIMD sum: the memory-bandwidth limit ----

/// Sixteen floats on a 64-byte line, like the containers' chunks.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Line(pub [f32; 16]);

/// Splits rows of `k` floats into `k` column arrays of whole lines (zero padded).
pub fn to_columns(rows: &[f32], k: usize) -> Vec<Vec<Line>> {
    let n = rows.len() / k;
    let mut cols = vec![vec![Line::default(); n.div_ceil(16)]; k];
    for (i, row) in rows.chunks_exact(k).enumerate() {
        for (col, &v) in cols.iter_mut().zip(row) {
            col[i / 16].0[i % 16] = v;
        }
    }
    cols
}

/// Sums every column (all of equal length) in one pass, reading them side by side as the kernels
/// do (line `i` of every column, then line `i + 1`): the same bytes in the same streams.
#[inline(never)]
pub fn plain_sum_columns(cols: &[Vec<Line>]) -> f32 {
    match cols.len() {
        4 => sum_cols::<4>(cols),
        6 => sum_cols::<6>(cols),
        8 => sum_cols::<8>(cols),
        10 => sum_cols::<10>(cols),
        15 => sum_cols::<15>(cols),
        19 => sum_cols::<19>(cols),
        _ => cols
            .iter()
            .map(|c| plain_sum(bytemuck::cast_slice(c)))
            .sum(),
    }
}

fn sum_cols<const K: usize>(cols: &[Vec<Line>]) -> f32 {
    let lines = cols.iter().map(Vec::len).min().unwrap_or(0);
    let cols: [&[Line]; K] = core::array::from_fn(|k| &cols[k][..lines]);
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { sum_cols_avx2(cols) };
    }
    sum_cols_wide(cols)
}

/// One 256-bit accumulator per column; the two halves of a line are added first. All columns
/// must have the same length.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sum_cols_avx2<const K: usize>(cols: [&[Line]; K]) -> f32 {
    use core::arch::x86_64::*;
    let lines = cols[0].len();
    let ptrs: [*const f32; K] = core::array::from_fn(|k| cols[k].as_ptr().cast::<f32>());
    let mut acc = [_mm256_setzero_ps(); K];
    for i in 0..lines {
        for (a, &p) in acc.iter_mut().zip(&ptrs) {
            // SAFETY: every column holds `lines` (the caller's minimum) lines of 16 floats,
            // 64-byte aligned, and `i < lines`: both halves are in bounds and aligned.
            let (lo, hi) = unsafe {
                let p = p.add(i * 16);
                (_mm256_load_ps(p), _mm256_load_ps(p.add(8)))
            };
            *a = _mm256_add_ps(*a, _mm256_add_ps(lo, hi));
        }
    }
    let mut s = _mm256_setzero_ps();
    for a in acc {
        s = _mm256_add_ps(s, a);
    }
    let mut lanes = [0.0f32; 8];
    // SAFETY: `lanes` is 8 writable floats; the store is unaligned.
    unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), s) };
    lanes.iter().sum()
}

fn sum_cols_wide<const K: usize>(cols: [&[Line]; K]) -> f32 {
    use wide::f32x4;
    let lines = cols[0].len();
    let mut acc = [f32x4::ZERO; K];
    for i in 0..lines {
        for (a, col) in acc.iter_mut().zip(&cols) {
            let l = &col[i].0;
            let q = |j: usize| f32x4::new([l[j], l[j + 1], l[j + 2], l[j + 3]]);
            *a += (q(0) + q(4)) + (q(8) + q(12));
        }
    }
    acc.iter().fold(f32x4::ZERO, |s, &a| s + a).reduce_add()
}

/// Sums `data` with AVX2 if the CPU has it, else `wide::f32x4`: one pass that reads every byte
/// once and does nothing else. From DRAM that is the bandwidth limit of any kernel reading the
/// same bytes; in cache it is only a yardstick (AVX-512 kernels exceed it there: there is no
/// AVX-512 sum).
#[inline(never)]
pub fn plain_sum(data: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { sum_avx2(data) };
    }
    sum_wide(data)
}

/// Eight independent 256-bit accumulators (64 floats per iteration), so the adds never limit.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sum_avx2(data: &[f32]) -> f32 {
    use core::arch::x86_64::*;
    let mut acc = [_mm256_setzero_ps(); 8];
    let mut blocks = data.chunks_exact(64);
    for block in &mut blocks {
        let p = block.as_ptr();
        for (k, a) in acc.iter_mut().enumerate() {
            // SAFETY: `block` holds 64 floats and `k * 8 + 8 <= 64`; the load is unaligned.
            let v = unsafe { _mm256_loadu_ps(p.add(k * 8)) };
            *a = _mm256_add_ps(*a, v);
        }
    }
    let s01 = _mm256_add_ps(acc[0], acc[1]);
    let s23 = _mm256_add_ps(acc[2], acc[3]);
    let s45 = _mm256_add_ps(acc[4], acc[5]);
    let s67 = _mm256_add_ps(acc[6], acc[7]);
    let s = _mm256_add_ps(_mm256_add_ps(s01, s23), _mm256_add_ps(s45, s67));
    let mut lanes = [0.0f32; 8];
    // SAFETY: `lanes` is 8 writable floats; the store is unaligned.
    unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), s) };
    lanes.iter().sum::<f32>() + blocks.remainder().iter().sum::<f32>()
}

/// The portable fallback: four `wide::f32x4` accumulators.
fn sum_wide(data: &[f32]) -> f32 {
    use wide::f32x4;
    let mut acc = [f32x4::ZERO; 4];
    let mut blocks = data.chunks_exact(16);
    for block in &mut blocks {
        for (k, a) in acc.iter_mut().enumerate() {
            let v: [f32; 4] = block[k * 4..k * 4 + 4].try_into().expect("4 floats");
            *a += f32x4::new(v);
        }
    }
    ((acc[0] + acc[1]) + (acc[2] + acc[3])).reduce_add() + blocks.remainder().iter().sum::<f32>()
}

/// Which SIMD the plain sum uses on this CPU.
pub fn plain_sum_isa() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        return "avx2";
    }
    "wide f32x4"
}

// ---- one pass of each measured operation on set `k` (shared by both bench targets) ----

/// `count_hits` on set `k`.
#[inline]
pub fn pass_count<P: Pair>(pins: &[Pinned<'_, P::Container>], qs: &[P::Query], k: usize) -> usize {
    black_box(P::count(pins[k], black_box(&qs[k])))
}

/// `extend_hits` on set `k` into `out` (cleared first).
#[inline]
pub fn pass_extend<P: Pair>(
    pins: &[Pinned<'_, P::Container>],
    qs: &[P::Query],
    k: usize,
    out: &mut Vec<u32>,
) -> usize {
    out.clear();
    P::extend(pins[k], black_box(&qs[k]), out);
    black_box(out.len())
}

/// The plain sum over set `k`'s bytes, in the container's layout (one stream per column).
#[inline]
pub fn pass_sum<P: Pair>(w: &Workload<P>, k: usize) -> usize {
    black_box(plain_sum_columns(black_box(&w.cols[k]))).to_bits() as usize
}

/// The plain sum over set `k`'s bytes as one array of structs (a single stream).
#[inline]
pub fn pass_sum_aos<P: Pair>(w: &Workload<P>, k: usize) -> usize {
    black_box(plain_sum(black_box(w.floats(k)))).to_bits() as usize
}

/// Arvo's count on set `k` (`f` from [`Pair::ARVO`]).
#[inline]
pub fn pass_arvo_count<P: Pair>(w: &Workload<P>, a: &Scalar<P>, d: usize, k: usize) -> usize {
    black_box((a.count)(black_box(&w.aos[k]), black_box(&w.queries[d][k])))
}

/// Arvo's index list on set `k` into `out` (cleared first).
#[inline]
pub fn pass_arvo_extend<P: Pair>(
    w: &Workload<P>,
    a: &Scalar<P>,
    d: usize,
    k: usize,
    out: &mut Vec<u32>,
) -> usize {
    out.clear();
    (a.extend)(black_box(&w.aos[k]), black_box(&w.queries[d][k]), out);
    black_box(out.len())
}
