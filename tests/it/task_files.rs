//! Real task files read in full: every cell a VillagerBench text describes is accounted
//! for (counted here by a routine independent of the importer), one broken task does
//! not block the others, a MineCollab human is a participant with their own items, and
//! a file of many tasks is indexed in bounded memory.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use gatecrew_crew::Policy;
use gatecrew_protocol::Pos;
use gatecrew_protocol::trace::{Event, EventKind};
use gatecrew_tasks::{Aliases, Format, TaskErrorKind, TaskFile, TaskOptions};
use serde_json::Value;

use crate::common::{data, root};

fn fixture(rel: &str) -> PathBuf {
    root().join("tests/fixtures/external").join(rel)
}

/// The alias table `gatecrew run --task` uses (VillagerBench writes `grass`).
fn aliases() -> Aliases {
    Aliases::load(&root().join("configs/aliases.toml"), &data()).unwrap()
}

/// The cells a description line names, with repeats, found by attaching each `[x y z]`
/// to the label written right before it, or else to the label of the list holding it:
/// a different reading from the importer's tokenizer and parse tree.
fn described_by_labels(line: &str) -> Vec<Pos> {
    fn boxed(a: Pos, b: Pos, out: &mut Vec<Pos>, holes: &[Pos]) {
        for x in a.x.min(b.x)..=a.x.max(b.x) {
            for y in a.y.min(b.y)..=a.y.max(b.y) {
                for z in a.z.min(b.z)..=a.z.max(b.z) {
                    let p = Pos::new(x, y, z);
                    if !holes.contains(&p) {
                        out.push(p);
                    }
                }
            }
        }
    }
    fn flush(corners: &mut Vec<Pos>, holes: &mut Vec<Pos>, out: &mut Vec<Pos>) {
        if let Some(&c0) = corners.first() {
            let lo = corners.iter().fold(c0, |m, c| Pos::new(m.x.min(c.x), m.y.min(c.y), m.z.min(c.z)));
            let hi = corners.iter().fold(c0, |m, c| Pos::new(m.x.max(c.x), m.y.max(c.y), m.z.max(c.z)));
            boxed(lo, hi, out, holes);
        }
        corners.clear();
        holes.clear();
    }
    let text = line.replace(',', " ");
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut lists: Vec<String> = Vec::new();
    let mut label: Option<String> = None;
    let mut start: Option<Pos> = None;
    let (mut corners, mut holes) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphabetic() {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if b.get(i) == Some(&b':') {
                let l = text[s..i].to_owned();
                if matches!(l.as_str(), "material" | "name" | "height" | "shape" | "corners") {
                    flush(&mut corners, &mut holes, &mut out);
                }
                label = Some(l);
                i += 1;
            } else {
                label = None;
            }
            continue;
        }
        if c == b'[' {
            let close = text[i..].find(']').map_or(b.len(), |k| i + k);
            let inner: Vec<&str> = text[i + 1..close.min(b.len())].split_whitespace().collect();
            let nums: Vec<i32> = inner.iter().filter_map(|t| t.parse().ok()).collect();
            if nums.len() == 3 && inner.len() == 3 && !text[i + 1..close].contains('[') {
                let p = Pos::new(nums[0], nums[1], nums[2]);
                let own = label.take().or_else(|| lists.last().cloned()).unwrap_or_default();
                match own.as_str() {
                    "start" => {
                        if let Some(s) = start.replace(p) {
                            out.push(s);
                        }
                    }
                    "end" => boxed(start.take().expect("an end after a start"), p, &mut out, &[]),
                    "corners" => corners.push(p),
                    "missing" => holes.push(p),
                    _ => {
                        if let Some(s) = start.take() {
                            out.push(s);
                        }
                        out.push(p);
                    }
                }
                i = close + 1;
                continue;
            }
            let inherited = lists.last().cloned().unwrap_or_default();
            lists.push(label.take().unwrap_or(inherited));
        } else if c == b']' {
            if lists.pop().as_deref() == Some("missing") {
                flush(&mut corners, &mut holes, &mut out);
            }
        } else if !c.is_ascii_whitespace() {
            label = None;
        }
        i += 1;
    }
    if let Some(s) = start {
        out.push(s);
    }
    flush(&mut corners, &mut holes, &mut out);
    out
}

