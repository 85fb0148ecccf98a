//! The synchronous driver every world shares: the scenario, the board core and the
//! agents' cores in a plain loop, no actors, no tokio. It is the reference the actor
//! runtime must match byte for byte, and the fast path for suites and calibration.

use gatecrew_protocol::{AgentId, BoardError, BoardMessage, Receipt, Tick, WindowClosed};

use crate::{Agent, Answer, Need, ResolveError, Resolver, Scenario};

/// What answers a scenario's board needs: the protocol's board core, or [`NoBoard`] for
/// a world whose coordination does not go through it.
pub trait Board {
    /// The earliest open window's deadline.
    fn next_deadline(&self) -> Option<Tick>;
    /// Closes the windows whose deadline has passed.
    fn expire(&mut self, now: Tick) -> Vec<WindowClosed>;
    /// `from` posts `msg` at `now`.
    fn post(&mut self, from: AgentId, msg: BoardMessage, now: Tick) -> Result<Receipt, BoardError>;
}

impl Board for gatecrew_protocol::Board {
    fn next_deadline(&self) -> Option<Tick> {
        gatecrew_protocol::Board::next_deadline(self)
    }
    fn expire(&mut self, now: Tick) -> Vec<WindowClosed> {
        gatecrew_protocol::Board::expire(self, now)
    }
    fn post(&mut self, from: AgentId, msg: BoardMessage, now: Tick) -> Result<Receipt, BoardError> {
        gatecrew_protocol::Board::post(self, from, msg, now)
    }
}

/// No board: a scenario driven with it never posts (it has no deadlines of the board's
/// and nothing to expire).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoBoard;

impl Board for NoBoard {
    fn next_deadline(&self) -> Option<Tick> {
        None
    }
    fn expire(&mut self, _now: Tick) -> Vec<WindowClosed> {
        Vec::new()
    }
    fn post(&mut self, from: AgentId, msg: BoardMessage, _now: Tick) -> Result<Receipt, BoardError> {
        unreachable!("{from} posted {} in a scenario driven without a board", msg.kind())
    }
}

/// Drives `episode` to its end with `agents` (indexed by the ids its steps name),
/// `board` and `resolver` (for due consults); `flush` is called at every
/// [`Need::Flush`] with the episode and the agents, and drains the round's events.
/// Fails only when the resolver does.
pub fn drive<S, A>(
    episode: &mut S,
    agents: &mut [A],
    board: &mut dyn Board,
    resolver: &mut dyn Resolver,
    flush: &mut dyn FnMut(&mut S, &[A]),
) -> Result<S::Finished, ResolveError>
where
    S: Scenario,
    A: Agent<S::Input, S::Output>,
{
    loop {
        let answer = match episode.poll() {
            Need::Deadline => Answer::Deadline(board.next_deadline()),
            Need::Adjudicate(reqs) => {
                let adjs = reqs.iter().map(|r| Ok((r.issue_id, resolver.resolve(r)?)));
                Answer::Adjudicated(adjs.collect::<Result<_, ResolveError>>()?)
            }
            Need::Expire(now) => Answer::Expired(board.expire(now)),
            Need::Post { from, msg, now } => Answer::Posted(board.post(from, msg, now)),
            Need::Outside(_) | Need::Over(_) => Answer::Ready,
            Need::Step(inputs) => Answer::Stepped(step_all(agents, inputs)),
            Need::Flush => {
                flush(episode, agents);
                Answer::Ready
            }
            Need::Done(finished) => return Ok(finished),
        };
        episode.answer(answer);
    }
}

/// Steps each agent of `inputs` in turn: the answer to a [`Need::Step`] for a driver
/// that holds the agents' cores itself.
pub fn step_all<I, O, A: Agent<I, O>>(agents: &mut [A], inputs: Vec<(AgentId, I)>) -> Vec<crate::Stepped<O>> {
    A::step_batch(agents, inputs)
}

/// A resolver for a scenario that never consults.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoConsults;

impl Resolver for NoConsults {
    fn resolve(&mut self, req: &crate::ConsultRequest) -> Result<gatecrew_gating::Adjudication, ResolveError> {
        unreachable!("issue {} was put to an adjudicator in a scenario driven without one", req.issue_id)
    }
}
