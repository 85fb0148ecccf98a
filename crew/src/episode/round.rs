//! The order of a round, in one place. The episode core asks for what it needs next
//! ([`Episode::poll`] returns a [`Need`]) and its driver answers ([`Episode::answer`]).
//! A driver owns only what the core does not: the board (a plain core, or an actor),
//! the agents (cores, or actors), the adjudicator, the clock it waits on and the sinks
//! of the trace. Every driver is a `match` over [`Need`], and they cannot drift apart
//! because none of them knows the order:
//!
//! ```text
//!          ┌──────────────────────────── next round ◄─────────────────────────────┐
//!          ▼                                                                      │
//!  Deadline ─► Adjudicate ─► (advance) ─► Expire ─► Post* ─► Outside ─► Step ─► Post* ─► Flush
//!                 (if due)       │       (board)  (held    (a person,  (awake   (each
//!                                │                 back)    a failure)  agents)  output)
//!                                ▼
//!                         Over ─► Step (last) ─► Flush ─► Done
//! ```
//!
//! * `Deadline`: the earliest tick the driver needs the clock to stop at (the board's
//!   next expiry, a scripted line). A driver on the wall clock (a Minecraft server)
//!   waits here, delivering outcomes, until [`Episode::next_due`] has come.
//! * `Adjudicate`: tier-3 consults whose verdicts enter at this advance and have no
//!   result yet; only then does the clock move (see [`super::consult`]).
//! * The advance itself is the core's: the clock jumps to the next tick at which
//!   something happens and the actions completing then are applied, in agent-id order.
//! * `Expire`, then `Post` for each message the delay fault held back until now.
//! * `Outside`: what comes from outside the crew enters now, before anyone is woken: a
//!   person's line, a bot that left the server.
//! * `Step`: every awake agent at once (they may think concurrently); their outputs are
//!   applied in agent-id order, each one's messages posted (`Post`) before the next
//!   output is applied.
//! * `Flush`: the round's trace events are ready ([`Episode::drain`]); progress too.
//! * `Over`: the episode ended (why); the driver settles what it must before the
//!   agents' last step (a last look at a real world); then `Step` with every agent's
//!   final input (their posts go nowhere), `episode_end`, a last `Flush`, `Done`.

use std::collections::VecDeque;

use gatecrew_protocol::{AgentId, BoardMessage, IssueId, Tick};

use super::{EndReason, Episode, Progress};
use crate::agent::{StepInput, StepOutput};

/// At most this many agents are handed to the driver in one [`Need::Step`]; a round
/// with more awake agents asks in batches, in agent-id order, and applies every output
/// after the last, so the trace is the one a single batch gives. Each input carries the
/// agent's observation, and on a crowded site an observation lists every teammate in
/// sight: handed out for a whole round of a very large crew they would be most of the
/// run's memory. The size is not a tuned figure: far above the worker threads any
/// machine runs a batch on, small beside the crews where memory counts (1,000 and up);
/// a crew of up to this many is stepped in one batch.
pub const STEP_BATCH: usize = 256;

/// Agents stepped so far in a round, and where the next batch starts.
#[derive(Debug, Clone, Default)]
pub(super) struct Batches {
    done: Vec<Stepped>,
    next: Option<usize>,
}

/// What a finished episode reports besides its trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finished {
    /// Blocks in place at the end.
    pub progress: Progress,
    /// Why it ended.
    pub reason: EndReason,
}

/// What the episode needs from its driver next: the episode protocol's needs
/// (`gatecrew_engine::Need`) with the agents' inputs. Each is answered with the
/// [`Answer`] its doc names, before the next [`Episode::poll`]. A driver that took the
/// views over ([`Episode::defer_views`]) gets the inputs of [`Need::Step`] with empty
/// views and fills each from [`Episode::sight`] first.
pub type Need = gatecrew_engine::Need<StepInput, Finished>;

/// The driver's answer to a [`Need`].
pub type Answer = gatecrew_engine::Answer<StepOutput>;

/// One agent's step, as the driver ran it.
pub type Stepped = gatecrew_engine::Stepped<StepOutput>;

