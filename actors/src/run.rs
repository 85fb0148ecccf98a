//! Running one episode on the actor runtime.

use std::io::Write;

use gatecrew_crew::{ByAdjudicator, Episode, Finished, Setup};
use gatecrew_kitchen::{Decider, EpisodeCore, EpisodeOutcome};
use gatecrew_protocol::{AgentId, Board};
use ractor::Actor;
use tokio::sync::mpsc::UnboundedSender;

use crate::board::BoardActor;
use crate::consult::Consultant;
use crate::crew::{CrewActor, Roster};
use crate::hosted::Staged;
use crate::journal::JournalSlot;
use crate::messages::Cause;
use crate::recorder::{RecorderActor, RecorderMsg};
use crate::world::{Tap, WorldActor, WorldArgs, WorldMsg};

/// A run that could not complete. The messages are what the soak compares, so they
/// stay as they were when the causes were strings.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// An actor could not be started.
    #[error("could not start the {actor} actor: {source}")]
    Spawn {
        /// Which actor (`recorder`, `board`, `crew`, `world`).
        actor: &'static str,
        /// ractor's reason.
        #[source]
        source: ractor::SpawnErr,
    },
    /// The world actor failed while running.
    #[error("the episode failed: {0}")]
    Episode(#[source] Cause),
    /// The trace could not be written.
    #[error("could not write the trace: {0}")]
    Trace(#[source] Cause),
}

fn spawn_err(actor: &'static str) -> impl Fn(ractor::SpawnErr) -> RunError {
    move |source| RunError::Spawn { actor, source }
}

/// Runs an episode on actors, writing its trace to `out` and reporting to `tap`.
/// Every actor is stopped before this returns. Consults, if the setup has any, go to
/// the deterministic adjudicator.
pub async fn run_episode(
    setup: &Setup,
    out: Box<dyn Write + Send>,
    tap: Option<UnboundedSender<Tap>>,
) -> Result<Finished, RunError> {
    let det = gatecrew_gating::Deterministic { midpoint: setup.gate.midpoint() };
    run_episode_with(setup, out, tap, Consultant::Sync(Box::new(ByAdjudicator(det)))).await
}

/// Runs an episode on actors with `consultant` resolving its tier-3 consults.
pub async fn run_episode_with(
    setup: &Setup,
    out: Box<dyn Write + Send>,
    tap: Option<UnboundedSender<Tap>>,
    consultant: Consultant,
) -> Result<Finished, RunError> {
    let board = Board::new(setup.roster(), setup.data.items().clone(), setup.board);
    let factory = setup.agent_factory();
    let roster = (0..factory.len() as u32)
        .filter_map(move |i| JournalSlot::start(&factory, AgentId(i)).map(|(journal, core)| (core, journal)));
    let parts = Parts { board: Some(board), roster: Box::new(roster), out, tap, consultant };
    run_staged(Episode::new(setup), parts).await
}

/// Runs a kitchen episode on actors: a decider actor per agent (or the one decider)
/// under the crew supervisor, the world actor lending each cook the desk in turn, the
/// recorder writing the events to `out`. The outcome and the trace are the stepper's.
pub async fn run_kitchen_episode(
    core: EpisodeCore,
    deciders: Vec<Decider>,
    out: Option<Box<dyn Write + Send>>,
) -> Result<EpisodeOutcome, RunError> {
    let roster = deciders.into_iter().map(|d| (d, ()));
    let out = out.unwrap_or_else(|| Box::new(std::io::sink()));
    let det = ByAdjudicator(gatecrew_gating::Deterministic { midpoint: 0.5 });
    let parts =
        Parts { board: None, roster: Box::new(roster), out, tap: None, consultant: Consultant::Sync(Box::new(det)) };
    run_staged(core, parts).await
}

/// What a staged episode runs with besides itself: the board core (if its world has
/// one), its agents, where its trace goes, an observer, and its adjudicator.
pub struct Parts<S: Staged> {
    /// The public board's core, run by the board actor.
    pub board: Option<Board>,
    /// The agents, in id order.
    pub roster: Roster<S::Agent>,
    /// Where the trace goes.
    pub out: Box<dyn Write + Send>,
    /// Where events and progress are reported as they happen.
    pub tap: Option<UnboundedSender<Tap<S::Event, S::Progress>>>,
    /// The tier-3 adjudicator of its consults.
    pub consultant: Consultant,
}

/// Runs any staged episode on actors: the one assembly step of the runtime (recorder,
/// board, crew, world), the run, and every actor stopped before this returns.
pub async fn run_staged<S: Staged>(episode: S, parts: Parts<S>) -> Result<S::Finished, RunError> {
    let Parts { board, roster, out, tap, consultant } = parts;
    let (recorder, recorder_h) =
        Actor::spawn(None, RecorderActor::<S::Event>::new(), out).await.map_err(spawn_err("recorder"))?;
    let board = match board {
        Some(core) => Some(Actor::spawn(None, BoardActor, core).await.map_err(spawn_err("board"))?),
        None => None,
    };
    let (crew, crew_h) = Actor::spawn(None, CrewActor::<S::Agent>::new(), roster).await.map_err(spawn_err("crew"))?;
    let args = WorldArgs {
        episode,
        board: board.as_ref().map(|(b, _)| b.clone()),
        crew: crew.clone(),
        recorder: recorder.clone(),
        tap,
        consultant,
    };
    let (world, world_h) = Actor::spawn(None, WorldActor::<S>::new(), args).await.map_err(spawn_err("world"))?;
    let result = ractor::call!(world, WorldMsg::Run)
        .map_err(|e| RunError::Episode(e.into()))
        .and_then(|r| r.map_err(RunError::Episode));
    let flushed = ractor::call!(recorder, RecorderMsg::Flush)
        .map_err(|e| RunError::Trace(e.into()))
        .and_then(|r| r.map_err(|e| RunError::Trace(Box::new(e))));
    world.stop(None);
    crew.stop(None);
    recorder.stop(None);
    let mut handles = vec![world_h, crew_h, recorder_h];
    if let Some((b, h)) = board {
        b.stop(None);
        handles.push(h);
    }
    for h in handles {
        let _ = h.await;
    }
    let finished = result?;
    flushed?;
    Ok(finished)
}
