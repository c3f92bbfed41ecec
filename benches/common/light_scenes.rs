//! The three scenes of issue 5 (light culling), shared by the `lights` criterion benchmark and
//! `bvlanes-bench --table lights`. The two froxel scenes are a camera (the parameters of
//! [`ClusterGrid::froxels`](bvlanes::cull::ClusterGrid::froxels)) and its lights in view space
//! (right-handed, the eye at the origin looking down `-z`):
//!
//! * [`many_lights`]: Bevy's `many_lights` example — 100,000 lights of range 0.3 on a radius-50
//!   Fibonacci sphere around the camera, 17 x 9 x 24 froxels.
//! * [`indoor`]: 4,096 lights of radius 1-5 m in a 50 x 20 x 50 m room in front of the camera,
//!   16 x 9 x 24 froxels.
//!
//! The third is a box grid: [`uniform_grid`], 32^3 unit cells, and [`uniform_lights`], 10,000
//! lights of radius 0.5-2 uniform in it.

use bvlanes::cull::ClusterGrid;
use bvlanes::{Aabb, Sphere, Spheres};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// A perspective camera and its froxel grid: the arguments of `ClusterGrid::froxels`.
#[derive(Clone, Copy, Debug)]
pub struct Camera {
    /// Viewport width in pixels.
    pub width_px: u32,
    /// Viewport height in pixels.
    pub height_px: u32,
    /// Vertical field of view, radians.
    pub fov_y: f32,
    /// Near depth.
    pub near: f32,
    /// Far depth (the last slice ends here).
    pub far: f32,
    /// Tiles across, tile rows, depth slices.
    pub dims: [u32; 3],
}

impl Camera {
    /// The bvlanes froxel grid of this camera (every thread of rayon's pool).
    ///
    /// # Panics
    /// If the camera is invalid (the scenes' cameras are not).
    pub fn grid(&self) -> ClusterGrid {
        ClusterGrid::froxels(
            self.width_px,
            self.height_px,
            self.fov_y,
            self.near,
            self.far,
            self.dims,
        )
        .expect("a valid camera")
    }

    /// `17x9x24`-style label of the grid.
    pub fn dims_label(&self) -> String {
        let [x, y, z] = self.dims;
        format!("{x}x{y}x{z}")
    }
}

/// One froxel scene: a camera and its lights (view space).
pub struct FroxelScene {
    /// Short name (`many_lights`, `indoor`).
    pub name: &'static str,
    /// The camera and its froxel grid.
    pub camera: Camera,
    /// The lights.
    pub lights: Spheres,
}

/// How many light sets the froxel benchmarks cycle through: the scene's lights and the same
/// lights as seen by the camera turned a little further each time ([`FroxelScene::panned`]).
pub const PANNED_SETS: usize = 4;

/// The camera's turn between two sets of [`FroxelScene::panned`], radians: 0.75 degrees, a
/// camera panning at 45 degrees a second seen at 60 frames a second.
pub const PAN_STEP: f64 = 0.75 * std::f64::consts::PI / 180.0;

impl FroxelScene {
    /// [`PANNED_SETS`] light sets: this scene's lights, then the same lights in the view space
    /// of the camera turned about its vertical axis by [`PAN_STEP`], twice that, and so on.
    ///
    /// The froxel benchmarks time each pass on the next set, never the same one twice in a
    /// row, as the bench binary does for every branchy baseline: on one fixed set, repeated
    /// frame after frame, the processor's branch predictor learns the per-light decisions over
    /// a few frames, which a moving camera does not allow (bvlanes' `many_lights` frames took
    /// 0.21 ms on one set and 0.29-0.30 ms cycling through these four; the Bevy-style port's
    /// about 0.59 and 0.60-0.61 ms).
    pub fn panned(&self) -> Vec<Spheres> {
        (0..PANNED_SETS)
            .map(|q| {
                if q == 0 {
                    return self.lights.clone();
                }
                let (sin, cos) = (q as f64 * PAN_STEP).sin_cos();
                let turned: Vec<Sphere> = self
                    .lights
                    .iter()
                    .map(|s| {
                        let [x, y, z] = s.center.map(f64::from);
                        let c = [x * cos + z * sin, y, z * cos - x * sin];
                        Sphere::new(c.map(|v| v as f32), s.radius)
                    })
                    .collect();
                Spheres::from_slice(&turned).expect("turned lights are valid")
            })
            .collect()
    }
}

