//! The planner every policy shares: given what it may use (whose hands, which tools),
//! turn "this item into that location" into tasks, top-down through the recipe tree.
//!
//! Sources of an item, cheapest first: a usable hand already holding it; a usable tool
//! whose cooked content it is; the storage, for a raw item; otherwise a tool of the
//! recipe's kind, one already bound to this product and partly filled, or a free one,
//! whose missing ingredients become needs of their own, then its activation. The
//! dispatcher plans with every hand and tool; a crew agent with its own hands and tools.

use gatecrew_protocol::ItemId;

use crate::tool::ToolKind;
use crate::world::{LocationId, World};

/// A unit of work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Task {
    /// The agent holding the item carries it to `to` and puts it.
    Carry { agent: usize, to: LocationId },
    /// Take `item` from the storage, or the content of `from`, and carry it to `to`.
    Fetch { from: LocationId, item: Option<ItemId>, to: LocationId, what: ItemId },
    /// Activate the tool.
    Activate { at: LocationId },
}

impl Task {
    /// Where the agent must be to start it.
    pub fn start(self) -> LocationId {
        match self {
            Task::Carry { to, .. } => to,
            Task::Fetch { from, .. } => from,
            Task::Activate { at } => at,
        }
    }
}

/// Steps until a planned item is in place: with enough agents (`par`, the critical
/// path) and with one agent doing everything (`solo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Est {
    pub par: u32,
    pub solo: u32,
}

impl Est {
    fn both(n: u32) -> Est {
        Est { par: n, solo: n }
    }
}

/// Why an item cannot be planned now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stuck {
    /// Every usable tool of the kind is busy (occupied, or filled for another product).
    ToolBusy(ToolKind, ItemId),
    /// The kitchen has no tool of the kind.
    NoTool(ToolKind),
}

/// What has been promised in this plan, so two needs never count the same source.
#[derive(Debug, Clone)]
pub(crate) struct Claims {
    hand: Vec<bool>,
    loc: Vec<bool>,
    /// The product each tool is filled for (persists across steps in the policy).
    pub bind: Vec<Option<ItemId>>,
    /// Items on their way into a tool from elsewhere (a teammate's promised hand-over).
    pub expected: Vec<(LocationId, ItemId)>,
}

/// The planner over one world snapshot.
pub(crate) struct Planner<'w> {
    w: &'w World,
    /// Hands it may use, by agent.
    hands: Vec<bool>,
    /// Tools whose content and binding it may use (a crew agent: its own and free ones).
    mine: Vec<bool>,
    pub claims: Claims,
}

impl<'w> Planner<'w> {
    /// A planner. `bind` is the policy's persisted tool bindings; bindings the world no
    /// longer supports (the tool was emptied, or holds what the product does not need)
    /// are dropped.
    pub fn new(w: &'w World, hands: Vec<bool>, mine: Vec<bool>, mut bind: Vec<Option<ItemId>>) -> Self {
        bind.resize(w.locations().len(), None);
        for (i, b) in bind.iter_mut().enumerate() {
            let l = &w.locations()[i];
            let valid = b.is_some_and(|p| {
                if l.cooked {
                    l.contents == [p]
                } else {
                    !l.contents.is_empty()
                        && w.book()
                            .recipe_for(p)
                            .is_some_and(|r| crate::recipe::sub_multiset(&l.contents, &r.ingredients))
                }
            });
            if !valid {
                *b = None;
            }
        }
        let claims =
            Claims { hand: vec![false; hands.len()], loc: vec![false; bind.len()], bind, expected: Vec::new() };
        Planner { w, hands, mine, claims }
    }

