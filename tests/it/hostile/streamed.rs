//! Input read once: `check` opens each file once and reads it once, so a named pipe or
//! `/dev/stdin` gives the verdict a file on disk gives (a second read would hang on a
//! FIFO, or find a pipe already drained and call a valid trace malformed); `analyze`
//! and `export` read a file once however many ways they reach it (a folder twice, a
//! link loop); a task file of any format is read once, from a FIFO or a pipe as from
//! the disk.

use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use crate::cli::gatecrew;
use crate::common::default_config;
use crate::hostile::default_run;

/// How long a `check` may take before it counts as hung: far beyond what it takes on
/// a loaded machine, short of the test harness's patience.
const HUNG: Duration = Duration::from_secs(300);

/// The ways a file's bytes reach a reader.
#[derive(Debug, Clone, Copy)]
enum Delivery {
    Disk,
    /// A named pipe with the file's extension.
    Fifo,
    /// An anonymous pipe named `/proc/self/fd/N`, as `/dev/stdin` is.
    Pipe,
}

/// `check` on `bytes` delivered one way, its exit code and stderr with the path written
/// as `FILE`. Fails (instead of hanging) when `check` opens the file a second time.
fn check_via(dir: &Path, how: Delivery, name: &str, kind: &str, bytes: &[u8]) -> (u8, String) {
    let (shown, done) = deliver_once(dir, how, name, bytes.to_vec());
    let (tx, rx) = mpsc::channel();
    let arg = shown.to_str().unwrap().to_owned();
    let kind = kind.to_owned();
    std::thread::spawn(move || {
        let mut args = vec!["check", arg.as_str()];
        if matches!(how, Delivery::Pipe) {
            args.extend(["--kind", kind.as_str()]);
        }
        let _ = tx.send(gatecrew(&args));
    });
    let (code, _, err) =
        rx.recv_timeout(HUNG).unwrap_or_else(|_| panic!("check hung on {name} through a {how:?} (a second open?)"));
    done();
    (code, err.replace(shown.to_str().unwrap(), "FILE"))
}

