//! The `gatecrew` command line, driven in-process.

use std::path::Path;

use gatecrew_protocol::trace::TraceReader;

pub(crate) use crate::common::gatecrew;
use crate::common::{default_config, root, write};

/// A reader that closed early (`gatecrew ... | head`) ends the command quietly with
/// success, as it does for any Unix tool, not with "error: Broken pipe".
#[test]
fn a_closed_output_pipe_is_not_an_error() {
    struct Closed;
    impl std::io::Write for Closed {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut err = Vec::new();
    let cfg = default_config();
    let code = gatecrew_cli::main_with(
        [
            "gatecrew",
            "run",
            "--stepper",
            "--quiet",
            "--json",
            "--config",
            cfg.to_str().unwrap(),
            "--trace",
            "/dev/null",
        ],
        &mut Closed,
        &mut err,
    );
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{}", String::from_utf8_lossy(&err));
    assert!(err.is_empty(), "{}", String::from_utf8_lossy(&err));
}

#[test]
fn run_json_reports_the_default_episode() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let cfg = default_config();
    let (code, out, err) =
        gatecrew(&["run", "--config", cfg.to_str().unwrap(), "--trace", trace.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(v["tsr"], 1.0);
    assert_eq!(v["blocks_replaced"], 0, "the key is there when nothing was replaced: {v}");
    assert!(v["confirmed_transfers"].as_u64().unwrap() >= 1);
    assert!(v["resolved_local"].as_u64().unwrap() >= 1);
    assert_eq!(v["trace"], trace.to_str().unwrap());
    let events: Vec<_> =
        TraceReader::new(std::io::BufReader::new(std::fs::File::open(&trace).unwrap())).map(|r| r.unwrap()).collect();
    assert!(events.len() > 10);
}

#[test]
fn run_prints_board_messages_and_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let cfg = default_config();
    let (code, out, _) =
        gatecrew(&["run", "--config", cfg.to_str().unwrap(), "--trace", trace.to_str().unwrap(), "--stepper"]);
    assert_eq!(code, 0);
    assert!(out.contains("REQUEST_MATERIAL") && out.contains("CONFIRM_TRANSFER"), "{out}");
    for row in ["TSR", "CS (actions)", "Msg (board)", "issues", "LRR", "ECR", "RSR", "trace"] {
        assert!(out.contains(row), "missing {row}:\n{out}");
    }
}

fn copy_configs(dir: &Path) -> std::path::PathBuf {
    for f in ["configs/crew.toml", "configs/blueprints/house.toml"] {
        write(dir, f, &std::fs::read_to_string(root().join(f)).unwrap());
    }
    std::fs::create_dir_all(dir.join("configs/data")).unwrap();
    std::fs::copy(root().join("configs/data/minecraft-1.20.4.json"), dir.join("configs/data/minecraft-1.20.4.json"))
        .unwrap();
    dir.join("configs/crew.toml")
}

#[test]
fn bad_input_exits_2_naming_file_and_line_or_key() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = copy_configs(dir.path());
    let cfg_s = cfg.to_str().unwrap();
    let trace = dir.path().join("t.jsonl");
    let trace_s = trace.to_str().unwrap();

    let bp = write(dir.path(), "bad.toml", "name = \"x\"\n[[block]]\nat = [0, 0, 0]\nblock = \"stonee\"\n");
    let (code, _, err) = gatecrew(&["run", "--config", cfg_s, "--trace", trace_s, "--blueprint", bp.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.toml") && err.contains("line 4") && err.contains("stonee"), "{err}");

    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(&cfg, text.replace("seed = 7", "seed = 7\nsed = 8")).unwrap();
    let (code, _, err) = gatecrew(&["run", "--config", cfg_s, "--trace", trace_s]);
    assert_eq!(code, 2);
    assert!(err.contains("crew.toml:") && err.contains("unknown field `sed`"), "{err}");

    std::fs::write(&cfg, text.replace("cobblestone = 5", "cobblestone = -5")).unwrap();
    let (code, _, err) = gatecrew(&["run", "--config", cfg_s, "--trace", trace_s]);
    assert_eq!(code, 2);
    assert!(err.contains("crew.toml:") && err.contains("-5"), "{err}");

    std::fs::write(&cfg, &text).unwrap();
    let data = dir.path().join("configs/data/minecraft-1.20.4.json");
    let d = std::fs::read_to_string(&data).unwrap();
    std::fs::write(&data, d.replacen(r#"{"item":"oak_log","count":1}"#, r#"{"item":"oak_lg","count":1}"#, 1)).unwrap();
    let (code, _, err) = gatecrew(&["run", "--config", cfg_s, "--trace", trace_s]);
    assert_eq!(code, 2);
    assert!(err.contains("minecraft-1.20.4.json") && err.contains("recipes[") && err.contains("oak_lg"), "{err}");

    let (code, _, err) = gatecrew(&["run", "--policy", "chatty"]);
    assert_eq!(code, 2);
    assert!(err.contains("chatty"), "{err}");
    let (code, _, err) = gatecrew(&["run", "--config", dir.path().join("nope.toml").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("nope.toml") && err.contains("cannot read"), "{err}");
}
