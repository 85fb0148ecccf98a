//! Trace event types. Field names and meanings are fixed within a major version: add
//! fields, never change what one means.

use serde::{Deserialize, Serialize};

use super::TaskScores;
use crate::ids::{AgentId, IssueId, WindowId};
use crate::message::Recipient;
use crate::pos::Pos;

/// One trace line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Schema major version.
    pub v: u32,
    /// Episode id.
    pub ep: String,
    /// Tick.
    pub t: u64,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

/// The world actions, as the trace names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionName {
    /// Walk along a path.
    MoveTo,
    /// Break a block.
    Mine,
    /// Craft a recipe.
    Craft,
    /// Smelt in a furnace.
    Smelt,
    /// Place a block.
    Place,
    /// Hand items to a teammate in reach.
    Give,
    /// Drop items on the ground.
    Drop,
    /// Pick dropped items up.
    PickUp,
    /// Put items into a chest.
    Deposit,
    /// Take items out of a chest.
    Withdraw,
}

impl ActionName {
    /// The trace name.
    pub fn as_str(self) -> &'static str {
        match self {
            ActionName::MoveTo => "move_to",
            ActionName::Mine => "mine",
            ActionName::Craft => "craft",
            ActionName::Smelt => "smelt",
            ActionName::Place => "place",
            ActionName::Give => "give",
            ActionName::Drop => "drop",
            ActionName::PickUp => "pick_up",
            ActionName::Deposit => "deposit",
            ActionName::Withdraw => "withdraw",
        }
    }
}

/// The issue kinds of DESIGN section 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IssueName {
    /// An item the active node needs is not in the inventory.
    MissingMaterial,
    /// The action needs a tool the agent lacks.
    MissingTool,
    /// A prerequisite node is not done.
    DependencyBlocked,
    /// No path to the target.
    Unreachable,
    /// Any other verified failure.
    ActionFailed,
}

impl IssueName {
    /// The trace name.
    pub fn as_str(self) -> &'static str {
        match self {
            IssueName::MissingMaterial => "missing_material",
            IssueName::MissingTool => "missing_tool",
            IssueName::DependencyBlocked => "dependency_blocked",
            IssueName::Unreachable => "unreachable",
            IssueName::ActionFailed => "action_failed",
        }
    }
}

/// Which tier of the gate decided, or `"policy"` for policies without a gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tier {
    /// Tier 1, the rules.
    Rules,
    /// Tier 2, the score.
    Score,
    /// Tier 3, the gray-zone adjudicator.
    Adjudicator,
    /// No gate: the policy decided.
    Policy,
}

impl Tier {
    /// The tier as a small integer, for tables and labels that want one type:
    /// 1 rules, 2 score, 3 adjudicator, 0 when no gate ran (the policy decided).
    pub fn number(self) -> u8 {
        match self {
            Tier::Policy => 0,
            Tier::Rules => 1,
            Tier::Score => 2,
            Tier::Adjudicator => 3,
        }
    }
}

impl Serialize for Tier {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Tier::Rules => s.serialize_u8(1),
            Tier::Score => s.serialize_u8(2),
            Tier::Adjudicator => s.serialize_u8(3),
            Tier::Policy => s.serialize_str("policy"),
        }
    }
}

impl<'de> Deserialize<'de> for Tier {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(u8),
            S(String),
        }
        match Raw::deserialize(d)? {
            Raw::N(1) => Ok(Tier::Rules),
            Raw::N(2) => Ok(Tier::Score),
            Raw::N(3) => Ok(Tier::Adjudicator),
            Raw::S(s) if s == "policy" => Ok(Tier::Policy),
            Raw::N(n) => Err(serde::de::Error::custom(format!("tier must be 1, 2, 3 or \"policy\", got {n}"))),
            Raw::S(s) => Err(serde::de::Error::custom(format!("tier must be 1, 2, 3 or \"policy\", got \"{s}\""))),
        }
    }
}

/// The gate's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Solve it locally.
    StayLocal,
    /// Ask through the board.
    Escalate,
}

/// What the agent does with the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum GateAction {
    /// Run the local recovery chain.
    LocalRecover,
    /// Set the node aside and do other work.
    LocalSkip,
    /// Open a window.
    RequestMaterial,
}

/// The five gate features, each 0..=3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FeatureVec {
    /// Criticality.
    #[serde(rename = "C")]
    pub c: u8,
    /// Coordination advantage.
    #[serde(rename = "A")]
    pub a: u8,
    /// Downstream impact.
    #[serde(rename = "D")]
    pub d: u8,
    /// Local recoverability.
    #[serde(rename = "R")]
    pub r: u8,
    /// History penalty.
    #[serde(rename = "H")]
    pub h: u8,
}

