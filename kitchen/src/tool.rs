//! The ten location kinds of CuisineWorld and how each behaves.
//!
//! Every number here is MindAgent's, from `levels/constants.py` of the mindagent
//! repository (the `occupied_time`, `capacity` and `need_watch` tables) and the rules in
//! `overcooked/game.py`; the paper (MindAgent, arXiv 2309.09971, appendix E.5) says only
//! that "agents must wait for varying timesteps before cooking is completed, with the wait
//! time dependent on the specific tool used", and its appendix H trace agrees with the
//! code: a pan activated at step 4 refuses a `get` at step 5
//! ("pan0 is occupied, therefore agent1 cannot get objects from the tool") and gives its
//! product at step 7; a chopboard's slice is ready at the next step.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A kind of kitchen location. A level's `kitchen` lists instances; the n-th of a kind is
/// called `<kind><n>` as in MindAgent (`blender0`, `blender1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolKind {
    /// Hands out any raw ingredient; whatever is put in is gone.
    Storage,
    /// Where orders are served; nothing is taken back.
    Servingtable,
    /// Sautées.
    Pan,
    /// Blends, grinds, mixes dough.
    Blender,
    /// Slices; the only cooking tool that needs its agent to watch.
    Chopboard,
    /// Fries.
    Fryer,
    /// Mixes salads, sushi, burgers, burritos.
    Mixer,
    /// Boils.
    Pot,
    /// Steams.
    Steamer,
    /// Bakes.
    Oven,
}

/// How a tool kind behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolSpec {
    /// MindAgent's `occupied_time`: on `activate` the tool's counter is set to this and
    /// every step's end lowers it by one, the activation step included, so the tool
    /// refuses `get`, `put` and `activate` for `occupied - 1` steps after the activation
    /// step. Storage 0, blender 2, chopboard 1, pan 2, serving table 0, fryer 2, mixer
    /// 0, pot 3, steamer 3, oven 3.
    pub occupied: u32,
    /// MindAgent's `capacity`: how many items the tool holds; `None` is unbounded
    /// (storage and serving table, "You can place up to infinite item into the
    /// storage0" in the paper's prompt). Every cooking tool holds 5 but the chopboard 1.
    pub capacity: Option<u32>,
    /// MindAgent's `need_watch`: the activating agent is occupied as long as the tool
    /// (only the chopboard). With an occupied time of 1 this costs no extra step.
    pub needs_watch: bool,
}

impl ToolKind {
    /// Every kind, in MindAgent's `LocationType` order.
    pub const ALL: [ToolKind; 10] = [
        ToolKind::Servingtable,
        ToolKind::Pan,
        ToolKind::Blender,
        ToolKind::Storage,
        ToolKind::Chopboard,
        ToolKind::Fryer,
        ToolKind::Mixer,
        ToolKind::Pot,
        ToolKind::Steamer,
        ToolKind::Oven,
    ];

    /// The name in the data files.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolKind::Storage => "storage",
            ToolKind::Servingtable => "servingtable",
            ToolKind::Pan => "pan",
            ToolKind::Blender => "blender",
            ToolKind::Chopboard => "chopboard",
            ToolKind::Fryer => "fryer",
            ToolKind::Mixer => "mixer",
            ToolKind::Pot => "pot",
            ToolKind::Steamer => "steamer",
            ToolKind::Oven => "oven",
        }
    }

    /// Parses a data-file name.
    pub fn parse(name: &str) -> Option<ToolKind> {
        ToolKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// The names, for error messages.
    pub fn known() -> String {
        ToolKind::ALL.map(ToolKind::as_str).join(", ")
    }

    /// The kind's behaviour (see [`ToolSpec`] for the source of each number).
    pub fn spec(self) -> ToolSpec {
        let (occupied, capacity, needs_watch) = match self {
            ToolKind::Storage | ToolKind::Servingtable => (0, None, false),
            ToolKind::Blender | ToolKind::Pan | ToolKind::Fryer => (2, Some(5), false),
            ToolKind::Chopboard => (1, Some(1), true),
            ToolKind::Mixer => (0, Some(5), false),
            ToolKind::Pot | ToolKind::Steamer | ToolKind::Oven => (3, Some(5), false),
        };
        ToolSpec { occupied, capacity, needs_watch }
    }

    /// Whether this kind cooks (is activated), as opposed to storage and serving table.
    pub fn cooks(self) -> bool {
        !matches!(self, ToolKind::Storage | ToolKind::Servingtable)
    }

    /// Steps an agent waits after activating before it can take the product out:
    /// `occupied - 1`, at least 0.
    pub fn wait_steps(self) -> u32 {
        self.spec().occupied.saturating_sub(1)
    }
}

impl fmt::Display for ToolKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}
