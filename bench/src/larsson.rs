//! Tables 1 and 2 of seed 000 (Larsson, Akenine-Möller, Lengyel, "On Faster Sphere-Box Overlap
//! Testing", JGT 2007), regenerated: `n` independent (sphere i, box i) pairs per overlap setting,
//! timed for the seed's one-vs-one tests and for `bvlanes::pairwise` on every tier.
//!
//! Data (REFERENCES.md): in a cube of half-side 100, sphere radii and box half-extents uniform in
//! `[lo, hi]`, every primitive fully inside the cube; `(lo, hi)` = (1, 32.5), (1, 55), (1, 77.5),
//! (13.5, 85), (28, 99) give about 5/25/50/75/95 % overlap. Table 2 draws its boxes the same way
//! and rotates each about its centre, uniformly at random.

use crate::common::{Line, plain_sum_columns, to_columns};
use crate::data::{rng, rotation, uniform};
use crate::report::{Cell, Table, Target, sig3, sig3_vs};
use crate::sampler::{Variant, find, measure, ratio};
use crate::svg::{Chart, Series};
use crate::{Ctx, bvlanes_pairs_label};
use bvlanes::pairwise::PairsOn;
use bvlanes::{Aabb, Aabbs, Backend, Obb, Obbs, Sphere, Spheres, seeds};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::hint::black_box;

/// The five `(lo, hi)` settings and the overlap frequency the paper reports for each.
pub const SETTINGS: [(f64, f64, &str); 5] = [
    (1.0, 32.5, "5 %"),
    (1.0, 55.0, "25 %"),
    (1.0, 77.5, "50 %"),
    (13.5, 85.0, "75 %"),
    (28.0, 99.0, "95 %"),
];

/// The paper's Error row (false positives of Cons relative to true overlaps), per setting.
const PAPER_ERROR: [[&str; 5]; 2] = [
    ["17 %", "11 %", "4.3 %", "1.6 %", "0.3 %"],
    ["17 %", "11 %", "4.6 %", "1.8 %", "0.3 %"],
];

/// Pairs per data set by default (the paper's two million).
pub const DEFAULT_PAIRS: usize = 2_000_000;

/// Data sets per setting: every timed loop alternates between them.
const SETS: usize = 2;

/// Half the side of the cube.
const HALF_SIDE: f64 = 100.0;

/// One box type of the two tables.
trait Kind {
    /// Table id.
    const ID: &'static str;
    /// Table number and what it tests.
    const TITLE: &'static str;
    /// Index into [`PAPER_ERROR`].
    const PAPER: usize;
    /// The seed methods' names, Cons last.
    const METHODS: [&'static str; 5];
    /// The box primitive.
    type Prim: bytemuck::Pod + Send;
    /// Its container.
    type Boxes;
    /// A random box with half extents in `[lo, hi]`, fully inside the cube.
    fn random_box(rng: &mut Xoshiro256PlusPlus, lo: f64, hi: f64) -> Self::Prim;
    /// The container of `prims`.
    fn boxes(prims: &[Self::Prim]) -> Self::Boxes;
    /// Seed method `m` over all pairs: the number of overlaps.
    fn seed_count(m: usize, s: &[Sphere], b: &[Self::Prim]) -> u64;
    /// `bvlanes::pairwise` on `backend`: the number of overlaps.
    fn pairs_count(on: &PairsOn, s: &Spheres, b: &Self::Boxes) -> u64;
    /// The squared distance from `c` to the box and `r^2`, in f64 (the brute-force reference).
    fn dist2_f64(c: [f32; 3], b: &Self::Prim) -> f64;
}

/// One seed method over every pair, in a plain loop (monomorphised per method, so the test
/// inlines as it would in the paper's code).
#[inline(never)]
fn count_loop<B>(s: &[Sphere], b: &[B], test: impl Fn(&Sphere, &B) -> bool) -> u64 {
    let mut n = 0;
    for (s, b) in s.iter().zip(b) {
        if test(s, b) {
            n += 1;
        }
    }
    n
}

struct AabbKind;
struct ObbKind;

impl Kind for AabbKind {
    const ID: &'static str = "larsson-aabb";
    const TITLE: &'static str = "Table 1 of seed 000: sphere-AABB";
    const PAPER: usize = 0;
    const METHODS: [&'static str; 5] = ["Arvo", "QRI", "QRF", "branch-free (paper's SSE)", "Cons"];
    type Prim = Aabb;
    type Boxes = Aabbs;

