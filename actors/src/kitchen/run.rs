//! Running one kitchen episode on the actor runtime.

use gatecrew_kitchen::{EpisodeCore, Split};
use ractor::Actor;

use super::cook::CookActor;
use super::desk::DeskActor;
use super::dispatcher::DispatcherActor;
use super::messages::{Finished, KitchenWorldMsg};
use super::world::{Deciders, KitchenWorldActor};
use crate::messages::Cause;

/// A kitchen episode that could not complete on actors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KitchenRunError {
    /// An actor could not be started.
    #[error("could not start the kitchen {actor} actor: {source}")]
    Spawn {
        /// Which actor (`cook`, `desk`, `dispatcher`, `world`).
        actor: &'static str,
        /// ractor's reason.
        #[source]
        source: ractor::SpawnErr,
    },
    /// The world actor failed while running.
    #[error("the kitchen episode failed: {0}")]
    Episode(#[source] Cause),
}

fn spawn_err(actor: &'static str) -> impl Fn(ractor::SpawnErr) -> KitchenRunError {
    move |source| KitchenRunError::Spawn { actor, source }
}

/// Runs `core` to its end on actors: its policy split into a dispatcher actor, or a
/// cook per agent and their desk, and a world actor driving the steps. Every actor is
/// stopped before this returns. The outcome and the trace are the stepper's.
pub async fn run_kitchen_episode(core: EpisodeCore) -> Result<Finished, KitchenRunError> {
    let agents = core.world().agents().len();
    let mut handles = Vec::new();
    let mut cells = Vec::new();
    let deciders = match core.policy().split(core.world(), agents) {
        Split::Central(policy) => {
            let (d, h) = Actor::spawn(None, DispatcherActor, policy).await.map_err(spawn_err("dispatcher"))?;
            cells.push(d.get_cell());
            handles.push(h);
            Deciders::Central(d)
        }
        Split::Crew { members, desk } => {
            let (desk, h) = Actor::spawn(None, DeskActor, desk).await.map_err(spawn_err("desk"))?;
            cells.push(desk.get_cell());
            handles.push(h);
            let mut cooks = Vec::with_capacity(members.len());
            for (me, member) in members.into_iter().enumerate() {
                let (c, h) = Actor::spawn(None, CookActor, (me, member)).await.map_err(spawn_err("cook"))?;
                cells.push(c.get_cell());
                handles.push(h);
                cooks.push(c);
            }
            Deciders::Crew { cooks, desk }
        }
    };
    let spawned = Actor::spawn(None, KitchenWorldActor, (core, deciders)).await.map_err(spawn_err("world"));
    let result = match spawned {
        Ok((world, h)) => {
            let r = ractor::call!(world, KitchenWorldMsg::Run)
                .map_err(|e| KitchenRunError::Episode(e.into()))
                .and_then(|r| r.map_err(KitchenRunError::Episode));
            cells.push(world.get_cell());
            handles.push(h);
            r
        }
        Err(e) => Err(e),
    };
    for c in &cells {
        c.stop(None);
    }
    for h in handles {
        let _ = h.await;
    }
    result
}
