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
//! * `frusta`: many queries at once (issue 20): the six faces of a cube map against 1,000,000
//!   spheres and 1,000,000 boxes, as one batch (`count_hits_many`, `hits_many_into`) against six
//!   one-frustum scans (`count_hits`, `extend_hits`), per backend, next to the plain SIMD sum.
//! * `lights`: light culling (`bvlanes::cull`): a uniform grid against the exact brute force, and
//!   two froxel scenes (Bevy's `many_lights`, an indoor room) against the brute force over the
//!   froxels' boxes and a Bevy-style port of Bevy's clustering (`benches/common/bevy_clusters.rs`).
//! * `broadphase`: every overlapping pair among N boxes (`bvlanes::broadphase`) on Terdiman's
//!   distribution (10,000 and 100,000 boxes), 100,000 uniform boxes and a clustered scene of
//!   touching unit boxes, against a plain scalar sort-and-sweep, box pruning v17's algorithm and
//!   a SIMD brute force (`benches/common/box_scenes.rs`, `benches/common/sort_and_sweep.rs`,
//!   `benches/common/box_pruning.rs`); and, as
//!   `broadphase_bipartite`, 1 to 256 of the uniform scene's boxes against all of it (the batch
//!   up to 128, the sweep above).
//! * `blocked`: `Blocked<Aabbs>` against the flat `Aabbs` scan and a packed R-tree
//!   (`packed_spatial_index`): 1,000 box queries over 100,000 and 1,000,000 boxes, 100 frusta from
//!   inside and outside the cloud, builds, and a refit after 1 % of the boxes moved.
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
mod blocked;
mod broadphase;
mod data;
mod frusta;
mod larsson;
mod lights;
mod limit;
mod machine;
mod report;
mod sampler;
mod svg;

use bvlanes::Backend;
use clap::{Parser, ValueEnum};
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
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
enum Format {
    #[value(alias = "md")]
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
const TABLES: [&str; 8] = [
    "larsson-aabb",
    "larsson-obb",
    "aabo",
    "limit",
    "frusta",
    "lights",
    "broadphase",
    "blocked",
];

/// The command line as clap sees it; [`Args`] is what the run uses.
#[derive(Parser, Debug)]
#[command(
    name = "bvlanes-bench",
    about = "The bvlanes benchmark tables on built-in data (markdown, CSV or JSON on stdout).",
    after_help = "Repeated --table and --backend flags add up; tables always run in the order above."
)]
struct Cli {
    /// Tables to run (`--table` or `--tables`).
    #[arg(
        long = "table",
        alias = "tables",
        value_name = "LIST",
        value_delimiter = ',',
        value_parser = parse_tables,
        help = "tables to run, comma-separated: larsson-aabb, larsson-obb, larsson (both),\n\
                aabo, limit, frusta, lights, broadphase, blocked, all [default: all]"
    )]
    tables: Vec<Tables>,
    /// Tiers timed (`--backend` or `--backends`).
    #[arg(
        long = "backend",
        alias = "backends",
        value_name = "LIST",
        value_delimiter = ',',
        value_parser = parse_backend,
        help = "tiers whose kernels are timed, comma-separated: scalar, sse, avx2, avx512\n\
                [default: every tier this CPU runs]"
    )]
    backends: Vec<Backend>,
    #[arg(
        long,
        value_name = "N",
        value_parser = parse_n,
        help = "problem size: pairs per data set (larsson, default 2000000), objects\n\
                (aabo, default 1000000), primitives of the DRAM-sized sets (limit, default\n\
                1048576), spheres and boxes (frusta, default 1000000), lights (lights: uniform scene 10000, many_lights 100000, indoor 4096\n\
                at most), boxes per scene (broadphase: one size for every scene instead of\n\
                Terdiman 10000 and 100000, uniform 100000, clustered 100000), boxes of the\n\
                larger blocked scene (blocked, default 1000000; the smaller is 100000)"
    )]
    n: Option<usize>,
    #[arg(
        long,
        value_name = "F",
        value_enum,
        default_value = "markdown",
        hide_possible_values = true,
        help = "markdown (or md), csv or json, on stdout [default: markdown]",
        hide_default_value = true
    )]
    format: Format,
    #[arg(
        long,
        value_name = "DIR",
        help = "also write each table to DIR/<table>.<md|csv|json> and a chart to DIR/<table>.svg"
    )]
    out: Option<PathBuf>,
    #[arg(
        long,
        value_name = "R",
        value_parser = clap::value_parser!(u32).range(1..),
        help = "interleaved rounds per measurement [default: 5, or 3 with --quick]"
    )]
    rounds: Option<u32>,
    #[arg(
        long,
        help = "3 rounds with short samples (a smoke run; figures are rough)"
    )]
    quick: bool,
    #[arg(long, help = "no progress lines on stderr")]
    quiet: bool,
    #[arg(
        long,
        help = "rayon's default worker pool; by default worker i is pinned to core i (a woken\n\
                worker otherwise starts on the busy CPU for milliseconds on some machines)"
    )]
    no_pin: bool,
}

/// Some of [`TABLES`], as one `--table` name selects them.
#[derive(Clone, Copy, Debug)]
struct Tables(&'static [&'static str]);

