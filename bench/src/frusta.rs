//! The frusta table (issue 20, "Many queries at once"): the six 90-degree faces of a cube map
//! (a point light's shadow map, a reflection probe) against 1,000,000 spheres and against
//! 1,000,000 boxes, as one batch against six one-frustum scans, on every tier.
//!
//! Data: the `limit` table's generator (`benches/common`, `gen_boxes`: boxes uniform in
//! `[-100, 100]^3`, half extents `0.25..2.5`; the spheres are their centres with the mean half
//! extent as radius, as in the `limit` frustum rows), [`SETS`] data sets in rotation, each pass on
//! the next. Frusta: `Frustum::from_view_projection` of the six faces' view-projection matrices
//! (right-handed look-at from one point inside the data, a 90-degree perspective, aspect 1, near
//! 0.1, far 60, depth 0..1), so together they cover the cube of side 120 around that point.
//!
//! Rows, per container and tier: `count_hits` once per face (six scans) and `count_hits_many` of
//! the six (one batch); `extend_hits` once per face into one reused `Vec` and `hits_many_into` a
//! reused `HitLists`; and the plain SIMD sum over the container's columns (the `limit` table's
//! bandwidth limit).

use crate::Ctx;
use crate::common::{
    FrustumVsSpheres, Line, Pair, gen_boxes, plain_sum_columns, plain_sum_isa, to_columns,
};
use crate::report::{Cell, Table, sig3};
use crate::sampler::{Variant, find, measure, ratio};
use crate::svg::{Chart, Series};
use bvlanes::{Aabb, Aabbs, Backend, Container, Frustum, HitLists, Pinned, Query, Sphere, Spheres};
use std::hint::black_box;

/// Primitives per container by default (`--n`).
pub const DEFAULT_PRIMS: usize = 1_000_000;
/// Data sets in rotation: two, so no pass runs on the data of the pass before it, and
/// calibration (at least one pass per set and variant) stays short. (At 1,000,000 primitives a
/// set is 16 MB of spheres or 24 MB of boxes: within a 32 MB L3, the six scans after the first
/// read much of it from there.)
const SETS: usize = 2;
/// The cube map's centre (inside the data) and depth range.
const EYE: [f64; 3] = [10.0, -5.0, 20.0];
const NEAR: f64 = 0.1;
const FAR: f64 = 60.0;
/// The faces' forward and up vectors, in the order +X, -X, +Y, -Y, +Z, -Z (Direct3D's and
/// Vulkan's cube-map faces).
const FACES: [([f64; 3], [f64; 3]); 6] = [
    ([1.0, 0.0, 0.0], [0.0, -1.0, 0.0]),
    ([-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]),
    ([0.0, 1.0, 0.0], [0.0, 0.0, 1.0]),
    ([0.0, -1.0, 0.0], [0.0, 0.0, -1.0]),
    ([0.0, 0.0, 1.0], [0.0, -1.0, 0.0]),
    ([0.0, 0.0, -1.0], [0.0, -1.0, 0.0]),
];

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The six faces' frusta: `Frustum::from_view_projection(projection * view)`, the view a
/// right-handed look-at from [`EYE`], the projection a 90-degree perspective (glam's
/// `perspective_rh`: depth 0..1), column-major as a GPU uniform holds it.
pub fn cube_map() -> [Frustum; 6] {
    FACES.map(|(f, up)| {
        let s = cross(f, up);
        let u = cross(s, f);
        // Row-major view and projection.
        let view = [
            [s[0], s[1], s[2], -dot(s, EYE)],
            [u[0], u[1], u[2], -dot(u, EYE)],
            [-f[0], -f[1], -f[2], dot(f, EYE)],
            [0.0, 0.0, 0.0, 1.0],
        ];
        let r = FAR / (NEAR - FAR);
        let proj = [
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, r, r * NEAR],
            [0.0, 0.0, -1.0, 0.0],
        ];
        let m: [[f64; 4]; 4] = std::array::from_fn(|i| {
            std::array::from_fn(|j| (0..4).map(|k| proj[i][k] * view[k][j]).sum())
        });
        // Column-major: `cols[col][row]`.
        let cols: [[f32; 4]; 4] = std::array::from_fn(|c| std::array::from_fn(|r| m[r][c] as f32));
        Frustum::from_view_projection(cols).expect("a finite, non-degenerate cube-map face")
    })
}

/// One container kind: its sets, their columns (for the plain sum) and the f64 check.
struct Kind<C> {
    name: &'static str,
    bytes: usize,
    sets: Vec<C>,
    cols: Vec<Vec<Vec<Line>>>,
    /// Hits of the six frusta on set 0 by an f64 plane test: primitives passing every plane by
    /// more than [`TOL`], and passing every plane within [`TOL`].
    brute: (u64, u64),
}