/// Where the round is. A phase named `Await*` waits for the answer to the need it
/// handed out; the others run (or hand out their need) at the next poll.
#[derive(Debug, Clone, Default)]
pub(super) enum Phase {
    #[default]
    Deadline,
    AwaitDeadline,
    Consults(Option<Tick>),
    AwaitAdjudicated(Option<Tick>),
    Advance(Option<Tick>),
    AwaitExpired,
    Posting(Posting),
    AwaitPosted(Posting, (AgentId, BoardMessage, Option<IssueId>)),
    Outside,
    AwaitOutside,
    Step(Vec<(AgentId, StepInput)>, Batches),
    AwaitStepped(Batches),
    Applying(VecDeque<(AgentId, StepOutput)>),
    Flush,
    AwaitFlush,
    Over(EndReason),
    AwaitOver,
    LastStep(Vec<(AgentId, StepInput)>, Batches),
    AwaitLastStep(Batches),
    LastFlush(Finished),
    AwaitLastFlush(Finished),
    Done(Finished),
}

/// Messages on their way to the board, and what comes after them.
#[derive(Debug, Clone)]
pub(super) struct Posting {
    queue: VecDeque<(AgentId, BoardMessage, Option<IssueId>)>,
    then: Then,
}

#[derive(Debug, Clone)]
enum Then {
    /// Released messages: then the outside world.
    Outside,
    /// One output's messages: then the remaining outputs.
    Apply(VecDeque<(AgentId, StepOutput)>),
}

impl Episode {
    /// What the episode needs next. Panics when the previous need was not answered:
    /// that is a bug in the driver.
    pub fn poll(&mut self) -> Need {
        loop {
            let phase = std::mem::take(&mut self.phase);
            let (next, need) = self.run_phase(phase);
            self.phase = next;
            if let Some(need) = need {
                return need;
            }
        }
    }

    /// Takes the driver's answer to the last need. Panics when it answers another need
    /// (a bug in the driver).
    pub fn answer(&mut self, answer: Answer) {
        let phase = std::mem::take(&mut self.phase);
        self.phase = match (phase, answer) {
            (Phase::AwaitDeadline, Answer::Deadline(d)) => Phase::Consults(d),
            (Phase::AwaitAdjudicated(d), Answer::Adjudicated(adjs)) => {
                for (issue, adj) in adjs {
                    self.adjudicated(issue, adj);
                }
                Phase::Advance(d)
            }
            (Phase::AwaitExpired, Answer::Expired(closed)) => {
                self.board_closed(closed);
                let queue = self.released().into_iter().collect();
                Phase::Posting(Posting { queue, then: Then::Outside })
            }
            (Phase::AwaitPosted(rest, (from, msg, issue)), Answer::Posted(result)) => {
                self.posted(from, msg, issue, result);
                Phase::Posting(rest)
            }
            (Phase::AwaitOutside, Answer::Ready) => match self.wakes(0) {
                (inputs, _) if inputs.is_empty() => Phase::Flush,
                (inputs, next) => Phase::Step(inputs, Batches { done: Vec::new(), next }),
            },
            (Phase::AwaitStepped(mut b), Answer::Stepped(steps)) => {
                b.done.extend(steps);
                match b.next.map(|from| self.wakes(from)) {
                    Some((inputs, next)) if !inputs.is_empty() => Phase::Step(inputs, Batches { done: b.done, next }),
                    _ => {
                        let mut outputs = self.restarts(b.done);
                        self.channel_round(&mut outputs);
                        Phase::Applying(outputs)
                    }
                }
            }
            (Phase::AwaitFlush, Answer::Ready) => Phase::Deadline,
            (Phase::AwaitOver, Answer::Ready) => {
                let (inputs, next) = self.final_inputs(0);
                Phase::LastStep(inputs, Batches { done: Vec::new(), next })
            }
            (Phase::AwaitLastStep(mut b), Answer::Stepped(steps)) if b.next.is_some() => {
                b.done.extend(steps);
                let (inputs, next) = self.final_inputs(b.next.unwrap_or_default());
                Phase::LastStep(inputs, Batches { done: b.done, next })
            }
            (Phase::AwaitLastStep(mut b), Answer::Stepped(steps)) => {
                b.done.extend(steps);
                for (agent, output) in self.restarts(b.done) {
                    // The crew is done: what the agents would still post goes nowhere.
                    let _ = self.apply(agent, output);
                }
                let progress = self.end();
                Phase::LastFlush(Finished { progress, reason: self.clock.ended.unwrap_or(EndReason::Stalled) })
            }
            (Phase::AwaitLastFlush(f), Answer::Ready) => Phase::Done(f),
            (phase, answer) => panic!("the episode's driver answered {answer:?} while the episode was at {phase:?}"),
        };
    }

