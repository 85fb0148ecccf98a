//! The kitchen trace's line and event types. Names (dishes, items, locations, commands)
//! are written as the kitchen names them, not as ids: a kitchen's item ids index its own
//! recipe book, which a reader of the trace does not have.

use gatecrew_protocol::MessageKind;
use serde::{Deserialize, Serialize};

use crate::cos::TimingMode;
use crate::executor::{ExecutorKind, ModelUse};
use crate::policy::{Counters, PolicyKind};
use crate::world::{OrderId, Refusal};

/// One line of a kitchen trace: the schema major version, the episode, the step, and
/// the event (its `kind` and fields follow on the same JSON object).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The schema major version ([`super::KITCHEN_TRACE_VERSION`]).
    pub v: u32,
    /// The episode.
    pub ep: EpisodeId,
    /// The world's time the event belongs to (see [`super`] for each kind's step).
    pub step: u32,
    /// What happened.
    #[serde(flatten)]
    pub event: Event,
}

/// An episode's id: `{level}-{policy}-a{agents}-x{factor}-{timing}-{executor}-s{seed}`,
/// also the trace's file name without `.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EpisodeId(pub String);

impl std::fmt::Display for EpisodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// An item or dish, by its name in the recipe book (`salmonMeatcake`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ItemName(pub String);

/// A location, as MindAgent names instances (`blender0`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct LocationName(pub String);

/// A command in MindAgent's DSL (`goto_agent0_storage0`), as the model would write it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Command(pub String);

/// The events, by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// The episode's first line: what runs and how.
    KitchenStart(Start),
    /// An order arrived (step: the world's time it arrived at).
    OrderArrived {
        /// Its number.
        order: OrderId,
        /// The dish.
        dish: ItemName,
        /// Steps it may take.
        lifetime: u32,
    },
    /// An order's items reached the serving table (step: the step that put them there).
    OrderCompleted {
        /// Its number.
        order: OrderId,
        /// The dish.
        dish: ItemName,
    },
    /// An order's lifetime ran out (step: the last step it could have been served in).
    OrderFailed {
        /// Its number.
        order: OrderId,
        /// The dish.
        dish: ItemName,
    },
    /// One agent's action in a step, as the world got it.
    Action(ActionLine),
    /// A public message: a board message, a chat line or a dispatcher's command.
    Message(MessageLine),
    /// One model call under the `llm` executor.
    LlmCall(CallLine),
    /// The episode's last line (step: the steps run).
    KitchenEnd(End),
}

impl Event {
    /// The `kind` as written.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::KitchenStart(_) => "kitchen_start",
            Event::OrderArrived { .. } => "order_arrived",
            Event::OrderCompleted { .. } => "order_completed",
            Event::OrderFailed { .. } => "order_failed",
            Event::Action(_) => "action",
            Event::Message(_) => "message",
            Event::LlmCall(_) => "llm_call",
            Event::KitchenEnd(_) => "kitchen_end",
        }
    }
}

/// `kitchen_start`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Start {
    /// The level.
    pub level: String,
    /// The policy.
    pub policy: PolicyKind,
    /// Agents in the kitchen.
    pub agents: u32,
    /// The interval factor.
    pub factor: f64,
    /// Where the interval and lifetimes come from.
    pub timing: TimingMode,
    /// A new order every this many steps.
    pub interval: u32,
    /// Each menu dish and its lifetime, in menu order.
    pub menu: Vec<MenuLine>,
    /// The locations, in kitchen order (a location's index is its place here).
    pub kitchen: Vec<LocationName>,
    /// Steps the episode runs.
    pub steps: u32,
    /// The world's seed (the order draws).
    pub seed: u64,
    /// Who decides.
    pub executor: ExecutorLine,
    /// The model a dispatcher over a real model asked (absent otherwise, and in traces
    /// written before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live_model: Option<String>,
}

/// A menu dish in `kitchen_start`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MenuLine {
    /// The dish.
    pub dish: ItemName,
    /// Steps an order of it may take.
    pub lifetime: u32,
}

