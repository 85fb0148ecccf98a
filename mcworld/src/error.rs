//! Errors of the Minecraft adapter. A bot or bridge failing during an episode is not
//! an error of the run: the agent is marked failed and the trace says why. These are
//! the failures that stop a run before it starts, or the plumbing's own.

use std::path::PathBuf;
use std::time::Duration;

pub use crate::wire::ErrorCode;

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
