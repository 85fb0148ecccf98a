//! `gatecrew soak`: many episodes with every fault on, in one process, counting what
//! must never happen. Each episode is a suite episode under a policy, with
//! fault rates drawn from the soak seed; it runs on the stepper with every invariant
//! of `gatecrew_crew::invariants` checked from the inside, and every `--actors-every`-th
//! one also on the actor runtime under a timeout (a deadlock shows as a timeout), whose
//! trace must equal the stepper's byte for byte. Resident memory is sampled as the run
//! goes, to show it stays flat.

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use gatecrew_crew::episode::stepper::panic_message;
use gatecrew_crew::invariants::run_checked;
use gatecrew_crew::{FaultSpec, Overrides, Policy, Setup};
use gatecrew_protocol::trace::TraceWriter;
use gatecrew_suite::Manifest;
use gatecrew_world::GameData;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

use crate::{BadInput, paths};

/// `gatecrew soak` arguments.
#[derive(Debug, Args)]
pub struct SoakArgs {
    /// Episodes to run (suite episodes in turn, each under the next policy)
    #[arg(long, default_value_t = 1000)]
    episodes: usize,
    /// The suite to draw episodes from [default: configs/suite-v2; suite v1 is configs/suite]
    #[arg(long, value_name = "DIR")]
    suite: Option<PathBuf>,
    /// Seed of the fault rates and episode seeds
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also run every N-th episode on the actor runtime, under --timeout (0: never)
    #[arg(long, value_name = "N", default_value_t = 20)]
    actors_every: usize,
    /// Seconds an actor-runtime episode may take before it counts as a deadlock
    #[arg(long, value_name = "SECS", default_value_t = 120)]
    timeout: u64,
    /// Worker threads, at most 4 per core [default: all cores]
    #[arg(long, value_name = "N", value_parser = crate::jobs::parse)]
    jobs: Option<usize>,
    /// Print the report as one JSON object
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    metrics: crate::watch::MetricsArgs,
    #[command(flatten)]
    linger: crate::watch::LingerArgs,
    /// Resident memory may grow at most this much from the first tenth of the episodes to the end (MiB); more is a finding
    #[arg(long, value_name = "MIB", default_value_t = 64)]
    max_rss_growth_mib: u64,
}

/// Fault rates of one soak episode.
#[derive(Debug, Clone, Copy)]
struct Rates {
    action: f64,
    path: f64,
    drop: f64,
    delay: f64,
    duplicate: f64,
    crash: f64,
}

impl Rates {
    fn draw(rng: &mut ChaCha8Rng) -> Self {
        Rates {
            action: rng.random_range(0.0..0.1),
            path: rng.random_range(0.0..0.1),
            drop: rng.random_range(0.0..0.15),
            delay: rng.random_range(0.0..0.15),
            duplicate: rng.random_range(0.0..0.15),
            crash: rng.random_range(0.0..0.02),
        }
    }

    /// The `[faults]` of these rates. Given to the loader (not patched in after), so
    /// that `gatecrew run --faults` with the same pairs gives the same episode.
    fn spec(&self) -> FaultSpec {
        FaultSpec {
            action_failure_rate: self.action,
            path_block_rate: self.path,
            message_drop_rate: self.drop,
            message_delay_rate: self.delay,
            message_duplicate_rate: self.duplicate,
            crash_rate: self.crash,
            ..FaultSpec::default()
        }
    }

    /// The rates as `--faults` pairs; `f64`'s `Display` is the shortest text that reads
    /// back as the same number, so the command reproduces the episode exactly.
    fn pairs(&self) -> String {
        format!(
            "action_failure_rate = {}, path_block_rate = {}, message_drop_rate = {}, message_delay_rate = {}, message_duplicate_rate = {}, crash_rate = {}",
            self.action, self.path, self.drop, self.delay, self.duplicate, self.crash
        )
    }
}

