//! Version 2 (DESIGN section 7): two or three shortages of different classes per
//! episode, class A from a raw source nearby or a short craft, a third of the A and C
//! sources out of the victim's view, background faults at fixed rates, and time limits
//! from MineCollab's ratio of time to blueprint size.
//!
//! Each episode keeps version 1's site, crew size, split and primary class (so the
//! suite stays balanced by class and crew size). Further shortages take the next
//! classes in the rotation A, B, C, D, each on an item no earlier shortage touched;
//! every shortage is checked with the oracle in the final world, so a later injection
//! that spoils an earlier class (a source that makes a B item local, a mute that
//! silences a C holder) is refused and the next candidate tried.

use std::path::Path;
use std::sync::Arc;

use gatecrew_protocol::trace::SuiteClass;
use gatecrew_world::GameData;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::variant::{Variant, apply};
use super::{CLASSES, GenerateError, Layout, Site, base_layout, write_episode};
use crate::inject::check_shortage;
use crate::manifest::{Entry, Shortage};

/// Background faults of every version 2 episode (docs/suite.md says why these rates).
pub(super) const FAULTS: &[(&str, &str)] = &[
    ("action_failure_rate", "0.02"),
    ("path_block_rate", "0.01"),
    ("message_drop_rate", "0.02"),
    ("message_delay_rate", "0.05"),
    ("message_delay_ticks", "20"),
    ("message_duplicate_rate", "0.01"),
];

/// MineCollab's construction time limit per block, in ticks: its pyramid task
/// (`../shared/external-tasks/minecollab/pyramid.json`: two agents, 168 blocks,
/// `timeout` 1,000 s) at Minecraft's 20 ticks a second, rounded up per block.
pub(super) const TICKS_PER_BLOCK: u64 = (1000 * 20_u64).div_ceil(168);

/// Seeds of version 2's choices, apart from version 1's (whose seeds the episodes keep).
const SALT: u64 = 0x5eed_0002;

/// Distances of a class-A source within the victim's view (16 blocks, `Rules.sight`),
/// and beyond it. A source's far edge lies up to two blocks further.
const A_IN_VIEW: [i32; 3] = [4, 8, 12];
const A_OUT_OF_VIEW: [i32; 3] = [20, 24, 28];
/// Class C, likewise: far enough to cost more than a short fix.
const C_IN_VIEW: [i32; 3] = [6, 10, 14];
const C_OUT_OF_VIEW: [i32; 3] = [18, 22, 26];

/// Faults and the time limit every version 2 episode has (the standard split's too).
pub(super) fn background(l: &mut Layout, site: &Site<'_>) {
    l.faults = FAULTS;
    l.tick_limit = site.blueprint.cells().len() as u64 * TICKS_PER_BLOCK;
}

/// One class episode of version 2.
pub(super) fn class_episode(
    site: &Site<'_>,
    s: u64,
    dir: &Path,
    data_rel: &str,
    data: &Arc<GameData>,
) -> Result<Entry, GenerateError> {
    let t = site.index;
    let turn = t + s as usize;
    let primary = CLASSES[turn % 4];
    let agents = super::v1::crew_of(s);
    let split = super::v1::split_of(t);
    let seed = super::v1::seed_of(t, s);
    let wanted = 2 + turn % 2;
    let id = format!("{t:02}-{}-{primary}-s{s}", site.template.name);
    let mut ep = Episode {
        site,
        dir,
        data_rel,
        data,
        seed,
        rng: ChaCha8Rng::seed_from_u64(seed ^ SALT),
        layout: base_layout(site, agents, data),
        entry: Entry {
            id: id.clone(),
            file: format!("episodes/{id}.toml"),
            template: site.template.name.clone(),
            family: site.template.family.to_owned(),
            class: primary,
            seed: s,
            agents,
            split,
            victim: None,
            item: None,
            deficit: None,
            holder: None,
            how: None,
            shortage: Vec::new(),
        },
    };
    background(&mut ep.layout, site);
    // The primary class must hold (a D with no long route anywhere is D-impossible);
    // the others are taken in rotation while they can be placed.
    if !ep.add(primary, turn)? {
        if primary != SuiteClass::D || !ep.add(SuiteClass::DImpossible, turn)? {
            return Err(GenerateError::NoInjection { template: site.template.name.clone(), class: primary });
        }
        ep.entry.class = SuiteClass::DImpossible;
    }
    for k in 1..4 {
        if ep.entry.shortage.len() == wanted {
            break;
        }
        ep.add(CLASSES[(turn + k) % 4], turn + k)?;
    }
    // The file on disk is the last accepted layout.
    let text = ep.layout.to_toml(&ep.entry, seed, &site.rel_blueprint, data_rel);
    write_episode(dir, &ep.entry, &text, data)?;
    Ok(ep.entry)
}

/// An episode being built, one shortage at a time.
struct Episode<'a, 'b> {
    site: &'a Site<'b>,
    dir: &'a Path,
    data_rel: &'a str,
    data: &'a Arc<GameData>,
    seed: u64,
    rng: ChaCha8Rng,
    layout: Layout,
    entry: Entry,
}

