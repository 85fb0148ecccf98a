//! The messages between the kitchen's world, cooks, desk and dispatcher.

use std::sync::Arc;

use gatecrew_kitchen::{Action, Counters, Desk, EpisodeOutcome, Line, StepReport, World, trace::Recorder};
use ractor::{ActorRef, RpcReplyPort};
use ractor_cluster_derive::RactorMessage;

use crate::messages::Cause;

/// Messages to a crew agent.
#[derive(RactorMessage)]
pub enum CookMsg {
    /// Take this step's turn in `world`, borrowing the desk from `desk`; reply with the
    /// action.
    Turn {
        /// The kitchen as it stands before the step.
        world: Arc<World>,
        /// Where the crew's shared desk is borrowed from and returned to.
        desk: ActorRef<DeskMsg>,
        /// The action this agent decided.
        reply: RpcReplyPort<Action>,
    },
    /// The step's report (the cook reads its own outcome); acknowledged once applied.
    Observe(Arc<StepReport>, RpcReplyPort<()>),
}

/// Messages to the crew's desk (board or chat, judge, counts).
#[derive(RactorMessage)]
pub enum DeskMsg {
    /// Open a step at this time (closes what timed out); acknowledged.
    Open(u32, RpcReplyPort<()>),
    /// Lend the desk for one turn; it is gone until returned.
    Lend(RpcReplyPort<Box<dyn Desk>>),
    /// The desk back after a turn; acknowledged.
    Return(Box<dyn Desk>, RpcReplyPort<()>),
    /// The lines written since the last call.
    Lines(RpcReplyPort<Vec<Line>>),
    /// The crew's counts so far.
    Counters(RpcReplyPort<Counters>),
}

/// Messages to the dispatcher.
#[derive(RactorMessage)]
pub enum DispatcherMsg {
    /// Decide every agent's action in `world`; reply with them and its lines.
    Decide(Arc<World>, RpcReplyPort<(Vec<Action>, Vec<Line>)>),
    /// What the step did, in the world after it; acknowledged.
    Observe(Arc<World>, Arc<StepReport>, RpcReplyPort<()>),
    /// Its counts so far.
    Counters(RpcReplyPort<Counters>),
}

/// The episode's outcome and its recorder (to be finished by the caller).
pub type Finished = (EpisodeOutcome, Option<Recorder>);

/// Messages to the kitchen world.
#[derive(RactorMessage)]
pub enum KitchenWorldMsg {
    /// Run the episode to its end; reply with the outcome or why it failed.
    Run(RpcReplyPort<Result<Finished, Cause>>),
}