/// The rule context of a gate decision, as the trace records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GateContext {
    /// The protocol can carry the issue.
    pub requestable: bool,
    /// A teammate was known to be reachable.
    pub reachable: bool,
    /// Independent work remained.
    pub other_work: bool,
}

/// How an issue got resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResolvedBy {
    /// Entirely by the local solver.
    Local,
    /// Through a confirmed transfer.
    Board,
}

/// A window event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowEvent {
    /// Opened by a request.
    Open,
    /// Closed.
    Close,
}

/// What a message fault did to a board message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageFault {
    /// Lost on the way: the board never saw it.
    Dropped,
    /// Held back for some ticks, then posted.
    Delayed,
    /// Posted twice (the board refuses the copy as a duplicate).
    Duplicated,
}

impl MessageFault {
    /// Its name in the trace.
    pub fn as_str(self) -> &'static str {
        match self {
            MessageFault::Dropped => "dropped",
            MessageFault::Delayed => "delayed",
            MessageFault::Duplicated => "duplicated",
        }
    }
}

/// The `llm` executor model an episode ran under, as `episode_start` records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecutorLabel {
    /// The profile's model.
    pub model: String,
    /// Lines a bot keeps in its context.
    pub context_lines: u32,
    /// The multiple of the profile's error rates (1 unless swept).
    pub error_scale: f64,
    /// Whether the profile has an error model at all.
    pub errors: bool,
}

/// What a bot asked its language model to do under the `llm` executor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallKind {
    /// Choose the next action.
    Act,
    /// Read teammates' new chat lines (chat-reading styles).
    Read,
    /// Write a chat line or a line to the manager.
    Write,
    /// The central manager's re-plan (`central_dag`).
    Replan,
    /// A tier-3 gray-zone consult (gated).
    Consult,
}

impl CallKind {
    /// Every kind, in order.
    pub const ALL: [CallKind; 5] =
        [CallKind::Act, CallKind::Read, CallKind::Write, CallKind::Replan, CallKind::Consult];

    /// The trace's name.
    pub fn as_str(self) -> &'static str {
        match self {
            CallKind::Act => "act",
            CallKind::Read => "read",
            CallKind::Write => "write",
            CallKind::Replan => "replan",
            CallKind::Consult => "consult",
        }
    }
}

