//! What a scenario asks of its driver, and the answers. Every world's episode speaks
//! this vocabulary; the construction round asks for all of it, in the order its
//! `round.rs` writes down, and a world without a board or an adjudicator asks for steps
//! and flushes only.

use gatecrew_gating::Adjudication;
use gatecrew_protocol::trace::EndReason;
use gatecrew_protocol::{AgentId, BoardError, BoardMessage, IssueId, Receipt, Tick, WindowClosed};

use crate::ConsultRequest;

/// What the episode needs from its driver next, with `I` its agents' inputs and `F`
/// what it reports at its end. Each is answered with the [`Answer`] its doc names,
/// before the next poll.
#[derive(Debug)]
pub enum Need<I, F> {
    /// The earliest tick at which the driver needs the clock stopped: the board's next
    /// window deadline, and anything of its own. [`Answer::Deadline`].
    Deadline,
    /// Resolve these consults, in order. [`Answer::Adjudicated`], one per request.
    Adjudicate(Vec<ConsultRequest>),
    /// The clock is at this tick: expire the board's windows. [`Answer::Expired`].
    Expire(Tick),
    /// Post `msg` from `from` on the board at `now`. [`Answer::Posted`].
    Post {
        /// The agent it comes from (the board checks it is the message's sender).
        from: AgentId,
        /// What to post.
        msg: BoardMessage,
        /// The board's clock for it: a window opened now closes `window_ticks` later.
        now: Tick,
    },
    /// Agents are about to be woken at this tick: what comes from outside the crew
    /// enters now (a person's line, a bot that left the server). [`Answer::Ready`].
    Outside(Tick),
    /// Step these agents, given in id order. [`Answer::Stepped`], one per input, in
    /// the same order.
    Step(Vec<(AgentId, I)>),
    /// The round is over; its events are ready to drain. [`Answer::Ready`].
    Flush,
    /// The episode ended; the agents' last step comes next. [`Answer::Ready`].
    Over(EndReason),
    /// The episode is over and its trace complete. Polling again gives it again.
    Done(F),
}

/// The driver's answer to a [`Need`], with `O` the agents' outputs.
#[derive(Debug)]
pub enum Answer<O> {
    /// To [`Need::Deadline`].
    Deadline(Option<Tick>),
    /// To [`Need::Adjudicate`].
    Adjudicated(Vec<(IssueId, Adjudication)>),
    /// To [`Need::Expire`]: the windows the board closed.
    Expired(Vec<WindowClosed>),
    /// To [`Need::Post`]: the board's answer.
    Posted(Result<Receipt, BoardError>),
    /// To [`Need::Step`].
    Stepped(Vec<Stepped<O>>),
    /// To [`Need::Outside`], [`Need::Flush`] and [`Need::Over`].
    Ready,
}

/// One agent's step, as the driver ran it.
#[derive(Debug, Clone)]
pub struct Stepped<O> {
    /// Whose step: outputs are applied in id order, whatever order they came in.
    pub agent: AgentId,
    /// What it did.
    pub output: O,
    /// Its first attempt failed and it was restored from its last snapshot and stepped
    /// again (the supervisor's restart): why it failed.
    pub restarted: Option<String>,
}

impl<O> Stepped<O> {
    /// A step that went through the first time.
    pub fn ok(agent: AgentId, output: O) -> Self {
        Stepped { agent, output, restarted: None }
    }
}
