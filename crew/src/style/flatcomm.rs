//! `flatcomm` (DESIGN section 6, MindCraft-like free chat): every issue is asked about
//! in the open, every line interrupts every bot, a bot holds one conversation at a
//! time, and nothing remembers that a request was refused (no cooldown, no suppressed
//! repeats).

use super::Style;
use crate::agent::BoardNews;

/// Ticks a `flatcomm` bot loses stopping to read (and think about) a chat line. A round
/// number, not a measurement: docs/baselines.md says so and lists it.
pub const FLATCOMM_READ_TICKS: u64 = 20;

/// `flatcomm`: free chat, costly to read, no memory of refusals.
#[derive(Debug, Clone, Copy)]
pub struct Flatcomm;

impl Style for Flatcomm {
    fn read_ticks(&self, news: &BoardNews) -> u64 {
        match news {
            BoardNews::Posted { .. } | BoardNews::Chat { .. } => FLATCOMM_READ_TICKS,
            BoardNews::Closed(_) | BoardNews::Rejected { .. } => 0,
        }
    }

    fn busy(&self, giving: bool, awaiting: bool) -> bool {
        giving || awaiting
    }

    fn chats_status(&self) -> bool {
        true
    }

    fn refusal_cooldown(&self, _gate_cooldown: u64) -> u64 {
        0
    }

    fn suppresses_repeats(&self) -> bool {
        false
    }

    fn board_as_chat(&self) -> bool {
        true
    }

    fn writes_with_model(&self) -> bool {
        true
    }
}
