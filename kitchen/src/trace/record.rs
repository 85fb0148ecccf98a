//! The episode's log: turns what a kitchen step sees (the policy's lines, the
//! executor's calls, the world's step reports) into trace events, in the order they
//! happen, for the driver to drain and write ([`crate::cos::EpisodeCore`] is a
//! scenario of the episode protocol; writing is its driver's).
//!
//! Logging never changes the episode: the log only reads the world, the actions and
//! the reports. A log that is off keeps nothing and builds nothing, so an untraced run
//! pays nothing for it and runs the very same steps.

use gatecrew_protocol::{BoardMessage, Recipient};

use super::KITCHEN_TRACE_VERSION;
use super::event::{
    ActionLine, ActionName, CallLine, ChatKind, Command, End, EpisodeId, Event, ExecutorLine, ItemName, LocationName,
    MenuLine, MessageBody, MessageLine, Record, Speaker, Start,
};
use crate::cos::{EpisodeOutcome, TimingMode};
use crate::executor::render;
use crate::executor::{CONTEXT_LINES, CallRecord, Executor};
use crate::policy::{ChatLine, Line, LineText, PolicyKind};
use crate::world::{Action, LocationId, Order, StepReport, World};

/// What a trace's `kitchen_start` says beyond what the world knows.
#[derive(Debug, Clone, Copy)]
pub struct StartInfo<'a> {
    /// The policy.
    pub policy: PolicyKind,
    /// The interval factor.
    pub factor: f64,
    /// Where the timing comes from.
    pub timing: TimingMode,
    /// Steps the episode runs.
    pub steps: u32,
    /// The world's seed.
    pub seed: u64,
    /// Who decides.
    pub executor: &'a Executor,
    /// The real model a dispatcher asks, if one does ([`crate::dispatch`]).
    pub live_model: Option<&'a str>,
}

/// The episode id the trace of these settings gets (see [`EpisodeId`]).
pub fn episode_id(level: &str, agents: usize, info: &StartInfo<'_>) -> EpisodeId {
    let timing = match info.timing {
        TimingMode::File => "file",
        TimingMode::Oracle => "oracle",
    };
    let exec = match (info.live_model, info.executor) {
        (Some(_), _) => "live",
        (None, Executor::Scripted) => "scripted",
        (None, Executor::Llm(_)) => "llm",
    };
    EpisodeId(format!("{level}-{}-a{agents}-x{}-{timing}-{exec}-s{}", info.policy, info.factor, info.seed))
}

/// One episode's trace events, kept until drained.
#[derive(Debug, Clone, Default)]
pub struct Log {
    /// `None`: the log is off.
    ep: Option<EpisodeId>,
    events: Vec<Record>,
    /// Model calls already logged.
    calls: usize,
}

fn item(w: &World, i: gatecrew_protocol::ItemId) -> ItemName {
    ItemName(w.book().name(i).to_owned())
}

fn location(w: &World, l: LocationId) -> LocationName {
    LocationName(w.locations().get(l.index()).map_or("nowhere", |x| x.name.as_str()).to_owned())
}

