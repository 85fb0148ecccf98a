//! Running one episode on the actor runtime.

use std::io::Write;

use gatecrew_crew::{ByAdjudicator, Episode, Finished, Setup};
use gatecrew_protocol::Board;
use ractor::Actor;
use tokio::sync::mpsc::UnboundedSender;

use crate::board::BoardActor;
use crate::consult::Consultant;
use crate::crew::CrewActor;
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
    let (recorder, recorder_h) = Actor::spawn(None, RecorderActor, out).await.map_err(spawn_err("recorder"))?;
    let board_core = Board::new(setup.roster(), setup.data.items().clone(), setup.board);
    let (board, board_h) = Actor::spawn(None, BoardActor, board_core).await.map_err(spawn_err("board"))?;
    let (crew, crew_h) = Actor::spawn(None, CrewActor, setup.agent_factory()).await.map_err(spawn_err("crew"))?;
    let args = WorldArgs {
        episode: Episode::new(setup),
        board: board.clone(),
        crew: crew.clone(),
        recorder: recorder.clone(),
        tap,
        consultant,
    };
    let (world, world_h) = Actor::spawn(None, WorldActor, args).await.map_err(spawn_err("world"))?;
    let result = ractor::call!(world, WorldMsg::Run)
        .map_err(|e| RunError::Episode(e.into()))
        .and_then(|r| r.map_err(RunError::Episode));
    let flushed = ractor::call!(recorder, RecorderMsg::Flush)
        .map_err(|e| RunError::Trace(e.into()))
        .and_then(|r| r.map_err(|e| RunError::Trace(Box::new(e))));
    world.stop(None);
    crew.stop(None);
    board.stop(None);
    recorder.stop(None);
    for h in [world_h, crew_h, board_h, recorder_h] {
        let _ = h.await;
    }
    let finished = result?;
    flushed?;
    Ok(finished)
}
