//! Smoke test of the `bvlanes-bench` binary on tiny sizes: every table has its shape, and every
//! count it reports equals a brute-force count.

use std::collections::BTreeMap;
use std::process::Command;

/// Runs the binary with `args` and returns its stdout; fails the test on a non-zero exit.
fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_bvlanes-bench"))
        .args(args)
        .output()
        .expect("bvlanes-bench runs");
    assert!(
        out.status.success(),
        "bvlanes-bench {args:?} failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    // A table whose counts disagree says so on stderr (and in its markdown notes, which the CSV
    // output does not carry): every run of every test checks it here.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("MISMATCH"),
        "bvlanes-bench {args:?}: {stderr}"
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Splits a CSV line (quoted fields with doubled quotes).
fn fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                out.last_mut().unwrap().push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out
}

/// The CSV tables of a run: id -> rows (the header first).
fn tables(csv: &str) -> BTreeMap<String, Vec<Vec<String>>> {
    let mut t: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
    let mut current = None;
    for line in csv.lines() {
        if let Some(id) = line.strip_prefix("# table: ") {
            current = Some(id.to_owned());
            t.insert(id.to_owned(), Vec::new());
        } else if !line.is_empty() {
            let id = current.as_ref().expect("a table header first");
            t.get_mut(id).unwrap().push(fields(line));
        }
    }
    t
}

fn row<'a>(t: &'a [Vec<String>], name: &str) -> &'a [String] {
    t.iter()
        .find(|r| r[0] == name)
        .unwrap_or_else(|| panic!("no row {name}"))
}

fn num(s: &str) -> f64 {
    s.parse()
        .unwrap_or_else(|_| panic!("`{s}` is not a number"))
}

#[test]
fn larsson_tables_have_their_shape_and_brute_force_counts() {
    let out = run(&[
        "--table", "larsson", "--n", "3000", "--quick", "--rounds", "1", "--quiet", "--format",
        "csv",
    ]);
    let t = tables(&out);
    for kind in ["larsson-aabb", "larsson-obb"] {
        for suffix in ["", "-speedup", "-counts"] {
            let id = format!("{kind}{suffix}");
            let rows = t.get(&id).unwrap_or_else(|| panic!("table {id} missing"));
            assert_eq!(rows[0].len(), 6, "{id}: method + five settings");
            assert!(rows.iter().all(|r| r.len() == 6), "{id}: ragged rows");
        }
        let counts = &t[&format!("{kind}-counts")];
        let brute = row(counts, "brute force (f64 closest point)");
        let near = row(counts, "pairs within 1e-5 of touching");
        let exact_rows: Vec<&Vec<String>> = counts[1..]
            .iter()
            .filter(|r| {
                ![
                    "Cons",
                    "brute force (f64 closest point)",
                    "pairs within 1e-5 of touching",
                ]
                .contains(&r[0].as_str())
            })
            .collect();
        assert_eq!(
            exact_rows.len(),
            4 + bvlanes::Backend::available().len(),
            "{kind}"
        );
        for s in 1..6 {
            let (b, slack) = (num(&brute[s]), num(&near[s]));
            for r in &exact_rows {
                assert!(
                    (num(&r[s]) - b).abs() <= slack,
                    "{kind} {} setting {s}: {} vs brute {b}",
                    r[0],
                    r[s]
                );
            }
            assert!(
                num(&row(counts, "Cons")[s]) >= b - slack,
                "{kind}: Cons is a superset"
            );
        }
        // The overlap frequencies rise with the settings, as in the paper.
        let overlap = row(&t[kind], "overlap (measured, brute force in f64)");
        let f: Vec<f64> = overlap[1..].iter().map(|s| num(s)).collect();
        assert!(f.windows(2).all(|w| w[0] < w[1]), "{f:?}");
    }
    assert!(t.contains_key("targets"));
}

