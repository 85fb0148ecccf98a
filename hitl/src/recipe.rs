//! The deterministic recipe planner: a goal (an item and a count) becomes an AND/OR
//! sub-graph of obtain / craft / smelt / collect nodes, alternatives in cost order, from
//! the recipe data alone (paper 000 section 3.2; the model never writes the graph).
//!
//! `obtain X` is an OR of: take it from a known container; craft it (an ALL-OF of
//! obtaining each ingredient, a crafting table for 3x3 recipes, the craft); mine it
//! (after obtaining a tool when the block needs one); smelt it (input, fuel, furnace).
//! Alternatives the bot can price from what it knows (`gatecrew_world::cost`, the same
//! estimate its local solver uses) come first, cheapest first; then the ones it cannot
//! price yet, by a knowledge-free estimate, the vocabulary's preferred items first, then
//! the data file's order. Among each, the ways the person said they like come first
//! ([`Likes`]: "i like spruce" makes a chest of spruce planks when the bot knows where
//! spruce grows). At most `max_alternatives` are kept. One `obtain` node per
//! item per goal is shared by every parent that needs it (a DAG), and an alternative
//! needing an item already being expanded above it is dropped (no cycles).
//!
//! Which ways there are and what each alternative consists of are the crew's
//! ([`gatecrew_crew::plan::obtain`], the same layout the crew agent's local solver
//! expands); the ranking, the labels and the station OR are the partner's.
//!
//! Counts come from chat ("get 1100000000 crafting tables"): every product and sum
//! saturates, so an absurd count gives an absurd (refused or unpriced) plan, never an
//! overflow; clippy's `arithmetic_side_effects` keeps it that way.
#![deny(clippy::arithmetic_side_effects)]

use std::collections::BTreeMap;

mod likes;
mod statics;

pub use likes::Likes;
use statics::Statics;

use gatecrew_crew::plan::obtain::{Alternative, Extras, Part, Rank, Way, ranked, tool_for};
use gatecrew_protocol::ItemId;
use gatecrew_world::GameData;
use gatecrew_world::cost::{Knowledge, Planner as CostPlanner};

use crate::goal::Goal;
use crate::plan::{Kind, Leaf, Origin, Plan, StepId};
use crate::words::{Vocabulary, item_words};

/// Planner settings.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannerConfig {
    /// Alternatives kept per OR.
    pub max_alternatives: usize,
    /// Nested obtains expanded below a goal.
    pub max_depth: usize,
    /// Routes dearer than this many ticks count as unpriced.
    pub budget: u64,
    /// The label of the crew-build goal.
    pub share_label: String,
}

impl Default for PlannerConfig {
    fn default() -> Self {
        PlannerConfig {
            max_alternatives: 3,
            max_depth: 10,
            budget: 20_000,
            share_label: "build my share of the blueprint".into(),
        }
    }
}

/// Knowledge-free cost of one item when nothing is priced: a unit is a tick-ish guess.
const UNKNOWN: u64 = u64::MAX / 8;

/// The leaf that does an alternative's work: made before its ALL-OF (a collect), or to
/// make in its turn.
enum Work {
    Made(StepId),
    New(Kind, String),
}

/// The planner over what the bot knows. See the module docs.
pub struct RecipePlanner<'a, K: Knowledge> {
    data: &'a GameData,
    vocab: &'a Vocabulary,
    k: &'a K,
    cfg: PlannerConfig,
    cost: CostPlanner<'a, K>,
    memo: BTreeMap<ItemId, StepId>,
    stations: BTreeMap<ItemId, StepId>,
    stack: Vec<ItemId>,
    statics: Statics<'a>,
    likes: Likes,
    added: usize,
    origin: Origin,
}

impl<'a, K: Knowledge> RecipePlanner<'a, K> {
    /// A planner; nodes it adds are marked with `origin`.
    pub fn new(data: &'a GameData, vocab: &'a Vocabulary, k: &'a K, cfg: PlannerConfig, origin: Origin) -> Self {
        let cost = CostPlanner::new(k, cfg.budget);
        RecipePlanner {
            data,
            vocab,
            k,
            cfg,
            cost,
            memo: BTreeMap::new(),
            stations: BTreeMap::new(),
            stack: Vec::new(),
            statics: Statics::new(data, vocab),
            likes: Likes::default(),
            added: 0,
            origin,
        }
    }

    /// The person's taste: the ways it likes come before dearer ones.
    #[must_use]
    pub fn with_likes(mut self, likes: Likes) -> Self {
        self.likes = likes;
        self
    }

    /// Nodes added so far.
    pub fn added(&self) -> usize {
        self.added
    }

