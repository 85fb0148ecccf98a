//! The scores other systems publish for a construction, computed on our final world.
//!
//! * MindCraft (`Blueprint.check` in its construction tasks): every cell of every
//!   level's grid is compared with the world; a cell that is air in both is skipped;
//!   a cell whose block differs (missing, wrong, or extra where the grid says air) is a
//!   mismatch. Accuracy is `matches / (matches + mismatches)`; MindCraft prints it in
//!   percent, we give the fraction. MindCraft compares raw names, so a cell written with
//!   a state (`oak_door[half=lower]`) could never match there; here the state's given
//!   properties must hold, which is what the blueprint means.
//! * VillagerBench (`cal_block_hit_rate`): every non-air target block counts; it is
//!   correct when the name matches and, where the target gives a facing (a direction
//!   or an axis), the placed block has that facing. Recall is correct / target blocks.

use gatecrew_crew::setup::EndScorer;
use gatecrew_protocol::trace::TaskScores;
use gatecrew_world::{BlockId, BlockState, World};

use crate::task::TaskCell;

/// MindCraft's tally.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Accuracy {
    /// Cells that match.
    pub matches: u32,
    /// Missing, wrong or extra blocks.
    pub mismatches: u32,
}

impl Accuracy {
    /// `matches / (matches + mismatches)`; 1.0 when no cell counts.
    pub fn value(&self) -> f64 {
        let total = self.matches + self.mismatches;
        if total == 0 { 1.0 } else { f64::from(self.matches) / f64::from(total) }
    }
}

/// VillagerBench's tally.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Recall {
    /// Target blocks in place with the right facing.
    pub correct: u32,
    /// Target blocks.
    pub total: u32,
}

impl Recall {
    /// `correct / total`; 1.0 for an empty target.
    pub fn value(&self) -> f64 {
        if self.total == 0 { 1.0 } else { f64::from(self.correct) / f64::from(self.total) }
    }
}

/// MindCraft's per-block accuracy of `world` against the target cells (world
/// coordinates), air cells included.
pub fn mindcraft_accuracy(cells: &[TaskCell], world: &World) -> Accuracy {
    let mut a = Accuracy::default();
    for c in cells {
        let have = world.block_at(c.pos);
        if c.block == BlockId::AIR && have == BlockId::AIR {
            continue;
        }
        if have == c.block && c.state.satisfied_by(&world.state_at(c.pos)) {
            a.matches += 1;
        } else {
            a.mismatches += 1;
        }
    }
    a
}

/// VillagerBench's block recall of `world` against the target cells (world
/// coordinates), with facing checked.
pub fn villager_recall(cells: &[TaskCell], world: &World) -> Recall {
    let mut r = Recall::default();
    for c in cells.iter().filter(|c| c.block != BlockId::AIR) {
        r.total += 1;
        // VillagerBench checks the facing letter only: a direction or an axis.
        let facing = BlockState { facing: c.state.facing, axis: c.state.axis, ..BlockState::default() };
        if world.block_at(c.pos) == c.block && facing.satisfied_by(&world.state_at(c.pos)) {
            r.correct += 1;
        }
    }
    r
}

/// Both scores for an imported task's episode; the cells are in world coordinates.
#[derive(Debug, Clone)]
pub struct TaskScorer {
    cells: Vec<TaskCell>,
}

impl TaskScorer {
    /// A scorer for target cells in world coordinates.
    pub fn new(cells: Vec<TaskCell>) -> Self {
        TaskScorer { cells }
    }

    /// The target cells.
    pub fn cells(&self) -> &[TaskCell] {
        &self.cells
    }
}

impl EndScorer for TaskScorer {
    fn score(&self, world: &World) -> TaskScores {
        let a = mindcraft_accuracy(&self.cells, world);
        let r = villager_recall(&self.cells, world);
        TaskScores {
            mindcraft_accuracy: Some(a.value()),
            mindcraft_matches: Some(a.matches),
            mindcraft_mismatches: Some(a.mismatches),
            villager_recall: Some(r.value()),
            villager_correct: Some(r.correct),
            villager_blocks: Some(r.total),
        }
    }
}
