//! `flatcomm` (DESIGN section 6, MindCraft-like free chat): every issue is asked about
//! in the open, every line interrupts every bot, a bot holds one conversation at a
//! time, and nothing remembers that a request was refused (no cooldown, no suppressed
//! repeats). The board's exchanges are recorded as chat lines, each with a modelled
//! token cost that grows with the chat the bot has read ([`Chat`]).

use gatecrew_gating::GatePolicy;
use gatecrew_protocol::trace::{EventKind, LineKind};
use gatecrew_protocol::{AgentId, Recipient};

use super::{Aside, Channel, Host, Style};
use crate::news::BoardNews;

/// Ticks a `flatcomm` bot loses stopping to read (and think about) a chat line. A round
/// number, not a measurement: docs/baselines.md says so and lists it.
pub const FLATCOMM_READ_TICKS: u64 = 20;

/// Fixed prompt of a chat reply (system prompt, the bot's state).
const CHAT_BASE_TOKENS: u32 = 350;
/// Each chat line the bot has read is sent again in its next prompt, up to a window.
const CHAT_LINE_TOKENS: u32 = 30;
const CHAT_HISTORY: u32 = 30;

/// `flatcomm`: free chat, costly to read, no memory of refusals.
#[derive(Debug, Clone, Copy)]
pub struct Flatcomm;

impl Style for Flatcomm {
    fn gate(&self) -> GatePolicy {
        GatePolicy::NoGate
    }

    fn read_ticks(&self, news: &BoardNews) -> u64 {
        match news {
            BoardNews::Posted { .. } | BoardNews::Chat { .. } => FLATCOMM_READ_TICKS,
            BoardNews::Closed(_) | BoardNews::Rejected { .. } => 0,
        }
    }

    fn charges_reading(&self) -> bool {
        true
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

    fn model_view(&self) -> crate::bots::View {
        crate::bots::View::Chat
    }

    fn channel(&self, _setup: &crate::setup::Setup) -> Option<Box<dyn Channel>> {
        Some(Box::new(Chat::default()))
    }
}

/// The crew's chat: every line is read by every bot, so each bot's next prompt carries
/// every line said so far, up to [`CHAT_HISTORY`].
#[derive(Debug, Clone, Default)]
struct Chat {
    lines: u32,
}

impl Chat {
    /// Records a line: its tokens are the reply's prompt with the chat read so far.
    fn line(&mut self, from: AgentId, to: Recipient, host: &mut dyn Host) {
        let tokens = CHAT_BASE_TOKENS + CHAT_LINE_TOKENS * self.lines.min(CHAT_HISTORY);
        host.record(EventKind::Chat { from, to, tokens });
        self.lines += 1;
    }
}

impl Channel for Chat {
    fn clone_box(&self) -> Box<dyn Channel> {
        Box::new(self.clone())
    }

    fn hear(&mut self, from: AgentId, aside: Aside, host: &mut dyn Host) {
        let Aside::Chat(to) = aside else { return };
        if host.lost(from, LineKind::Chat) {
            return;
        }
        self.line(from, to, host);
        host.broadcast(BoardNews::Chat { from });
    }

    fn posted(&mut self, from: AgentId, to: Recipient, host: &mut dyn Host) -> bool {
        self.line(from, to, host);
        true
    }
}
