//! Running the gate on a detected issue: gather the facts behind the five features
//! from the agent's own state, decide, and act on the decision.

use gatecrew_gating::features::{
    AdvantageFacts, CriticalityFacts, ImpactFacts, RecoverabilityFacts, advantage, criticality, impact, recoverability,
};
use gatecrew_gating::{Features, GateDecision, GateQuery, Issue, RuleContext, Stage};
use gatecrew_protocol::trace::{Decision, GateAction};
use gatecrew_protocol::{IssueId, ItemId};
use std::cell::RefCell;

use gatecrew_world::cost::{self, Knowledge, Planner};
use gatecrew_world::reach_distance;

use super::build::place_of;
use super::memory::Known;
use super::{AgentCore, Blocker, Evaluation, GateNote, Note, OracleQuery, Retry, StepOutput};
use crate::plan::{DescFacts, GateView, NodeId, NodeState};

/// Buffers a gate decision reuses, so that once they have grown a decision allocates
/// nothing (`tests/gate_alloc.rs` checks it with a counting allocator). They hold no
/// state between decisions: every decision clears what it uses, and a clone of the
/// agent starts with empty ones.
#[derive(Default)]
pub(super) struct Scratch(RefCell<Buffers>);

#[derive(Default)]
struct Buffers {
    /// The walk of the blocked node's descendants that debug builds check the plan's
    /// kept counts against, and the walk's bitset.
    desc: Vec<NodeId>,
    seen: Vec<u64>,
    planner: cost::Scratch,
}

impl Clone for Scratch {
    fn clone(&self) -> Self {
        Scratch::default()
    }
}

impl std::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Scratch")
    }
}

/// [`Known`] with the reserved counts read from the plan's tally
/// ([`TaskGraph::open_places`](crate::plan::TaskGraph::open_places)) instead of its
/// map: the same answers, no map built and no walk per decision.
struct Counted<'a> {
    k: Known<'a>,
    plan: &'a crate::plan::TaskGraph,
    /// The item being obtained: never reserved.
    target: ItemId,
}

impl Knowledge for Counted<'_> {
    fn data(&self) -> &gatecrew_world::data::GameData {
        self.k.data()
    }
    fn here(&self) -> gatecrew_protocol::Pos {
        self.k.here()
    }
    fn held(&self, item: ItemId) -> u32 {
        let reserved = if item == self.target { 0 } else { self.plan.open_places(item) };
        self.k.inv.count(item).saturating_sub(reserved)
    }
    fn stored(&self, item: ItemId) -> Vec<(gatecrew_protocol::Pos, u32)> {
        self.k.stored(item)
    }
    fn stored_into(&self, item: ItemId, out: &mut Vec<(gatecrew_protocol::Pos, u32)>) {
        self.k.stored_into(item, out);
    }
    fn nearest_resource(&self, block: gatecrew_world::BlockId) -> Option<gatecrew_protocol::Pos> {
        self.k.nearest_resource(block)
    }
    fn table(&self) -> Option<gatecrew_protocol::Pos> {
        self.k.table()
    }
    fn furnace(&self) -> Option<gatecrew_protocol::Pos> {
        self.k.furnace()
    }
    fn table_item(&self) -> Option<ItemId> {
        self.k.table_item()
    }
    fn furnace_item(&self) -> Option<ItemId> {
        self.k.furnace_item()
    }
    fn reach(&self) -> f64 {
        self.k.reach()
    }
    fn ticks(&self) -> gatecrew_world::TickCosts {
        self.k.ticks()
    }
}

