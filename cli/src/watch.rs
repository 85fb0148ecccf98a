//! `--serve`, `--metrics` and `gatecrew replay`: the viewer's and the exporter's ends in
//! the command line. The exporter gets every trace event as the trace does; the viewer
//! gets them, with the world's inventories, through the setup's read-only probe.
//! Neither writes anything into the trace.

use std::io::Write;
use std::net::SocketAddr;
use std::time::Duration;

use anyhow::Context;
use gatecrew_viewer::metrics::{Exporter, TraceMetrics};

/// `--metrics [ADDR]`.
#[derive(Debug, Clone, clap::Args)]
pub struct MetricsArgs {
    /// Serve Prometheus metrics at http://ADDR/metrics while this runs [ADDR default: 127.0.0.1:9464]
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:9464", group = "served")]
    pub metrics: Option<SocketAddr>,
}

/// `--linger SECS`: what was served stays served after the work ends, so that the
/// last scrape (or the viewer) sees the final values.
#[derive(Debug, Clone, clap::Args)]
pub struct LingerArgs {
    /// With --serve or --metrics: keep serving this many seconds after the work ends, then exit [default: with --serve, until Ctrl-C; with --metrics alone, exit at once]
    #[arg(long, value_name = "SECS", requires = "served", value_parser = parse_linger)]
    pub linger: Option<Duration>,
}

impl LingerArgs {
    /// For the commands that serve only `/metrics`: keeps the process (and so the
    /// exporter's thread) up for `--linger` seconds, saying so on `err`.
    pub fn after_metrics(&self, exporter: Option<&Exporter>, what: &str, err: &mut dyn Write) -> anyhow::Result<()> {
        let (Some(_), Some(d)) = (exporter, self.linger) else { return Ok(()) };
        writeln!(err, "metrics: the {what} is over; serving the final values for {} s", d.as_secs_f64())?;
        err.flush()?;
        std::thread::sleep(d);
        Ok(())
    }
}

impl MetricsArgs {
    /// Installs the exporter and starts `/metrics` on a thread of its own; says where on `err`.
    pub fn start(&self, err: &mut dyn Write) -> anyhow::Result<Option<Exporter>> {
        let Some(addr) = self.metrics else { return Ok(None) };
        let exporter = gatecrew_viewer::metrics::install()?;
        let bound = gatecrew_viewer::metrics::serve_in_background(addr, exporter.clone())?;
        writeln!(err, "metrics: http://{bound}/metrics")?;
        Ok(Some(exporter))
    }
}

/// Per-episode trace metrics, when the exporter is on.
pub fn episode_metrics(exporter: Option<&Exporter>, keep_final: bool) -> Option<TraceMetrics> {
    exporter.map(|e| TraceMetrics::new(e.clone(), keep_final))
}

/// `--serve [ADDR]` and what goes with it.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// Show the crew in a browser at http://ADDR/ [ADDR default: 127.0.0.1:7878; other than loopback only when given]
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:7878", group = "served")]
    pub serve: Option<SocketAddr>,
    #[command(flatten)]
    pub linger: LingerArgs,
}

/// The longest `--linger`: a day. A viewer kept longer is one left running; Ctrl-C
/// (no `--linger`) serves for as long as wanted.
pub const MAX_LINGER_SECS: f64 = 86_400.0;

/// `--linger SECS`: a number of seconds from 0 to [`MAX_LINGER_SECS`], checked before
/// it becomes a duration (which panics on one too large).
pub fn parse_linger(s: &str) -> Result<Duration, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=MAX_LINGER_SECS).contains(&v) => Ok(Duration::from_secs_f64(v)),
        _ => Err(format!("expected a number of seconds from 0 to {MAX_LINGER_SECS}, got \"{s}\"")),
    }
}

impl ServeArgs {
    /// Says where the page is and warns when it is reachable from other machines.
    pub fn announce(&self, bound: SocketAddr, err: &mut dyn Write) -> std::io::Result<()> {
        writeln!(err, "viewer: http://{bound}/")?;
        if !bound.ip().is_loopback() {
            writeln!(err, "note: {bound} is not a loopback address: anyone who can reach it sees the run")?;
        }
        Ok(())
    }

    /// Waits for Ctrl-C, or for `--linger` seconds.
    pub async fn until_done(linger: Option<Duration>) {
        match linger {
            Some(d) => tokio::time::sleep(d).await,
            None => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
}

/// The trace file of a run: with `--serve`, what is written to it is handed to the
/// viewer's hub too (the file gets the same bytes).
pub type TraceFile = gatecrew_viewer::hub::TraceTee<crate::interrupt::Shared>;

/// The viewer's scene from a run's setup (its blueprint, its bots' starts).
pub use gatecrew_viewer::crew::scene;

/// Makes a tokio runtime for the commands that have none of their own.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the tokio runtime")
}
