//! The froxel grid's unit tests (the public behaviour is tested in `tests/suite/cull_froxel.rs`).

use super::cell_box::{f32_down_mul, f32_up_mul};
use super::cell_distance::Cell;
use super::rows::SliceRows;
use super::*;
use crate::cull::runs::CellRuns;
use crate::lanes::Backend;
use crate::lanes::scalar::F64x1;
use crate::round::{f32_at_least, f32_at_most};
use crate::soa::Spheres;

/// Products whose f64 rounding lands on an f32 from beyond it step one f32 further out
/// (`cell_box` rounded the f64 product, and a froxel's box left out a sliver of it).
#[test]
fn products_round_outwards_past_an_f32_they_round_onto() {
    let (a, b) = (1.0 + 2f64.powi(-30), 1.0 - 2f64.powi(-30));
    // a b = 1 - 2^-60, rounded to 1.0 in f64.
    assert_eq!(a * b, 1.0);
    assert_eq!(f32_down_mul(a, b), 1.0f32.next_down());
    assert_eq!(f32_up_mul(a, b), 1.0);
    assert_eq!(f32_up_mul(-a, b), (-1.0f32).next_up());
    assert_eq!(f32_down_mul(-a, b), -1.0);
    // Exact products and products off the f32 grid are rounded once.
    assert_eq!(f32_down_mul(0.5, 3.0), 1.5);
    assert_eq!(f32_up_mul(0.5, 3.0), 1.5);
    assert_eq!(f32_down_mul(0.1, 3.0), f32_at_most(0.1 * 3.0));
    assert_eq!(f32_up_mul(0.1, 3.0), f32_at_least(0.1 * 3.0));
    // Saturation.
    assert_eq!(f32_down_mul(-1e300, 1e10), -f32::MAX);
    assert_eq!(f32_up_mul(1e300, 1e10), f32::MAX);
}

#[test]
fn slices_follow_bevy() {
    let f = Froxels::new(1920, 1080, 1.0, 0.1, 1000.0, [16, 9, 24]).unwrap();
    assert_eq!(f.depth.len(), 25);
    assert_eq!(f.depth[0], 0.1f32 as f64);
    assert_eq!(f.depth[1], 5.0);
    assert_eq!(f.depth[24], 1000.0);
    let ratio = (1000.0f64 / 5.0).powf(1.0 / 23.0);
    for k in 1..24 {
        assert!((f.depth[k + 1] / f.depth[k] - ratio).abs() < 1e-12);
    }
    let one = Froxels::new(4, 4, 1.0, 0.5, 50.0, [1, 1, 1]).unwrap();
    assert_eq!(one.depth, [0.5, 50.0]);
    assert_eq!(one.sx, [-(0.5f64.tan()), 0.5f64.tan()]);
    // near beyond the first slice depth: slice 0 is the plane d = near, as Bevy's formula
    // never picks slice 0 then.
    let deep = Froxels::new(4, 4, 1.0, 8.0, 50.0, [1, 1, 3]).unwrap();
    assert_eq!(deep.depth[..2], [8.0, 8.0]);
    assert!((deep.depth[2] - 20.0).abs() < 1e-12);
    assert_eq!(deep.depth[3], 50.0);
}

#[test]
fn first_slice_equals_a_binary_search() {
    for (near, far, n) in [
        (0.1, 1000.0, 24),
        (0.5, 60.0, 1),
        (8.0, 9.0, 3),
        (1e-30, 3e38, 4000),
    ] {
        let f = Froxels::new(64, 32, 1.0, near, far, [4, 4, n]).unwrap();
        let mut probes: Vec<f64> = vec![-1.0, 0.0, f64::MIN_POSITIVE, 1e300, f64::INFINITY];
        for &d in &f.depth {
            probes.extend([d, d.next_down(), d.next_up(), d * 1.01, d * 0.99]);
        }
        let mut v = 1e-40f64;
        while v < 1e40 {
            probes.push(v);
            v *= 1.0137;
        }
        for lo in probes {
            let want = f.depth[1..].partition_point(|&v| v < lo);
            assert_eq!(f.first_slice(lo), want, "{near} {far} {n} {lo}");
        }
    }
}

