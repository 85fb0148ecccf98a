//! The metrics panel: DESIGN section 8's figures for the episode so far, folded by the
//! same code `gatecrew analyze` runs ([`EpisodeMetrics`]), so that once the episode has
//! ended the panel shows what `analyze` reports for its trace.

use gatecrew_protocol::metrics::EpisodeMetrics;
use gatecrew_protocol::trace::Event;
use serde::Serialize;

/// A rate as its two counts (the page shows `—` for an empty denominator).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Numerator.
    pub n: u64,
    /// Denominator.
    pub of: u64,
}

/// What the panel shows.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Panel {
    /// TSR: `episode_end`'s once the episode has ended; before, the blueprint cells
    /// the view counts as right over the blueprint's blocks.
    pub tsr: Option<f64>,
    /// Whether `tsr` is the episode end's.
    pub tsr_final: bool,
    /// Msg: board messages, chat lines and manager lines so far.
    pub msg: u64,
    /// Their modelled tokens (chat and manager lines).
    pub msg_tokens: u64,
    /// LRR: material and tool issues resolved locally / those resolved.
    pub lrr: Counts,
    /// ECR: windows closed by a confirmed transfer / windows opened.
    pub ecr: Counts,
    /// UER: escalations whose oracle knew a local recovery / escalations.
    pub uer: Counts,
    /// Gate decisions so far, and how many escalated.
    pub gated: Counts,
    /// Issues detected so far (waits on a teammate's block apart).
    pub issues: u64,
    /// Environment-interacting actions (CS).
    pub cs: u64,
    #[serde(skip)]
    m: EpisodeMetrics,
}

impl Panel {
    /// Folds one event in.
    pub(crate) fn observe(&mut self, ev: &Event) {
        self.m.observe(ev);
    }

    /// Brings the shown figures up to date; `placed` and `total` are the view's
    /// blueprint counts (for the TSR before the end).
    pub(crate) fn refresh(&mut self, placed: u32, total: u32) {
        let m = &self.m;
        self.tsr_final = m.end_reason.is_some();
        self.tsr = if self.tsr_final { Some(m.tsr) } else { (total > 0).then(|| f64::from(placed) / f64::from(total)) };
        self.msg = m.msg;
        self.msg_tokens = m.msg_tokens;
        self.lrr = Counts { n: m.acct.item_resolved_local, of: m.acct.item_resolved() };
        self.ecr = Counts { n: m.windows_confirmed, of: m.windows_opened };
        self.uer = Counts { n: m.escalated_unnecessary, of: m.escalated };
        self.gated = Counts { n: m.escalated, of: m.gated };
        self.issues = m.issues;
        self.cs = m.cs;
    }

    /// The metrics folded so far, as `analyze` computes them.
    pub fn metrics(&self) -> &EpisodeMetrics {
        &self.m
    }
}
