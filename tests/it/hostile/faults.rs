//! Faults as a soak finding needs them: `--faults` reproduces a config's `[faults]`
//! byte for byte, and a drop rate of 1 loses `flatcomm`'s chat and `central_dag`'s
//! reports to the manager too (it had no effect on either).

use gatecrew_protocol::trace::EventKind;

use crate::cli::gatecrew;
use crate::common::default_config;

fn events(path: &std::path::Path) -> Vec<gatecrew_protocol::trace::Event> {
    crate::episode::events(&std::fs::read(path).unwrap())
}

fn run(dir: &std::path::Path, name: &str, config: &std::path::Path, extra: &[&str]) -> std::path::PathBuf {
    let trace = dir.join(name);
    let mut args = vec!["run", "--stepper", "--quiet", "--config", config.to_str().unwrap()];
    args.extend(["--trace", trace.to_str().unwrap()]);
    args.extend(extra);
    let (code, _, err) = gatecrew(&args);
    assert_eq!(code, 0, "{args:?}: {err}");
    trace
}

#[test]
fn the_faults_flag_gives_the_same_trace_as_the_config_section() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = "action_failure_rate = 0.05, path_block_rate = 0.03, message_drop_rate = 0.1, message_delay_rate = 0.1";
    // The config with a [faults] section (copied with its files into the folder).
    let with = crate::llm::config_with(dir.path(), &format!("[faults]\n{}\n", pairs.replace(", ", "\n")));
    let a = run(dir.path(), "a.jsonl", &with, &[]);
    let b = run(dir.path(), "b.jsonl", &default_config(), &["--faults", pairs]);
    assert_eq!(std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
    let (code, _, err) = gatecrew(&["run", "--faults", "message_drop_rate = 2.0"]);
    assert_eq!(code, 2);
    assert!(err.contains("message_drop_rate"), "{err}");
}

#[test]
fn dropping_every_message_loses_chat_and_manager_reports() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = default_config();
    let all = ["--faults", "message_drop_rate = 1.0"];
    let flat = events(&run(dir.path(), "flat.jsonl", &cfg, &[&["--policy", "flatcomm"][..], &all].concat()));
    assert!(!flat.iter().any(|e| matches!(e.kind, EventKind::Chat { .. })), "a chat line got through");
    assert!(flat.iter().any(|e| matches!(&e.kind, EventKind::MessageFault { msg, .. } if msg == "chat")));
    let dag = events(&run(dir.path(), "dag.jsonl", &cfg, &[&["--policy", "central_dag"][..], &all].concat()));
    assert!(
        !dag.iter().any(|e| matches!(e.kind, EventKind::Manager { from: Some(_), .. })),
        "a report reached the manager"
    );
    assert!(dag.iter().any(|e| matches!(&e.kind, EventKind::MessageFault { msg, .. } if msg == "manager")));
    for evs in [&flat, &dag] {
        assert!(evs.iter().any(|e| matches!(e.kind, EventKind::EpisodeEnd { .. })));
    }
}
