//! The prompt and the output constraint. Both are fixed and short: the budget is 150
//! tokens per adjudication, prompt and completion together (DESIGN 5.4), and the goal
//! 100, so every word of the frame and the system prompt is paid on each call
//! (docs/benchmarks.md has the measured token counts).

use serde_json::{Value, json};

use super::config::{LlmSpec, OutputMode};
use super::wire::{ChatMessage, ChatRequest};
use crate::adjudicator::DecisionCard;

/// The system prompt. It says what the card's letters mean because a model cannot
/// guess; nothing else (no examples: they cost tokens on every call). 22 tokens with
/// SmolLM2's tokenizer (the earlier wording, with the scale in brackets, took 25).
pub const SYSTEM_PROMPT: &str = "Bot blocked: escalate or stay_local? C crit A help D wait R fix H refused 0-3";

/// GBNF admitting exactly `{"decision":"stay_local"|"escalate","confidence":N}` with
/// N one of 0, 1, 1.0, 0.d, 0.dd: no whitespace, so the answer costs a dozen tokens.
pub const GRAMMAR: &str = r#"root ::= "{\"decision\":\"" ("stay_local" | "escalate") "\",\"confidence\":" num "}"
num ::= "0" ("." [0-9] [0-9]?)? | "1" (".0")?
"#;

/// The JSON schema of the answer.
pub fn response_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "decision": { "type": "string", "enum": ["stay_local", "escalate"] },
            "confidence": { "type": "number", "minimum": 0, "maximum": 1 }
        },
        "required": ["decision", "confidence"],
        "additionalProperties": false
    })
}

impl<'a> ChatRequest<'a> {
    /// The request for one card.
    pub fn for_card(spec: &'a LlmSpec, model: &'a str, card: &DecisionCard) -> Self {
        let (response_format, grammar) = match spec.output {
            OutputMode::JsonSchema => (
                Some(json!({
                    "type": "json_schema",
                    "json_schema": { "name": "verdict", "strict": true, "schema": response_schema() }
                })),
                None,
            ),
            OutputMode::Grammar => (None, Some(GRAMMAR)),
            OutputMode::None => (None, None),
        };
        ChatRequest {
            model,
            messages: vec![ChatMessage::new("system", SYSTEM_PROMPT), ChatMessage::new("user", card.prompt())],
            max_tokens: spec.max_tokens,
            temperature: spec.temperature,
            stream: false,
            response_format,
            grammar,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Features;
    use gatecrew_protocol::trace::IssueName;

    #[test]
    fn the_request_carries_the_card_and_one_constraint() {
        let card = DecisionCard::new(
            IssueName::MissingMaterial,
            Some("glass".into()),
            Some(2),
            Features::new(3, 1, 3, 0, 0).unwrap(),
            0.866_666,
        );
        let json = card.to_json();
        assert_eq!(
            json,
            r#"{"issue":"missing_material","item":"glass","n":2,"f":{"C":3,"A":1,"D":3,"R":0,"H":0},"s":0.87,"opts":["LOCAL_SKIP","REQUEST_MATERIAL"]}"#
        );
        let mut spec = LlmSpec::default();
        let v = serde_json::to_value(ChatRequest::for_card(&spec, "m", &card)).unwrap();
        // The model reads the same facts, shorter.
        assert_eq!(
            v["messages"][1]["content"],
            r#"{"issue":"missing_material","item":"glass","n":2,"f":"C3 A1 D3 R0 H0","s":0.87}"#
        );
        assert_eq!(v["response_format"]["json_schema"]["schema"]["required"], json!(["decision", "confidence"]));
        assert!(v.get("grammar").is_none());
        spec.output = OutputMode::Grammar;
        let v = serde_json::to_value(ChatRequest::for_card(&spec, "m", &card)).unwrap();
        assert!(v.get("response_format").is_none());
        assert!(v["grammar"].as_str().unwrap().starts_with("root ::="));
    }
}
