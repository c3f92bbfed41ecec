//! Tables and their three output formats (markdown, CSV, JSON), plus the target checks.

use crate::svg::Chart;
use std::fmt::Write as _;

/// One cell: text, or a number with the text it is shown as.
#[derive(Clone, Debug)]
pub enum Cell {
    /// Shown and exported as text.
    Text(String),
    /// A number: `text` in markdown, `value` in CSV and JSON.
    Num { value: f64, text: String },
    /// Not measured.
    Empty,
}

impl Cell {
    /// A text cell.
    pub fn text(s: impl Into<String>) -> Cell {
        Cell::Text(s.into())
    }

    /// A number shown with `text`.
    pub fn num(value: f64, text: impl Into<String>) -> Cell {
        Cell::Num {
            value,
            text: text.into(),
        }
    }

    /// An integer count.
    pub fn count(n: u64) -> Cell {
        Cell::num(n as f64, n.to_string())
    }

    /// A speed-up or ratio, `12.3x`.
    pub fn times(r: f64) -> Cell {
        Cell::num(r, format!("{}x", sig3(r)))
    }

    /// A fraction shown as a percentage with `digits` decimals.
    pub fn pct(f: f64, digits: usize) -> Cell {
        Cell::num(f * 100.0, format!("{:.*} %", digits, f * 100.0))
    }

    fn markdown(&self) -> String {
        match self {
            Cell::Text(s) => s.replace('|', "\\|"),
            Cell::Num { text, .. } => text.clone(),
            Cell::Empty => String::new(),
        }
    }

    fn csv(&self) -> String {
        match self {
            Cell::Text(s) => csv_field(s),
            Cell::Num { value, .. } => json_number(*value),
            Cell::Empty => String::new(),
        }
    }

    fn json(&self) -> String {
        match self {
            Cell::Text(s) => json_string(s),
            Cell::Num { value, .. } => json_number(*value),
            Cell::Empty => "null".to_owned(),
        }
    }
}

/// [`sig3`] of a measurement checked against `goal` (`met` iff `x >= goal`), with more digits
/// where three would contradict the verdict (`1.697` shows as `1.697`, not `1.70`, against 1.7).
pub fn sig3_vs(x: f64, goal: f64) -> String {
    let mut s = sig3(x);
    let decimals = |s: &str| s.split_once('.').map_or(0, |(_, d)| d.len());
    while x.is_finite()
        && s.parse::<f64>().is_ok_and(|v| (v >= goal) != (x >= goal))
        && decimals(&s) < 6
    {
        s = format!("{x:.*}", decimals(&s) + 1);
    }
    s
}