/// Slack of the f64 plane test (the kernels' rounding margin is below 2e-4 on these data).
const TOL: f64 = 1e-3;

fn plane(p: &[f32; 4]) -> ([f64; 3], f64) {
    ([p[0], p[1], p[2]].map(f64::from), f64::from(p[3]))
}

/// The f64 plane test over `n` primitives: `dist(i, plane)` is how far primitive `i` is inside
/// the plane (negative: beyond it); the counts of [`Kind::brute`].
fn brute(frusta: &[Frustum], n: usize, dist: impl Fn(usize, [f64; 3], f64) -> f64) -> (u64, u64) {
    let (mut lo, mut hi) = (0, 0);
    for f in frusta {
        let planes = f.planes.map(|p| plane(&p));
        for i in 0..n {
            let worst = planes
                .iter()
                .map(|&(nrm, d)| dist(i, nrm, d))
                .fold(f64::INFINITY, f64::min);
            lo += u64::from(worst > TOL);
            hi += u64::from(worst >= -TOL);
        }
    }
    (lo, hi)
}

/// The two kinds, their [`SETS`] sets of `n` primitives each built on its own thread.
fn generate(n: usize, frusta: &[Frustum]) -> (Kind<Spheres>, Kind<Aabbs>) {
    let built: Vec<(Vec<Sphere>, Vec<Aabb>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..SETS)
            .map(|set| {
                scope.spawn(move || {
                    let boxes = gen_boxes(n, set);
                    let spheres: Vec<Sphere> =
                        boxes.iter().map(<FrustumVsSpheres as Pair>::prim).collect();
                    (spheres, boxes)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("data generation does not panic"))
            .collect()
    });
    let (s0, b0) = &built[0];
    let spheres = Kind {
        name: "Spheres",
        bytes: size_of::<Sphere>(),
        brute: brute(frusta, n, |i, nrm, d| {
            let s = &s0[i];
            dot(nrm, s.center.map(f64::from)) + d + f64::from(s.radius) * dot(nrm, nrm).sqrt()
        }),
        sets: built
            .iter()
            .map(|(s, _)| Spheres::from_slice(s).expect("generated spheres are valid"))
            .collect(),
        cols: built
            .iter()
            .map(|(s, _)| to_columns(bytemuck::cast_slice(s), 4))
            .collect(),
    };
    let aabbs = Kind {
        name: "Aabbs",
        bytes: size_of::<Aabb>(),
        brute: brute(frusta, n, |i, nrm, d| {
            let b = &b0[i];
            let p = [0, 1, 2].map(|k| f64::from(if nrm[k] >= 0.0 { b.max[k] } else { b.min[k] }));
            dot(nrm, p) + d
        }),
        sets: built
            .iter()
            .map(|(_, b)| Aabbs::from_slice(b).expect("generated boxes are valid"))
            .collect(),
        cols: built
            .iter()
            .map(|(_, b)| to_columns(bytemuck::cast_slice(b), 6))
            .collect(),
    };
    (spheres, aabbs)
}

/// The rows of one container and tier, in table order.
const ROWS: [&str; 4] = [
    "6 x count_hits",
    "count_hits_many (one batch)",
    "6 x extend_hits",
    "hits_many_into (one batch)",
];

/// The one-query row a row is compared with (its own for the one-query rows).
fn twin(row: usize) -> usize {
    row & !1
}

/// One pass of row `row` over `p`; the total hits.
fn pass<C: Container>(
    row: usize,
    p: Pinned<'_, C>,
    frusta: &[Frustum],
    out: &mut Vec<u32>,
    lists: &mut HitLists,
) -> u64
where
    Frustum: Query<C>,
{
    // One thread, as the six scans: the ratio is then what one pass over the data saves.
    let p = p.with_threads(1);
    let n = match row {
        0 => frusta.iter().map(|f| p.count_hits(black_box(f))).sum(),
        1 => p
            .count_hits_many(black_box(frusta))
            .iter()
            .map(|&c| c as usize)
            .sum(),
        2 => {
            out.clear();
            for f in frusta {
                p.extend_hits(black_box(f), out);
            }
            black_box(&*out).len()
        }
        _ => {
            p.hits_many_into(black_box(frusta), lists);
            black_box(&*lists).indices.len()
        }
    };
    n as u64
}

/// Runs every row once on set 0 on every tier: the hits each row reports (its own pass's
/// total, per tier), and whether every row and tier agree with the scalar tier's one-query
/// `hits`, face by face and index by index, and the total lies within [`Kind::brute`].
fn check<C: Container>(
    k: &Kind<C>,
    frusta: &[Frustum],
    backends: &[Backend],
) -> (Vec<[u64; 4]>, bool)
where
    Frustum: Query<C>,
{
    let c = &k.sets[0];
    let scalar = Pinned::new(c, Backend::Scalar).expect("the scalar tier runs");
    let want: Vec<Vec<u32>> = frusta.iter().map(|f| scalar.hits(f).collect()).collect();
    let total = want.iter().map(Vec::len).sum::<usize>() as u64;
    let mut ok = k.brute.0 <= total && total <= k.brute.1;
    let mut rows = Vec::new();
    for &b in backends {
        let p = Pinned::new(c, b).expect("available");
        let (mut out, mut lists) = (Vec::new(), HitLists::default());
        rows.push(std::array::from_fn(|row| {
            pass(row, p, frusta, &mut out, &mut lists)
        }));
        // The passes' outputs, face by face: the last extend pass's Vec, the last batch's lists.
        let mut at = 0;
        for w in &want {
            ok &= out.get(at..at + w.len()) == Some(w.as_slice());
            at += w.len();
        }
        ok &= at == out.len();
        ok &=
            lists.queries() == frusta.len() && (0..frusta.len()).all(|q| lists.query(q) == want[q]);
        ok &= p
            .count_hits_many(frusta)
            .iter()
            .zip(&want)
            .all(|(&c, w)| c as usize == w.len());
        ok &= frusta
            .iter()
            .zip(&want)
            .all(|(f, w)| p.count_hits(f) == w.len());
    }
    (rows, ok)
}

/// The variants of one kind: every row on every tier, then the plain sum.
fn variants<'a, C: Container>(
    vs: &mut Vec<Variant<'a>>,
    k: &'a Kind<C>,
    frusta: &'a [Frustum],
    backends: &[Backend],
) where
    Frustum: Query<C>,
{
    for &b in backends {
        let pins: Vec<Pinned<'a, C>> = k
            .sets
            .iter()
            .map(|c| Pinned::new(c, b).expect("available"))
            .collect();
        for (row, label) in ROWS.iter().enumerate() {
            let pins = pins.clone();
            let (mut out, mut lists) = (Vec::new(), HitLists::default());
            vs.push(Variant::new(
                format!("{} {b} {label}", k.name),
                SETS,
                move |s| pass(row, pins[s], frusta, &mut out, &mut lists),
            ));
        }
    }
    vs.push(Variant::new(format!("{} sum", k.name), SETS, move |s| {
        u64::from(black_box(plain_sum_columns(black_box(&k.cols[s]))).to_bits())
    }));
}

