//! Turning an imported task into an ordinary episode [`Setup`]: the task's coordinates
//! are shifted so that its lowest level sits at `y = 0` and its corner at `x = z = 0`,
//! on a flat world (the ground just below `y = 0`) with a margin around the blueprint;
//! the bots start on a ring around the site with the task's inventories; `timeout`
//! seconds become `timeout × 20` ticks.
//!
//! Nothing else is in the world: no trees, no chests, no ore. Materials that no recipe
//! in our data makes exist only in the inventories the task gives, and those are split
//! across the agents, so the crew has to use the board. VillagerBench files give no
//! inventories; each bot then gets exactly the materials of its share of the blueprint.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use gatecrew_crew::Policy;
use gatecrew_crew::plan::split_work;
use gatecrew_crew::setup::{EpisodeSpec, FaultSpec, Labels, MAX_CREW, SetupParts, config_hash, deal, share_needs};
use gatecrew_crew::{Setup, agent::AgentTuning};
use gatecrew_gating::{GateParams, GateSpec};
use gatecrew_protocol::{BoardConfig, ItemId, Pos};
use gatecrew_world::{Blueprint, Bounds, GameData, Rules, World};
use serde::Serialize;

use crate::error::{TaskError, TaskErrorKind};
use crate::score::TaskScorer;
use crate::task::{ImportedTask, TaskCell};

/// Free blocks around the blueprint on every side.
pub const MARGIN: i32 = 6;
/// Free blocks above the blueprint's top.
pub const HEADROOM: i32 = 4;
/// The most blocks a task may span on each axis. The world is a dense grid around the
/// site, so this bounds its memory (a few tens of MB); the `task_file` fuzz target found
/// that two blocks far apart overflowed the shift to the origin, and would otherwise ask
/// for a grid larger than any machine.
pub const MAX_SPAN: i64 = 256;
/// Crew size when the file does not say (VillagerBench files) and none is asked for.
pub const DEFAULT_AGENTS: usize = 2;

/// How to run an imported task.
#[derive(Debug, Clone)]
pub struct TaskOptions {
    /// Game data.
    pub data: Arc<GameData>,
    /// Episode seed.
    pub seed: u64,
    /// Coordination policy.
    pub policy: Policy,
    /// Crew size asked for on the command line.
    pub agents: Option<usize>,
}

