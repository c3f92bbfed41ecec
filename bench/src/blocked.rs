//! The blocked table (issue 22, "Blocked containers"): the flat `Aabbs` scan, `Blocked<Aabbs>`,
//! and `packed_spatial_index` 0.33 (a packed Hilbert R-tree, `SimdIndex3DF32`, its fastest index
//! type, one thread) on the same boxes and queries, one thread, the detected backend.
//!
//! Data: boxes with centres uniform in `[0, 1000]^3` and half extents uniform in `0.5..2.5`, at
//! 100,000 and 1,000,000 (`--n` sets the larger). Queries: 1,000 boxes of half extent 5 (and 50
//! at the larger size) with centres uniform in the cube; 100 frusta from inside the cloud and 100
//! from outside it. Every answer is checked before timing: the blocked container's hits equal the
//! flat container's for every query, and the R-tree's candidate sets equal them as sets. The
//! batch rows (`count_hits_many`, `hits_many_into`: all 1,000 queries in one call, one thread;
//! from 262,144 boxes walked along a curve of the queries' centres) answer what the queries
//! answer one at a time, list by list.
//!
//! Spheres: the boxes' centres with radius 1.5, as `Spheres` and `Blocked<Spheres>`, against
//! sphere queries (the box queries' centres, radius their half extent).
//!
//! Oriented boxes: the box queries' centres, half extents `h, h / 2, h / 4` of the box queries'
//! half extent `h`, random rotations, against `Aabbs` and `Blocked<Aabbs>` (counts). And the
//! boxes themselves as oriented boxes (their centres and half extents, random rotations), as
//! `Obbs` and `Blocked<Obbs>`, against those oriented boxes and the sphere queries (counts).

use crate::Ctx;
use crate::data::{rng, uniform, unit};
use crate::report::{Cell, Table, Target, sig3, sig3_vs};
use crate::sampler::{Variant, find, measure};
use bvlanes::{Aabb, Aabbs, Backend, Blocked, Frustum, HitLists, Obb, Obbs, Sphere, Spheres};
use packed_spatial_index::{Box3D, Index3DBuilder, SimdIndex3DF32};
use std::hint::black_box;

/// The larger size by default (`--n`).
pub const DEFAULT_PRIMS: usize = 1_000_000;
/// The smaller size (when below `--n`).
const SMALL: usize = 100_000;
/// Box queries per pass.
const QUERIES: usize = 1_000;
/// Box queries the flat scan runs per pass (its time is scaled to [`QUERIES`]): a flat pass of
/// 1,000 queries over 1,000,000 boxes takes half a second.
const FLAT_QUERIES: usize = 10;
/// Frusta per pass.
const FRUSTA: usize = 100;
/// Fraction of the boxes moved per refit pass.
const MOVED: f64 = 0.01;

fn boxes(n: usize) -> Vec<Aabb> {
    let mut r = rng(22, n as u64);
    (0..n)
        .map(|_| {
            let c: [f64; 3] = [0; 3].map(|_| 1000.0 * unit(&mut r));
            let h: [f64; 3] = [0; 3].map(|_| 0.5 + 2.0 * unit(&mut r));
            Aabb::new(
                [0, 1, 2].map(|k| (c[k] - h[k]) as f32),
                [0, 1, 2].map(|k| (c[k] + h[k]) as f32),
            )
        })
        .collect()
}

