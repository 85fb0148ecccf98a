//! The four board messages (DESIGN section 5.6), typed, and their wire form.

use serde::{Deserialize, Serialize};

use crate::addressees::Addressees;
use crate::count::{Count, CountError};
use crate::ids::{AgentId, WindowId};
use crate::item::{ItemId, ItemRegistry, UnknownItem};
use crate::pos::Pos;

/// Who a request is addressed to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Recipient {
    /// One teammate.
    Agent(AgentId),
    /// Every teammate but the sender.
    All,
    /// A ring of teammates (DESIGN section 5.6, "Addressing"): what a request goes to in
    /// a crew larger than the ring, so that it draws O(k) answers, not O(crew).
    Agents(Addressees),
}

impl Recipient {
    /// Whether `a` is addressed (for `All`: anyone; the sender is excluded elsewhere).
    pub fn includes(&self, a: AgentId) -> bool {
        match self {
            Recipient::Agent(b) => *b == a,
            Recipient::All => true,
            Recipient::Agents(ring) => ring.contains(a),
        }
    }
}

impl std::fmt::Display for Recipient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Recipient::Agent(a) => a.fmt(f),
            Recipient::All => f.write_str("all"),
            Recipient::Agents(ring) => write!(f, "[{ring}]"),
        }
    }
}

impl Serialize for Recipient {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Recipient::Agent(a) => a.serialize(s),
            Recipient::All => s.serialize_str("all"),
            Recipient::Agents(ring) => ring.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Recipient {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Id(u32),
            Word(String),
            List(Vec<u32>),
        }
        match Raw::deserialize(d)? {
            Raw::Id(n) => AgentId::read(n).map(Recipient::Agent).map_err(serde::de::Error::custom),
            Raw::Word(w) if w == "all" => Ok(Recipient::All),
            Raw::Word(w) => Err(serde::de::Error::custom(format!(
                "recipient must be an agent id, \"all\" or a list of agent ids, got \"{w}\""
            ))),
            Raw::List(ids) => Addressees::read(&ids)
                .map(Recipient::Agents)
                .map_err(|e| serde::de::Error::custom(format!("recipient list: {e}"))),
        }
    }
}

/// How an offered transfer is handed over in the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Handover {
    /// The giver walks into reach and hands the items over.
    Give,
    /// The giver drops the items at a position for the receiver to pick up.
    DropAt(Pos),
}

/// Why a window was opened: the kind of issue behind it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestReason {
    /// A block or ingredient is missing.
    MissingMaterial,
    /// A tool is missing.
    MissingTool,
}

/// Why a teammate cannot supply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefusalReason {
    /// It holds none beyond its own remaining needs.
    NoSurplus,
    /// It is committed to another transfer.
    Busy,
    /// It offered but cannot deliver (no walk leads to the requester): the offer is
    /// withdrawn so that the window goes to a teammate that can.
    Unreachable,
}

/// A protocol message. Values of this type are well-formed (known item, count in
/// bounds); whether they are acceptable now is for the [`crate::Board`] to decide.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "msg", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum BoardMessage {
    /// Opens a coordination window; the board assigns the window id.
    RequestMaterial {
        /// The requester.
        from: AgentId,
        /// One teammate or all of them.
        to: Recipient,
        /// What is missing.
        item: ItemId,
        /// How many.
        count: Count,
        /// The issue behind the request.
        reason: RequestReason,
    },
    /// A teammate commits to a transfer within an open window.
    OfferTransfer {
        /// The window answered.
        window: WindowId,
        /// The giver.
        from: AgentId,
        /// The requester.
        to: AgentId,
        /// The window's item.
        item: ItemId,
        /// At most the requested count.
        count: Count,
        /// How the items will arrive.
        handover: Handover,
    },
    /// The requester verified that the items arrived; closes the window.
    ConfirmTransfer {
        /// The window closed.
        window: WindowId,
        /// The requester.
        from: AgentId,
        /// The giver.
        to: AgentId,
        /// The window's item.
        item: ItemId,
        /// How many arrived.
        count: Count,
    },
    /// A definitive no from an addressee.
    CannotSupply {
        /// The window answered.
        window: WindowId,
        /// The addressee refusing.
        from: AgentId,
        /// The requester.
        to: AgentId,
        /// The window's item.
        item: ItemId,
        /// Why not.
        reason: RefusalReason,
    },
}

