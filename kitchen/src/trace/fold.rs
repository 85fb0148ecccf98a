//! Folding a kitchen trace into episodes: what analysis needs of each (the counts behind
//! CoS, the messages, the model's calls and tokens), with the checks that make a trace
//! trustworthy. The figures come from `kitchen_end`, and every one of them is checked
//! against the events before it (orders arrived, completed and failed; messages; model
//! calls and tokens; refused actions), so an edited or spliced trace is refused with
//! the line of the disagreement instead of giving a figure the events do not support.

use std::collections::BTreeSet;

use super::episode::KitchenEpisode;
use super::event::{EpisodeId, Event, Record, Speaker, Start};
use crate::world::OrderId;

/// A well-formed event that does not fit the episode around it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Invalid {
    /// An episode must open with `kitchen_start`.
    #[error("`{0}` before the episode's kitchen_start")]
    NotStarted(&'static str),
    /// A line of another episode inside this one.
    #[error("a line of episode {found} inside episode {current}")]
    OtherEpisode {
        /// The episode being read.
        current: EpisodeId,
        /// The line's.
        found: EpisodeId,
    },
    /// Steps go forward.
    #[error("step {found} after step {last}")]
    StepBackwards {
        /// The last step read.
        last: u32,
        /// This line's.
        found: u32,
    },
    /// A step past the episode's length.
    #[error("step {found} beyond the episode's {steps} steps")]
    StepBeyond {
        /// This line's.
        found: u32,
        /// The episode's steps.
        steps: u32,
    },
    /// An agent the crew does not have.
    #[error("agent {agent} in a crew of {agents}")]
    NoSuchAgent {
        /// The agent named.
        agent: u32,
        /// The crew size.
        agents: u32,
    },
    /// An order that arrived twice, or was resolved without arriving or twice.
    #[error("order {order} {what}")]
    Order {
        /// The order.
        order: u32,
        /// What is wrong with it.
        what: &'static str,
    },
    /// A second `kitchen_start` inside an episode.
    #[error("a second kitchen_start inside the episode")]
    StartTwice,
    /// A line after the episode's end.
    #[error("`{0}` after the episode's kitchen_end")]
    AfterEnd(&'static str),
    /// The end's count is not the events'.
    #[error("kitchen_end says {field} {said}, the lines before it give {counted}")]
    Mismatch {
        /// The field.
        field: &'static str,
        /// What the end says.
        said: u64,
        /// What the events give.
        counted: u64,
    },
}

/// One episode being read.
#[derive(Debug, Clone)]
pub struct EpisodeFold {
    ep: EpisodeId,
    start: Start,
    last: u32,
    open: BTreeSet<OrderId>,
    seen: BTreeSet<OrderId>,
    completed: u64,
    failed: u64,
    actions: u64,
    refused: u64,
    messages: u64,
    calls: u64,
    prompt: u64,
    completion: u64,
    mistakes: u64,
    invalid: u64,
    fallbacks: u64,
    ended: bool,
}

/// What a line did to the file being read.
#[derive(Debug, Clone, PartialEq)]
pub enum Folded {
    /// Nothing to report yet.
    Going,
    /// The episode's `kitchen_end`: it is complete.
    Done(Box<KitchenEpisode>),
    /// A new `kitchen_start` while the episode before had no end: that one was cut short.
    CutShort(EpisodeId),
}

impl EpisodeFold {
    /// An episode opened by `rec`, which must be its `kitchen_start`.
    pub fn open(rec: &Record) -> Result<Self, Invalid> {
        let Event::KitchenStart(start) = &rec.event else { return Err(Invalid::NotStarted(rec.event.kind())) };
        Ok(EpisodeFold {
            ep: rec.ep.clone(),
            start: start.clone(),
            last: rec.step,
            open: BTreeSet::new(),
            seen: BTreeSet::new(),
            completed: 0,
            failed: 0,
            actions: 0,
            refused: 0,
            messages: 0,
            calls: 0,
            prompt: 0,
            completion: 0,
            mistakes: 0,
            invalid: 0,
            fallbacks: 0,
            ended: false,
        })
    }

    /// The episode's id.
    pub fn id(&self) -> &EpisodeId {
        &self.ep
    }

    /// Whether its `kitchen_end` was read.
    pub fn ended(&self) -> bool {
        self.ended
    }

    fn agent(&self, agent: u32) -> Result<(), Invalid> {
        if agent >= self.start.agents {
            return Err(Invalid::NoSuchAgent { agent, agents: self.start.agents });
        }
        Ok(())
    }

    fn speaker(&self, s: Speaker) -> Result<(), Invalid> {
        match s {
            Speaker::Dispatcher => Ok(()),
            Speaker::Agent(a) => self.agent(a),
        }
    }

    fn resolve(&mut self, order: OrderId, what: &'static str) -> Result<(), Invalid> {
        if !self.open.remove(&order) {
            return Err(Invalid::Order { order: order.0, what });
        }
        Ok(())
    }

    /// Reads one more line of this episode; `Some` at its end.
    pub fn push(&mut self, rec: &Record) -> Result<Option<KitchenEpisode>, Invalid> {
        if rec.ep != self.ep {
            return Err(Invalid::OtherEpisode { current: self.ep.clone(), found: rec.ep.clone() });
        }
        if self.ended {
            return Err(Invalid::AfterEnd(rec.event.kind()));
        }
        if rec.step < self.last {
            return Err(Invalid::StepBackwards { last: self.last, found: rec.step });
        }
        if rec.step > self.start.steps {
            return Err(Invalid::StepBeyond { found: rec.step, steps: self.start.steps });
        }
        self.last = rec.step;
        match &rec.event {
            Event::KitchenStart(_) => return Err(Invalid::StartTwice),
            Event::OrderArrived { order, .. } => {
                if !self.seen.insert(*order) {
                    return Err(Invalid::Order { order: order.0, what: "arrived twice" });
                }
                self.open.insert(*order);
            }
            Event::OrderCompleted { order, .. } => {
                self.resolve(*order, "completed but not pending")?;
                self.completed += 1;
            }
            Event::OrderFailed { order, .. } => {
                self.resolve(*order, "failed but not pending")?;
                self.failed += 1;
            }
            Event::Action(a) => {
                self.agent(a.agent)?;
                self.actions += 1;
                self.refused += u64::from(!a.applied);
            }
            Event::Message(m) => {
                self.speaker(m.from)?;
                if let Some(to) = m.to {
                    self.agent(to)?;
                }
                self.messages += 1;
            }
            Event::LlmCall(c) => {
                self.speaker(c.caller)?;
                self.calls += 1;
                self.prompt += u64::from(c.prompt_tokens);
                self.completion += u64::from(c.completion_tokens);
                self.mistakes += u64::from(c.mistake);
                self.invalid += c.invalid.len() as u64;
                self.fallbacks += u64::from(c.fallback.is_some());
            }
            Event::KitchenEnd(end) => {
                let expected_actions = u64::from(self.start.agents) * u64::from(self.start.steps);
                let checks: [(&'static str, u64, u64); 13] = [
                    ("step", u64::from(rec.step), u64::from(self.start.steps)),
                    ("completed", u64::from(end.completed), self.completed),
                    ("failed", u64::from(end.failed), self.failed),
                    ("pending", u64::from(end.pending), self.open.len() as u64),
                    ("refused", u64::from(end.refused), self.refused),
                    ("counters.messages", end.counters.messages, self.messages),
                    ("model.calls", end.model.calls, self.calls),
                    ("model.prompt_tokens", end.model.prompt_tokens, self.prompt),
                    ("model.completion_tokens", end.model.completion_tokens, self.completion),
                    ("model.mistakes", end.model.mistakes, self.mistakes),
                    ("model.invalid_commands", end.model.invalid_commands, self.invalid),
                    ("model.fallbacks", end.model.fallbacks, self.fallbacks),
                    ("actions (agents x steps)", expected_actions, self.actions),
                ];
                if let Some(&(field, said, counted)) = checks.iter().find(|(_, s, c)| s != c) {
                    return Err(Invalid::Mismatch { field, said, counted });
                }
                self.ended = true;
                let s = &self.start;
                return Ok(Some(KitchenEpisode {
                    ep: self.ep.clone(),
                    level: s.level.clone(),
                    policy: s.policy,
                    agents: s.agents,
                    factor: s.factor,
                    timing: s.timing,
                    executor: s.executor.kind,
                    seed: s.seed,
                    steps: s.steps,
                    completed: end.completed,
                    failed: end.failed,
                    pending: end.pending,
                    messages: end.counters.messages,
                    llm_calls: end.model.calls,
                    prompt_tokens: end.model.prompt_tokens,
                    completion_tokens: end.model.completion_tokens,
                }));
            }
        }
        Ok(None)
    }
}

/// Every episode of one file, one line at a time: a file may hold several episodes one
/// after another, each opened by its `kitchen_start`.
#[derive(Debug, Default)]
pub struct FileFold {
    current: Option<EpisodeFold>,
}

impl FileFold {
    /// A fold of an empty file.
    pub fn new() -> Self {
        FileFold::default()
    }

    /// Reads one line.
    pub fn push(&mut self, rec: &Record) -> Result<Folded, Invalid> {
        let starts = matches!(rec.event, Event::KitchenStart(_));
        match &mut self.current {
            Some(f) if !starts => Ok(f.push(rec)?.map_or(Folded::Going, |e| Folded::Done(Box::new(e)))),
            Some(f) if f.ended() => {
                self.current = Some(EpisodeFold::open(rec)?);
                Ok(Folded::Going)
            }
            Some(f) => {
                let cut = f.id().clone();
                self.current = Some(EpisodeFold::open(rec)?);
                Ok(Folded::CutShort(cut))
            }
            None => {
                self.current = Some(EpisodeFold::open(rec)?);
                Ok(Folded::Going)
            }
        }
    }

    /// The end of the file: the last episode's id when it had no `kitchen_end`.
    pub fn finish(self) -> Option<EpisodeId> {
        self.current.filter(|f| !f.ended()).map(|f| f.ep)
    }
}
