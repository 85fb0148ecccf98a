//! The model-driven bots' table (`--bots model`): per policy, the calls their model
//! answered, the server-counted tokens per call and per episode, the largest prompt
//! (how far a bot's context grew), and the replies that could not be used.

use crate::table;

use super::{Group, Report};

/// One row of the table: its name and how a policy's group gives its cell.
type Figure<'a> = (&'static str, &'a dyn Fn(&Group) -> String);

impl Report {
    /// The table, over every policy's `all` group; empty when no bot asked a model.
    pub fn model_table(&self) -> String {
        let groups: Vec<_> =
            self.policies.iter().filter_map(|p| self.group(p, "all")).filter(|g| g.model.calls > 0).collect();
        if groups.is_empty() {
            return String::new();
        }
        // Policies as columns, as in the main table: ten figures side by side do not fit
        // 100 columns without breaking words.
        let mut header = vec!["model-driven bots".to_owned()];
        header.extend(groups.iter().map(|g| g.policy.clone()));
        let mut t = table::new(header);
        let per = |n: u64, d: u64| if d == 0 { "-".to_owned() } else { format!("{:.1}", n as f64 / d as f64) };
        let rows: [Figure<'_>; 9] = [
            ("episodes", &|g| g.episodes.to_string()),
            ("decisions", &|g| g.model.decisions.to_string()),
            ("calls", &|g| g.model.calls.to_string()),
            ("prompt tok/call", &|g| per(g.model.prompt_tokens, g.model.calls)),
            ("completion tok/call", &|g| per(g.model.completion_tokens, g.model.calls)),
            ("tokens/episode", &|g| per(g.model.prompt_tokens + g.model.completion_tokens, g.episodes as u64)),
            ("largest prompt", &|g| g.model.prompt_max.to_string()),
            ("invalid replies", &|g| g.model.invalid.to_string()),
            ("fallbacks", &|g| g.model.fallbacks.to_string()),
        ];
        for (name, cell) in rows {
            let mut row = vec![name.to_owned()];
            row.extend(groups.iter().map(|g| cell(g)));
            t.add_row(row);
        }
        format!("{t}\n")
    }
}
