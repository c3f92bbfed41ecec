//! The project's main benchmark: measures every pair, size, density, backend and output side by
//! side and prints markdown tables of throughput and ratios.
//!
//! ```text
//! cargo bench --bench table              # full run (~2 minutes)
//! cargo bench --bench table -- --quick   # smoke run (~20 s)
//! ```
//!
//! How it measures (the machine is shared and noisy):
//!
//! * For one pair and size, every variant (each backend's `count_hits` and `extend_hits` at each
//!   density, Arvo's loop, the plain SIMD sum) is a closure doing one pass over one data set.
//!   A *sample* runs a variant for a fixed time slice, passing over the eight data sets in turn
//!   (see `common`: never the same pass twice in a row, for the kernels as for the baselines).
//! * A *round* takes one sample of every variant, one after the other; the round is repeated
//!   several times, each starting at a different variant. Throughputs are medians over rounds.
//! * Ratios (tier vs scalar, vs Arvo, vs the sum, extend vs count) are computed within each round,
//!   from samples taken moments apart, and the median over rounds is reported.

mod common;

use bvlanes::Backend;
use common::{
    BoxVsAabbs, DENSITIES, DownTetVsUpTets, OctahedronVsOctahedra, Pair, SETS, SIZES,
    SphereVsAabbs, Workload, pass_arvo_count, pass_arvo_extend, pass_count, pass_extend, pass_sum,
    pass_sum_aos, plain_sum_isa,
};
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Run settings.
#[derive(Clone, Copy)]
struct Settings {
    quick: bool,
    /// Rounds (samples per variant).
    rounds: usize,
    /// Time slice of one sample, per size.
    slice_small: Duration,
    slice_large: Duration,
}

impl Settings {
    fn from_args() -> Settings {
        // `cargo bench` passes `--bench`; anything but `--quick` is ignored.
        let quick = std::env::args().skip(1).any(|a| a == "--quick");
        if quick {
            Settings {
                quick,
                rounds: 3,
                slice_small: Duration::from_millis(3),
                slice_large: Duration::from_millis(10),
            }
        } else {
            Settings {
                quick,
                rounds: 15,
                slice_small: Duration::from_millis(30),
                slice_large: Duration::from_millis(60),
            }
        }
    }

    fn slice(&self, n: usize) -> Duration {
        if n >= 1 << 20 {
            self.slice_large
        } else {
            self.slice_small
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Count,
    Extend,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Kernel { d: usize, b: Backend, op: Op },
    Arvo { d: usize, op: Op },
    Sum,
    SumAos,
}

/// One measured operation: a pass over set `k`, repeated for a time slice per sample.
struct Variant<'a> {
    kind: Kind,
    pass: Box<dyn FnMut(usize) -> usize + 'a>,
    /// Passes per sample.
    passes: usize,
    /// Next data set.
    next: usize,
    /// Nanoseconds per primitive, one per round.
    ns: Vec<f64>,
}

impl<'a> Variant<'a> {
    fn new(kind: Kind, pass: Box<dyn FnMut(usize) -> usize + 'a>) -> Self {
        Variant {
            kind,
            pass,
            passes: 1,
            next: 0,
            ns: Vec::new(),
        }
    }

    /// Runs `passes` passes, cycling through the sets; nanoseconds per primitive.
    fn sample(&mut self, n: usize, passes: usize) -> f64 {
        let mut acc = 0usize;
        let t = Instant::now();
        for _ in 0..passes {
            acc ^= (self.pass)(self.next);
            self.next = (self.next + 1) % SETS;
        }
        let e = t.elapsed();
        black_box(acc);
        e.as_secs_f64() * 1e9 / (passes * n) as f64
    }

