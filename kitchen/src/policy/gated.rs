//! Our crew in the kitchen: private state, the real gate, the real board.
//!
//! # Kitchen issues as gate features
//!
//! An agent detects an issue when its own plan hits one (DESIGN section 4: never every
//! step): the order it owns cannot be finished in time by its own hands (the last
//! ingredient or intermediate it would fetch is the one to hand off: a
//! `missing_material`), or every tool of the kind it needs is occupied or filled by a
//! teammate (an `action_failed` of a put: no message can supply a tool, so tier 1's
//! `no_message` keeps it local, and the agent waits). The features, by the decision
//! tables of [`gatecrew_gating::features`]:
//!
//! * **C**: dependents = recipe levels from the item up to the dish, plus the order;
//!   the order is all the agent's work (`blocks_all_own_work`); no teammate's order
//!   depends on it. So C is 1 or 2, 0 never.
//! * **A**: every location is one `goto` away, so every teammate is "within 32 blocks";
//!   one standing at the agent's location is "within 4". A teammate holding the item
//!   is the visible counterpart of one that offered it earlier (within 16 blocks,
//!   within 4 when it stands here). Refusals come in through H.
//! * **D**: nobody else waits on it; under a deadline the order's other work does not
//!   save the order, so there is no other work; the recovery is the item's solo steps,
//!   a detour up to [`DETOUR_STEPS`]: D is 1 for a raw ingredient, 2 for an intermediate.
//! * **R**: the search radius is the order's lifetime left: 3 if the item lies where the
//!   agent stands, 0 if its own route misses the deadline (that is the issue), 1 otherwise.
//! * **H**: the agent's [`gatecrew_gating::History`] for the item: `CANNOT_SUPPLY` starts
//!   a cooldown of [`super::crew::COOLDOWN_STEPS`], a time-out counts as zero yield.
//!
//! With these, a deadline issue with no local way escalates by tier 1's
//! `no_local_option` unless the item is in reach or asking failed before; the rest goes
//! through tier 2 and the deterministic adjudicator, as in the construction world.
//! Escalations are `REQUEST_MATERIAL` on a [`Board`]; a teammate with spare time (its
//! own order's slack covers the item's steps, or it has no order) offers and puts the
//! item into the requester's tool (`Handover::DropAt` the tool's position); the
//! requester confirms when the item is inside.

use std::collections::BTreeMap;
use std::sync::Arc;

use gatecrew_gating::features::{
    AdvantageFacts, CriticalityFacts, ImpactFacts, RecoverabilityFacts, advantage, criticality, impact, recoverability,
};
use gatecrew_gating::{
    Adjudicator, DecisionCard, Features, Gate, GateParams, GatePolicy, GateQuery, RuleContext, Stage,
};
use gatecrew_protocol::trace::{Decision, IssueName, Tier};
use gatecrew_protocol::{
    AgentId, Board, BoardConfig, BoardMessage, CloseOutcome, Count, Handover, Pos, Recipient, RefusalReason,
    RequestReason, Tick, WindowId,
};

use super::crew::{Ask, Case, Channel, Crew, Judge, TicketState};
use super::{Counters, Line, LineText};
use crate::world::{LocationId, World};

/// A short detour in kitchen steps: one storage round trip (goto, get, goto, put).
pub const DETOUR_STEPS: u64 = 4;
/// Steps a teammate has to answer a request: every agent decides every step, so one
/// step suffices; two leave room for the requester's own turn order.
pub const WINDOW_STEPS: u64 = 2;
/// Steps an accepted offer has to arrive: the shared file's order lifetime (10); no
/// hand-over is worth waiting for beyond an order's life.
pub const HANDOVER_STEPS: u64 = 10;
/// "Within 32 blocks" and "within 4" of the construction gate, for a kitchen where
/// every location is one `goto` away: another location counts 8 blocks, the same 0.
const ONE_GOTO: f64 = 8.0;

