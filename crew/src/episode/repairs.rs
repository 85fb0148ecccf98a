//! Wrong blocks in blueprint cells that were dug out and replaced by the cell's own
//! block, counted from the verified outcomes alone (whoever dug and whoever placed):
//! the report's `blocks_replaced`.

use std::collections::BTreeSet;

use gatecrew_protocol::Pos;
use gatecrew_world::{Blueprint, Outcome};

/// Cells whose wrong block was dug out and not yet replaced, and the replacements.
#[derive(Debug, Clone, Default)]
pub(super) struct Repairs {
    dug: BTreeSet<Pos>,
    replaced: u32,
}

impl Repairs {
    /// Takes in one completed action.
    pub(super) fn note(&mut self, bp: &Blueprint, o: &Outcome) {
        let Ok(delta) = &o.result else { return };
        for &(p, b) in &delta.removed {
            if bp.cell_at(p).is_some_and(|c| c.block != b) {
                self.dug.insert(p);
            }
        }
        for &(p, b) in &delta.placed {
            if bp.cell_at(p).is_some_and(|c| c.block == b) && self.dug.remove(&p) {
                self.replaced += 1;
            }
        }
    }

    /// Wrong blocks replaced so far.
    pub(super) fn replaced(&self) -> u32 {
        self.replaced
    }
}
