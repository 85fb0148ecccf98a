//! Cells a partial blueprint leaves out ([`super::Blueprint::from_states_partial`]) and
//! why: each is a cell no player could make stay as written.

use gatecrew_protocol::Pos;

use crate::data::{BlockId, GameData};

/// A cell left out of a partial blueprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// Where (the blueprint's coordinates).
    pub pos: Pos,
    /// The block that was asked for there.
    pub block: BlockId,
    /// Why it can never stand there.
    pub reason: LeftOutReason,
}

/// Why a cell can never be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LeftOutReason {
    /// No item places the block (`fire`).
    NoItem,
    /// A two-cell block (a door) whose top cell holds another block.
    TopTaken {
        /// The block in the cell above.
        by: BlockId,
    },
    /// A falling or attached block whose every possible support is a cell the
    /// blueprint leaves empty (or a cell left out before it): a carpet over air.
    NothingToHold {
        /// The cells that could hold it.
        at: Vec<Pos>,
    },
    /// Nothing connects the cell to the ground and no side of its part is free to lean
    /// on a temporary block.
    NoSupport,
}

impl LeftOutReason {
    /// The reason in words, for `block` at `pos`, with positions shown through `shown`
    /// (a task file's own coordinates, say).
    pub fn describe_in(&self, block: BlockId, pos: Pos, data: &GameData, shown: impl Fn(Pos) -> Pos) -> String {
        let name = data.block_name(block);
        let pos = shown(pos);
        match self {
            LeftOutReason::NoItem => format!("block \"{name}\" at {pos} cannot be placed: no item places it"),
            LeftOutReason::TopTaken { by } => {
                format!("{name} at {pos} needs the cell above free, but it holds {}", data.block_name(*by))
            }
            LeftOutReason::NothingToHold { at } => {
                let info = data.block_info(block);
                let what = if info.gravity { "falls" } else { "needs a block to hold it" };
                let list: Vec<String> = at.iter().map(|p| shown(*p).to_string()).collect();
                format!(
                    "block \"{name}\" at {pos} {what} at {}, which the blueprint leaves empty: it can never stay there",
                    list.join(" or ")
                )
            }
            LeftOutReason::NoSupport => format!(
                "block at {pos} has no support: nothing connects it to the ground, and no side of its part is free to lean on a temporary block"
            ),
        }
    }

    /// The reason in words, positions as they are.
    pub fn describe(&self, block: BlockId, pos: Pos, data: &GameData) -> String {
        self.describe_in(block, pos, data, |p| p)
    }

    /// A short tag for counts (`nothing_to_hold`, ...).
    pub fn tag(&self) -> &'static str {
        match self {
            LeftOutReason::NoItem => "no_item",
            LeftOutReason::TopTaken { .. } => "top_taken",
            LeftOutReason::NothingToHold { .. } => "nothing_to_hold",
            LeftOutReason::NoSupport => "no_support",
        }
    }
}