/// `rows` on every tier (through `dispatch`, so the AVX2 lanes run inside their entry point)
/// against the one-row instance: for every start row (tails included) and every live lane,
/// the same plane verdict, candidate tiles and accept bits as the scalar code gives that
/// row, on random and adversarial lights (huge and tiny magnitudes, zero radius, centres on
/// planes).
#[test]
fn rows_are_the_same_on_every_tier() {
    use crate::lanes::Lanes;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use rand_xoshiro::rand_core::{Rng, SeedableRng};

    /// `(slice, row)` -> `[ok, acc_lo, acc_hi, ilo, ihi]` for every start row and live lane.
    struct AllRows<'a> {
        f: &'a Froxels,
        slices: &'a [SliceRows],
        out: Vec<(usize, usize, [u32; 5])>,
    }
    impl crate::lanes::WithLanes for &mut AllRows<'_> {
        type Output = ();
        fn run<V: Lanes>(self) {
            let n = self.f.dims[1] as usize;
            for (i, s) in self.slices.iter().enumerate() {
                for j in 0..n {
                    let r = self.f.rows::<V::F64>(s, j);
                    for k in 0..(n - j).min(<V::F64 as Lanes64>::N) {
                        let bits = [r.ok, r.acc_lo, r.acc_hi].map(|b| b >> k & 1);
                        let row = [bits[0], bits[1], bits[2], r.ilo[k], r.ihi[k]];
                        self.out.push((i, j + k, row));
                    }
                }
            }
        }
    }

    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x005e_ed0f_7065);
    let mut unit = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    for (ci, (near, far, dims)) in [
        (0.1, 60.0, [16, 9, 24]),
        (0.5, 1e4, [7, 13, 5]),
        (1e-3, 3e38, [3, 1, 40]),
    ]
    .into_iter()
    .enumerate()
    {
        let f = Froxels::new(1920, 1080, 1.0, near, far, dims).unwrap();
        let mut slices = Vec::new();
        for i in 0..300 {
            let scale = [1e-3, 1.0, 60.0, 1e5, 3e38][i % 5];
            let pd = (unit() * scale).max(f64::MIN_POSITIVE);
            let mut x = (unit() * 2.0 - 1.0) * scale;
            let y = (unit() * 2.0 - 1.0) * scale;
            if i % 7 == 0 {
                x = f.sx[i % f.sx.len()] * pd;
            }
            let r = [0.0, unit() * 1e-6 * scale, unit() * scale][i % 3];
            for k in 0..dims[2] as usize {
                slices.extend(f.slice_rows([x, y, pd], r, k));
            }
        }
        let mut want = Vec::new();
        for (i, s) in slices.iter().enumerate() {
            for j in 0..dims[1] as usize {
                let r = f.rows::<F64x1>(s, j);
                want.push((
                    i,
                    j,
                    [r.ok & 1, r.acc_lo & 1, r.acc_hi & 1, r.ilo[0], r.ihi[0]],
                ));
            }
        }
        for &b in Backend::available() {
            let mut all = AllRows {
                f: &f,
                slices: &slices,
                out: Vec::new(),
            };
            crate::lanes::dispatch(b, &mut all);
            for (i, row, got) in all.out {
                let (_, _, w) = want[i * dims[1] as usize + row];
                assert_eq!(
                    got, w,
                    "camera {ci}, {b:?}, slice {:?}, row {row}",
                    slices[i]
                );
            }
        }
    }
}

/// The SIMD pre-cull on every backend, every length 0..=67 and adversarial lights: the same
/// survivors on every tier, and never a light the exact decision lists somewhere.
#[test]
fn pre_cull_is_a_superset_and_the_same_on_every_backend() {
    use crate::lanes::Backend;
    use crate::primitive::Sphere;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use rand_xoshiro::rand_core::{Rng, SeedableRng};
    let cameras = [
        Froxels::new(1920, 1080, 0.8, 0.1, 50.0, [16, 9, 24]).unwrap(),
        Froxels::new(64, 64, 3.0, 1e-3, 1e6, [3, 5, 7]).unwrap(),
        Froxels::new(8, 2, 0.01, 10.0, 11.0, [1, 1, 1]).unwrap(),
    ];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x0f00_11ed);
    let mut unit = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let mut scratch = Scratch::default();
    for (ci, f) in cameras.iter().enumerate() {
        for len in 0..=67usize {
            let lights: Vec<Sphere> = (0..len)
                .map(|i| {
                    let scale = [1e-3, 1.0, 60.0, 1e5, 3e38][i % 5];
                    let mut c = [0; 3].map(|_| ((unit() * 2.0 - 1.0) * scale) as f32);
                    let r = match i % 7 {
                        0 => 0.0,
                        1 => (unit() * 1e-6) as f32,
                        _ => (unit() * scale * 0.3) as f32,
                    };
                    match i % 11 {
                        // On a side plane of the volume (x = s d), and on the near plane.
                        0 => {
                            let x = f.sx[0] * f64::from(-c[2]);
                            c[0] = x.clamp(-f64::from(f32::MAX), f64::from(f32::MAX)) as f32;
                        }
                        1 => c[2] = -(f.depth[0] as f32),
                        2 => c = [-0.0, 0.0, -0.0],
                        _ => {}
                    }
                    Sphere::new(c, r.min(Sphere::MAX_RADIUS))
                })
                .collect();
            let lights = Spheres::from_slice(&lights).unwrap();
            let scalar = f.pre_cull(&lights, Backend::Scalar);
            for &b in Backend::available() {
                assert_eq!(
                    f.pre_cull(&lights, b),
                    scalar,
                    "camera {ci}, len {len}, {b:?}"
                );
            }
            for (l, light) in lights.iter().enumerate() {
                let mut runs = CellRuns::default();
                let mut one = LightCells {
                    out: &mut runs,
                    dims: f.dims,
                    order: CellOrder::default(),
                    light: l as u32,
                };
                f.for_each_hit::<F64x1>(light.center, light.radius, &mut scratch, &mut one);
                if !runs.runs().is_empty() {
                    assert!(
                        scalar.binary_search(&(l as u32)).is_ok(),
                        "camera {ci}, len {len}: light {l} {light:?} listed but pre-culled"
                    );
                }
            }
        }
    }
}

