//! `gated_central_dag` (DESIGN section 6, the paper's "VillagerAgent + Ours"):
//! `central_dag`'s manager, its reports and its re-plans, but a bot reports an issue to
//! the manager only when its own gate escalates it; an issue the gate keeps local goes
//! to the local solver as under `gated`, and the crew is not stopped for it. The
//! manager, the bot's side of it and what a re-plan costs are `central_dag`'s.

use gatecrew_gating::GatePolicy;
use gatecrew_protocol::trace::Decision;

use super::central_dag::CentralDag;
use super::{BotSide, Channel, Style};

/// `gated_central_dag`: the gate in front of `central_dag`'s manager.
#[derive(Debug, Clone, Copy)]
pub struct GatedCentralDag;

impl Style for GatedCentralDag {
    fn gate(&self) -> GatePolicy {
        GatePolicy::Gated
    }

    fn channel_takes(&self, decision: Decision) -> bool {
        decision == Decision::Escalate
    }

    fn writes_with_model(&self) -> bool {
        CentralDag.writes_with_model()
    }

    fn bot(&self) -> Option<Box<dyn BotSide>> {
        CentralDag.bot()
    }

    fn channel(&self, setup: &crate::setup::Setup) -> Option<Box<dyn Channel>> {
        CentralDag.channel(setup)
    }
}
