//! The five actions and why each may be refused. Every action takes one step: MindAgent
//! executes one action per agent per step (`World.step`), `goto` moves the agent at once
//! whatever the distance (the paper's appendix H: `goto_agent0_storage0` at step 0,
//! `at(agent0, storage0)` at step 1), and cooking time is the tool's occupancy, not the
//! action's length (see [`crate::ToolSpec`]).

use gatecrew_protocol::ItemId;
use serde::{Deserialize, Serialize};

use super::{LocationId, World};
use crate::tool::ToolKind;

/// One agent's action for one step (MindAgent's action space, the paper's table 14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Do nothing.
    Noop,
    /// Move to a location.
    Goto(LocationId),
    /// Take an item: a named raw ingredient from the storage, or the content of a tool.
    Get {
        /// Where.
        at: LocationId,
        /// What, from the storage.
        item: Option<ItemId>,
    },
    /// Put what the agent holds into a location.
    Put(LocationId),
    /// Cook a tool's content.
    Activate(LocationId),
}

/// Why the world refused an action (MindAgent's feedback messages, typed). The agent's
/// state and the world are unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Refusal {
    /// No such location.
    UnknownLocation,
    /// "agentN is not located in X".
    NotThere,
    /// "agentN is occupied therefore cannot take any actions other than noop".
    AgentOccupied,
    /// "X is occupied, therefore ...": another agent's activation is cooking there.
    ToolOccupied,
    /// "agentN is holding objects, therefore cannot get objects".
    HandsFull,
    /// "agentN is not holding objects, therefore cannot put objects".
    EmptyHanded,
    /// The storage only hands out raw ingredients, named.
    NotStocked,
    /// "not allowed to pick up from X at this point": a cooking tool gives its content
    /// only after activation; the serving table never.
    NotPickable,
    /// "X is empty".
    Empty,
    /// "putting X into Y will result in waste" / "activating X will result in waste".
    Waste,
    /// "X reaches maximum capacity".
    Full,
    /// No pending order wants this item on the serving table (ours: MindAgent accepts
    /// any dish of the level there, which lets a crew stock the pass before orders come).
    NotOrdered,
    /// Storage and serving table do not cook.
    NotATool,
}

fn loc_of(locs: &[super::Location], l: LocationId) -> Result<&super::Location, Refusal> {
    locs.get(l.index()).ok_or(Refusal::UnknownLocation)
}

impl World {
    pub(super) fn apply(&mut self, agent: usize, action: Action) -> Result<(), Refusal> {
        if self.agents[agent].occupied > 0 && action != Action::Noop {
            return Err(Refusal::AgentOccupied);
        }
        match action {
            Action::Noop => Ok(()),
            Action::Goto(l) => {
                loc_of(&self.locations, l)?;
                self.agents[agent].at = l;
                Ok(())
            }
            Action::Get { at, item } => {
                let loc = loc_of(&self.locations, at)?;
                let a = &self.agents[agent];
                if a.at != at {
                    return Err(Refusal::NotThere);
                }
                if a.holding.is_some() {
                    return Err(Refusal::HandsFull);
                }
                if loc.occupied > 0 {
                    return Err(Refusal::ToolOccupied);
                }
                if loc.kind == ToolKind::Storage {
                    let item = item.filter(|&i| self.book.is_raw(i)).ok_or(Refusal::NotStocked)?;
                    self.agents[agent].holding = Some(item);
                    return Ok(());
                }
                if !loc.pickable() {
                    return Err(Refusal::NotPickable);
                }
                match loc.contents.as_slice() {
                    [] => Err(Refusal::Empty),
                    [one] => {
                        let one = *one;
                        let l = &mut self.locations[at.0 as usize];
                        l.contents.clear();
                        l.cooked = false;
                        self.agents[agent].holding = Some(one);
                        Ok(())
                    }
                    // MindAgent asserts this never happens: only cooked single items are taken.
                    _ => Err(Refusal::NotPickable),
                }
            }
            Action::Put(at) => {
                let loc = loc_of(&self.locations, at)?;
                let a = &self.agents[agent];
                if a.at != at {
                    return Err(Refusal::NotThere);
                }
                let held = a.holding.ok_or(Refusal::EmptyHanded)?;
                if loc.occupied > 0 {
                    return Err(Refusal::ToolOccupied);
                }
                match loc.kind {
                    ToolKind::Storage => {}
                    ToolKind::Servingtable => {
                        if self.orders.wanted_on_table(held, &loc.contents) == 0 {
                            return Err(Refusal::NotOrdered);
                        }
                    }
                    kind => {
                        if loc.kind.spec().capacity.is_some_and(|c| loc.contents.len() >= c as usize) {
                            return Err(Refusal::Full);
                        }
                        // A cooked product waiting to be taken cannot be topped up.
                        if loc.cooked || !self.book.fits(kind, &loc.contents, held) {
                            return Err(Refusal::Waste);
                        }
                    }
                }
                let l = &mut self.locations[at.0 as usize];
                if l.kind != ToolKind::Storage {
                    l.contents.push(held);
                }
                self.agents[agent].holding = None;
                Ok(())
            }
            Action::Activate(at) => {
                let loc = loc_of(&self.locations, at)?;
                let a = &self.agents[agent];
                if a.at != at {
                    return Err(Refusal::NotThere);
                }
                if a.holding.is_some() {
                    return Err(Refusal::HandsFull);
                }
                if !loc.kind.cooks() {
                    return Err(Refusal::NotATool);
                }
                if loc.occupied > 0 {
                    return Err(Refusal::ToolOccupied);
                }
                if loc.contents.is_empty() {
                    return Err(Refusal::Empty);
                }
                if loc.cooked {
                    return Err(Refusal::Waste);
                }
                let product = self.book.cooks(loc.kind, &loc.contents).ok_or(Refusal::Waste)?.product;
                let spec = loc.kind.spec();
                let l = &mut self.locations[at.0 as usize];
                l.contents = vec![product];
                l.cooked = true;
                l.occupied = spec.occupied;
                if spec.needs_watch {
                    self.agents[agent].occupied = spec.occupied;
                }
                Ok(())
            }
        }
    }
}