/// Three significant digits, no exponent for the magnitudes a table shows.
pub fn sig3(x: f64) -> String {
    if !x.is_finite() {
        return "—".to_owned();
    }
    let a = x.abs();
    if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// One target of the issue, checked on this run's figures.
#[derive(Clone, Debug)]
pub struct Target {
    /// What is required.
    pub what: String,
    /// What was measured.
    pub measured: String,
    /// Whether it was met.
    pub met: bool,
}

/// One output table.
#[derive(Debug)]
pub struct Table {
    /// Short identifier: file name and `--table` selector.
    pub id: String,
    /// Heading.
    pub title: String,
    /// Lines shown above the table (data recipe, checks, method).
    pub notes: Vec<String>,
    /// Column headings.
    pub columns: Vec<String>,
    /// Rows, each as long as `columns`.
    pub rows: Vec<Vec<Cell>>,
    /// A chart of the table, written as SVG with `--out`.
    pub chart: Option<Chart>,
}

impl Table {
    /// An empty table.
    pub fn new(id: impl Into<String>, title: impl Into<String>, columns: &[&str]) -> Table {
        Table {
            id: id.into(),
            title: title.into(),
            notes: Vec::new(),
            columns: columns.iter().map(|c| (*c).to_owned()).collect(),
            rows: Vec::new(),
            chart: None,
        }
    }

    /// Appends a row.
    ///
    /// # Panics
    /// If its length differs from the number of columns (a bug in the table code).
    pub fn push(&mut self, row: Vec<Cell>) {
        assert_eq!(
            row.len(),
            self.columns.len(),
            "row length in table {}",
            self.id
        );
        self.rows.push(row);
    }

    /// The table as markdown (a heading, the notes as a list, the table).
    pub fn markdown(&self) -> String {
        let mut out = format!("\n## {}\n\n", self.title);
        for n in &self.notes {
            let _ = writeln!(out, "* {n}");
        }
        if !self.notes.is_empty() {
            out.push('\n');
        }
        let _ = writeln!(out, "| {} |", self.columns.join(" | "));
        let rule: Vec<&str> = (0..self.columns.len())
            .map(|i| if i == 0 { "---" } else { "---:" })
            .collect();
        let _ = writeln!(out, "|{}|", rule.join("|"));
        for row in &self.rows {
            let cells: Vec<String> = row.iter().map(Cell::markdown).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        out
    }

    /// The table as CSV: a header line, then one line per row (numbers unformatted).
    pub fn csv(&self) -> String {
        let mut out = String::new();
        let head: Vec<String> = self.columns.iter().map(|c| csv_field(c)).collect();
        let _ = writeln!(out, "{}", head.join(","));
        for row in &self.rows {
            let cells: Vec<String> = row.iter().map(Cell::csv).collect();
            let _ = writeln!(out, "{}", cells.join(","));
        }
        out
    }

    /// The table as one JSON object: `id`, `title`, `notes`, `columns`, `rows`.
    pub fn json(&self) -> String {
        let strings = |v: &[String]| {
            v.iter()
                .map(|s| json_string(s))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let rows: Vec<String> = self
            .rows
            .iter()
            .map(|r| {
                let cells: Vec<String> = r.iter().map(Cell::json).collect();
                format!("    [{}]", cells.join(", "))
            })
            .collect();
        format!(
            "{{\n  \"id\": {},\n  \"title\": {},\n  \"notes\": [{}],\n  \"columns\": [{}],\n  \"rows\": [\n{}\n  ]\n}}",
            json_string(&self.id),
            json_string(&self.title),
            strings(&self.notes),
            strings(&self.columns),
            rows.join(",\n")
        )
    }
}

/// The targets as a table.
pub fn targets_table(targets: &[Target]) -> Table {
    let mut t = Table::new(
        "targets",
        "Targets of the issues, checked on this run",
        &["target", "measured", "verdict"],
    );
    for x in targets {
        t.push(vec![
            Cell::text(&x.what),
            Cell::text(&x.measured),
            Cell::text(if x.met { "met" } else { "**missed**" }),
        ]);
    }
    t
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

fn json_number(x: f64) -> String {
    if x.is_finite() {
        // Integers without a fraction, everything else with enough digits to round-trip.
        if x == x.trunc() && x.abs() < 9e15 {
            format!("{}", x as i64)
        } else {
            format!("{x}")
        }
    } else {
        "null".to_owned()
    }
}

/// A JSON string literal.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_escape_and_align() {
        let mut t = Table::new("t", "T", &["name", "value"]);
        t.push(vec![Cell::text("a,\"b\"|c"), Cell::num(1.5, "1.50")]);
        t.push(vec![Cell::text("n"), Cell::Empty]);
        assert!(t.markdown().contains("| a,\"b\"\\|c | 1.50 |"));
        assert_eq!(t.csv(), "name,value\n\"a,\"\"b\"\"|c\",1.5\nn,\n");
        let j = t.json();
        assert!(j.contains(r#"["a,\"b\"|c", 1.5]"#), "{j}");
        assert!(j.contains(r#"["n", null]"#), "{j}");
        assert_eq!(json_number(f64::NAN), "null");
        assert_eq!(json_number(3.0), "3");
    }

    #[test]
    fn a_measurement_never_reads_as_meeting_a_goal_it_misses() {
        assert_eq!(sig3_vs(1.697, 1.7), "1.697");
        assert_eq!(sig3_vs(1.6999, 1.7), "1.6999");
        assert_eq!(sig3_vs(1.7, 1.7), "1.70");
        assert_eq!(sig3_vs(1.72, 1.7), "1.72");
        assert_eq!(sig3_vs(2.996, 3.0), "2.996");
        assert_eq!(sig3_vs(0.891, 3.0), "0.891");
        assert_eq!(sig3_vs(f64::NAN, 1.7), "—");
    }
}
