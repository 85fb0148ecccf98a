//! The kitchen section's tables, as `gatecrew analyze` prints them.

use crate::table;
use gatecrew_kitchen::{ExecutorKind, TimingMode};

use super::report::KitchenReport;

impl KitchenReport {
    /// The tables `gatecrew analyze` prints.
    pub fn tables(&self) -> String {
        let mut t = table::new([
            "level",
            "policy",
            "agents",
            "timing",
            "executor",
            "episodes",
            "CoS\npending\nexcluded",
            "CoS\npending\n= failed",
            "messages\n/ep",
            "llm calls\n/ep",
            "tokens/call\n(prompt +\ncompletion)",
        ]);
        for r in &self.rows {
            t.add_row([
                r.level.clone(),
                r.policy.to_string(),
                r.agents.to_string(),
                timing(r.timing).to_owned(),
                executor(r.executor).to_owned(),
                r.episodes.to_string(),
                format!("{:.3}", r.cos_pending_excluded),
                format!("{:.3}", r.cos_pending_failed),
                format!("{:.1}", r.messages_per_episode),
                format!("{:.1}", r.llm_calls_per_episode),
                tokens(r.prompt_tokens_per_call, r.completion_tokens_per_call, r.llm_calls_per_episode),
            ]);
        }
        let mut m = table::new([
            "policy",
            "agents",
            "timing",
            "executor",
            "levels",
            "CoS\npending\nexcluded",
            "CoS\npending\n= failed",
            "messages\n/ep",
            "llm calls\n/ep",
            "tokens/call\n(prompt +\ncompletion)",
        ]);
        for x in &self.means {
            m.add_row([
                x.policy.to_string(),
                x.agents.to_string(),
                timing(x.timing).to_owned(),
                executor(x.executor).to_owned(),
                x.levels.to_string(),
                format!("{:.3}", x.cos_pending_excluded),
                format!("{:.3}", x.cos_pending_failed),
                format!("{:.1}", x.messages_per_episode),
                format!("{:.1}", x.llm_calls_per_episode),
                tokens(x.prompt_tokens_per_call, x.completion_tokens_per_call, x.llm_calls_per_episode),
            ]);
        }
        format!(
            "kitchen: CoS per level, the mean over interval factors of each factor's completion rate\n{t}\n\
             means over levels\n{m}\n\
             pending excluded: completed / (completed + failed), the paper's formula; pending = failed: \
             completed / (completed + failed + pending), MindAgent's script\n"
        )
    }
}

fn timing(t: TimingMode) -> &'static str {
    match t {
        TimingMode::File => "file",
        TimingMode::Oracle => "oracle",
    }
}

fn executor(e: ExecutorKind) -> &'static str {
    match e {
        ExecutorKind::Scripted => "scripted",
        ExecutorKind::Llm => "llm",
    }
}

fn tokens(prompt: f64, completion: f64, calls: f64) -> String {
    if calls == 0.0 { "-".into() } else { format!("{prompt:.0} + {completion:.1}") }
}