    /// Adds the sub-graph of a goal to `plan`, unlinked; returns its top node.
    pub fn plan_goal(&mut self, plan: &mut Plan, goal: &Goal) -> StepId {
        let _span = tracing::debug_span!("plan_goal").entered();
        match *goal {
            Goal::Obtain { item, count } => self.obtain(plan, item, count.get()),
            Goal::Fetch { item, from } => {
                self.node(plan, Kind::Leaf(Leaf::Fetch { item, from: Some(from) }), goal.describe(self.data))
            }
            Goal::Build => {
                let label = self.cfg.share_label.clone();
                self.node(plan, Kind::Leaf(Leaf::Share), label)
            }
        }
    }

    fn node(&mut self, plan: &mut Plan, kind: Kind, label: String) -> StepId {
        self.added = self.added.saturating_add(1);
        plan.add_step(kind, label, self.origin)
    }

    fn name(&self, item: ItemId) -> String {
        item_words(self.data, item)
    }

    /// The `obtain` OR of an item (shared within this planner's goals).
    fn obtain(&mut self, plan: &mut Plan, item: ItemId, count: u32) -> StepId {
        if let Some(&n) = self.memo.get(&item) {
            return n;
        }
        let label = format!("obtain {count} {}", self.name(item));
        let or = self.node(plan, Kind::Obtain { item, count }, label);
        if self.stack.len() >= self.cfg.max_depth {
            // Cut off by depth: not shared, a shallower parent expands its own.
            return or;
        }
        self.memo.insert(item, or);
        self.stack.push(item);
        for alt in self.alternatives(item, count) {
            let child = self.alternative(plan, item, count, alt);
            plan.link(or, child);
        }
        self.stack.pop();
        or
    }

    /// The alternatives for `count` of `item`, in the crew's order ([`ranked`]) with the
    /// partner's judgement: a take needs a known store; a craft or a smelt whose input is
    /// being expanded above is dropped (no cycles), as is one the knowledge-free
    /// estimate cannot price; an unpriced mine needs a natural block; unpriced ways cost
    /// that estimate; the ways the person likes go before dearer ones, and the
    /// vocabulary's preferred items break ties.
    fn alternatives(&mut self, item: ItemId, count: u32) -> Vec<Alternative> {
        let (data, vocab, stack, statics, likes) = (self.data, self.vocab, &self.stack, &mut self.statics, &self.likes);
        let per = |unit: u64| unit.saturating_mul(u64::from(count));
        // The person's taste: the item itself, or what this way makes it from.
        let liked = |from: usize| likes.rank(data, vocab, item).min(from);
        let rank = |priced: Option<u64>, estimate: u64, liked, preference| Rank {
            unpriced: priced.is_none(),
            liked,
            cost: priced.unwrap_or(estimate),
            preference,
        };
        ranked(self.k, &mut self.cost, item, count, self.cfg.max_alternatives, |q| match q.way() {
            Way::Take => {
                q.store()?;
                Some(rank(q.price(), 0, liked(usize::MAX), 0))
            }
            Way::Craft(rid) => {
                let r = data.recipe(rid);
                if r.ingredients.iter().any(|(ing, _)| *ing == item || stack.contains(ing)) {
                    return None;
                }
                let pref = r.ingredients.iter().map(|(ing, _)| vocab.preference(*ing)).min().unwrap_or(usize::MAX);
                let made_of = r.ingredients.iter().map(|(ing, _)| likes.rank(data, vocab, *ing)).min();
                let unit = statics.recipe(rid);
                if unit >= UNKNOWN {
                    return None;
                }
                Some(rank(q.price(), per(unit), liked(made_of.unwrap_or(usize::MAX)), pref))
            }
            Way::Mine(b) => {
                let priced = q.price();
                if priced.is_none() && !vocab.natural(b) {
                    return None;
                }
                let unit = statics.tool(b).saturating_add(40);
                Some(rank(priced, per(unit), liked(likes.rank_name(data.block_name(b))), vocab.preference(item)))
            }
            Way::Smelt(s) => {
                if stack.contains(&s.input) {
                    return None;
                }
                let unit = statics.cost(s.input, 0).saturating_add(u64::from(s.ticks));
                if unit >= UNKNOWN {
                    return None;
                }
                Some(rank(q.price(), per(unit), liked(likes.rank(data, vocab, s.input)), vocab.preference(s.input)))
            }
        })
    }