/// The frusta table.
pub fn run(ctx: &Ctx<'_>) -> Vec<Table> {
    let n = ctx.n.unwrap_or(DEFAULT_PRIMS);
    let frusta = cube_map();
    ctx.progress.note(&format!(
        "frusta: generating {SETS} sets of {n} spheres and boxes"
    ));
    let (spheres, aabbs) = generate(n, &frusta);
    ctx.progress
        .note("frusta: checking every row on every tier");
    let checks = [
        check(&spheres, &frusta, &ctx.backends),
        check(&aabbs, &frusta, &ctx.backends),
    ];
    let mut vs: Vec<Variant<'_>> = Vec::new();
    variants(&mut vs, &spheres, &frusta, &ctx.backends);
    variants(&mut vs, &aabbs, &frusta, &ctx.backends);
    ctx.progress.note(&format!(
        "frusta: timing {} variants x {} rounds",
        vs.len(),
        ctx.rounds
    ));
    measure(&mut vs, ctx.rounds, ctx.slice);

    let mut t = Table::new(
        "frusta",
        format!(
            "Six frusta (a cube map) against {n} spheres and {n} boxes: one batch against six one-frustum scans"
        ),
        &[
            "container",
            "tier",
            "row",
            "hits (6 faces)",
            "ms",
            "M tests/s",
            "GB/s tested",
            "/ plain sum",
            "vs six scans",
        ],
    );
    t.notes.push(format!(
        "data: the limit table's generator (boxes uniform in [-100, 100]^3, half extents 0.25..2.5; spheres: their \
         centres, radius the mean half extent), {SETS} sets of {n} in rotation; frusta: `Frustum::from_view_projection` \
         of the six faces of a cube map at ({}, {}, {}): right-handed look-at, 90-degree perspective, aspect 1, near {NEAR}, \
         far {FAR}, depth 0..1",
        EYE[0], EYE[1], EYE[2]
    ));
    t.notes.push(format!(
        "a pass = all six frusta against one set: six one-frustum calls (`extend_hits` appends to one reused Vec) or one \
         batch (`hits_many_into` reuses a HitLists); M tests/s = 6 x {n} / time; GB/s tested = 6 x the container's bytes / \
         time; `/ plain sum` = that over a plain {} sum streaming the container's columns once (above 100 %: faster than \
         six passes at the bandwidth limit); `vs six scans` = the six one-frustum calls' time over the row's (count rows \
         against 6 x count_hits, index rows against 6 x extend_hits), a median of per-round ratios; {} rounds, \
         interleaved, medians",
        plain_sum_isa(),
        ctx.rounds
    ));
    for (k, (rows, ok), brute) in [
        (spheres.name, &checks[0], spheres.brute),
        (aabbs.name, &checks[1], aabbs.brute),
    ] {
        if *ok {
            t.notes.push(format!(
                "{k}: checked on set 0 before timing: on every tier each row's hits equal the scalar tier's one-query \
                 `hits`, face by face and index by index ({} in all), and an f64 plane test puts them in [{}, {}]; the \
                 hits column is each row's own pass on set 0",
                rows[0][0], brute.0, brute.1
            ));
        } else {
            eprintln!("MISMATCH in frusta: {k}");
            t.notes.push(format!(
                "**MISMATCH**: {k}: a row or tier disagrees with the scalar tier's one-query hits, or with the f64 \
                 plane test"
            ));
        }
    }
    let tests = 6.0 * n as f64;
    let mut series: Vec<Series> = Vec::new();
    let mut groups: Vec<String> = Vec::new();
    for (ki, (name, bytes, (hits, _))) in [
        (spheres.name, spheres.bytes, &checks[0]),
        (aabbs.name, aabbs.bytes, &checks[1]),
    ]
    .into_iter()
    .enumerate()
    {
        let sum = find(&vs, &format!("{name} sum"));
        for (bi, &b) in ctx.backends.iter().enumerate() {
            for (row, label) in ROWS.iter().enumerate() {
                let v = find(&vs, &format!("{name} {b} {label}"));
                let base = find(&vs, &format!("{name} {b} {}", ROWS[twin(row)]));
                let secs = v.median();
                let gbs = tests * bytes as f64 / secs / 1e9;
                t.push(vec![
                    Cell::text(name),
                    Cell::text(b.name()),
                    Cell::text(*label),
                    Cell::count(hits[bi][row]),
                    Cell::num(secs * 1e3, format!("{:.2}", secs * 1e3)),
                    Cell::num(tests / secs / 1e6, sig3(tests / secs / 1e6)),
                    Cell::num(gbs, sig3(gbs)),
                    Cell::pct(6.0 * ratio(sum, v), 0),
                    Cell::times(ratio(base, v)),
                ]);
                if bi == 0 {
                    groups.push(format!("{name} {label}"));
                }
                if ki == 0 && row == 0 {
                    series.push(Series {
                        name: b.name().to_owned(),
                        values: Vec::new(),
                    });
                }
                series[bi].values.push(Some(tests / secs / 1e6));
            }
        }
        let secs = sum.median();
        let gbs = n as f64 * bytes as f64 / secs / 1e9;
        t.push(vec![
            Cell::text(name),
            Cell::text("—"),
            Cell::text(format!(
                "plain {} sum, one pass ({gbs:.1} GB/s)",
                plain_sum_isa()
            )),
            Cell::Empty,
            Cell::num(secs * 1e3, format!("{:.2}", secs * 1e3)),
            Cell::Empty,
            Cell::num(gbs, sig3(gbs)),
            Cell::Empty,
            Cell::Empty,
        ]);
    }
    t.chart = Some(Chart {
        title: format!("Six cube-map frusta x {n} primitives: one batch against six scans"),
        subtitle: "higher is better".to_owned(),
        y_label: "million tests per second".to_owned(),
        groups,
        series,
        log_y: false,
    });
    vec![t]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_face_sees_its_own_direction_only() {
        let frusta = cube_map();
        for (i, (f, _)) in FACES.iter().enumerate() {
            let at = |t: f64| Sphere::new([0, 1, 2].map(|k| (EYE[k] + t * f[k]) as f32), 0.5);
            let probes = Spheres::from_slice(&[at(30.0), at(-30.0), at(59.0), at(61.0)])
                .expect("valid spheres");
            for (j, g) in frusta.iter().enumerate() {
                let hits: Vec<u32> = probes.hits(g).collect();
                // 30 and 59 units ahead are inside (far 60), 61 ahead beyond the far plane;
                // 30 behind is inside the opposite face (faces come in pairs +X, -X, ...).
                let expect: &[u32] = match j {
                    _ if j == i => &[0, 2],
                    _ if j == i ^ 1 => &[1],
                    _ => &[],
                };
                assert_eq!(hits, expect, "face {j}, probes along face {i}");
            }
        }
    }
}