#[derive(Serialize)]
struct Resolved<'a> {
    data_version: &'a str,
    format: &'a str,
    task: &'a str,
    episode: &'a EpisodeSpec,
    starts: &'a [Pos],
    inventories: Vec<Vec<(&'a str, u32)>>,
    cells: Vec<(Pos, &'a str, String)>,
}

fn invalid(file: &Path, msg: String) -> TaskError {
    TaskError::new(file, TaskErrorKind::Invalid(msg))
}

/// A nested error's message without its own leading `FILE:` (the task error names the
/// file once).
fn inner(file: &Path, e: &dyn std::fmt::Display) -> String {
    let text = e.to_string();
    let name = file.display().to_string();
    match text.strip_prefix(&name) {
        Some(rest) => rest.trim_start_matches(':').trim_start().to_owned(),
        None => text,
    }
}

/// Start positions on a ring two blocks outside the blueprint's footprint, one side
/// after another, every second cell; past the world's bounds (a large crew), the free
/// cells of the square rings around the footprint, nearest first (as `--agents` places
/// the bots a config does not list); when even those run out, bots share cells in the
/// same order, as players may stand in one another.
fn ring(lo: Pos, hi: Pos, n: usize, bounds: &Bounds) -> Vec<Pos> {
    let mut out: Vec<Pos> = Vec::with_capacity(n);
    let mut spill = 0;
    for a in 0..n {
        let k = (a / 4) as i32;
        let (x, z) = match a % 4 {
            0 => (lo.x - 2, lo.z + 2 * k),
            1 => (hi.x + 2, hi.z - 2 * k),
            2 => (lo.x + 2 * k, hi.z + 2),
            _ => (hi.x - 2 * k, lo.z - 2),
        };
        let p = Pos::new(x, 0, z);
        if bounds.contains(p) {
            out.push(p);
        } else {
            spill += 1;
        }
    }
    if spill == 0 {
        return out;
    }
    let taken: std::collections::BTreeSet<Pos> = out.iter().copied().collect();
    let mut free = Vec::new();
    for d in 2..=MARGIN {
        let (x0, x1, z0, z1) = (lo.x - d, hi.x + d, lo.z - d, hi.z + d);
        let north = (x0..=x1).map(|x| (x, z0));
        let east = (z0 + 1..=z1).map(|z| (x1, z));
        let south = (x0..x1).rev().map(|x| (x, z1));
        let west = (z0 + 1..z1).rev().map(|z| (x0, z));
        for (x, z) in north.chain(east).chain(south).chain(west) {
            let p = Pos::new(x, 0, z);
            if bounds.contains(p) && !taken.contains(&p) {
                free.push(p);
            }
        }
    }
    let order: Vec<Pos> = free.iter().chain(out.iter()).copied().collect();
    out.extend((0..spill).map(|i| order[i % order.len()]));
    out
}

/// The setup for an imported task read from `file`.
pub fn setup(task: &ImportedTask, file: &Path, opts: &TaskOptions) -> Result<Setup, TaskError> {
    let data = &opts.data;
    let Some(first) = task.cells.first() else {
        return Err(invalid(file, format!("task \"{}\" has no cells", task.id)));
    };
    let lo = task.cells.iter().fold(first.pos, |m, c| Pos::new(m.x.min(c.pos.x), m.y.min(c.pos.y), m.z.min(c.pos.z)));
    let top = task.cells.iter().fold(first.pos, |m, c| Pos::new(m.x.max(c.pos.x), m.y.max(c.pos.y), m.z.max(c.pos.z)));
    let span = |a: i32, b: i32| i64::from(b) - i64::from(a) + 1;
    let spans = [span(lo.x, top.x), span(lo.y, top.y), span(lo.z, top.z)];
    if spans.iter().any(|s| *s > MAX_SPAN) {
        return Err(invalid(
            file,
            format!(
                "task \"{}\" spans {} x {} x {} blocks (x, y, z) from {lo} to {top}; a site is at most {MAX_SPAN} on a side",
                task.id, spans[0], spans[1], spans[2]
            ),
        ));
    }
    let shift = |p: Pos| Pos::new(p.x - lo.x, p.y - lo.y, p.z - lo.z);
    let cells: Vec<TaskCell> = task.cells.iter().map(|c| TaskCell { pos: shift(c.pos), ..*c }).collect();
    let hi =
        cells.iter().fold(Pos::new(0, 0, 0), |m, c| Pos::new(m.x.max(c.pos.x), m.y.max(c.pos.y), m.z.max(c.pos.z)));
    let blueprint = Blueprint::from_states(&task.id, cells.iter().map(|c| (c.pos, c.block, c.state)), file, data)
        .map_err(|e| invalid(file, format!("{} (positions are the task's minus {lo})", inner(file, &e))))?;
    if blueprint.is_empty() {
        return Err(invalid(file, format!("task \"{}\" has no block to build", task.id)));
    }
    let blueprint = Arc::new(blueprint);
    let bounds = Bounds {
        min: Pos::new(-MARGIN, 0, -MARGIN),
        max: Pos::new(hi.x + MARGIN, (hi.y + HEADROOM).max(3), hi.z + MARGIN),
    };
    let mut world = World::new(data.clone(), bounds, Rules::default(), opts.seed)
        .map_err(|e| invalid(file, format!("the default rules: {e}")))?;
    let humans = task.humans.len();
    let given = task.agent_count.unwrap_or(DEFAULT_AGENTS);
    let bots = opts.agents.unwrap_or(given);
    if !(1..=MAX_CREW).contains(&bots) {
        return Err(invalid(file, format!("a crew of {bots} bots; a crew has 1 to {MAX_CREW}")));
    }
    let mut notes = Vec::new();
    // Humans are the last participants: they hold their share of the items and build
    // nothing; a deterministic stand-in answers the crew's requests from their hands.
    let n = bots + humans;
    let mut inventories: Vec<Vec<(ItemId, u32)>> = match &task.inventories {
        // Another crew size than the file's: the bots' items are pooled and dealt out by
        // each bot's share of the blueprint, as `--agents` does for a crew config.
        Some(invs) if bots != given => {
            let mut pool = BTreeMap::<ItemId, u32>::new();
            for (item, c) in invs.iter().take(given).flatten() {
                *pool.entry(*item).or_insert(0) += c;
            }
            notes.push(format!(
                "--agents {bots}: the items of the file's {given} bots are pooled and dealt out by each bot's share of the blueprint"
            ));
            let mut dealt: Vec<Vec<(ItemId, u32)>> =
                deal(pool, &blueprint, data, bots).into_iter().map(|m| m.into_iter().collect()).collect();
            dealt.extend(invs.iter().skip(given).cloned());
            dealt
        }
        Some(invs) => invs.clone(),
        None => share_needs(&blueprint, data, bots).into_iter().map(|m| m.into_iter().collect()).collect(),
    };
    inventories.resize(n, Vec::new());
    if !task.contents.is_empty() {
        // A chest's items go to the bot that builds the chest, so they are on the site.
        let owners = split_work(&blueprint, bots);
        for (pos, items) in &task.contents {
            let Some(i) = blueprint.index_of(shift(*pos)) else { continue };
            let a = owners[i].index();
            inventories[a].extend(items.iter().copied());
            notes.push(format!(
                "the {} items of the block at {pos} go to bot {a}, who builds it; the block's contents are not scored",
                items.iter().map(|(_, c)| c).sum::<u32>()
            ));
        }
    }
    let (flo, fhi) = blueprint.extent().unwrap_or((Pos::new(0, 0, 0), Pos::new(0, 0, 0)));
    let starts = ring(Pos::new(flo.x, 0, flo.z), Pos::new(fhi.x, 0, fhi.z), n, &bounds);
    let reg = data.items().clone();
    for (a, (start, items)) in starts.iter().zip(&inventories).enumerate() {
        let mut inv = World::agent_inventory();
        for &(item, count) in items {
            inv.insert_unchecked(item, count);
        }
        if inv.used_slots(&reg) > inv.capacity() {
            return Err(invalid(
                file,
                format!("agent {a}'s inventory needs {} slots, a bot has {}", inv.used_slots(&reg), inv.capacity()),
            ));
        }
        world.add_agent(*start, inv);
    }
    let episode = EpisodeSpec {
        name: task.id.clone(),
        seed: opts.seed,
        tick_limit: task.timeout_s.map_or(EpisodeSpec::default().tick_limit, |s| s.saturating_mul(20)),
        policy: opts.policy,
        ..EpisodeSpec::default()
    };
    let resolved = Resolved {
        data_version: &data.version,
        format: task.format.as_str(),
        task: &task.id,
        episode: &episode,
        starts: &starts,
        inventories: inventories.iter().map(|v| v.iter().map(|(i, c)| (data.item_name(*i), *c)).collect()).collect(),
        cells: cells.iter().map(|c| (c.pos, data.block_name(c.block), c.state.to_string())).collect(),
    };
    let gate = GateParams::new(GateSpec::default()).map_err(|e| invalid(file, format!("default gate: {e}")))?;
    let mut warnings: Vec<String> = task.warnings.iter().map(ToString::to_string).collect();
    warnings.extend(notes);
    let cells_dropped = u32::try_from(task.cells_dropped()).unwrap_or(u32::MAX);
    let labels = Labels { warnings, cells_dropped, humans: task.humans.clone(), ..Labels::default() };
    let parts = SetupParts {
        config_hash: config_hash(&resolved),
        episode,
        data: data.clone(),
        blueprint,
        world,
        gate,
        board: BoardConfig::default(),
        tuning: AgentTuning::default(),
        faults: FaultSpec::default(),
        labels,
        // The other systems score the cells left out too (they are never built).
        scorer: Some(Arc::new(TaskScorer::new(
            cells.into_iter().chain(task.left_out.iter().map(|c| TaskCell { pos: shift(c.pos), ..*c })).collect(),
        ))),
    };
    Setup::from_parts(parts, file).map_err(|e| invalid(file, inner(file, &e)))
}