fn agent(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

impl Log {
    /// The log of episode `ep`.
    pub fn new(ep: EpisodeId) -> Self {
        Log { ep: Some(ep), events: Vec::new(), calls: 0 }
    }

    /// A log that keeps nothing.
    pub fn off() -> Self {
        Log::default()
    }

    /// Whether it keeps events.
    pub fn on(&self) -> bool {
        self.ep.is_some()
    }

    /// The events kept since the last drain, in order.
    pub fn drain(&mut self) -> Vec<Record> {
        std::mem::take(&mut self.events)
    }

    fn write(&mut self, step: u32, event: Event) {
        if let Some(ep) = &self.ep {
            self.events.push(Record { v: KITCHEN_TRACE_VERSION, ep: ep.clone(), step, event });
        }
    }

    /// `kitchen_start` and the order drawn at reset.
    pub fn start(&mut self, w: &World, info: &StartInfo<'_>) {
        if !self.on() {
            return;
        }
        let level = w.level();
        let menu = level
            .menu
            .iter()
            .enumerate()
            .map(|(k, m)| MenuLine {
                dish: item(w, m.dish),
                lifetime: w.timing().lifetimes.get(k).copied().unwrap_or(m.lifetime),
            })
            .collect();
        let executor = match info.executor {
            Executor::Scripted => ExecutorLine {
                kind: crate::ExecutorKind::Scripted,
                model: None,
                error_scale: None,
                p0: None,
                p1: None,
                context_lines: None,
            },
            Executor::Llm(m) => ExecutorLine {
                kind: crate::ExecutorKind::Llm,
                model: Some(m.profile().model.clone()),
                error_scale: Some(m.error_scale()),
                p0: m.profile().errors.as_ref().map(|e| e.p0),
                p1: m.profile().errors.as_ref().map(|e| e.p1),
                context_lines: Some(agent(CONTEXT_LINES)),
            },
        };
        let start = Start {
            level: level.name.clone(),
            policy: info.policy,
            agents: agent(w.agents().len()),
            factor: info.factor,
            timing: info.timing,
            interval: w.timing().interval,
            menu,
            kitchen: (0..w.locations().len()).map(|l| location(w, LocationId(l as u16))).collect(),
            steps: info.steps,
            seed: info.seed,
            executor,
            live_model: info.live_model.map(str::to_owned),
        };
        self.write(w.time(), Event::KitchenStart(start));
        let first: Vec<Order> = w.pending().into_iter().cloned().collect();
        for o in &first {
            self.arrived(w, o);
        }
    }

    fn arrived(&mut self, w: &World, o: &Order) {
        let lifetime = o.remaining;
        self.write(o.arrived, Event::OrderArrived { order: o.id, dish: item(w, o.dish), lifetime });
    }

    /// The public lines a policy wrote while deciding a step; for a central policy
    /// (the dispatcher) its commands, which are its messages.
    pub fn decided(&mut self, w: &World, central: bool, intended: &[Action], lines: &[Line]) {
        if !self.on() {
            return;
        }
        let step = w.time();
        for l in lines {
            let body = match &l.text {
                LineText::Board(msg, dest) => MessageBody::Board {
                    msg: msg.kind(),
                    item: item(w, msg.item()),
                    count: msg.count().map(|c| c.get()),
                    window: msg.window().map(|x| x.0),
                    into: match msg {
                        BoardMessage::RequestMaterial { .. } => dest.map(|d| location(w, d)),
                        _ => None,
                    },
                },
                LineText::Chat(c) => chat(w, *c),
            };
            let to = match &l.text {
                LineText::Board(msg, _) => match msg.to() {
                    Recipient::Agent(a) => Some(a.0),
                    _ => None,
                },
                LineText::Chat(_) => l.to.map(agent),
            };
            let text = render::line(w, l);
            self.write(step, Event::Message(MessageLine { from: Speaker::Agent(agent(l.from)), to, body, text }));
        }
        if central {
            for (k, &a) in intended.iter().enumerate() {
                let command = Command(render::command(w, k, a));
                let text = command.0.clone();
                let body = MessageBody::Dispatch { command };
                self.write(
                    step,
                    Event::Message(MessageLine { from: Speaker::Dispatcher, to: Some(agent(k)), body, text }),
                );
            }
        }
    }

    /// The model calls made since the last call of this (the executor keeps them all).
    pub fn calls(&mut self, agents: usize, calls: &[CallRecord]) {
        if !self.on() {
            return;
        }
        let new: Vec<CallRecord> = calls.get(self.calls..).unwrap_or_default().to_vec();
        self.calls = calls.len();
        for c in new {
            let caller = if c.who >= agents { Speaker::Dispatcher } else { Speaker::Agent(agent(c.who)) };
            let line = CallLine {
                caller,
                prompt_tokens: c.prompt,
                completion_tokens: c.completion,
                latency_s: c.seconds,
                mistake: c.mistake,
                hit: c.hit.map(agent),
                invalid: Vec::new(),
                fallback: None,
            };
            self.write(c.step, Event::LlmCall(line));
        }
    }

    /// A real model's calls (the dispatcher over a real model).
    pub fn live_calls(&mut self, calls: &[crate::dispatch::LiveCall]) {
        for c in calls {
            let line = CallLine {
                caller: Speaker::Dispatcher,
                prompt_tokens: c.prompt_tokens,
                completion_tokens: c.completion_tokens,
                latency_s: c.latency_s,
                mistake: false,
                hit: None,
                invalid: c.invalid.clone(),
                fallback: c.fallback.clone(),
            };
            self.write(c.step, Event::LlmCall(line));
        }
    }

    /// A step's actions (as the world got them, beside what the policy meant), the
    /// orders it completed and failed, and the order that arrived at its end.
    pub fn stepped(&mut self, w: &World, intended: &[Action], report: &StepReport) {
        if !self.on() {
            return;
        }
        let step = report.step;
        for (k, (a, r)) in report.outcomes.iter().enumerate() {
            let command = Command(render::command(w, k, *a));
            let meant = intended.get(k).copied().unwrap_or(Action::Noop);
            let line = ActionLine {
                agent: agent(k),
                action: name(*a),
                command,
                applied: r.is_ok(),
                refusal: r.err(),
                intended: (meant != *a).then(|| Command(render::command(w, k, meant))),
            };
            self.write(step, Event::Action(line));
        }
        for o in &report.completed {
            self.write(step, Event::OrderCompleted { order: o.id, dish: item(w, o.dish) });
        }
        for o in &report.failed {
            self.write(step, Event::OrderFailed { order: o.id, dish: item(w, o.dish) });
        }
        if let Some(id) = report.arrived {
            let o = w.pending().into_iter().find(|o| o.id == id).cloned();
            if let Some(o) = o {
                self.arrived(w, &o);
            }
        }
    }

    /// `kitchen_end`, from the outcome the loop returns.
    pub fn end(&mut self, o: &EpisodeOutcome) {
        let end = End {
            completed: o.completed,
            failed: o.failed,
            pending: o.pending,
            skipped: o.skipped,
            refused: o.refused,
            counters: o.counters,
            model: o.model,
        };
        self.write(o.steps, Event::KitchenEnd(end));
    }
}

fn name(a: Action) -> ActionName {
    match a {
        Action::Noop => ActionName::Noop,
        Action::Goto(_) => ActionName::Goto,
        Action::Get { .. } => ActionName::Get,
        Action::Put(_) => ActionName::Put,
        Action::Activate(_) => ActionName::Activate,
    }
}

fn chat(w: &World, c: ChatLine) -> MessageBody {
    let (line, it, into) = match c {
        ChatLine::Goal(d) => (ChatKind::Goal, d, None),
        ChatLine::Need { item, to } => (ChatKind::Need, item, Some(location(w, to))),
        ChatLine::Offer { item, .. } => (ChatKind::Offer, item, None),
        ChatLine::Refuse { item, .. } => (ChatKind::Refuse, item, None),
        ChatLine::Thanks { item, .. } => (ChatKind::Thanks, item, None),
        ChatLine::Stuck(i) => (ChatKind::Stuck, i, None),
    };
    MessageBody::Chat { line, item: item(w, it), into }
}
