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

/// The CPU's model name from `/proc/cpuinfo`, then its family and model numbers where listed
/// (e.g. `AMD EPYC, family 26, model 2`): the numbers tell one generation of cores from another
/// where the name does not (`AMD EPYC` on this project's VMs, which have been of more than one
/// generation). The file is read once.
pub fn cpu_description() -> String {
    let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
        return "unknown CPU".to_owned();
    };
    let field = |name: &str| {
        info.lines().find_map(|l| {
            let (key, value) = l.split_once(':')?;
            (key.trim() == name).then(|| value.trim())
        })
    };
    let mut cpu = field("model name").unwrap_or("unknown CPU").to_owned();
    if let (Some(family), Some(model)) = (field("cpu family"), field("model")) {
        cpu.push_str(&format!(", family {family}, model {model}"));
    }
    cpu
}

/// The SIMD extensions of this CPU that bear on bvlanes' tiers, as detected at run time.
pub fn simd_features() -> String {
    #[cfg(target_arch = "x86_64")]
    {
        let found = [
            ("sse4.2", std::arch::is_x86_feature_detected!("sse4.2")),
            ("avx2", std::arch::is_x86_feature_detected!("avx2")),
            ("fma", std::arch::is_x86_feature_detected!("fma")),
            ("avx512f", std::arch::is_x86_feature_detected!("avx512f")),
        ];
        let names: Vec<&str> = found.iter().filter(|f| f.1).map(|f| f.0).collect();
        if names.is_empty() {
            "none of sse4.2, avx2, fma, avx512f".to_owned()
        } else {
            names.join(" ")
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        std::env::consts::ARCH.to_owned()
    }
}

/// The median time for a cache line to go from core 0 to core 1 and back (two threads pinned
/// to the first two cores, taking turns to bump one atomic), or `None` with fewer than two
/// cores or no pinning. On one die this is tens of nanoseconds; between dies or sockets, or
/// between virtual CPUs placed far apart, several hundred: the cost of every line one thread
/// writes and another reads, which bounds how well a millisecond-long job splits.
pub fn core_to_core_round_trip() -> Option<std::time::Duration> {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    let ids = core_affinity::get_core_ids()?;
    let (&c0, &c1) = (ids.first()?, ids.get(1)?);
    const TRIPS: u64 = 20_000;
    let mut samples = Vec::new();
    for _ in 0..5 {
        let line = Arc::new(AtomicU64::new(0));
        // Both threads run their loop whether or not pinning worked (neither may wait forever);
        // an unpinned sample is discarded. Scratch threads: the caller's affinity stays.
        let (echo_line, timed_line) = (Arc::clone(&line), line);
        let echo = std::thread::spawn(move || {
            let pinned = core_affinity::set_for_current(c1);
            for i in 0..TRIPS {
                while echo_line.load(Ordering::Acquire) != 2 * i + 1 {
                    std::hint::spin_loop();
                }
                echo_line.store(2 * i + 2, Ordering::Release);
            }
            pinned
        });
        let timed = std::thread::spawn(move || {
            let pinned = core_affinity::set_for_current(c0);
            let t = Instant::now();
            for i in 0..TRIPS {
                timed_line.store(2 * i + 1, Ordering::Release);
                while timed_line.load(Ordering::Acquire) != 2 * i + 2 {
                    std::hint::spin_loop();
                }
            }
            (pinned, t.elapsed() / TRIPS as u32)
        });
        let echo_pinned = echo.join().unwrap_or(false);
        let (timed_pinned, t) = timed.join().ok()?;
        if !(echo_pinned && timed_pinned) {
            return None;
        }
        samples.push(t);
    }
    samples.sort();
    Some(samples[samples.len() / 2])
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
