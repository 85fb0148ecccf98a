//! The model-driven bots' table (`--bots model`): per policy, the calls their model
//! answered, the server-counted tokens per call and per episode, the largest prompt
//! (how far a bot's context grew), and the replies that could not be used.

use crate::table;

use super::Report;

impl Report {
    /// The table, over every policy's `all` group; empty when no bot asked a model.
    pub fn model_table(&self) -> String {
        let groups: Vec<_> =
            self.policies.iter().filter_map(|p| self.group(p, "all")).filter(|g| g.model.calls > 0).collect();
        if groups.is_empty() {
            return String::new();
        }
        let mut t = table::new([
            "model-driven bots",
            "episodes",
            "decisions",
            "calls",
            "prompt tok/call",
            "completion tok/call",
            "tokens/episode",
            "largest prompt",
            "invalid replies",
            "fallbacks",
        ]);
        for g in groups {
            let m = &g.model;
            let per = |n: u64, d: u64| if d == 0 { "-".to_owned() } else { format!("{:.1}", n as f64 / d as f64) };
            t.add_row([
                g.policy.clone(),
                g.episodes.to_string(),
                m.decisions.to_string(),
                m.calls.to_string(),
                per(m.prompt_tokens, m.calls),
                per(m.completion_tokens, m.calls),
                per(m.prompt_tokens + m.completion_tokens, g.episodes as u64),
                m.prompt_max.to_string(),
                m.invalid.to_string(),
                m.fallbacks.to_string(),
            ]);
        }
        format!("{t}\n")
    }
}
