//! The chat-completions request and response, as plain serde structs. The response
//! side reads only what it needs and tolerates what servers differ in: a missing `id`,
//! `usage` or `finish_reason`, and any extra field (llama.cpp's `timings`, vLLM's
//! `prompt_logprobs`, Ollama's `system_fingerprint`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One chat message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// What the role says (the card, or the model's answer).
    pub content: String,
}

impl ChatMessage {
    /// A message.
    pub fn new(role: &str, content: impl Into<String>) -> Self {
        ChatMessage { role: role.to_owned(), content: content.into() }
    }
}

/// `POST {base}/chat/completions`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatRequest<'a> {
    /// Model name.
    pub model: &'a str,
    /// System prompt and card.
    pub messages: Vec<ChatMessage>,
    /// Completion budget.
    pub max_tokens: u32,
    /// Sampling temperature.
    pub temperature: f64,
    /// Always false: one JSON body.
    pub stream: bool,
    /// JSON-schema constraint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_format: Option<Value>,
    /// GBNF constraint (llama.cpp).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grammar: Option<&'a str>,
}

/// The response; only the fields gatecrew reads.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ChatResponse {
    /// Servers differ: some omit it.
    #[serde(default)]
    pub id: Option<String>,
    /// The completions; gatecrew reads the first.
    pub choices: Vec<Choice>,
    /// Token counts, when the server reports them.
    #[serde(default)]
    pub usage: Option<Usage>,
}

/// One completion.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Choice {
    /// The assistant's message.
    #[serde(default)]
    pub message: Option<ReplyMessage>,
    /// `stop`, `length`, ...
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// The assistant's message.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ReplyMessage {
    /// The text (null for tool calls, which gatecrew never asks for).
    #[serde(default)]
    pub content: Option<String>,
}

/// Token counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    #[serde(default)]
    pub prompt_tokens: u32,
    /// Completion tokens.
    #[serde(default)]
    pub completion_tokens: u32,
}

impl ChatResponse {
    /// The first choice's text and finish reason.
    pub fn content(&self) -> Option<(&str, Option<&str>)> {
        let c = self.choices.first()?;
        Some((c.message.as_ref()?.content.as_deref()?, c.finish_reason.as_deref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerates_missing_id_and_usage_and_extra_fields() {
        let r: ChatResponse = serde_json::from_str(
            r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"{}"},"logprobs":null}],"timings":{"x":1}}"#,
        )
        .unwrap();
        assert_eq!(r.id, None);
        assert_eq!(r.usage, None);
        assert_eq!(r.content(), Some(("{}", None)));
        let r: ChatResponse = serde_json::from_str(
            r#"{"id":"c1","object":"chat.completion","choices":[{"finish_reason":"length","message":{"content":"{\"de"}}],"usage":{"prompt_tokens":90,"completion_tokens":32,"total_tokens":122,"prompt_tokens_details":{}}}"#,
        )
        .unwrap();
        assert_eq!(r.usage, Some(Usage { prompt_tokens: 90, completion_tokens: 32 }));
        assert_eq!(r.content(), Some(("{\"de", Some("length"))));
    }
}
