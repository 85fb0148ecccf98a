//! What the viewer knows before the first event: the blueprint's cells and the bots'
//! starting positions and inventories. A live run builds it from its setup; a replay
//! from the same config, or, without one, from the trace alone (then the ghost holds
//! only the cells the trace names).

use std::collections::BTreeMap;

use gatecrew_protocol::Pos;
use serde::Serialize;

use crate::inventory::InventorySource;

/// A blueprint cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SceneCell {
    /// Where.
    pub pos: Pos,
    /// The block that belongs there.
    pub block: String,
    /// What stands there at tick 0: `None` empty, `Some(true)` the right block, `Some(false)` another.
    pub initially: Option<bool>,
    /// The bottom of a two-cell block (a door): placing it fills the cell above too.
    pub fills_above: bool,
}

/// A bot at tick 0.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SceneBot {
    /// Feet position.
    pub pos: Pos,
    /// Item name to count.
    pub inventory: BTreeMap<String, u32>,
}

/// The static part of the view.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Scene {
    /// Blueprint name.
    pub blueprint: String,
    /// Its cells (empty when unknown: the trace alone does not list them).
    pub cells: Vec<SceneCell>,
    /// The bots at tick 0 (empty when unknown).
    pub bots: Vec<SceneBot>,
    /// Ticks after a CANNOT_SUPPLY before the gate lets the bot ask for the same item again.
    pub cooldown_ticks: u64,
    /// Whether the cells and bots come from the run's own setup.
    pub from_setup: bool,
    /// Where the cards' inventories will come from: `World` when exact snapshots are
    /// handed over beside the events (a live run, a re-simulated replay).
    pub inventory: InventorySource,
    /// What the page must say about the data's limits (e.g. why a replay's
    /// inventories are not exact).
    pub notes: Vec<String>,
}