/// The four message kinds, as the trace names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MessageKind {
    /// `REQUEST_MATERIAL`
    RequestMaterial,
    /// `OFFER_TRANSFER`
    OfferTransfer,
    /// `CONFIRM_TRANSFER`
    ConfirmTransfer,
    /// `CANNOT_SUPPLY`
    CannotSupply,
}

impl MessageKind {
    /// The protocol name.
    pub fn as_str(self) -> &'static str {
        match self {
            MessageKind::RequestMaterial => "REQUEST_MATERIAL",
            MessageKind::OfferTransfer => "OFFER_TRANSFER",
            MessageKind::ConfirmTransfer => "CONFIRM_TRANSFER",
            MessageKind::CannotSupply => "CANNOT_SUPPLY",
        }
    }
}

impl std::fmt::Display for MessageKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad`, so that widths in format strings apply.
        f.pad(self.as_str())
    }
}

impl BoardMessage {
    /// The message kind.
    pub fn kind(&self) -> MessageKind {
        match self {
            BoardMessage::RequestMaterial { .. } => MessageKind::RequestMaterial,
            BoardMessage::OfferTransfer { .. } => MessageKind::OfferTransfer,
            BoardMessage::ConfirmTransfer { .. } => MessageKind::ConfirmTransfer,
            BoardMessage::CannotSupply { .. } => MessageKind::CannotSupply,
        }
    }

    /// The claimed sender.
    pub fn from(&self) -> AgentId {
        match self {
            BoardMessage::RequestMaterial { from, .. }
            | BoardMessage::OfferTransfer { from, .. }
            | BoardMessage::ConfirmTransfer { from, .. }
            | BoardMessage::CannotSupply { from, .. } => *from,
        }
    }

    /// The addressee.
    pub fn to(&self) -> Recipient {
        match self {
            BoardMessage::RequestMaterial { to, .. } => *to,
            BoardMessage::OfferTransfer { to, .. }
            | BoardMessage::ConfirmTransfer { to, .. }
            | BoardMessage::CannotSupply { to, .. } => Recipient::Agent(*to),
        }
    }

    /// The item the message is about.
    pub fn item(&self) -> ItemId {
        match self {
            BoardMessage::RequestMaterial { item, .. }
            | BoardMessage::OfferTransfer { item, .. }
            | BoardMessage::ConfirmTransfer { item, .. }
            | BoardMessage::CannotSupply { item, .. } => *item,
        }
    }

    /// The count, for the kinds that carry one.
    pub fn count(&self) -> Option<Count> {
        match self {
            BoardMessage::RequestMaterial { count, .. }
            | BoardMessage::OfferTransfer { count, .. }
            | BoardMessage::ConfirmTransfer { count, .. } => Some(*count),
            BoardMessage::CannotSupply { .. } => None,
        }
    }

    /// The window, for the kinds that answer one.
    pub fn window(&self) -> Option<WindowId> {
        match self {
            BoardMessage::RequestMaterial { .. } => None,
            BoardMessage::OfferTransfer { window, .. }
            | BoardMessage::ConfirmTransfer { window, .. }
            | BoardMessage::CannotSupply { window, .. } => Some(*window),
        }
    }
}

/// A board message as it arrives from outside the process: names instead of ids and
/// plain numbers, so that every defect can be reported instead of failing to decode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireMessage {
    /// `REQUEST_MATERIAL`, `OFFER_TRANSFER`, `CONFIRM_TRANSFER` or `CANNOT_SUPPLY`.
    pub msg: String,
    /// The window; absent on a request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<u32>,
    /// The claimed sender.
    pub from: u32,
    /// An agent id, or `"all"` on a request.
    pub to: Recipient,
    /// The item name.
    pub item: String,
    /// The count; absent on `CANNOT_SUPPLY`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<i64>,
    /// A reason tag (requests and refusals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `give`, or a position to drop at (offers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handover: Option<Handover>,
}

/// Why a [`WireMessage`] is not a [`BoardMessage`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    /// Not one of the four kinds.
    #[error("unknown message kind \"{0}\"")]
    UnknownKind(String),
    /// The item name is unknown.
    #[error(transparent)]
    UnknownItem(#[from] UnknownItem),
    /// The count is out of bounds.
    #[error("bad count: {0}")]
    BadCount(#[from] CountError),
    /// A field the kind needs is absent.
    #[error("{kind} needs the field `{field}`")]
    Missing {
        /// The message kind.
        kind: &'static str,
        /// The absent field.
        field: &'static str,
    },
    /// A field the kind does not have is present.
    #[error("{kind} has no field `{field}`")]
    Unexpected {
        /// The message kind.
        kind: &'static str,
        /// The extra field.
        field: &'static str,
    },
    /// `"all"` or a list where one agent is required.
    #[error("{kind} must be addressed to one agent, not \"all\" or a list")]
    NeedsOneRecipient {
        /// The message kind.
        kind: &'static str,
    },
    /// A reason tag not defined for the kind.
    #[error("unknown reason \"{reason}\" for {kind}")]
    BadReason {
        /// The message kind.
        kind: &'static str,
        /// The tag as written.
        reason: String,
    },
}

impl WireMessage {
    /// Parses against the item data. Checks everything that does not depend on the
    /// board's state: kind, fields present for the kind, item name, count bounds, tags.
    pub fn parse(&self, items: &ItemRegistry) -> Result<BoardMessage, MessageError> {
        let from = AgentId(self.from);
        let item = items.parse(&self.item)?;
        match self.msg.as_str() {
            "REQUEST_MATERIAL" => {
                let kind = "REQUEST_MATERIAL";
                self.forbid(kind, "window", self.window.is_some())?;
                self.forbid(kind, "handover", self.handover.is_some())?;
                let reason = match self.reason.as_deref() {
                    None | Some("missing_material") => RequestReason::MissingMaterial,
                    Some("missing_tool") => RequestReason::MissingTool,
                    Some(other) => {
                        return Err(MessageError::BadReason { kind, reason: other.into() });
                    }
                };
                Ok(BoardMessage::RequestMaterial { from, to: self.to, item, count: self.count(kind)?, reason })
            }
            "OFFER_TRANSFER" => {
                let kind = "OFFER_TRANSFER";
                self.forbid(kind, "reason", self.reason.is_some())?;
                Ok(BoardMessage::OfferTransfer {
                    window: self.window(kind)?,
                    from,
                    to: self.one(kind)?,
                    item,
                    count: self.count(kind)?,
                    handover: self.handover.unwrap_or(Handover::Give),
                })
            }
            "CONFIRM_TRANSFER" => {
                let kind = "CONFIRM_TRANSFER";
                self.forbid(kind, "reason", self.reason.is_some())?;
                self.forbid(kind, "handover", self.handover.is_some())?;
                Ok(BoardMessage::ConfirmTransfer {
                    window: self.window(kind)?,
                    from,
                    to: self.one(kind)?,
                    item,
                    count: self.count(kind)?,
                })
            }
            "CANNOT_SUPPLY" => {
                let kind = "CANNOT_SUPPLY";
                self.forbid(kind, "count", self.count.is_some())?;
                self.forbid(kind, "handover", self.handover.is_some())?;
                let reason = match self.reason.as_deref() {
                    None | Some("no_surplus") => RefusalReason::NoSurplus,
                    Some("busy") => RefusalReason::Busy,
                    Some("unreachable") => RefusalReason::Unreachable,
                    Some(other) => {
                        return Err(MessageError::BadReason { kind, reason: other.into() });
                    }
                };
                Ok(BoardMessage::CannotSupply { window: self.window(kind)?, from, to: self.one(kind)?, item, reason })
            }
            other => Err(MessageError::UnknownKind(other.to_owned())),
        }
    }

    fn forbid(&self, kind: &'static str, field: &'static str, present: bool) -> Result<(), MessageError> {
        if present { Err(MessageError::Unexpected { kind, field }) } else { Ok(()) }
    }

    fn count(&self, kind: &'static str) -> Result<Count, MessageError> {
        let n = self.count.ok_or(MessageError::Missing { kind, field: "count" })?;
        Ok(Count::new(n)?)
    }

    fn window(&self, kind: &'static str) -> Result<WindowId, MessageError> {
        self.window.map(WindowId).ok_or(MessageError::Missing { kind, field: "window" })
    }

    fn one(&self, kind: &'static str) -> Result<AgentId, MessageError> {
        match self.to {
            Recipient::Agent(a) => Ok(a),
            Recipient::All | Recipient::Agents(_) => Err(MessageError::NeedsOneRecipient { kind }),
        }
    }

    /// The wire form of a typed message (names resolved through the registry).
    pub fn from_message(msg: &BoardMessage, items: &ItemRegistry) -> WireMessage {
        let (reason, handover) = match msg {
            BoardMessage::RequestMaterial { reason, .. } => (
                Some(match reason {
                    RequestReason::MissingMaterial => "missing_material",
                    RequestReason::MissingTool => "missing_tool",
                }),
                None,
            ),
            BoardMessage::OfferTransfer { handover, .. } => (None, Some(*handover)),
            BoardMessage::ConfirmTransfer { .. } => (None, None),
            BoardMessage::CannotSupply { reason, .. } => (
                Some(match reason {
                    RefusalReason::NoSurplus => "no_surplus",
                    RefusalReason::Busy => "busy",
                    RefusalReason::Unreachable => "unreachable",
                }),
                None,
            ),
        };
        WireMessage {
            msg: msg.kind().as_str().to_owned(),
            window: msg.window().map(|w| w.0),
            from: msg.from().0,
            to: msg.to(),
            item: items.display(msg.item()).to_string(),
            count: msg.count().map(|c| i64::from(c.get())),
            reason: reason.map(str::to_owned),
            handover,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items() -> ItemRegistry {
        ItemRegistry::new([("glass", 64), ("oak_planks", 64)]).unwrap()
    }

    fn wire(json: &str) -> WireMessage {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn parses_each_kind_and_round_trips() {
        let reg = items();
        for json in [
            r#"{"msg":"REQUEST_MATERIAL","from":0,"to":"all","item":"glass","count":2,"reason":"missing_material"}"#,
            r#"{"msg":"OFFER_TRANSFER","window":3,"from":1,"to":0,"item":"glass","count":2,"handover":"give"}"#,
            r#"{"msg":"CONFIRM_TRANSFER","window":3,"from":0,"to":1,"item":"glass","count":2}"#,
            r#"{"msg":"CANNOT_SUPPLY","window":3,"from":2,"to":0,"item":"glass","reason":"no_surplus"}"#,
        ] {
            let w = wire(json);
            let m = w.parse(&reg).unwrap();
            assert_eq!(WireMessage::from_message(&m, &reg), w, "{json}");
        }
    }

    #[test]
    fn rejects_malformed_fields() {
        let reg = items();
        let bad = |json: &str| wire(json).parse(&reg).unwrap_err();
        assert!(matches!(
            bad(r#"{"msg":"REQUEST_MATERIAL","from":0,"to":"all","item":"glas","count":2}"#),
            MessageError::UnknownItem(_)
        ));
        assert!(matches!(
            bad(r#"{"msg":"REQUEST_MATERIAL","from":0,"to":"all","item":"glass","count":0}"#),
            MessageError::BadCount(CountError::NotPositive(0))
        ));
        assert!(matches!(
            bad(r#"{"msg":"REQUEST_MATERIAL","from":0,"to":"all","item":"glass","count":-3}"#),
            MessageError::BadCount(CountError::NotPositive(-3))
        ));
        assert!(matches!(
            bad(r#"{"msg":"REQUEST_MATERIAL","from":0,"to":"all","item":"glass","count":100000}"#),
            MessageError::BadCount(CountError::TooLarge(_))
        ));
        assert!(matches!(
            bad(r#"{"msg":"OFFER_TRANSFER","from":1,"to":0,"item":"glass","count":2}"#),
            MessageError::Missing { field: "window", .. }
        ));
        assert!(matches!(
            bad(r#"{"msg":"CONFIRM_TRANSFER","window":1,"from":1,"to":"all","item":"glass","count":2}"#),
            MessageError::NeedsOneRecipient { .. }
        ));
        assert!(matches!(bad(r#"{"msg":"SHOUT","from":1,"to":0,"item":"glass"}"#), MessageError::UnknownKind(_)));
        assert!(serde_json::from_str::<WireMessage>(r#"{"msg":"X","from":1,"to":0,"item":"a","junk":1}"#).is_err());
    }
}