    fn random_box(rng: &mut Xoshiro256PlusPlus, lo: f64, hi: f64) -> Aabb {
        let (mut min, mut max) = ([0.0; 3], [0.0; 3]);
        for axis in 0..3 {
            let h = f64::from(uniform(rng, lo, hi));
            let c = f64::from(uniform(rng, -HALF_SIDE + h, HALF_SIDE - h));
            min[axis] = (c - h) as f32;
            max[axis] = (c + h) as f32;
        }
        Aabb::new(min, max)
    }

    fn boxes(prims: &[Aabb]) -> Aabbs {
        Aabbs::from_slice(prims).expect("generated boxes are valid")
    }

    fn seed_count(m: usize, s: &[Sphere], b: &[Aabb]) -> u64 {
        macro_rules! run {
            ($f:path) => {
                count_loop(s, b, |s, b| $f(s.center, s.radius, b.min, b.max))
            };
        }
        match m {
            0 => run!(seeds::sphere_aabb_arvo),
            1 => run!(seeds::sphere_aabb_qri),
            2 => run!(seeds::sphere_aabb_qrf),
            3 => run!(seeds::sphere_aabb_branch_free),
            _ => run!(seeds::sphere_aabb_conservative),
        }
    }

    fn pairs_count(on: &PairsOn, s: &Spheres, b: &Aabbs) -> u64 {
        on.count_overlaps(s, b).expect("equal lengths") as u64
    }