    /// Warms up (caches, branch predictors, the output vector) and sizes a sample to `slice`.
    fn calibrate(&mut self, n: usize, slice: Duration) {
        let t = Instant::now();
        let mut done = 0;
        while done < SETS || t.elapsed() < slice / 4 {
            self.sample(n, 1);
            done += 1;
        }
        let per_pass = t.elapsed().as_secs_f64() / done as f64;
        let mut passes = (slice.as_secs_f64() / per_pass).ceil().max(1.0) as usize;
        if passes >= SETS {
            passes = passes.div_ceil(SETS) * SETS; // whole rotations
        }
        self.passes = passes;
    }
}

fn median(v: &[f64]) -> f64 {
    quantile(v, 0.5)
}

fn quantile(v: &[f64], q: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    if s.is_empty() {
        return f64::NAN;
    }
    let pos = q * (s.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    s[lo] + (s[hi] - s[lo]) * (pos - lo as f64)
}

/// Median over rounds of `a[r] / b[r]` (times: > 1 means `b` is faster).
fn ratio(a: &[f64], b: &[f64]) -> f64 {
    let r: Vec<f64> = a.iter().zip(b).map(|(x, y)| x / y).collect();
    median(&r)
}

/// Melem/s from ns per primitive.
fn melem(ns: f64) -> f64 {
    1e3 / ns
}

fn fmt_rate(ns: &[f64]) -> String {
    let m = melem(median(ns));
    // Half the interquartile range, relative: the noise of this number.
    let spread = (quantile(ns, 0.75) - quantile(ns, 0.25)) / 2.0 / median(ns) * 100.0;
    let m = if m >= 100.0 {
        format!("{m:.0}")
    } else {
        format!("{m:.1}")
    };
    format!("{m} ±{spread:.0}%")
}

fn fmt_x(r: f64) -> String {
    if r >= 10.0 {
        format!("{r:.0}x")
    } else {
        format!("{r:.2}x")
    }
}

fn fmt_pct(r: f64) -> String {
    format!("{:.0}%", r * 100.0)
}

/// One decimal, for the target checks.
fn pct1(r: f64) -> String {
    format!("{:.1}%", r * 100.0)
}

/// One decimal with a sign, for the target checks.
fn spct1(r: f64) -> String {
    format!("{:+.1}%", r * 100.0)
}

fn fmt_signed_pct(r: f64) -> String {
    format!("{:+.0}%", r * 100.0)
}

/// One row of results, kept for the target summary.
struct Row {
    pair: &'static str,
    n: usize,
    d: usize,
    b: Backend,
    count_vs_arvo: Option<f64>,
    extend_over_count: f64,
    count_of_sum: f64,
    extend_of_sum: f64,
}

/// Measures one pair at one size and prints its table section.
fn measure<P: Pair>(n: usize, s: &Settings, out: &mut String, rows: &mut Vec<Row>) {
    let t_build = Instant::now();
    let w = Workload::<P>::build(n);
    let build_secs = t_build.elapsed().as_secs_f64();
    let checked = check(&w);
    let backends = Backend::available();
    let pins: Vec<_> = backends.iter().map(|&b| w.pins(b)).collect();

    // The variants, in a fixed list; rounds start at different offsets.
    let mut vs: Vec<Variant<'_>> = Vec::new();
    let mk = Variant::new;
    for d in 0..DENSITIES.len() {
        for (bi, &b) in backends.iter().enumerate() {
            let (p, q) = (&pins[bi], &w.queries[d]);
            vs.push(mk(
                Kind::Kernel {
                    d,
                    b,
                    op: Op::Count,
                },
                Box::new(move |k| pass_count::<P>(p, q, k)),
            ));
            let mut o = Vec::with_capacity(n + 64);
            vs.push(mk(
                Kind::Kernel {
                    d,
                    b,
                    op: Op::Extend,
                },
                Box::new(move |k| pass_extend::<P>(p, q, k, &mut o)),
            ));
        }
        if let Some(arvo) = &P::ARVO {
            let w = &w;
            vs.push(mk(
                Kind::Arvo { d, op: Op::Count },
                Box::new(move |k| pass_arvo_count(w, arvo, d, k)),
            ));
            let mut o = Vec::with_capacity(n);
            vs.push(mk(
                Kind::Arvo { d, op: Op::Extend },
                Box::new(move |k| pass_arvo_extend(w, arvo, d, k, &mut o)),
            ));
        }
    }
    {
        let w = &w;
        vs.push(mk(Kind::Sum, Box::new(move |k| pass_sum(w, k))));
        vs.push(mk(Kind::SumAos, Box::new(move |k| pass_sum_aos(w, k))));
    }

    let slice = s.slice(n);
    for v in &mut vs {
        v.calibrate(n, slice);
    }
    let t_run = Instant::now();
    let nv = vs.len();
    for round in 0..s.rounds {
        let start = round * nv / s.rounds;
        for j in 0..nv {
            let v = &mut vs[(start + j) % nv];
            let ns = v.sample(n, v.passes);
            v.ns.push(ns);
        }
    }
    let run_secs = t_run.elapsed().as_secs_f64();

    let find = |kind: Kind| -> &[f64] {
        &vs.iter()
            .find(|v| v.kind == kind)
            .expect("variant exists")
            .ns
    };
    let sum = find(Kind::Sum);
    let bytes = w.bytes_per_prim();

    let _ = writeln!(out, "\n### {} — {} primitives\n", P::NAME, n);
    let _ = writeln!(
        out,
        "{}; {SETS} data sets in rotation ({:.1} MiB in all); build {:.1} s, measured {:.1} s; {}.\n",
        P::WHAT,
        (bytes * n * SETS) as f64 / (1 << 20) as f64,
        build_secs,
        run_secs,
        checked
    );
    let notes: Vec<String> = DENSITIES
        .iter()
        .enumerate()
        .filter_map(|(d, (dname, _))| P::note(&w, d).map(|n| format!("* at {dname}: {n}\n")))
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(out, "{}", notes.concat());
    }
    let arvo_cols = P::ARVO.is_some();
    let mut head = String::from(
        "| density (measured) | tier | count Melem/s | extend Melem/s | count vs scalar | extend vs scalar | extend cost vs count |",
    );
    let mut rule = String::from("|---|---|---:|---:|---:|---:|---:|");
    if arvo_cols {
        head.push_str(" count vs Arvo | extend vs Arvo |");
        rule.push_str("---:|---:|");
    }
    head.push_str(" count / plain sum | extend / plain sum |");
    rule.push_str("---:|---:|");
    let _ = writeln!(out, "{head}\n{rule}");

    for (d, (dname, _)) in DENSITIES.iter().enumerate() {
        let (lo, hi) = w.density_range(d);
        let dens = format!(
            "{dname} ({:.2}%, sets {:.2}–{:.2}%)",
            w.density(d) * 100.0,
            lo * 100.0,
            hi * 100.0
        );
        let sc = find(Kind::Kernel {
            d,
            b: Backend::Scalar,
            op: Op::Count,
        });
        let se = find(Kind::Kernel {
            d,
            b: Backend::Scalar,
            op: Op::Extend,
        });
        let arvo = P::ARVO.as_ref().map(|_| {
            (
                find(Kind::Arvo { d, op: Op::Count }),
                find(Kind::Arvo { d, op: Op::Extend }),
            )
        });
        for &b in backends {
            let c = find(Kind::Kernel {
                d,
                b,
                op: Op::Count,
            });
            let e = find(Kind::Kernel {
                d,
                b,
                op: Op::Extend,
            });
            let ext_cost = ratio(e, c) - 1.0;
            let mut line = format!(
                "| {dens} | {b} | {} | {} | {} | {} | {} |",
                fmt_rate(c),
                fmt_rate(e),
                fmt_x(ratio(sc, c)),
                fmt_x(ratio(se, e)),
                fmt_signed_pct(ext_cost)
            );
            let mut count_vs_arvo = None;
            if let Some((ac, ae)) = arvo {
                count_vs_arvo = Some(ratio(ac, c));
                let _ = write!(line, " {} | {} |", fmt_x(ratio(ac, c)), fmt_x(ratio(ae, e)));
            }
            let (cs, es) = (ratio(sum, c), ratio(sum, e));
            let _ = write!(line, " {} | {} |", fmt_pct(cs), fmt_pct(es));
            let _ = writeln!(out, "{line}");
            rows.push(Row {
                pair: P::NAME,
                n,
                d,
                b,
                count_vs_arvo,
                extend_over_count: ext_cost,
                count_of_sum: cs,
                extend_of_sum: es,
            });
        }
        if let Some((ac, ae)) = arvo {
            let mut line = format!(
                "| {dens} | Arvo (scalar, branchy, AoS) | {} | {} | {} | {} | {} |",
                fmt_rate(ac),
                fmt_rate(ae),
                fmt_x(ratio(sc, ac)),
                fmt_x(ratio(se, ae)),
                fmt_signed_pct(ratio(ae, ac) - 1.0)
            );
            let _ = write!(
                line,
                " 1x | 1x | {} | {} |",
                fmt_pct(ratio(sum, ac)),
                fmt_pct(ratio(sum, ae))
            );
            let _ = writeln!(out, "{line}");
        }
    }
    let cols = bytes / 4;
    let sum_aos = find(Kind::SumAos);
    for (label, ns, reference) in [
        (
            format!(
                "plain {} sum, {cols} column streams (the container's layout)",
                plain_sum_isa()
            ),
            sum,
            true,
        ),
        (
            format!("plain {} sum, 1 stream (array of structs)", plain_sum_isa()),
            sum_aos,
            false,
        ),
    ] {
        let gbs = bytes as f64 / median(ns);
        let mut line = format!("| — | {label}: {gbs:.1} GB/s | {} | | | | |", fmt_rate(ns));
        if arvo_cols {
            line.push_str(" | |");
        }
        if reference {
            line.push_str(" 100% | |");
        } else {
            let _ = write!(line, " {} | |", fmt_pct(ratio(sum, ns)));
        }
        let _ = writeln!(out, "{line}");
    }
}

/// Checks, before timing, that every tier agrees with scalar (and Arvo, for spheres) on every set
/// and query: same count, same index list, and `extend_hits` consistent with `count_hits`.
fn check<P: Pair>(w: &Workload<P>) -> String {
    let mut problems = Vec::new();
    let scalar = w.pins(Backend::Scalar);
    for d in 0..DENSITIES.len() {
        for (k, &sp) in scalar.iter().enumerate() {
            let q = &w.queries[d][k];
            let mut want = Vec::new();
            P::extend(sp, q, &mut want);
            if P::count(sp, q) != want.len() {
                problems.push(format!("scalar count != extend len (set {k})"));
            }
            for &b in Backend::available() {
                let p = P::pin(&w.sets[k], b);
                let mut got = Vec::new();
                P::extend(p, q, &mut got);
                if got != want || P::count(p, q) != want.len() {
                    problems.push(format!("{b} differs from scalar (set {k}, density {d})"));
                }
            }
            if let Some(a) = &P::ARVO {
                let mut got = Vec::new();
                (a.extend)(&w.aos[k], q, &mut got);
                if got != want || (a.count)(&w.aos[k], q) != want.len() {
                    problems.push(format!("Arvo differs from scalar (set {k}, density {d})"));
                }
            }
        }
    }
    if problems.is_empty() {
        let with = if P::ARVO.is_some() { " and Arvo" } else { "" };
        format!("hits checked: all tiers{with} agree")
    } else {
        eprintln!("MISMATCH: {problems:?}");
        format!("**MISMATCH**: {}", problems.join("; "))
    }
}

/// `YYYY-MM-DD HH:MM UTC` from the system clock.
fn now_utc() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// The 1-, 5- and 15-minute load averages (the machine is shared: a load above ~1 means another
/// process competed for the two cores).
fn load_avg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned())
}

