//! The agent actor: routes step requests to its [`AgentCore`].

use gatecrew_crew::agent::AgentCore;
use ractor::{Actor, ActorProcessingErr, ActorRef};

use crate::messages::{AgentMsg, CrewMsg};

/// The agent actor.
pub struct AgentActor;

/// The agent actor's state: the private core and the supervisor to snapshot to.
pub struct AgentState {
    core: AgentCore,
    crew: ActorRef<CrewMsg>,
}

impl Actor for AgentActor {
    type Msg = AgentMsg;
    type State = AgentState;
    type Arguments = (AgentCore, ActorRef<CrewMsg>);

    async fn pre_start(
        &self,
        _myself: ActorRef<Self::Msg>,
        (core, crew): Self::Arguments,
    ) -> Result<Self::State, ActorProcessingErr> {
        Ok(AgentState { core, crew })
    }

    async fn handle(
        &self,
        _myself: ActorRef<Self::Msg>,
        msg: Self::Msg,
        state: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            AgentMsg::Step(input, reply) => {
                let out = state.core.step(*input);
                // The supervisor holds the state after the last verified step, so a
                // crash in a later step restarts from here. Wait for it to be stored
                // before answering: the next step cannot start before that.
                let snapshot = Box::new(state.core.clone());
                ractor::call!(state.crew, CrewMsg::Snapshot, snapshot)?;
                let _ = reply.send(out);
            }
        }
        Ok(())
    }
}