/// The gated crew for `world`'s kitchen, with the gate's default parameters.
pub(crate) fn crew(world: &World, agents: usize) -> Crew<BoardChannel, GateJudge> {
    crew_with(world, agents, GateParams::default())
}

/// The gated crew with the gate's parameters set (a calibrated gate).
pub(crate) fn crew_with(world: &World, agents: usize, params: GateParams) -> Crew<BoardChannel, GateJudge> {
    let roster = (0..agents as u32).map(AgentId);
    let config = BoardConfig { window_ticks: WINDOW_STEPS, handover_ticks: HANDOVER_STEPS, ..BoardConfig::default() };
    let board = Board::new(roster, Arc::clone(world.book().items()), config);
    let channel = BoardChannel { board, read: vec![0; agents], dest: BTreeMap::new(), drained: 0 };
    let gate = Gate::new(params, GatePolicy::Gated);
    Crew::new(agents, channel, GateJudge { gate }, false)
}

/// The gate, deciding kitchen issues.
pub(crate) struct GateJudge {
    gate: Gate,
}

impl Judge for GateJudge {
    fn escalate(&mut self, c: &Case, counters: &mut Counters) -> bool {
        let near = |here: bool| Some(if here { 0.0 } else { ONE_GOTO });
        let features = Features {
            c: criticality(CriticalityFacts {
                dependents: c.dependents,
                depth: c.dependents,
                teammate_dependents: false,
                blocks_all_own_work: true,
            }),
            a: advantage(AdvantageFacts {
                nearest_teammate: if c.teammates { near(c.teammate_here) } else { None },
                all_refused: false,
                nearest_offerer: c.holder_here.and_then(near),
            }),
            d: impact(
                ImpactFacts {
                    every_agent_waits: false,
                    teammate_waits: false,
                    other_work: c.other_work,
                    recovery_ticks: Some(u64::from(c.item_steps)),
                },
                DETOUR_STEPS,
            ),
            r: recoverability(RecoverabilityFacts {
                in_reach: c.in_reach,
                one_craft: false,
                chain_ticks: c.in_time.then_some(u64::from(c.item_steps)),
            }),
            h: gatecrew_gating::Level::new(c.h).unwrap_or(gatecrew_gating::Level::L3),
        };
        let ctx = RuleContext { requestable: c.requestable, teammate_reachable: c.teammates, other_work: c.other_work };
        let q = GateQuery { features, ctx };
        counters.gate_decisions += 1;
        let decision = match self.gate.assess(q) {
            Stage::Decided(d) => {
                match d.tier {
                    Tier::Rules => counters.tier1 += 1,
                    _ => counters.tier2 += 1,
                }
                d.decision
            }
            Stage::Gray { score } => {
                counters.tier3 += 1;
                let card = DecisionCard::new(IssueName::MissingMaterial, None, Some(1), features, score);
                let verdict = self.gate.deterministic().adjudicate(&card, score).verdict.decision;
                self.gate.settle(q, score, verdict).decision
            }
        };
        tracing::debug!(item = c.item.0, ?features, ?decision, "kitchen gate");
        decision == Decision::Escalate
    }
}

/// Requests as protocol messages on the board.
pub(crate) struct BoardChannel {
    board: Board,
    read: Vec<usize>,
    /// Each window's work region: the tool the requester cooks in (visible in the
    /// kitchen anyway), where the offered item is put.
    dest: BTreeMap<WindowId, LocationId>,
    /// Board messages already handed out as lines.
    drained: usize,
}

impl BoardChannel {
    fn post(&mut self, me: usize, msg: BoardMessage, now: u32) -> bool {
        match self.board.post(AgentId(me as u32), msg, Tick(u64::from(now))) {
            Ok(_) => true,
            Err(e) => {
                tracing::debug!(error = %e, "board refused");
                false
            }
        }
    }
}

/// A location's position on the board: its index along the pass.
fn pos(l: LocationId) -> Pos {
    Pos { x: i32::from(l.0), y: 0, z: 0 }
}