    fn dist2_f64(c: [f32; 3], b: &Aabb) -> f64 {
        (0..3)
            .map(|i| {
                let (c, lo, hi) = (f64::from(c[i]), f64::from(b.min[i]), f64::from(b.max[i]));
                let e = (lo - c).max(c - hi).max(0.0);
                e * e
            })
            .sum()
    }
}

impl Kind for ObbKind {
    const ID: &'static str = "larsson-obb";
    const TITLE: &'static str = "Table 2 of seed 000: sphere-OBB";
    const PAPER: usize = 1;
    const METHODS: [&'static str; 5] =
        ["G-Arvo", "QRI", "QRF", "branch-free (paper's SSE)", "Cons"];
    type Prim = Obb;
    type Boxes = Obbs;

    fn random_box(rng: &mut Xoshiro256PlusPlus, lo: f64, hi: f64) -> Obb {
        // Drawn as Table 1's boxes (centre range from the unrotated half extents), then rotated
        // about the centre: the overlap frequencies then land on the paper's, as its Error row
        // (close to Table 1's) suggests it did. A rotated box may poke out of the cube a little.
        let h = [0; 3].map(|_| uniform(rng, lo, hi));
        let center = h.map(|h| {
            let h = f64::from(h);
            uniform(rng, -HALF_SIDE + h, HALF_SIDE - h)
        });
        Obb::new(center, h, rotation(rng))
    }

    fn boxes(prims: &[Obb]) -> Obbs {
        Obbs::from_slice(prims).expect("generated oriented boxes are valid")
    }

    fn seed_count(m: usize, s: &[Sphere], b: &[Obb]) -> u64 {
        macro_rules! run {
            ($f:path) => {
                count_loop(s, b, |s, b| $f(s.center, s.radius, b))
            };
        }
        match m {
            0 => run!(seeds::sphere_obb_garvo),
            1 => run!(seeds::sphere_obb_qri),
            2 => run!(seeds::sphere_obb_qrf),
            3 => run!(seeds::sphere_obb_branch_free),
            _ => run!(seeds::sphere_obb_conservative),
        }
    }

    fn pairs_count(on: &PairsOn, s: &Spheres, b: &Obbs) -> u64 {
        on.count_overlaps(s, b).expect("equal lengths") as u64
    }

    fn dist2_f64(c: [f32; 3], b: &Obb) -> f64 {
        let v = [0, 1, 2].map(|i| f64::from(c[i]) - f64::from(b.center[i]));
        (0..3)
            .map(|k| {
                let a = b.axes[k].map(f64::from);
                let t = v[0] * a[0] + v[1] * a[1] + v[2] * a[2];
                let h = f64::from(b.half_extents[k]);
                let e = (t.abs() - h).max(0.0);
                e * e
            })
            .sum()
    }
}

/// One setting's data sets.
struct Data<K: Kind> {
    spheres: Vec<Vec<Sphere>>,
    boxes: Vec<Vec<K::Prim>>,
    soa_spheres: Vec<Spheres>,
    soa_boxes: Vec<K::Boxes>,
    /// Sphere then box values as 64-byte-aligned columns (the containers' layout), for the
    /// plain sum.
    cols: Vec<Vec<Vec<Line>>>,
}

fn generate<K: Kind>(setting: usize, n: usize) -> Data<K> {
    let mut d = Data {
        spheres: Vec::new(),
        boxes: Vec::new(),
        soa_spheres: Vec::new(),
        soa_boxes: Vec::new(),
        cols: Vec::new(),
    };
    // One thread per data set (generation only; nothing here is timed).
    let sets: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..SETS)
            .map(|set| scope.spawn(move || generate_set::<K>(setting, set, n)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("data generation does not panic"))
            .collect()
    });
    for (spheres, boxes) in sets {
        let mut cols = to_columns(bytemuck::cast_slice(&spheres), 4);
        let k = size_of::<K::Prim>() / size_of::<f32>();
        cols.extend(to_columns(bytemuck::cast_slice(&boxes), k));
        d.cols.push(cols);
        d.soa_spheres
            .push(Spheres::from_slice(&spheres).expect("generated spheres are valid"));
        d.soa_boxes.push(K::boxes(&boxes));
        d.spheres.push(spheres);
        d.boxes.push(boxes);
    }
    d
}

/// The pairs of data set `set` of setting `setting`.
fn generate_set<K: Kind>(setting: usize, set: usize, n: usize) -> (Vec<Sphere>, Vec<K::Prim>) {
    let (lo, hi, _) = SETTINGS[setting];
    let mut r = rng(K::PAPER as u64 * 16 + setting as u64, set as u64);
    let mut spheres = Vec::with_capacity(n);
    let mut boxes = Vec::with_capacity(n);
    for _ in 0..n {
        let radius = uniform(&mut r, lo, hi);
        let rr = f64::from(radius);
        let c = [0; 3].map(|_| uniform(&mut r, -HALF_SIDE + rr, HALF_SIDE - rr));
        spheres.push(Sphere::new(c, radius));
        boxes.push(K::random_box(&mut r, lo, hi));
    }
    (spheres, boxes)
}

/// Counts of one setting: per seed method, per backend, and the brute-force reference.
struct Counts {
    seeds: [u64; 5],
    tiers: Vec<u64>,
    brute: u64,
    /// Pairs within `1e-5` (relative) of touching, where f32 rounding may decide either way.
    near: u64,
}

fn counts<K: Kind>(d: &Data<K>, backends: &[Backend]) -> Counts {
    let (s, b) = (&d.spheres[0], &d.boxes[0]);
    let mut brute = 0;
    let mut near = 0;
    for (s, b) in s.iter().zip(b) {
        let d2 = K::dist2_f64(s.center, b);
        let r2 = f64::from(s.radius) * f64::from(s.radius);
        brute += u64::from(d2 <= r2);
        near += u64::from((d2 - r2).abs() <= 1e-5 * r2);
    }
    Counts {
        seeds: core::array::from_fn(|m| K::seed_count(m, s, b)),
        tiers: backends
            .iter()
            .map(|&be| {
                let on = PairsOn::new(be).expect("available backend");
                K::pairs_count(&on, &d.soa_spheres[0], &d.soa_boxes[0])
            })
            .collect(),
        brute,
        near,
    }
}

