//! Grouped bar charts rendered as standalone SVG documents (std only).
//!
//! A [`Chart`] has groups along the x axis and one bar per [`Series`] in each
//! group. [`Chart::to_svg`] produces a complete SVG document with a title,
//! optional subtitle, y axis with grid lines (linear from zero, or logarithmic
//! by decades), a value label above every bar, group labels and a legend.
//!
//! Hand-written rather than drawn with `plotters` (its SVG backend was tried on the same charts,
//! issue 19): plotters rotates text only by multiples of 90° (the `limit` chart's 18 long group
//! names become vertical, some drawn up over the bars), puts its legend inside the plotting area
//! (over the bars of a ten-series chart) and has no subtitle, so matching these charts took a
//! hand-laid legend and header on top of it, with text widths guessed all the same.

use std::fmt::Write as _;

/// One chart: groups along x (e.g. overlap frequencies "5 %", "25 %", ... or
/// data sizes), one bar per series in each group.
#[derive(Clone, Debug)]
pub struct Chart {
    /// Main heading, drawn at the top left.
    pub title: String,
    /// Smaller second heading (e.g. machine + command); may be empty.
    pub subtitle: String,
    /// Label of the y axis, e.g. "million tests per second".
    pub y_label: String,
    /// X-axis group labels, one per group, left to right.
    pub groups: Vec<String>,
    /// One bar per series per group, drawn in this order within a group.
    pub series: Vec<Series>,
    /// Logarithmic y axis (by decades); non-positive values get no bar.
    pub log_y: bool,
}

/// One data series: a legend entry and one optional value per group.
#[derive(Clone, Debug)]
pub struct Series {
    /// Legend entry, e.g. "Arvo", "bvlanes avx2".
    pub name: String,
    /// One value per group (index-aligned with [`Chart::groups`]);
    /// `None`, a non-finite value or a missing entry means "no bar".
    pub values: Vec<Option<f64>>,
}

/// Tableau 10 palette (designed to stay distinguishable for common forms of
/// colour-vision deficiency); cycles after ten series.
const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

/// Nominal canvas size; the width grows when bars would get too narrow.
const BASE_W: f64 = 900.0;
const BASE_H: f64 = 500.0;
const RIGHT: f64 = 24.0;
const MIN_BAR_W: f64 = 14.0;
const MAX_BAR_W: f64 = 60.0;
/// Fraction of a group's width taken by its bars (the rest is the gap).
const GROUP_FILL: f64 = 0.8;
const MIN_PLOT_H: f64 = 220.0;

const TITLE_FS: f64 = 18.0;
const SUB_FS: f64 = 12.0;
const TICK_FS: f64 = 11.0;
const VALUE_FS: f64 = 10.0;
const GROUP_FS: f64 = 12.0;
const LEGEND_FS: f64 = 12.0;
const AXIS_FS: f64 = 12.0;

