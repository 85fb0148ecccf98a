//! One decision put to the model: the prompt (the bot's state and the question), the
//! options, the JSON schema that admits exactly one of them, and reading the answer.

use gatecrew_gating::llm::ChatMessage;
use gatecrew_protocol::IssueId;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The system prompt of every bot's decision: what the bot is and how it answers.
/// Short on purpose: it is sent with every call.
pub const SYSTEM_PROMPT: &str = "You are a Minecraft construction bot in a crew. Read your state and pick one option. \
     Answer only {\"choice\": \"<option>\"}.";

/// The system prompt of `central_dag`'s manager at a re-plan.
pub const MANAGER_PROMPT: &str = "You are the manager of a Minecraft construction crew. You hold the task graph: \
     read its status and pick one option. Answer only {\"choice\": \"<option>\"}.";

/// A decision point of a model-driven bot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Point {
    /// Which ready cell of its share to work on next.
    Command,
    /// What to do about a missing item or tool: recover, skip or ask.
    Issue,
    /// How to answer a teammate's request: offer or cannot supply.
    Answer,
    /// `central_dag`'s manager re-plans around an issue: which teammate delivers, or
    /// the bot recovers locally.
    Replan,
}

impl Point {
    /// The trace's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Point::Command => "command",
            Point::Issue => "issue",
            Point::Answer => "answer",
            Point::Replan => "replan",
        }
    }
}

/// A decision with its options.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// The decision point.
    pub point: Point,
    /// The issue it is about, at an issue point.
    pub issue_id: Option<IssueId>,
    /// The bot's state as the prompt shows it.
    pub state: String,
    /// What is asked.
    pub ask: String,
    /// The valid answers, each a short command.
    pub options: Vec<String>,
}

impl Question {
    /// The first exchange's messages.
    pub fn messages(&self) -> Vec<ChatMessage> {
        let opts = self.options.iter().map(|o| format!("- {o}")).collect::<Vec<_>>().join("\n");
        let user = format!("{}\n{}\nOptions:\n{opts}", self.state, self.ask);
        let system = if self.point == Point::Replan { MANAGER_PROMPT } else { SYSTEM_PROMPT };
        vec![ChatMessage::new("system", system), ChatMessage::new("user", user)]
    }

    /// The schema admitting exactly `{"choice": <an option>}`.
    pub fn schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": { "choice": { "type": "string", "enum": self.options } },
            "required": ["choice"],
            "additionalProperties": false
        })
    }

    /// The request body: greedy decoding, so that a server gives the same answer to
    /// the same prompt.
    pub fn body(&self, model: &str, messages: &[ChatMessage], max_tokens: u32) -> Value {
        json!({
            "model": model,
            "messages": messages,
            "max_tokens": max_tokens,
            "temperature": 0.0,
            "stream": false,
            "response_format": {
                "type": "json_schema",
                "json_schema": { "name": "choice", "strict": true, "schema": self.schema() }
            }
        })
    }

    /// The option a reply chose, or why it is unusable (`malformed_reply`, `not_an_option`).
    pub fn parse(&self, text: &str) -> Result<usize, String> {
        let v: Value = serde_json::from_str(text.trim()).map_err(|_| "malformed_reply".to_owned())?;
        let choice = v.get("choice").and_then(Value::as_str).ok_or_else(|| "malformed_reply".to_owned())?;
        self.options.iter().position(|o| o == choice.trim()).ok_or_else(|| "not_an_option".to_owned())
    }
}

/// What the bot is told after an unusable reply.
pub fn feedback(why: &str, options: &[String]) -> String {
    let what = match why {
        "malformed_reply" => "That was not a JSON object with a \"choice\".",
        "not_an_option" => "That choice is not one of the options.",
        _ => "No answer arrived.",
    };
    format!("{what} Answer {{\"choice\": \"<option>\"}} with one of: {}", options.join("; "))
}

/// The request's digest: SHA-256 of everything but the model name, so that a replay
/// under any name (or none) matches the recording.
pub fn digest(body: &Value) -> String {
    let mut v = body.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("model");
    }
    let hash = Sha256::digest(v.to_string().as_bytes());
    hash.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q() -> Question {
        Question {
            point: Point::Issue,
            issue_id: None,
            state: "I: oak_log 2".into(),
            ask: "You lack 4 oak_planks.".into(),
            options: vec!["recover".into(), "skip".into(), "ask".into()],
        }
    }

    #[test]
    fn replies_are_read_strictly() {
        let q = q();
        assert_eq!(q.parse(r#"{"choice": "ask"}"#), Ok(2));
        assert_eq!(q.parse(" {\"choice\":\"recover\"}\n"), Ok(0));
        assert_eq!(q.parse(r#"{"choice": "fly"}"#), Err("not_an_option".into()));
        assert_eq!(q.parse("ask"), Err("malformed_reply".into()));
        assert_eq!(q.parse(r#"{"pick": "ask"}"#), Err("malformed_reply".into()));
    }

    #[test]
    fn the_digest_ignores_the_model_name_only() {
        let q = q();
        let m = q.messages();
        let a = digest(&q.body("smollm2", &m, 48));
        assert_eq!(a, digest(&q.body("other", &m, 48)));
        assert_ne!(a, digest(&q.body("smollm2", &m, 49)));
        assert_eq!(
            q.body("m", &m, 48)["response_format"]["json_schema"]["schema"]["properties"]["choice"]["enum"][2],
            "ask"
        );
    }
}
