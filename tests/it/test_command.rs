//! The test command itself: README's command is the one CI runs, the Python checks run
//! in a venv holding their pins, and no test can be told by the environment to skip a
//! check (a skipped check would pass CI while checking nothing).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{python_checks, root};

/// The command under README's "Run the tests:".
fn readme_test_command() -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let after = readme.split("Run the tests:").nth(1).expect("README says how to run the tests");
    let block = after.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).expect("a sh block follows");
    let lines: Vec<&str> = block.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one command: {lines:?}");
    lines[0].trim().to_owned()
}

#[test]
fn ci_runs_the_readme_test_command_unchanged() {
    let cmd = readme_test_command();
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    assert!(ci.lines().any(|l| l.trim() == cmd), ".ci/run has no line `{cmd}`:\n{ci}");
    let script = cmd.split_whitespace().next().unwrap();
    assert!(root().join(script).is_file(), "{script} is in the repository");
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_test_skips_a_check_because_of_the_environment() {
    let mut files = Vec::new();
    rust_files(&root().join("tests"), &mut files);
    assert!(files.len() > 30, "found the tests: {}", files.len());
    let this = Path::new(file!()).file_name().unwrap();
    // The shapes a skip takes: an opt-out variable and a message instead of a check.
    let needles = ["SKIP_", "SKIPPED", "skipping this check", "to skip the"];
    let mut found = Vec::new();
    for f in files.iter().filter(|f| f.file_name() != Some(this)) {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            if needles.iter().any(|x| line.contains(x)) {
                found.push(format!("{}:{}: {}", f.display(), n + 1, line.trim()));
            }
        }
    }
    for f in ["scripts/test", ".ci/run"] {
        let text = std::fs::read_to_string(root().join(f)).unwrap();
        found.extend(text.lines().filter(|l| l.contains("SKIP_")).map(|l| format!("{f}: {l}")));
    }
    assert!(found.is_empty(), "a check that can be skipped passes while checking nothing:\n{}", found.join("\n"));
}

#[test]
fn the_python_checks_import_every_package_at_its_pin() {
    let source = std::fs::read_to_string(root().join("scripts/pyvenv.py")).unwrap();
    let line = source.lines().find(|l| l.starts_with("CHECKS = [")).expect("scripts/pyvenv.py pins CHECKS");
    let pins: Vec<(String, String)> = line
        .split('"')
        .filter(|s| s.contains("=="))
        .map(|p| {
            let (name, version) = p.split_once("==").unwrap();
            (name.to_owned(), version.to_owned())
        })
        .collect();
    let names: Vec<&str> = pins.iter().map(|(n, _)| n.as_str()).collect();
    assert!(names.contains(&"duckdb") && names.contains(&"polars") && names.contains(&"prometheus-client"));
    // Importing proves the wheel works here; the metadata says which version it is.
    let code = "import importlib, importlib.metadata as m, sys\n\
                for n in sys.argv[1:]:\n    importlib.import_module(n.replace('-', '_'))\n    print(n, m.version(n))";
    let out = Command::new(python_checks()).arg("-c").arg(code).args(&names).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got: Vec<(String, String)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (n, v) = l.split_once(' ').unwrap();
            (n.to_owned(), v.to_owned())
        })
        .collect();
    assert_eq!(got, pins);
}