/// The event kinds of DESIGN section 10, plus `unfinished`, `restart`, `fallback`,
/// `message_fault`, `agent_failed` and the interactive session's kinds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EventKind {
    /// First line of an episode.
    EpisodeStart {
        /// The coordination policy.
        policy: super::Policy,
        /// The episode seed.
        seed: u64,
        /// Hash of the resolved configuration.
        config_hash: String,
        /// The crew.
        agents: Vec<AgentId>,
        /// Cells in the blueprint.
        blueprint_blocks: u32,
        /// Suite class (A..D).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        class: Option<super::SuiteClass>,
        /// Suite template.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        template: Option<String>,
        /// Suite split.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        split: Option<super::Split>,
        /// Blueprint name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        blueprint: Option<String>,
        /// What the task file describes that the blueprint does not hold as described
        /// (imported tasks only), each starting with its JSON path.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<String>,
        /// Cells of the task file left out because they can never be built (a carpet
        /// over air, a block no item places), each also in `warnings`; absent when none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cells_dropped: Option<u32>,
        /// Crew members that are people, by name (the last agents).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        humans: Vec<String>,
        /// The `llm` executor model the bots ran under; absent under the
        /// scripted executor, the default.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        executor: Option<ExecutorLabel>,
        /// The gate config is an experiment (`experiment = true` in `[gate]`): its
        /// weights may break the hierarchy. Absent otherwise.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        experiment: bool,
    },
    /// An action completed with a verified outcome.
    Action {
        /// Who acted.
        agent: AgentId,
        /// Which action.
        action: ActionName,
        /// Success.
        ok: bool,
        /// Failure reason.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// The item involved.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        item: Option<String>,
        /// How many.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        count: Option<u32>,
        /// The target position.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pos: Option<Pos>,
        /// Ticks the action took.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ticks: Option<u64>,
    },
    /// An issue detected.
    Issue {
        /// Who detected it.
        agent: AgentId,
        /// Its id.
        issue_id: IssueId,
        /// Its kind.
        issue: IssueName,
        /// The item (material or tool).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        item: Option<String>,
        /// How many are missing.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        count: Option<u32>,
        /// The blocked task node.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node: Option<u32>,
        /// The position involved.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pos: Option<Pos>,
        /// The failure reason, for `action_failed`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// The gate's decision on an issue.
    Gate {
        /// Who decided.
        agent: AgentId,
        /// The issue.
        issue_id: IssueId,
        /// The deciding tier.
        tier: Tier,
        /// The tier-1 rule that fired.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rule: Option<String>,
        /// The features.
        features: FeatureVec,
        /// The normalised score.
        score: f64,
        /// The verdict.
        decision: Decision,
        /// What the agent does.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        action: Option<GateAction>,
        /// Whether the world's oracle knew a local recovery within budget.
        oracle_local_feasible: bool,
        /// What the rules saw besides the features (lets calibration replay decisions).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context: Option<GateContext>,
        /// Ticks the rollout oracle took to get the items alone with full knowledge of
        /// the world, for an escalation of a missing item or tool (DESIGN section 8's
        /// UER budget sweep). Absent when it did not get them within the largest budget
        /// (2,400 ticks), when the decision stayed local or the issue is not about
        /// items, and in traces written before it existed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        oracle_ticks: Option<u64>,
    },
    /// A tier-3 adjudication.
    Adjudication {
        /// Who asked.
        agent: AgentId,
        /// The issue.
        issue_id: IssueId,
        /// The decision card sent.
        card: serde_json::Value,
        /// The raw reply.
        reply: String,
        /// The verdict used.
        decision: Decision,
        /// The stated confidence.
        confidence: f64,
        /// Prompt tokens, from the server's usage.
        prompt_tokens: u32,
        /// Completion tokens.
        completion_tokens: u32,
        /// Round trip in milliseconds (recorded, never read back into the episode).
        latency_ms: u64,
        /// Why the fallback decided instead of the model (absent when the model did).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fallback: Option<super::FallbackReason>,
    },
    /// An accepted board message.
    Board {
        /// Message kind.
        msg: crate::MessageKind,
        /// Window.
        window: WindowId,
        /// Sender.
        from: AgentId,
        /// Addressee.
        to: Recipient,
        /// Item.
        item: String,
        /// Count (absent on `CANNOT_SUPPLY`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        count: Option<u32>,
        /// Reason tag.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// A rejected board message.
    BoardReject {
        /// The caller.
        from: AgentId,
        /// Rejection kind.
        error: crate::RejectKind,
        /// Message kind.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        msg: Option<crate::MessageKind>,
        /// Window.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        window: Option<WindowId>,
        /// Addressee.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<Recipient>,
        /// Item.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        item: Option<String>,
        /// Count.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        count: Option<u32>,
    },
    /// A free-chat line (flatcomm baseline).
    Chat {
        /// Sender.
        from: AgentId,
        /// Addressee.
        to: Recipient,
        /// Modelled tokens.
        tokens: u32,
    },
    /// A manager message (central_dag baseline).
    Manager {
        /// The agent that wrote to the manager; absent when the manager writes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<AgentId>,
        /// The agent the manager writes to; absent when an agent writes to the manager.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<AgentId>,
        /// Modelled tokens.
        tokens: u32,
    },
    /// A window opened or closed.
    Window {
        /// The window.
        window: WindowId,
        /// Open or close.
        event: WindowEvent,
        /// The issue that opened it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        issue_id: Option<IssueId>,
        /// How it closed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        outcome: Option<crate::CloseOutcome>,
    },
    /// One step of a local recovery chain.
    Recovery {
        /// Who recovers.
        agent: AgentId,
        /// The issue.
        issue_id: IssueId,
        /// The step.
        step: String,
        /// Its verified result.
        ok: bool,
    },
    /// An issue resolved.
    Resolved {
        /// Whose issue.
        agent: AgentId,
        /// The issue.
        issue_id: IssueId,
        /// How.
        by: ResolvedBy,
    },
    /// A task node left unfinished at the end, and why.
    Unfinished {
        /// Its owner.
        agent: AgentId,
        /// The task node.
        node: u32,
        /// Its position.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pos: Option<Pos>,
        /// Its block.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        block: Option<String>,
        /// Why.
        why: String,
    },
    /// The board failed an escalated issue and the agent went back to local work
    /// (DESIGN section 5.7).
    Fallback {
        /// The agent.
        agent: AgentId,
        /// The issue.
        issue_id: IssueId,
        /// LOCAL_RECOVER or LOCAL_SKIP.
        action: GateAction,
        /// Why the board failed.
        cause: super::FallbackCause,
    },
    /// The supervisor restarted an agent from its last verified state.
    Restart {
        /// The agent.
        agent: AgentId,
        /// The failure that stopped it.
        cause: String,
    },
    /// An injected board-message fault (DESIGN section 3): the network between an
    /// agent and the board lost, held back or doubled one of its messages.
    MessageFault {
        /// The sender.
        agent: AgentId,
        /// What happened to the message.
        fault: MessageFault,
        /// The line it hit.
        msg: super::LineKind,
        /// For a delay: the tick at which the board receives it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        until: Option<u64>,
    },
    /// An agent's bot stopped for good (kicked, disconnected, its bridge died, its
    /// server unreachable): the agent is out of the episode, the crew goes on without it.
    AgentFailed {
        /// The agent.
        agent: AgentId,
        /// What happened, as the bot or its bridge reported it.
        cause: String,
    },
    /// Last line of an episode.
    EpisodeEnd {
        /// Block-level completion.
        tsr: f64,
        /// Whether every blueprint block is correct.
        complete: bool,
        /// Correct blocks.
        correct_blocks: u32,
        /// Blueprint blocks.
        blueprint_blocks: u32,
        /// Why it ended.
        reason: super::EndReason,
        /// Wrong blocks dug out of blueprint cells and replaced by the cell's own block;
        /// absent when none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        blocks_replaced: Option<u32>,
        /// Other systems' scores, only for episodes imported from their task files.
        #[serde(flatten)]
        scores: TaskScores,
    },
    /// One decision a language-model-driven bot made under the `llm` executor model:
    /// what it cost in tokens and game time, and whether it went wrong.
    LlmCall {
        /// The bot; absent for the central manager's re-plans.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<AgentId>,
        /// What the model was asked to do.
        call: CallKind,
        /// Prompt tokens: system prompt, the bot's state and its context lines.
        prompt_tokens: u32,
        /// Completion tokens.
        completion_tokens: u32,
        /// Game ticks the call took (`gatecrew_gating::llm::Latency::ticks`).
        ticks: u64,
        /// The decision went wrong (the error model's draw).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        mistake: bool,
    },
    /// One call a model-driven bot (`--bots model`) made at a decision point: the
    /// request's digest, the raw reply, the server's token counts and the wall latency,
    /// the option it chose, and the game ticks the call cost (from its tokens, through
    /// the latency profile). A proposal to ask is followed by the `gate` event that
    /// decided it.
    ModelCall {
        /// The bot; absent for the central manager's re-plans (`central_dag`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<AgentId>,
        /// The decision point: `command`, `issue`, `answer`, or the manager's `replan`.
        point: String,
        /// The issue decided, at an `issue` point.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        issue_id: Option<IssueId>,
        /// 1, or 2 for the call that fed an unusable first reply back.
        attempt: u8,
        /// SHA-256 of the request's messages and constraint (not the model name), hex.
        digest: String,
        /// The raw reply (the message's text, or the body of a failed exchange).
        reply: String,
        /// The option chosen, when the reply was usable.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        choice: Option<String>,
        /// Prompt tokens, from the server's `usage`.
        prompt_tokens: u32,
        /// Completion tokens, from the server's `usage`.
        completion_tokens: u32,
        /// Wall time of the exchange.
        latency_ms: u64,
        /// Game ticks the call cost.
        ticks: u64,
        /// Why the reply was unusable (a transport failure's tag, `malformed_reply`, `not_an_option`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// The scripted decision stood in after this call.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        fallback: bool,
    },
    /// A person's chat line (interactive runs only).
    Human(super::hitl::HumanLine),
    /// The intent a line became.
    Intent(super::hitl::IntentNote),
    /// A partner's plan update.
    Plan(super::hitl::PlanNote),
    /// A line the partner said.
    Say(super::hitl::SayNote),
    /// A subtask judged from in-world evidence.
    Validator(super::hitl::ValidatorNote),
    /// A task-memory read or write.
    Memory(super::hitl::MemoryNote),
    /// A kind this build does not know (a newer minor version); readers skip it.
    #[serde(other)]
    Other,
}

impl EventKind {
    /// The `kind` tag.
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::EpisodeStart { .. } => "episode_start",
            EventKind::Action { .. } => "action",
            EventKind::Issue { .. } => "issue",
            EventKind::Gate { .. } => "gate",
            EventKind::Adjudication { .. } => "adjudication",
            EventKind::Board { .. } => "board",
            EventKind::BoardReject { .. } => "board_reject",
            EventKind::Chat { .. } => "chat",
            EventKind::Manager { .. } => "manager",
            EventKind::Window { .. } => "window",
            EventKind::Recovery { .. } => "recovery",
            EventKind::Resolved { .. } => "resolved",
            EventKind::Unfinished { .. } => "unfinished",
            EventKind::Restart { .. } => "restart",
            EventKind::Fallback { .. } => "fallback",
            EventKind::AgentFailed { .. } => "agent_failed",
            EventKind::MessageFault { .. } => "message_fault",
            EventKind::EpisodeEnd { .. } => "episode_end",
            EventKind::LlmCall { .. } => "llm_call",
            EventKind::ModelCall { .. } => "model_call",
            EventKind::Human(_) => "human",
            EventKind::Intent(_) => "intent",
            EventKind::Plan(_) => "plan",
            EventKind::Say(_) => "say",
            EventKind::Validator(_) => "validator",
            EventKind::Memory(_) => "memory",
            EventKind::Other => "other",
        }
    }
}
