//! Interleaved timing: every variant of a table is sampled once per round, rounds are repeated,
//! and figures are medians over rounds; ratios are medians of per-round ratios (two variants
//! sampled moments apart share the machine's noise).

use std::hint::black_box;
use std::time::{Duration, Instant};

/// One measured operation: `pass(set)` does one full pass over data set `set` and returns
/// something derived from its result (kept alive with `black_box`).
pub struct Variant<'a> {
    /// Row label (unique within a measurement).
    pub label: String,
    pass: Box<dyn FnMut(usize) -> u64 + 'a>,
    /// Number of data sets the passes cycle through (never the same pass twice in a row, so a
    /// branch predictor cannot memorise one pass).
    sets: usize,
    next: usize,
    /// Passes per sample.
    passes: usize,
    /// Seconds per pass, one per round.
    pub secs: Vec<f64>,
}

impl<'a> Variant<'a> {
    /// A variant cycling through `sets` data sets.
    pub fn new(label: impl Into<String>, sets: usize, pass: impl FnMut(usize) -> u64 + 'a) -> Self {
        Variant {
            label: label.into(),
            pass: Box::new(pass),
            sets: sets.max(1),
            next: 0,
            passes: 1,
            secs: Vec::new(),
        }
    }

    /// Runs `passes` passes, cycling through the sets; seconds per pass.
    fn sample(&mut self, passes: usize) -> f64 {
        let mut acc = 0u64;
        let t = Instant::now();
        for _ in 0..passes {
            acc ^= (self.pass)(self.next);
            self.next = (self.next + 1) % self.sets;
        }
        let e = t.elapsed();
        black_box(acc);
        e.as_secs_f64() / passes as f64
    }

    /// Warms up (caches, branch predictors, output buffers: one pass over every set) and sizes a
    /// sample to about `slice`.
    fn calibrate(&mut self, slice: Duration) {
        let t = Instant::now();
        let mut done = 0;
        while done < self.sets || t.elapsed() < slice / 4 {
            self.sample(1);
            done += 1;
        }
        let per_pass = t.elapsed().as_secs_f64() / done as f64;
        let mut passes = (slice.as_secs_f64() / per_pass).ceil().max(1.0) as usize;
        if passes >= self.sets {
            passes = passes.div_ceil(self.sets) * self.sets; // whole rotations
        }
        self.passes = passes;
    }

    /// Median seconds per pass.
    pub fn median(&self) -> f64 {
        median(&self.secs)
    }

    /// Relative half interquartile range: the noise of [`Variant::median`].
    pub fn spread(&self) -> f64 {
        (quantile(&self.secs, 0.75) - quantile(&self.secs, 0.25)) / 2.0 / self.median()
    }
}

/// Samples every variant `rounds` times, interleaved: round `r` visits the variants starting at
/// a different one each time. Each sample lasts about `slice` (at least one pass).
pub fn measure(vs: &mut [Variant<'_>], rounds: usize, slice: Duration) {
    for v in vs.iter_mut() {
        v.calibrate(slice);
    }
    let n = vs.len();
    for r in 0..rounds {
        for i in 0..n {
            let v = &mut vs[(i + r) % n];
            let passes = v.passes;
            let s = v.sample(passes);
            v.secs.push(s);
        }
    }
}

/// The variant labelled `label`.
///
/// # Panics
/// If there is none (a bug in the table code).
pub fn find<'v, 'a>(vs: &'v [Variant<'a>], label: &str) -> &'v Variant<'a> {
    vs.iter()
        .find(|v| v.label == label)
        .unwrap_or_else(|| panic!("no variant {label}"))
}

/// Median over rounds of `a[r] / b[r]` (times: above 1 means `b` is faster).
pub fn ratio(a: &Variant<'_>, b: &Variant<'_>) -> f64 {
    let r: Vec<f64> = a.secs.iter().zip(&b.secs).map(|(x, y)| x / y).collect();
    median(&r)
}

/// The median of `v` (NaN if empty).
pub fn median(v: &[f64]) -> f64 {
    quantile(v, 0.5)
}

/// Linear-interpolated quantile `q` of `v` (NaN if empty).
pub fn quantile(v: &[f64], q: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    if s.is_empty() {
        return f64::NAN;
    }
    let pos = q * (s.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    s[lo] + (s[hi] - s[lo]) * (pos - lo as f64)
}