    /// Plans `item` into `to`, appending tasks in the order they should start; returns
    /// the steps until it is there with enough agents.
    pub fn need(&mut self, item: ItemId, to: LocationId, out: &mut Vec<Task>) -> Result<Est, Stuck> {
        let w = self.w;
        for (i, body) in w.agents().iter().enumerate() {
            if self.hands.get(i) == Some(&true) && !self.claims.hand[i] && body.holding == Some(item) {
                self.claims.hand[i] = true;
                out.push(Task::Carry { agent: i, to });
                return Ok(Est::both(if body.at == to { 1 } else { 2 }));
            }
        }
        for (i, l) in w.locations().iter().enumerate() {
            let id = LocationId(i as u16);
            if id != to && self.mine[i] && !self.claims.loc[i] && l.cooked && l.contents == [item] {
                self.claims.loc[i] = true;
                self.claims.bind[i] = Some(item);
                out.push(Task::Fetch { from: id, item: None, to, what: item });
                return Ok(Est::both(l.occupied + 3));
            }
        }
        let book = w.book();
        let Some(recipe) = book.recipe_for(item) else {
            let storage = w.first(ToolKind::Storage).ok_or(Stuck::NoTool(ToolKind::Storage))?;
            out.push(Task::Fetch { from: storage, item: Some(item), to, what: item });
            return Ok(Est::both(4));
        };
        let kind = recipe.tool;
        let usable = |i: usize| self.mine[i] && !self.claims.loc[i] && w.locations()[i].kind == kind;
        let tool = (0..w.locations().len())
            .find(|&i| usable(i) && self.claims.bind[i] == Some(item) && !w.locations()[i].cooked)
            .or_else(|| {
                (0..w.locations().len()).find(|&i| {
                    let l = &w.locations()[i];
                    usable(i) && self.claims.bind[i].is_none() && l.contents.is_empty() && !l.is_occupied()
                })
            });
        let Some(t) = tool else {
            return Err(if w.first(kind).is_some() { Stuck::ToolBusy(kind, item) } else { Stuck::NoTool(kind) });
        };
        self.claims.loc[t] = true;
        self.claims.bind[t] = Some(item);
        let at = LocationId(t as u16);
        let mut missing = recipe.ingredients.clone();
        for c in &w.locations()[t].contents {
            if let Some(p) = missing.iter().position(|m| m == c) {
                missing.remove(p);
            }
        }
        for (l, e) in &self.claims.expected {
            if *l == at {
                if let Some(p) = missing.iter().position(|m| m == e) {
                    missing.remove(p);
                }
            }
        }
        // Activate, wait, get, goto, put.
        let cook = 1 + kind.wait_steps() + 3;
        if missing.is_empty() {
            if w.locations()[t].contents.len() == recipe.ingredients.len() {
                out.push(Task::Activate { at });
            }
            return Ok(Est::both(1 + cook));
        }
        let mut est = Est::default();
        for m in missing {
            let e = self.need(m, at, out)?;
            est.par = est.par.max(e.par);
            est.solo += e.solo;
        }
        Ok(Est { par: est.par + cook, solo: est.solo + cook })
    }

    /// Plans one order's items onto the serving table. On failure nothing is claimed.
    pub fn order(&mut self, serve: &[ItemId], out: &mut Vec<Task>) -> Result<Est, Stuck> {
        let table = self.w.first(ToolKind::Servingtable).ok_or(Stuck::NoTool(ToolKind::Servingtable))?;
        let saved = self.claims.clone();
        let mark = out.len();
        let mut est = Est::default();
        for &item in serve {
            match self.need(item, table, out) {
                Ok(e) => {
                    est.par = est.par.max(e.par);
                    est.solo += e.solo;
                }
                Err(e) => {
                    self.claims = saved;
                    out.truncate(mark);
                    return Err(e);
                }
            }
        }
        Ok(est)
    }

    /// Undoes everything since `saved` (a clone of `claims`).
    pub fn restore(&mut self, saved: Claims) {
        self.claims = saved;
    }
}

/// The action that advances `task` for agent `agent`.
pub(crate) fn act(w: &World, agent: usize, task: Task) -> crate::Action {
    use crate::Action;
    let body = &w.agents()[agent];
    match task {
        Task::Carry { to, .. } => {
            if body.at == to {
                Action::Put(to)
            } else {
                Action::Goto(to)
            }
        }
        Task::Fetch { from, item, .. } => {
            if body.at != from {
                Action::Goto(from)
            } else if w.location(from).is_occupied() {
                Action::Noop
            } else {
                Action::Get { at: from, item }
            }
        }
        Task::Activate { at } => {
            if body.at == at {
                Action::Activate(at)
            } else {
                Action::Goto(at)
            }
        }
    }
}

/// Where an agent throws away what nobody needs: the storage (MindAgent's storage takes
/// anything put into it and it is gone).
pub(crate) fn dispose(w: &World, agent: usize) -> crate::Action {
    let body = &w.agents()[agent];
    match w.first(ToolKind::Storage) {
        Some(s) if body.at == s => crate::Action::Put(s),
        Some(s) => crate::Action::Goto(s),
        None => crate::Action::Noop,
    }
}
