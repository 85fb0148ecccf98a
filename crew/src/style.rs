//! Coordination styles: how a crew talks, behind one seam (DESIGN section 6). A style is
//! one type, in one file here, that answers the questions on which the gated protocol
//! and the baselines differ ([`Style`]) and owns whatever state its way of talking
//! needs:
//!
//! * on each bot, a [`BotSide`] (`central_dag`: the issue the bot waits on the manager
//!   for, the issues it sent, the inventory it last reported), owned by the bot's core
//!   and reached by nothing else;
//! * on the crew, a [`Channel`] beside the board, run by the episode (`central_dag`:
//!   the manager; `flatcomm`: the chat, whose lines grow every prompt).
//!
//! The agent and the episode core ask the style and never look at the policy. The
//! policy names the style ([`of`]): the four gate variants (`gated`, `rule_score`,
//! `rule_only`, `no_gate`) are the protocol's style with another gate procedure
//! ([`Style::gate`]); `gated_flatcomm` and `gated_central_dag` are two baselines'
//! channels with the gate in front ([`Style::channel_takes`]).
//!
//! What a style adds to the board travels in two payloads defined here: [`Delivery`]
//! (what the style's channel brings a bot at a wake-up) and [`Aside`] (what a bot says
//! outside the board). The work a bot loses reading teammates' news is charged by the
//! episode from the news it hands over ([`reading_ticks`]).
//!
//! **A new style** is a file here with a type implementing [`Style`] (and, if it keeps
//! state, a [`BotSide`] or a [`Channel`]), and its arm in [`of`]. One with a channel
//! of its own adds its variant to [`Aside`] or [`Delivery`]. The numbers each baseline
//! uses, and where they come from, are in its file and in docs/baselines.md.

pub(crate) mod central_dag;
mod flatcomm;
mod gated_central_dag;
mod gated_flatcomm;
mod no_partition;
mod protocol;

use std::collections::VecDeque;

use gatecrew_gating::{GatePolicy, Issue};
use gatecrew_protocol::trace::{Decision, EventKind, LineKind};
use gatecrew_protocol::{AgentId, IssueId, Recipient, Tick};
use gatecrew_world::{Blueprint, Inventory, World};

use crate::agent::StepOutput;
use crate::executor::Call;
use crate::news::BoardNews;
use crate::policy::Policy;
use crate::setup::Setup;

pub use central_dag::manager::{Directive, ManagerAsk};
pub use flatcomm::FLATCOMM_READ_TICKS;
pub use no_partition::NO_PARTITION_READ_TICKS;

/// The questions on which coordination styles differ. The defaults are the gated
/// protocol's: news costs nothing to read, every bot answers requests, issues go
/// through the bot's own gate to the board, repeats are suppressed, the board is the
/// board, and no state is kept beyond the protocol's.
pub trait Style: std::fmt::Debug + Send + Sync {
    /// The gate procedure the style's bots run on an issue (the baselines without a
    /// gate escalate every issue the way their system does).
    fn gate(&self) -> GatePolicy;

    /// Ticks of work a bot loses taking one piece of news from a teammate into its
    /// context (the action in flight, or the wait, ends that much later).
    fn read_ticks(&self, _news: &BoardNews) -> u64 {
        0
    }

    /// Whether reading news costs the style's bots work ([`Self::read_ticks`] is not
    /// zero): such a bot can be held past a request's deadline by its reading, so the
    /// invariants do not hold it to the deadline.
    fn charges_reading(&self) -> bool {
        false
    }

    /// Whether a bot that is handing items over (`giving`) or waiting for some
    /// (`awaiting`) ignores a teammate's request.
    fn busy(&self, _giving: bool, _awaiting: bool) -> bool {
        false
    }

    /// Whether a teammate's request is taken as the bot's own issue when it is short of
    /// the same item (the bot raises it at once).
    fn echoes_requests(&self) -> bool {
        false
    }

    /// Whether issues the board cannot carry (a blocked cell, a failed action) are
    /// still reported in a chat line to everyone.
    fn chats_status(&self) -> bool {
        false
    }

    /// The cooldown after a `CANNOT_SUPPLY`, given the gate's.
    fn refusal_cooldown(&self, gate_cooldown: u64) -> u64 {
        gate_cooldown
    }

    /// Whether a repeated detection of an unchanged issue may be suppressed.
    fn suppresses_repeats(&self) -> bool {
        true
    }

    /// Whether the board's exchanges are free chat (written and read as chat lines; the
    /// style's [`Channel`] records them).
    fn board_as_chat(&self) -> bool {
        false
    }

