//! The limit rows: one query against a whole container (sphere, box, tetrahedron, octahedron
//! queries), every tier side by side with Arvo's scalar loop and with a plain SIMD sum over the
//! same arrays — each kernel as a fraction of the memory bandwidth it could use, L2-resident
//! (4,096 primitives) and DRAM-sized (1,048,576 per set, 8 sets).
//!
//! Data and baselines are the ones the criterion benches use (`benches/common`): 8 data sets in
//! rotation, queries calibrated to about 1 % and 50 % hits.

use crate::Ctx;
use crate::common::{
    BoxVsAabbs, DENSITIES, DownTetVsUpTets, FrustumVsAabbs, FrustumVsSpheres, ObbVsAabbs,
    ObbVsObbs, OctahedronVsOctahedra, Pair, SETS, SphereVsAabbs, SphereVsObbs, Workload,
    pass_arvo_count, pass_count, pass_extend, pass_sum, plain_sum_isa,
};
use crate::report::{Cell, Table, Target};
use crate::sampler::{Variant, find, measure, ratio};
use crate::svg::{Chart, Series};
use bvlanes::Backend;

/// Sizes: L2-resident and DRAM-sized (the `--n` flag replaces the second).
pub const SIZES: [usize; 2] = [4_096, 1 << 20];

/// Per-pair results kept for the chart and the targets.
struct Row {
    pair: &'static str,
    n: usize,
    d: usize,
    b: Backend,
    of_sum: f64,
}

