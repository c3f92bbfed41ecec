//! `bvlanes-bench`: the project's benchmark tables, regenerated on built-in data.
//!
//! ```text
//! cargo run --release -p bvlanes-bench                       # every table, markdown, ~2 minutes
//! cargo run --release -p bvlanes-bench -- --table aabo --n 10000000 --format csv --out results
//! ```
//!
//! Tables (`--table`, comma-separated; default all):
//!
//! * `larsson-aabb`, `larsson-obb` (or `larsson` for both): Tables 1 and 2 of seed 000 — two
//!   million independent sphere/box pairs at five overlap frequencies; the seed's one-vs-one
//!   tests against `bvlanes::pairwise` on every tier; ms per 2M tests, speed-ups over Arvo, the
//!   Error row, and the counts checked against an f64 brute force.
//! * `aabo`: the AABO readme's table — AABB MIN,MAX / X,Y,Z / 7-sided / direct, AABO, exact
//!   AABO and Tetrahedron, per backend, with the stage pass counts ("partial").
//! * `limit`: one query against a container on every tier next to a plain SIMD sum over the same
//!   arrays (the memory-bandwidth limit), L2-resident and DRAM-sized.
//! * `lights`: light culling (`bvlanes::cull`): a uniform grid against the exact brute force, and
//!   two froxel scenes (Bevy's `many_lights`, an indoor room) against the brute force over the
//!   froxels' boxes and a Bevy-style port of Bevy's clustering (`benches/common/bevy_clusters.rs`).
//! * `broadphase`: every overlapping pair among N boxes (`bvlanes::broadphase`) on Terdiman's
//!   distribution (10,000 and 100,000 boxes), 100,000 uniform boxes and a clustered scene of
//!   touching unit boxes, against a plain scalar sort-and-sweep and a SIMD brute force
//!   (`benches/common/box_scenes.rs`, `benches/common/sort_and_sweep.rs`).
//!
//! Method: every variant of a table is sampled once per round, rounds are interleaved and
//! repeated; figures are medians, ratios are medians of per-round ratios (the machine is shared).
//!
//! Threads: before any table runs, rayon's global pool is built with one worker per core, worker
//! `i` pinned to core `i` (`--no-pin`: rayon's default pool). On the project's VM a woken worker
//! otherwise starts on the waker's busy CPU and runs in parallel only milliseconds later, so the
//! 1-3 ms light assignment frames measured about 1.0x on all threads. The report header says
//! which pool ran, and falls back to the default pool if pinning is unavailable.

#[path = "../../benches/common/mod.rs"]
mod common;

mod aabo;
mod broadphase;
mod data;
mod larsson;
mod lights;
mod limit;
mod machine;
mod report;
mod sampler;
mod svg;

use bvlanes::Backend;
use common::pin::{Pinning, pin_global_pool};
use machine::Progress;
use report::{Table, Target, json_string, targets_table};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// What every table's code gets: the tiers to run, timing settings, the size override.
pub struct Ctx<'p> {
    /// Backends whose kernels are timed (`--backend`).
    pub backends: Vec<Backend>,
    /// Rounds per measurement.
    pub rounds: usize,
    /// Target duration of one sample.
    pub slice: Duration,
    /// Problem size override (`--n`): pairs, objects or primitives, per table.
    pub n: Option<usize>,
    /// Progress on stderr.
    pub progress: &'p Progress,
}

/// The label of a `bvlanes::pairwise` row.
pub fn bvlanes_pairs_label(b: Backend) -> String {
    format!("bvlanes pairwise {b}")
}

/// Output format.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Format {
    Markdown,
    Csv,
    Json,
}

impl Format {
    fn ext(self) -> &'static str {
        match self {
            Format::Markdown => "md",
            Format::Csv => "csv",
            Format::Json => "json",
        }
    }
}

/// Every table, in output order.
const TABLES: [&str; 6] = [
    "larsson-aabb",
    "larsson-obb",
    "aabo",
    "limit",
    "lights",
    "broadphase",
];