    /// Whether a bot's lines (its posts and what it says on the style's own channel) are
    /// written by its language model under the `llm` executor, each a call that costs
    /// time and can go wrong. The protocol's messages are filled in from the gate's
    /// decision and the agent's state, with no model call.
    fn writes_with_model(&self) -> bool {
        false
    }

    /// Whether the style's own channel ([`BotSide::take_issue`]) takes an issue the
    /// bot's gate decided this way: a baseline hands its channel every issue, its gated
    /// variant only those the gate escalates.
    fn channel_takes(&self, _decision: Decision) -> bool {
        true
    }

    /// Which of the crew's lines a model-driven bot's prompt holds beside its private
    /// state (`--bots model`): by default only the protocol messages addressed to it.
    fn model_view(&self) -> crate::bots::View {
        crate::bots::View::Addressed
    }

    /// A fresh bot's side of the style, when the style keeps state in each bot.
    fn bot(&self) -> Option<Box<dyn BotSide>> {
        None
    }

    /// The style's own channel for an episode of `setup`, when it has one besides the
    /// board.
    fn channel(&self, _setup: &Setup) -> Option<Box<dyn Channel>> {
        None
    }
}

/// The cooldown the invariants hold a style's bots to after a refusal: the style's, if
/// its bots run a gate that keeps one (without a gate nothing holds an issue back).
pub fn kept_cooldown(style: &dyn Style, gate_cooldown: u64) -> u64 {
    if style.gate() == GatePolicy::NoGate { 0 } else { style.refusal_cooldown(gate_cooldown) }
}

/// The style of a policy.
pub fn of(policy: Policy) -> &'static dyn Style {
    match policy {
        Policy::Gated => &protocol::Protocol(GatePolicy::Gated),
        Policy::RuleScore => &protocol::Protocol(GatePolicy::RuleScore),
        Policy::RuleOnly => &protocol::Protocol(GatePolicy::RuleOnly),
        Policy::NoGate => &protocol::Protocol(GatePolicy::NoGate),
        Policy::NoPartition => &no_partition::NoPartition,
        Policy::Flatcomm => &flatcomm::Flatcomm,
        Policy::CentralDag => &central_dag::CentralDag,
        Policy::GatedFlatcomm => &gated_flatcomm::GatedFlatcomm,
        Policy::GatedCentralDag => &gated_central_dag::GatedCentralDag,
    }
}

/// A bot's own side of a style that keeps state in the bot, beside its core's parts:
/// cloned with the core at a checkpoint, reached by nothing but the bot's own step.
/// The bot asks it at the points where such a style changes what it does; the
/// directives it carries out are the bot's own ([`Delivery`]).
pub trait BotSide: std::fmt::Debug + Send + Sync {
    /// A copy, for the bot's checkpoint.
    fn clone_box(&self) -> Box<dyn BotSide>;

    /// At every wake-up, before the bot decides: what it says unasked, given what it
    /// holds (`central_dag`: its first inventory report).
    fn wake(&mut self, inv: &Inventory, out: &mut Vec<Aside>);

    /// The gate decided about an issue: whether the style's channel takes it over from
    /// the board, and if so why the bot holds the blocker meanwhile.
    fn take_issue(&mut self, id: IssueId, issue: Issue, inv: &Inventory, out: &mut Vec<Aside>) -> Option<&'static str>;

    /// Items the channel announced arrived under `window`: confirm them there (the
    /// board is not told).
    fn confirm(&mut self, window: Option<gatecrew_protocol::WindowId>, out: &mut Vec<Aside>);

    /// The channel announced a delivery: the issue the bot stops waiting on.
    fn incoming(&mut self) -> Option<IssueId>;

    /// The channel answered `issue` (the bot stops waiting on it): the issue as sent.
    fn answered(&mut self, issue: IssueId) -> Option<Issue>;

    /// Whether the bot waits for the channel's answer and does nothing else meanwhile.
    fn waiting(&self) -> bool;
}

impl Clone for Box<dyn BotSide> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// A style's own channel beside the board, on the crew's side: what reaches it from the
/// bots and what it sends back, run by the episode through a [`Host`]. The episode
/// checks faults a channel's lines meet ([`Host::lost`]) only where the channel asks.
pub trait Channel: std::fmt::Debug + Send + Sync {
    /// A copy, for a copy of the episode.
    fn clone_box(&self) -> Box<dyn Channel>;

    /// What a bot (not muted) said on the channel.
    fn hear(&mut self, from: AgentId, aside: Aside, host: &mut dyn Host);

    /// An issue a bot handed the channel was lost on the way (a fault, a mistaken line,
    /// a muted bot): what the bot learns of it.
    fn lost(&mut self, _agent: AgentId, _issue: IssueId, _host: &mut dyn Host) {}