impl Chart {
    /// The SVG document (a complete `<svg xmlns=...>` with width/height and viewBox).
    ///
    /// Never writes NaN or infinities: non-finite values are treated as
    /// missing. A chart without groups or without series yields a small
    /// document with a "no data" note.
    pub fn to_svg(&self) -> String {
        if self.groups.is_empty() || self.series.is_empty() {
            return self.empty_svg();
        }
        let n_g = self.groups.len();
        let n_s = self.series.len();
        let scale = Scale::new(self.finite_values(), self.log_y);

        // Horizontal layout.
        let tick_labels: Vec<String> = scale.ticks.iter().map(|t| t.1.clone()).collect();
        let max_tick_w = tick_labels
            .iter()
            .map(|l| text_w(l, TICK_FS))
            .fold(0.0, f64::max);
        let mut left = 36.0 + max_tick_w + 8.0;
        let pw0 = BASE_W - left - RIGHT;
        let bar_w = (pw0 / n_g as f64 * GROUP_FILL / n_s as f64).clamp(MIN_BAR_W, MAX_BAR_W);
        let gw = (pw0 / n_g as f64).max(bar_w * n_s as f64 / GROUP_FILL);
        let pw = gw * n_g as f64;
        // Group labels are rotated by 35° when they do not fit under their group;
        // the first one then reaches left of its group and may need more margin.
        let max_group_w = self
            .groups
            .iter()
            .map(|g| text_w(g, GROUP_FS))
            .fold(0.0, f64::max);
        let rotate_groups = max_group_w > gw - 6.0;
        if rotate_groups {
            left = left.max(text_w(&self.groups[0], GROUP_FS) * 0.819 - gw / 2.0 + 8.0);
        }
        let width = (left + pw + RIGHT).ceil();

        // Value labels, one per (series, group).
        let labels: Vec<Vec<BarLabel>> = self
            .series
            .iter()
            .map(|s| {
                (0..n_g)
                    .map(|g| match value_at(s, g) {
                        None => BarLabel::Missing,
                        Some(v) if scale.frac(v).is_none() => {
                            BarLabel::Undrawable(fmt_value(v, true))
                        }
                        Some(v) => BarLabel::Value(v, fmt_value(v, false)),
                    })
                    .collect()
            })
            .collect();
        let max_label_w = labels
            .iter()
            .flatten()
            .map(|l| text_w(l.text(), VALUE_FS))
            .fold(0.0, f64::max);
        let rotate_values = max_label_w + 2.0 > bar_w;

        // Vertical layout.
        let header = if self.subtitle.is_empty() { 40.0 } else { 58.0 };
        let value_room = if rotate_values {
            max_label_w + 10.0
        } else {
            18.0
        };
        let plot_top = header + value_room;
        let group_band = if rotate_groups {
            max_group_w * 0.574 + GROUP_FS + 14.0
        } else {
            26.0
        };
        let legend = legend_layout(&self.series, pw.max(BASE_W - left - RIGHT));
        let legend_h = legend.rows as f64 * 20.0;
        // Labels under negative bars need room above the group labels.
        let neg_room = if !scale.log && scale.lo < 0.0 {
            value_room - 4.0
        } else {
            0.0
        };
        let below = neg_room + group_band + 8.0 + legend_h + 16.0;
        let plot_h = (BASE_H - plot_top - below).max(MIN_PLOT_H);
        let plot_bottom = plot_top + plot_h;
        let height = (plot_bottom + below).ceil();
        let y_of = |frac: f64| plot_bottom - frac.clamp(0.0, 1.0) * plot_h;

        let mut out = String::with_capacity(8192);
        self.open_svg(&mut out, width, height);

        // Grid lines and tick labels.
        for &m in &scale.minor {
            let y = y_of(m);
            line(&mut out, left, y, left + pw, y, "#f0f0f0");
        }
        for (frac, label) in &scale.ticks {
            let y = y_of(*frac);
            line(&mut out, left, y, left + pw, y, "#dddddd");
            text(
                &mut out,
                left - 6.0,
                y + TICK_FS * 0.35,
                TICK_FS,
                "end",
                "#444444",
                None,
                label,
            );
        }
        // Y-axis label, rotated.
        let y_label = if self.log_y && !self.y_label.is_empty() {
            format!("{} (log scale)", self.y_label)
        } else if self.log_y {
            "log scale".to_string()
        } else {
            self.y_label.clone()
        };
        if !y_label.is_empty() {
            let cy = plot_top + plot_h / 2.0;
            text(
                &mut out,
                16.0,
                cy,
                AXIS_FS,
                "middle",
                "#222222",
                Some((-90.0, 16.0, cy)),
                &y_label,
            );
        }

        // Bars and value labels.
        let base_y = y_of(scale.base());
        for (s, series) in self.series.iter().enumerate() {
            let colour = PALETTE[s % PALETTE.len()];
            for (g, label) in labels[s].iter().enumerate() {
                let x = left + g as f64 * gw + (gw - bar_w * n_s as f64) / 2.0 + s as f64 * bar_w;
                let cx = x + bar_w / 2.0;
                match label {
                    BarLabel::Value(v, txt) => {
                        let end_y = y_of(scale.frac(*v).unwrap_or(0.0));
                        let (top, h) = (end_y.min(base_y), (end_y - base_y).abs());
                        let _ = write!(
                            out,
                            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{colour}"><title>{}</title></rect>"#,
                            num(x + 0.5),
                            num(top),
                            num((bar_w - 1.0).max(1.0)),
                            num(h),
                            esc(&format!("{} / {}: {v}", series.name, self.groups[g])),
                        );
                        out.push('\n');
                        value_label(&mut out, cx, end_y, *v < 0.0, rotate_values, "#222222", txt);
                    }
                    BarLabel::Undrawable(txt) => {
                        value_label(&mut out, cx, base_y, false, rotate_values, "#999999", txt);
                    }
                    BarLabel::Missing => {
                        value_label(&mut out, cx, base_y, false, rotate_values, "#999999", "n/a");
                    }
                }
            }
        }

        // Axes: left spine and baseline (zero line on a linear scale).
        line(&mut out, left, plot_top, left, plot_bottom, "#333333");
        line(&mut out, left, base_y, left + pw, base_y, "#333333");
        if !scale.has_data {
            note(&mut out, left + pw / 2.0, plot_top + plot_h / 2.0);
        }

        // Group labels.
        for (g, name) in self.groups.iter().enumerate() {
            let cx = left + (g as f64 + 0.5) * gw;
            if rotate_groups {
                let y = plot_bottom + neg_room + 14.0;
                text(
                    &mut out,
                    cx,
                    y,
                    GROUP_FS,
                    "end",
                    "#222222",
                    Some((-35.0, cx, y)),
                    name,
                );
            } else {
                text(
                    &mut out,
                    cx,
                    plot_bottom + neg_room + 18.0,
                    GROUP_FS,
                    "middle",
                    "#222222",
                    None,
                    name,
                );
            }
        }

        // Legend.
        let legend_top = plot_bottom + neg_room + group_band + 8.0;
        for (s, (row, dx)) in legend.pos.iter().enumerate() {
            let x = left + dx;
            let y = legend_top + *row as f64 * 20.0;
            let _ = writeln!(
                out,
                r#"<rect x="{}" y="{}" width="12" height="12" fill="{}"/>"#,
                num(x),
                num(y),
                PALETTE[s % PALETTE.len()]
            );
            let name = &self.series[s].name;
            text(
                &mut out,
                x + 18.0,
                y + 10.5,
                LEGEND_FS,
                "start",
                "#222222",
                None,
                name,
            );
        }

        out.push_str("</svg>\n");
        out
    }

