//! A recorded episode, viewable at any tick: the state at tick `t` is the fold of every
//! event up to `t`, so a replay shows exactly what the run went through; with the
//! inventories of a re-simulation, the cards hold the world's counts at `t`.

use std::sync::Arc;

use gatecrew_protocol::trace::{Decision, Event, EventKind, WindowEvent};
use serde::Serialize;

use crate::inventory::{InventorySource, Timeline};
use crate::scene::Scene;
use crate::state::ViewState;

/// A tick worth a marker on the scrubber.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mark {
    /// Tick.
    pub t: u64,
    /// `issue`, `escalate`, a window's close (`confirmed`, `cannot_supply`,
    /// `timeout`), `failure` (a restart or a bot out), or `end`.
    pub kind: &'static str,
    /// The bot concerned, if one is.
    pub bot: Option<u32>,
}

impl Mark {
    fn of(ev: &Event) -> Option<Mark> {
        let (kind, bot) = match &ev.kind {
            EventKind::Issue { agent, .. } => ("issue", Some(agent.0)),
            EventKind::Gate { agent, decision: Decision::Escalate, .. } => ("escalate", Some(agent.0)),
            EventKind::Window { event: WindowEvent::Close, outcome, .. } => {
                (outcome.map_or("closed", gatecrew_protocol::CloseOutcome::as_str), None)
            }
            EventKind::Restart { agent, .. } | EventKind::AgentFailed { agent, .. } => ("failure", Some(agent.0)),
            EventKind::EpisodeEnd { .. } => ("end", None),
            _ => return None,
        };
        Some(Mark { t: ev.t, kind, bot })
    }
}

/// One episode's events and its scene.
#[derive(Debug)]
pub struct Recording {
    scene: Scene,
    events: Vec<Event>,
    ticks: Vec<u64>,
    inventories: Timeline,
}

impl Recording {
    /// A recording of the given events (one episode, in trace order); the cards'
    /// inventories follow the trace unless [`Self::with_inventories`] gives the world's.
    pub fn new(mut scene: Scene, events: Vec<Event>) -> Self {
        scene.inventory = InventorySource::Trace;
        let mut ticks: Vec<u64> = events.iter().map(|e| e.t).collect();
        ticks.sort_unstable();
        ticks.dedup();
        Recording { scene, events, ticks, inventories: Timeline::default() }
    }

    /// With the world's inventories (from a re-simulation that wrote this very trace):
    /// the cards show them instead of the trace's item movements.
    pub fn with_inventories(mut self, inventories: Timeline) -> Self {
        self.scene.inventory = InventorySource::World;
        self.inventories = inventories;
        self
    }

    /// The scene.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The first and last ticks with events.
    pub fn span(&self) -> (u64, u64) {
        (self.ticks.first().copied().unwrap_or(0), self.ticks.last().copied().unwrap_or(0))
    }

    /// Events held.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether no event is held.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The scrubber's markers, in trace order.
    pub fn marks(&self) -> Vec<Mark> {
        self.events.iter().filter_map(Mark::of).collect()
    }

    /// The next tick with events after `t` (or `t` at the end).
    pub fn next_tick(&self, t: u64) -> u64 {
        let i = self.ticks.partition_point(|&x| x <= t);
        self.ticks.get(i).copied().unwrap_or(t)
    }

    /// The last tick with events before `t` (or the first tick).
    pub fn prev_tick(&self, t: u64) -> u64 {
        let i = self.ticks.partition_point(|&x| x < t);
        if i == 0 { self.ticks.first().copied().unwrap_or(0) } else { self.ticks[i - 1] }
    }

    /// The state at `t`, from scratch.
    pub fn state_at(&self, t: u64) -> ViewState {
        let mut s = ViewState::new(&self.scene, "replay");
        for ev in self.events.iter().take_while(|e| e.t <= t) {
            s.observe(ev);
        }
        s.at(t);
        s.tick = t;
        self.settle(&mut s, t);
        s
    }

    /// The tick's inventories, then the derived parts.
    fn settle(&self, s: &mut ViewState, t: u64) {
        if let Some(inv) = self.inventories.at(t) {
            s.inventories(inv);
        }
        s.refresh();
    }
}

/// One viewer's position in a recording: moving forward folds only the new events.
#[derive(Debug)]
pub struct Cursor {
    rec: Arc<Recording>,
    state: ViewState,
    next: usize,
}

impl Cursor {
    /// At the start, before any event.
    pub fn new(rec: Arc<Recording>) -> Self {
        let state = ViewState::new(&rec.scene, "replay");
        Cursor { rec, state, next: 0 }
    }

    /// The recording.
    pub fn recording(&self) -> &Arc<Recording> {
        &self.rec
    }

    /// The state at `t`: every event with a tick up to `t` folded in.
    pub fn seek(&mut self, t: u64) -> &ViewState {
        if t < self.state.tick || (t == self.state.tick && self.next > 0 && self.rec.events[self.next - 1].t > t) {
            *self = Cursor::new(self.rec.clone());
        }
        while let Some(ev) = self.rec.events.get(self.next).filter(|e| e.t <= t) {
            self.state.observe(ev);
            self.next += 1;
        }
        self.state.at(t);
        self.state.tick = t;
        self.rec.settle(&mut self.state, t);
        &self.state
    }

    /// The state where the cursor is.
    pub fn state(&self) -> &ViewState {
        &self.state
    }
}
