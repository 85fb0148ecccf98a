//! The deterministic summary of one plan's run (paper 000, 3.4.2, with the model
//! replaced by rules): outcome, items gained from the verified inventory, the person's
//! feedback in order, and what the bot concluded; plus the facts worth keeping.

use std::collections::{BTreeMap, BTreeSet};

use gatecrew_protocol::{ItemId, Tick};
use gatecrew_world::{GameData, Inventory};

use super::{Fact, Provenance, Record};
use crate::knowledge::{Knowledge, Told};
use crate::plan::{Kind, Leaf, Plan, State};

/// What happened while one plan ran.
#[derive(Debug, Clone, Default)]
pub struct PlanLog {
    /// When it started.
    pub started: Tick,
    /// The inventory then.
    pub start_items: BTreeMap<ItemId, u32>,
    /// The person's interventions, in words.
    pub feedback: Vec<String>,
    /// What the person told about the world.
    pub told: Vec<Told>,
}

impl PlanLog {
    /// A log starting now.
    pub fn new(now: Tick, inv: &Inventory) -> Self {
        PlanLog { started: now, start_items: inv.iter().collect(), feedback: Vec::new(), told: Vec::new() }
    }
}

/// Where a run happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin<'a> {
    /// The world (episode name).
    pub world: &'a str,
    /// The run (episode and seed).
    pub run: &'a str,
    /// The tick the summary is made at.
    pub tick: Tick,
}

/// The record and facts of a plan that ended with `outcome`.
pub fn summarise(
    log: &PlanLog,
    plan: &Plan,
    outcome: &str,
    inv: &Inventory,
    know: &Knowledge,
    data: &GameData,
    at: &Origin<'_>,
) -> (Record, Vec<Fact>) {
    let goals: Vec<String> = plan.children(plan.root()).iter().map(|g| plan.label(*g).to_owned()).collect();
    let mut items: Vec<(String, i64)> = Vec::new();
    let now: BTreeMap<ItemId, u32> = inv.iter().collect();
    let keys: BTreeSet<ItemId> = log.start_items.keys().chain(now.keys()).copied().collect();
    for k in keys {
        let d = i64::from(now.get(&k).copied().unwrap_or(0)) - i64::from(log.start_items.get(&k).copied().unwrap_or(0));
        if d != 0 {
            items.push((data.item_name(k).to_owned(), d));
        }
    }
    items.sort();
    let fact = |kind: &str, item: ItemId, pos: Option<(i32, i32, i32)>, count: Option<u32>, p: Provenance| Fact {
        world: at.world.to_owned(),
        kind: kind.to_owned(),
        item: data.item_name(item).to_owned(),
        pos,
        count,
        provenance: p,
        run: at.run.to_owned(),
        tick: at.tick.0,
    };
    let mut facts = Vec::new();
    let mut lessons = Vec::new();
    for t in &log.told {
        facts.push(fact("store", t.item, Some((t.pos.x, t.pos.y, t.pos.z)), t.count, Provenance::Told));
    }
    for n in plan.ids() {
        let step = plan.step(n);
        match step.kind {
            // Storage the bot took from and looked into: seen.
            Kind::Leaf(Leaf::Fetch { item, from: Some(p) }) if step.state == State::Done => {
                let left = know.contents(p, item);
                facts.push(fact("store", item, Some((p.x, p.y, p.z)), left, Provenance::Seen));
            }
            // A goal's item no alternative could get: inferred.
            Kind::Obtain { item, .. } if step.state == State::Failed && plan.parents(n).contains(&plan.root()) => {
                lessons.push(format!("no way found to {}", step.label));
                facts.push(fact("no_source", item, None, None, Provenance::Inferred));
            }
            _ => {}
        }
    }
    let record = Record {
        id: 0,
        world: at.world.to_owned(),
        run: at.run.to_owned(),
        tick: at.tick.0,
        goal: goals.join("; "),
        outcome: outcome.to_owned(),
        items,
        feedback: log.feedback.clone(),
        lessons,
    };
    (record, facts)
}