/// What the soak found; every count but the episodes must be zero.
#[derive(Debug, Default, Serialize)]
struct Report {
    episodes: usize,
    actor_runs: usize,
    conservation_violations: usize,
    other_violations: usize,
    escaped_panics: usize,
    deadlocks: usize,
    runtime_mismatches: usize,
    restarts: usize,
    message_faults: usize,
    fallbacks: usize,
    complete: usize,
    wall_s: f64,
    rss_kib: Vec<(usize, u64)>,
    peak_rss_kib_start: u64,
    peak_rss_kib_end: u64,
    /// Resident memory at the end minus after the first tenth (KiB; negative: shrank).
    rss_growth_kib: i64,
    /// Whether that growth is over `--max-rss-growth-mib`.
    memory_growing: bool,
    failures: Vec<String>,
}

/// One episode's findings, or the sum of several: each flag counts the episodes it
/// held in (one episode sets it to 1).
#[derive(Default)]
struct Found {
    conservation: usize,
    other: usize,
    panicked: usize,
    deadlock: usize,
    mismatch: usize,
    actors: usize,
    restarts: usize,
    message_faults: usize,
    fallbacks: usize,
    complete: usize,
    notes: Vec<String>,
}

impl Found {
    /// The findings of `self`'s episodes and then `other`'s.
    fn merge(mut self, other: Found) -> Found {
        self.conservation += other.conservation;
        self.other += other.other;
        self.panicked += other.panicked;
        self.deadlock += other.deadlock;
        self.mismatch += other.mismatch;
        self.actors += other.actors;
        self.restarts += other.restarts;
        self.message_faults += other.message_faults;
        self.fallbacks += other.fallbacks;
        self.complete += other.complete;
        self.notes.extend(other.notes);
        self
    }
}

/// Runs `gatecrew soak`.
pub fn run(a: SoakArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    let dir = a.suite.clone().unwrap_or_else(paths::default_suite_v2);
    let manifest = Manifest::load(&dir).map_err(|e| BadInput(e.to_string()))?;
    if manifest.episode.is_empty() || a.episodes == 0 {
        return Err(BadInput(format!("nothing to soak: {} episodes from {}", a.episodes, dir.display())).into());
    }
    let data_path =
        paths::default_data().ok_or_else(|| BadInput("no configs/data/minecraft-1.20.4.json found".into()))?;
    let data = Arc::new(GameData::load(&data_path).map_err(|e| BadInput(e.to_string()))?);
    let exporter = a.metrics.start(err)?;
    let bar = crate::progress::bar(a.episodes as u64, "episodes");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(a.jobs.unwrap_or(0)).build().context("starting the pool")?;
    let started = Instant::now();
    let samples = Mutex::new(vec![(0usize, rss_kib().0)]);
    let peak_start = Mutex::new(None);
    let done = std::sync::atomic::AtomicUsize::new(0);
    let step = (a.episodes / 10).max(1);
    // Folded as the episodes end, not collected: memory does not grow with --episodes.
    let found: anyhow::Result<Found> = pool.install(|| {
        (0..a.episodes)
            .into_par_iter()
            .map(|i| {
                let r = soak_one(&a, &manifest, &dir, &data, i, exporter.as_ref());
                let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                if n % step == 0 {
                    let (rss, peak) = rss_kib();
                    if let Ok(mut s) = samples.lock() {
                        s.push((n, rss));
                    }
                    if let Ok(mut p) = peak_start.lock() {
                        p.get_or_insert(peak);
                    }
                    bar.set_message(format!("RSS {} MiB", rss / 1024));
                }
                bar.inc(1);
                r
            })
            .try_reduce(Found::default, |a, b| Ok(a.merge(b)))
    });
    bar.finish_and_clear();
    let mut rep = Report { episodes: a.episodes, wall_s: started.elapsed().as_secs_f64(), ..Report::default() };
    let f = found?;
    rep.conservation_violations = f.conservation;
    rep.other_violations = f.other;
    rep.escaped_panics = f.panicked;
    rep.deadlocks = f.deadlock;
    rep.runtime_mismatches = f.mismatch;
    rep.actor_runs = f.actors;
    rep.restarts = f.restarts;
    rep.message_faults = f.message_faults;
    rep.fallbacks = f.fallbacks;
    rep.complete = f.complete;
    rep.failures = f.notes;
    rep.rss_kib = samples.into_inner().unwrap_or_default();
    rep.rss_kib.sort_unstable();
    rep.peak_rss_kib_start = peak_start.into_inner().ok().flatten().unwrap_or(0);
    rep.peak_rss_kib_end = rss_kib().1;
    // Growth from the first tenth on (the first episodes load the data and warm the
    // allocator): a leak of a few KiB an episode shows over thousands.
    let after_tenth = rep.rss_kib.get(1).map_or(0, |s| s.1);
    let last = rep.rss_kib.last().map_or(0, |s| s.1);
    rep.rss_growth_kib = i64::try_from(last).unwrap_or(i64::MAX) - i64::try_from(after_tenth).unwrap_or(i64::MAX);
    rep.memory_growing =
        after_tenth > 0 && rep.rss_growth_kib > i64::try_from(a.max_rss_growth_mib * 1024).unwrap_or(i64::MAX);
    if rep.memory_growing {
        rep.failures.push(format!(
            "resident memory grew {} MiB after the first tenth (limit {} MiB)",
            rep.rss_growth_kib / 1024,
            a.max_rss_growth_mib
        ));
    }
    print_report(&rep, a.json, out)?;
    out.flush()?;
    a.linger.after_metrics(exporter.as_ref(), "soak", err)?;
    let bad = rep.conservation_violations
        + rep.other_violations
        + rep.escaped_panics
        + rep.deadlocks
        + rep.runtime_mismatches
        + usize::from(rep.memory_growing);
    if bad > 0 {
        anyhow::bail!("the soak found {bad} problems (listed above)");
    }
    Ok(())
}