impl Episode<'_, '_> {
    /// Tries to add a shortage of `class`; `Ok(false)` when no candidate holds.
    /// `turn` picks the variant family (out of view, gone or muted) deterministically.
    fn add(&mut self, class: SuiteClass, turn: usize) -> Result<bool, GenerateError> {
        // An item no earlier shortage touched, or (on a one-material site) the same
        // item of another bot: one blocker per bot and item stays one issue.
        let used: Vec<(usize, &str)> =
            self.entry.shortage.iter().map(|s| (s.victim as usize, s.item.as_str())).collect();
        let fresh = |k: &str| used.iter().all(|(_, i)| *i != k);
        let other_bot = |a: usize, k: &str| used.iter().all(|(v, _)| *v != a) && used.iter().any(|(_, i)| *i == k);
        let base = base_layout(self.site, self.layout.starts.len(), self.data);
        let mut candidates: Vec<(usize, String)> =
            base.inventories.iter().enumerate().flat_map(|(a, inv)| inv.keys().map(move |k| (a, k.clone()))).collect();
        candidates.shuffle(&mut self.rng);
        // Fresh items first, in the seeded order; then the same item for another bot.
        candidates.sort_by_key(|(_, k)| !fresh(k));
        candidates.retain(|(a, k)| fresh(k) || other_bot(*a, k));
        let agents = self.layout.starts.len();
        let index = self.entry.shortage.len();
        for (victim, item) in candidates {
            let need = base.inventories[victim][&item];
            let others: Vec<usize> = (0..agents).filter(|a| *a != victim).collect();
            let holder = others[(self.seed as usize + victim + index) % others.len()];
            let mut deficits = vec![need];
            // Large shares lose only part, so that a local fix fits the budget.
            if matches!(class, SuiteClass::A | SuiteClass::C) {
                deficits.extend([12, 6, 3].into_iter().filter(|d| *d < need));
            }
            for variant in variants(class, turn) {
                for &deficit in &deficits {
                    let mut layout = self.layout.clone();
                    // A second source of one bot goes along the other axis.
                    layout.source_along_z = index % 2 == 1;
                    let Some(how) = apply(variant, &mut layout, victim, holder, &item, need, deficit, self.data) else {
                        continue;
                    };
                    let holds = matches!(
                        variant,
                        Variant::Teammate | Variant::TeammateAndSource(_) | Variant::MuteAndSource(_) | Variant::Mute
                    );
                    let shortage = Shortage {
                        class,
                        victim: victim as u32,
                        item: item.clone(),
                        deficit,
                        holder: holds.then_some(holder as u32),
                        how,
                    };
                    let mut entry = self.entry.clone();
                    entry.shortage.push(shortage);
                    if self.holds(&layout, &entry)? {
                        self.layout = layout;
                        self.entry = entry;
                        return Ok(true);
                    }
                }
            }
        }
        Ok(false)
    }

    /// Whether every shortage so far (the new one last) means its class in `layout`.
    fn holds(&self, layout: &Layout, entry: &Entry) -> Result<bool, GenerateError> {
        let text = layout.to_toml(entry, self.seed, &self.site.rel_blueprint, self.data_rel);
        let setup = write_episode(self.dir, entry, &text, self.data)?;
        Ok(entry.shortage.iter().rev().all(|s| check_shortage(&setup, &entry.id, s).is_ok()))
    }
}

/// The injections tried for a class, in order. A third of A and C (by `turn`) put the
/// source out of the victim's view; D alternates between "gone" and "muted holder" as
/// in version 1.
fn variants(class: SuiteClass, turn: usize) -> Vec<Variant> {
    use Variant::*;
    let out_of_view = turn % 3 == 0;
    match class {
        // Out of view where it fits the budget, else in view.
        SuiteClass::A if out_of_view => A_OUT_OF_VIEW.into_iter().chain(A_IN_VIEW).map(GoneButSource).collect(),
        // The short craft chain first on even turns, the raw source nearby first else.
        SuiteClass::A if turn % 2 == 0 => [OneCraft].into_iter().chain(A_IN_VIEW.map(GoneButSource)).collect(),
        SuiteClass::A => A_IN_VIEW.into_iter().map(GoneButSource).chain([OneCraft]).collect(),
        SuiteClass::B if turn % 2 == 0 => vec![Teammate],
        SuiteClass::B => vec![TeammateAndSource(30), TeammateAndSource(24), Teammate],
        SuiteClass::C if out_of_view => C_OUT_OF_VIEW.into_iter().chain(C_IN_VIEW).map(TeammateAndSource).collect(),
        SuiteClass::C => C_IN_VIEW.into_iter().map(TeammateAndSource).collect(),
        SuiteClass::D | SuiteClass::DImpossible if turn % 2 == 0 => {
            [30, 24, 18].into_iter().map(GoneButSource).chain([Gone]).collect()
        }
        SuiteClass::D | SuiteClass::DImpossible => [30, 24, 18].into_iter().map(MuteAndSource).chain([Mute]).collect(),
        SuiteClass::Standard => Vec::new(),
    }
}