#[test]
fn aabo_table_counts_equal_brute_force() {
    let out = run(&[
        "--table", "aabo", "--n", "3000", "--quick", "--rounds", "1", "--quiet", "--format", "csv",
    ]);
    let t = tables(&out);
    let rows = &t["aabo"];
    let head = &rows[0];
    let col = |name: &str| {
        head.iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    let (accepts, brute) = (col("accepts"), col("brute force accepts"));
    let (s1, s2) = (col("partial (stage 1)"), col("partial (stage 2)"));
    let backends = bvlanes::Backend::available().len();
    // 4 box strategies + AABO + exact AABO + Tetrahedron, then the batched AABB, AABO, exact AABO
    // and Tetrahedron on one thread and on all, and the same four on the blocked containers, per
    // backend.
    assert_eq!(rows.len() - 1, 19 * backends);
    // A batched or blocked row accepts exactly what its one-query row accepts (same backend).
    for r in &rows[1..] {
        // (The batched and blocked box rows run the default strategy; the box strategies'
        // accepts are compared with each other below.)
        let batched = r[1].strip_suffix(", all threads").unwrap_or(&r[1]);
        let single = batched
            .strip_suffix(", batched")
            .or_else(|| batched.strip_suffix(", blocked"));
        if let Some(single) = single.filter(|&s| s != "AABB") {
            let twin = rows[1..]
                .iter()
                .find(|t| t[0] == r[0] && t[1] == single)
                .unwrap_or_else(|| panic!("no one-query row for {r:?}"));
            assert_eq!(r[accepts], twin[accepts], "{r:?} against {twin:?}");
            assert_eq!(r[s1], twin[s1], "{r:?} against {twin:?}");
            assert_eq!(r[s2], twin[s2], "{r:?} against {twin:?}");
        }
    }
    let mut box_accepts = None;
    for r in &rows[1..] {
        assert_eq!(r[accepts], r[brute], "{r:?}");
        let a = num(&r[accepts]);
        // Stage counts never increase along the stages.
        let stages: Vec<f64> = [s1, s2]
            .iter()
            .filter(|&&c| !r[c].is_empty())
            .map(|&c| num(&r[c]))
            .chain([a])
            .collect();
        assert!(stages.windows(2).all(|w| w[0] >= w[1]), "{r:?}");
        // Every box strategy gives the same answer.
        if r[1].starts_with("AABB") || r[1].starts_with("7-Sided") {
            assert_eq!(*box_accepts.get_or_insert(a), a, "{r:?}");
        }
    }
    // The 100 queries are objects themselves: every one hits at least itself.
    assert!(box_accepts.unwrap() >= 100.0);
}

#[test]
fn limit_table_and_output_files() {
    let dir = std::env::temp_dir().join(format!("bvlanes-bench-smoke-{}", std::process::id()));
    let out = run(&[
        "--table",
        "limit",
        "--n",
        "5000",
        "--quick",
        "--rounds",
        "1",
        "--quiet",
        "--format",
        "json",
        "--backend",
        "scalar,sse",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(out.trim_start().starts_with('{') && out.trim_end().ends_with('}'));
    assert!(out.contains("\"id\": \"limit\""));
    let json = std::fs::read_to_string(dir.join("limit.json")).expect("limit.json written");
    assert!(json.contains("\"columns\""));
    let svg = std::fs::read_to_string(dir.join("limit.svg")).expect("limit.svg written");
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    // 9 pairs x 2 sizes x (2 densities x 2 backends + the plain sum) rows.
    let rows = json.matches("\n    [").count();
    assert_eq!(rows, 9 * 2 * (2 * 2 + 1), "{json}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn frusta_batched_rows_agree_with_the_one_query_rows() {
    let out = run(&[
        "--table", "frusta", "--n", "3000", "--quick", "--rounds", "1", "--quiet", "--format",
        "csv",
    ]);
    assert!(!out.contains("MISMATCH"), "{out}");
    let t = tables(&out);
    let rows = &t["frusta"];
    assert_eq!(
        rows[0],
        [
            "container",
            "tier",
            "row",
            "hits (6 faces)",
            "ms",
            "M tests/s",
            "GB/s tested",
            "/ plain sum",
            "vs six scans"
        ]
    );
    let backends = bvlanes::Backend::available();
    // Per container: four rows per backend, then the plain sum.
    assert_eq!(rows.len() - 1, 2 * (4 * backends.len() + 1));
    for container in ["Spheres", "Aabbs"] {
        let r: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] == container).collect();
        assert!(r.last().unwrap()[2].starts_with("plain "), "{container}");
        let hits = num(&r[0][3]);
        assert!(hits > 0.0, "{container}: no hit");
        for b in backends {
            let of = |row: &str| {
                r.iter()
                    .find(|x| x[1] == b.name() && x[2] == row)
                    .unwrap_or_else(|| panic!("{container} {b}: no row {row}"))
            };
            // A batch reports what its six one-frustum calls report, on every tier alike.
            for (batch, single) in [
                ("count_hits_many (one batch)", "6 x count_hits"),
                ("hits_many_into (one batch)", "6 x extend_hits"),
            ] {
                let (x, y) = (of(batch), of(single));
                assert_eq!(x[3], y[3], "{x:?} against {y:?}");
                assert_eq!(num(&x[3]), hits, "{x:?}");
                assert!(num(&x[4]) > 0.0 && num(&x[8]) > 0.0, "{x:?}");
                assert_eq!(num(&y[8]), 1.0, "{y:?}");
            }
        }
    }
}

#[test]
fn lights_table_matches_the_brute_force() {
    let out = run(&[
        "--table", "lights", "--n", "300", "--quick", "--rounds", "1", "--quiet", "--format",
        "json",
    ]);
    assert!(out.contains("\"id\": \"lights\""), "{out}");
    // The header says which rayon pool ran (pinned, or why not: pinning may be unavailable).
    assert!(out.contains("rayon workers: "), "{out}");
    assert!(
        out.contains(
            "checked: assign, assign_masks and assign on from_cells report exactly the brute \
             force's pairs"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "checked: from_cells assign and the batch report exactly the brute force's pairs"
        ),
        "{out}"
    );
    assert!(!out.contains("MISMATCH"), "{out}");
    // The lights rows (the targets table's rows are lists of three strings).
    let rows: Vec<Vec<String>> = out
        .lines()
        .filter_map(|l| {
            let l = l.strip_prefix("    [")?;
            l.strip_suffix("],").or_else(|| l.strip_suffix(']'))
        })
        .map(|l| fields(l).iter().map(|f| f.trim().to_owned()).collect())
        // (The lights_cells rows start with a cell count.)
        .filter(|r: &Vec<String>| r.len() == 7 && !r[0].starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    // 7 uniform rows (brute force, assign, assign_masks and assign on from_cells on 1 and all
    // threads), then brute force, Bevy-style port, bvlanes 1 and all threads and the machine
    // ceiling per froxel scene.
    assert_eq!(rows.len(), 7 + 2 * 5, "{out}");
    let uniform: Vec<&Vec<String>> = rows
        .iter()
        .filter(|r| r[0].starts_with("uniform"))
        .collect();
    assert_eq!(uniform.len(), 7, "{out}");
    assert!(
        uniform.iter().any(|r| r[1].contains("from_cells")),
        "{uniform:?}"
    );
    for scene in ["many_lights", "indoor"] {
        let r: Vec<&Vec<String>> = rows.iter().filter(|r| r[0].starts_with(scene)).collect();
        assert_eq!(r.len(), 5, "{scene}");
        // The ceiling row: a time and a threads ratio, no pairs.
        assert!(r[4][1].starts_with("machine ceiling"), "{:?}", r[4]);
        assert!(num(&r[4][2]) > 0.0 && num(&r[4][6]) > 0.0, "{:?}", r[4]);
        let r = &r[..4];
        assert!(r[0][1].starts_with("brute force") && r[1][1].starts_with("Bevy-style"));
        let pairs: Vec<f64> = r.iter().map(|r| num(&r[3])).collect();
        // exact <= Bevy-style <= froxel boxes; both bvlanes rows give the exact pairs.
        assert!(
            pairs[2] <= pairs[1] && pairs[1] <= pairs[0],
            "{scene}: {pairs:?}"
        );
        assert_eq!(pairs[2], pairs[3], "{scene}");
        assert!(pairs[2] > 0.0, "{scene}: no light in view");
        // Every row has its time and its ratio to the port.
        assert!(
            r.iter().all(|r| num(&r[2]) > 0.0 && num(&r[5]) > 0.0),
            "{r:?}"
        );
    }
    for t in [
        "lights: bvlanes assign, 1 thread >= 3x the Bevy-style port (many_lights)",
        "lights: bvlanes assign, 1 thread >= 3x the Bevy-style port (indoor)",
    ] {
        assert!(out.contains(t), "target {t} missing: {out}");
    }
}

#[test]
fn broadphase_table_matches_the_brute_force() {
    let out = run(&[
        "--table",
        "broadphase",
        "--n",
        "1500",
        "--quick",
        "--rounds",
        "1",
        "--quiet",
        "--format",
        "csv",
    ]);
    assert!(!out.contains("MISMATCH"), "{out}");
    let t = tables(&out);
    let rows = &t["broadphase"];
    assert_eq!(
        rows[0],
        [
            "scene",
            "N",
            "row",
            "ms",
            "pairs",
            "Melem/s",
            "vs scalar sort-and-sweep",
            "vs box pruning v17",
            "candidate tests per box"
        ]
    );
    let backends = bvlanes::Backend::available().len();
    for scene in ["terdiman", "uniform", "clustered"] {
        let r: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] == scene).collect();
        // Brute force, the scalar sweep, box pruning v17, bvlanes 1 thread per backend, the
        // one-axis sweep, into a reused Vec, bvlanes all threads.
        assert_eq!(r.len(), 6 + backends, "{scene}: {r:?}");
        assert!(
            r.iter().any(|r| r[2].ends_with("into a reused Vec")),
            "{r:?}"
        );
        assert!(r.iter().any(|r| r[2].ends_with("one-axis sweep")), "{r:?}");
        // Candidate tests per box on every sweep row (not the brute force's nor box pruning's),
        // the partitioned rows' at most the one-axis row's.
        let one_axis = r.iter().find(|r| r[2].ends_with("one-axis sweep")).unwrap();
        let most = num(&one_axis[8]);
        for x in r[1..].iter().filter(|x| !x[2].starts_with("box pruning")) {
            assert!(num(&x[8]) > 0.0 && num(&x[8]) <= most, "{scene}: {x:?}");
        }
        assert!(r[0][2].starts_with("brute force") && r[1][2] == "plain scalar sort-and-sweep");
        assert!(
            r[2][2].starts_with("box pruning v17") && r[2][8].is_empty(),
            "{:?}",
            r[2]
        );
        assert!(r.iter().all(|r| r[1] == "1500"), "{scene}: {r:?}");
        let pairs = num(&r[0][4]);
        assert!(pairs > 0.0, "{scene}: no pair");
        for x in &r {
            assert_eq!(num(&x[4]), pairs, "{scene}: {x:?}");
            assert!(
                num(&x[3]) > 0.0 && num(&x[6]) > 0.0 && num(&x[7]) > 0.0,
                "{x:?}"
            );
        }
    }
    // The bipartite table: k = 1 .. 256 small boxes against the scene, the batch up to 128.
    let bip = &t["broadphase_bipartite"];
    assert_eq!(bip[0], ["k", "pairs", "method", "ms", "ms per small box"]);
    assert_eq!(bip.len() - 1, 7, "{bip:?}");
    for r in &bip[1..] {
        let k = num(&r[0]);
        // Every small box is one of the large set's, so it overlaps at least itself.
        assert!(num(&r[1]) >= k, "{r:?}");
        assert_eq!(
            r[2],
            if k <= 128.0 { "one batch" } else { "sweep" },
            "{r:?}"
        );
        assert!(num(&r[3]) > 0.0, "{r:?}");
    }
}

#[test]
fn no_pin_runs_on_rayons_default_pool_and_says_so() {
    let out = run(&[
        "--table", "lights", "--n", "300", "--quick", "--rounds", "1", "--quiet", "--no-pin",
    ]);
    assert!(
        out.contains("* rayon workers: not pinned (`--no-pin`: rayon's default pool)"),
        "{out}"
    );
    assert!(out.contains("| many_lights"), "{out}");
    assert!(!out.contains("MISMATCH"), "{out}");
}

/// Runs the binary with `args`, expecting it to refuse them: exit code 2, nothing on stdout;
/// returns stderr.
fn refused(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_bvlanes-bench"))
        .args(args)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn bad_arguments_are_refused_naming_them() {
    let err = refused(&["--table", "nope"]);
    assert!(
        err.contains("unknown table `nope`") && err.contains("--table") && err.contains("--help"),
        "{err}"
    );
    let err = refused(&["--quiet", "--no-such-flag"]);
    assert!(
        err.contains("unexpected argument '--no-such-flag'") && err.contains("--help"),
        "{err}"
    );
    let err = refused(&["--format", "xml"]);
    assert!(err.contains("'xml'") && err.contains("--format"), "{err}");
    let err = refused(&["--n"]);
    assert!(err.contains("--n <N>"), "{err}");
}

#[test]
fn help_lists_every_flag() {
    for flag in ["--help", "-h"] {
        let out = run(&[flag]);
        assert!(out.contains("Usage: bvlanes-bench [OPTIONS]"), "{out}");
        for f in [
            "--table <LIST>",
            "--backend <LIST>",
            "--n <N>",
            "--format <F>",
            "--out <DIR>",
            "--rounds <R>",
            "--quick",
            "--quiet",
            "--no-pin",
            "-h, --help",
        ] {
            assert!(out.contains(f), "{flag}: {f} missing from {out}");
        }
    }
}

#[test]
fn blocked_table_rows_agree() {
    let out = run(&[
        "--table", "blocked", "--n", "3000", "--quick", "--rounds", "1", "--quiet", "--format",
        "csv",
    ]);
    assert!(!out.contains("MISMATCH"), "{out}");
    let t = tables(&out);
    let rows = &t["blocked"];
    assert_eq!(
        rows[0],
        ["boxes", "work", "row", "hits", "ms", "vs flat", "vs R-tree"]
    );
    // One size (3,000 is below the smaller default): both box query sets (flat, blocked count
    // and extend, the two batch rows, the R-tree), both sphere sets, both oriented-box sets,
    // both sets' spheres and oriented boxes on oriented boxes, two frusta sets, five builds (the
    // blocked one on one thread and on all, the oriented boxes' blocked one), two refits (`set`
    // each and `set_many`).
    assert_eq!(
        rows.len() - 1,
        2 * 6 + 2 * 3 + 2 * 2 + 2 * 2 * 2 + 2 * 2 + 5 + 2,
        "{rows:?}"
    );
    let mut groups: BTreeMap<&str, Vec<&Vec<String>>> = BTreeMap::new();
    for r in &rows[1..] {
        assert_eq!(r[0], "3000", "{r:?}");
        assert!(num(&r[4]) > 0.0, "{r:?}");
        groups.entry(r[1].as_str()).or_default().push(r);
    }
    for (work, rs) in &groups {
        if work.starts_with("build") || work.starts_with("1 %") {
            continue;
        }
        // Every row of a query set reports the same hits: flat, blocked and R-tree alike.
        assert!(rs.iter().all(|r| r[3] == rs[0][3]), "{work}: {rs:?}");
    }
    let wide = groups
        .iter()
        .find(|(w, _)| w.starts_with("1000 boxes, half extent 50"))
        .expect("the half extent 50 set");
    assert!(num(&wide.1[0][3]) > 0.0, "no hit: {wide:?}");
}