impl Channel for BoardChannel {
    fn ask(&mut self, w: &World, me: usize, item: gatecrew_protocol::ItemId, to: LocationId) -> Option<u32> {
        let msg = BoardMessage::RequestMaterial {
            from: AgentId(me as u32),
            to: Recipient::All,
            item,
            count: Count::new(1).ok()?,
            reason: RequestReason::MissingMaterial,
        };
        let receipt = self.board.post(AgentId(me as u32), msg, Tick(u64::from(w.time()))).ok()?;
        self.dest.insert(receipt.posted.window, to);
        Some(receipt.posted.window.0)
    }

    fn inbox(&mut self, me: usize) -> Vec<Ask> {
        let log = self.board.log();
        let start = self.read[me].min(log.len());
        self.read[me] = log.len();
        log[start..]
            .iter()
            .filter_map(|p| match p.msg {
                BoardMessage::RequestMaterial { from, to, item, .. }
                    if from.index() != me && to.includes(AgentId(me as u32)) =>
                {
                    let open = self.board.window(p.window).is_some_and(|w| w.is_open());
                    let dest = self.dest.get(&p.window).copied()?;
                    open.then_some(Ask { ticket: p.window.0, from: from.index(), item, to: dest })
                }
                _ => None,
            })
            .collect()
    }

    fn answer(&mut self, me: usize, ask: &Ask, yes: bool, now: u32) -> bool {
        let window = WindowId(ask.ticket);
        let taken = self.board.window(window).is_some_and(|w| w.offer().is_some());
        let (from, to) = (AgentId(me as u32), AgentId(ask.from as u32));
        if yes && !taken {
            if let Ok(count) = Count::new(1) {
                let handover = Handover::DropAt(pos(ask.to));
                let offer = BoardMessage::OfferTransfer { window, from, to, item: ask.item, count, handover };
                if self.post(me, offer, now) {
                    return true;
                }
            }
        }
        let reason = if yes { RefusalReason::Busy } else { RefusalReason::NoSurplus };
        self.post(me, BoardMessage::CannotSupply { window, from, to, item: ask.item, reason }, now);
        false
    }

    fn state(&self, ticket: u32) -> TicketState {
        match self.board.window(WindowId(ticket)) {
            None => TicketState::TimedOut,
            Some(w) => match (w.closed, w.offer()) {
                (Some((_, CloseOutcome::Confirmed)), _) => TicketState::Confirmed,
                (Some((_, CloseOutcome::CannotSupply)), _) => TicketState::Refused,
                (Some(_), _) => TicketState::TimedOut,
                (None, Some(o)) => TicketState::Offered(o.from.index()),
                (None, None) => TicketState::Open,
            },
        }
    }

    fn confirm(&mut self, me: usize, ticket: u32, now: u32) {
        let window = WindowId(ticket);
        let Some(w) = self.board.window(window) else { return };
        let (Some(offer), item) = (w.offer(), w.item) else { return };
        let msg = BoardMessage::ConfirmTransfer {
            window,
            from: AgentId(me as u32),
            to: offer.from,
            item,
            count: offer.count,
        };
        self.post(me, msg, now);
    }

    fn expire(&mut self, now: u32) {
        self.board.expire(Tick(u64::from(now)));
    }

    fn messages(&self) -> u64 {
        self.board.log().len() as u64
    }

    fn drain(&mut self) -> Vec<Line> {
        let log = self.board.log();
        let start = self.drained.min(log.len());
        self.drained = log.len();
        log[start..]
            .iter()
            .map(|p| {
                let to = match p.msg.to() {
                    Recipient::Agent(a) => Some(a.index()),
                    _ => None,
                };
                let dest = match &p.msg {
                    BoardMessage::RequestMaterial { .. } => self.dest.get(&p.window).copied(),
                    _ => None,
                };
                Line { from: p.msg.from().index(), to, text: LineText::Board(p.msg.clone(), dest) }
            })
            .collect()
    }
}
