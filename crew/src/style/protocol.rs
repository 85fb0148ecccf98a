//! The gated protocol's style (and that of the gate's ablations): every answer is the
//! default of [`Style`]. Coordination is the board's four typed messages, sent only
//! when the bot's gate escalates an issue; the gate procedure is the policy's.

use gatecrew_gating::GatePolicy;

use super::Style;

/// The protocol's style, with the gate procedure its bots run.
#[derive(Debug, Clone, Copy)]
pub struct Protocol(pub GatePolicy);

impl Style for Protocol {
    fn gate(&self) -> GatePolicy {
        self.0
    }
}