fn soak_one(
    a: &SoakArgs,
    m: &Manifest,
    dir: &std::path::Path,
    data: &Arc<GameData>,
    i: usize,
    exporter: Option<&gatecrew_viewer::metrics::Exporter>,
) -> anyhow::Result<Found> {
    let entry = &m.episode[i % m.episode.len()];
    let policy = Policy::ALL[(i / m.episode.len() + i) % Policy::ALL.len()];
    let mut rng = ChaCha8Rng::seed_from_u64(a.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ i as u64);
    let seed = rng.random_range(0..1_000_000);
    let rates = Rates::draw(&mut rng);
    let ov = Overrides { seed: Some(seed), policy: Some(policy), faults: Some(rates.spec()), ..Overrides::default() };
    let path = dir.join(&entry.file);
    let setup = Setup::load_with_data(&path, &ov, data.clone()).map_err(|e| BadInput(e.to_string()))?;
    // Every finding says how to see it again.
    let label = format!(
        "#{i} {} {} seed {} (reproduce: gatecrew run --stepper --config {} --policy {} --seed {seed} --faults \"{}\")",
        entry.id,
        policy.as_str(),
        setup.seed,
        path.display(),
        policy.as_str(),
        rates.pairs()
    );
    let mut f = Found::default();
    let checked = match catch_unwind(AssertUnwindSafe(|| run_checked(&setup))) {
        Ok(c) => c,
        Err(p) => {
            f.panicked = 1;
            f.notes.push(format!("{label}: panic escaped supervision: {}", panic_message(&p)));
            return Ok(f);
        }
    };
    for v in &checked.violations {
        match v {
            gatecrew_crew::invariants::Violation::Conservation { .. } => f.conservation += 1,
            _ => f.other += 1,
        }
        f.notes.push(format!("{label}: {v}"));
    }
    // The checked run keeps its events; the series see them once it is over.
    if let Some(mut series) = crate::watch::episode_metrics(exporter, false) {
        checked.events.iter().for_each(|e| series.observe(e));
    }
    for e in &checked.events {
        match e.kind.name() {
            "restart" => f.restarts += 1,
            "message_fault" => f.message_faults += 1,
            "fallback" => f.fallbacks += 1,
            _ => {}
        }
    }
    f.complete = usize::from(checked.finished.progress.correct == checked.finished.progress.total);
    if a.actors_every > 0 && i % a.actors_every == 0 {
        f.actors = 1;
        let mut w = TraceWriter::new(Vec::new());
        for e in &checked.events {
            w.write(e)?;
        }
        let expected = w.into_inner();
        match actor_trace(&setup, Duration::from_secs(a.timeout)) {
            Ok(Some(bytes)) if bytes == expected => {}
            Ok(Some(_)) => {
                f.mismatch = 1;
                f.notes.push(format!("{label}: the actor runtime's trace differs from the stepper's"));
            }
            Ok(None) => {
                f.deadlock = 1;
                f.notes.push(format!("{label}: no end on the actor runtime within {} s", a.timeout));
            }
            Err(e) => {
                f.panicked = 1;
                f.notes.push(format!("{label}: the actor runtime failed: {e:#}"));
            }
        }
    }
    Ok(f)
}