#[test]
fn every_cell_of_every_villagerbench_task_is_accounted_for() {
    let path = fixture("villagerbench/blueprint_description_all.json");
    let doc: BTreeMap<String, Vec<String>> = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let file = TaskFile::read(&path).unwrap();
    assert_eq!(file.ids().len(), 100);
    assert!(file.listing().iter().all(|t| t.problem.is_none()), "{:?}", file.listing());
    let mut multi_pair_tasks = 0;
    for (id, lines) in &doc {
        let named: Vec<Pos> = lines.iter().flat_map(|l| described_by_labels(l)).collect();
        let distinct: BTreeSet<Pos> = named.iter().copied().collect();
        let task = file.import(Some(id), &data(), &aliases()).unwrap_or_else(|e| panic!("{id}: {e}"));
        let built: BTreeSet<Pos> = task.cells.iter().map(|c| c.pos).collect();
        assert_eq!(task.described, named.len(), "{id}: cells described");
        let left_out: usize = task.warnings.iter().filter(|w| w.message.contains("left out")).map(|w| w.cells).sum();
        assert!(built.is_subset(&distinct), "{id}: the blueprint holds only cells the text names");
        assert_eq!(
            built.len() + left_out,
            distinct.len(),
            "{id}: every named cell is built or left out with a warning"
        );
        assert_eq!(task.cells.len() + task.dropped(), task.described, "{id}: {:?}", task.warnings);
        if lines.iter().any(|l| l.matches("start:").count() > 1) {
            multi_pair_tasks += 1;
        }
    }
    // Tasks of several pairs, the shape a reader is likeliest to cut at its first
    // pair, are in the file many times over.
    assert!(multi_pair_tasks >= 12, "{multi_pair_tasks}");

    // The raw blueprints: every block is a cell or a warning; numbers and items are
    // kept or reported, never a refusal.
    let path = fixture("villagerbench/farm_blue_print.json");
    let doc: BTreeMap<String, Value> = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let file = TaskFile::read(&path).unwrap();
    for (id, v) in &doc {
        let task = file.import(Some(id), &data(), &Aliases::none()).unwrap_or_else(|e| panic!("{id}: {e}"));
        let blocks = v["blocks"].as_array().unwrap();
        let distinct: BTreeSet<[i64; 3]> = blocks
            .iter()
            .map(|b| {
                let p = b["position"].as_array().unwrap();
                [p[0].as_i64().unwrap(), p[1].as_i64().unwrap(), p[2].as_i64().unwrap()]
            })
            .collect();
        assert_eq!(task.described, blocks.len(), "{id}");
        assert_eq!(task.cells.len(), distinct.len(), "{id}");
        assert_eq!(task.cells.len() + task.dropped(), task.described, "{id}");
        let numeric = blocks.iter().any(|b| b.get("age").or(b.get("moisture")).is_some_and(Value::is_number));
        assert_eq!(numeric, task.warnings.iter().any(|w| w.message.contains("not checked")), "{id}");
        let opts = TaskOptions { data: data(), seed: 7, policy: Policy::Gated, agents: None };
        gatecrew_tasks::setup(&task, &path, &opts).unwrap_or_else(|e| panic!("{id}: {e}"));
    }
    let factory = file.import(Some("material_factory"), &data(), &Aliases::none()).unwrap();
    assert_eq!(factory.contents.len(), 1, "the chest's items are its contents");
    assert_eq!(factory.contents[0].1.len(), 2);
}

#[test]
fn the_line_that_was_cut_short_is_read_whole() {
    let file = TaskFile::read(&fixture("villagerbench/blueprint_description_all.json")).unwrap();
    let t = file.import(Some("task_44"), &data(), &Aliases::none()).unwrap();
    let purpur = data().block("purpur_block").unwrap();
    // Line 0 alone: five runs, 4 + 5 + 5 + 5 + 5 = 24 blocks.
    let line0 = t.cells.iter().filter(|c| c.block == purpur && c.pos.z == 1).count();
    assert!(line0 >= 22, "{line0}");
    // Two of them are given again by later lines: reported, not lost.
    assert_eq!(t.dropped(), 2, "{:?}", t.warnings);
    assert!(t.warnings.iter().all(|w| w.path.starts_with("$.task_44[")), "{:?}", t.warnings);
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn one_broken_task_leaves_the_others_runnable() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "mixed.json",
        r#"{"good": ["material: stone facing: A position: [0, 0, 0]", "[material:stone facing:A positions:[start:[1 0 0] end:[3 0 0] start:[0 1 0] end:[0 2 0]]]"],
            "garbled": ["material: stone facing: A position: [0, 0]"],
            "odd": {"what": 1},
            "also_good": ["[name:lantern facing:A position:[0 0 0] material:stone facing:A position:[1 0 0]]"]}"#,
    );
    let file = TaskFile::read(&p).unwrap();
    let listing = file.listing();
    let status: Vec<(&str, bool)> = listing.iter().map(|t| (t.id.as_str(), t.problem.is_none())).collect();
    assert_eq!(status, vec![("good", true), ("garbled", false), ("odd", false), ("also_good", true)]);
    assert_eq!(listing[0].blocks, Some(6));
    let good = file.import(Some("good"), &data(), &Aliases::none()).unwrap();
    assert_eq!(good.cells.len(), 6);
    assert_eq!(file.import(Some("also_good"), &data(), &Aliases::none()).unwrap().cells.len(), 2);
    let e = file.import(Some("garbled"), &data(), &Aliases::none()).unwrap_err();
    assert_eq!(e.json_path(), Some("$.garbled[0]"), "{e}");
    let e = file.import(Some("odd"), &data(), &Aliases::none()).unwrap_err();
    assert_eq!(e.json_path(), Some("$.odd"), "{e}");
    // The file is named once in a message about it.
    let name = p.display().to_string();
    assert_eq!(e.to_string().matches(&name).count(), 1, "{e}");
}