/// The targets the project checks, from the rows.
fn targets(rows: &[Row]) -> String {
    let mut out = String::from("\n## Targets\n\n| target | measured | verdict |\n|---|---|---|\n");
    let verdict = |ok: bool| if ok { "met" } else { "**missed**" };
    let small = SIZES[0];
    let large = SIZES[SIZES.len() - 1];
    for (b, goal) in [(Backend::Avx2, 40.0), (Backend::Sse, 12.0)] {
        let got: Vec<(usize, f64)> = rows
            .iter()
            .filter(|r| r.pair == SphereVsAabbs::NAME && r.n == small && r.b == b)
            .filter_map(|r| r.count_vs_arvo.map(|x| (r.d, x)))
            .collect();
        if got.is_empty() {
            let _ = writeln!(
                out,
                "| {b} sphere vs {small} boxes count_hits ≥ {goal}x fair Arvo | tier not available | — |"
            );
            continue;
        }
        let text: Vec<String> = got
            .iter()
            .map(|(d, x)| format!("{}: {:.1}x", DENSITIES[*d].0, x))
            .collect();
        let ok = got.iter().all(|(_, x)| *x >= goal);
        let _ = writeln!(
            out,
            "| {b} sphere vs {small} boxes count_hits ≥ {goal}x fair Arvo | {} | {} |",
            text.join(", "),
            verdict(ok)
        );
    }
    // extend within 15 % of count at 50 %.
    let half = DENSITIES.iter().position(|(_, f)| *f == 0.5).unwrap_or(1);
    for simd in [true, false] {
        let sel: Vec<&Row> = rows
            .iter()
            .filter(|r| r.d == half && (r.b != Backend::Scalar) == simd)
            .collect();
        if sel.is_empty() {
            continue;
        }
        let worst = sel
            .iter()
            .max_by(|a, b| a.extend_over_count.total_cmp(&b.extend_over_count))
            .expect("non-empty");
        let failing: Vec<String> = sel
            .iter()
            .filter(|r| r.extend_over_count > 0.15)
            .map(|r| format!("{}/{}/{}: {}", r.pair, r.n, r.b, spct1(r.extend_over_count)))
            .collect();
        let tiers = if simd { "SIMD tiers" } else { "scalar tier" };
        let _ = writeln!(
            out,
            "| extend_hits at 50% within 15% of count_hits ({tiers}, all pairs and sizes) | worst {}/{}/{}: {}{} | {} |",
            worst.pair,
            worst.n,
            worst.b,
            spct1(worst.extend_over_count),
            if failing.is_empty() {
                String::new()
            } else {
                format!("; over 15%: {}", failing.join(", "))
            },
            verdict(failing.is_empty())
        );
    }
    // Bandwidth at the large size.
    for (op, get) in [("count_hits", 0), ("extend_hits", 1)] {
        let sel: Vec<&Row> = rows
            .iter()
            .filter(|r| r.n == large && r.b != Backend::Scalar)
            .collect();
        let val = |r: &Row| {
            if get == 0 {
                r.count_of_sum
            } else {
                r.extend_of_sum
            }
        };
        let describe =
            |r: &Row| format!("{}/{}/{}: {}", r.pair, DENSITIES[r.d].0, r.b, pct1(val(r)));
        for sphere_only in [true, false] {
            let sel: Vec<&&Row> = sel
                .iter()
                .filter(|r| !sphere_only || r.pair == SphereVsAabbs::NAME)
                .collect();
            if sel.is_empty() {
                continue;
            }
            let worst = sel
                .iter()
                .min_by(|a, b| val(a).total_cmp(&val(b)))
                .expect("non-empty");
            let failing: Vec<String> = sel
                .iter()
                .filter(|r| val(r) < 0.8)
                .map(|r| describe(r))
                .collect();
            let scope = if sphere_only {
                "sphere vs boxes"
            } else {
                "all pairs"
            };
            let _ = writeln!(
                out,
                "| {large} primitives: every SIMD tier's {op} ≥ 80% of the plain sum ({scope}) | worst {}{} | {} |",
                describe(worst),
                if failing.is_empty() {
                    String::new()
                } else {
                    format!("; below 80%: {}", failing.join(", "))
                },
                verdict(failing.is_empty())
            );
        }
    }
    out
}

