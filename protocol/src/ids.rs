//! Newtype ids, so that an agent id can never be passed where a window id is meant.

use std::fmt;
use std::ops::{Add, Sub};

use serde::{Deserialize, Serialize};

/// A bot of the crew. Ids are dense, from 0, in the order the crew config lists them.
/// One read from outside (a trace, a wire message) is below [`AgentId::LIMIT`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct AgentId(pub u32);

impl<'de> Deserialize<'de> for AgentId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        AgentId::read(u32::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// An agent id read from outside at or past [`AgentId::LIMIT`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("agent id {0} is past the largest an episode has ({max})", max = AgentId::LIMIT - 1)]
pub struct AgentIdError(pub u32);

impl AgentId {
    /// One more than the largest agent id read from outside. Readers keep per-agent
    /// state indexed by id (the viewer's bot cards, the metrics), so an id is a size:
    /// unbounded, one event naming agent 4,294,967,295 made the replay server allocate
    /// gigabytes. The largest crew gatecrew builds is 10,000 bots (`MAX_CREW`) and a
    /// few human seats; 16,384 leaves room and keeps a maximal reader's tables small.
    pub const LIMIT: u32 = 16_384;

    /// An id read from outside (a trace, a wire message, a recipient list): below
    /// [`AgentId::LIMIT`]. Every deserializer of an id goes through here.
    pub fn read(n: u32) -> Result<AgentId, AgentIdError> {
        if n < AgentId::LIMIT { Ok(AgentId(n)) } else { Err(AgentIdError(n)) }
    }

    /// The id as an index into per-agent vectors.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bot{}", self.0)
    }
}

/// A coordination window on the board, opened by a `REQUEST_MATERIAL`. The board
/// assigns ids densely from 0 in posting order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct WindowId(pub u32);

impl fmt::Display for WindowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "w{}", self.0)
    }
}

/// An issue detected by an agent, unique within an episode: the agent id is folded into
/// the number (`agent * 1_000_000 + seq`) so that agents can mint ids without talking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct IssueId(pub u64);

impl IssueId {
    /// The `seq`-th issue of `agent`.
    pub fn new(agent: AgentId, seq: u32) -> Self {
        IssueId(u64::from(agent.0) * 1_000_000 + u64::from(seq))
    }
}

impl fmt::Display for IssueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "i{}", self.0)
    }
}

/// Simulated time. Twenty ticks are one second of Minecraft game time; nothing inside
/// an episode reads the wall clock.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Tick(pub u64);

impl Add<u64> for Tick {
    type Output = Tick;
    fn add(self, rhs: u64) -> Tick {
        Tick(self.0.saturating_add(rhs))
    }
}

impl Sub<Tick> for Tick {
    type Output = u64;
    fn sub(self, rhs: Tick) -> u64 {
        self.0.saturating_sub(rhs.0)
    }
}

impl fmt::Display for Tick {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t{}", self.0)
    }
}
