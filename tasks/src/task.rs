//! A task read from another system's file, in that file's coordinates: the target
//! cells (air included where the format lists it), the crew and its inventories.

use gatecrew_protocol::{ItemId, Pos};
use gatecrew_world::{BlockId, BlockState};

/// The formats this crate reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    /// MindCraft's MineCollab construction task (levels of 2-D placement grids).
    MineCollab,
    /// VillagerBench description lines (`material: X facing: F position: [x, y, z]` ...).
    VillagerLines,
    /// VillagerBench's raw `{name, size, blocks}` blueprint.
    VillagerRaw,
}

impl Format {
    /// A short name for listings and the config hash.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::MineCollab => "minecollab",
            Format::VillagerLines => "villagerbench-lines",
            Format::VillagerRaw => "villagerbench-raw",
        }
    }
}

/// One target cell: what must be there at the end (air: nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskCell {
    /// Where.
    pub pos: Pos,
    /// The block ([`BlockId::AIR`] for an air cell of a MineCollab grid).
    pub block: BlockId,
    /// The state it must have (only the properties given are checked).
    pub state: BlockState,
}

/// A task as its file gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedTask {
    /// The task's id in its file.
    pub id: String,
    /// Its format.
    pub format: Format,
    /// The goal text, when the file has one.
    pub goal: Option<String>,
    /// Target cells, each position once, in the file's coordinates.
    pub cells: Vec<TaskCell>,
    /// Bots in the crew, when the file says (humans not counted).
    pub agent_count: Option<usize>,
    /// Time limit in seconds, when the file says (20 ticks a second).
    pub timeout_s: Option<u64>,
    /// Starting inventory per agent, when the file gives them.
    pub inventories: Option<Vec<Vec<(ItemId, u32)>>>,
    /// How the file was read where it left room (shown to the user).
    pub notes: Vec<String>,
    /// Cells the file's text describes, counted with repeats: each is one of
    /// [`ImportedTask::cells`] or counted in a [`Warning`].
    pub described: usize,
    /// What the blueprint does not hold as the file describes it.
    pub warnings: Vec<Warning>,
    /// Human participants after the bots (MineCollab's `human_count`), in file order;
    /// their inventories follow the bots' in [`ImportedTask::inventories`].
    pub humans: Vec<String>,
    /// Items a block of the blueprint holds (a chest's `items`), by position.
    pub contents: Vec<(Pos, Vec<(ItemId, u32)>)>,
    /// Cells the file asks for that can never be built (a carpet over air, a door with
    /// a block where its top goes, a block no item places), left out of
    /// [`ImportedTask::cells`] with a warning each. The other systems' scores still count
    /// them, as those systems do.
    pub left_out: Vec<TaskCell>,
}

/// Something the file describes that the blueprint does not hold as described: cells
/// left out or replaced, or a property that is not checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The JSON path of what it is about.
    pub path: String,
    /// Described cells that are not in the blueprint because of it (0 when the cells
    /// are there and only a property or an assumption is reported).
    pub cells: usize,
    /// What and why.
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl ImportedTask {
    /// Non-air target cells.
    pub fn blocks(&self) -> impl Iterator<Item = &TaskCell> + '_ {
        self.cells.iter().filter(|c| c.block != BlockId::AIR)
    }

    /// Described cells the blueprint does not hold, each reported by a warning.
    pub fn dropped(&self) -> usize {
        self.warnings.iter().map(|w| w.cells).sum()
    }

    /// Cells left out because they can never be built (`cells_dropped` in the run's
    /// report and the trace).
    pub fn cells_dropped(&self) -> usize {
        self.left_out.len()
    }
}
