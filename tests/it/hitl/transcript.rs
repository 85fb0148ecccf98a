//! The sample session in docs/hitl.md is what the command prints: the
//! script and the command are read from the document, run as written from a directory
//! holding the script (and the source tree's `configs`), and the output is compared
//! line for line with the document's block.

use std::process::Command;

use crate::common::root;

const ARGS: &str = "GATECREW_TEST_TRANSCRIPT_ARGS";
const OUT: &str = "GATECREW_TEST_TRANSCRIPT_OUT";

/// The command line named in [`ARGS`], its standard output written to [`OUT`].
#[test]
fn child_runs_the_documented_command() {
    let (Ok(args), Ok(out)) = (std::env::var(ARGS), std::env::var(OUT)) else { return };
    let argv: Vec<&str> = args.lines().collect();
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    gatecrew_cli::main_with(argv, &mut stdout, &mut stderr);
    std::fs::write(&out, stdout).unwrap();
    std::fs::write(format!("{out}.err"), stderr).unwrap();
}

/// The document's sample: the script's lines, the command, the output it shows.
fn sample(doc: &str) -> (Vec<String>, Vec<String>, Vec<String>) {
    let start = doc.find("```text\n$ cat s.txt\n").expect("docs/hitl.md has the sample session");
    let block = &doc[start + "```text\n".len()..];
    let block = &block[..block.find("```").expect("the sample's block ends")];
    let mut lines = block.lines().skip(1);
    let script: Vec<String> = lines.by_ref().take_while(|l| !l.starts_with("$ ")).map(str::to_owned).collect();
    let command_line = block.lines().find(|l| l.starts_with("$ gatecrew ")).expect("the command");
    let command: Vec<String> = command_line.trim_start_matches("$ ").split_whitespace().map(str::to_owned).collect();
    let output: Vec<String> = lines.map(str::to_owned).collect();
    (script, command, output)
}

#[test]
fn the_sample_session_in_docs_hitl_md_is_what_the_command_prints() {
    let doc = std::fs::read_to_string(root().join("docs/hitl.md")).unwrap();
    let (script, command, expected) = sample(&doc);
    assert!(script.len() >= 2 && expected.len() >= 10, "{script:?} {expected:?}");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.txt"), script.join("\n") + "\n").unwrap();
    std::os::unix::fs::symlink(root().join("configs"), dir.path().join("configs")).unwrap();
    let out = dir.path().join("out.txt");
    let status = Command::new(std::env::current_exe().unwrap())
        .args(["hitl::transcript::child_runs_the_documented_command", "--exact", "--test-threads", "1"])
        .current_dir(dir.path())
        .env(ARGS, command.join("\n"))
        .env(OUT, &out)
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let printed = std::fs::read_to_string(&out).unwrap();
    let printed: Vec<&str> = printed.lines().collect();
    let errors = std::fs::read_to_string(format!("{}.err", out.display())).unwrap();
    assert_eq!(printed, expected, "the command printed (stderr: {errors})");
    assert!(dir.path().join("runs/hitl-partner-gated-s11.jsonl").is_file(), "the trace the table names");
}
