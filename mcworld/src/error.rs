//! Errors of the Minecraft adapter. A bot or bridge failing during an episode is not
//! an error of the run: the agent is marked failed and the trace says why. These are
//! the failures that stop a run before it starts, or the plumbing's own.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

/// Why a bridge command failed, as the bridge classifies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The command ran out of time.
    Timeout,
    /// The pathfinder found no way.
    NoPath,
    /// The target cell is taken.
    Occupied,
    /// Nothing to attach a block to.
    NoSupport,
    /// Too far.
    OutOfReach,
    /// The bot lacks the items.
    MissingItems,
    /// Nothing to dig there.
    NothingThere,
    /// A server-side stand-in said no (its message says why).
    Refused,
    /// No chest there.
    NoContainer,
    /// The chest is full.
    ContainerFull,
    /// The chest lacks the items.
    ContainerShort,
    /// Crafting needs a table in reach.
    NeedsTable,
    /// The bot was kicked or lost its connection.
    BotGone,
    /// No such bot, or not connected.
    NotConnected,
    /// The server cannot be reached.
    Unreachable,
    /// The request was malformed (a bug on this side).
    BadRequest,
    /// The bridge hit an unexpected exception.
    Internal,
    /// A code this build does not know.
    #[serde(other)]
    Unknown,
}

impl ErrorCode {
    /// Whether the bot is gone for good (the agent fails), rather than one action failing.
    pub fn is_fatal(self) -> bool {
        matches!(self, ErrorCode::BotGone | ErrorCode::NotConnected | ErrorCode::Unreachable)
    }
}

/// A request to the bridge that did not succeed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum BridgeError {
    /// The bridge process is gone: every request fails from then on.
    #[error("the bridge process exited ({0})")]
    Exited(String),
    /// The bridge answered with an error.
    #[error("{bot}: {message}")]
    Command {
        /// The bot.
        bot: String,
        /// The bridge's classification.
        code: ErrorCode,
        /// Its message.
        message: String,
        /// What the bot knew about itself when it failed, if anything.
        data: Option<Box<crate::wire::Data>>,
    },
    /// No answer in time (the bridge is stuck; the command's own timeout is shorter).
    #[error("{bot}: no answer from the bridge within {after:?}")]
    NoAnswer {
        /// The bot.
        bot: String,
        /// How long it waited.
        after: Duration,
    },
}

impl BridgeError {
    /// Whether the bot (or the whole bridge) is gone for good.
    pub fn is_fatal(&self) -> bool {
        match self {
            BridgeError::Exited(_) | BridgeError::NoAnswer { .. } => true,
            BridgeError::Command { code, .. } => code.is_fatal(),
        }
    }
}

/// What stops a Minecraft run from starting or finishing.
#[derive(Debug, thiserror::Error)]
pub enum McError {
    /// A bad option (address, origin, version).
    #[error("{0}")]
    BadOption(String),
    /// No bridge package where it was looked for.
    #[error("no bridge package at {0} (expected package.json and bridge.js; pass --bridge-dir)")]
    NoBridge(PathBuf),
    /// A program could not be started.
    #[error("cannot run {program}: {source} (the Minecraft world needs Node.js 20 and npm)")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `npm ci` failed.
    #[error("installing the bridge's packages failed (npm ci in {dir}): {detail}")]
    Install {
        /// The bridge directory.
        dir: PathBuf,
        /// npm's last words.
        detail: String,
    },
    /// The local server did not come up.
    #[error("the local flying-squid server did not start: {0}")]
    ServerStart(String),
    /// No bot could join.
    #[error("no bot could join the server: {0}")]
    NoBots(String),
    /// Setting the scenario up failed (admin commands refused, state not as expected).
    #[error("scenario setup failed: {0}")]
    Setup(String),
    /// The bridge failed outside of an agent's action.
    #[error(transparent)]
    Bridge(#[from] BridgeError),
}