/// The executor in `kitchen_start` (the same fields `gatecrew cos --json` shows).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExecutorLine {
    /// `scripted` or `llm`.
    pub kind: ExecutorKind,
    /// The profile's model (llm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The error scale (llm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_scale: Option<f64>,
    /// The profile's base error rate (llm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p0: Option<f64>,
    /// The profile's error rate per 1,000 prompt tokens (llm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p1: Option<f64>,
    /// Lines an agent keeps in its context (llm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_lines: Option<u32>,
}

/// What an action did, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionName {
    /// `noop`
    Noop,
    /// `goto`
    Goto,
    /// `get`
    Get,
    /// `put`
    Put,
    /// `activate`
    Activate,
}

/// `action`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionLine {
    /// The agent.
    pub agent: u32,
    /// The verb.
    pub action: ActionName,
    /// The command.
    pub command: Command,
    /// Whether the world applied it.
    pub applied: bool,
    /// Why the world refused it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<Refusal>,
    /// The command the policy meant, when a model mistake replaced it (llm executor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intended: Option<Command>,
}

/// Who wrote a message or made a model call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Speaker {
    /// The central dispatcher.
    Dispatcher,
    /// An agent, by index.
    Agent(u32),
}

/// `message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageLine {
    /// The writer.
    pub from: Speaker,
    /// The one reader, or none: every teammate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<u32>,
    /// What it is, by channel.
    #[serde(flatten)]
    pub body: MessageBody,
    /// The line as a model reads it.
    pub text: String,
}

/// A message by channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "channel", rename_all = "snake_case")]
pub enum MessageBody {
    /// One of the four protocol messages on the board (gated).
    Board {
        /// `REQUEST_MATERIAL`, `OFFER_TRANSFER`, `CONFIRM_TRANSFER` or `CANNOT_SUPPLY`.
        msg: MessageKind,
        /// The item.
        item: ItemName,
        /// The count, for the kinds that carry one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        count: Option<u32>,
        /// The window, for the kinds that answer one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        window: Option<u32>,
        /// A request's destination: the tool the requester cooks in.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        into: Option<LocationName>,
    },
    /// A chat line (flatcomm).
    Chat {
        /// Which line.
        line: ChatKind,
        /// The item or dish it is about.
        item: ItemName,
        /// A need's destination.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        into: Option<LocationName>,
    },
    /// The dispatcher's command to one agent (its messages are its commands).
    Dispatch {
        /// The command it gave.
        command: Command,
    },
}

/// Flatcomm's chat lines, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatKind {
    /// "I'm taking an order of this dish."
    Goal,
    /// "I need this item in that tool."
    Need,
    /// "I'll bring it."
    Offer,
    /// "I can't."
    Refuse,
    /// "Got it, thanks."
    Thanks,
    /// "Every tool I need for this is busy."
    Stuck,
}

/// `llm_call`. A real model's call (the dispatcher over a real model) adds `invalid`
/// and `fallback` when it has them; a line without them reads as a call with neither,
/// so traces written without them still read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallLine {
    /// The caller.
    pub caller: Speaker,
    /// Prompt tokens.
    pub prompt_tokens: u32,
    /// Completion tokens.
    pub completion_tokens: u32,
    /// Its latency from the profile (seconds).
    pub latency_s: f64,
    /// Whether it went wrong.
    pub mistake: bool,
    /// The agent whose command the mistake replaced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hit: Option<u32>,
    /// The reply's invalid commands, each `token: why` (a real model's call).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invalid: Vec<String>,
    /// Why the reply was unusable and the fallback decided the step (a real model's call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

/// `kitchen_end`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct End {
    /// Orders completed.
    pub completed: u32,
    /// Orders whose lifetime ran out.
    pub failed: u32,
    /// Orders still pending.
    pub pending: u32,
    /// Arrivals skipped because six orders were pending.
    pub skipped: u32,
    /// Actions the world refused.
    pub refused: u32,
    /// The policy's counts (`messages` among them).
    pub counters: Counters,
    /// The model's calls, tokens, mistakes and time (zero under `scripted`).
    pub model: ModelUse,
}