fn main() {
    let s = Settings::from_args();
    let t0 = Instant::now();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# bvlanes benchmark table{}\n",
        if s.quick { " (--quick)" } else { "" }
    );
    let _ = writeln!(out, "* date: {}", now_utc());
    let _ = writeln!(
        out,
        "* CPU: {} ({} logical CPUs)",
        cpu_model(),
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    let _ = writeln!(
        out,
        "* load average at the start (1/5/15 min): {}",
        load_avg()
    );
    let avail: Vec<String> = Backend::available().iter().map(|b| b.to_string()).collect();
    let _ = writeln!(
        out,
        "* backends available: {} (detected: {})",
        avail.join(", "),
        Backend::detect()
    );
    let _ = writeln!(
        out,
        "* method: {} rounds; each round samples every variant once ({} ms slices at 4096, {} ms at 1M), interleaved; \
         throughputs are medians over rounds (± = half the interquartile range), ratios are medians of per-round ratios",
        s.rounds,
        s.slice_small.as_millis(),
        s.slice_large.as_millis()
    );
    let _ = writeln!(
        out,
        "* every variant, kernels and baselines alike, cycles through {SETS} data sets (its own query each), \
         never repeating a pass; Melem/s = primitives tested per second; \"vs\" columns are speed-ups (>1 = this tier faster); \
         \"extend cost\" = extend_hits time / count_hits time − 1; \"/ plain sum\" = throughput as a fraction of a plain SIMD \
         sum over the same bytes (at 1M: the fraction of single-thread memory bandwidth)"
    );
    print!("{out}");
    out.clear();

    let mut rows = Vec::new();
    for &n in &SIZES {
        let _ = writeln!(out, "\n## {n} primitives per set");
        print!("{out}");
        out.clear();
        macro_rules! pair {
            ($p:ty) => {
                eprintln!(
                    "[{:5.1} s] measuring {} at {}",
                    t0.elapsed().as_secs_f64(),
                    <$p>::NAME,
                    n
                );
                measure::<$p>(n, &s, &mut out, &mut rows);
                print!("{out}");
                out.clear();
            };
        }
        pair!(SphereVsAabbs);
        pair!(BoxVsAabbs);
        pair!(DownTetVsUpTets);
        pair!(OctahedronVsOctahedra);
    }
    print!("{}", targets(&rows));
    println!(
        "\nTotal wall time: {:.1} s; load average at the end: {}",
        t0.elapsed().as_secs_f64(),
        load_avg()
    );
}
