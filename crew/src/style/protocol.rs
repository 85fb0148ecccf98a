//! The gated protocol's style (and that of the gate's ablations): every answer is the
//! default of [`Style`]. Coordination is the board's four typed messages, sent only
//! when the bot's gate escalates an issue.

use super::Style;

/// The protocol's style.
#[derive(Debug, Clone, Copy)]
pub struct Protocol;

impl Style for Protocol {}
