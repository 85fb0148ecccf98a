//! Version 1: one shortage per episode, checked with the oracle; a quiet world (no
//! faults) and a 24,000-tick limit.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use gatecrew_protocol::Pos;
use gatecrew_protocol::trace::{Split, SuiteClass};
use gatecrew_world::GameData;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::variant::{Variant, apply, variants};
use super::{CLASSES, GenerateError, Site, Version, base_layout, write_episode};
use crate::inject::check_class;
use crate::manifest::Entry;

/// Version 1's tick limit: far beyond any episode's length, so that only a stall ends
/// an episode early.
pub(super) const TICK_LIMIT: u64 = 24_000;

/// Seeds 0-2 of a template have two bots, 3-4 three (120 and 80 of the 200 episodes).
pub(super) fn crew_of(s: u64) -> usize {
    if s < 3 { 2 } else { 3 }
}

/// An episode's world seed; version 2 keeps version 1's, so the two line up.
pub(super) fn seed_of(t: usize, s: u64) -> u64 {
    1000 * (t as u64 + 1) + s
}

/// Templates go to the calibration and test splits four at a time, alternating.
pub(super) fn split_of(t: usize) -> Split {
    if (t / 4) % 2 == 0 { Split::Calibration } else { Split::Test }
}

pub(super) fn class_episode(
    site: &Site<'_>,
    s: u64,
    dir: &Path,
    data_rel: &str,
    data: &Arc<GameData>,
) -> Result<Entry, GenerateError> {
    let t = site.index;
    let class = CLASSES[(t + s as usize) % 4];
    let agents = crew_of(s);
    let split = split_of(t);
    let seed = seed_of(t, s);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let base = base_layout(site, agents, data);
    let id = format!("{t:02}-{}-{class}-s{s}", site.template.name);
    // Candidates: (victim, item) pairs, in a seeded order.
    let mut candidates: Vec<(usize, String)> =
        base.inventories.iter().enumerate().flat_map(|(a, inv)| inv.keys().map(move |k| (a, k.clone()))).collect();
    candidates.shuffle(&mut rng);
    for (victim, item) in candidates {
        let need = base.inventories[victim][&item];
        let others: Vec<usize> = (0..agents).filter(|a| *a != victim).collect();
        let holder = others[(seed as usize + victim) % others.len()];
        // Class C needs a local fix within the budget: large shares lose only part.
        let mut deficits = vec![need];
        if class == SuiteClass::C {
            deficits.extend([12, 6, 3].into_iter().filter(|d| *d < need));
        }
        for (variant, deficit) in variants(class, s).into_iter().flat_map(|v| deficits.iter().map(move |d| (v, *d))) {
            let mut layout = base.clone();
            let Some(how) = apply(variant, &mut layout, victim, holder, &item, need, deficit, data) else { continue };
            let entry = Entry {
                id: id.clone(),
                file: format!("episodes/{id}.toml"),
                template: site.template.name.clone(),
                family: site.template.family.to_owned(),
                class,
                seed: s,
                agents,
                split,
                victim: Some(victim as u32),
                item: Some(item.clone()),
                deficit: Some(deficit),
                holder: matches!(
                    variant,
                    Variant::Teammate | Variant::TeammateAndSource(_) | Variant::MuteAndSource(_) | Variant::Mute
                )
                .then_some(holder as u32),
                how: Some(how),
                shortage: Vec::new(),
            };
            let text = layout.to_toml(&entry, seed, &site.rel_blueprint, data_rel);
            let setup = write_episode(dir, &entry, &text, data)?;
            if check_class(&setup, &entry).is_ok() {
                return Ok(entry);
            }
            // A D injection with no local route at any length is kept, labelled
            // D-impossible (the same episode, reported apart).
            if class == SuiteClass::D {
                let entry = Entry { class: SuiteClass::DImpossible, ..entry };
                if check_class(&setup, &entry).is_ok() {
                    let text = layout.to_toml(&entry, seed, &site.rel_blueprint, data_rel);
                    write_episode(dir, &entry, &text, data)?;
                    return Ok(entry);
                }
            }
        }
    }
    Err(GenerateError::NoInjection { template: site.template.name.clone(), class })
}

pub(super) fn standard_episode(
    site: &Site<'_>,
    dir: &Path,
    data_rel: &str,
    data: &Arc<GameData>,
    version: Version,
) -> Result<Entry, GenerateError> {
    let t = site.index;
    let agents = if t % 2 == 0 { 2 } else { 3 };
    let mut l = base_layout(site, agents, data);
    if version == Version::V2 {
        super::v2::background(&mut l, site);
    }
    for inv in &mut l.inventories {
        for n in inv.values_mut() {
            *n += n.div_ceil(2);
        }
    }
    let (lo, hi) = (l.bounds.0, l.bounds.1);
    let (cx, cz) = ((lo.x + hi.x) / 2, (lo.z + hi.z) / 2);
    l.trees = vec![
        (Pos::new(lo.x + 20, 0, cz), "oak_log"),
        (Pos::new(hi.x - 20, 0, cz + 2), "oak_log"),
        (Pos::new(cx, 0, hi.z - 20), "oak_log"),
    ];
    l.fills = vec![(Pos::new(cx - 2, 0, lo.z + 18), Pos::new(cx + 1, 1, lo.z + 19), "stone")];
    l.chests =
        vec![(Pos::new(lo.x + 24, 0, lo.z + 24), BTreeMap::from([("oak_log".to_owned(), 16), ("coal".to_owned(), 8)]))];
    l.tables = vec![Pos::new(lo.x + 24, 0, lo.z + 26)];
    l.furnaces = vec![Pos::new(lo.x + 26, 0, lo.z + 24)];
    let id = format!("{t:02}-{}-std", site.template.name);
    let entry = Entry {
        id: id.clone(),
        file: format!("episodes/{id}.toml"),
        template: site.template.name.clone(),
        family: site.template.family.to_owned(),
        class: SuiteClass::Standard,
        seed: 0,
        agents,
        split: Split::Standard,
        victim: None,
        item: None,
        deficit: None,
        holder: None,
        shortage: Vec::new(),
        how: Some("abundant: every bot holds its share and half again; trees, stone, a stocked chest, a table and a furnace nearby".into()),
    };
    let text = l.to_toml(&entry, seed_of(t, 99), &site.rel_blueprint, data_rel);
    write_episode(dir, &entry, &text, data)?;
    Ok(entry)
}