    /// The board accepted a message: whether the channel records it (`flatcomm`: as a
    /// chat line) instead of the board's own record.
    fn posted(&mut self, _from: AgentId, _to: Recipient, _host: &mut dyn Host) -> bool {
        false
    }

    /// A round's outputs, before any is applied: what the channel takes first.
    fn round(&mut self, _outputs: &mut VecDeque<(AgentId, StepOutput)>, _host: &mut dyn Host) {}

    /// The earliest tick the channel needs the clock to stop at.
    fn next_deadline(&self) -> Option<Tick> {
        None
    }

    /// The clock is at `now`: what ran out.
    fn expire(&mut self, _now: Tick, _host: &mut dyn Host) {}
}

impl Clone for Box<dyn Channel> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// What the episode lets a [`Channel`] see and do.
pub trait Host {
    /// The episode's clock.
    fn now(&self) -> Tick;
    /// The world (the task status a tracker would read off it).
    fn world(&self) -> &World;
    /// The blueprint being built.
    fn blueprint(&self) -> &Blueprint;
    /// Appends a trace event at the current tick.
    fn record(&mut self, kind: EventKind);
    /// Whether the drop fault loses a line of this kind from `from` (recorded if so).
    fn lost(&mut self, from: AgentId, line: LineKind) -> bool;
    /// Whether `agent` is muted (a fault): it neither hears nor says anything.
    fn muted(&self, agent: AgentId) -> bool;
    /// Whether `agent` can be told anything: neither muted nor failed.
    fn reachable(&self, agent: AgentId) -> bool;
    /// News for every bot that is not muted, a tick from now.
    fn broadcast(&mut self, news: BoardNews);
    /// Hands `agent` a delivery that wakes it at `due`.
    fn deliver(&mut self, agent: AgentId, delivery: Delivery, due: Tick);
    /// Every agent waits `ticks` longer (its action in flight, its wait).
    fn pause_all(&mut self, ticks: u64);
    /// Whether the bots run under the `llm` executor.
    fn llm(&self) -> bool;
    /// The tokens of `text` under the `llm` executor (`None`: scripted).
    fn tokens(&self, text: &str) -> Option<u32>;
    /// Under the `llm` executor, a central re-plan's call (recorded): `prompt` tokens
    /// in, `lines` written.
    fn replan_call(&mut self, prompt: u32, lines: &[String]) -> Option<Call>;
}

/// What a style's own channel brings an agent at a wake-up, besides the board's news
/// (in [`crate::agent::StepInput::style`]). The protocol has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// `central_dag`: the central manager's order after a re-plan.
    Directive(Directive),
}

/// What an agent says outside the board, on its style's own channel (in
/// [`crate::agent::StepOutput::style`], in the order said). The channel records each
/// one, and a fault may drop it on the way. The protocol has none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Aside {
    /// `flatcomm`: a free chat line without protocol meaning (a status report); every
    /// teammate reads it.
    Chat(Recipient),
    /// `central_dag`: a line to the central manager: an issue it re-plans on, a
    /// confirmation, or an inventory report.
    Ask(ManagerAsk),
}

impl Aside {
    /// The issue the line hands the channel, which is lost with it.
    pub fn issue(&self) -> Option<IssueId> {
        match self {
            Aside::Ask(ManagerAsk::Issue { issue, .. }) => Some(*issue),
            _ => None,
        }
    }

    /// Whether the line confirms items that arrived: no fault or mistake loses it (it
    /// closes a delivery the channel tracks, as a confirmation closes a board window).
    pub fn confirms(&self) -> bool {
        matches!(self, Aside::Ask(ManagerAsk::Received { .. }))
    }

    /// The line as the bot's language model writes it (the `llm` executor).
    pub(crate) fn text(&self, from: AgentId, data: &gatecrew_world::GameData) -> String {
        match self {
            Aside::Chat(_) => crate::executor::render::status(from),
            Aside::Ask(ask) => crate::executor::render::ask(from, ask, data),
        }
    }
}

/// Ticks of work `agent` loses taking `news` into its context under `style`: only
/// teammates' news costs; the bot's own messages and the board's closings are known
/// already. The episode adds them to the end of the action in flight (or the wait).
pub fn reading_ticks(style: &dyn Style, agent: AgentId, news: &[BoardNews]) -> u64 {
    news.iter()
        .map(|n| {
            let from_other = match n {
                BoardNews::Posted { msg, .. } => msg.from() != agent,
                BoardNews::Chat { from } => *from != agent,
                BoardNews::Closed(_) | BoardNews::Rejected { .. } => false,
            };
            if from_other { style.read_ticks(n) } else { 0 }
        })
        .sum()
}
