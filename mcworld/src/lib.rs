//! gatecrew on a real Minecraft server.
//!
//! The same agent cores, board core, gate and trace recorder that run in the embedded
//! world run here; only the world differs. The episode core runs in external mode
//! ([`gatecrew_crew::Episode::new_external`]): an agent's action is sent to the
//! mineflayer bridge (`bridge/`, Node.js, JSON lines on stdio, started with
//! tokio::process), and its verified outcome is built from what the bot itself
//! observed afterwards ([`verify`]). Admin commands only set the scenario up
//! ([`stage`]). Ticks are game time: 20 a second, counted from the episode's start.
//!
//! The episode's world is the adapter's mirror of the server: it starts as the
//! scenario it set up and follows every observation. It prices actions, plans walks
//! that keep off unbuilt blueprint cells, shows each agent its view, and answers the
//! oracle recorded for UER: the oracle is the adapter's view of the scenario, not a
//! look at the server's hidden state.
//!
//! Faults: a bot that cannot join, is kicked or loses its connection, and a bridge
//! process that dies, each mark the agents concerned failed (`agent_failed` in the
//! trace, with the cause); the rest of the crew goes on, and when nobody is left the
//! episode ends as `agents_failed`.

mod bridge;
pub mod coords;
mod driver;
pub mod error;
mod node;
pub mod partner;
mod server;
mod stage;
mod verify;
pub mod wire;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use gatecrew_protocol::AgentId;
use gatecrew_world::GameData;

pub use bridge::{Bridge, Latency};
pub use coords::Origin;
pub use driver::{McRun, Timings, run, run_talking};
pub use error::{BridgeError, ErrorCode, McError, SetupError, StartError};
pub use node::{bridge_dir, ensure_installed};
pub use server::LocalServer;
pub use verify::Placements;

/// Which server to play on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Server {
    /// A user's server (offline-mode accounts; the bots need op for the setup).
    Remote {
        /// Host name or address.
        host: String,
        /// Its TCP port.
        port: u16,
    },
    /// Start the local flying-squid test server (`bridge/harness.js`).
    Local,
}

impl Server {
    /// Parses `HOST:PORT`.
    pub fn parse_address(s: &str) -> Result<Server, McError> {
        let bad = || McError::BadOption(format!("server {s:?}: expected HOST:PORT"));
        let (host, port) = s.rsplit_once(':').ok_or_else(bad)?;
        let port: u16 = port.parse().map_err(|_| bad())?;
        if host.is_empty() || port == 0 {
            return Err(bad());
        }
        Ok(Server::Remote { host: host.trim_matches(['[', ']']).to_owned(), port })
    }
}

/// A fault to inject during a run (fault drills and their tests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// At this tick another bot kicks `agent`'s bot with the server's `/kick`.
    KickAt {
        /// The agent whose bot is kicked.
        agent: AgentId,
        /// The episode tick at (or after) which it happens.
        tick: u64,
    },
    /// At this tick the bridge process is killed by its PID.
    KillBridgeAt {
        /// The episode tick at (or after) which it happens.
        tick: u64,
    },
    /// A slip of the hand: the first placement `agent` starts at or after this tick puts
    /// `item` instead of the item asked for (when the bot holds some), so a wrong block
    /// stands on the server until a bot notices it from the world.
    WrongItemAt {
        /// The agent whose placement slips.
        agent: AgentId,
        /// The episode tick at (or after) which the slip is armed.
        tick: u64,
        /// The item placed instead (a Minecraft item name).
        item: String,
    },
}

/// Timeouts of the bridge commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Joining the server.
    pub join: Duration,
    /// One walk (the pathfinder is stopped when it runs out).
    pub walk: Duration,
    /// Any other command.
    pub command: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts { join: Duration::from_secs(30), walk: Duration::from_secs(25), command: Duration::from_secs(15) }
    }
}

/// How to run on Minecraft.
#[derive(Debug, Clone)]
pub struct McOptions {
    /// Which server: a local flying-squid started for the run, or a remote one.
    pub server: Server,
    /// Minecraft version (1.20.4: flying-squid and mineflayer are tested on it).
    pub version: String,
    /// Where world (0, 0, 0) is; default: the local server's ground, or a vanilla
    /// superflat's (0, -60, 0).
    pub origin: Option<Origin>,
    /// The bridge package; default: found by [`bridge_dir`].
    pub bridge_dir: Option<PathBuf>,
    /// Command timeouts.
    pub timeouts: Timeouts,
    /// Faults to inject.
    pub faults: Vec<Fault>,
    /// The remote server is the flying-squid harness (`bridge/harness.js`) started
    /// elsewhere: use its stand-ins and its ground height.
    pub flying_squid: bool,
}

impl McOptions {
    /// Options for a server with defaults for the rest.
    pub fn new(server: Server) -> Self {
        McOptions {
            server,
            version: "1.20.4".into(),
            origin: None,
            bridge_dir: None,
            timeouts: Timeouts::default(),
            faults: Vec::new(),
            flying_squid: false,
        }
    }
}

/// What every part of a run shares.
#[derive(Debug, Clone)]
pub(crate) struct Ctx {
    pub bridge: Arc<Bridge>,
    pub names: Vec<String>,
    pub origin: Origin,
    pub standins: bool,
    pub timeouts: Timeouts,
    #[allow(dead_code)]
    pub data: Arc<GameData>,
}

impl Ctx {
    /// The bot name of an agent (its id as the trace writes it: `bot0`, `bot1`, ...).
    pub(crate) fn name(&self, agent: AgentId) -> &str {
        self.names.get(agent.index()).map_or("?", String::as_str)
    }

    /// The agent a bot name belongs to.
    pub(crate) fn agent(&self, name: &str) -> Option<AgentId> {
        self.names.iter().position(|n| n == name).map(|i| AgentId(i as u32))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn server_addresses() {
        assert_eq!(
            Server::parse_address("mc.example:25565").unwrap(),
            Server::Remote { host: "mc.example".into(), port: 25565 }
        );
        assert_eq!(Server::parse_address("[::1]:25570").unwrap(), Server::Remote { host: "::1".into(), port: 25570 });
        for bad in ["nohost", ":25565", "h:0", "h:port", "h:70000"] {
            assert!(Server::parse_address(bad).is_err(), "{bad}");
        }
    }
}