/// The episode's trace on the actor runtime; `None` when it did not end in time.
fn actor_trace(setup: &Setup, timeout: Duration) -> anyhow::Result<Option<Vec<u8>>> {
    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);
    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().map_err(|_| std::io::Error::other("poisoned"))?.extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let buf = Buf::default();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let run = gatecrew_actors::run_episode(setup, Box::new(buf.clone()), None);
    let ended = rt.block_on(async { tokio::time::timeout(timeout, run).await });
    rt.shutdown_timeout(Duration::from_secs(1));
    match ended {
        Ok(r) => {
            r.map_err(|e| anyhow::anyhow!("{e}"))?;
            let bytes = std::mem::take(&mut *buf.0.lock().map_err(|_| anyhow::anyhow!("poisoned trace buffer"))?);
            Ok(Some(bytes))
        }
        Err(_) => Ok(None),
    }
}

/// Resident and peak resident memory of this process, KiB (0 where /proc is missing).
fn rss_kib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn print_report(r: &Report, json: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    if json {
        serde_json::to_writer(&mut *out, r)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(
        out,
        "soak: {} faulted episodes in {:.1} s ({} also on the actor runtime)",
        r.episodes, r.wall_s, r.actor_runs
    )?;
    writeln!(out, "  conservation violations   {}", r.conservation_violations)?;
    writeln!(out, "  other broken invariants   {}", r.other_violations)?;
    writeln!(out, "  panics escaping supervision {}", r.escaped_panics)?;
    writeln!(out, "  deadlocks (actor timeouts) {}", r.deadlocks)?;
    writeln!(out, "  actor/stepper mismatches  {}", r.runtime_mismatches)?;
    writeln!(
        out,
        "  injected and survived: {} restarts, {} message faults, {} board fallbacks; {} episodes complete",
        r.restarts, r.message_faults, r.fallbacks, r.complete
    )?;
    let rss: Vec<String> = r.rss_kib.iter().map(|(n, k)| format!("{n}:{}", k / 1024)).collect();
    writeln!(out, "  RSS MiB after N episodes: {}", rss.join(" "))?;
    writeln!(
        out,
        "  peak RSS: {} MiB after the first tenth, {} MiB at the end; growth since the first tenth {} MiB",
        r.peak_rss_kib_start / 1024,
        r.peak_rss_kib_end / 1024,
        r.rss_growth_kib / 1024
    )?;
    for f in r.failures.iter().take(20) {
        writeln!(out, "  ! {f}")?;
    }
    Ok(())
}