/// Lights in [`many_lights`] by default.
pub const MANY_LIGHTS: usize = 100_000;

/// Lights in [`indoor`] by default (and at most).
pub const INDOOR_LIGHTS: usize = 4_096;

/// Scene 1 of issue 5, Bevy's `many_lights`: `n` lights of range 0.3 on a radius-50 Fibonacci
/// sphere around the camera (1920 x 1080, 45-degree vertical field of view, near 0.1, far 51 —
/// just past the farthest light, as Bevy's default far-z mode), 17 x 9 x 24 froxels.
pub fn many_lights(n: usize) -> FroxelScene {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    let lights: Vec<Sphere> = (0..n)
        .map(|i| {
            let y = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
            let r = (1.0 - y * y).sqrt();
            let a = golden * i as f64;
            let p = [a.cos() * r, y, a.sin() * r].map(|v| (50.0 * v) as f32);
            Sphere::new(p, 0.3)
        })
        .collect();
    FroxelScene {
        name: "many_lights",
        camera: Camera {
            width_px: 1920,
            height_px: 1080,
            fov_y: std::f32::consts::FRAC_PI_4,
            near: 0.1,
            far: 51.0,
            dims: [17, 9, 24],
        },
        lights: Spheres::from_slice(&lights).expect("valid lights"),
    }
}

/// Scene 2 of issue 5, an indoor room: `min(n, 4096)` lights of radius 1-5 m uniform in a
/// 50 x 20 x 50 m room in front of the camera (x in [-25, 25], y in [-10, 10], z in [-50, 0];
/// 1920 x 1080, 45-degree vertical field of view, near 0.1, far 60), 16 x 9 x 24 froxels. The
/// lights are the first `n` of one fixed sequence.
pub fn indoor(n: usize) -> FroxelScene {
    let n = n.min(INDOOR_LIGHTS);
    let mut r = rng(0x11_6476, 0);
    let lights: Vec<Sphere> = (0..n)
        .map(|_| {
            let c = [
                uniform(&mut r, -25.0, 25.0),
                uniform(&mut r, -10.0, 10.0),
                uniform(&mut r, -50.0, 0.0),
            ];
            Sphere::new(c, uniform(&mut r, 1.0, 5.0))
        })
        .collect();
    FroxelScene {
        name: "indoor",
        camera: Camera {
            width_px: 1920,
            height_px: 1080,
            fov_y: std::f32::consts::FRAC_PI_4,
            near: 0.1,
            far: 60.0,
            dims: [16, 9, 24],
        },
        lights: Spheres::from_slice(&lights).expect("valid lights"),
    }
}

/// Lights in the uniform scene by default.
pub const UNIFORM_LIGHTS: usize = 10_000;

/// Scene 3 of issue 5: a 32^3 grid of unit cells over `[0, 32]^3` (every thread of rayon's
/// pool).
///
/// # Panics
/// Never: the grid is valid.
pub fn uniform_grid() -> ClusterGrid {
    ClusterGrid::uniform(Aabb::new([0.0; 3], [32.0; 3]), [32, 32, 32]).expect("a valid grid")
}

/// The uniform scene's lights: `n` lights of radius 0.5-2 uniform in `[0, 32]^3` (fixed seed).
pub fn uniform_lights(n: usize) -> Spheres {
    let mut r = rng(0x11_6475, 0);
    let lights: Vec<Sphere> = (0..n)
        .map(|_| {
            let c = [0; 3].map(|_| uniform(&mut r, 0.0, 32.0));
            Sphere::new(c, uniform(&mut r, 0.5, 2.0))
        })
        .collect();
    Spheres::from_slice(&lights).expect("valid lights")
}

/// The generator of stream `stream`, set `set`: the same sequence as `bvlanes-bench`'s
/// `data::rng` (so the scenes are the ones its tables always used).
fn rng(stream: u64, set: u64) -> Xoshiro256PlusPlus {
    const SEED: u64 = 0x6276_6c61_6e65_732d; // "bvlanes-"
    let mix = stream.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ set.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    Xoshiro256PlusPlus::seed_from_u64(SEED ^ mix)
}

/// Uniform in `[lo, hi)` from 53 random bits, rounded to f32 (as `bvlanes-bench`'s
/// `data::uniform`).
fn uniform(rng: &mut Xoshiro256PlusPlus, lo: f64, hi: f64) -> f32 {
    let unit = (rng.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0);
    (lo + (hi - lo) * unit) as f32
}
