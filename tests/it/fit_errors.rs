//! `scripts/fit-errors.py`: the executor model's latency and mistake parameters fitted
//! from a recorded model-bot trace. The endpoint is an in-process one whose latency and
//! unusable replies follow a known law of the token counts it reports, so that what the
//! fit recovers can be checked against the law; the recording is the crew's own trace.

use std::time::Duration;

use gatecrew_protocol::trace::EventKind;

use crate::common::root;
use crate::llm::fake::{Fake, Reply, Seen, completion_with};
use crate::llm::{MODEL, gatecrew, model_config, trace};

/// The law: prompt tokens spread over 50..450, completions 5..11; 20 ms + 0.5 ms a
/// prompt token + 3 ms a completion token; a reply is garbage when the prompt has more
/// than 300 tokens and it is not a retry of one.
fn lawful(n: usize, seen: &Seen) -> Reply {
    let prompt = 50 + (n * 37) % 400;
    let completion = 5 + n % 7;
    let body = String::from_utf8_lossy(&seen.body);
    let retry = body.contains("That was not a JSON object");
    let content = if prompt > 300 && !retry {
        "I think I will place it"
    } else if body.contains("You need") {
        r#"{"choice":"recover"}"#
    } else if body.contains("asks you for") {
        r#"{"choice":"cannot_supply"}"#
    } else {
        // The first option: the scripted core's own first cell.
        let v: serde_json::Value = serde_json::from_slice(&seen.body).unwrap();
        let first = v["response_format"]["json_schema"]["schema"]["properties"]["choice"]["enum"][0].clone();
        return reply(&serde_json::json!({ "choice": first }).to_string(), prompt, completion);
    };
    reply(content, prompt, completion)
}

fn reply(content: &str, prompt: usize, completion: usize) -> Reply {
    let after = Duration::from_micros(20_000 + 500 * prompt as u64 + 3_000 * completion as u64);
    Reply::Late { after, body: completion_with(content, prompt as u64, completion as u64) }
}

#[test]
fn the_fit_recovers_the_endpoints_latency_and_mistakes_and_names_the_recording() {
    let fake = Fake::start(lawful);
    let dir = tempfile::tempdir().unwrap();
    let cfg = model_config(dir.path(), 5000);
    let t = dir.path().join("recorded.jsonl");
    let args = [
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "--llm-url",
        &fake.url,
        "--model",
        MODEL,
        "--stepper",
        "--quiet",
        "--trace",
        t.to_str().unwrap(),
    ];
    let (code, out, err) = gatecrew(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    let evs = trace(&t);
    let (mut calls, mut first_garbled) = (0usize, 0usize);
    for e in &evs {
        if let EventKind::ModelCall { attempt, error, .. } = &e.kind {
            calls += 1;
            first_garbled += usize::from(*attempt == 1 && error.is_some());
        }
    }
    assert!(calls >= 10, "{calls} calls are too few to fit");
    let profile = dir.path().join("fitted.toml");
    let py = std::process::Command::new("python3")
        .arg(root().join("scripts/fit-errors.py"))
        .arg(&t)
        .args(["--model", "lawful-fake", "--json", "--out"])
        .arg(&profile)
        .output()
        .unwrap();
    assert!(py.status.success(), "{}", String::from_utf8_lossy(&py.stderr));
    let fit: serde_json::Value = serde_json::from_slice(&py.stdout).unwrap();
    let (lat, errs) = (&fit["latency"], &fit["errors"]);
    // 20 ticks a second: 0.5 ms a prompt token is 0.01 ticks, 3 ms a completion token 0.06.
    let b = lat["b"].as_f64().unwrap();
    let c = lat["c"].as_f64().unwrap();
    assert!((b - 0.01).abs() < 0.003, "b = {b}: {lat}");
    assert!((c - 0.06).abs() < 0.04, "c = {c}: {lat}");
    assert!(lat["r2"].as_f64().unwrap() > 0.8, "{lat}");
    // Every call was answered; the mistakes are the first attempts that came back garbled.
    let name = t.to_str().unwrap();
    assert_eq!(lat["from"][name].as_u64(), Some(calls as u64), "{lat}");
    assert_eq!(errs["mistakes"].as_u64(), Some(first_garbled as u64), "{errs}");
    assert!(first_garbled > 0 && errs["p1"].as_f64().unwrap() > 0.0, "mistakes grow with the prompt: {errs}");
    // The profile is one gatecrew reads, and it says where its numbers came from.
    let p = gatecrew_gating::llm::LlmProfile::load(&profile).unwrap();
    assert!((p.latency.b - b).abs() < 1e-9);
    let text = std::fs::read_to_string(&profile).unwrap();
    assert_eq!(text.matches(name).count(), 2, "each fit names the recording:\n{text}");
}