/// Both tables (sphere-AABB and sphere-OBB), each as timings, speed-ups and counts.
pub fn run(ctx: &Ctx<'_>, targets: &mut Vec<Target>, obb: bool) -> Vec<Table> {
    if obb {
        run_kind::<ObbKind>(ctx, targets)
    } else {
        run_kind::<AabbKind>(ctx, targets)
    }
}

fn run_kind<K: Kind>(ctx: &Ctx<'_>, targets: &mut Vec<Target>) -> Vec<Table>
where
    Spheres: bvlanes::pairwise::Pairs<K::Boxes>,
{
    let n = ctx.n.unwrap_or(DEFAULT_PAIRS);
    let backends = &ctx.backends;
    let methods: Vec<String> = K::METHODS.iter().map(|m| (*m).to_owned()).collect();
    let tiers: Vec<String> = backends.iter().map(|&b| bvlanes_pairs_label(b)).collect();
    let sum_label = format!(
        "limit: plain {} sum over the same columns",
        crate::common::plain_sum_isa()
    );
    let rows: Vec<String> = methods
        .iter()
        .chain(&tiers)
        .cloned()
        .chain([sum_label.clone()])
        .collect();

    // secs[row][setting], ratio vs the first method (Arvo), counts per setting.
    let mut secs = vec![vec![f64::NAN; 5]; rows.len()];
    let mut spread = vec![vec![f64::NAN; 5]; rows.len()];
    let mut vs_arvo = vec![vec![f64::NAN; 5]; rows.len()];
    let mut all_counts = Vec::new();
    for (si, &(lo, hi, label)) in SETTINGS.iter().enumerate() {
        ctx.progress.note(&format!(
            "{}: generating {SETS} x {n} pairs, (lo, hi) = ({lo}, {hi})",
            K::ID
        ));
        let d = generate::<K>(si, n);
        let c = counts(&d, backends);
        ctx.progress.note(&format!(
            "{}: timing {label} ({} variants x {} rounds)",
            K::ID,
            rows.len(),
            ctx.rounds
        ));
        let mut vs: Vec<Variant<'_>> = Vec::new();
        for (m, name) in methods.iter().enumerate() {
            let d = &d;
            vs.push(Variant::new(name.clone(), SETS, move |k| {
                K::seed_count(m, black_box(&d.spheres[k]), black_box(&d.boxes[k]))
            }));
        }
        for (&b, name) in backends.iter().zip(&tiers) {
            let on = PairsOn::new(b).expect("available backend");
            let d = &d;
            vs.push(Variant::new(name.clone(), SETS, move |k| {
                K::pairs_count(
                    &on,
                    black_box(&d.soa_spheres[k]),
                    black_box(&d.soa_boxes[k]),
                )
            }));
        }
        {
            let d = &d;
            vs.push(Variant::new(sum_label.clone(), SETS, move |k| {
                u64::from(plain_sum_columns(black_box(&d.cols[k])).to_bits())
            }));
        }
        measure(&mut vs, ctx.rounds, ctx.slice);
        let arvo = find(&vs, &methods[0]);
        for (r, name) in rows.iter().enumerate() {
            let v = find(&vs, name);
            secs[r][si] = v.median();
            spread[r][si] = v.spread();
            vs_arvo[r][si] = ratio(arvo, v);
        }
        all_counts.push(c);
    }

    let scale = 2_000_000.0 / n as f64;
    let head: Vec<String> = std::iter::once("method".to_owned())
        .chain(
            SETTINGS
                .iter()
                .map(|(lo, hi, l)| format!("{l} ({lo}, {hi})")),
        )
        .collect();
    let head: Vec<&str> = head.iter().map(String::as_str).collect();

    let recipe = format!(
        "{n} independent (sphere, box) pairs per data set, {SETS} data sets per setting (timed loops alternate between them); \
         cube of half-side 100, radii and half extents uniform in [lo, hi], centres drawn so each sphere and (unrotated) box lies inside the cube{}",
        if K::PAPER == 1 {
            "; each box then rotated about its centre, uniformly at random"
        } else {
            ""
        }
    );
    let method_note = format!(
        "seed methods: scalar, one pair at a time over arrays of structs (`bvlanes::seeds`); bvlanes rows: `pairwise::count_overlaps` \
         over the same pairs in SoA containers; {} rounds, interleaved, medians (± in the chart data: half the interquartile range)",
        ctx.rounds
    );

    // Timings.
    let mut t = Table::new(
        K::ID,
        format!(
            "{} — ms per 2,000,000 tests{}",
            K::TITLE,
            if n == DEFAULT_PAIRS {
                String::new()
            } else {
                format!(" (measured on {n} pairs, scaled)")
            }
        ),
        &head,
    );
    t.notes.push(recipe.clone());
    t.notes.push(method_note);
    for (r, name) in rows.iter().enumerate() {
        let mut row = vec![Cell::text(name)];
        row.extend((0..5).map(|s| {
            let ms = secs[r][s] * scale * 1e3;
            Cell::num(ms, format!("{} ±{:.0}%", sig3(ms), spread[r][s] * 100.0))
        }));
        t.push(row);
    }
    let mut overlap = vec![Cell::text("overlap (measured, brute force in f64)")];
    let mut error = vec![Cell::text("Error: Cons false positives / true overlaps")];
    let mut paper = vec![Cell::text("Error in the paper")];
    for (s, c) in all_counts.iter().enumerate() {
        let exact = c.seeds[0] as f64;
        overlap.push(Cell::pct(c.brute as f64 / n as f64, 1));
        error.push(if c.seeds[0] == 0 {
            Cell::text("n/a (no overlaps)")
        } else {
            Cell::pct((c.seeds[4] as f64 - exact) / exact, 1)
        });
        paper.push(Cell::text(PAPER_ERROR[K::PAPER][s]));
    }
    t.push(overlap);
    t.push(error);
    t.push(paper);
    // Every exact method and tier must agree with each other and (ties aside) with brute force.
    let mut problems = Vec::new();
    for (s, c) in all_counts.iter().enumerate() {
        let exact = c.seeds[0];
        for (m, &v) in c.seeds.iter().enumerate().take(4) {
            if v != exact {
                problems.push(format!("{} {}: {v} != {exact}", SETTINGS[s].2, methods[m]));
            }
        }
        for (b, &v) in c.tiers.iter().enumerate() {
            if v != exact {
                problems.push(format!("{} {}: {v} != {exact}", SETTINGS[s].2, tiers[b]));
            }
        }
        if c.seeds[4] < exact {
            problems.push(format!("{} Cons missed overlaps", SETTINGS[s].2));
        }
        if exact.abs_diff(c.brute) > c.near {
            problems.push(format!(
                "{}: exact f32 count {exact} vs f64 brute force {} beyond the {} near-touching pairs",
                SETTINGS[s].2, c.brute, c.near
            ));
        }
    }
    t.notes.push(if problems.is_empty() {
        "counts checked (first data set of each setting): every exact method and every bvlanes tier report the same overlaps, \
         equal to the f64 brute force up to pairs within 1e-5 of touching; Cons reports a superset"
            .to_owned()
    } else {
        eprintln!("MISMATCH in {}: {problems:?}", K::ID);
        format!("**MISMATCH**: {}", problems.join("; "))
    });

    // The ceiling at this size: every tier streams its pairs from memory.
    if let Some(r) = backends
        .iter()
        .position(|&b| b == Backend::best())
        .map(|i| 5 + i)
    {
        let sum_row = rows.len() - 1;
        let of_sum: Vec<String> = (0..5)
            .map(|s| format!("{:.0} %", secs[sum_row][s] / secs[r][s] * 100.0))
            .collect();
        t.notes.push(format!(
            "{} runs at {} of the throughput of a plain sum over the same columns (5 settings): where that is near \
             100 % it is bound by memory bandwidth ({}), and its speed-up over {} is capped near the plain sum's \
             ({}x at 50 %)",
            rows[r],
            of_sum.join(" / "),
            if n * SETS * 40 > 32 << 20 {
                "the data sets far exceed the caches"
            } else {
                "here, cache bandwidth"
            },
            K::METHODS[0],
            sig3(vs_arvo[sum_row][2])
        ));
    }

    // Speed-ups.
    let mut sp = Table::new(
        format!("{}-speedup", K::ID),
        format!(
            "{} — speed-up over {} (median of per-round ratios)",
            K::TITLE,
            K::METHODS[0]
        ),
        &head,
    );
    for (r, name) in rows.iter().enumerate() {
        let mut row = vec![Cell::text(name)];
        row.extend((0..5).map(|s| Cell::times(vs_arvo[r][s])));
        sp.push(row);
    }

    // Counts (first data set of each setting).
    let mut ct = Table::new(
        format!("{}-counts", K::ID),
        format!(
            "{} — overlaps reported (first data set of each setting)",
            K::TITLE
        ),
        &head,
    );
    for (r, name) in rows.iter().enumerate().take(5 + tiers.len()) {
        let mut row = vec![Cell::text(name)];
        row.extend(
            all_counts
                .iter()
                .map(|c| Cell::count(if r < 5 { c.seeds[r] } else { c.tiers[r - 5] })),
        );
        ct.push(row);
    }
    let mut brute = vec![Cell::text("brute force (f64 closest point)")];
    brute.extend(all_counts.iter().map(|c| Cell::count(c.brute)));
    ct.push(brute);
    let mut near = vec![Cell::text("pairs within 1e-5 of touching")];
    near.extend(all_counts.iter().map(|c| Cell::count(c.near)));
    ct.push(near);

    // Chart: million tests per second by setting.
    t.chart = Some(Chart {
        title: format!("{} — throughput", K::TITLE),
        subtitle: format!("{n} pairs per set; higher is better"),
        y_label: "million pair tests per second".to_owned(),
        groups: SETTINGS.iter().map(|s| s.2.to_owned()).collect(),
        series: rows
            .iter()
            .enumerate()
            .map(|(r, name)| Series {
                name: name.clone(),
                values: (0..5).map(|s| Some(n as f64 / secs[r][s] / 1e6)).collect(),
            })
            .collect(),
        log_y: true,
    });

    if K::PAPER == 0 {
        let col = |b: Backend| backends.iter().position(|&x| x == b).map(|i| 5 + i);
        let goals = [
            (Backend::Avx2, 2usize, 20.0, "at 50 %"),
            (Backend::Avx2, 0, 12.0, "at 5 %"),
        ];
        for (b, s, goal, at) in goals {
            if let Some(r) = col(b) {
                let x = vs_arvo[r][s];
                targets.push(Target {
                    what: format!("pairwise sphere-AABB, {b} >= {goal}x Arvo {at}"),
                    measured: format!("{}x", sig3_vs(x, goal)),
                    met: x >= goal,
                });
            }
        }
        if let Some(r) = col(Backend::Sse) {
            // At the two settings the AVX2 targets name; all five are in the table.
            let (at5, at50) = (vs_arvo[r][0], vs_arvo[r][2]);
            targets.push(Target {
                what: "pairwise sphere-AABB, sse >= 6x Arvo (at 5 % and 50 %)".to_owned(),
                measured: format!("{}x, {}x", sig3(at5), sig3(at50)),
                met: at5 >= 6.0 && at50 >= 6.0,
            });
        }
    }
    vec![t, sp, ct]
}
