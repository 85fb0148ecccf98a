//! `gatecrew run --world minecraft`: the episode on a real Minecraft server through the
//! mineflayer bridge, either a user's (`--server HOST:PORT`) or a local flying-squid
//! started for the run (`--local-server`).

use std::path::PathBuf;

use anyhow::Context;
use gatecrew_crew::{EndReason, Finished, Observer, Progress, Setup};
use gatecrew_mcworld::{McOptions, McRun, Origin, Server};
use gatecrew_protocol::trace::{Event, TraceWriter};
use serde::Serialize;

use crate::BadInput;
use crate::watch::TraceFile;

/// Where an episode is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum WorldArg {
    /// The embedded deterministic world.
    #[default]
    #[value(name = "sim")]
    Sim,
    /// A Minecraft server, through the mineflayer bridge.
    #[value(name = "minecraft")]
    Minecraft,
}

/// The Minecraft flags of `gatecrew run`.
#[derive(Debug, clap::Args)]
pub struct McArgs {
    /// Where to play: the embedded world, or a Minecraft server
    #[arg(long, value_enum, default_value_t = WorldArg::Sim)]
    pub world: WorldArg,
    /// The Minecraft server (offline-mode accounts; the bots need op for the setup)
    #[arg(long, value_name = "HOST:PORT", conflicts_with = "local_server")]
    server: Option<String>,
    /// Start a local flying-squid server for the run (127.0.0.1, a free port)
    #[arg(long)]
    local_server: bool,
    /// Minecraft version of the server
    #[arg(long, value_name = "VERSION", default_value = "1.20.4")]
    mc_version: String,
    /// Minecraft block of world (0,0,0) [default: the local server's ground, or 0,-60,0]
    #[arg(long, value_name = "X,Y,Z", allow_hyphen_values = true)]
    origin: Option<String>,
    /// The bridge package [default: $GATECREW_BRIDGE_DIR, else the source tree's bridge/,
    /// else bridge/ beside the executable; never ./bridge, whose npm ci would run]
    #[arg(long, value_name = "DIR")]
    bridge_dir: Option<PathBuf>,
}

impl McArgs {
    /// The options of a Minecraft run, or bad input (flags that do not go together).
    pub fn options(&self, stepper: bool) -> anyhow::Result<Option<McOptions>> {
        if self.world == WorldArg::Sim {
            if self.server.is_some() || self.local_server || self.origin.is_some() {
                return Err(BadInput("--server, --local-server and --origin need --world minecraft".into()).into());
            }
            return Ok(None);
        }
        if stepper {
            return Err(
                BadInput("--stepper runs the embedded world; it does not go with --world minecraft".into()).into()
            );
        }
        let server = match (&self.server, self.local_server) {
            (Some(addr), false) => Server::parse_address(addr).map_err(|e| BadInput(e.to_string()))?,
            (None, true) => Server::Local,
            _ => return Err(BadInput("--world minecraft needs --server HOST:PORT or --local-server".into()).into()),
        };
        let mut opts = McOptions::new(server);
        opts.version = self.mc_version.clone();
        opts.origin =
            self.origin.as_deref().map(str::parse::<Origin>).transpose().map_err(|e| BadInput(e.to_string()))?;
        opts.bridge_dir = self.bridge_dir.clone();
        Ok(Some(opts))
    }
}

/// The Minecraft part of a run's report.
#[derive(Debug, Clone, Serialize)]
pub struct McSummary {
    /// Blueprint cells a bot saw right at the end.
    pub observed_correct: Option<u32>,
    /// Agents that failed, and why.
    pub failed: Vec<String>,
    /// Placements the server made (the asked block seen in place afterwards).
    pub placements_made: u32,
    /// Placements after which no block appeared (or the item never reached the hand).
    pub placements_not_made: u32,
    /// Placements after which another block stood in the cell.
    pub wrong_blocks: u32,
    /// Bridge commands timed.
    pub commands: usize,
    /// Bridge overhead per command (round trip minus game time), median, ms.
    pub overhead_p50_ms: Option<f64>,
    /// 95th percentile, ms.
    pub overhead_p95_ms: Option<f64>,
    /// Seconds to all bots joined.
    pub joined_secs: f64,
    /// Seconds of the episode.
    pub episode_secs: f64,
}

fn percentile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    Some((sorted[i.min(sorted.len() - 1)] * 1000.0).round() / 1000.0)
}

impl McSummary {
    fn new(r: &McRun) -> Self {
        let mut o: Vec<f64> = r.latencies.iter().map(|l| l.overhead_ms()).collect();
        o.sort_by(f64::total_cmp);
        McSummary {
            observed_correct: r.observed_correct,
            failed: r.failed.iter().map(|(a, why)| format!("{a}: {why}")).collect(),
            placements_made: r.placements.made,
            placements_not_made: r.placements.not_made,
            wrong_blocks: r.placements.wrong,
            commands: o.len(),
            overhead_p50_ms: percentile(&o, 0.5),
            overhead_p95_ms: percentile(&o, 0.95),
            joined_secs: r.timings.bots_joined.as_secs_f64(),
            episode_secs: r.timings.episode.as_secs_f64(),
        }
    }
}

/// Writes each event to the trace and shows it.
struct Tee<'a> {
    watch: &'a mut dyn Observer,
    writer: TraceWriter<TraceFile>,
    error: Option<std::io::Error>,
}

impl Observer for Tee<'_> {
    fn event(&mut self, ev: &Event) {
        if self.error.is_none() {
            if let Err(e) = self.writer.write(ev) {
                self.error = Some(e);
            }
        }
        self.watch.event(ev);
    }
    fn progress(&mut self, p: Progress) {
        self.watch.progress(p);
    }
}

/// Runs the episode on Minecraft. Every agent failing is an error of the run (after
/// the trace is written: it says why).
pub fn run(
    setup: &Setup,
    opts: &McOptions,
    file: TraceFile,
    watch: &mut dyn Observer,
) -> anyhow::Result<(Finished, McSummary)> {
    run_with(setup, opts, file, watch, None)
}

/// [`run`], with a person beside the bots talking to `talk`'s partner in the game's
/// chat (`--interactive`).
pub fn run_with(
    setup: &Setup,
    opts: &McOptions,
    file: TraceFile,
    watch: &mut dyn Observer,
    talk: Option<&mut gatecrew_mcworld::partner::Talk>,
) -> anyhow::Result<(Finished, McSummary)> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the tokio runtime")?;
    let mut tee = Tee { watch, writer: TraceWriter::new(file), error: None };
    let run = match talk {
        Some(t) => rt.block_on(gatecrew_mcworld::run_talking(setup, opts, &mut tee, t)),
        None => rt.block_on(gatecrew_mcworld::run(setup, opts, &mut tee)),
    };
    if let Some(e) = tee.error.take() {
        return Err(e).context("writing the trace");
    }
    tee.writer.flush().context("writing the trace")?;
    let run = run.context("playing on Minecraft")?;
    Ok((run.finished, McSummary::new(&run)))
}

/// The error for a run in which every agent failed.
pub fn all_failed(finished: &Finished, summary: &McSummary) -> anyhow::Result<()> {
    if finished.reason == EndReason::AgentsFailed {
        anyhow::bail!("every agent failed: {}", summary.failed.join("; "));
    }
    Ok(())
}
