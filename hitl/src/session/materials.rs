//! The blocks a build's parts need that the bot does not hold: each part short of a
//! block gets the obtaining of it as its first steps, planned by the same recipe
//! planner as an item goal ("get 2 glass": take it from a known chest, craft it, mine
//! it, smelt it), instead of failing the part when its first cell has no block.
//!
//! It is planned at the bot's first wake-up after the build is planned, when the bot
//! has looked around (what it sees prices the alternatives); a bot holding every block
//! gets no such step, so its plan is the build alone. Parts are walked in building
//! order and what is held is promised to the earlier parts first. The executor asks
//! each obtain step for what its part still has to place, so a part reordered or
//! resumed later obtains what it lacks then.

use gatecrew_protocol::trace::{PlanOp, SayKind};
use std::collections::BTreeMap;

use gatecrew_protocol::{Count, ItemId, MAX_COUNT};

use super::Partner;
use crate::goal::Goal;
use crate::plan::ops::Update;
use crate::plan::{Group, Kind, Leaf, StepId};
use crate::recipe::RecipePlanner;
use crate::words::item_words;

impl Partner {
    /// Adds the obtaining of missing blocks to the parts of `build`; says what it adds.
    pub(super) fn plan_materials(&mut self, build: StepId) {
        if !self.plan.contains(build) || self.plan.group(build) != Some(Group::Build) {
            return;
        }
        let before = self.plan.len();
        let mut left: BTreeMap<ItemId, u32> = BTreeMap::new();
        let mut short_all: BTreeMap<ItemId, u32> = BTreeMap::new();
        for part in self.plan.children(build) {
            let mut need: BTreeMap<ItemId, u32> = BTreeMap::new();
            for c in self.plan.children(part) {
                if let Kind::Leaf(Leaf::Place(f)) = self.plan.step(c).kind {
                    if self.plan.step(c).state != crate::plan::State::Done {
                        *need.entry(f.item).or_default() += 1;
                    }
                }
            }
            let mut at = 0;
            for (item, n) in need {
                let held = left.entry(item).or_insert_with(|| self.inv.count(item));
                let short = n.saturating_sub(*held);
                *held = held.saturating_sub(n);
                // A part larger than one bot carries: the label says the most; the
                // executor asks for what the part still needs whenever it runs.
                let Ok(count) = Count::new(i64::from(short.min(MAX_COUNT))) else { continue };
                *short_all.entry(item).or_default() += short;
                let origin = self.plan.step(part).origin;
                let view = self.know.view(&self.inv, self.pos);
                let mut planner = RecipePlanner::new(&self.data, &self.vocab, &view, self.cfg.planner.clone(), origin)
                    .with_likes(self.taste());
                let o = planner.plan_goal(&mut self.plan, &Goal::Obtain { item, count });
                self.plan.link_at(part, o, at);
                at += 1;
            }
        }
        if short_all.is_empty() {
            return;
        }
        let up = Update { added: self.plan.len() - before, ..Update::default() };
        self.note_plan(PlanOp::Materials, &up, &[]);
        let list: Vec<String> = short_all.iter().map(|(i, n)| format!("{n} {}", item_words(&self.data, *i))).collect();
        let p = self.plan.preview();
        self.say(SayKind::Preview, format!("I lack {} for my build: I will get them first. {p}", list.join(", ")));
    }
}
