//! The viewer's ends in a crew's run: the [`Scene`] of a setup, the probe that hands
//! the world's exact inventories over, placed among the trace's events
//! ([`ViewProbe`]), and the re-simulation that recovers a recorded run's inventories
//! ([`resimulate`]).

use std::sync::{Arc, Mutex, PoisonError};

use gatecrew_crew::{Policy, Resolver, Setup, WorldProbe};
use gatecrew_protocol::trace::{Event, TraceWriter};
use gatecrew_protocol::{AgentId, ItemId, Tick};
use gatecrew_world::{BlockId, GameData, Part, World};

use crate::hub::Feed;
use crate::inventory::{Inventories, InventorySource, Timeline, named, named_items};
use crate::scene::{Scene, SceneBot, SceneCell};

/// The viewer's scene from a run's setup: the blueprint's cells (and what stands on
/// them at tick 0), the bots' starts and inventories, the gate's cooldown. Inventories
/// are marked as coming from the world: the caller hands them over with an
/// [`ViewProbe`] (or says otherwise).
pub fn scene(setup: &Setup) -> Scene {
    let data = &setup.data;
    let world = &setup.world;
    let cells = setup
        .blueprint
        .cells()
        .iter()
        .map(|c| SceneCell {
            pos: c.pos,
            block: data.block_name(c.block).to_owned(),
            initially: (world.block_at(c.pos) != BlockId::AIR).then(|| world.has_cell(c)),
            fills_above: c.part == Part::Lower,
        })
        .collect();
    let bots = (0..world.agent_count())
        .filter_map(|i| world.body(AgentId(i as u32)))
        .map(|b| SceneBot { pos: b.pos, inventory: named(data, &b.inventory) })
        .collect();
    // The cooldown is the gate's rule; no_gate and flatcomm ask again at once.
    let gated = !matches!(setup.policy, Policy::Flatcomm | Policy::NoGate);
    Scene {
        blueprint: setup.blueprint.name.clone(),
        cells,
        bots,
        cooldown_ticks: if gated { setup.gate.spec().cooldown_ticks } else { 0 },
        from_setup: true,
        inventory: InventorySource::World,
        notes: Vec::new(),
    }
}

/// Where the probe's steps go.
#[derive(Debug)]
enum Sink {
    /// A live hub: the inventories that changed, placed by the events drained before.
    Feed(Feed),
    /// A re-simulation keeping the inventories (its events go to its own trace).
    Keep(Mutex<Timeline>),
}

/// What the probe remembers between steps: kept flat and reused, so that the crew's
/// thread allocates nothing for the viewer once the buffers have grown.
#[derive(Debug, Default)]
struct Seen {
    /// Each bot's inventory at the last step, as item counts.
    last: Vec<Vec<(ItemId, u32)>>,
    /// The bots whose inventory changed in this step.
    changed: Vec<u32>,
    /// Events drained so far: the trace lines written before the world seen now.
    drained: u64,
}

impl Seen {
    /// Notes the bots whose inventory changed since the last call (all of them the
    /// first time) in `changed`, and updates `last`.
    fn compare(&mut self, world: &World) {
        let n = world.agent_count();
        let first = self.last.len() != n;
        if first {
            self.last.clear();
            self.last.resize(n, Vec::new());
        }
        self.changed.clear();
        for (i, was) in self.last.iter_mut().enumerate() {
            let Some(body) = world.body(AgentId(i as u32)) else { continue };
            if first || !body.inventory.iter().eq(was.iter().copied()) {
                was.clear();
                was.extend(body.inventory.iter());
                self.changed.push(i as u32);
            }
        }
    }
}