#[test]
fn errors_name_the_file_once_and_bytes_that_are_not_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("latin1.json");
    let mut bytes = br#"{"t": ["material: stone facing: A position: [0, 0, 0] caf"#.to_vec();
    let offset = bytes.len();
    bytes.extend_from_slice(b"\xe9\"]}");
    std::fs::write(&p, &bytes).unwrap();
    let e = TaskFile::read(&p).unwrap_err();
    assert_eq!(e.kind(), &TaskErrorKind::NotUtf8 { offset: offset as u64 }, "{e}");
    assert!(e.to_string().contains(&format!("byte {offset}")), "{e}");

    // A task that cannot be built: the nested world error does not repeat the file.
    let p = write(dir.path(), "fire.json", r#"{"t": ["material: fire facing: A position: [0, 0, 0]"]}"#);
    let task = TaskFile::read(&p).unwrap().import(None, &data(), &Aliases::none()).unwrap();
    let opts = TaskOptions { data: data(), seed: 7, policy: Policy::Gated, agents: None };
    let e = gatecrew_tasks::setup(&task, &p, &opts).unwrap_err();
    assert_eq!(e.to_string().matches(&p.display().to_string()).count(), 1, "{e}");
}

fn run(setup: &gatecrew_crew::Setup) -> Vec<Event> {
    let mut events = Vec::new();
    gatecrew_crew::run(setup, &mut |e: &Event| events.push(e.clone()));
    events
}

#[test]
fn a_minecollab_human_holds_their_items_and_answers_from_them() {
    let path = fixture("minecollab/human_ai_1_agent_1_human.json");
    let file = TaskFile::read(&path).unwrap();
    assert_eq!(file.format(), Format::MineCollab);
    assert_eq!((file.listing()[0].bots, file.listing()[0].humans), (Some(1), 1));
    let task = file.import(None, &data(), &Aliases::none()).unwrap();
    assert_eq!(task.humans, vec!["erringnine".to_owned()]);
    assert_eq!(task.inventories.as_ref().map(Vec::len), Some(2));
    let opts = TaskOptions { data: data(), seed: 7, policy: Policy::Gated, agents: None };
    let setup = gatecrew_tasks::setup(&task, &path, &opts).unwrap();
    assert_eq!(setup.world.agent_count(), 2);
    let events = run(&setup);
    let EventKind::EpisodeStart { humans, .. } = &events[0].kind else { panic!("{:?}", events[0]) };
    assert_eq!(humans, &vec!["erringnine".to_owned()]);
    // The human builds nothing; the bot gets the human's stone bricks through the board.
    let human_placed = events
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::Action { agent, action, ok: true, .. } if agent.0 == 1 && action.as_str() == "place"))
        .count();
    assert_eq!(human_placed, 0);
    let stone_to_bot = events.iter().any(|e| {
        matches!(&e.kind, EventKind::Action { agent, action, ok: true, item: Some(i), .. }
            if agent.0 == 0 && action.as_str() == "place" && i == "stone_bricks")
    });
    assert!(stone_to_bot, "the bot placed stone bricks only the human held");
}