    /// All finite values that belong to an existing group.
    fn finite_values(&self) -> Vec<f64> {
        self.series
            .iter()
            .flat_map(|s| (0..self.groups.len()).filter_map(move |g| value_at(s, g)))
            .collect()
    }

    /// `<svg>` start tag, accessibility title, background, title and subtitle.
    fn open_svg(&self, out: &mut String, width: f64, height: f64) {
        let (w, h) = (num(width), num(height));
        let _ = writeln!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="Helvetica, Arial, sans-serif">"#
        );
        let _ = writeln!(out, "<title>{}</title>", esc(&self.title));
        let _ = writeln!(
            out,
            r##"<rect x="0" y="0" width="{w}" height="{h}" fill="#ffffff"/>"##
        );
        if !self.title.is_empty() {
            let _ = writeln!(
                out,
                r##"<text x="16" y="28" font-size="{TITLE_FS}" font-weight="bold" fill="#111111">{}</text>"##,
                esc(&self.title)
            );
        }
        if !self.subtitle.is_empty() {
            text(
                out,
                16.0,
                48.0,
                SUB_FS,
                "start",
                "#555555",
                None,
                &self.subtitle,
            );
        }
    }

    /// Document for a chart without groups or series.
    fn empty_svg(&self) -> String {
        let mut out = String::new();
        self.open_svg(&mut out, BASE_W, BASE_H);
        note(&mut out, BASE_W / 2.0, BASE_H / 2.0);
        out.push_str("</svg>\n");
        out
    }
}

/// What is drawn for one (series, group) slot.
enum BarLabel {
    /// A drawable value and its label.
    Value(f64, String),
    /// A finite value the scale cannot show (non-positive on a log axis).
    Undrawable(String),
    /// Not measured or non-finite.
    Missing,
}

impl BarLabel {
    fn text(&self) -> &str {
        match self {
            BarLabel::Value(_, t) | BarLabel::Undrawable(t) => t,
            BarLabel::Missing => "n/a",
        }
    }
}

/// The finite value of series `s` in group `g`, if any.
fn value_at(s: &Series, g: usize) -> Option<f64> {
    s.values.get(g).copied().flatten().filter(|v| v.is_finite())
}

/// Y scale: maps values to a fraction of the plot height.
struct Scale {
    log: bool,
    /// Linear: value domain. Log: exponent (decade) domain.
    lo: f64,
    hi: f64,
    /// (fraction, label) of each labelled tick.
    ticks: Vec<(f64, String)>,
    /// Fractions of unlabelled minor grid lines (log scale only).
    minor: Vec<f64>,
    /// Whether any value can be drawn at all.
    has_data: bool,
}

