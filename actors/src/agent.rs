//! The agent actor: routes step requests to its [`AgentCore`].

use gatecrew_crew::Sight;
use gatecrew_crew::agent::{AgentCore, StepInput, StepOutput};
use ractor::{Actor, ActorProcessingErr, ActorRef};

use crate::journal::JournalSlot;
use crate::messages::AgentMsg;

/// The agent actor.
pub struct AgentActor;

/// The agent actor's state: the private core and the journal its supervisor restarts
/// it from.
pub struct AgentState {
    // Boxed: ractor moves the arguments and the state through several futures while
    // it starts an actor, and a 1.7 KB core copied each time was a measurable part of
    // starting 1,000 agents (docs/benchmarks.md, "Where the rest goes").
    core: Box<AgentCore>,
    journal: JournalSlot,
}

impl AgentState {
    /// Journalled before the answer: the next step cannot start before that. With a
    /// sight, the agent takes its view first, and lets go of the world before it steps
    /// (the journal keeps the input with its view, for a restart to step again).
    fn step(&mut self, mut input: StepInput, sight: Option<Sight>) -> StepOutput {
        if let Some(sight) = sight {
            sight.fill(self.core.id(), &mut input);
        }
        self.journal.step(&mut self.core, input)
    }
}

impl Actor for AgentActor {
    type Msg = AgentMsg;
    type State = AgentState;
    type Arguments = (Box<AgentCore>, JournalSlot);

    async fn pre_start(
        &self,
        _myself: ActorRef<Self::Msg>,
        (core, journal): Self::Arguments,
    ) -> Result<Self::State, ActorProcessingErr> {
        Ok(AgentState { core, journal })
    }

    async fn handle(
        &self,
        myself: ActorRef<Self::Msg>,
        msg: Self::Msg,
        state: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        let last = match msg {
            AgentMsg::Step(input, sight, reply) => {
                let last = input.final_call;
                reply.send(state.step(input, sight));
                last
            }
            AgentMsg::Resume(reply) => {
                let input = state.journal.take_pending().ok_or("resume: no step was cut short")?;
                let last = input.final_call;
                let _ = reply.send(state.step(input, None));
                last
            }
        };
        if last {
            // The final call is an agent's last step: its actor ends here, in its own
            // task and in parallel with the others', instead of all of them at the
            // crew's stop. Killed, not stopped: a stopped actor hands its whole state
            // to the supervisor, which would drop them one after another.
            myself.kill();
        }
        Ok(())
    }
}
