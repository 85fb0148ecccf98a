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
    assert!(flat.iter().any(
        |e| matches!(&e.kind, EventKind::MessageFault { msg, .. } if *msg == gatecrew_protocol::trace::LineKind::Chat)
    ));
    let dag = events(&run(dir.path(), "dag.jsonl", &cfg, &[&["--policy", "central_dag"][..], &all].concat()));
    assert!(
        !dag.iter().any(|e| matches!(e.kind, EventKind::Manager { from: Some(_), .. })),
        "a report reached the manager"
    );
    assert!(dag.iter().any(|e| matches!(&e.kind, EventKind::MessageFault { msg, .. } if *msg == gatecrew_protocol::trace::LineKind::Manager)));
    for evs in [&flat, &dag] {
        assert!(evs.iter().any(|e| matches!(e.kind, EventKind::EpisodeEnd { .. })));
    }
}

/// Soak findings of seeds 1..5 at 3,000 episodes (each the exact episode its
/// reproduction line names): a `central_dag` bot waiting for a delivery sat idle past
/// its own hand-over deadline while the manager, who decides when a delivery failed,
/// had a later one. Every invariant holds on them now.
#[test]
fn central_dag_soak_findings_keep_every_invariant() {
    use gatecrew_crew::invariants::run_checked;
    use gatecrew_crew::{FaultSpec, Overrides, Policy, Setup};
    let cases = [
        (
            "04-pyramid-5-D-s3",
            729168,
            [
                0.03440875334542124,
                0.029294896059530506,
                0.10006114388343675,
                0.06947639380011912,
                0.11543784259995313,
                0.017842077023921984,
            ],
        ),
        (
            "05-farm-small-B-s4",
            743699,
            [
                0.01727368222285237,
                0.07373700570711593,
                0.025053254024303483,
                0.1442656650294526,
                0.11874171433847219,
                0.011876762995604162,
            ],
        ),
        (
            "14-pyramid-7-B-s3",
            25146,
            [
                0.09030574090299498,
                0.09074428086553477,
                0.14863652087792628,
                0.01852109047317162,
                0.11054631960909711,
                0.011912912409118329,
            ],
        ),
        (
            "20-wall-long-bricks-D-s3",
            188451,
            [
                0.07895195284816384,
                0.052917477012316506,
                0.028627069660149704,
                0.01062985024035361,
                0.03347073623441338,
                0.017772844766169405,
            ],
        ),
    ];
    for (episode, seed, r) in cases {
        let faults = FaultSpec {
            action_failure_rate: r[0],
            path_block_rate: r[1],
            message_drop_rate: r[2],
            message_delay_rate: r[3],
            message_duplicate_rate: r[4],
            crash_rate: r[5],
            ..FaultSpec::default()
        };
        let ov = Overrides {
            policy: Some(Policy::CentralDag),
            seed: Some(seed),
            faults: Some(faults),
            ..Overrides::default()
        };
        let path = crate::common::root().join(format!("configs/suite/episodes/{episode}.toml"));
        let setup = Setup::load(&path, &ov).unwrap();
        let checked = run_checked(&setup);
        let shown: Vec<String> = checked.violations.iter().map(ToString::to_string).collect();
        assert!(shown.is_empty(), "{episode} seed {seed}: {shown:?}");
    }
}
