//! The AABO readme's table (seed 003), regenerated with its data recipe: objects are clouds of 50
//! points uniform in the unit ball, placed uniformly in `[-50, 50]^3`; the queries are objects
//! 0..99 themselves; every query is tested against every object. The readme used 10,000,000
//! objects; the default here is 1,000,000 (`--n`), so the table fits the one-minute run.
//!
//! Rows, per backend: the `Aabbs` box query under each [`BoxStrategy`] (MIN,MAX; X,Y,Z; 7-sided;
//! direct), and on `Octahedra`: AABO (up half first, then the down half: the 8-DOP test,
//! `Conservative`), exact AABO (plus the sum condition) and Tetrahedron (the up half only).
//! "partial" columns are the pass counts of each stage, summed over the queries.

use crate::Ctx;
use crate::data::{in_unit_ball, rng, uniform};
use crate::report::{Cell, Table, Target, sig3, sig3_vs};
use crate::sampler::{Variant, find, measure, ratio};
use crate::svg::{Chart, Series};
use bvlanes::{
    Aabb, Aabbs, Backend, Blocked, BoxStrategy, Conservative, DownTet, Octahedra, Octahedron,
    Staged,
};
use std::hint::black_box;

/// Objects by default.
pub const DEFAULT_OBJECTS: usize = 1_000_000;
/// Queries: objects `0..QUERIES`.
const QUERIES: usize = 100;
/// Points per object.
const POINTS: usize = 50;

/// The objects' bounding boxes and octahedra.
struct Data {
    boxes: Vec<Aabb>,
    aabbs: Aabbs,
    octahedra: Octahedra,
    octs: Vec<Octahedron>,
    /// The queries as the batched rows pass them: `Conservative(octs[q])` and `octs[q].down`.
    conservative: Vec<Conservative<Octahedron>>,
    downs: Vec<DownTet>,
    /// The blocked forms of `aabbs` and `octahedra` (the `blocked` rows).
    blocked_boxes: Blocked<Aabbs>,
    blocked_octahedra: Blocked<Octahedra>,
    /// Seconds to build `blocked_boxes` and `blocked_octahedra` (once each, all threads).
    builds: (f64, f64),
}