impl AgentCore {
    pub(super) fn known(&self) -> Known<'_> {
        self.known_for(None)
    }

    /// The planner's view when obtaining `target`: what the crew's blueprint still
    /// places (every other item of every unfinished place node, the agent's own and,
    /// as far as it knows, its teammates') is reserved for that, so a local recovery
    /// never eats the structure's materials. Crafting stairs from the planks a teammate
    /// needs for the floor would only move the shortage.
    pub(super) fn known_for(&self, target: Option<ItemId>) -> Known<'_> {
        Known {
            data: &self.ctx.data,
            mem: &self.knowledge.mem,
            inv: &self.inv,
            pos: self.pos,
            physics: &self.ctx.physics,
            reserved: self.reserved_map(target),
        }
    }

    /// What [`AgentCore::known_for`] reserves, by item.
    pub(super) fn reserved_map(&self, target: Option<ItemId>) -> std::collections::BTreeMap<ItemId, u32> {
        self.work.plan.open_places_by_item().filter(|(i, _)| Some(*i) != target).collect()
    }

    /// Whether the agent could start another node right now: its own, pending, not
    /// waiting behind a blocker, with its supports in place and its item held, and not
    /// depending on `n` (`desc`: what rests on `n`). Asked item by item of what it
    /// holds (a few), not node by node of its share.
    fn other_work(&self, n: Option<NodeId>, desc: &GateView<'_>, item: Option<ItemId>) -> bool {
        let found = self.inv.iter().any(|(i, count)| {
            count > 0
                && Some(i) != item
                && !self.waits_for_request(i)
                && !self.parked_item(i)
                && !self.blocker.blocks.contains_key(&Blocker::Item(i))
                && desc.places_of(i).iter().any(|&m| self.could_start(m, n, desc))
        });
        debug_assert_eq!(found, self.other_work_by_node(n, desc, item), "by item as by node");
        found
    }

    /// Whether own place node `m` could start, its item aside.
    fn could_start(&self, m: NodeId, n: Option<NodeId>, desc: &GateView<'_>) -> bool {
        let plan = &self.work.plan;
        Some(m) != n
            && plan.state(m) == NodeState::Pending
            && !desc.contains(m)
            && !self.blocker.blocks.contains_key(&Blocker::Node(m))
            && plan.requires_iter(m).all(|s| place_of(plan.kind(s).0).is_none() || plan.state(s) == NodeState::Done)
    }

    /// [`AgentCore::other_work`] node by node of the share: what debug builds check it
    /// against.
    fn other_work_by_node(&self, n: Option<NodeId>, desc: &GateView<'_>, item: Option<ItemId>) -> bool {
        self.work.own_unordered(self.id).any(|m| {
            let Some((_, _, i)) = place_of(self.work.plan.kind(m).0) else {
                return false;
            };
            Some(i) != item
                && self.inv.count(i) > 0
                && !self.waits_for_request(i)
                && !self.parked_item(i)
                && !self.blocker.blocks.contains_key(&Blocker::Item(i))
                && self.could_start(m, n, desc)
        })
    }

    fn criticality_facts(&self, n: Option<NodeId>, facts: &DescFacts) -> CriticalityFacts {
        let Some(n) = n else {
            return CriticalityFacts::default();
        };
        let reach = self.work.plan.reach_from(n, facts);
        CriticalityFacts {
            dependents: reach.dependents as usize,
            depth: reach.depth as usize,
            teammate_dependents: reach.teammate_dependents,
            blocks_all_own_work: facts.all_behind,
        }
    }

    /// `mates`: the teammates' place nodes left, and those waiting on the node (from
    /// the plan's [`DescFacts`]).
    fn impact_facts(&self, mates: (usize, usize), other_work: bool, recovery_ticks: Option<u64>) -> ImpactFacts {
        let (mates_left, mates_waiting) = mates;
        ImpactFacts {
            every_agent_waits: mates_left > 0 && mates_waiting == mates_left,
            teammate_waits: mates_waiting > 0,
            other_work,
            recovery_ticks,
        }
    }

    fn advantage_facts(&self, item: Option<ItemId>) -> AdvantageFacts {
        let dist = |p: gatecrew_protocol::Pos| self.pos.dist(p);
        let visible = self.knowledge.mem.visible();
        let nearest_teammate = visible.iter().map(|(_, p)| dist(*p)).min_by(f64::total_cmp);
        let (all_refused, nearest_offerer) = match item {
            None => (false, None),
            Some(item) => {
                let all = self.knowledge.all_refused(item, self.ctx.crew.len(), self.teammates());
                let offerers = self.knowledge.offered.get(&item);
                let near = visible
                    .iter()
                    .filter(|(a, _)| offerers.is_some_and(|o| o.contains(a)))
                    .map(|(_, p)| dist(*p))
                    .min_by(f64::total_cmp);
                (all, near)
            }
        };
        AdvantageFacts { nearest_teammate, all_refused, nearest_offerer }
    }

    fn recoverability_with(&self, item: ItemId, want: u32, planner: &mut cost::Scratch) -> RecoverabilityFacts {
        // An empty map allocates nothing: the counts stand in for it.
        let known = Known {
            data: &self.ctx.data,
            mem: &self.knowledge.mem,
            inv: &self.inv,
            pos: self.pos,
            physics: &self.ctx.physics,
            reserved: std::collections::BTreeMap::new(),
        };
        let k = Counted { k: known, plan: &self.work.plan, target: item };
        let deficit = want.saturating_sub(self.inv.count(item));
        // The stores are listed in the planner's spare buffer, lent and given back.
        let mut stores = Vec::new();
        k.stored_into(item, planner.lend_stores(&mut stores));
        let in_reach =
            stores.iter().any(|(p, n)| *n >= deficit.max(1) && reach_distance(self.pos, *p) <= self.ctx.physics.reach);
        planner.give_back_stores(stores);
        let table_near = k.table().is_some_and(|t| reach_distance(self.pos, t) <= self.ctx.physics.reach);
        let one_craft = self.ctx.data.recipes_for(item).iter().any(|&rid| {
            let r = self.ctx.data.recipe(rid);
            let times = deficit.max(1).div_ceil(r.count);
            (r.grid == 2 || table_near) && r.ingredients.iter().all(|(i, n)| k.held(*i) >= n * times)
        });
        let chain_ticks = Planner::with_scratch(&k, self.gate.params().spec().search_ticks, planner)
            .obtain(item, want)
            .map(|e| e.ticks);
        RecoverabilityFacts { in_reach, one_craft, chain_ticks }
    }

    /// Runs the gate on an issue just detected, records the decision and acts on it (or,
    /// in the gray zone with an external adjudicator, parks the issue for its verdict).
    /// A model-driven bot proposes first: to stay local is its own decision; a
    /// proposal to ask goes through the gate like any scripted issue.
    pub(super) fn run_gate(&mut self, id: IssueId, issue: Issue, node: Option<NodeId>, out: &mut StepOutput) {
        if let Some(super::model::Proposal::Local(action)) = self.model_issue(id, issue, out) {
            self.record_own_decision(id, issue, node, action, out);
            self.act_on(id, issue, node, Decision::StayLocal, action, out);
            return;
        }
        if let Some((decision, action)) = self.assess(id, issue, node, out) {
            self.act_on(id, issue, node, decision, action, out);
        }
    }

    /// Computes the features and the gate's decision, and records them. `None`: the
    /// issue is in the gray zone and was put to the external adjudicator; the decision
    /// comes with its verdict.
    pub(super) fn assess(
        &mut self,
        id: IssueId,
        issue: Issue,
        node: Option<NodeId>,
        out: &mut StepOutput,
    ) -> Option<(Decision, GateAction)> {
        let (_, q, oracle) = self.query(issue, node);
        let decision = match self.gate.assess(q) {
            Stage::Decided(d) => d,
            Stage::Gray { score } if self.ctx.consult => {
                self.park(id, issue, node, q, score, oracle, out);
                return None;
            }
            Stage::Gray { score } => self.settle_deterministic(q, score),
        };
        self.record_gate(id, decision, q, oracle, out);
        Some((decision.decision, decision.action))
    }

    /// Logs, counts and records a gate decision.
    pub(super) fn record_gate(
        &mut self,
        id: IssueId,
        decision: GateDecision,
        q: GateQuery,
        oracle: OracleQuery,
        out: &mut StepOutput,
    ) {
        let (features, ctx) = (q.features, q.ctx);
        tracing::debug!(agent = %self.id, issue = %id, tier = ?decision.tier, decision = ?decision.decision, "gate");
        metrics::counter!("gatecrew_gate_decisions_total", "decision" => match decision.decision {
            Decision::Escalate => "escalate",
            Decision::StayLocal => "stay_local",
        })
        .increment(1);
        out.notes.push(Note::Gate(GateNote { issue_id: id, decision, features, ctx, oracle }));
    }

    fn settle_deterministic(&self, q: GateQuery, score: f64) -> GateDecision {
        let v = self.gate.deterministic().verdict(q.features.r.get(), score);
        self.gate.settle(q, score, v.decision)
    }

    /// What the gate decides about `issue` on `node` now, without acting on it: the
    /// features from the agent's own state, tiers 1 and 2, and the deterministic
    /// adjudicator for the gray zone. Also says what the oracle should be asked.
    pub fn evaluate(&self, issue: Issue, node: Option<NodeId>) -> Evaluation {
        let (features, q, oracle) = self.query(issue, node);
        let decision = match self.gate.assess(q) {
            Stage::Decided(d) => d,
            Stage::Gray { score } => self.settle_deterministic(q, score),
        };
        Evaluation { features, ctx: q.ctx, decision, oracle }
    }

    /// The features and rule context of an issue, and the oracle's question.
    fn query(&self, issue: Issue, node: Option<NodeId>) -> (Features, GateQuery, OracleQuery) {
        let mut guard = self.gate_scratch.0.borrow_mut();
        let Buffers { desc: list, seen, planner } = &mut *guard;
        let requested = issue.requestable();
        let item = requested.map(|(i, _)| i);
        // A missing item blocks every node that needs it: the node the graph says is
        // blocked is this agent's `obtain` node for the item, whose dependents are all
        // those place nodes and what rests on them.
        let node = match issue {
            Issue::MissingMaterial { item, .. } => self.work.plan.obtain_node(self.id, item).or(node),
            Issue::MissingTool { .. } => {
                self.blocker.recovery.as_ref().and_then(|r| self.work.plan.obtain_node(self.id, r.item)).or(node)
            }
            _ => node,
        };
        // What rests on the node, kept by the plan as it changes: the three features and
        // the rule context that look at it read counts, not a walk.
        let (facts, other_work) =
            self.work.plan.gate_view(node, self.id, |v| (v.facts(), self.other_work(node, v, item)));
        debug_assert_eq!(
            facts,
            self.work.plan.walked_facts(node, self.id, list, seen),
            "the kept counts are the walk's"
        );
        let mates_waiting = facts.mates_waiting as usize;
        let mates_left = (self.work.plan.places_not_done() as usize).saturating_sub(facts.own_left as usize);
        let (r_facts, recovery_ticks, oracle) = match (issue, requested) {
            (_, Some((item, n))) => {
                let want = self.inv.count(item) + n;
                let facts = self.recoverability_with(item, want, planner);
                (facts, facts.chain_ticks, OracleQuery::Items(item, want))
            }
            // Out of reach: the local recovery is a pillar, priced by what it takes to
            // put up and take down.
            (Issue::Unreachable { pos }, None) => {
                let ticks = self.pillar_ticks(pos);
                (RecoverabilityFacts { chain_ticks: ticks, ..Default::default() }, ticks, OracleQuery::Retry)
            }
            (Issue::ActionFailed { .. }, None) => (
                RecoverabilityFacts { chain_ticks: Some(self.ctx.tuning.poll_ticks), ..Default::default() },
                Some(self.ctx.tuning.poll_ticks),
                OracleQuery::Retry,
            ),
            _ => (RecoverabilityFacts::default(), None, OracleQuery::NeedsTeammate),
        };
        let detour = self.gate.params().spec().detour_ticks;
        let features = Features {
            c: criticality(self.criticality_facts(node, &facts)),
            a: advantage(self.advantage_facts(item)),
            d: impact(self.impact_facts((mates_left, mates_waiting), other_work, recovery_ticks), detour),
            r: recoverability(r_facts),
            h: self.history.gate.level(issue.key(), self.now),
        };
        let ctx = RuleContext {
            requestable: requested.is_some() && self.ctx.crew.len() > 1,
            teammate_reachable: self.knowledge.may_help(self.teammates()),
            other_work,
        };
        (features, GateQuery { features, ctx }, oracle)
    }

    pub(super) fn act_on(
        &mut self,
        id: IssueId,
        issue: Issue,
        node: Option<NodeId>,
        decision: Decision,
        action: GateAction,
        out: &mut StepOutput,
    ) {
        let blocker = match issue.requestable() {
            Some((item, _)) => Blocker::Item(item),
            None => Blocker::Node(node.unwrap_or_default()),
        };
        if self.ctx.style.channel_takes(decision) && self.hand_to_channel(id, issue, out) {
            return;
        }
        if issue.requestable().is_none() {
            self.chat_status(out);
        }
        match (decision, action, issue.requestable()) {
            (Decision::Escalate, _, Some(_)) => self.escalate(id, issue, out),
            (_, GateAction::LocalRecover, Some((item, n))) => {
                self.start_recovery(item, self.inv.count(item) + n, id, self.gate.params().spec().search_ticks);
            }
            (_, GateAction::LocalSkip, Some(_))
            | (Decision::Escalate, _, None)
            | (_, GateAction::RequestMaterial, _) => {
                let why = match issue.requestable() {
                    Some((item, _)) => {
                        format!("no local source of {} known", self.ctx.data.item_name(item))
                    }
                    None => "set aside".into(),
                };
                self.hold(blocker, Retry::WhenIdle, why);
            }
            (_, _, None) => {
                // Node issues wait a short while and are tried again (a teammate may move,
                // a support may appear); `build` records why.
            }
        }
    }
}
