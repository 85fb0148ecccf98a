//! Errors of the Minecraft adapter. A bot or bridge failing during an episode is not
//! an error of the run: the agent is marked failed and the trace says why. These are
//! the failures that stop a run before it starts, or the plumbing's own.

use std::path::PathBuf;
use std::time::Duration;

pub use crate::wire::ErrorCode;

/// A request to the bridge that did not succeed. Cloned to every request waiting when
/// the process dies, hence the shared source below.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum BridgeError {
    /// The bridge process is gone: every request fails from then on. Its exit status
    /// (or what was seen of its end), as text.
    #[error("the bridge process exited ({0})")]
    Exited(String),
    /// A request could not be written to the bridge's stdin: the process is going.
    #[error("the bridge process exited (pid {pid}: cannot write a request: {source})")]
    Write {
        /// The bridge's process id, to match the log.
        pid: u32,
        /// The write's error.
        #[source]
        source: std::sync::Arc<std::io::Error>,
    },
    /// The bridge answered with an error.
    #[error("{bot}: {message}")]
    Command {
        /// The bot's name on the server (the command was its).
        bot: String,
        /// The bridge's classification.
        code: ErrorCode,
        /// The bridge's words, for the person reading the log.
        message: String,
        /// What the bot knew about itself when it failed, if anything.
        data: Option<Box<crate::wire::Data>>,
    },
    /// No answer in time (the bridge is stuck; the command's own timeout is shorter).
    #[error("{bot}: no answer from the bridge within {after:?}")]
    NoAnswer {
        /// The bot's name on the server (the command was its).
        bot: String,
        /// How long it waited.
        after: Duration,
    },
}

impl BridgeError {
    /// Whether the bot (or the whole bridge) is gone for good.
    pub fn is_fatal(&self) -> bool {
        match self {
            BridgeError::Exited(_) | BridgeError::Write { .. } | BridgeError::NoAnswer { .. } => true,
            BridgeError::Command { code, .. } => code.is_fatal(),
        }
    }
}

/// What stops a Minecraft run from starting or finishing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McError {
    /// A bad option (address, origin, version): what was given and what was expected.
    #[error("{0}")]
    BadOption(String),
    /// No bridge package where it was looked for.
    #[error("no bridge package at {0} (expected package.json and bridge.js; pass --bridge-dir)")]
    NoBridge(PathBuf),
    /// A program could not be started.
    #[error("cannot run {program}: {source} (the Minecraft world needs Node.js 20 and npm)")]
    Spawn {
        /// The program (`node`, `npm`).
        program: String,
        /// Why the system would not start it (usually: not installed).
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
    /// The local server (or the bridge process) did not come up.
    #[error("the local flying-squid server did not start: {0}")]
    ServerStart(#[source] StartError),
    /// Setting the scenario up failed (admin commands refused, state not as expected).
    #[error("scenario setup failed: {0}")]
    Setup(#[source] SetupError),
    /// The bridge failed outside of an agent's action.
    #[error(transparent)]
    Bridge(#[from] BridgeError),
}

/// Why a Node.js process of the adapter (the server harness, the bridge) did not
/// become ready.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// The harness was started without a pipe on its stdout.
    #[error("no stdout")]
    NoStdout,
    /// The bridge was started without a pipe on its stdout.
    #[error("the bridge has no stdout")]
    BridgeNoStdout,
    /// The harness ended before saying it was ready.
    #[error("the harness exited before it was ready ({status})")]
    Exited {
        /// How it ended, as the adapter saw it once it stopped it.
        status: String,
    },
    /// Its stdout could not be read.
    #[error("reading the harness: {0}")]
    Read(#[source] std::io::Error),
    /// It said nothing in time (and was stopped).
    #[error("not ready within {after:?} ({status})")]
    NotReady {
        /// How long it was given.
        after: Duration,
        /// How it ended once stopped.
        status: String,
    },
    /// Its first line was not the JSON of a `ready` event.
    #[error("unexpected first line {line:?}: {source}")]
    Malformed {
        /// The line, to show what the harness said instead.
        line: String,
        /// Why it did not parse.
        #[source]
        source: serde_json::Error,
    },
    /// Its first line was another event than `ready`.
    #[error("unexpected first line {line:?}")]
    NotReadyEvent {
        /// The line, to show what the harness said instead.
        line: String,
    },
}

/// How the staged scenario differs from what the episode expects.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// The agent has no body in the scenario.
    #[error("{agent} is not in the scenario")]
    NotInScenario {
        /// The agent the episode has and the scenario does not.
        agent: gatecrew_protocol::AgentId,
    },
    /// After the teleports, the bot's feet are not at its start.
    #[error("{bot} stands at {feet:?} after /tp {} {} {}", .at[0], .at[1], .at[2])]
    Misplaced {
        /// The bot's name.
        bot: String,
        /// Where its feet are, if it knows (Minecraft coordinates).
        feet: Option<[i32; 3]>,
        /// Where it was sent.
        at: [i32; 3],
    },
    /// The bot's inventory is not the scenario's.
    #[error("{bot} holds {have:?}, the scenario gives it {want:?}")]
    Inventory {
        /// The bot's name.
        bot: String,
        /// Item names and counts it holds.
        have: std::collections::BTreeMap<String, u32>,
        /// Item names and counts the scenario gives it.
        want: std::collections::BTreeMap<String, u32>,
    },
}