fn generate(n: usize) -> Data {
    // Objects in blocks of 65,536, each from its own generator stream, built on every core
    // (generation only; nothing here is timed).
    const BLOCK: usize = 1 << 16;
    let blocks = n.div_ceil(BLOCK);
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let parts: Vec<(usize, Vec<Aabb>, Vec<Octahedron>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    (t..blocks)
                        .step_by(threads)
                        .map(|b| {
                            let len = BLOCK.min(n - b * BLOCK);
                            let (boxes, octs) = generate_block(b, len);
                            (b, boxes, octs)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<_> = handles
            .into_iter()
            .flat_map(|h| h.join().expect("data generation does not panic"))
            .collect();
        all.sort_by_key(|p| p.0);
        all
    });
    let mut boxes = Vec::with_capacity(n);
    let mut octs = Vec::with_capacity(n);
    for (_, b, o) in parts {
        boxes.extend(b);
        octs.extend(o);
    }
    let aabbs = Aabbs::from_slice(&boxes).expect("valid boxes");
    let octahedra = Octahedra::from_slice(&octs).expect("valid octahedra");
    // The blocked forms, timed once each (all threads): what a blocked row's queries amortise.
    let t = std::time::Instant::now();
    let blocked_boxes = Blocked::new(&aabbs);
    let build_boxes = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    let blocked_octahedra = Blocked::new(&octahedra);
    let build_octahedra = t.elapsed().as_secs_f64();
    Data {
        blocked_boxes,
        blocked_octahedra,
        builds: (build_boxes, build_octahedra),
        aabbs,
        octahedra,
        conservative: octs[..QUERIES.min(n)]
            .iter()
            .map(|&o| Conservative(o))
            .collect(),
        downs: octs[..QUERIES.min(n)].iter().map(|o| o.down).collect(),
        boxes,
        octs,
    }
}

/// `len` objects of block `block`.
fn generate_block(block: usize, len: usize) -> (Vec<Aabb>, Vec<Octahedron>) {
    let mut r = rng(0xAAB0, block as u64);
    let mut boxes = Vec::with_capacity(len);
    let mut octs = Vec::with_capacity(len);
    let mut pts = [[0.0f32; 3]; POINTS];
    for _ in 0..len {
        let c = [0; 3].map(|_| f64::from(uniform(&mut r, -50.0, 50.0)));
        for p in &mut pts {
            let u = in_unit_ball(&mut r);
            *p = [0, 1, 2].map(|i| (c[i] + u[i]) as f32);
        }
        boxes.push(Aabb::from_points(pts).expect("50 finite points"));
        octs.push(Octahedron::from_points(pts).expect("50 finite points"));
    }
    (boxes, octs)
}

/// One row kind of the table.
#[derive(Clone, Copy, PartialEq)]
enum Row {
    Box(BoxStrategy),
    Aabo,
    ExactAabo,
    Tetrahedron,
    /// The same queries as one batch (`count_hits_many`) instead of one call per query: the
    /// default box strategy, AABO, exact AABO or Tetrahedron; on one thread (`false`) or on every
    /// thread of the pool (`true`).
    Batched(Batched, bool),
    /// The same queries one at a time on the blocked containers (`Blocked<Aabbs>`,
    /// `Blocked<Octahedra>`), which skip the blocks out of reach.
    Blocked(Batched),
}

/// The rows that also run as one batch.
#[derive(Clone, Copy, PartialEq)]
enum Batched {
    Box,
    Aabo,
    ExactAabo,
    Tetrahedron,
}

impl Row {
    fn all() -> Vec<Row> {
        let mut v: Vec<Row> = BoxStrategy::ALL.iter().map(|&s| Row::Box(s)).collect();
        v.extend([Row::Aabo, Row::ExactAabo, Row::Tetrahedron]);
        for all_threads in [false, true] {
            v.extend(
                [
                    Batched::Box,
                    Batched::Aabo,
                    Batched::ExactAabo,
                    Batched::Tetrahedron,
                ]
                .map(|b| Row::Batched(b, all_threads)),
            );
        }
        v.extend(
            [
                Batched::Box,
                Batched::Aabo,
                Batched::ExactAabo,
                Batched::Tetrahedron,
            ]
            .map(Row::Blocked),
        );
        v
    }

    /// The one-query row a batched row answers like (same accepts, same stages).
    fn single(self) -> Row {
        match self {
            Row::Batched(b, _) | Row::Blocked(b) => match b {
                Batched::Box => Row::Box(BoxStrategy::default()),
                Batched::Aabo => Row::Aabo,
                Batched::ExactAabo => Row::ExactAabo,
                Batched::Tetrahedron => Row::Tetrahedron,
            },
            r => r,
        }
    }

    fn name(self) -> String {
        match self {
            Row::Box(BoxStrategy::MinMax) => "AABB MIN,MAX".to_owned(),
            Row::Box(BoxStrategy::Xyz) => "AABB X,Y,Z".to_owned(),
            Row::Box(BoxStrategy::SevenSided) => "7-Sided AABB".to_owned(),
            Row::Box(s) => format!("AABB {}", s.name()),
            Row::Aabo => "AABO".to_owned(),
            Row::ExactAabo => "AABO exact".to_owned(),
            Row::Tetrahedron => "Tetrahedron".to_owned(),
            Row::Batched(b, all_threads) => {
                let single = match b {
                    Batched::Box => "AABB".to_owned(),
                    _ => Row::Batched(b, all_threads).single().name(),
                };
                let threads = if all_threads { ", all threads" } else { "" };
                format!("{single}, batched{threads}")
            }
            Row::Blocked(b) => {
                let single = match b {
                    Batched::Box => "AABB".to_owned(),
                    _ => Row::Blocked(b).single().name(),
                };
                format!("{single}, blocked")
            }
        }
    }

    /// One pass: the first `queries` queries against every object; the total accepts.
    fn pass(self, d: &Data, b: Backend, queries: usize) -> u64 {
        let mut n = 0;
        let sum = |counts: Vec<u32>| counts.iter().map(|&c| c as usize).sum::<usize>();
        match self {
            Row::Batched(Batched::Box, all_threads) => {
                let p = d.aabbs.with_backend(b).expect("available");
                let p = if all_threads { p } else { p.with_threads(1) };
                n = sum(p.count_hits_many(black_box(&d.boxes[..queries])));
            }
            Row::Batched(r, all_threads) => {
                let p = d.octahedra.with_backend(b).expect("available");
                let p = if all_threads { p } else { p.with_threads(1) };
                n = sum(match r {
                    Batched::Aabo => p.count_hits_many(black_box(&d.conservative[..queries])),
                    Batched::ExactAabo => p.count_hits_many(black_box(&d.octs[..queries])),
                    _ => p.count_hits_many(black_box(&d.downs[..queries])),
                });
            }
            Row::Blocked(Batched::Box) => {
                let p = d.blocked_boxes.with_backend(b).expect("available");
                for q in &d.boxes[..queries] {
                    n += p.count_hits(black_box(q));
                }
            }
            Row::Blocked(r) => {
                let p = d.blocked_octahedra.with_backend(b).expect("available");
                for q in &d.octs[..queries] {
                    n += match r {
                        Batched::Aabo => p.count_hits(black_box(&Conservative(*q))),
                        Batched::ExactAabo => p.count_hits(black_box(q)),
                        _ => p.count_hits(black_box(&q.down)),
                    };
                }
            }
            Row::Box(s) => {
                let p = d.aabbs.with_backend(b).expect("available");
                for q in &d.boxes[..queries] {
                    n += p.count_hits(black_box(&Staged(*q, s)));
                }
            }
            Row::Aabo | Row::ExactAabo | Row::Tetrahedron => {
                let p = d.octahedra.with_backend(b).expect("available");
                for q in &d.octs[..queries] {
                    n += match self {
                        Row::Aabo => p.count_hits(black_box(&Conservative(*q))),
                        Row::ExactAabo => p.count_hits(black_box(q)),
                        _ => p.count_hits(black_box(&q.down)),
                    };
                }
            }
        }
        n as u64
    }

    /// Pass counts of each stage (the last is the accepts), summed over the queries.
    fn stages(self, d: &Data) -> Vec<u64> {
        let sum = |f: &dyn Fn(usize) -> usize| (0..QUERIES).map(f).sum::<usize>() as u64;
        match self.single() {
            Row::Box(s) => (0..s.stages())
                .map(|k| {
                    sum(&|q| {
                        d.aabbs
                            .count_stage_passes(&d.boxes[q], s, k)
                            .expect("stage < stages()")
                    })
                })
                .collect(),
            Row::Batched(..) | Row::Blocked(_) => unreachable!("single() is a one-query row"),
            r @ (Row::Aabo | Row::ExactAabo | Row::Tetrahedron) => {
                let last = match r {
                    Row::Tetrahedron => 0,
                    Row::Aabo => 1,
                    _ => 2,
                };
                (0..=last)
                    .map(|k| {
                        sum(&|q| {
                            d.octahedra
                                .count_stage_passes(&d.octs[q], k)
                                .expect("stage <= 2")
                        })
                    })
                    .collect()
            }
        }
    }

    /// This row's accepts among the brute-force counts.
    fn brute(self, b: &Brute) -> u64 {
        match self.single() {
            Row::Box(_) => b.boxes,
            Row::Aabo => b.dop8,
            Row::ExactAabo => b.exact,
            Row::Tetrahedron => b.up,
            Row::Batched(..) | Row::Blocked(_) => unreachable!("single() is a one-query row"),
        }
    }
}

/// Accepts by brute force: plain scalar loops over the primitives, one pair at a time.
struct Brute {
    boxes: u64,
    up: u64,
    dop8: u64,
    exact: u64,
}

fn brute_force(d: &Data) -> Brute {
    let mut b = Brute {
        boxes: 0,
        up: 0,
        dop8: 0,
        exact: 0,
    };
    for q in 0..QUERIES {
        let qb = &d.boxes[q];
        for x in &d.boxes {
            b.boxes += u64::from(bvlanes::seeds::aabb_aabb(qb.min, qb.max, x.min, x.max));
        }
        let qo = &d.octs[q];
        for o in &d.octs {
            // `&`, not `&&`: no branch per comparison, so the loop runs at memory speed.
            let up = (o.up.min[0] <= qo.down.max[0])
                & (o.up.min[1] <= qo.down.max[1])
                & (o.up.min[2] <= qo.down.max[2])
                & (o.up.min[3] <= qo.down.max[3]);
            if up {
                b.up += 1;
                if (0..4).all(|k| qo.up.min[k] <= o.down.max[k]) {
                    b.dop8 += 1;
                    b.exact += u64::from(exact_sums(qo, o));
                }
            }
        }
    }
    b
}

/// The exact AABO condition beyond the 8-DOP test: `sum(lo) <= 0 <= sum(hi)` with
/// `lo = max(up)`, `hi = min(down)`, decided in f64 (sums of four f32 are exact there unless
/// their exponents differ by more than 29 bits, which these data never do).
fn exact_sums(a: &Octahedron, b: &Octahedron) -> bool {
    let lo: f64 = (0..4)
        .map(|k| f64::from(a.up.min[k].max(b.up.min[k])))
        .sum();
    let hi: f64 = (0..4)
        .map(|k| f64::from(a.down.max[k].min(b.down.max[k])))
        .sum();
    lo <= 0.0 && 0.0 <= hi
}

/// Queries timed on backend `b` (all but on the scalar tier; see [`run`]).
fn timed_queries(b: Backend) -> usize {
    if b == Backend::Scalar {
        QUERIES / 10
    } else {
        QUERIES
    }
}

/// The AABO table.
pub fn run(ctx: &Ctx<'_>, targets: &mut Vec<Target>) -> Vec<Table> {
    let n = ctx.n.unwrap_or(DEFAULT_OBJECTS);
    if n < QUERIES {
        ctx.progress.note(&format!(
            "aabo: --n {n} raised to {QUERIES} (the queries are objects 0..{QUERIES})"
        ));
    }
    let n = n.max(QUERIES);
    ctx.progress
        .note(&format!("aabo: generating {n} objects of {POINTS} points"));
    let d = generate(n);
    let rows = Row::all();
    ctx.progress.note("aabo: stage counts and brute force");
    let stages: Vec<Vec<u64>> = rows.iter().map(|r| r.stages(&d)).collect();
    let b = brute_force(&d);
    let brute: Vec<u64> = rows.iter().map(|r| r.brute(&b)).collect();

    let mut vs: Vec<Variant<'_>> = Vec::new();
    let mut agree = true;
    for &b in &ctx.backends {
        // The scalar tier is timed on a tenth of the queries (its exact octahedron test alone
        // takes ~1 s per 100 queries); every query costs the same, so its time is scaled.
        let queries = timed_queries(b);
        for (i, &r) in rows.iter().enumerate() {
            agree &= r.pass(&d, b, QUERIES) == *stages[i].last().expect("a stage");
            let d = &d;
            vs.push(Variant::new(format!("{b} {}", r.name()), 1, move |_| {
                r.pass(d, b, queries)
            }));
        }
    }
    ctx.progress.note(&format!(
        "aabo: timing {} variants x {} rounds",
        vs.len(),
        ctx.rounds
    ));
    measure(&mut vs, ctx.rounds, ctx.slice);

    let tests = (n * QUERIES) as f64;
    let mut t = Table::new(
        "aabo",
        format!("The AABO readme's table: {QUERIES} queries against {n} objects"),
        &[
            "backend",
            "bounding volume",
            "partial (stage 1)",
            "partial (stage 2)",
            "accepts",
            "brute force accepts",
            "seconds",
            "M tests/s",
            "vs AABB MIN,MAX",
        ],
    );
    t.notes.push(format!(
        "objects: clouds of {POINTS} points uniform in the unit ball, centres uniform in [-50, 50]^3, bounded by \
         `Aabb::from_points` / `Octahedron::from_points`; queries: objects 0..{QUERIES} (the scalar tier is timed on the \
         first {} and its seconds scaled to {QUERIES}); {} rounds, interleaved, medians",
        QUERIES / 10,
        ctx.rounds
    ));
    t.notes.push(
        "partial = objects passing stage 1 (and 2), summed over the queries: MIN,MAX stage 1 = the open octant min <= query max; \
         X,Y,Z = the x slab, then the xy prism; 7-sided = the min corner and the diagonal plane (a closed tetrahedron); \
         AABO = the up tetrahedron, then the 8-DOP; exact AABO adds the sum condition; direct has one stage"
            .to_owned(),
    );
    t.notes.push(format!(
        "blocked rows: the same queries one at a time on `Blocked<Aabbs>` / `Blocked<Octahedra>`, \
         which skip the blocks out of reach; building them took {:.1} / {:.1} ms (once each, all threads, \
         not in the seconds column)",
        d.builds.0 * 1e3,
        d.builds.1 * 1e3
    ));
    if !agree
        || rows
            .iter()
            .zip(&stages)
            .zip(&brute)
            .any(|((_, s), b)| s.last() != Some(b))
    {
        eprintln!("MISMATCH in aabo: a count differs from brute force");
        t.notes
            .push("**MISMATCH**: a count differs from brute force or between backends".to_owned());
    } else {
        t.notes.push("counts checked: every row's accepts equal its brute-force count, on every backend timed".to_owned());
    }
    let mut chart_series: Vec<Series> = Vec::new();
    for &b in &ctx.backends {
        let minmax = find(
            &vs,
            &format!("{b} {}", Row::Box(BoxStrategy::MinMax).name()),
        );
        let mut values = Vec::new();
        for (i, r) in rows.iter().enumerate() {
            let v = find(&vs, &format!("{b} {}", r.name()));
            let st = &stages[i];
            let partial = |k: usize| {
                if st.len() > k + 1 {
                    Cell::count(st[k])
                } else {
                    Cell::Empty
                }
            };
            let secs = v.median() * (QUERIES / timed_queries(b)) as f64;
            t.push(vec![
                Cell::text(b.name()),
                Cell::text(r.name()),
                partial(0),
                partial(1),
                Cell::count(*st.last().expect("a stage")),
                Cell::count(brute[i]),
                // Six decimals for the blocked rows (a tenth of a millisecond).
                Cell::num(
                    secs,
                    if secs >= 1e-3 {
                        format!("{secs:.4}")
                    } else {
                        format!("{secs:.6}")
                    },
                ),
                Cell::num(tests / secs / 1e6, sig3(tests / secs / 1e6)),
                Cell::times(ratio(minmax, v)),
            ]);
            values.push(Some(tests / secs / 1e6));
        }
        chart_series.push(Series {
            name: b.name().to_owned(),
            values,
        });
    }
    t.chart = Some(Chart {
        title: format!("AABO readme table: {QUERIES} queries x {n} objects"),
        subtitle: "higher is better".to_owned(),
        y_label: "million tests per second".to_owned(),
        groups: rows.iter().map(|r| r.name()).collect(),
        series: chart_series,
        log_y: false,
    });

    // Targets, on the best backend timed.
    if let Some(&b) = ctx.backends.iter().max_by_key(|b| b.lanes()) {
        let get = |r: Row| find(&vs, &format!("{b} {}", r.name()));
        let x = ratio(get(Row::Box(BoxStrategy::MinMax)), get(Row::Aabo));
        targets.push(Target {
            what: format!("AABO (tetrahedron first) >= 1.5x AABB MIN,MAX ({b}, readme data)"),
            measured: format!("{}x", sig3_vs(x, 1.5)),
            met: x >= 1.5,
        });
        let over = ratio(get(Row::ExactAabo), get(Row::Aabo)) - 1.0;
        targets.push(Target {
            what: format!("exact AABO <= 10 % over the conservative one ({b})"),
            measured: format!("{:+.1} %", over * 100.0),
            met: over <= 0.10,
        });
    }
    vec![t]
}
