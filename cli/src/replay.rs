//! `gatecrew replay TRACE --serve`: a recorded episode in the browser, at any tick.

use std::fs::File;
use std::io::{BufReader, Write};
use std::path::PathBuf;
use std::sync::Arc;

use gatecrew_crew::{Overrides, Setup};
use gatecrew_protocol::trace::{Event, EventKind, TraceError, TraceReader};
use gatecrew_viewer::Scene;
use gatecrew_viewer::replay::Recording;
use gatecrew_viewer::server::{Source, bind};

use crate::BadInput;
use crate::watch::ServeArgs;

/// Arguments of `gatecrew replay`.
#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// The trace (JSON Lines)
    #[arg(value_name = "TRACE")]
    trace: PathBuf,
    #[command(flatten)]
    serve: ServeArgs,
    /// The crew config the trace was run with, for the blueprint's ghost and the bots'
    /// starting inventories [default: the trace alone]
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The episode to show, for a file holding several [default: the first]
    #[arg(long, value_name = "ID")]
    episode: Option<String>,
}

/// Reads one episode's events from a trace; a bad line is an error naming `file:line`.
pub fn load(path: &std::path::Path, episode: Option<&str>) -> anyhow::Result<(Vec<Event>, Vec<String>)> {
    let file = File::open(path).map_err(|e| BadInput(format!("{}: {e}", path.display())))?;
    let mut warnings = Vec::new();
    let mut events = Vec::new();
    let mut chosen: Option<String> = episode.map(str::to_owned);
    for item in TraceReader::new(BufReader::new(file)) {
        let ev = match item {
            Ok(ev) => ev,
            Err(e @ TraceError::Truncated { .. }) => {
                warnings.push(format!("{}: {e} (skipped)", path.display()));
                continue;
            }
            Err(e) => return Err(BadInput(format!("{}: {e}", path.display())).into()),
        };
        let want = chosen.get_or_insert_with(|| ev.ep.clone());
        if &ev.ep == want {
            events.push(ev);
        }
    }
    if events.is_empty() {
        let what = episode.map(|e| format!("no episode \"{e}\"")).unwrap_or_else(|| "no events".into());
        return Err(BadInput(format!("{}: {what}", path.display())).into());
    }
    if !matches!(events.last().map(|e| &e.kind), Some(EventKind::EpisodeEnd { .. })) {
        warnings.push(format!("{}: the episode has no episode_end (cut short)", path.display()));
    }
    Ok((events, warnings))
}

fn scene_from_config(config: &std::path::Path, events: &[Event]) -> anyhow::Result<(Scene, Option<String>)> {
    let Some(EventKind::EpisodeStart { policy, seed, config_hash, .. }) = events.first().map(|e| &e.kind) else {
        return Err(
            BadInput("the trace does not start with episode_start; --config needs its seed and policy".into()).into()
        );
    };
    let policy = *policy;
    let ov = Overrides { seed: Some(*seed), policy: Some(policy), ..Overrides::default() };
    let setup = Setup::load(config, &ov).map_err(|e| BadInput(e.to_string()))?;
    let warning = (setup.config_hash != *config_hash).then(|| {
        format!(
            "{}: its hash {} differs from the trace's {}: the ghost and inventories may not match the run",
            config.display(),
            setup.config_hash,
            config_hash
        )
    });
    Ok((crate::watch::scene(&setup), warning))
}

/// Runs `gatecrew replay`.
pub fn run(a: ReplayArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    let (events, mut warnings) = load(&a.trace, a.episode.as_deref())?;
    let scene = match &a.config {
        Some(c) => {
            let (scene, warning) = scene_from_config(c, &events)?;
            warnings.extend(warning);
            scene
        }
        None => Scene::default(),
    };
    for w in &warnings {
        writeln!(err, "warning: {w}")?;
    }
    let rec = Arc::new(Recording::new(scene, events));
    let (first, last) = rec.span();
    let addr = a.serve.serve.unwrap_or_else(|| ([127, 0, 0, 1], 7878).into());
    let rt = crate::watch::runtime()?;
    let bound = rt.block_on(bind(addr, Source::Replay(rec.clone())))?;
    writeln!(out, "replaying {} ({} events, ticks {first}..{last})", a.trace.display(), rec.len())?;
    out.flush()?;
    a.serve.announce(bound.addr(), err)?;
    let linger = a.serve.linger;
    rt.block_on(bound.serve(ServeArgs::until_done(linger)))?;
    Ok(())
}