/// The viewer's [`WorldProbe`]. Feeding a live hub, it hands over the inventories that
/// changed, each marked with the number of events drained up to it: the hub, which gets
/// the events as the trace's lines ([`Feed::trace`]), puts the world's inventories
/// exactly where they stand among the events, whichever runtime drives the episode and
/// whichever thread writes the trace. On the crew's thread it only counts the events,
/// compares each bot's inventory with the last one and copies the item counts of those
/// that changed into the feed's buffer; item names are looked up by the hub.
#[derive(Debug)]
pub struct ViewProbe {
    data: Arc<GameData>,
    seen: Mutex<Seen>,
    sink: Sink,
}

impl ViewProbe {
    /// A probe feeding a live hub. The run's trace must be written through
    /// [`Feed::trace`] too: the hub gets the events from there.
    pub fn feeding(data: Arc<GameData>, feed: Feed) -> Arc<Self> {
        Arc::new(ViewProbe { data, seen: Mutex::default(), sink: Sink::Feed(feed) })
    }

    /// A probe keeping the inventories (for a replay's re-simulation).
    pub fn keeping(data: Arc<GameData>) -> Arc<Self> {
        Arc::new(ViewProbe { data, seen: Mutex::default(), sink: Sink::Keep(Mutex::default()) })
    }

    /// The inventories kept so far (empty for a feeding probe).
    pub fn timeline(&self) -> Timeline {
        match &self.sink {
            Sink::Keep(t) => t.lock().unwrap_or_else(PoisonError::into_inner).clone(),
            Sink::Feed(_) => Timeline::default(),
        }
    }
}

impl WorldProbe for ViewProbe {
    fn step(&self, tick: Tick, world: &World, events: &[Event]) {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        seen.drained += events.len() as u64;
        seen.compare(world);
        if seen.changed.is_empty() {
            return;
        }
        match &self.sink {
            Sink::Feed(f) => {
                let bots = seen.changed.iter().map(|&i| (i, seen.last[i as usize].as_slice()));
                f.world(seen.drained, tick.0, &self.data, bots);
            }
            Sink::Keep(t) => {
                let bots = seen.last.iter().map(|i| named_items(&self.data, i.iter().copied())).collect();
                let inv = Inventories { tick: tick.0, bots };
                t.lock().unwrap_or_else(PoisonError::into_inner).push(inv);
            }
        }
    }
}

/// Why a re-simulation gives no exact inventories.
#[derive(Debug, thiserror::Error)]
pub enum ResimError {
    /// The tier-3 resolver failed.
    #[error("the re-simulation stopped: {0}")]
    Stopped(String),
    /// The re-simulated trace is not the given one.
    #[error("re-simulating it does not reproduce the trace (it differs {})", match .line {
        Some(l) => format!("from its line {l} of the episode"),
        None => "in length".to_owned(),
    })]
    Differs {
        /// The first differing line (1-based), `None` when one is a prefix of the other.
        line: Option<usize>,
    },
}

/// Re-simulates `setup`'s episode (the world is deterministic) with a probe keeping
/// every bot's inventory, and returns them only if the re-simulated trace is `given`
/// (that episode's lines as written) byte for byte: then they are the run's own.
pub fn resimulate(setup: &Setup, given: &[u8], resolver: &mut dyn Resolver) -> Result<Timeline, ResimError> {
    let probe = ViewProbe::keeping(setup.data.clone());
    let mut setup = setup.clone();
    setup.probe = Some(probe.clone());
    let mut again = Vec::with_capacity(given.len());
    let mut writer = TraceWriter::new(&mut again);
    let mut sink = |e: &Event| {
        // Writing into a Vec cannot fail.
        let _ = writer.write(e);
    };
    gatecrew_crew::run_with(&setup, &mut sink, resolver).map_err(|e| ResimError::Stopped(e.to_string()))?;
    let _ = writer.flush();
    if again == given {
        return Ok(probe.timeline());
    }
    let mut lines = again.split(|&b| b == b'\n').zip(given.split(|&b| b == b'\n'));
    Err(ResimError::Differs { line: lines.position(|(a, b)| a != b).map(|i| i + 1) })
}