const USAGE: &str = "\
usage: bvlanes-bench [options]

  --table LIST     tables to run, comma-separated: larsson-aabb, larsson-obb, larsson (both),
                   aabo, limit, lights, broadphase, all (default: all)
  --backend LIST   tiers whose kernels are timed, comma-separated: scalar, sse, avx2, avx512
                   (default: every tier this CPU runs)
  --n N            problem size: pairs per data set (larsson, default 2000000), objects
                   (aabo, default 1000000), primitives of the DRAM-sized sets (limit, default 1048576),
                   lights (lights: uniform scene 10000, many_lights 100000, indoor 4096 at most),
                   boxes per scene (broadphase: one size for every scene instead of Terdiman
                   10000 and 100000, uniform 100000, clustered 100000)
  --format F       markdown (default), csv or json, on stdout
  --out DIR        also write each table to DIR/<table>.<md|csv|json> and a chart to DIR/<table>.svg
  --rounds R       interleaved rounds per measurement (default 5)
  --quick          3 rounds with short samples (a smoke run; figures are rough)
  --quiet          no progress lines on stderr
  --no-pin         rayon's default worker pool; by default worker i is pinned to core i (a woken
                   worker otherwise starts on the busy CPU for milliseconds on some machines)
  -h, --help       this text
";

/// Parsed command line.
#[derive(Debug)]
struct Args {
    tables: Vec<&'static str>,
    backends: Vec<Backend>,
    n: Option<usize>,
    format: Format,
    out: Option<PathBuf>,
    rounds: usize,
    quick: bool,
    quiet: bool,
    /// `--no-pin`: do not pin rayon's workers to cores.
    no_pin: bool,
}