/// The files of each kind `check` tells from its bytes: a construction trace, a
/// kitchen trace, a crew config and a blueprint, each whole and damaged.
fn cases(dir: &Path) -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let trace = dir.join("t.jsonl");
    let (code, _, err) = default_run(&trace, &[]);
    assert_eq!(code, 0, "{err}");
    let trace = std::fs::read(&trace).unwrap();
    let kdir = dir.join("kitchen");
    let (code, _, err) = gatecrew(&[
        "cos",
        "--levels",
        "level_0",
        "--agents",
        "2",
        "--policy",
        "gated",
        "--trace",
        kdir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let kitchen = std::fs::read_dir(&kdir).unwrap().map(|e| std::fs::read(e.unwrap().path()).unwrap()).next().unwrap();
    // The default config, its relative paths made absolute (the copies lie elsewhere).
    let configs = crate::common::root().join("configs");
    let config = std::fs::read_to_string(default_config())
        .unwrap()
        .replace("\"blueprints/", &format!("\"{}/blueprints/", configs.display()))
        .replace("\"data/", &format!("\"{}/data/", configs.display()))
        .into_bytes();
    let blueprint = b"name = \"hut\"\n[[fill]]\nfrom = [0, 0, 0]\nto = [2, 1, 2]\nblock = \"oak_planks\"\n".to_vec();
    // Damage that only a whole reading finds: a cut in the last line, a line replaced
    // in the middle, a bad value after the part that tells the kind.
    let cut = |b: &[u8]| b[..b.len() - 7].to_vec();
    let middle = |b: &[u8]| {
        let text = String::from_utf8(b.to_vec()).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        let at = lines.len() / 2;
        lines[at] = "{\"not\": \"an event\"}";
        (lines.join("\n") + "\n").into_bytes()
    };
    let mut bad_config = config.clone();
    bad_config.extend_from_slice(b"\n[nonsense\n");
    let mut bad_blueprint = blueprint.clone();
    bad_blueprint.extend_from_slice(b"[[block]]\nat = [9, 0, 9]\nblock = \"no_such_block\"\n");
    vec![
        ("t.jsonl", "trace", cut(&trace)),
        ("t.jsonl", "trace", middle(&trace)),
        ("k.jsonl", "trace", middle(&kitchen)),
        ("k.jsonl", "trace", cut(&kitchen)),
        ("c.toml", "config", bad_config),
        ("b.toml", "blueprint", bad_blueprint),
        ("t.jsonl", "trace", trace),
        ("k.jsonl", "trace", kitchen),
        ("c.toml", "config", config),
        ("b.toml", "blueprint", blueprint),
    ]
}

/// Every kind of file, whole or damaged, gets the same verdict through a FIFO and a
/// pipe as from the disk: same exit code, same defects at the same lines.
#[test]
fn check_reads_fifos_and_pipes_once_with_the_verdict_of_a_file() {
    let dir = tempfile::tempdir().unwrap();
    for (i, (name, kind, bytes)) in cases(dir.path()).into_iter().enumerate() {
        let whole = i >= 6;
        let (code, err) = check_via(dir.path(), Delivery::Disk, name, kind, &bytes);
        assert_eq!(code, if whole { 0 } else { 2 }, "case {i} {name} from the disk: {err}");
        for how in [Delivery::Fifo, Delivery::Pipe] {
            let (c, e) = check_via(dir.path(), how, name, kind, &bytes);
            assert_eq!((c, &e), (code, &err), "case {i} {name} through a {how:?}");
        }
    }
}

/// `analyze` and `export` on `bytes` delivered one way: exit code and output with the
/// path written as `FILE` (export's tables too). Fails instead of hanging on a second open.
fn analyze_via(dir: &Path, how: Delivery, name: &str, bytes: &[u8]) -> Vec<(u8, String)> {
    let mut got = Vec::new();
    for export in [false, true] {
        let (shown, done) = deliver_once(dir, how, name, bytes.to_vec());
        let arg = shown.to_str().unwrap().to_owned();
        let out = dir.join(format!("export-{how:?}"));
        let out_arg = out.to_str().unwrap().to_owned();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let args = if export {
                vec!["export", arg.as_str(), "--format", "csv", "--out", out_arg.as_str()]
            } else {
                vec!["analyze", arg.as_str(), "--json"]
            };
            let _ = tx.send(gatecrew(&args));
        });
        let (code, stdout, err) =
            rx.recv_timeout(HUNG).unwrap_or_else(|_| panic!("export={export} hung on {name} through a {how:?}"));
        done();
        let mut text = format!("{stdout}{err}");
        if export && code == 0 {
            text.push_str(&std::fs::read_to_string(out.join("episodes.csv")).unwrap());
        }
        let text = text.replace(shown.to_str().unwrap(), "FILE").replace(out.to_str().unwrap(), "OUT");
        // The wall time of the export line is the one figure that may differ.
        let text: String = text
            .lines()
            .map(|l| match (l.starts_with("exported "), l.rfind(" in ")) {
                (true, Some(at)) => format!("{}\n", &l[..at]),
                _ => format!("{l}\n"),
            })
            .collect();
        got.push((code, text));
    }
    got
}

/// A construction trace and a kitchen trace, whole or damaged, through a FIFO or a pipe
/// (`/dev/stdin`): `analyze` and `export` say what they say of the file on disk (a
/// reader that takes any path that is no regular file for a folder fails with "Not a
/// directory").
#[test]
fn analyze_and_export_read_fifos_and_pipes_as_the_disk() {
    let dir = tempfile::tempdir().unwrap();
    for (i, (name, _, bytes)) in cases(dir.path()).into_iter().enumerate().filter(|(_, c)| c.0.ends_with(".jsonl")) {
        let disk = analyze_via(dir.path(), Delivery::Disk, name, &bytes);
        if i >= 6 {
            // Whole: analyze reads it (export leaves a kitchen trace out, and then has none).
            assert_eq!(disk[0].0, 0, "case {i} {name}: {disk:?}");
        }
        for how in [Delivery::Fifo, Delivery::Pipe] {
            let other = analyze_via(dir.path(), how, name, &bytes);
            assert_eq!(other, disk, "case {i} {name} through a {how:?}");
        }
    }
}

