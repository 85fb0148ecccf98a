//! The crew supervisor: spawns the agent actors, holds each one's journal (a
//! checkpoint and the inputs since, [`crate::journal`]), and restarts a failed agent
//! from its state after its last verified step, rebuilt from the journal.

use std::collections::BTreeMap;

use gatecrew_crew::agent::{AgentCore, AgentFactory};
use gatecrew_protocol::AgentId;
use ractor::concurrency::JoinHandle;
use ractor::{Actor, ActorId, ActorProcessingErr, ActorRef, RpcReplyPort, SupervisionEvent};

use crate::agent::AgentActor;
use crate::journal::JournalSlot;
use crate::messages::AgentMsg;
use crate::messages::{AgentHandle, CrewMsg};

/// The crew supervisor.
pub struct CrewActor;

/// The supervisor's state.
pub struct CrewState {
    agents: Vec<AgentHandle>,
    by_actor: BTreeMap<ActorId, AgentId>,
    journals: Vec<JournalSlot>,
    waiting: Vec<(AgentId, u64, RpcReplyPort<AgentHandle>)>,
    /// Each agent's current actor's task, awaited when the crew stops: `run_episode`
    /// returns only once every agent is gone, so nothing of one episode runs into the
    /// next on the same runtime.
    tasks: Vec<JoinHandle<()>>,
}

impl CrewActor {
    async fn start(
        myself: &ActorRef<CrewMsg>,
        core: Box<AgentCore>,
        journal: JournalSlot,
    ) -> Result<(ActorRef<AgentMsg>, JoinHandle<()>), ActorProcessingErr> {
        Ok(Actor::spawn_linked(None, AgentActor, (core, journal), myself.get_cell()).await?)
    }
}

impl Actor for CrewActor {
    type Msg = CrewMsg;
    type State = CrewState;
    type Arguments = AgentFactory;

    async fn pre_start(
        &self,
        myself: ActorRef<Self::Msg>,
        factory: AgentFactory,
    ) -> Result<Self::State, ActorProcessingErr> {
        let mut state = CrewState {
            agents: Vec::new(),
            by_actor: BTreeMap::new(),
            journals: Vec::new(),
            waiting: Vec::new(),
            tasks: Vec::new(),
        };
        for id in (0..factory.len() as u32).map(AgentId) {
            let (journal, core) = JournalSlot::start(&factory, id).ok_or("the factory lost an agent")?;
            state.journals.push(journal.clone());
            let (actor, task) = Self::start(&myself, Box::new(core), journal).await?;
            state.by_actor.insert(actor.get_id(), id);
            state.agents.push(AgentHandle { agent: id, actor, generation: 0, cause: None });
            state.tasks.push(task);
        }
        Ok(state)
    }

    async fn post_stop(&self, _myself: ActorRef<Self::Msg>, state: &mut Self::State) -> Result<(), ActorProcessingErr> {
        // Every agent is told first, so that on a multi-thread runtime they stop in
        // parallel; then each is waited for. Killed rather than stopped: an agent has
        // nothing to do at its end and no message is left for it once the world is gone,
        // and a stopped actor sends its whole state to the supervisor in its last
        // event, where this task would drop all of them one after another.
        for h in &state.agents {
            h.actor.kill();
        }
        for task in state.tasks.drain(..) {
            let _ = task.await;
        }
        Ok(())
    }

    async fn handle(
        &self,
        _myself: ActorRef<Self::Msg>,
        msg: Self::Msg,
        state: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            CrewMsg::Agent { id, newer_than, reply } => {
                let Some(h) = state.agents.get(id.index()) else {
                    return Ok(());
                };
                match newer_than {
                    Some(g) if h.generation <= g => state.waiting.push((id, g, reply)),
                    _ => {
                        let _ = reply.send(h.clone());
                    }
                }
            }
            CrewMsg::All(reply) => {
                let _ = reply.send(state.agents.clone());
            }
        }
        Ok(())
    }

    async fn handle_supervisor_evt(
        &self,
        myself: ActorRef<Self::Msg>,
        evt: SupervisionEvent,
        state: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        let SupervisionEvent::ActorFailed(cell, err) = evt else {
            return Ok(());
        };
        let Some(id) = state.by_actor.remove(&cell.get_id()) else {
            return Ok(());
        };
        let cause = err.to_string();
        if cause.contains("injected crash") {
            // A fault drill (DESIGN section 3): expected, and a soak has thousands.
            tracing::info!(agent = %id, %cause, "agent failed; restarting from its last verified state");
        } else {
            tracing::warn!(agent = %id, %cause, "agent failed; restarting from its last verified state");
        }
        metrics::counter!("gatecrew_agent_restarts_total").increment(1);
        let journal = state.journals[id.index()].clone();
        let core = journal.recover();
        let (actor, task) = Self::start(&myself, Box::new(core), journal).await?;
        state.by_actor.insert(actor.get_id(), id);
        // The failed actor's task has ended, or ends without running anything more.
        state.tasks[id.index()] = task;
        let h = &mut state.agents[id.index()];
        h.actor = actor;
        h.generation += 1;
        h.cause = Some(cause);
        let handle = h.clone();
        let (ready, still): (Vec<_>, Vec<_>) =
            std::mem::take(&mut state.waiting).into_iter().partition(|(a, g, _)| *a == id && handle.generation > *g);
        state.waiting = still;
        for (_, _, reply) in ready {
            let _ = reply.send(handle.clone());
        }
        Ok(())
    }
}