impl Scale {
    fn new(values: Vec<f64>, log: bool) -> Scale {
        if log {
            Scale::log(values.into_iter().filter(|v| *v > 0.0).collect())
        } else {
            Scale::linear(&values)
        }
    }

    fn linear(values: &[f64]) -> Scale {
        let has_data = !values.is_empty();
        let lo = values.iter().copied().fold(0.0, f64::min);
        let hi = values.iter().copied().fold(0.0, f64::max);
        let (mut lo_i, mut hi_i, mut step) = (0i64, 5i64, 0.2);
        let range = hi - lo;
        if range > 0.0 && range.is_finite() {
            let s = nice_step(range / 5.0);
            let (a, b) = ((lo / s).floor(), (hi / s).ceil());
            if s > 0.0 && (b * s).is_finite() && (a * s).is_finite() && b - a <= 100.0 {
                (lo_i, hi_i, step) = (a as i64, b as i64, s);
            }
        }
        let (lo, hi) = (lo_i as f64 * step, hi_i as f64 * step);
        let ticks = (lo_i..=hi_i)
            .map(|i| {
                let v = i as f64 * step;
                ((v - lo) / (hi - lo), fmt_value(v, true))
            })
            .collect();
        Scale {
            log: false,
            lo,
            hi,
            ticks,
            minor: Vec::new(),
            has_data,
        }
    }

    fn log(positive: Vec<f64>) -> Scale {
        let has_data = !positive.is_empty();
        let (mut lo, mut hi) = (0i32, 1i32);
        if has_data {
            let min = positive
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min)
                .log10();
            let max = positive.iter().copied().fold(0.0, f64::max).log10();
            lo = min.floor() as i32;
            // A value exactly on the bottom decade would get a zero-height bar.
            if min - f64::from(lo) < 1e-9 {
                lo -= 1;
            }
            hi = (max.ceil() as i32).max(lo + 1);
        }
        let decades = hi - lo;
        let step = ((decades + 9) / 10).max(1);
        hi = lo + step * ((decades + step - 1) / step);
        let span = f64::from(hi - lo);
        let frac = |e: f64| (e - f64::from(lo)) / span;
        let ticks = (lo..=hi)
            .step_by(step as usize)
            .map(|k| (frac(f64::from(k)), decade_label(k)))
            .collect();
        let mut minor = Vec::new();
        if step == 1 && decades <= 6 {
            for k in lo..hi {
                for m in [2.0f64, 5.0] {
                    minor.push(frac(f64::from(k) + m.log10()));
                }
            }
        }
        Scale {
            log: true,
            lo: f64::from(lo),
            hi: f64::from(hi),
            ticks,
            minor,
            has_data,
        }
    }

    /// Fraction of the plot height for `v`, or `None` if it cannot be drawn.
    fn frac(&self, v: f64) -> Option<f64> {
        if !v.is_finite() {
            return None;
        }
        let f = if self.log {
            if v <= 0.0 {
                return None;
            }
            (v.log10() - self.lo) / (self.hi - self.lo)
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        f.is_finite().then_some(f)
    }

    /// Fraction where bars start: zero (linear) or the bottom decade (log).
    fn base(&self) -> f64 {
        if self.log {
            0.0
        } else {
            self.frac(0.0).unwrap_or(0.0)
        }
    }
}