fn read_count(paths: &[PathBuf]) -> (usize, u64) {
    let read = gatecrew_analyze::read_traces(paths).unwrap();
    let out = tempfile::tempdir().unwrap();
    let exported = gatecrew_analyze::export::export(paths, gatecrew_analyze::export::Format::Csv, out.path()).unwrap();
    (read.episodes.len(), exported.episodes)
}

/// However a trace is reached again (its folder twice, the file beside its folder, a
/// link to the folder, a link loop inside it, a hard link), `analyze` and `export`
/// count its episodes once.
#[test]
fn a_trace_reached_several_ways_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let traces = dir.path().join("traces");
    std::fs::create_dir_all(traces.join("sub")).unwrap();
    for (i, name) in ["a.jsonl", "sub/b.jsonl"].iter().enumerate() {
        let (code, _, err) = default_run(&traces.join(name), &["--seed", &i.to_string()]);
        assert_eq!(code, 0, "{err}");
    }
    let alone = read_count(std::slice::from_ref(&traces));
    assert_eq!(alone, (2, 2));
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&traces, &link).unwrap();
    std::os::unix::fs::symlink("..", traces.join("sub/up")).unwrap();
    std::os::unix::fs::symlink(".", traces.join("loop")).unwrap();
    std::fs::hard_link(traces.join("a.jsonl"), traces.join("sub/hard.jsonl")).unwrap();
    let ways: Vec<Vec<PathBuf>> = vec![
        vec![traces.clone()],
        vec![traces.clone(), traces.clone()],
        vec![traces.join("a.jsonl"), traces.clone()],
        vec![traces.clone(), link.clone(), traces.join("sub")],
        vec![link.join("sub/up/loop/sub"), link.clone()],
    ];
    for paths in ways {
        assert_eq!(read_count(&paths), alone, "{paths:?}");
    }
    // The command line too: a folder given twice.
    let t = traces.to_str().unwrap();
    let (code, out, err) = gatecrew(&["analyze", t, t, "--json"]);
    assert_eq!(code, 0, "{err}");
    let once = gatecrew(&["analyze", t, "--json"]).1;
    assert_eq!(out, once);
}

/// A path whose bytes arrive once (from the disk, through a FIFO or a pipe), and what
/// keeps the writer (and a pipe's read end) alive until the reader is done. Opening a
/// FIFO for writing waits for the reader; a reader that stops early is fine.
fn deliver_once(dir: &Path, how: Delivery, name: &str, bytes: Vec<u8>) -> (PathBuf, Box<dyn FnOnce()>) {
    let sub = dir.join(format!("{how:?}"));
    std::fs::create_dir_all(&sub).unwrap();
    match how {
        Delivery::Disk => {
            let path = sub.join(name);
            std::fs::write(&path, &bytes).unwrap();
            (path, Box::new(|| {}))
        }
        Delivery::Fifo => {
            let path = sub.join(name);
            let _ = std::fs::remove_file(&path);
            let made = std::process::Command::new("mkfifo").arg(&path).status().expect("mkfifo (coreutils) runs");
            assert!(made.success(), "mkfifo {}", path.display());
            let p = path.clone();
            let writer = std::thread::spawn(move || {
                if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&p) {
                    let _ = f.write_all(&bytes);
                }
            });
            (path, Box::new(move || writer.join().unwrap()))
        }
        Delivery::Pipe => {
            let mut cat = std::process::Command::new("cat")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("cat (coreutils) runs");
            let mut w = cat.stdin.take().unwrap();
            let r = cat.stdout.take().unwrap();
            let path = PathBuf::from(format!("/proc/self/fd/{}", r.as_raw_fd()));
            let writer = std::thread::spawn(move || {
                let _ = w.write_all(&bytes);
            });
            (
                path,
                Box::new(move || {
                    drop(r);
                    let _ = cat.wait();
                    writer.join().unwrap();
                }),
            )
        }
    }
}

