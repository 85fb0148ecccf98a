//! The crew supervisor: spawns the agent actors, holds what each agent's kind keeps to
//! rebuild it (a construction agent's journal: a checkpoint and the inputs since,
//! [`crate::journal`]), and restarts a failed agent from its state after its last
//! verified step. An agent that keeps nothing to rebuild from (a kitchen decider) fails
//! the episode instead.

use std::collections::BTreeMap;
use std::marker::PhantomData;

use gatecrew_protocol::AgentId;
use ractor::concurrency::JoinHandle;
use ractor::{Actor, ActorId, ActorProcessingErr, ActorRef, RpcReplyPort, SupervisionEvent};

use crate::agent::AgentActor;
use crate::hosted::Hosted;
use crate::messages::{AgentHandle, AgentMsg, CrewMsg, Lost};

/// The agents a crew starts with, in id order, each with what its supervisor keeps.
/// Built as the crew starts, one at a time, not all before.
pub type Roster<A> = Box<dyn Iterator<Item = (A, <A as Hosted>::Keep)> + Send>;

/// The crew supervisor.
pub struct CrewActor<A>(PhantomData<fn() -> A>);

impl<A> CrewActor<A> {
    /// The supervisor of a crew of `A`s.
    pub fn new() -> Self {
        CrewActor(PhantomData)
    }
}

impl<A> Default for CrewActor<A> {
    fn default() -> Self {
        CrewActor::new()
    }
}

/// A request for an agent's next generation, answered once it is up (or gone).
type Waiting<A> = (AgentId, u64, RpcReplyPort<Result<AgentHandle<A>, Lost>>);

/// The supervisor's state.
pub struct CrewState<A: Hosted> {
    agents: Vec<AgentHandle<A>>,
    by_actor: BTreeMap<ActorId, AgentId>,
    keeps: Vec<A::Keep>,
    /// Why an agent that could not be rebuilt is gone.
    lost: Vec<Option<Lost>>,
    waiting: Vec<Waiting<A>>,
    /// Each agent's current actor's task, awaited when the crew stops: a run returns
    /// only once every agent is gone, so nothing of one episode runs into the next on
    /// the same runtime.
    tasks: Vec<JoinHandle<()>>,
}

impl<A: Hosted> CrewActor<A> {
    async fn start(
        myself: &ActorRef<CrewMsg<A>>,
        id: AgentId,
        agent: Box<A>,
        keep: A::Keep,
    ) -> Result<(ActorRef<AgentMsg<A>>, JoinHandle<()>), ActorProcessingErr> {
        Ok(Actor::spawn_linked(None, AgentActor::new(), (id, agent, keep), myself.get_cell()).await?)
    }
}

impl<A: Hosted> Actor for CrewActor<A> {
    type Msg = CrewMsg<A>;
    type State = CrewState<A>;
    type Arguments = Roster<A>;

    async fn pre_start(
        &self,
        myself: ActorRef<Self::Msg>,
        roster: Roster<A>,
    ) -> Result<Self::State, ActorProcessingErr> {
        let mut state = CrewState {
            agents: Vec::new(),
            by_actor: BTreeMap::new(),
            keeps: Vec::new(),
            lost: Vec::new(),
            waiting: Vec::new(),
            tasks: Vec::new(),
        };
        for (i, (agent, keep)) in roster.enumerate() {
            let id = AgentId(i as u32);
            state.keeps.push(keep.clone());
            let (actor, task) = Self::start(&myself, id, Box::new(agent), keep).await?;
            state.by_actor.insert(actor.get_id(), id);
            state.agents.push(AgentHandle { agent: id, actor, generation: 0, cause: None });
            state.lost.push(None);
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
                if let Some(why) = &state.lost[id.index()] {
                    let _ = reply.send(Err(why.clone()));
                    return Ok(());
                }
                match newer_than {
                    Some(g) if h.generation <= g => state.waiting.push((id, g, reply)),
                    _ => {
                        let _ = reply.send(Ok(h.clone()));
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
        let keep = state.keeps[id.index()].clone();
        let Some(agent) = A::recover(&keep) else {
            tracing::warn!(agent = %id, %cause, "agent failed and cannot be restarted");
            let why = format!("{id} failed and cannot be restarted: {cause}");
            state.lost[id.index()] = Some(why.clone());
            let (gone, still): (Vec<_>, Vec<_>) =
                std::mem::take(&mut state.waiting).into_iter().partition(|(a, _, _)| *a == id);
            state.waiting = still;
            for (_, _, reply) in gone {
                let _ = reply.send(Err(why.clone()));
            }
            return Ok(());
        };
        if cause.contains("injected crash") {
            // A fault drill (DESIGN section 3): expected, and a soak has thousands.
            tracing::info!(agent = %id, %cause, "agent failed; restarting from its last verified state");
        } else {
            tracing::warn!(agent = %id, %cause, "agent failed; restarting from its last verified state");
        }
        metrics::counter!("gatecrew_agent_restarts_total").increment(1);
        let (actor, task) = Self::start(&myself, id, Box::new(agent), keep).await?;
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
            let _ = reply.send(Ok(handle.clone()));
        }
        Ok(())
    }
}
