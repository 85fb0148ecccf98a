//! The constrained output form, generated from the level: every command an agent can be
//! given in this kitchen (its action space in MindAgent's DSL), as a GBNF grammar for
//! llama.cpp's `grammar` field and as a JSON schema for `response_format`. A server that
//! honours either can only emit replies of the right shape: one command per agent, in
//! agent order, each naming this crew's agents and this kitchen's locations and the
//! level's raw ingredients. Whether a command makes sense now (the agent is there, the
//! tool is free) is still the world's to say, as it is for GPT-4 in MindAgent.
//!
//! The grammar lists each agent's commands as alternatives rather than factoring them
//! into shared rules: the language is then exactly [`commands`], which the tests check
//! by reading the literals back, and the size stays small (level_0: 15 commands an
//! agent; the largest kitchen about 60).

use std::fmt::Write;

use serde_json::{Value, json};

use crate::executor::render;
use crate::world::{Action, LocationId, World};

/// Every command `agent` can be given in `w`'s kitchen, rendered in the DSL: `noop`;
/// `goto`, `put` every location; `get` each of the level's raw ingredients from each
/// storage, and the content of every other location but the serving table; `activate`
/// every cooking tool.
pub fn commands(w: &World, agent: usize) -> Vec<String> {
    let raw = render::level_raw(w);
    let mut actions = vec![Action::Noop];
    let locs = (0..w.locations().len()).map(|l| LocationId(l as u16));
    actions.extend(locs.clone().map(Action::Goto));
    for l in locs.clone() {
        match w.location(l).kind {
            crate::ToolKind::Storage => actions.extend(raw.iter().map(|&i| Action::Get { at: l, item: Some(i) })),
            crate::ToolKind::Servingtable => {}
            _ => actions.push(Action::Get { at: l, item: None }),
        }
    }
    actions.extend(locs.clone().map(Action::Put));
    actions.extend(locs.filter(|&l| w.location(l).kind.cooks()).map(Action::Activate));
    actions.into_iter().map(|a| render::command(w, agent, a)).collect()
}

/// A GBNF string literal.
fn literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The GBNF grammar of a reply for a crew of `agents`: `-action:` and one line per
/// agent, agent 0 first (the system prompt's format).
pub fn gbnf(w: &World, agents: usize) -> String {
    let mut g = String::from("root ::= \"-action:\\n\"");
    for k in 0..agents {
        let _ = write!(g, " agent{k} \"\\n\"");
    }
    g.push('\n');
    for k in 0..agents {
        let alts: Vec<String> = commands(w, k).iter().map(|c| literal(c)).collect();
        let _ = writeln!(g, "agent{k} ::= {}", alts.join(" | "));
    }
    g
}

/// The JSON schema of a reply: an object with one property per agent (`agent0`, ...),
/// each one of that agent's commands.
pub fn schema(w: &World, agents: usize) -> Value {
    let mut props = serde_json::Map::new();
    for k in 0..agents {
        props.insert(format!("agent{k}"), json!({ "type": "string", "enum": commands(w, k) }));
    }
    let required: Vec<String> = (0..agents).map(|k| format!("agent{k}")).collect();
    json!({ "type": "object", "properties": props, "required": required, "additionalProperties": false })
}

/// The longest reply either form admits, in bytes: an upper bound on its tokens (a
/// token of these ASCII texts is at least one byte), hence a `max_tokens` that never
/// cuts a constrained reply short.
pub fn longest_reply(w: &World, agents: usize) -> u32 {
    let lines: usize = (0..agents).map(|k| commands(w, k).iter().map(String::len).max().unwrap_or(0) + 1).sum();
    // JSON: `{"agentK": "...", }` is the line plus at most 16 bytes of key, quotes and
    // separators (whitespace a schema grammar may admit is bounded by the same slack).
    let json = lines + 16 * agents + 2;
    u32::try_from("-action:\n".len() + lines.max(json)).unwrap_or(u32::MAX)
}