/// What reading a task file tells: its format, its listing, and each task's import
/// (through `read` then `import` at `path`, and through `read_each`'s single pass at
/// `again`, a second delivery of the same bytes), the paths written as `FILE`.
fn task_reading(path: &Path, again: &Path) -> String {
    use gatecrew_tasks::{Aliases, TaskFile};
    let data = crate::common::data();
    let aliases = Aliases::none();
    let mut out = String::new();
    match TaskFile::read(path) {
        Err(e) => out.push_str(&format!("read: {e}\n")),
        Ok(file) => {
            out.push_str(&format!("{:?}\n{:?}\n", file.format(), file.listing()));
            // Only the first task: a FIFO read again would give nothing, which is the point.
            let first = file.ids().first().map(|s| s.to_string());
            out.push_str(&format!("{:?}\n", file.import(first.as_deref(), &data, &aliases)));
        }
    }
    out.push_str("--- read_each\n");
    let walked = TaskFile::read_each(again, &data, &aliases, &mut |s, r| out.push_str(&format!("{s:?} {r:?}\n")));
    out.push_str(&format!("{:?}\n", walked.map(|f| f.listing())));
    // The longer path first: one pipe's `/proc/self/fd/N` may be a prefix of the other's.
    let (long, short) = if again.as_os_str().len() >= path.as_os_str().len() { (again, path) } else { (path, again) };
    out.replace(long.to_str().unwrap(), "FILE").replace(short.to_str().unwrap(), "FILE")
}

/// Every task format (MineCollab, VillagerBench lines, a list of raw blueprints, one
/// bare raw blueprint) reads the same through a FIFO and a pipe as from the disk: the
/// reader takes the bytes once and tells the format from them.
#[test]
fn task_files_read_through_fifos_and_pipes_as_from_the_disk() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = crate::common::root().join("tests/fixtures/external");
    let mut formats = std::collections::BTreeSet::new();
    for rel in [
        "minecollab/pyramid.json",
        "minecollab/human_ai_1_agent_1_human.json",
        "villagerbench/blueprint_description_all.json",
        "villagerbench/examples_task_0_25_50_64.json",
        "villagerbench/farm_blue_print.json",
        "villagerbench/raw_blueprint_example.json",
    ] {
        let bytes = std::fs::read(fixtures.join(rel)).unwrap();
        let name = rel.replace('/', "_");
        let mut seen = Vec::new();
        for how in [Delivery::Disk, Delivery::Fifo, Delivery::Pipe] {
            // Each reading gets its own delivery: a FIFO's second open would wait for a
            // writer that has gone.
            let (path, done) = deliver_once(dir.path(), how, &name, bytes.clone());
            let (again, done_again) = deliver_once(dir.path(), how, &format!("again-{name}"), bytes.clone());
            let (tx, rx) = mpsc::channel();
            let (p, q) = (path.clone(), again.clone());
            std::thread::spawn(move || {
                let _ = tx.send(task_reading(&p, &q));
            });
            let got = rx.recv_timeout(HUNG).unwrap_or_else(|_| panic!("{rel} through a {how:?} hung (read twice?)"));
            done();
            done_again();
            seen.push((how, got));
        }
        let (_, disk) = &seen[0];
        // A task of a file may fail to import (an unknown block name); the file itself reads.
        assert!(!disk.starts_with("read: ") && disk.contains("Ok(ImportedTask"), "{rel} from the disk:\n{disk}");
        formats.insert(disk.lines().next().unwrap().to_owned());
        for (how, got) in &seen[1..] {
            assert_eq!(got, disk, "{rel} through a {how:?}");
        }
    }
    assert_eq!(formats.len(), 3, "every task format covered: {formats:?}");
}
