//! What the actor runtime asks of a world: a [`Staged`] scenario (the episode protocol's
//! [`Scenario`] with the few things a runtime of actors needs besides) and its
//! [`Hosted`] agents, each run in an actor of its own. Both worlds are wired here, in
//! one place: the construction episode and its agent cores (restarted from their
//! journals after a failure), and the kitchen and its deciders (which have nothing to
//! restart from: a failed cook fails the episode).

use gatecrew_crew::agent::{AgentCore, StepInput, StepOutput};
use gatecrew_crew::{ConsultRequest, Episode, Progress, Sight};
use gatecrew_engine::Scenario;
use gatecrew_kitchen::{Decider, EpisodeCore, Turn, Turned};
use gatecrew_protocol::AgentId;

use crate::journal::JournalSlot;

/// An agent the runtime runs in its own actor.
pub trait Hosted: Send + Sized + 'static {
    /// What it is stepped with.
    type Input: Send + 'static;
    /// What it answers.
    type Output: Send + 'static;
    /// The round's read-only world, when the agent takes its own view from it
    /// ([`Staged::sight`]).
    type Sight: Clone + Send + Sync + 'static;
    /// What its supervisor keeps to rebuild it after a failure, shared with its actor.
    type Keep: Clone + Send + Sync + 'static;

    /// Steps agent `id` on `input`, after taking its view from `sight` if given.
    fn step(&mut self, id: AgentId, keep: &Self::Keep, input: Self::Input, sight: Option<Self::Sight>) -> Self::Output;

    /// After a failure: the agent as it was after its last verified step, if it can be
    /// rebuilt.
    fn recover(keep: &Self::Keep) -> Option<Self>;

    /// The input the agent was stepping when it failed, without the fault that made it
    /// fail, for the rebuilt agent to step again.
    fn resume(keep: &Self::Keep) -> Option<Self::Input>;

    /// Whether `input` is the agent's last: its actor ends after answering it.
    fn last(input: &Self::Input) -> bool;
}

/// A scenario the runtime can run: its agents, the progress it reports to a tap, and
/// the hooks a runtime of actors needs besides the protocol's needs.
pub trait Staged: Scenario + Send + 'static {
    /// Its agents.
    type Agent: Hosted<Input = Self::Input, Output = Self::Output>;
    /// What it reports after each round.
    type Progress: Clone + Send + 'static;

    /// Before the first poll: what the runtime takes over (the construction episode
    /// lets its agents take their own views).
    fn start(&mut self) {}

    /// The world for this round's views, when the agents take their own.
    fn sight(&self) -> Option<<Self::Agent as Hosted>::Sight> {
        None
    }

    /// Tier-3 consults made this round, for a live adjudicator to start at once.
    fn new_consults(&mut self) -> Vec<ConsultRequest> {
        Vec::new()
    }

    /// Where the episode stands.
    fn progress(&self) -> Self::Progress;
}

impl Hosted for AgentCore {
    type Input = StepInput;
    type Output = StepOutput;
    type Sight = Sight;
    type Keep = JournalSlot;

    /// Journalled before the answer: the next step cannot start before that. With a
    /// sight, the agent takes its view first, and lets go of the world before it steps
    /// (the journal keeps the input with its view, for a restart to step again).
    fn step(&mut self, id: AgentId, keep: &JournalSlot, mut input: StepInput, sight: Option<Sight>) -> StepOutput {
        if let Some(sight) = sight {
            sight.fill(id, &mut input);
        }
        keep.step(self, input)
    }

    fn recover(keep: &JournalSlot) -> Option<Self> {
        Some(keep.recover())
    }

    fn resume(keep: &JournalSlot) -> Option<StepInput> {
        keep.take_pending()
    }

    fn last(input: &StepInput) -> bool {
        input.final_call
    }
}

impl Staged for Episode {
    type Agent = AgentCore;
    type Progress = Progress;

    fn start(&mut self) {
        self.defer_views();
    }

    fn sight(&self) -> Option<Sight> {
        Episode::sight(self)
    }

    fn new_consults(&mut self) -> Vec<ConsultRequest> {
        self.take_new_consults()
    }

    fn progress(&self) -> Progress {
        Episode::progress(self)
    }
}

impl Hosted for Decider {
    type Input = Turn;
    type Output = Turned;
    type Sight = ();
    type Keep = ();

    fn step(&mut self, id: AgentId, _: &(), turn: Turn, _: Option<()>) -> Turned {
        gatecrew_kitchen::decide(self, id, turn).output
    }

    fn recover(_: &()) -> Option<Self> {
        None
    }

    fn resume(_: &()) -> Option<Turn> {
        None
    }

    fn last(_: &Turn) -> bool {
        false
    }
}

impl Staged for EpisodeCore {
    type Agent = Decider;
    /// The steps run.
    type Progress = u32;

    fn progress(&self) -> u32 {
        self.world().time()
    }
}