#[test]
fn a_participant_with_no_place_in_the_crew_is_run_as_mindcraft_does() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("tests/bad_input/minecollab/inventory_agent_out_of_range.json"))
        .unwrap()
        .replace("\"five\"", "\"5\"");
    let p = write(dir.path(), "extra.json", &text);
    let task = TaskFile::read(&p).unwrap().import(None, &data(), &Aliases::none()).unwrap();
    assert_eq!(task.inventories.as_ref().map(Vec::len), Some(2));
    let w: Vec<String> = task.warnings.iter().map(ToString::to_string).collect();
    assert!(w.iter().any(|w| w.contains(r#"initial_inventory["5"]"#) && w.contains("MindCraft")), "{w:?}");
}

/// Peak resident memory of this process, KiB.
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

const BIG_ENV: &str = "GATECREW_BIG_TASK_FILE";

/// Run in a child process by the test below, so that its peak memory is its own.
#[test]
fn child_lists_a_big_file() {
    let Ok(path) = std::env::var(BIG_ENV) else { return };
    let before = peak_kib();
    let file = TaskFile::read(Path::new(&path)).unwrap();
    let listing = file.listing();
    let last = listing.last().unwrap().id.clone();
    let task = file.import(Some(&last), &data(), &Aliases::none()).unwrap();
    assert!(task.blocks().count() > 300);
    println!("ids={} before_kib={before} peak_kib={}", listing.len(), peak_kib());
}

#[test]
fn listing_an_80_mb_file_takes_a_bounded_amount_of_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    // MindCraft's generated train/test files: hundreds of tasks of ~100 KB each.
    let one: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("minecollab/human_ai_1_agent_1_human.json")).unwrap())
            .unwrap();
    let task = serde_json::to_string_pretty(&one["church"]).unwrap();
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut n = 0;
    write!(f, "{{").unwrap();
    let mut size = 0usize;
    while size < 80 << 20 {
        write!(f, "{}\"church_{n}\": {task}", if n == 0 { "" } else { "," }).unwrap();
        size += task.len() + 20;
        n += 1;
    }
    writeln!(f, "}}").unwrap();
    f.flush().unwrap();
    drop(f);
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["task_files::child_lists_a_big_file", "--exact", "--nocapture", "--test-threads", "1"])
        .env(BIG_ENV, &path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let field = |k: &str| -> u64 {
        text.split_whitespace()
            .find_map(|w| w.strip_prefix(k))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{text}"))
    };
    assert_eq!(field("ids=") as usize, n);
    let grew = field("peak_kib=").saturating_sub(field("before_kib="));
    // The file is 80 MB, and parsed whole it would take several times that. Bounded by
    // the largest task (here 80 KB of text), listing and importing it needs a few MB.
    assert!(grew < 100 * 1024, "listing an 80 MB file grew the peak by {grew} KiB");
}

/// A scripted session in the human's seat answering the first request at `at`; the
/// seat's board messages as (tick, kind, item).
fn seat_session(dir: &Path, answer: &str, at: u64) -> (Value, Vec<(u64, String, String)>) {
    let script = write(dir, &format!("{answer}.txt"), &format!("{at} {answer}\n"));
    let trace = dir.join(format!("{answer}.jsonl"));
    let file = fixture("minecollab/human_ai_1_agent_1_human.json");
    let args = [
        "run",
        "--task",
        file.to_str().unwrap(),
        "--interactive",
        "--script",
        script.to_str().unwrap(),
        "--no-memory",
        "--json",
        "--trace",
        trace.to_str().unwrap(),
    ];
    let (code, out, err) = crate::cli::gatecrew(&args);
    assert_eq!(code, 0, "{out}{err}");
    let summary: Value = serde_json::from_str(out.trim()).unwrap();
    let seat = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["kind"] == "board" && e["from"] == 1)
        .map(|e| {
            (e["t"].as_u64().unwrap(), e["msg"].as_str().unwrap().to_owned(), e["item"].as_str().unwrap().to_owned())
        })
        .collect();
    (summary, seat)
}

#[test]
fn with_interactive_the_person_is_the_human_and_answers_each_request() {
    // The first request the bot makes, as the stand-in run sees it: the interactive run
    // is the same up to the seat's first answer.
    let path = fixture("minecollab/human_ai_1_agent_1_human.json");
    let task = TaskFile::read(&path).unwrap().import(None, &data(), &Aliases::none()).unwrap();
    let opts = TaskOptions { data: data(), seed: 7, policy: Policy::Gated, agents: None };
    let setup = gatecrew_tasks::setup(&task, &path, &opts).unwrap();
    let (first, item) = run(&setup)
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Board { msg, item, .. } if *msg == gatecrew_protocol::MessageKind::RequestMaterial => {
                Some((e.t, item.clone()))
            }
            _ => None,
        })
        .expect("the bot asks the human for something");
    let dir = tempfile::tempdir().unwrap();
    // The stand-in offers at once; the person answers ten ticks later, and the offer
    // goes out then.
    let (summary, seat) = seat_session(dir.path(), "give", first + 10);
    assert_eq!(summary["human_seat_interactive"].as_bool(), Some(true), "{summary}");
    assert_eq!(seat.first(), Some(&(first + 10, "OFFER_TRANSFER".to_owned(), item.clone())), "{seat:?}");
    // A no is a CANNOT_SUPPLY, and nothing of that item is offered in that window.
    let (_, seat) = seat_session(dir.path(), "no", first + 10);
    assert_eq!(seat.first(), Some(&(first + 10, "CANNOT_SUPPLY".to_owned(), item)), "{seat:?}");
}
