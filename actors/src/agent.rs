//! The agent actor: routes step requests to its [`AgentCore`].

use gatecrew_crew::agent::{AgentCore, StepInput};
use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};

use crate::journal::JournalSlot;
use crate::messages::AgentMsg;

/// The agent actor.
pub struct AgentActor;

/// The agent actor's state: the private core and the journal its supervisor restarts
/// it from.
pub struct AgentState {
    core: AgentCore,
    journal: JournalSlot,
}

impl AgentState {
    fn step(&mut self, input: StepInput, reply: RpcReplyPort<gatecrew_crew::agent::StepOutput>) {
        self.journal.begin(&input);
        let out = self.core.step(input);
        // Journalled before the answer: the next step cannot start before that.
        self.journal.commit(&self.core);
        let _ = reply.send(out);
    }
}

impl Actor for AgentActor {
    type Msg = AgentMsg;
    type State = AgentState;
    type Arguments = (AgentCore, JournalSlot);

    async fn pre_start(
        &self,
        _myself: ActorRef<Self::Msg>,
        (core, journal): Self::Arguments,
    ) -> Result<Self::State, ActorProcessingErr> {
        Ok(AgentState { core, journal })
    }

    async fn handle(
        &self,
        _myself: ActorRef<Self::Msg>,
        msg: Self::Msg,
        state: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            AgentMsg::Step(input, reply) => state.step(*input, reply),
            AgentMsg::Resume(reply) => {
                let input = state.journal.take_pending().ok_or("resume: no step was cut short")?;
                state.step(input, reply);
            }
        }
        Ok(())
    }
}
