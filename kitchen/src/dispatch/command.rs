//! The dispatcher's reply, parsed into one [`Action`] per agent ("parse, don't
//! validate"): every command the model wrote is either an action for a known agent at
//! a known location, or a [`CommandError`] that names the token and what is wrong with
//! it, which the next prompt feeds back as MindAgent feeds back invalid commands.
//!
//! What the parser accepts, and why:
//!
//! * the DSL form the system prompt asks for, one command a line after `-action:`
//!   (`goto_agent0_storage0`, `get_agent1_flour_storage0`, `get_agent0_blender0`,
//!   `put_agent0_blender0`, `activate_agent0_blender0`, `noop_agent0`), which is all the
//!   grammar lets a grammar-capable server emit;
//! * the JSON form the schema asks for (`{"agent0": "goto_agent0_storage0", ...}`): its
//!   string values are the commands, its keys only labels;
//! * an unconstrained model's prose around the commands: a word without `_` is not a
//!   command attempt and is skipped; a word with `_` is one, and is an error if it is
//!   not a command (so `jump_agent0_x` is reported, "Sure, here:" is not).
//!
//! An agent with no command gets `noop` (MindAgent's game treats a missing action so);
//! a second command for an agent is an error and the first one stands.

use std::fmt;

use crate::world::{Action, LocationId, World};

/// What is wrong with one command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CommandErrorKind {
    /// The verb is none of goto, get, put, activate, noop.
    #[error("unknown verb \"{0}\" (goto, get, put, activate, noop)")]
    UnknownVerb(String),
    /// The second part is not `agentN`.
    #[error("\"{0}\" is not an agent (agent0, agent1, ...)")]
    NotAnAgent(String),
    /// `agentN` with N outside the crew.
    #[error("agent{agent} is not in this crew of {agents}")]
    UnknownAgent {
        /// The number written.
        agent: usize,
        /// The crew size.
        agents: usize,
    },
    /// A location this kitchen does not have.
    #[error("\"{0}\" is not a location of this kitchen")]
    UnknownLocation(String),
    /// An item the recipe book does not know.
    #[error("\"{0}\" is not an item of the recipe book")]
    UnknownItem(String),
    /// Too few or too many parts for the verb.
    #[error("{verb} takes {expected}")]
    Arity {
        /// The verb.
        verb: &'static str,
        /// Its form.
        expected: &'static str,
    },
    /// The agent already had a command in this reply (the first one stands).
    #[error("agent{0} already has a command in this reply")]
    Duplicate(usize),
}

/// One invalid command: the token as the model wrote it, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{token}: {kind}")]
pub struct CommandError {
    /// The token.
    pub token: String,
    /// What is wrong.
    pub kind: CommandErrorKind,
}

/// Why a whole reply is unusable (then the policy's fallback decides the step).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplyError {
    /// Nothing in the reply looks like a command.
    #[error("no command in the reply")]
    NoCommands,
    /// Every command attempt was invalid.
    #[error("every command was invalid ({} of them)", .0.len())]
    AllInvalid(Vec<CommandError>),
}

/// A reply parsed: each agent's action (noop when it had none or only invalid ones),
/// which agents the model commanded, and the invalid commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// One per agent.
    pub actions: Vec<Action>,
    /// Whether the model gave agent `k` a valid command.
    pub commanded: Vec<bool>,
    /// The invalid commands, in reply order.
    pub invalid: Vec<CommandError>,
}

impl fmt::Display for Parsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.commanded.iter().filter(|&&c| c).count();
        write!(f, "{n} commands, {} invalid", self.invalid.len())
    }
}

/// Parses one command for a crew of `agents` in `w`'s kitchen.
pub fn parse_command(w: &World, agents: usize, token: &str) -> Result<(usize, Action), CommandError> {
    let err = |kind| CommandError { token: token.to_owned(), kind };
    let parts: Vec<&str> = token.split('_').collect();
    let verb = parts[0];
    let arity = |verb, expected| err(CommandErrorKind::Arity { verb, expected });
    let known = ["goto", "get", "put", "activate", "noop"];
    if !known.contains(&verb) {
        return Err(err(CommandErrorKind::UnknownVerb(verb.to_owned())));
    }
    let Some(who) = parts.get(1) else { return Err(err(CommandErrorKind::NotAnAgent(String::new()))) };
    let agent = who
        .strip_prefix("agent")
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|d| d.parse::<usize>().ok())
        .ok_or_else(|| err(CommandErrorKind::NotAnAgent((*who).to_owned())))?;
    if agent >= agents {
        return Err(err(CommandErrorKind::UnknownAgent { agent, agents }));
    }
    let loc = |name: &str| {
        w.locations()
            .iter()
            .position(|l| l.name == name)
            .map(|i| LocationId(i as u16))
            .ok_or_else(|| err(CommandErrorKind::UnknownLocation(name.to_owned())))
    };
    let rest = &parts[2..];
    let action = match (verb, rest) {
        ("noop", []) => Action::Noop,
        ("noop", _) => return Err(arity("noop", "only the agent: noop_agentN")),
        ("goto", [l]) => Action::Goto(loc(l)?),
        ("goto", _) => return Err(arity("goto", "a location: goto_agentN_LOCATION")),
        ("put", [l]) => Action::Put(loc(l)?),
        ("put", _) => return Err(arity("put", "a location: put_agentN_LOCATION")),
        ("activate", [l]) => Action::Activate(loc(l)?),
        ("activate", _) => return Err(arity("activate", "a location: activate_agentN_LOCATION")),
        ("get", [l]) => Action::Get { at: loc(l)?, item: None },
        ("get", [i, l]) => {
            let at = loc(l)?;
            let item = w.book().item(i).ok_or_else(|| err(CommandErrorKind::UnknownItem((*i).to_owned())))?;
            Action::Get { at, item: Some(item) }
        }
        _ => return Err(arity("get", "a location, and an item from the storage: get_agentN_[ITEM_]LOCATION")),
    };
    Ok((agent, action))
}

/// The command attempts of a reply: the JSON form's string values, else the words that
/// contain `_`, stripped of the punctuation and markup models put around them.
fn attempts(reply: &str) -> Vec<String> {
    let trimmed = reply.trim();
    if trimmed.starts_with('{') {
        if let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(trimmed) {
            return map.values().filter_map(|v| v.as_str()).map(|s| s.trim().to_owned()).collect();
        }
    }
    reply
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '"' | '\'' | '`' | '[' | ']' | '(' | ')'))
        .map(|t| t.trim_matches(|c: char| matches!(c, '.' | ':' | '-' | '*' | '>')))
        .filter(|t| t.contains('_'))
        .map(str::to_owned)
        .collect()
}

/// Parses a whole reply for a crew of `agents`. See the module docs.
pub fn parse_reply(w: &World, agents: usize, reply: &str) -> Result<Parsed, ReplyError> {
    let tokens = attempts(reply);
    if tokens.is_empty() {
        return Err(ReplyError::NoCommands);
    }
    let mut p = Parsed { actions: vec![Action::Noop; agents], commanded: vec![false; agents], invalid: Vec::new() };
    for t in &tokens {
        match parse_command(w, agents, t) {
            Ok((k, _)) if p.commanded[k] => {
                p.invalid.push(CommandError { token: t.clone(), kind: CommandErrorKind::Duplicate(k) });
            }
            Ok((k, a)) => {
                p.actions[k] = a;
                p.commanded[k] = true;
            }
            Err(e) => p.invalid.push(e),
        }
    }
    if !p.commanded.iter().any(|&c| c) {
        return Err(ReplyError::AllInvalid(p.invalid));
    }
    Ok(p)
}
