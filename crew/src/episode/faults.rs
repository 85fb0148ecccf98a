//! The faults the episode core injects itself (DESIGN section 3): board messages lost,
//! held back or doubled between an agent and the board, and agent actors that panic at
//! random steps. (Action failures and path blocks are the world's; crashes at chosen
//! ticks and muted agents are fixed in the setup.)
//!
//! The draws come from a ChaCha8 stream of their own, seeded from the episode seed, so
//! the world's stream is untouched and a faulted episode replays byte for byte. A fault
//! whose rate is zero draws nothing: turning one fault on does not shift another.

use gatecrew_protocol::trace::{EventKind, MessageFault};
use gatecrew_protocol::{AgentId, BoardMessage, IssueId, Tick};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::setup::FaultSpec;

/// Mixed into the episode seed so the fault stream differs from the world's.
const STREAM: u64 = 0x6661_756c_7473_2121;

/// A board message on its way, with the issue it escalates (if any).
pub type Post = (BoardMessage, Option<IssueId>);

/// A message held back by the delay fault.
#[derive(Debug, Clone)]
struct Held {
    due: Tick,
    seq: u64,
    agent: AgentId,
    post: Post,
}

/// The episode's fault injector.
#[derive(Debug, Clone)]
pub struct Faults {
    rng: ChaCha8Rng,
    drop: f64,
    delay: f64,
    duplicate: f64,
    delay_ticks: u64,
    crash_rate: f64,
    held: Vec<Held>,
    seq: u64,
}

impl Faults {
    /// The injector for an episode with these settings and seed.
    pub fn new(spec: &FaultSpec, seed: u64) -> Self {
        Faults {
            rng: ChaCha8Rng::seed_from_u64(seed ^ STREAM),
            drop: spec.message_drop_rate,
            delay: spec.message_delay_rate,
            duplicate: spec.message_duplicate_rate,
            delay_ticks: spec.message_delay_ticks.max(1),
            crash_rate: spec.crash_rate,
            held: Vec::new(),
            seq: 0,
        }
    }

    /// What the network does to the next message, if anything (one draw, bands in a
    /// fixed order).
    pub fn fate(&mut self) -> Option<MessageFault> {
        if self.drop + self.delay + self.duplicate <= 0.0 {
            return None;
        }
        let roll: f64 = self.rng.random();
        if roll < self.drop {
            Some(MessageFault::Dropped)
        } else if roll < self.drop + self.delay {
            Some(MessageFault::Delayed)
        } else if roll < self.drop + self.delay + self.duplicate {
            Some(MessageFault::Duplicated)
        } else {
            None
        }
    }

    /// Whether a chat line or a report to the manager is lost (one draw, only when the
    /// drop rate is on, so that configs without it keep their traces).
    pub fn drops(&mut self) -> bool {
        self.drop > 0.0 && self.rng.random::<f64>() < self.drop
    }

    /// Whether the agent stepping now crashes (the random crash fault).
    pub fn crashes(&mut self) -> bool {
        self.crash_rate > 0.0 && self.rng.random::<f64>() < self.crash_rate
    }

    /// Holds a delayed message back; returns the tick the board receives it.
    pub fn hold(&mut self, now: Tick, agent: AgentId, post: Post) -> Tick {
        let due = now + self.delay_ticks;
        self.seq += 1;
        self.held.push(Held { due, seq: self.seq, agent, post });
        due
    }

    /// The held messages due by `now`, in the order they were sent.
    pub fn release(&mut self, now: Tick) -> Vec<(AgentId, Post)> {
        if self.held.is_empty() {
            return Vec::new();
        }
        let (mut due, rest): (Vec<Held>, Vec<Held>) = self.held.drain(..).partition(|h| h.due <= now);
        self.held = rest;
        due.sort_by_key(|h| (h.due, h.seq));
        due.into_iter().map(|h| (h.agent, h.post)).collect()
    }

    /// When the next held message is due.
    pub fn next_due(&self) -> Option<Tick> {
        self.held.iter().map(|h| h.due).min()
    }
}

impl super::Episode {
    /// Sends an agent's messages through the faulty network: each one reaches the
    /// board now, never, later (see [`Self::released`]) or twice. Returns what
    /// reaches it now, in order.
    pub(super) fn transmit(&mut self, agent: AgentId, posts: Vec<Post>) -> Vec<Post> {
        let mut now_out = Vec::with_capacity(posts.len());
        for post in posts {
            let Some(fault) = self.faults.fate() else {
                now_out.push(post);
                continue;
            };
            let msg = gatecrew_protocol::trace::LineKind::from(post.0.kind());
            metrics::counter!("gatecrew_message_faults_total", "fault" => fault.as_str()).increment(1);
            let until = match fault {
                MessageFault::Dropped => None,
                MessageFault::Delayed => Some(self.faults.hold(self.clock.tick, agent, post.clone()).0),
                MessageFault::Duplicated => {
                    now_out.push(post.clone());
                    now_out.push(post);
                    None
                }
            };
            tracing::debug!(%agent, ?fault, msg = msg.as_str(), "message fault");
            self.push(EventKind::MessageFault { agent, fault, msg, until });
        }
        now_out
    }

    /// Whether a chat line (`flatcomm`) or a report to the central manager
    /// (`central_dag`) is lost on the way. Only the drop fault applies to them: they
    /// carry no window for a delay or a copy to be measured against.
    pub(super) fn lost(&mut self, agent: AgentId, msg: gatecrew_protocol::trace::LineKind) -> bool {
        if !self.faults.drops() {
            return false;
        }
        metrics::counter!("gatecrew_message_faults_total", "fault" => MessageFault::Dropped.as_str()).increment(1);
        self.push(EventKind::MessageFault { agent, fault: MessageFault::Dropped, msg, until: None });
        true
    }

    /// The messages the delay fault held back until now, with their senders, for the
    /// driver to post (and report with [`Self::posted`]) like any others.
    pub(super) fn released(&mut self) -> Vec<(AgentId, BoardMessage, Option<IssueId>)> {
        self.faults.release(self.clock.tick).into_iter().map(|(a, (msg, issue))| (a, msg, issue)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_rates_draw_nothing() {
        let mut f = Faults::new(&FaultSpec::default(), 7);
        let before = f.rng.clone();
        for _ in 0..10 {
            assert_eq!(f.fate(), None);
            assert!(!f.crashes());
        }
        assert_eq!(f.rng, before, "no fault on, no draw");
    }

    #[test]
    fn rates_are_honoured_and_seeded() {
        let spec = FaultSpec { message_drop_rate: 0.2, message_duplicate_rate: 0.3, ..FaultSpec::default() };
        let fates = |seed| {
            let mut f = Faults::new(&spec, seed);
            (0..10_000).map(|_| f.fate()).collect::<Vec<_>>()
        };
        let a = fates(1);
        assert_eq!(a, fates(1), "same seed, same faults");
        assert_ne!(a, fates(2));
        let share = |k| a.iter().filter(|f| **f == Some(k)).count() as f64 / a.len() as f64;
        assert!((share(MessageFault::Dropped) - 0.2).abs() < 0.02);
        assert!((share(MessageFault::Duplicated) - 0.3).abs() < 0.02);
        assert_eq!(share(MessageFault::Delayed), 0.0);
    }
}