/// `beyond_an_edge` never rejects a cell within `rho` of the point less the slack's order
/// (`2^-40 (|p|_1 + rho)`), and does reject cells a little farther than `rho` by an edge:
/// random cells of three cameras, points around them (behind the eye too) at every scale.
#[test]
fn beyond_an_edge_rejects_only_cells_farther_than_rho() {
    use rand_xoshiro::Xoshiro256PlusPlus;
    use rand_xoshiro::rand_core::{Rng, SeedableRng};
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x000e_d6e0_ff20);
    let mut unit = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let (mut rejected, mut tested) = (0, 0);
    for f in [
        Froxels::new(1920, 1080, 0.8, 0.1, 60.0, [16, 9, 24]).unwrap(),
        Froxels::new(64, 64, 3.0, 1e-3, 1e6, [3, 5, 7]).unwrap(),
        Froxels::new(8, 2, 0.01, 10.0, 11.0, [1, 1, 1]).unwrap(),
    ] {
        for n in 0..20_000 {
            let pick = |u: f64, len: usize| ((u * len as f64) as usize).min(len - 2);
            let (i, j, k) = (
                pick(unit(), f.sx.len()),
                pick(unit(), f.sy.len()),
                pick(unit(), f.depth.len()),
            );
            let cell = Cell {
                a: [f.sx[i], f.sx[i + 1]],
                b: [f.sy[j], f.sy[j + 1]],
                d: [f.depth[k], f.depth[k + 1]],
            };
            // A point around the cell's box, a tenth of the time behind the eye.
            let b = f.cell_box([i, j, k]);
            let around = |lo: f32, hi: f32, u: f64| {
                let (lo, hi) = (f64::from(lo), f64::from(hi));
                let w = hi - lo;
                lo - w + 3.0 * w * u
            };
            let mut p = [
                around(b.min[0], b.max[0], unit()),
                around(b.min[1], b.max[1], unit()),
                -around(b.min[2], b.max[2], unit()),
            ];
            if n % 10 == 0 {
                p[2] = -p[2].abs() * unit();
            }
            let dist = cell.dist2(p).sqrt();
            let slack = (p[0].abs() + p[1].abs() + p[2].abs() + dist) / (1u64 << 40) as f64;
            let (cx, cy) = ([f.cx[i], f.cx[i + 1]], [f.cy[j], f.cy[j + 1]]);
            let rho = dist + slack;
            assert!(
                !cell.beyond_an_edge(p, cx, cy, rho * rho),
                "cell {i} {j} {k}, point {p:?} at {dist}, rho {rho}"
            );
            let rho = dist * (1.0 - 1e-6 * unit());
            tested += 1;
            rejected += usize::from(cell.beyond_an_edge(p, cx, cy, rho * rho));
        }
    }
    // Points just inside the distance are rejected often (not always: only by an edge).
    assert!(rejected * 4 > tested, "{rejected} of {tested}");
}

#[test]
fn distance_to_a_cell() {
    let c = Cell {
        a: [-1.0, 1.0],
        b: [0.0, 0.5],
        d: [1.0, 2.0],
    };
    assert_eq!(c.dist2([0.0, 0.25, 1.5]), 0.0);
    assert_eq!(c.dist2([0.0, 0.25, 0.5]), 0.25);
    assert_eq!(c.dist2([0.0, 0.25, 3.0]), 1.0);
    // Off the corner (1, 0, 1) at 45 degrees outside the plane x = d: the closest point is on
    // the edge through (1, 0, 1) and (2, 0, 2).
    let dd = c.dist2([2.0, 0.0, 1.0]);
    assert!((dd - 0.5).abs() < 1e-15, "{dd}");
    // Behind the eye: the closest point is (0, 0, 1) on the near face.
    assert_eq!(c.dist2([0.0, 0.0, -1.0]), 4.0);
}
