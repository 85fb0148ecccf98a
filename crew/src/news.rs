//! What the board tells an agent at a wake-up (DESIGN section 5.6). The agent core and
//! the coordination styles both read it, so it lives apart from either.

use gatecrew_protocol::{AgentId, BoardMessage, RejectKind, WindowClosed, WindowId};

/// Board news handed to an agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardNews {
    /// A message the board accepted (the board is public: everyone sees everything).
    Posted {
        /// The window the board filed it under: what answers and closings refer to.
        window: WindowId,
        /// The message as the board accepted it (its sender included).
        msg: BoardMessage,
    },
    /// A window closed (confirmed, timed out or refused): requests waiting on it end.
    Closed(WindowClosed),
    /// A free chat line (the `flatcomm` baseline's status reports).
    Chat {
        /// Who said it.
        from: AgentId,
    },
    /// The board rejected one of this agent's own messages.
    Rejected {
        /// The message as the agent sent it, so that it can undo what it assumed.
        msg: BoardMessage,
        /// The board's reason, which decides whether the agent falls back at once.
        error: RejectKind,
    },
}
