//! Validators (paper 003): each subtask carries a success criterion judged only from
//! evidence the bot itself can see: its verified inventory before and after, its
//! position, the blocks in range, a container it looked into, the crew-share blocks it
//! saw in place. The executor asks the validator when it believes a subtask is done;
//! the verdict, with the evidence used, goes to the trace, and a failed verdict fails
//! the node (the plan backtracks).

use gatecrew_protocol::trace::{BlockEvidence, Evidence, ItemEvidence};
use gatecrew_protocol::{ItemId, Pos};
use gatecrew_world::{GameData, Inventory};

use crate::knowledge::Knowledge;
use crate::plan::{Kind, Leaf, Plan, StepId};

/// What a subtask looked like when it started.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Snapshot {
    /// Counts of the items that matter to it.
    pub items: Vec<(ItemId, u32)>,
    /// Where the bot stood.
    pub pos: Pos,
}

impl Snapshot {
    /// No counts, at the origin.
    pub const EMPTY: Snapshot = Snapshot { items: Vec::new(), pos: Pos::new(0, 0, 0) };

    /// Takes the counts of `items` and the position.
    pub fn take(inv: &Inventory, items: &[ItemId], pos: Pos) -> Self {
        Snapshot { items: items.iter().map(|i| (*i, inv.count(*i))).collect(), pos }
    }

    /// The count of an item then.
    pub fn count(&self, item: ItemId) -> u32 {
        self.items.iter().find(|(i, _)| *i == item).map_or(0, |(_, n)| *n)
    }
}

/// A validator's verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Whether the node's criterion holds in the world as the bot sees it.
    pub pass: bool,
    /// The criterion in words.
    pub criterion: String,
    /// What it was judged from.
    pub evidence: Evidence,
}

/// What the validator may look at now.
pub struct Seen<'a> {
    /// Game data.
    pub data: &'a GameData,
    /// The verified inventory.
    pub inv: &'a Inventory,
    /// The bot's position.
    pub pos: Pos,
    /// Its knowledge (blocks and containers it saw).
    pub know: &'a Knowledge,
    /// Crew-share blocks seen in place, and the share's size.
    pub share: (u32, u32),
}

/// The items whose counts a node's criterion reads.
pub fn items_of(plan: &Plan, data: &GameData, n: StepId) -> Vec<ItemId> {
    match plan.step(n).kind {
        Kind::Obtain { item, .. } => vec![item],
        Kind::Leaf(Leaf::Collect { item, .. } | Leaf::Fetch { item, .. }) => vec![item],
        Kind::Leaf(Leaf::Craft { recipe }) => {
            let r = data.recipe(recipe);
            std::iter::once(r.result).chain(r.ingredients.iter().map(|(i, _)| *i)).collect()
        }
        Kind::Leaf(Leaf::Smelt { input, output }) => vec![output, input],
        _ => Vec::new(),
    }
}

fn delta(s: &Seen<'_>, before: &Snapshot, item: ItemId) -> ItemEvidence {
    ItemEvidence { item: s.data.item_name(item).to_owned(), before: before.count(item), after: s.inv.count(item) }
}

/// Judges node `n`: `target` is the count the subtask had to reach (holding for
/// obtain/collect/fetch/smelt, items made for a craft).
pub fn judge(plan: &Plan, n: StepId, target: u32, before: &Snapshot, s: &Seen<'_>) -> Verdict {
    let name = |i: ItemId| s.data.item_name(i).to_owned();
    let mut ev = Evidence { from: Some(before.pos), at: Some(s.pos), ..Evidence::default() };
    let (pass, criterion) = match plan.step(n).kind {
        Kind::Obtain { item, .. } | Kind::Leaf(Leaf::Collect { item, .. }) => {
            ev.items.push(delta(s, before, item));
            (s.inv.count(item) >= target, format!("holds >= {target} {}", name(item)))
        }
        Kind::Leaf(Leaf::Fetch { item, from }) => {
            ev.items.push(delta(s, before, item));
            if let Some(p) = from {
                ev.container = s.know.contents(p, item).map(|c| (p, c));
            }
            (s.inv.count(item) >= target, format!("holds >= {target} {} taken from storage", name(item)))
        }
        Kind::Leaf(Leaf::Craft { recipe }) => {
            let r = s.data.recipe(recipe);
            ev.items.push(delta(s, before, r.result));
            for (i, _) in &r.ingredients {
                ev.items.push(delta(s, before, *i));
            }
            let made = s.inv.count(r.result).saturating_sub(before.count(r.result));
            (made >= target, format!("{} rose by >= {target}", name(r.result)))
        }
        Kind::Leaf(Leaf::Smelt { input, output }) => {
            ev.items.push(delta(s, before, output));
            ev.items.push(delta(s, before, input));
            let made = s.inv.count(output).saturating_sub(before.count(output));
            (made >= target, format!("{} rose by >= {target}", name(output)))
        }
        Kind::Station { item } | Kind::Leaf(Leaf::UseStation { item } | Leaf::PlaceStation { item }) => {
            let near = s.know.station(item, s.pos);
            if let Some((p, _)) = near {
                ev.blocks.push(BlockEvidence { pos: p, block: name(item) });
            }
            (near.is_some_and(|(_, r)| r), format!("a {} within reach", name(item)))
        }
        Kind::Leaf(Leaf::GoTo { to }) => {
            let near = crate::plan::NEAR_PLACE;
            (s.pos.dist_sq(to) <= near * near, format!("within {near} blocks of {to}"))
        }
        Kind::Leaf(Leaf::Share) => {
            ev.share = Some(s.share);
            (s.share.0 >= s.share.1, "every block of my share seen in place".into())
        }
        Kind::Leaf(Leaf::Place(c)) => {
            let want = s.data.block_for_item(c.item);
            let seen = s.know.memory().block(c.pos);
            if let Some(b) = seen {
                ev.blocks.push(BlockEvidence { pos: c.pos, block: s.data.block_name(b).to_owned() });
            }
            (want.is_some() && seen == want, format!("{} seen at {}", name(c.item), c.pos))
        }
        Kind::AllOf | Kind::Goals => (true, "every part done and judged".into()),
    };
    Verdict { pass, criterion, evidence: ev }
}