    /// Ends the episode between rounds for a reason of the driver's own (a person quit
    /// the session): the next poll is [`Need::Over`]. Does nothing within a round.
    pub fn stop(&mut self) {
        if matches!(self.phase, Phase::Deadline) {
            self.phase = Phase::Over(self.clock.ended.unwrap_or(EndReason::Stalled));
        }
    }

    /// Restarts are recorded first, in agent-id order, as a supervisor restarts a
    /// failed agent before anyone's output is applied.
    fn restarts(&mut self, steps: Vec<Stepped>) -> VecDeque<(AgentId, StepOutput)> {
        steps
            .into_iter()
            .map(|s| {
                if let Some(cause) = &s.restarted {
                    self.agent_restarted(s.agent, cause);
                }
                (s.agent, s.output)
            })
            .collect()
    }

    /// Runs one phase; returns the next and the need to hand out, if any.
    fn run_phase(&mut self, phase: Phase) -> (Phase, Option<Need>) {
        match phase {
            Phase::Deadline => (Phase::AwaitDeadline, Some(Need::Deadline)),
            Phase::Consults(d) => match self.consults_due(d) {
                due if due.is_empty() => (Phase::Advance(d), None),
                due => (Phase::AwaitAdjudicated(d), Some(Need::Adjudicate(due))),
            },
            Phase::Advance(d) => match self.advance(d) {
                true => (Phase::AwaitExpired, Some(Need::Expire(self.clock.tick))),
                false => (Phase::Over(self.clock.ended.unwrap_or(EndReason::Stalled)), None),
            },
            Phase::Posting(mut p) => match p.queue.pop_front() {
                Some((from, msg, issue)) => {
                    let need = Need::Post { from, msg: msg.clone(), now: self.clock.tick };
                    (Phase::AwaitPosted(p, (from, msg, issue)), Some(need))
                }
                None => match p.then {
                    Then::Outside => (Phase::Outside, None),
                    Then::Apply(rest) => (Phase::Applying(rest), None),
                },
            },
            Phase::Outside => (Phase::AwaitOutside, Some(Need::Outside(self.clock.tick))),
            Phase::Step(inputs, b) => (Phase::AwaitStepped(b), Some(Need::Step(inputs))),
            Phase::Applying(mut outputs) => match outputs.pop_front() {
                Some((agent, output)) => {
                    let queue = self.apply(agent, output).into_iter().map(|(m, i)| (agent, m, i)).collect();
                    (Phase::Posting(Posting { queue, then: Then::Apply(outputs) }), None)
                }
                None => (Phase::Flush, None),
            },
            Phase::Flush => (Phase::AwaitFlush, Some(Need::Flush)),
            Phase::Over(reason) => (Phase::AwaitOver, Some(Need::Over(reason))),
            Phase::LastStep(inputs, b) => (Phase::AwaitLastStep(b), Some(Need::Step(inputs))),
            Phase::LastFlush(f) => (Phase::AwaitLastFlush(f), Some(Need::Flush)),
            Phase::Done(f) => (Phase::Done(f), Some(Need::Done(f))),
            waiting => panic!("the episode was polled at {waiting:?} before its driver answered"),
        }
    }
}

impl gatecrew_engine::Scenario for Episode {
    type Input = StepInput;
    type Output = StepOutput;
    type Event = gatecrew_protocol::trace::Event;
    type Finished = Finished;

    fn poll(&mut self) -> Need {
        Episode::poll(self)
    }

    fn answer(&mut self, answer: Answer) {
        Episode::answer(self, answer);
    }

    fn drain(&mut self) -> Vec<Self::Event> {
        Episode::drain(self)
    }
}
