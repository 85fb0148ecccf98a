//! `no_partition` (DESIGN section 6): the gate and the board of the protocol, but no
//! partition between public and private state: every public message enters every bot's
//! context, and a teammate's request is handled as if it were the bot's own issue.

use gatecrew_gating::GatePolicy;

use super::Style;
use crate::news::BoardNews;

/// Ticks a `no_partition` bot loses taking any public message into its own context. A
/// round number, not a measurement: docs/baselines.md says so and lists it.
pub const NO_PARTITION_READ_TICKS: u64 = 10;

/// `no_partition`: the protocol, with every public message read as private.
#[derive(Debug, Clone, Copy)]
pub struct NoPartition;

impl Style for NoPartition {
    fn gate(&self) -> GatePolicy {
        GatePolicy::Gated
    }

    fn read_ticks(&self, news: &BoardNews) -> u64 {
        match news {
            BoardNews::Posted { .. } | BoardNews::Chat { .. } => NO_PARTITION_READ_TICKS,
            BoardNews::Closed(_) | BoardNews::Rejected { .. } => 0,
        }
    }

    fn charges_reading(&self) -> bool {
        true
    }

    fn echoes_requests(&self) -> bool {
        true
    }

    fn model_view(&self) -> crate::bots::View {
        crate::bots::View::Board
    }
}
