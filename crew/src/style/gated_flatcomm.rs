//! `gated_flatcomm` (DESIGN section 6, the paper's "MindCraft + Ours"): `flatcomm`'s
//! free chat, but an issue reaches it only when the bot's own gate escalates it. What
//! the chat costs is `flatcomm`'s (every line interrupts every reader, a bot holds one
//! conversation at a time, lines are written by the model under the `llm` executor);
//! what the gate brings is the gate's (its three tiers, the history penalty with the
//! refusal cooldown, and no second look at an unchanged issue). Issues the protocol
//! cannot carry stay local, as the gate's `no_message` rule says, instead of being
//! chatted about.

use gatecrew_gating::GatePolicy;

use super::flatcomm::Flatcomm;
use super::{Channel, Style};
use crate::news::BoardNews;

/// `gated_flatcomm`: the gate in front of `flatcomm`'s chat.
#[derive(Debug, Clone, Copy)]
pub struct GatedFlatcomm;

impl Style for GatedFlatcomm {
    fn gate(&self) -> GatePolicy {
        GatePolicy::Gated
    }

    fn read_ticks(&self, news: &BoardNews) -> u64 {
        Flatcomm.read_ticks(news)
    }

    fn charges_reading(&self) -> bool {
        Flatcomm.charges_reading()
    }

    fn busy(&self, giving: bool, awaiting: bool) -> bool {
        Flatcomm.busy(giving, awaiting)
    }

    fn board_as_chat(&self) -> bool {
        Flatcomm.board_as_chat()
    }

    fn writes_with_model(&self) -> bool {
        Flatcomm.writes_with_model()
    }

    fn model_view(&self) -> crate::bots::View {
        Flatcomm.model_view()
    }

    fn channel(&self, setup: &crate::setup::Setup) -> Option<Box<dyn Channel>> {
        Flatcomm.channel(setup)
    }
}
