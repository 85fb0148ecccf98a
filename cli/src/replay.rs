//! `gatecrew replay TRACE --serve`: a recorded episode in the browser, at any tick.

use std::fs::File;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatecrew_crew::{ByAdjudicator, Overrides, Replay, Resolver, Setup};
use gatecrew_gating::Deterministic;
use gatecrew_protocol::trace::{Event, EventKind, TraceError, TraceReader};
use gatecrew_viewer::inventory::Timeline;
use gatecrew_viewer::replay::Recording;
use gatecrew_viewer::server::{Source, bind};
use gatecrew_viewer::{InventorySource, Scene};

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
    /// The crew config the trace was run with: the blueprint's ghost, and the bots'
    /// exact inventories from re-simulating the episode (used only if that reproduces
    /// the trace byte for byte) [default: the trace alone]
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

/// The setup the trace's episode was run with: `config` with the trace's seed and policy.
fn setup_from_config(config: &Path, events: &[Event]) -> anyhow::Result<(Setup, Option<String>)> {
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
    Ok((setup, warning))
}

/// The trace's lines of one episode, as written.
fn episode_lines(path: &Path, episode: &str) -> anyhow::Result<Vec<u8>> {
    #[derive(serde::Deserialize)]
    struct Ep<'a> {
        #[serde(borrow)]
        ep: std::borrow::Cow<'a, str>,
    }
    let bytes = std::fs::read(path).map_err(|e| BadInput(format!("{}: {e}", path.display())))?;
    let mut out = Vec::with_capacity(bytes.len());
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        if serde_json::from_slice::<Ep<'_>>(line).is_ok_and(|l| l.ep == episode) {
            out.extend_from_slice(line);
        }
    }
    Ok(out)
}

/// The exact inventories of the trace's run, from re-simulating it with `setup`, or why
/// there are none.
fn resimulate(setup: &Setup, trace: &Path, events: &[Event]) -> anyhow::Result<Result<Timeline, String>> {
    // Tier-3 verdicts come from the trace itself, as `--replay-adjudications` takes them.
    let mut resolver: Box<dyn Resolver> = match Replay::load(trace) {
        Ok(r) if setup.consults() && r.config_hash() == Some(setup.config_hash.as_str()) => Box::new(r),
        _ => Box::new(ByAdjudicator(Deterministic { midpoint: setup.gate.midpoint() })),
    };
    let ep = events.first().map(|e| e.ep.as_str()).unwrap_or_default();
    let given = episode_lines(trace, ep)?;
    Ok(gatecrew_viewer::crew::resimulate(setup, &given, resolver.as_mut()).map_err(|e| e.to_string()))
}

/// Runs `gatecrew replay`.
pub fn run(a: ReplayArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    let (events, mut warnings) = load(&a.trace, a.episode.as_deref())?;
    const APPROXIMATE: &str = "inventories are the start plus the item movements the trace records (mining, \
        pick-ups and smelting outputs are missing)";
    let (scene, inventories) = match &a.config {
        Some(c) => {
            let (setup, warning) = setup_from_config(c, &events)?;
            warnings.extend(warning);
            let mut scene = gatecrew_viewer::crew::scene(&setup);
            match resimulate(&setup, &a.trace, &events)? {
                Ok(timeline) => (scene, Some(timeline)),
                Err(why) => {
                    let note = format!("{why}: {APPROXIMATE}");
                    warnings.push(format!("{}: {note}", a.trace.display()));
                    scene.inventory = InventorySource::Trace;
                    scene.notes.push(note);
                    (scene, None)
                }
            }
        }
        None => {
            let note = format!("no --config: {APPROXIMATE}; the ghost holds only the cells the trace names");
            warnings.push(note.clone());
            (Scene { notes: vec![note], ..Scene::default() }, None)
        }
    };
    for w in &warnings {
        writeln!(err, "warning: {}", gatecrew_protocol::text::escape(w))?;
    }
    let mut rec = Recording::new(scene, events);
    if let Some(t) = inventories {
        rec = rec.with_inventories(t);
    }
    let rec = Arc::new(rec);
    let (first, last) = rec.span();
    let addr = a.serve.serve.unwrap_or_else(|| ([127, 0, 0, 1], 7878).into());
    let rt = crate::watch::runtime()?;
    let bound = rt.block_on(bind(addr, Source::Replay(rec.clone())))?;
    let exact = if rec.scene().inventory == InventorySource::World { "exact" } else { "approximate" };
    writeln!(
        out,
        "replaying {} ({} events, ticks {first}..{last}; inventories {exact})",
        a.trace.display(),
        rec.len()
    )?;
    out.flush()?;
    a.serve.announce(bound.addr(), err)?;
    let linger = a.serve.linger.linger;
    rt.block_on(bound.serve(ServeArgs::until_done(linger)))?;
    Ok(())
}