fn parse_tables(name: &str) -> Result<Tables, String> {
    match name.trim() {
        "all" => Ok(Tables(&TABLES)),
        "larsson" => Ok(Tables(&TABLES[..2])),
        other => TABLES
            .iter()
            .find(|t| **t == other)
            .map(|t| Tables(std::slice::from_ref(t)))
            .ok_or_else(|| format!("unknown table `{other}`")),
    }
}

fn parse_backend(name: &str) -> Result<Backend, String> {
    let name = name.trim();
    let b: Backend = name.parse().map_err(|e| format!("{e}"))?;
    b.check().map_err(|e| format!("backend `{name}`: {e}"))
}

fn parse_n(v: &str) -> Result<usize, String> {
    let n: usize = v
        .replace('_', "")
        .parse()
        .map_err(|_| format!("`{v}` is not a number"))?;
    if n == 0 || n > u32::MAX as usize / 2 {
        return Err(format!("must be between 1 and {}", u32::MAX / 2));
    }
    Ok(n)
}

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

impl From<Cli> for Args {
    fn from(c: Cli) -> Args {
        let selected: Vec<&str> = c.tables.iter().flat_map(|t| t.0).copied().collect();
        let mut backends: Vec<Backend> = Vec::new();
        for b in c.backends {
            if !backends.contains(&b) {
                backends.push(b);
            }
        }
        Args {
            // Tables keep the order of TABLES; backends the order given.
            tables: if selected.is_empty() {
                TABLES.to_vec()
            } else {
                TABLES
                    .iter()
                    .copied()
                    .filter(|x| selected.contains(x))
                    .collect()
            },
            backends: if backends.is_empty() {
                Backend::available().to_vec()
            } else {
                backends
            },
            n: c.n,
            format: c.format,
            out: c.out,
            rounds: c.rounds.map_or(if c.quick { 3 } else { 5 }, |r| r as usize),
            quick: c.quick,
            quiet: c.quiet,
            no_pin: c.no_pin,
        }
    }
}

fn main() -> ExitCode {
    // `--help` prints and exits 0; a bad flag or value exits 2 with a message naming it.
    let args = Args::from(Cli::parse());
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
            "frusta" => frusta::run(&ctx),
            "lights" => lights::run(&ctx, &mut targets),
            "broadphase" => broadphase::run(&ctx, &mut targets),
            "blocked" => blocked::run(&ctx, &mut targets),
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
    use clap::CommandFactory;
    use clap::error::ErrorKind;

    fn parse(s: &str) -> Result<Args, clap::Error> {
        Cli::try_parse_from(std::iter::once("bvlanes-bench").chain(s.split_whitespace()))
            .map(Args::from)
    }

    fn err(s: &str) -> String {
        parse(s).unwrap_err().to_string()
    }

    #[test]
    fn arguments() {
        Cli::command().debug_assert();
        let a = parse("").unwrap();
        assert_eq!(a.tables, TABLES);
        assert_eq!(a.backends, Backend::available());
        assert_eq!(
            (a.n, a.format, a.rounds, a.out),
            (None, Format::Markdown, 5, None)
        );
        let a = parse("--table limit,larsson --n 1_000 --format csv --quick").unwrap();
        assert_eq!(a.tables, ["larsson-aabb", "larsson-obb", "limit"]);
        assert_eq!((a.n, a.format, a.rounds), (Some(1000), Format::Csv, 3));
        let a = parse("--table lights").unwrap();
        assert_eq!(a.tables, ["lights"]);
        let a = parse("--table lights,frusta,limit").unwrap();
        assert_eq!(a.tables, ["limit", "frusta", "lights"]);
        let a = parse("--tables broadphase,lights --format md --rounds 7 --out x").unwrap();
        assert_eq!(a.tables, ["lights", "broadphase"]);
        assert_eq!((a.format, a.rounds), (Format::Markdown, 7));
        assert_eq!(a.out, Some(PathBuf::from("x")));
        let a = parse("--table limit --table aabo --backend sse --backends scalar,sse").unwrap();
        assert_eq!(a.tables, ["aabo", "limit"]);
        assert_eq!(a.backends, [Backend::Sse, Backend::Scalar]);
        assert_eq!(parse("--table all,larsson").unwrap().tables, TABLES);
        assert_eq!(parse("--help").unwrap_err().kind(), ErrorKind::DisplayHelp);
        assert_eq!(parse("-h").unwrap_err().kind(), ErrorKind::DisplayHelp);
        assert!(err("--table nope").contains("unknown table `nope`"));
        assert!(err("--backend quantum").contains("quantum"));
        assert!(err("--format xml").contains("xml"));
        assert!(err("--n 0").contains("--n"));
        assert!(err("--n ten").contains("`ten` is not a number"));
        assert!(err("--n").contains("--n"));
        assert!(err("--rounds 0").contains("--rounds"));
        assert!(err("--bench").contains("--bench"));
        assert!(err("stray").contains("stray"));
        assert!(!parse("").unwrap().no_pin);
        assert!(parse("--no-pin --quick").unwrap().no_pin);
        let a = parse("--backend scalar").unwrap();
        assert_eq!(a.backends, [Backend::Scalar]);
    }
}