/// Smallest 1/2/5 × 10^k step that is at least `raw`.
fn nice_step(raw: f64) -> f64 {
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let m = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// Tick label for 10^k.
fn decade_label(k: i32) -> String {
    if (-3..18).contains(&k) {
        fmt_value(10f64.powi(k), true)
    } else {
        format!("1e{k}")
    }
}

const SUFFIXES: [&str; 6] = ["", "k", "M", "G", "T", "P"];

/// Compact number with 3 significant digits: "1.23k", "45.6", "0.789",
/// "1.00M", "1.23e-5". With `trim`, trailing fractional zeros are dropped
/// ("1k", "0.5"), which suits axis ticks.
fn fmt_value(v: f64, trim: bool) -> String {
    if !v.is_finite() {
        return String::new();
    }
    if v == 0.0 {
        return "0".to_string();
    }
    // Rust's exponent formatting rounds correctly, including carries (999.7 -> 1.00e3).
    let sci = format!("{:.2e}", v.abs());
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    let body = if (-3..18).contains(&exp) {
        let (e, suffix) = if exp >= 3 {
            let g = exp / 3;
            (exp - 3 * g, SUFFIXES[g as usize])
        } else {
            (exp, "")
        };
        let mut s = if e >= 0 {
            let split = (e as usize + 1).min(digits.len());
            let (int, frac) = digits.split_at(split);
            if frac.is_empty() {
                int.to_string()
            } else {
                format!("{int}.{frac}")
            }
        } else {
            format!("0.{}{digits}", "0".repeat((-e - 1) as usize))
        };
        if trim && s.contains('.') {
            s = s.trim_end_matches('0').trim_end_matches('.').to_string();
        }
        s + suffix
    } else if trim && mant.contains('.') {
        format!("{}e{exp}", mant.trim_end_matches('0').trim_end_matches('.'))
    } else {
        format!("{mant}e{exp}")
    };
    if v < 0.0 { format!("-{body}") } else { body }
}

/// Row and x offset of each legend entry, wrapped to `max_w`.
struct Legend {
    pos: Vec<(usize, f64)>,
    rows: usize,
}

fn legend_layout(series: &[Series], max_w: f64) -> Legend {
    let mut pos = Vec::with_capacity(series.len());
    let (mut row, mut x) = (0usize, 0.0f64);
    for s in series {
        let w = 18.0 + text_w(&s.name, LEGEND_FS) + 20.0;
        if x > 0.0 && x + w > max_w {
            row += 1;
            x = 0.0;
        }
        pos.push((row, x));
        x += w;
    }
    Legend { pos, rows: row + 1 }
}

/// Rough rendered width of `s` at font size `fs` (average glyph ≈ 0.6 em).
fn text_w(s: &str, fs: f64) -> f64 {
    s.chars().count() as f64 * fs * 0.6
}

/// Coordinate with at most one decimal; non-finite input becomes 0.
fn num(x: f64) -> String {
    if !x.is_finite() {
        return "0".to_string();
    }
    let r = (x * 10.0).round() / 10.0;
    if r == r.trunc() && r.abs() < 1e15 {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

/// Escape the XML special characters `&`, `<`, `>`, `"` and `'`.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

fn line(out: &mut String, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str) {
    let _ = writeln!(
        out,
        r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{stroke}" stroke-width="1"/>"#,
        num(x1),
        num(y1),
        num(x2),
        num(y2)
    );
}

/// A `<text>` element; `rotate` is (degrees, centre x, centre y).
#[allow(clippy::too_many_arguments)]
fn text(
    out: &mut String,
    x: f64,
    y: f64,
    size: f64,
    anchor: &str,
    fill: &str,
    rotate: Option<(f64, f64, f64)>,
    content: &str,
) {
    let _ = write!(
        out,
        r#"<text x="{}" y="{}" font-size="{}" text-anchor="{anchor}" fill="{fill}""#,
        num(x),
        num(y),
        num(size)
    );
    if let Some((deg, cx, cy)) = rotate {
        let _ = write!(
            out,
            r#" transform="rotate({} {} {})""#,
            num(deg),
            num(cx),
            num(cy)
        );
    }
    let _ = writeln!(out, ">{}</text>", esc(content));
}

/// Label at the end of a bar: above it (or below for negative values),
/// horizontal or rotated to run vertically away from the bar.
fn value_label(
    out: &mut String,
    cx: f64,
    end_y: f64,
    below: bool,
    rotated: bool,
    fill: &str,
    s: &str,
) {
    match (rotated, below) {
        (false, false) => text(out, cx, end_y - 4.0, VALUE_FS, "middle", fill, None, s),
        (false, true) => text(
            out,
            cx,
            end_y + VALUE_FS + 2.0,
            VALUE_FS,
            "middle",
            fill,
            None,
            s,
        ),
        (true, _) => {
            let (y, anchor) = if below {
                (end_y + 4.0, "end")
            } else {
                (end_y - 4.0, "start")
            };
            let x = cx + VALUE_FS * 0.35;
            text(out, x, y, VALUE_FS, anchor, fill, Some((-90.0, x, y)), s);
        }
    }
}

/// Centered grey "no data" note.
fn note(out: &mut String, cx: f64, cy: f64) {
    text(out, cx, cy, 16.0, "middle", "#888888", None, "no data");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks the document shape and that every element is closed in order.
    fn assert_well_formed(svg: &str) {
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains(" viewBox=\"0 0 "));
        assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count());
        let mut stack: Vec<&str> = Vec::new();
        let mut rest = svg;
        while let Some(start) = rest.find('<') {
            check_text(&rest[..start]);
            let end = rest[start..].find('>').expect("unterminated tag") + start;
            let tag = &rest[start + 1..end];
            assert!(!tag.contains('<'), "'<' inside tag: {tag}");
            assert_eq!(tag.matches('"').count() % 2, 0, "unbalanced quotes: {tag}");
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(stack.pop(), Some(name.trim()), "mismatched close tag");
            } else if !tag.ends_with('/') {
                let name = tag.split_whitespace().next().expect("empty tag");
                stack.push(name);
            }
            rest = &rest[end + 1..];
        }
        check_text(rest);
        assert!(stack.is_empty(), "unclosed: {stack:?}");
        assert!(
            !svg.contains("NaN") && !svg.contains("inf"),
            "non-finite written"
        );
    }

    /// Character data must not contain '>' or bare '&'.
    fn check_text(s: &str) {
        assert!(!s.contains('>'), "raw '>' in text: {s}");
        for (i, _) in s.match_indices('&') {
            let ent = &s[i..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                    .iter()
                    .any(|e| ent.starts_with(e)),
                "bare '&' in text: {s}"
            );
        }
    }

    /// Number of data bars (rects with a tooltip).
    fn bars(svg: &str) -> usize {
        svg.matches("</title></rect>").count()
    }

    /// Heights of the data bars.
    fn bar_heights(svg: &str) -> Vec<f64> {
        svg.lines()
            .filter(|l| l.contains("</title></rect>"))
            .map(|l| {
                let h = l.split("height=\"").nth(1).unwrap();
                h[..h.find('"').unwrap()].parse().unwrap()
            })
            .collect()
    }

    fn chart(groups: &[&str], series: &[(&str, &[Option<f64>])], log_y: bool) -> Chart {
        Chart {
            title: "Ray/box tests".into(),
            subtitle: "host: test-machine; cmd: bvlanes-bench --all".into(),
            y_label: "million tests per second".into(),
            groups: groups.iter().map(|g| g.to_string()).collect(),
            series: series
                .iter()
                .map(|(n, v)| Series {
                    name: n.to_string(),
                    values: v.to_vec(),
                })
                .collect(),
            log_y,
        }
    }

    fn sample() -> Chart {
        chart(
            &["5 %", "25 %", "50 %", "75 %", "95 %"],
            &[
                (
                    "Arvo",
                    &[Some(12.3), Some(11.8), Some(11.1), Some(10.4), Some(9.87)],
                ),
                (
                    "bvlanes scalar",
                    &[Some(85.2), Some(80.1), Some(77.0), Some(70.3), Some(66.6)],
                ),
                (
                    "bvlanes sse4.1",
                    &[Some(310.0), Some(295.5), None, Some(270.2), Some(260.0)],
                ),
                (
                    "bvlanes avx2",
                    &[
                        Some(1234.0),
                        Some(1180.0),
                        Some(1099.0),
                        Some(1010.0),
                        Some(999.7),
                    ],
                ),
            ],
            false,
        )
    }

    #[test]
    fn sample_chart_is_well_formed() {
        let svg = sample().to_svg();
        assert_well_formed(&svg);
        assert_eq!(bars(&svg), 19);
        // background + 19 bars + 4 legend swatches
        assert_eq!(svg.matches("<rect").count(), 1 + 19 + 4);
        assert!(svg.contains(">1.23k</text>"));
        assert!(svg.contains(">1.00k</text>"), "999.7 rounds to 1.00k");
        assert!(svg.contains(">9.87</text>"));
        assert!(svg.contains(">n/a</text>"));
        assert!(svg.contains(">bvlanes avx2</text>"));
        assert!(svg.contains(">25 %</text>"));
        assert!(svg.contains("width=\"900\" height=\"500\""));
        // Linear axis starts at zero.
        assert!(svg.contains(">0</text>"));
        assert!(bar_heights(&svg).iter().all(|h| *h > 0.0));
        // Set SVG_SAMPLE_DIR to also write sample.svg and sample-log.svg there.
        if let Some(dir) = std::env::var_os("SVG_SAMPLE_DIR") {
            let dir = std::path::Path::new(&dir);
            std::fs::write(dir.join("sample.svg"), &svg).unwrap();
            let mut log = sample();
            log.log_y = true;
            log.title = "Ray/box tests (log)".into();
            std::fs::write(dir.join("sample-log.svg"), log.to_svg()).unwrap();
        }
    }

    #[test]
    fn escapes_all_text() {
        let mut c = chart(
            &["a<b", "c&d"],
            &[("x \"y\" 'z'", &[Some(1.0), Some(2.0)])],
            false,
        );
        c.title = "T & <T> \"q\" 'a'".into();
        c.subtitle = "sub > & <".into();
        c.y_label = "y & z".into();
        let svg = c.to_svg();
        assert_well_formed(&svg);
        assert!(svg.contains("T &amp; &lt;T&gt; &quot;q&quot; &apos;a&apos;"));
        assert!(svg.contains("sub &gt; &amp; &lt;"));
        assert!(svg.contains(">y &amp; z</text>"));
        assert!(svg.contains(">a&lt;b</text>"));
        assert!(svg.contains(">c&amp;d</text>"));
        assert!(svg.contains(">x &quot;y&quot; &apos;z&apos;</text>"));
        assert!(!svg.contains("<T>") && !svg.contains("a<b") && !svg.contains("c&d"));
        assert_eq!(esc("&<>\"'"), "&amp;&lt;&gt;&quot;&apos;");
    }

    #[test]
    fn missing_values_get_no_bar() {
        let c = chart(
            &["a", "b", "c"],
            &[
                ("s1", &[Some(1.0), None, Some(3.0)]),
                ("s2", &[None, None]), // shorter than groups
                ("s3", &[Some(2.0), Some(2.0), Some(2.0), Some(99.0)]), // longer
            ],
            false,
        );
        let svg = c.to_svg();
        assert_well_formed(&svg);
        assert_eq!(bars(&svg), 5);
        assert_eq!(svg.matches(">n/a</text>").count(), 4);
        assert!(!svg.contains(">99.0</text>"), "extra value ignored");
    }

    #[test]
    fn log_scale_spans_decades() {
        let c = chart(
            &["tiny", "small", "large"],
            &[
                ("Arvo", &[Some(0.1), Some(2.5), Some(30.0)]),
                ("avx2", &[Some(15.0), Some(800.0), Some(10_000.0)]),
                ("zero", &[Some(0.0), Some(-3.0), Some(5.0)]),
            ],
            true,
        );
        let svg = c.to_svg();
        assert_well_formed(&svg);
        for t in ["0.01", "0.1", "1", "10", "100", "1k", "10k"] {
            assert!(svg.contains(&format!(">{t}</text>")), "missing tick {t}");
        }
        assert!(svg.contains("(log scale)"));
        // Non-positive values are skipped but labelled.
        assert_eq!(bars(&svg), 7);
        assert!(svg.contains(">-3</text>"));
        let h = bar_heights(&svg);
        assert!(h.iter().all(|h| *h > 0.0));
        // Equal ratios give equal height differences: 0.1 -> 10k is 5 of 6 decades.
        let max = h.iter().copied().fold(0.0, f64::max);
        let min = h.iter().copied().fold(f64::INFINITY, f64::min);
        assert!((min / max - 1.0 / 6.0).abs() < 0.01, "{min} {max}");
    }

    #[test]
    fn log_scale_without_positive_values() {
        let c = chart(&["a"], &[("s", &[Some(0.0)])], true);
        let svg = c.to_svg();
        assert_well_formed(&svg);
        assert_eq!(bars(&svg), 0);
        assert!(svg.contains(">no data</text>"));
    }

    #[test]
    fn all_zero_values() {
        let c = chart(
            &["a", "b"],
            &[
                ("s1", &[Some(0.0), Some(0.0)]),
                ("s2", &[Some(-0.0), Some(0.0)]),
            ],
            false,
        );
        let svg = c.to_svg();
        assert_well_formed(&svg);
        assert_eq!(bars(&svg), 4);
        assert!(bar_heights(&svg).iter().all(|h| *h == 0.0));
        assert_eq!(svg.matches(">0</text>").count(), 4 + 1); // labels + bottom tick
        assert!(svg.contains(">1</text>"), "default 0..1 axis");
        assert!(!svg.contains(">no data</text>"));
    }

    #[test]
    fn single_series_single_group() {
        let c = chart(&["only"], &[("one", &[Some(42.0)])], false);
        let svg = c.to_svg();
        assert_well_formed(&svg);
        assert_eq!(bars(&svg), 1);
        assert!(svg.contains(">42.0</text>"));
        assert!(svg.contains(">50</text>"), "nice top tick");
        let h = bar_heights(&svg)[0];
        assert!(h > 0.0);
        assert!(svg.contains(&format!("width=\"{}\"", num(MAX_BAR_W - 1.0))));
    }

    #[test]
    fn non_finite_values_are_dropped() {
        for log in [false, true] {
            let c = chart(
                &["a", "b", "c", "d"],
                &[(
                    "s",
                    &[
                        Some(f64::NAN),
                        Some(f64::INFINITY),
                        Some(f64::NEG_INFINITY),
                        Some(2.0),
                    ],
                )],
                log,
            );
            let svg = c.to_svg();
            assert_well_formed(&svg);
            assert_eq!(bars(&svg), 1);
            assert_eq!(svg.matches(">n/a</text>").count(), 3);
        }
        let c = chart(&["a"], &[("s", &[Some(f64::NAN)])], false);
        let svg = c.to_svg();
        assert_well_formed(&svg);
        assert!(svg.contains(">no data</text>"));
    }

    #[test]
    fn empty_chart_has_note() {
        for c in [
            chart(&[], &[("s", &[])], false),
            chart(&["a", "b"], &[], true),
        ] {
            let svg = c.to_svg();
            assert_well_formed(&svg);
            assert!(svg.contains(">no data</text>"));
            assert_eq!(bars(&svg), 0);
        }
    }

    #[test]
    fn negative_values_linear() {
        let c = chart(&["a", "b"], &[("s", &[Some(-5.0), Some(12.0)])], false);
        let svg = c.to_svg();
        assert_well_formed(&svg);
        assert!(svg.contains(">-5</text>") && svg.contains(">-5.00</text>"));
        assert!(bar_heights(&svg).iter().all(|h| *h > 0.0));
    }

    #[test]
    fn width_grows_with_bars() {
        let groups: Vec<String> = (0..12).map(|i| format!("{} KiB", 1 << i)).collect();
        let names: Vec<String> = (0..10).map(|i| format!("series {i}")).collect();
        let c = Chart {
            title: "wide".into(),
            subtitle: String::new(),
            y_label: String::new(),
            groups,
            series: names
                .into_iter()
                .enumerate()
                .map(|(i, name)| Series {
                    name,
                    values: (0..12).map(|g| Some((i * 100 + g) as f64 * 1.5)).collect(),
                })
                .collect(),
            log_y: false,
        };
        let svg = c.to_svg();
        assert_well_formed(&svg);
        assert_eq!(bars(&svg), 120);
        let w: f64 = svg
            .split("width=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(w >= 12.0 * 10.0 * MIN_BAR_W, "width {w}");
        for p in PALETTE {
            assert!(svg.contains(p));
        }
    }

    #[test]
    fn value_formatting() {
        let cases = [
            (0.0, "0"),
            (1234.0, "1.23k"),
            (45.6, "45.6"),
            (0.789, "0.789"),
            (0.00123, "0.00123"),
            (0.0001234, "1.23e-4"),
            (5.0, "5.00"),
            (999.7, "1.00k"),
            (999_999.0, "1.00M"),
            (12_345_678.0, "12.3M"),
            (-45.6, "-45.6"),
            (1.5e20, "1.50e20"),
        ];
        for (v, want) in cases {
            assert_eq!(fmt_value(v, false), want, "{v}");
        }
        assert_eq!(fmt_value(1000.0, true), "1k");
        assert_eq!(fmt_value(0.5, true), "0.5");
        assert_eq!(fmt_value(1500.0, true), "1.5k");
        assert_eq!(fmt_value(1e-5, true), "1e-5");
        assert_eq!(decade_label(-4), "1e-4");
        assert_eq!(decade_label(4), "10k");
    }

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(0.3), 0.5);
        assert_eq!(nice_step(1.0), 1.0);
        assert_eq!(nice_step(13.0), 20.0);
        assert_eq!(nice_step(600.0), 1000.0);
    }
}