/// Measures every pair at both sizes; one table.
pub fn run(ctx: &Ctx<'_>, targets: &mut Vec<Target>) -> Vec<Table> {
    let sizes = [SIZES[0], ctx.n.unwrap_or(SIZES[1])];
    let mut t = Table::new(
        "limit",
        "Limit rows: one query against a container, as a fraction of a plain SIMD sum over the same arrays",
        &[
            "pair",
            "primitives",
            "hits (measured)",
            "tier",
            "count_hits Melem/s",
            "vs scalar tier",
            "vs Arvo",
            "/ plain sum",
            "extend_hits / count_hits",
        ],
    );
    t.notes.push(format!(
        "{SETS} data sets in rotation per size ({SETS} x {} primitives at the large size); queries calibrated \
         to ~1 % and ~50 % hits; Melem/s = primitives tested per second; `/ plain sum` = throughput over that of a plain \
         {} sum streaming the same columns (the bandwidth limit); `extend_hits / count_hits` = the time of \
         writing the hit indices (into a reused vector) over that of counting them, per round; {} rounds, interleaved, medians",
        sizes[1],
        plain_sum_isa(),
        ctx.rounds
    ));
    let mut rows = Vec::new();
    for &n in &sizes {
        measure_pair::<SphereVsAabbs>(ctx, n, &mut t, &mut rows);
        measure_pair::<BoxVsAabbs>(ctx, n, &mut t, &mut rows);
        measure_pair::<DownTetVsUpTets>(ctx, n, &mut t, &mut rows);
        measure_pair::<OctahedronVsOctahedra>(ctx, n, &mut t, &mut rows);
        measure_pair::<SphereVsObbs>(ctx, n, &mut t, &mut rows);
        if n == sizes[0] || ctx.n.is_some() {
            // Compute-bound already in L2 (a 15-axis test, six planes per lane); at the DRAM
            // size only with --n.
            measure_pair::<FrustumVsSpheres>(ctx, n, &mut t, &mut rows);
            measure_pair::<FrustumVsAabbs>(ctx, n, &mut t, &mut rows);
            measure_pair::<ObbVsObbs>(ctx, n, &mut t, &mut rows);
            measure_pair::<ObbVsAabbs>(ctx, n, &mut t, &mut rows);
        }
    }

    // Chart: fraction of the plain sum, per pair and size, best SIMD tier, by density.
    let groups: Vec<(&'static str, usize)> =
        rows.iter()
            .map(|r| (r.pair, r.n))
            .fold(Vec::new(), |mut v, k| {
                if !v.contains(&k) {
                    v.push(k);
                }
                v
            });
    let mut series = Vec::new();
    for &b in &ctx.backends {
        for (d, (dname, _)) in DENSITIES.iter().enumerate() {
            series.push(Series {
                name: format!("{b}, {dname} hits"),
                values: groups
                    .iter()
                    .map(|&(p, n)| {
                        rows.iter()
                            .find(|r| r.pair == p && r.n == n && r.d == d && r.b == b)
                            .map(|r| r.of_sum * 100.0)
                    })
                    .collect(),
            });
        }
    }
    t.chart = Some(Chart {
        title: "count_hits as % of a plain SIMD sum over the same bytes".to_owned(),
        subtitle: "100 % = as fast as merely reading the container".to_owned(),
        y_label: "% of plain-sum throughput".to_owned(),
        groups: groups.iter().map(|(p, n)| format!("{p} {n}")).collect(),
        series,
        log_y: false,
    });

    // Target: DRAM-sized sphere vs AABBs >= 85 % of the plain sum (every SIMD tier, density).
    let big = sizes[1];
    let sel: Vec<&Row> = rows
        .iter()
        .filter(|r| r.pair == SphereVsAabbs::NAME && r.n == big && r.b == Backend::best())
        .collect();
    if !sel.is_empty() && big >= 1 << 20 {
        let worst = sel.iter().map(|r| r.of_sum).fold(f64::INFINITY, f64::min);
        targets.push(Target {
            what: format!(
                "DRAM-sized ({big} x {SETS} sets) sphere vs AABBs >= 85 % of the plain sum"
            ),
            measured: sel
                .iter()
                .map(|r| format!("{}/{}: {:.0} %", r.b, DENSITIES[r.d].0, r.of_sum * 100.0))
                .collect::<Vec<_>>()
                .join(", "),
            met: worst >= 0.85,
        });
    }
    vec![t]
}

fn measure_pair<P: Pair>(ctx: &Ctx<'_>, n: usize, t: &mut Table, rows: &mut Vec<Row>) {
    ctx.progress
        .note(&format!("limit: building {} x {n} ({SETS} sets)", P::NAME));
    let w = Workload::<P>::build(n);
    let pins: Vec<_> = ctx.backends.iter().map(|&b| w.pins(b)).collect();
    let scalar_pins = w.pins(Backend::Scalar);
    // Every tier must agree with the scalar tier on every set and query before it is timed.
    let mut agree = true;
    for d in 0..DENSITIES.len() {
        for k in 0..SETS {
            let want = pass_count::<P>(&scalar_pins, &w.queries[d], k);
            let mut want_hits = Vec::new();
            pass_extend::<P>(&scalar_pins, &w.queries[d], k, &mut want_hits);
            let mut hits = Vec::new();
            for p in &pins {
                agree &= pass_count::<P>(p, &w.queries[d], k) == want;
                pass_extend::<P>(p, &w.queries[d], k, &mut hits);
                agree &= hits == want_hits;
            }
        }
    }
    if !agree {
        eprintln!(
            "MISMATCH: a tier disagrees with scalar (count or indices) on {}",
            P::NAME
        );
        t.notes.push(format!(
            "**MISMATCH**: a tier disagrees with scalar (count or indices) on {} x {n}",
            P::NAME
        ));
    }
    let mut vs: Vec<Variant<'_>> = Vec::new();
    for d in 0..DENSITIES.len() {
        for (bi, &b) in ctx.backends.iter().enumerate() {
            let (p, q) = (&pins[bi], &w.queries[d]);
            vs.push(Variant::new(format!("{b} count {d}"), SETS, move |k| {
                pass_count::<P>(p, q, k) as u64
            }));
            let mut out = Vec::with_capacity(n + 64);
            vs.push(Variant::new(format!("{b} extend {d}"), SETS, move |k| {
                pass_extend::<P>(p, q, k, &mut out) as u64
            }));
        }
        if !ctx.backends.contains(&Backend::Scalar) {
            let q = &w.queries[d];
            let p = &scalar_pins;
            vs.push(Variant::new(format!("scalar count {d}"), SETS, move |k| {
                pass_count::<P>(p, q, k) as u64
            }));
        }
        if let Some(arvo) = &P::ARVO {
            let w = &w;
            vs.push(Variant::new(format!("arvo {d}"), SETS, move |k| {
                pass_arvo_count(w, arvo, d, k) as u64
            }));
        }
    }
    {
        let w = &w;
        vs.push(Variant::new("sum", SETS, move |k| pass_sum(w, k) as u64));
    }
    ctx.progress.note(&format!(
        "limit: timing {} x {n} ({} variants x {} rounds)",
        P::NAME,
        vs.len(),
        ctx.rounds
    ));
    let slice = if n >= 1 << 20 {
        ctx.slice * 2
    } else {
        ctx.slice
    };
    measure(&mut vs, ctx.rounds, slice);
    let sum = find(&vs, "sum");
    for (d, (dname, _)) in DENSITIES.iter().enumerate() {
        let hits = format!("{dname} ({:.2} %)", w.density(d) * 100.0);
        let sc = find(&vs, &format!("scalar count {d}"));
        for &b in &ctx.backends {
            let c = find(&vs, &format!("{b} count {d}"));
            let arvo = P::ARVO
                .as_ref()
                .map(|_| Cell::times(ratio(find(&vs, &format!("arvo {d}")), c)))
                .unwrap_or(Cell::Empty);
            let melem = n as f64 / c.median() / 1e6;
            let of_sum = ratio(sum, c);
            t.push(vec![
                Cell::text(P::NAME),
                Cell::count(n as u64),
                Cell::text(&hits),
                Cell::text(b.name()),
                Cell::num(melem, format!("{melem:.0}")),
                Cell::times(ratio(sc, c)),
                arvo,
                Cell::pct(of_sum, 0),
                Cell::times(ratio(find(&vs, &format!("{b} extend {d}")), c)),
            ]);
            rows.push(Row {
                pair: P::NAME,
                n,
                d,
                b,
                of_sum,
            });
        }
    }
    let gbs = w.bytes_per_prim() as f64 * n as f64 / sum.median() / 1e9;
    let m = n as f64 / sum.median() / 1e6;
    t.push(vec![
        Cell::text(P::NAME),
        Cell::count(n as u64),
        Cell::text("—"),
        Cell::text(format!("plain {} sum ({gbs:.1} GB/s)", plain_sum_isa())),
        Cell::num(m, format!("{m:.0}")),
        Cell::Empty,
        Cell::Empty,
        Cell::pct(1.0, 0),
        Cell::Empty,
    ]);
}
