//! Class injections (DESIGN section 7) and the oracle check that each class means what
//! it says.
//!
//! Every injection starts from a clean site: each bot holds exactly its share of the
//! blueprint's materials and the world holds no natural resources, no tables and no
//! chests. One bot (the victim) then loses one of its items:
//!
//! * A: the items go into a chest beside its start, or are replaced by the ingredients
//!   of one 2x2 craft: a local fix within [`A_MAX_TICKS`] (version 1); in version 2 a
//!   raw source nearby (in view or out of it), or the craft. The check: a local route
//!   within the oracle budget, and no teammate has any to spare;
//! * B: the items go to a teammate; no local way exists within the oracle budget
//!   (none at all, or a raw source too far away);
//! * C: the items go to a teammate, and a raw source (trees, stone and a pickaxe) lies
//!   at a moderate distance: a local fix within the budget that costs more than
//!   [`C_MIN_TICKS`];
//! * D: the items are gone from the crew (every teammate will say `CANNOT_SUPPLY`), or
//!   they go to a teammate who stops answering (the window times out), and a raw source
//!   far away is left: a long local recovery exists beyond the oracle budget but within
//!   the fallback's reach ([`FALLBACK_REACH`] times the budget);
//! * D-impossible: the same failure of collaboration where the item allows no such
//!   source (nothing in the world makes it): the blueprint cannot be finished. Labelled
//!   apart so that its ECR and RSR, low by construction, do not pass for D's.

use std::collections::BTreeMap;

use gatecrew_crew::Setup;
use gatecrew_crew::agent::FALLBACK_REACH;
use gatecrew_protocol::trace::SuiteClass;
use gatecrew_protocol::{AgentId, ItemId};
use gatecrew_world::Part;

use crate::manifest::{Entry, Shortage};

/// Version 1's class-A injections (a chest beside the start, one craft) cost at most
/// this (oracle ticks).
pub const A_MAX_TICKS: u64 = 60;
/// A class-C fix costs more than this (oracle ticks).
pub const C_MIN_TICKS: u64 = 60;
/// The oracle budget used by the suite (the episodes' `oracle_ticks`).
pub const ORACLE_TICKS: u64 = 600;

/// Each agent's remaining material needs in a setup (its share of the blueprint).
pub fn needs(setup: &Setup) -> Vec<BTreeMap<ItemId, u32>> {
    let n = setup.world.agent_count();
    let owners = gatecrew_crew::plan::split_work(&setup.blueprint, n);
    let mut v = vec![BTreeMap::new(); n];
    for (i, c) in setup.blueprint.cells().iter().enumerate() {
        if c.part == Part::Upper {
            continue;
        }
        if let Some(item) = setup.data.block_info(c.block).item {
            *v[owners[i].index()].entry(item).or_insert(0) += 1;
        }
    }
    v
}

/// Checks that every shortage of an episode means what its class says, in the episode's
/// world, with the world's oracle (full knowledge, no teammates' inventories). `Ok` for
/// `standard`.
pub fn check_class(setup: &Setup, e: &Entry) -> Result<(), String> {
    if e.class == SuiteClass::Standard {
        return Ok(());
    }
    let shortages = e.shortages();
    if shortages.is_empty() {
        return Err(format!("{}: class {} without a shortage (victim and item)", e.id, e.class));
    }
    shortages.iter().try_for_each(|s| check_shortage(setup, &e.id, s))
}

/// Checks one shortage: the victim lacks the item, and where the items can come from
/// (a local route within the oracle budget, a teammate's surplus, a muted holder) is
/// what its class says.
pub fn check_shortage(setup: &Setup, id: &str, s: &Shortage) -> Result<(), String> {
    let item = setup.data.item(&s.item).map_err(|err| format!("{id}: {err}"))?;
    let v = AgentId(s.victim);
    let needs = needs(setup);
    let need = needs.get(v.index()).and_then(|m| m.get(&item)).copied().unwrap_or(0);
    let held = |a: AgentId| setup.world.body(a).map_or(0, |b| b.inventory.count(item));
    if need == 0 || held(v) >= need {
        return Err(format!("{id}: bot{} does not lack {}", s.victim, s.item));
    }
    let cost = setup.world.oracle(v, item, need, ORACLE_TICKS).map(|est| est.ticks);
    let long = setup.world.oracle(v, item, need, ORACLE_TICKS * FALLBACK_REACH).map(|est| est.ticks);
    let surplus = |a: AgentId| held(a).saturating_sub(needs[a.index()].get(&item).copied().unwrap_or(0));
    let deficit = need - held(v);
    let holder_has = s.holder.is_some_and(|h| surplus(AgentId(h)) >= deficit);
    let muted = s.holder.is_some_and(|h| setup.faults.mute.contains(&h));
    // A muted victim's requests never arrive: asking is no option for it.
    let victim_muted = setup.faults.mute.contains(&s.victim);
    let teammates_spare: u32 = (0..needs.len() as u32).map(AgentId).filter(|a| *a != v).map(surplus).sum();
    let ok = match s.class {
        // Asking can only draw CANNOT_SUPPLY: the fix is the bot's own.
        SuiteClass::A => cost.is_some() && teammates_spare == 0,
        SuiteClass::B => cost.is_none() && holder_has && !muted && !victim_muted,
        SuiteClass::C => cost.is_some_and(|c| c > C_MIN_TICKS) && holder_has && !muted && !victim_muted,
        SuiteClass::D => cost.is_none() && long.is_some() && (teammates_spare == 0 || (holder_has && muted)),
        SuiteClass::DImpossible => long.is_none() && (teammates_spare == 0 || (holder_has && muted)),
        SuiteClass::Standard => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{id}: bot{}'s {} {}: class {} does not hold: oracle cost {cost:?} (long {long:?}), holder spare {:?}, teammates spare {teammates_spare}, muted {muted}",
            s.victim,
            s.deficit,
            s.item,
            s.class,
            s.holder.map(|h| surplus(AgentId(h)))
        ))
    }
}