fn queries(half: f32, stream: u64) -> Vec<Aabb> {
    let mut r = rng(23, stream);
    (0..QUERIES)
        .map(|_| {
            let c: [f32; 3] = [0; 3].map(|_| uniform(&mut r, 0.0, 1000.0));
            Aabb::new(c.map(|v| v - half), c.map(|v| v + half))
        })
        .collect()
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn normalize(a: [f64; 3]) -> [f64; 3] {
    let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    a.map(|v| v / l)
}

/// A perspective frustum at `eye` looking along `forward` (`tan_half`: tangent of half the field
/// of view, aspect 1), by `Frustum::from_view_projection` (right-handed, depth 0..1).
fn frustum(eye: [f64; 3], forward: [f64; 3], tan_half: f64, near: f64, far: f64) -> Frustum {
    let f = normalize(forward);
    let up = if f[1].abs() < 0.9 {
        [0.0, 1.0, 0.0]
    } else {
        [1.0, 0.0, 0.0]
    };
    let s = normalize(cross(f, up));
    let u = cross(s, f);
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let view = [
        [s[0], s[1], s[2], -dot(s, eye)],
        [u[0], u[1], u[2], -dot(u, eye)],
        [-f[0], -f[1], -f[2], dot(f, eye)],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let r = far / (near - far);
    let k = 1.0 / tan_half;
    let proj = [
        [k, 0.0, 0.0, 0.0],
        [0.0, k, 0.0, 0.0],
        [0.0, 0.0, r, r * near],
        [0.0, 0.0, -1.0, 0.0],
    ];
    let m: [[f64; 4]; 4] = std::array::from_fn(|i| {
        std::array::from_fn(|j| (0..4).map(|x| proj[i][x] * view[x][j]).sum())
    });
    let cols: [[f32; 4]; 4] = std::array::from_fn(|c| std::array::from_fn(|r| m[r][c] as f32));
    Frustum::from_view_projection(cols).expect("a finite, non-degenerate frustum")
}

/// 100 frusta from inside the cloud (eyes near its centre, 90-degree view, far 300) and 100 from
/// outside (eyes 1,200 in front of a face, looking at the cloud with a 45-degree view, direction
/// jittered).
fn frusta() -> (Vec<Frustum>, Vec<Frustum>) {
    let mut r = rng(24, 0);
    let inside = (0..FRUSTA)
        .map(|_| {
            let eye = [0; 3].map(|_| 400.0 + 200.0 * unit(&mut r));
            let dir = crate::data::in_unit_ball(&mut r);
            frustum(eye, dir, 1.0, 0.1, 300.0)
        })
        .collect();
    let outside = (0..FRUSTA)
        .map(|_| {
            let eye = [500.0, 500.0, -1200.0];
            let dir = [
                0.12 * (unit(&mut r) - 0.5),
                0.12 * (unit(&mut r) - 0.5),
                1.0,
            ];
            frustum(eye, dir, (22.5f64).to_radians().tan(), 1.0, 3000.0)
        })
        .collect();
    (inside, outside)
}

fn to_box3d(b: &Aabb) -> Box3D {
    let v = |x: f32| f64::from(x);
    Box3D::new(
        v(b.min[0]),
        v(b.min[1]),
        v(b.min[2]),
        v(b.max[0]),
        v(b.max[1]),
        v(b.max[2]),
    )
}

fn rtree(items: &[Aabb]) -> SimdIndex3DF32 {
    let mut b = Index3DBuilder::new(items.len()).parallel(false);
    for x in items {
        b.add(to_box3d(x));
    }
    b.finish_simd_f32().expect("valid boxes")
}

/// One size's data.
struct Scene {
    n: usize,
    items: Vec<Aabb>,
    flat: Aabbs,
    blocked: Blocked<Aabbs>,
    tree: SimdIndex3DF32,
    /// The boxes' centres as spheres of radius 1.5.
    spheres: Spheres,
    blocked_spheres: Blocked<Spheres>,
    /// Query sets: (label, queries).
    sets: Vec<(String, Vec<Aabb>)>,
    /// Per query set, its oriented boxes ([`obbs_of`]).
    obb_sets: Vec<Vec<Obb>>,
    /// The boxes as oriented boxes (random rotations).
    obbs: Obbs,
    blocked_obbs: Blocked<Obbs>,
}

/// A rotation (rows) from a random unit quaternion.
fn random_rotation(r: &mut rand_xoshiro::Xoshiro256PlusPlus) -> [[f32; 3]; 3] {
    let ball = crate::data::in_unit_ball(r);
    let w = uniform(r, -1.0, 1.0) as f64;
    let l = (ball.iter().map(|v| v * v).sum::<f64>() + w * w).sqrt();
    let [x, y, z] = ball.map(|v| v / l);
    let w = w / l;
    let rows = [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y + w * z),
            2.0 * (x * z - w * y),
        ],
        [
            2.0 * (x * y - w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z + w * x),
        ],
        [
            2.0 * (x * z + w * y),
            2.0 * (y * z - w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ];
    rows.map(|row| row.map(|v| v as f32))
}

/// The oriented boxes of box queries: their centres, half extents `h, h / 2, h / 4` of their
/// half extent `h`, rotations from random unit quaternions.
fn obbs_of(qs: &[Aabb], stream: u64) -> Vec<Obb> {
    let mut r = rng(26, stream);
    qs.iter()
        .map(|q| {
            let c = [0, 1, 2].map(|k| q.min[k] * 0.5 + q.max[k] * 0.5);
            let h = (q.max[0] - q.min[0]) * 0.5;
            Obb::new(c, [h, h * 0.5, h * 0.25], random_rotation(&mut r))
        })
        .collect()
}

/// The boxes as oriented boxes: their centres and half extents, random rotations.
fn boxes_as_obbs(items: &[Aabb]) -> Vec<Obb> {
    let mut r = rng(27, items.len() as u64);
    items
        .iter()
        .map(|b| {
            let c = [0, 1, 2].map(|k| b.min[k] * 0.5 + b.max[k] * 0.5);
            let h = [0, 1, 2].map(|k| b.max[k] * 0.5 - b.min[k] * 0.5);
            Obb::new(c, h, random_rotation(&mut r))
        })
        .collect()
}

/// The sphere query of a box query: its centre, radius its half extent.
fn sphere_of(q: &Aabb) -> Sphere {
    let c = [0, 1, 2].map(|k| q.min[k] * 0.5 + q.max[k] * 0.5);
    Sphere::new(c, (q.max[0] - q.min[0]) * 0.5)
}

fn scene(n: usize, large: bool) -> Scene {
    let items = boxes(n);
    let flat = Aabbs::from_slice(&items).expect("valid boxes");
    let blocked = Blocked::new(&flat);
    let tree = rtree(&items);
    let spheres = Spheres::from_slice(
        &items
            .iter()
            .map(|b| Sphere::new([0, 1, 2].map(|k| b.min[k] * 0.5 + b.max[k] * 0.5), 1.5))
            .collect::<Vec<_>>(),
    )
    .expect("valid spheres");
    let blocked_spheres = Blocked::new(&spheres);
    let mut sets = vec![("half extent 5".to_owned(), queries(5.0, 5))];
    if large {
        sets.push(("half extent 50".to_owned(), queries(50.0, 50)));
    }
    let obb_sets = sets
        .iter()
        .enumerate()
        .map(|(i, (_, qs))| obbs_of(qs, i as u64))
        .collect();
    let obbs = Obbs::from_slice(&boxes_as_obbs(&items)).expect("valid oriented boxes");
    let blocked_obbs = Blocked::new(&obbs);
    Scene {
        n,
        items,
        flat,
        blocked,
        tree,
        spheres,
        blocked_spheres,
        sets,
        obb_sets,
        obbs,
        blocked_obbs,
    }
}

/// Whether the blocked hits equal the flat ones and the R-tree's equal them as sets; total hits.
fn check(s: &Scene, qs: &[Aabb], flat_queries: usize) -> (bool, u64) {
    let mut ok = true;
    let mut total = 0;
    let mut tree_out = Vec::new();
    for (i, q) in qs.iter().enumerate() {
        let got: Vec<u32> = s.blocked.hits(q).collect();
        if i < flat_queries {
            let want: Vec<u32> = s.flat.hits(q).collect();
            ok &= got == want;
        }
        tree_out.clear();
        s.tree.search_into(to_box3d(q), &mut tree_out);
        let mut t: Vec<u32> = tree_out.iter().map(|&i| i as u32).collect();
        t.sort_unstable();
        ok &= t == got;
        total += got.len() as u64;
    }
    // The batch forms, one thread (walked along a curve from 262,144 boxes), list by list.
    let pinned = s
        .blocked
        .with_backend(Backend::detect())
        .expect("detected")
        .with_threads(1);
    let lists = pinned.hits_many(qs);
    ok &= (0..qs.len()).all(|i| s.blocked.hits(&qs[i]).eq(lists.query(i).iter().copied()));
    ok &= pinned
        .count_hits_many(qs)
        .iter()
        .enumerate()
        .all(|(i, &c)| c as usize == lists.query(i).len());
    (ok, total)
}

/// The blocked table.
pub fn run(ctx: &Ctx<'_>, targets: &mut Vec<Target>) -> Vec<Table> {
    let big = ctx.n.unwrap_or(DEFAULT_PRIMS);
    let sizes: Vec<usize> = if big > SMALL {
        vec![SMALL, big]
    } else {
        vec![big]
    };
    let backend = Backend::detect();
    let mut t = Table::new(
        "blocked",
        "Blocked containers against the flat scan and a packed R-tree (one thread)",
        &["boxes", "work", "row", "hits", "ms", "vs flat", "vs R-tree"],
    );
    t.notes.push(format!(
        "data: box centres uniform in [0, 1000]^3, half extents uniform in 0.5..2.5; {QUERIES} box queries per pass with \
         centres uniform in the cube; the flat rows run {FLAT_QUERIES} of them and are scaled to {QUERIES}; `R-tree` is \
         `packed_spatial_index` 0.33 `SimdIndex3DF32` (built with `parallel(false)`, queried with `search_into` into a \
         reused Vec; its answers are unordered, ours ascending); bvlanes on {backend}, one thread; {} rounds, \
         interleaved, medians; ratios are of medians",
        ctx.rounds
    ));
    let (inside, outside) = frusta();
    let scenes: Vec<Scene> = sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            ctx.progress.note(&format!(
                "blocked: generating {n} boxes, blocked form and R-tree"
            ));
            scene(n, i + 1 == sizes.len())
        })
        .collect();
    let mut vs: Vec<Variant<'_>> = Vec::new();
    let mut checks = Vec::new();
    for s in &scenes {
        let n = s.n;
        for (label, qs) in &s.sets {
            let (ok, total) = check(s, qs, FLAT_QUERIES);
            checks.push((n, label.clone(), ok, total));
            let flat = &s.flat;
            vs.push(Variant::new(format!("{n} {label} flat"), 1, move |_| {
                let mut h = 0;
                for q in &qs[..FLAT_QUERIES] {
                    h += flat.count_hits(black_box(q));
                }
                h as u64
            }));
            let blocked = &s.blocked;
            vs.push(Variant::new(format!("{n} {label} count"), 1, move |_| {
                qs.iter()
                    .map(|q| blocked.count_hits(black_box(q)))
                    .sum::<usize>() as u64
            }));
            let mut out = Vec::new();
            vs.push(Variant::new(format!("{n} {label} hits"), 1, move |_| {
                let mut h = 0;
                for q in qs {
                    out.clear();
                    blocked.extend_hits(black_box(q), &mut out);
                    h += out.len();
                }
                h as u64
            }));
            let pinned = blocked
                .with_backend(backend)
                .expect("detected")
                .with_threads(1);
            vs.push(Variant::new(
                format!("{n} {label} many count"),
                1,
                move |_| {
                    pinned
                        .count_hits_many(black_box(qs))
                        .iter()
                        .map(|&c| u64::from(c))
                        .sum()
                },
            ));
            let mut lists = HitLists::default();
            vs.push(Variant::new(
                format!("{n} {label} many hits"),
                1,
                move |_| {
                    pinned.hits_many_into(black_box(qs), &mut lists);
                    lists.indices.len() as u64
                },
            ));
            let (spheres, blocked_spheres) = (&s.spheres, &s.blocked_spheres);
            vs.push(Variant::new(
                format!("{n} {label} spheres flat"),
                1,
                move |_| {
                    let mut h = 0;
                    for q in &qs[..FLAT_QUERIES] {
                        h += spheres.count_hits(&sphere_of(black_box(q)));
                    }
                    h as u64
                },
            ));
            vs.push(Variant::new(
                format!("{n} {label} spheres count"),
                1,
                move |_| {
                    qs.iter()
                        .map(|q| blocked_spheres.count_hits(&sphere_of(black_box(q))))
                        .sum::<usize>() as u64
                },
            ));
            let mut out = Vec::new();
            vs.push(Variant::new(
                format!("{n} {label} spheres hits"),
                1,
                move |_| {
                    let mut h = 0;
                    for q in qs {
                        out.clear();
                        blocked_spheres.extend_hits(&sphere_of(black_box(q)), &mut out);
                        h += out.len();
                    }
                    h as u64
                },
            ));
            let obbs = &s.obb_sets[s.sets.iter().position(|(l, _)| l == label).expect("a set")];
            vs.push(Variant::new(
                format!("{n} {label} obbs flat"),
                1,
                move |_| {
                    obbs[..FLAT_QUERIES]
                        .iter()
                        .map(|o| flat.count_hits(black_box(o)))
                        .sum::<usize>() as u64
                },
            ));
            vs.push(Variant::new(
                format!("{n} {label} obbs count"),
                1,
                move |_| {
                    obbs.iter()
                        .map(|o| blocked.count_hits(black_box(o)))
                        .sum::<usize>() as u64
                },
            ));
            let (oflat, oblocked) = (&s.obbs, &s.blocked_obbs);
            for kind in ["spheres", "obbs"] {
                vs.push(Variant::new(
                    format!("{n} {label} {kind} on obbs flat"),
                    1,
                    move |_| {
                        (0..FLAT_QUERIES)
                            .map(|i| match kind {
                                "spheres" => oflat.count_hits(&sphere_of(black_box(&qs[i]))),
                                _ => oflat.count_hits(black_box(&obbs[i])),
                            })
                            .sum::<usize>() as u64
                    },
                ));
                vs.push(Variant::new(
                    format!("{n} {label} {kind} on obbs count"),
                    1,
                    move |_| {
                        (0..QUERIES)
                            .map(|i| match kind {
                                "spheres" => oblocked.count_hits(&sphere_of(black_box(&qs[i]))),
                                _ => oblocked.count_hits(black_box(&obbs[i])),
                            })
                            .sum::<usize>() as u64
                    },
                ));
            }
            let tree = &s.tree;
            let mut out = Vec::new();
            vs.push(Variant::new(format!("{n} {label} rtree"), 1, move |_| {
                let mut h = 0;
                for q in qs {
                    out.clear();
                    tree.search_into(to_box3d(black_box(q)), &mut out);
                    h += out.len();
                }
                h as u64
            }));
        }
        let (flat, blocked) = (&s.flat, &s.blocked);
        for (label, fs) in [("inside", &inside), ("outside", &outside)] {
            vs.push(Variant::new(
                format!("{n} frusta {label} flat"),
                1,
                move |_| {
                    fs.iter()
                        .map(|f| flat.count_hits(black_box(f)))
                        .sum::<usize>() as u64
                },
            ));
            vs.push(Variant::new(
                format!("{n} frusta {label} count"),
                1,
                move |_| {
                    fs.iter()
                        .map(|f| blocked.count_hits(black_box(f)))
                        .sum::<usize>() as u64
                },
            ));
        }
        let items = &s.items;
        vs.push(Variant::new(format!("{n} build flat"), 1, move |_| {
            Aabbs::from_slice(black_box(items)).expect("valid").len() as u64
        }));
        vs.push(Variant::new(format!("{n} build blocked"), 1, move |_| {
            Blocked::new_with_threads(black_box(flat), 1).levels() as u64
        }));
        vs.push(Variant::new(
            format!("{n} build blocked all"),
            1,
            move |_| Blocked::new(black_box(flat)).levels() as u64,
        ));
        let obbs_flat = &s.obbs;
        vs.push(Variant::new(
            format!("{n} build blocked obbs"),
            1,
            move |_| Blocked::new_with_threads(black_box(obbs_flat), 1).levels() as u64,
        ));
        vs.push(Variant::new(format!("{n} build rtree"), 1, move |_| {
            rtree(black_box(items)).num_items() as u64
        }));
        // Refit: 1 % of the boxes moved by up to one unit and back, alternately (so the bounds
        // do not drift from pass to pass).
        let mut moving = s.blocked.clone();
        let mut r = rng(25, n as u64);
        let moved: Vec<(usize, Aabb, Aabb)> = (0..(n as f64 * MOVED) as usize)
            .map(|_| {
                let i = (unit(&mut r) * n as f64) as usize % n;
                let b = items[i];
                let d: [f32; 3] = [0; 3].map(|_| uniform(&mut r, -1.0, 1.0));
                let m = Aabb::new(
                    [0, 1, 2].map(|k| b.min[k] + d[k]),
                    [0, 1, 2].map(|k| b.max[k] + d[k]),
                );
                (i, m, b)
            })
            .collect();
        // The same moves as one batch (`set_many`), on a container of its own.
        let mut moving_many = moving.clone();
        let forth: Vec<(usize, Aabb)> = moved.iter().map(|&(i, m, _)| (i, m)).collect();
        let back_again: Vec<(usize, Aabb)> = moved.iter().map(|&(i, _, b)| (i, b)).collect();
        let mut back = false;
        vs.push(Variant::new(format!("{n} refit 1%"), 1, move |_| {
            for &(i, m, b) in &moved {
                moving.set(i, if back { b } else { m }).expect("valid");
            }
            back = !back;
            moving.levels() as u64
        }));
        let mut back = false;
        vs.push(Variant::new(format!("{n} refit 1% many"), 1, move |_| {
            moving_many
                .set_many(if back { &back_again } else { &forth })
                .expect("valid");
            back = !back;
            moving_many.levels() as u64
        }));
    }
    ctx.progress.note(&format!(
        "blocked: timing {} variants x {} rounds",
        vs.len(),
        ctx.rounds
    ));
    measure(&mut vs, ctx.rounds, ctx.slice);

    let scale = (QUERIES / FLAT_QUERIES) as f64;
    let ms = |label: &str| find(&vs, label).median() * 1e3;
    for s in &scenes {
        let n = s.n;
        let c: Vec<_> = checks.iter().filter(|(m, ..)| *m == n).collect();
        for (label, _) in &s.sets {
            let &&(_, _, ok, total) = c.iter().find(|(_, l, _, _)| l == label).expect("checked");
            if !ok {
                eprintln!("MISMATCH in blocked: {n} {label}");
                t.notes.push(format!(
                    "**MISMATCH**: {n} boxes, {label}: blocked hits differ from the flat scan's or the R-tree's"
                ));
            }
            let flat = ms(&format!("{n} {label} flat")) * scale;
            let tree = ms(&format!("{n} {label} rtree"));
            for (row, key) in [
                ("flat count_hits", "flat"),
                ("Blocked count_hits", "count"),
                ("Blocked extend_hits", "hits"),
                ("Blocked count_hits_many (one batch)", "many count"),
                ("Blocked hits_many_into (one batch)", "many hits"),
                ("R-tree search_into", "rtree"),
            ] {
                let v = if key == "flat" {
                    flat
                } else {
                    ms(&format!("{n} {label} {key}"))
                };
                t.push(vec![
                    Cell::count(n as u64),
                    Cell::text(format!("{QUERIES} boxes, {label}")),
                    Cell::text(row),
                    Cell::count(total),
                    Cell::num(v, sig3(v)),
                    Cell::times(flat / v),
                    Cell::times(tree / v),
                ]);
            }
            let sphere_hits: usize = s
                .sets
                .iter()
                .find(|(l, _)| l == label)
                .map(|(_, qs)| {
                    qs.iter()
                        .map(|q| s.blocked_spheres.count_hits(&sphere_of(q)))
                        .sum()
                })
                .unwrap_or(0);
            let same = s
                .sets
                .iter()
                .find(|(l, _)| l == label)
                .is_some_and(|(_, qs)| {
                    qs[..FLAT_QUERIES].iter().all(|q| {
                        let sq = sphere_of(q);
                        s.blocked_spheres.hits(&sq).eq(s.spheres.hits(&sq))
                    })
                });
            if !same {
                eprintln!("MISMATCH in blocked: {n} {label} spheres");
                t.notes.push(format!(
                    "**MISMATCH**: {n} spheres, {label}: blocked hits differ from the flat scan's"
                ));
            }
            let sflat = ms(&format!("{n} {label} spheres flat")) * scale;
            for (row, key) in [
                ("flat Spheres count_hits", "flat"),
                ("Blocked<Spheres> count_hits", "count"),
                ("Blocked<Spheres> extend_hits", "hits"),
            ] {
                let v = if key == "flat" {
                    sflat
                } else {
                    ms(&format!("{n} {label} spheres {key}"))
                };
                t.push(vec![
                    Cell::count(n as u64),
                    Cell::text(format!("{QUERIES} spheres (radius = {label}) on spheres")),
                    Cell::text(row),
                    Cell::count(sphere_hits as u64),
                    Cell::num(v, sig3(v)),
                    Cell::times(sflat / v),
                    Cell::Empty,
                ]);
            }
            let obbs = &s.obb_sets[s.sets.iter().position(|(l, _)| l == label).expect("a set")];
            let obb_hits: usize = obbs.iter().map(|o| s.blocked.count_hits(o)).sum();
            if !obbs[..FLAT_QUERIES]
                .iter()
                .all(|o| s.blocked.hits(o).eq(s.flat.hits(o)))
            {
                eprintln!("MISMATCH in blocked: {n} {label} oriented boxes");
                t.notes.push(format!(
                    "**MISMATCH**: {n} boxes, {label} oriented boxes: blocked hits differ from the flat scan's"
                ));
            }
            let oflat = ms(&format!("{n} {label} obbs flat")) * scale;
            let he = obbs.first().map_or([0.0; 3], |o| o.half_extents);
            for (row, v) in [
                ("flat count_hits", oflat),
                ("Blocked count_hits", ms(&format!("{n} {label} obbs count"))),
            ] {
                t.push(vec![
                    Cell::count(n as u64),
                    Cell::text(format!(
                        "{QUERIES} oriented boxes (half extents {}, {}, {})",
                        he[0], he[1], he[2]
                    )),
                    Cell::text(row),
                    Cell::count(obb_hits as u64),
                    Cell::num(v, sig3(v)),
                    Cell::times(oflat / v),
                    Cell::Empty,
                ]);
            }
            let qs = &s.sets[s.sets.iter().position(|(l, _)| l == label).expect("a set")].1;
            for kind in ["spheres", "obbs"] {
                let count = |b: &Blocked<Obbs>, i: usize| match kind {
                    "spheres" => b.count_hits(&sphere_of(&qs[i])),
                    _ => b.count_hits(&obbs[i]),
                };
                let hits: usize = (0..QUERIES).map(|i| count(&s.blocked_obbs, i)).sum();
                let same = (0..FLAT_QUERIES).all(|i| match kind {
                    "spheres" => {
                        let q = sphere_of(&qs[i]);
                        s.blocked_obbs.hits(&q).eq(s.obbs.hits(&q))
                    }
                    _ => s.blocked_obbs.hits(&obbs[i]).eq(s.obbs.hits(&obbs[i])),
                });
                if !same {
                    eprintln!("MISMATCH in blocked: {n} {label} {kind} on oriented boxes");
                    t.notes.push(format!(
                        "**MISMATCH**: {n} oriented boxes, {label} {kind}: blocked hits differ from the flat scan's"
                    ));
                }
                let work = match kind {
                    "spheres" => format!("{QUERIES} spheres (radius = {label}) on oriented boxes"),
                    _ => format!(
                        "{QUERIES} oriented boxes (half extents {}, {}, {}) on oriented boxes",
                        he[0], he[1], he[2]
                    ),
                };
                let flat = ms(&format!("{n} {label} {kind} on obbs flat")) * scale;
                for (row, v) in [
                    ("flat Obbs count_hits", flat),
                    (
                        "Blocked<Obbs> count_hits",
                        ms(&format!("{n} {label} {kind} on obbs count")),
                    ),
                ] {
                    t.push(vec![
                        Cell::count(n as u64),
                        Cell::text(work.clone()),
                        Cell::text(row),
                        Cell::count(hits as u64),
                        Cell::num(v, sig3(v)),
                        Cell::times(flat / v),
                        Cell::Empty,
                    ]);
                }
            }
            let hits = ms(&format!("{n} {label} hits"));
            let limit = match (n, label.as_str()) {
                (100_000, "half extent 5") => Some(0.3),
                (1_000_000, "half extent 5") => Some(0.7),
                (1_000_000, "half extent 50") => Some(4.0),
                _ => None,
            };
            if let Some(limit) = limit {
                targets.push(Target {
                    what: format!(
                        "blocked: {QUERIES} box queries ({label}) over {n} boxes, extend_hits, one thread <= {limit} ms (issue 22)"
                    ),
                    measured: format!("{} ms", sig3(hits)),
                    met: hits <= limit,
                });
                // The same target as a ratio in this run: the issue set its limits at about
                // half the R-tree's time as it measured it (0.58, 1.4 and 8.4 ms) on another
                // processor.
                let x = ms(&format!("{n} {label} rtree")) / hits;
                targets.push(Target {
                    what: format!(
                        "blocked: {QUERIES} box queries ({label}) over {n} boxes, extend_hits, one thread >= 2x the R-tree's speed in the same run (issue 22)"
                    ),
                    measured: format!("{}x", sig3_vs(x, 2.0)),
                    met: x >= 2.0,
                });
            }
        }
        for label in ["inside", "outside"] {
            let flat = ms(&format!("{n} frusta {label} flat"));
            let blocked = ms(&format!("{n} frusta {label} count"));
            let fs = if label == "inside" { &inside } else { &outside };
            let hits: usize = fs.iter().map(|f| s.flat.count_hits(f)).sum();
            let same = fs
                .iter()
                .all(|f| s.blocked.count_hits(f) == s.flat.count_hits(f));
            if !same {
                eprintln!("MISMATCH in blocked: {n} frusta {label}");
                t.notes.push(format!(
                    "**MISMATCH**: {n} boxes, frusta {label}: blocked counts differ from the flat scan's"
                ));
            }
            for (row, v) in [("flat count_hits", flat), ("Blocked count_hits", blocked)] {
                t.push(vec![
                    Cell::count(n as u64),
                    Cell::text(format!(
                        "{FRUSTA} frusta {label} ({:.1} % reported)",
                        100.0 * hits as f64 / (FRUSTA * n) as f64
                    )),
                    Cell::text(row),
                    Cell::count(hits as u64),
                    Cell::num(v, sig3(v)),
                    Cell::times(flat / v),
                    Cell::Empty,
                ]);
            }
            if n == 1_000_000 {
                let (what, met) = if label == "inside" {
                    ("<= 25 ms".to_owned(), blocked <= 25.0)
                } else {
                    ("no slower than the flat scan".to_owned(), blocked <= flat)
                };
                targets.push(Target {
                    what: format!("blocked: {FRUSTA} frusta {label} the cloud over {n} boxes {what} (issue 22)"),
                    measured: format!("{} ms (flat {} ms)", sig3(blocked), sig3(flat)),
                    met,
                });
            }
        }
        let tree = ms(&format!("{n} build rtree"));
        for (row, key) in [
            ("Aabbs::from_slice", "flat"),
            ("Blocked::new_with_threads(_, 1) (one thread)", "blocked"),
            ("Blocked::new (all threads)", "blocked all"),
            ("R-tree build", "rtree"),
            (
                "Blocked::new_with_threads(_, 1) of the Obbs (one thread)",
                "blocked obbs",
            ),
        ] {
            let v = ms(&format!("{n} build {key}"));
            // The R-tree is built over the boxes, not the oriented boxes.
            let vs_tree = if key == "blocked obbs" {
                Cell::Empty
            } else {
                Cell::times(tree / v)
            };
            t.push(timed_row(n, "build", row, v, vs_tree));
        }
        let each = ms(&format!("{n} refit 1%"));
        let refit = ms(&format!("{n} refit 1% many"));
        for (row, v) in [
            ("Blocked::set each", each),
            ("Blocked::set_many (one batch)", refit),
        ] {
            t.push(timed_row(n, "1 % of the boxes moved", row, v, Cell::Empty));
        }
        if n == 1_000_000 {
            let build = ms(&format!("{n} build blocked"));
            targets.push(Target {
                what: format!("blocked: build of {n} boxes <= 40 ms, one thread (issue 22)"),
                measured: format!("{} ms", sig3(build)),
                met: build <= 40.0,
            });
            targets.push(Target {
                what: format!(
                    "blocked: refit after 1 % of {n} boxes moved (set_many) <= 1 ms (issue 22)"
                ),
                measured: format!("{} ms", sig3(refit)),
                met: refit <= 1.0,
            });
        }
    }
    for (n, label, ok, _) in &checks {
        if *ok {
            t.notes.push(format!(
                "{n} boxes, {label}: checked before timing: for every query the blocked hits equal the R-tree's (as \
                 sets), and for the first {FLAT_QUERIES} the flat scan's, index by index; the batch forms' lists equal the \
                 one-query lists"
            ));
        }
    }
    vec![t]
}

/// A row of `n` boxes without hits or a flat ratio: its work, its name, its time `ms` and its
/// ratio to the R-tree (or nothing).
fn timed_row(n: usize, work: &str, row: &str, ms: f64, vs_tree: Cell) -> Vec<Cell> {
    vec![
        Cell::count(n as u64),
        Cell::text(work),
        Cell::text(row),
        Cell::Empty,
        Cell::num(ms, sig3(ms)),
        Cell::Empty,
        vs_tree,
    ]
}