fn parse_args(mut it: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let mut a = Args {
        tables: TABLES.to_vec(),
        backends: Backend::available().to_vec(),
        n: None,
        format: Format::Markdown,
        out: None,
        rounds: 5,
        quick: false,
        quiet: false,
        no_pin: false,
    };
    let mut rounds = None;
    let (mut tables, mut backends): (Vec<&'static str>, Vec<Backend>) = (Vec::new(), Vec::new());
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match flag.as_str() {
            "-h" | "--help" => return Ok(None),
            "--table" | "--tables" => {
                let t = &mut tables;
                for name in value("--table")?.split(',').map(str::trim) {
                    let add: &[&'static str] = match name {
                        "all" => &TABLES,
                        "larsson" => &TABLES[..2],
                        other => match TABLES.iter().find(|t| **t == other) {
                            Some(t) => std::slice::from_ref(t),
                            None => return Err(format!("unknown table `{other}`")),
                        },
                    };
                    for x in add {
                        if !t.contains(x) {
                            t.push(*x);
                        }
                    }
                }
            }
            "--backend" | "--backends" => {
                let bs = &mut backends;
                for name in value("--backend")?.split(',').map(str::trim) {
                    let b: Backend = name.parse().map_err(|e| format!("{e}"))?;
                    let b = b.check().map_err(|e| format!("backend `{name}`: {e}"))?;
                    if !bs.contains(&b) {
                        bs.push(b);
                    }
                }
            }
            "--n" => {
                let v = value("--n")?;
                let n: usize = v
                    .replace('_', "")
                    .parse()
                    .map_err(|_| format!("--n: `{v}` is not a number"))?;
                if n == 0 || n > u32::MAX as usize / 2 {
                    return Err(format!("--n must be between 1 and {}", u32::MAX / 2));
                }
                a.n = Some(n);
            }
            "--format" => {
                a.format = match value("--format")?.as_str() {
                    "markdown" | "md" => Format::Markdown,
                    "csv" => Format::Csv,
                    "json" => Format::Json,
                    other => return Err(format!("unknown format `{other}`")),
                };
            }
            "--out" => a.out = Some(PathBuf::from(value("--out")?)),
            "--rounds" => {
                let v = value("--rounds")?;
                let r: usize = v
                    .parse()
                    .map_err(|_| format!("--rounds: `{v}` is not a number"))?;
                if r == 0 {
                    return Err("--rounds must be at least 1".to_owned());
                }
                rounds = Some(r);
            }
            "--quick" => a.quick = true,
            "--quiet" => a.quiet = true,
            "--no-pin" => a.no_pin = true,
            // `cargo bench` style harness flags are not ours.
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    // Repeated --table and --backend flags add up; tables keep the order of TABLES.
    if !tables.is_empty() {
        a.tables = TABLES
            .iter()
            .copied()
            .filter(|x| tables.contains(x))
            .collect();
    }
    if !backends.is_empty() {
        a.backends = backends;
    }
    a.rounds = rounds.unwrap_or(if a.quick { 3 } else { 5 });
    Ok(Some(a))
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Some(a)) => a,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("bvlanes-bench: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if let Some(dir) = &args.out {
        // Fail before measuring anything if the directory cannot take the files.
        let probe = dir.join(".bvlanes-bench-write-test");
        let ok = std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(&probe, b"ok"))
            .and_then(|()| std::fs::remove_file(&probe));
        if let Err(e) = ok {
            eprintln!("bvlanes-bench: cannot write to {}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
    }
    // Before anything touches rayon's global pool (a `ClusterGrid` reads its size).
    let pinning = if args.no_pin {
        Pinning::Unpinned("`--no-pin`: rayon's default pool".to_owned())
    } else {
        pin_global_pool()
    };
    let progress = Progress::new(args.quiet);
    if !args.no_pin && !matches!(pinning, Pinning::Pinned(_)) {
        eprintln!(
            "bvlanes-bench: rayon workers {}; the timings use rayon's default pool",
            pinning.describe()
        );
    }
    let ctx = Ctx {
        backends: args.backends.clone(),
        rounds: args.rounds,
        slice: Duration::from_millis(if args.quick { 2 } else { 10 }),
        n: args.n,
        progress: &progress,
    };
    let header = header(&args, &pinning);
    if args.format == Format::Markdown {
        print!("{header}");
    }

    let mut tables: Vec<Table> = Vec::new();
    let mut targets: Vec<Target> = Vec::new();
    for &name in &args.tables {
        progress.note(&format!("table {name}"));
        let new = match name {
            "larsson-aabb" => larsson::run(&ctx, &mut targets, false),
            "larsson-obb" => larsson::run(&ctx, &mut targets, true),
            "aabo" => aabo::run(&ctx, &mut targets),
            "limit" => limit::run(&ctx, &mut targets),
            "lights" => lights::run(&ctx, &mut targets),
            "broadphase" => broadphase::run(&ctx, &mut targets),
            _ => unreachable!("table names are checked when parsed"),
        };
        for t in &new {
            match args.format {
                Format::Markdown => print!("{}", t.markdown()),
                Format::Csv => print!("# table: {}\n{}\n", t.id, t.csv()),
                Format::Json => {}
            }
        }
        tables.extend(new);
    }
    if !targets.is_empty() {
        let t = targets_table(&targets);
        match args.format {
            Format::Markdown => print!("{}", t.markdown()),
            Format::Csv => print!("# table: {}\n{}\n", t.id, t.csv()),
            Format::Json => {}
        }
        tables.push(t);
    }
    if args.format == Format::Json {
        let body: Vec<String> = tables.iter().map(Table::json).collect();
        println!(
            "{{\n\"header\": {},\n\"tables\": [\n{}\n]\n}}",
            json_string(&header),
            body.join(",\n")
        );
    }
    let footer = format!(
        "\nTotal wall time: {:.1} s; load average at the end: {}\n",
        progress.elapsed(),
        machine::load_avg()
    );
    if args.format == Format::Markdown {
        print!("{footer}");
    }
    progress.note("done");

    if let Some(dir) = &args.out {
        for t in &tables {
            let (body, ext) = match args.format {
                Format::Markdown => (format!("{header}{}", t.markdown()), "md"),
                Format::Csv => (t.csv(), "csv"),
                Format::Json => (t.json(), "json"),
            };
            debug_assert_eq!(ext, args.format.ext());
            let mut files = vec![(dir.join(format!("{}.{ext}", t.id)), body)];
            if let Some(c) = &t.chart {
                files.push((dir.join(format!("{}.svg", t.id)), c.to_svg()));
            }
            for (path, body) in files {
                if let Err(e) = std::fs::write(&path, body) {
                    eprintln!("bvlanes-bench: cannot write {}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
            }
        }
        progress.note(&format!(
            "wrote {} tables to {}",
            tables.len(),
            dir.display()
        ));
    }
    if tables
        .iter()
        .any(|t| t.notes.iter().any(|n| n.contains("MISMATCH")))
    {
        eprintln!("bvlanes-bench: a result check failed (see MISMATCH in the output)");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// The run's header: date, machine, backends, method.
fn header(a: &Args, pinning: &Pinning) -> String {
    let avail: Vec<String> = Backend::available().iter().map(|b| b.to_string()).collect();
    let timed: Vec<String> = a.backends.iter().map(|b| b.to_string()).collect();
    format!(
        "# bvlanes-bench{}\n\n\
         * date: {}\n\
         * CPU: {} ({} logical CPUs; SIMD: {}); load average at the start (1/5/15 min): {}\n\
         * backends available: {} (detected: {}); timed: {}\n\
         * rayon workers: {}; pinned by default because a woken worker otherwise starts on the \
           waker's busy CPU here and runs in parallel only milliseconds later\n\
         * method: {} interleaved rounds per measurement, every variant sampled once per round; figures are medians over \
           rounds, ratios medians of per-round ratios; branchy baselines cycle through several data sets\n",
        if a.quick { " (--quick)" } else { "" },
        machine::now_utc(),
        machine::cpu_description(),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        machine::simd_features(),
        machine::load_avg(),
        avail.join(", "),
        Backend::detect(),
        timed.join(", "),
        pinning.describe(),
        a.rounds
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Option<Args>, String> {
        parse_args(s.split_whitespace().map(str::to_owned))
    }

    #[test]
    fn arguments() {
        let a = parse("").unwrap().unwrap();
        assert_eq!(a.tables, TABLES);
        assert_eq!(a.backends, Backend::available());
        let a = parse("--table limit,larsson --n 1_000 --format csv --quick")
            .unwrap()
            .unwrap();
        assert_eq!(a.tables, ["larsson-aabb", "larsson-obb", "limit"]);
        assert_eq!((a.n, a.format, a.rounds), (Some(1000), Format::Csv, 3));
        let a = parse("--table lights").unwrap().unwrap();
        assert_eq!(a.tables, ["lights"]);
        let a = parse("--table broadphase,lights").unwrap().unwrap();
        assert_eq!(a.tables, ["lights", "broadphase"]);
        let a = parse("--table limit --table aabo --backend sse --backend scalar")
            .unwrap()
            .unwrap();
        assert_eq!(a.tables, ["aabo", "limit"]);
        assert_eq!(a.backends, [Backend::Sse, Backend::Scalar]);
        assert!(parse("--help").unwrap().is_none());
        assert!(parse("--table nope").unwrap_err().contains("nope"));
        assert!(parse("--backend quantum").is_err());
        assert!(parse("--n 0").is_err());
        assert!(parse("--n").unwrap_err().contains("needs a value"));
        assert!(parse("--rounds 0").is_err());
        assert!(parse("--bench").is_err());
        assert!(!parse("").unwrap().unwrap().no_pin);
        assert!(parse("--no-pin --quick").unwrap().unwrap().no_pin);
        let a = parse("--backend scalar").unwrap().unwrap();
        assert_eq!(a.backends, [Backend::Scalar]);
    }
}
