//! The model classifier against the real llama.cpp server (SmolLM2-135M: the plumbing,
//! not judgement), and its fallback to the parser when the endpoint is down.

use gatecrew_gating::llm::LlmSpec;
use gatecrew_hitl::classify::{Classify, Context};
use gatecrew_hitl::intent::{Classifier, IntentType};
use gatecrew_hitl::llm::{read_answer, user_message};
use gatecrew_hitl::words::Vocabulary;
use gatecrew_hitl_app::eval;
use gatecrew_hitl_app::llm::LlmClassifier;

use crate::common::data;
use crate::llm::server::{live_turn, live_url};

#[test]
fn the_prompt_stays_small_on_the_largest_plan_and_answers_are_read_strictly() {
    let d = data();
    let v = Vocabulary::new(&d).unwrap();
    let plans = eval::plans(&d, &v);
    let ctx = Context { plan: &plans["master"], question: None, vocab: &v, data: &d };
    let m = user_message("don't collect wool, get the planks first", &ctx);
    assert!(m.len() < 900, "{} bytes: {m}", m.len());
    assert!(m.contains("Line: don't collect wool"));
    assert_eq!(read_answer(r#"{"type":"switch","node":"oak planks"}"#, false).unwrap().kind, IntentType::Switch);
    assert_eq!(read_answer(r#"{"type":"answer","node":"2"}"#, false).unwrap().kind, IntentType::Chat);
    assert!(read_answer(r#"{"type":"dance","node":""}"#, false).is_err());
    assert!(read_answer(r#"{"type":"sw"#, false).is_err());
}

#[test]
fn a_dead_endpoint_falls_back_to_the_parser() {
    let d = data();
    let v = Vocabulary::new(&d).unwrap();
    let plans = eval::plans(&d, &v);
    let spec = LlmSpec {
        url: Some("http://127.0.0.1:9/v1".into()),
        model: Some("m".into()),
        timeout_ms: 500,
        ..LlmSpec::default()
    };
    let mut c = LlmClassifier::new(spec).unwrap();
    let ctx = Context { plan: &plans["pickaxe"], question: None, vocab: &v, data: &d };
    let got = c.classify("skip the sticks", &ctx);
    assert_eq!(got.by, Classifier::Fallback);
    assert_eq!(got.intent.kind, IntentType::Delete);
    assert!(got.fallback.is_some());
    // A halt never waits for the model: the stop rule decides before it is asked.
    let got = c.classify("HOLD ON!!", &ctx);
    assert_eq!((got.by, got.intent.kind, got.fallback), (Classifier::StopRule, IntentType::Stop, None));
}

#[test]
fn the_real_model_classifies_or_falls_back_with_a_reason() {
    let url = live_url();
    let _turn = live_turn();
    let d = data();
    let v = Vocabulary::new(&d).unwrap();
    let plans = eval::plans(&d, &v);
    let spec =
        LlmSpec { url: Some(url), model: Some(crate::llm::MODEL.into()), timeout_ms: 20_000, ..LlmSpec::default() };
    let mut c = LlmClassifier::new(spec).unwrap();
    let ctx = Context { plan: &plans["battle"], question: None, vocab: &v, data: &d };
    let mut by_model = 0;
    let mut reasons = Vec::new();
    for line in ["stop", "switch to the stone sword", "also get 4 torches"] {
        let got = c.classify(line, &ctx);
        match got.by {
            // The 135M model's answer is schema-constrained: it parses, right or not.
            Classifier::Llm => {
                assert!(got.tokens.0 > 0 && got.tokens.1 > 0, "{got:?}");
                by_model += 1;
            }
            Classifier::Fallback => {
                assert!(got.fallback.is_some(), "{got:?}");
                reasons.push(format!("{:?}", got.fallback));
            }
            Classifier::Parser => panic!("the model classifier never answers as the parser"),
            // A halt is decided by the stop rule before the model is asked.
            Classifier::StopRule => assert_eq!((line, got.tokens), ("stop", (0, 0)), "{got:?}"),
        }
    }
    // A broken request (wrong schema, wrong route) makes every call fall back: then the
    // model classified nothing, and that is a failure, not a pass.
    assert!(by_model > 0, "every model call fell back: {reasons:?}");
}
