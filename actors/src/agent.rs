//! The agent actor: routes step requests to its [`Hosted`] agent.

use std::marker::PhantomData;

use gatecrew_protocol::AgentId;
use ractor::{Actor, ActorProcessingErr, ActorRef};

use crate::hosted::Hosted;
use crate::messages::AgentMsg;

/// The agent actor.
pub struct AgentActor<A>(PhantomData<fn() -> A>);

impl<A> AgentActor<A> {
    /// The actor of an agent of type `A`.
    pub fn new() -> Self {
        AgentActor(PhantomData)
    }
}

impl<A> Default for AgentActor<A> {
    fn default() -> Self {
        AgentActor::new()
    }
}

/// The agent actor's state: the agent's private state and what its supervisor keeps
/// to restart it from.
pub struct AgentState<A: Hosted> {
    id: AgentId,
    // Boxed: ractor moves the arguments and the state through several futures while it
    // starts an actor, and a construction core is large (docs/benchmarks.md, "Where
    // the rest goes").
    agent: Box<A>,
    keep: A::Keep,
}

impl<A: Hosted> Actor for AgentActor<A> {
    type Msg = AgentMsg<A>;
    type State = AgentState<A>;
    type Arguments = (AgentId, Box<A>, A::Keep);

    async fn pre_start(
        &self,
        _myself: ActorRef<Self::Msg>,
        (id, agent, keep): Self::Arguments,
    ) -> Result<Self::State, ActorProcessingErr> {
        Ok(AgentState { id, agent, keep })
    }

    async fn handle(
        &self,
        myself: ActorRef<Self::Msg>,
        msg: Self::Msg,
        state: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        let last = match msg {
            AgentMsg::Step(input, sight, reply) => {
                let last = A::last(&input);
                reply.send(state.agent.step(state.id, &state.keep, input, sight));
                last
            }
            AgentMsg::Resume(reply) => {
                let input = A::resume(&state.keep).ok_or("resume: no step was cut short")?;
                let last = A::last(&input);
                let _ = reply.send(state.agent.step(state.id, &state.keep, input, None));
                last
            }
        };
        if last {
            // An agent's last step: its actor ends here, in its own task and in parallel
            // with the others', instead of all of them at the crew's stop. Killed, not
            // stopped: a stopped actor hands its whole state to the supervisor, which
            // would drop them one after another.
            myself.kill();
        }
        Ok(())
    }
}