    fn alternative(&mut self, plan: &mut Plan, item: ItemId, count: u32, alt: Alternative) -> StepId {
        let name = self.name(item);
        match alt.way {
            // `alternatives` keeps a take only with a known store.
            Way::Take => {
                let p = alt.from.unwrap_or_else(|| self.k.here());
                let label = format!("take {name} from storage at ({}, {}, {})", p.x, p.y, p.z);
                self.node(plan, Kind::Leaf(Leaf::Fetch { item, from: Some(p) }), label)
            }
            Way::Craft(rid) => {
                let r = self.data.recipe(rid).clone();
                let times = count.div_ceil(r.count.max(1));
                let ings: Vec<String> = r.ingredients.iter().map(|(i, _)| self.name(*i)).collect();
                let and = self.node(plan, Kind::AllOf, format!("craft {name} from {}", ings.join(" and ")));
                let extras = Extras { table: self.k.table_item(), ..Extras::default() };
                let craft = Work::New(
                    Kind::Leaf(Leaf::Craft { recipe: rid }),
                    format!("craft {} {name}", r.count.saturating_mul(times)),
                );
                self.lay_out(plan, and, Way::Craft(rid).parts(self.data, item, count, extras, |_| 0), &craft);
                and
            }
            Way::Mine(block) => {
                let leaf_label = format!("collect {count} {name}");
                let leaf = self.node(plan, Kind::Leaf(Leaf::Collect { item, block }), leaf_label);
                let Some(tool) = tool_for(self.data, block) else {
                    return leaf;
                };
                let block_name = self.data.block_name(block).replace('_', " ");
                let and = self.node(plan, Kind::AllOf, format!("mine {block_name} with a {}", self.name(tool)));
                // The tool needs this very item: only a held tool will do.
                let extras = Extras { tool: (!self.stack.contains(&tool)).then_some(tool), ..Extras::default() };
                self.lay_out(
                    plan,
                    and,
                    Way::Mine(block).parts(self.data, item, count, extras, |_| 0),
                    &Work::Made(leaf),
                );
                and
            }
            Way::Smelt(s) => {
                let fuel = alt.fuel;
                let input = self.name(s.input);
                let and = self.node(plan, Kind::AllOf, format!("smelt {input} into {name}"));
                let smelt = Work::New(
                    Kind::Leaf(Leaf::Smelt { input: s.input, output: item }),
                    format!("smelt {count} {input}"),
                );
                let (data, furnace) = (self.data, self.k.furnace_item());
                let parts =
                    |fuel| Way::Smelt(s).parts(data, item, count, Extras { furnace, fuel, ..Extras::default() }, |_| 0);
                // The input first: a fuel none was priced for is chosen after the input's
                // sub-plan, over the knowledge-free estimates that planning memoised.
                let first = parts(fuel);
                self.lay_out(plan, and, first.into_iter().take(1), &smelt);
                let fuel = fuel.or_else(|| self.statics.default_fuel(s.input, &self.stack));
                self.lay_out(plan, and, parts(fuel).into_iter().skip(1), &smelt);
                and
            }
        }
    }

    /// Links an alternative's parts (crew's layout of it) under its ALL-OF, in order:
    /// an `obtain` shared with this planner's other goals, a station OR, the work leaf.
    fn lay_out(&mut self, plan: &mut Plan, and: StepId, parts: impl IntoIterator<Item = Part>, work: &Work) {
        for part in parts {
            let child = match part {
                Part::Obtain { item, count } => self.obtain(plan, item, count),
                Part::Station { item } => self.station(plan, item),
                Part::Work(_) => match work {
                    Work::Made(leaf) => *leaf,
                    Work::New(kind, label) => self.node(plan, *kind, label.clone()),
                },
            };
            plan.link(and, child);
        }
    }

    /// The station OR: go to a known one, or make and place one.
    fn station(&mut self, plan: &mut Plan, item: ItemId) -> StepId {
        if let Some(&n) = self.stations.get(&item) {
            return n;
        }
        let name = self.name(item);
        let or = self.node(plan, Kind::Station { item }, format!("have a {name} in reach"));
        self.stations.insert(item, or);
        let known = if Some(item) == self.k.table_item() { self.k.table() } else { self.k.furnace() };
        let go = self.node(plan, Kind::Leaf(Leaf::UseStation { item }), format!("go to a {name}"));
        let make = self.node(plan, Kind::AllOf, format!("make and place a {name}"));
        if !self.stack.contains(&item) {
            let o = self.obtain(plan, item, 1);
            plan.link(make, o);
        }
        let place = self.node(plan, Kind::Leaf(Leaf::PlaceStation { item }), format!("place a {name}"));
        plan.link(make, place);
        let order = if known.is_some() { [go, make] } else { [make, go] };
        for c in order {
            plan.link(or, c);
        }
        or
    }
}
