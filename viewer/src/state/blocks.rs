//! Blueprint progress: placed, remaining and wrong cells, per layer.

use std::collections::{BTreeMap, HashMap};

use gatecrew_protocol::Pos;
use gatecrew_protocol::trace::ActionName;
use serde::Serialize;

use crate::scene::SceneCell;

/// One blueprint cell on the map.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CellView {
    /// Where.
    pub pos: Pos,
    /// The block that belongs there (`None`: the trace has not named it yet).
    pub block: Option<String>,
    /// `ghost` (still to place), `placed` (right block) or `wrong` (another block).
    pub state: &'static str,
}

/// Counts for one layer (one y).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LayerView {
    /// The layer's y.
    pub y: i32,
    /// Cells in the layer.
    pub total: u32,
    /// Right block in place.
    pub placed: u32,
    /// Another block in place.
    pub wrong: u32,
}

/// Blueprint progress.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Blocks {
    /// Blueprint cells.
    pub total: u32,
    /// Right block in place.
    pub placed: u32,
    /// Another block in place.
    pub wrong: u32,
    /// Still to place (total - placed).
    pub remaining: u32,
    /// Per layer, bottom up.
    pub layers: Vec<LayerView>,
    /// Every cell known so far.
    pub cells: Vec<CellView>,
    /// Correct blocks as `episode_end` reported them.
    pub reported: Option<u32>,
    /// Whether the cells come from the blueprint (else from the trace alone).
    pub known: bool,
    #[serde(skip)]
    at: HashMap<Pos, usize>,
    /// Cells whose placement fills the cell above too.
    #[serde(skip)]
    two_tall: std::collections::HashSet<Pos>,
    /// Counts need a recount.
    #[serde(skip)]
    stale: bool,
}

impl Blocks {
    pub(crate) fn new(cells: &[SceneCell]) -> Self {
        let mut b = Blocks { known: !cells.is_empty(), ..Blocks::default() };
        for c in cells {
            let state = match c.initially {
                None => "ghost",
                Some(true) => "placed",
                Some(false) => "wrong",
            };
            b.at.insert(c.pos, b.cells.len());
            b.cells.push(CellView { pos: c.pos, block: Some(c.block.clone()), state });
            if c.fills_above {
                b.two_tall.insert(c.pos);
            }
        }
        b.total = b.cells.len() as u32;
        b.recount();
        b
    }

    /// The blueprint's size from `episode_start`, when the cells are not known.
    pub(crate) fn expect_total(&mut self, n: u32) {
        if !self.known {
            self.total = n;
            self.recount();
        }
    }

    /// A verified action at a position.
    pub(crate) fn acted(&mut self, action: ActionName, pos: Pos, item: Option<&str>) {
        match action {
            ActionName::Place => {
                let i = match self.at.get(&pos) {
                    Some(&i) => i,
                    // Without the blueprint every placement is taken for a cell.
                    None if !self.known => {
                        self.at.insert(pos, self.cells.len());
                        self.cells.push(CellView { pos, block: item.map(str::to_owned), state: "ghost" });
                        self.cells.len() - 1
                    }
                    None => return,
                };
                let c = &mut self.cells[i];
                let state = match (&c.block, item) {
                    (Some(want), Some(got)) if want != got => "wrong",
                    _ => "placed",
                };
                c.state = state;
                self.set_above(pos, state);
            }
            ActionName::Mine => {
                if let Some(&i) = self.at.get(&pos) {
                    self.cells[i].state = "ghost";
                    self.set_above(pos, "ghost");
                }
            }
            _ => return,
        }
        self.stale = true;
    }

    /// The top of a two-cell block goes with its bottom.
    fn set_above(&mut self, pos: Pos, state: &'static str) {
        if self.two_tall.contains(&pos) {
            if let Some(&j) = self.at.get(&pos.offset(0, 1, 0)) {
                self.cells[j].state = state;
            }
        }
    }

    /// A cell named by an `unfinished` event.
    pub(crate) fn name(&mut self, pos: Pos, block: &str) {
        match self.at.get(&pos) {
            Some(&i) => {
                self.cells[i].block.get_or_insert_with(|| block.to_owned());
            }
            None if !self.known => {
                self.at.insert(pos, self.cells.len());
                self.cells.push(CellView { pos, block: Some(block.to_owned()), state: "ghost" });
                self.stale = true;
            }
            None => {}
        }
    }

    /// Recounts if anything changed since the last count.
    pub(crate) fn refresh(&mut self) {
        if self.stale {
            self.recount();
            self.stale = false;
        }
    }

    pub(crate) fn reported(&mut self, correct: u32) {
        self.reported = Some(correct);
    }

    fn recount(&mut self) {
        let mut layers: BTreeMap<i32, LayerView> = BTreeMap::new();
        let (mut placed, mut wrong) = (0, 0);
        for c in &self.cells {
            let l = layers.entry(c.pos.y).or_insert(LayerView { y: c.pos.y, total: 0, placed: 0, wrong: 0 });
            l.total += 1;
            match c.state {
                "placed" => {
                    l.placed += 1;
                    placed += 1;
                }
                "wrong" => {
                    l.wrong += 1;
                    wrong += 1;
                }
                _ => {}
            }
        }
        self.total = if self.known { self.cells.len() as u32 } else { self.total.max(self.cells.len() as u32) };
        self.placed = placed;
        self.wrong = wrong;
        self.remaining = self.total.saturating_sub(placed);
        self.layers = layers.into_values().collect();
    }
}
