//! What the run happened on, and the progress line on stderr.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// `YYYY-MM-DD HH:MM UTC` from the system clock.
pub fn now_utc() -> String {
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
/// process competed for the cores).
pub fn load_avg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// The CPU's model name.
pub fn cpu_model() -> String {
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

/// Progress lines on stderr, stamped with the seconds since the start.
pub struct Progress {
    start: Instant,
    quiet: bool,
}

impl Progress {
    /// Starts the clock.
    pub fn new(quiet: bool) -> Progress {
        Progress {
            start: Instant::now(),
            quiet,
        }
    }

    /// Prints `what` with the elapsed time.
    pub fn note(&self, what: &str) {
        if !self.quiet {
            eprintln!("[{:6.1} s] {what}", self.start.elapsed().as_secs_f64());
        }
    }

    /// Seconds since the start.
    pub fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }
}
