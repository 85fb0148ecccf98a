//! Whatever [`brief`] accepts, the derived path accepts as the same brief.

use std::path::Path;

use super::*;
use crate::trace::Event;

/// The derived path's brief of a line, as the reader reads it (`wire::parse`).
fn derived(line: &str) -> Option<String> {
    let ev: Event = super::super::wire::parse(line).ok()?;
    (ev.v == TRACE_VERSION).then(|| format!("{:?}", Brief::of(&ev)))
}

fn check(line: &str) -> bool {
    match brief(line) {
        Some(b) => {
            assert_eq!(Some(format!("{b:?}")), derived(line), "{line}");
            true
        }
        None => false,
    }
}

/// Lines in the writer's form of every kind the scanner reads, optional fields set.
const SCANNED: &[&str] = &[
    r#"{"v":1,"ep":"e","t":0,"kind":"episode_start","policy":"gated","seed":7,"config_hash":"abc","agents":[0,1],"blueprint_blocks":4,"class":"D-impossible","template":"hut","split":"test","blueprint":"b"}"#,
    r#"{"v":1,"ep":"e","t":0,"kind":"episode_start","policy":"central_dag","seed":7,"config_hash":"abc","agents":[],"blueprint_blocks":4}"#,
    r#"{"v":1,"ep":"e","t":1,"kind":"action","agent":0,"action":"place","ok":false,"reason":"no support","item":"oak_planks","count":2,"pos":[1,-2,3],"ticks":5}"#,
    r#"{"v":1,"ep":"e","t":1,"kind":"action","agent":16383,"action":"move_to","ok":true,"pos":[-2147483648,2147483647,0],"ticks":18446744073709551615}"#,
    r#"{"v":1,"ep":"e","t":2,"kind":"issue","agent":1,"issue_id":3,"issue":"missing_material","item":"stone","count":4,"node":9,"pos":[0,0,0],"reason":"r"}"#,
    r#"{"v":1,"ep":"e","t":2,"kind":"issue","agent":1,"issue_id":3,"issue":"dependency_blocked"}"#,
    r#"{"v":1,"ep":"e","t":3,"kind":"gate","agent":1,"issue_id":3,"tier":1,"rule":"R1","features":{"C":2,"A":1,"D":2,"R":0,"H":0},"score":0.625,"decision":"escalate","action":"REQUEST_MATERIAL","oracle_local_feasible":true,"context":{"requestable":true,"reachable":true,"other_work":false},"oracle_ticks":412}"#,
    r#"{"v":1,"ep":"e","t":3,"kind":"gate","agent":1,"issue_id":4,"tier":"policy","features":{"C":0,"A":0,"D":0,"R":3,"H":0},"score":1e-3,"decision":"stay_local","oracle_local_feasible":false}"#,
    r#"{"v":1,"ep":"e","t":3,"kind":"gate","agent":1,"issue_id":4,"tier":3,"features":{"C":0,"A":0,"D":0,"R":3,"H":0},"score":0.1E+0,"decision":"stay_local","oracle_local_feasible":false}"#,
    r#"{"v":1,"ep":"e","t":5,"kind":"board","msg":"REQUEST_MATERIAL","window":2,"from":1,"to":"all","item":"stone","count":4,"reason":"missing_material"}"#,
    r#"{"v":1,"ep":"e","t":5,"kind":"board","msg":"CANNOT_SUPPLY","window":2,"from":0,"to":1,"item":"stone"}"#,
    r#"{"v":1,"ep":"e","t":7,"kind":"chat","from":0,"to":"all","tokens":12}"#,
    r#"{"v":1,"ep":"e","t":8,"kind":"manager","from":1,"tokens":30}"#,
    r#"{"v":1,"ep":"e","t":8,"kind":"manager","to":1,"tokens":30}"#,
    r#"{"v":1,"ep":"e","t":9,"kind":"window","window":2,"event":"open","issue_id":3}"#,
    r#"{"v":1,"ep":"e","t":9,"kind":"window","window":2,"event":"close","outcome":"confirmed"}"#,
    r#"{"v":1,"ep":"e","t":10,"kind":"recovery","agent":1,"issue_id":3,"step":"mine","ok":true}"#,
    r#"{"v":1,"ep":"e","t":11,"kind":"resolved","agent":1,"issue_id":3,"by":"board"}"#,
    r#"{"v":1,"ep":"e","t":12,"kind":"unfinished","agent":0,"node":4,"pos":[1,2,3],"block":"stone","why":"w"}"#,
    r#"{"v":1,"ep":"e","t":13,"kind":"fallback","agent":1,"issue_id":3,"action":"LOCAL_SKIP","cause":"cannot_supply"}"#,
    r#"{"v":1,"ep":"ü","t":19,"kind":"episode_end","tsr":0.95,"complete":false,"correct_blocks":4,"blueprint_blocks":4,"reason":"tick_limit"}"#,
    r#"{"v":1,"ep":"e","t":19,"kind":"episode_end","tsr":1,"complete":true,"correct_blocks":4,"blueprint_blocks":4,"reason":"complete"}"#,
];

#[test]
fn every_scanned_kind_gives_the_derived_brief() {
    for line in SCANNED {
        assert!(check(line), "not scanned: {line}");
    }
}

/// Every line above with each byte dropped, doubled or replaced by one of a few that
/// matter to JSON: the scanner refuses the line or reads what the derived path reads.
#[test]
fn damaged_lines_are_refused_or_read_alike() {
    const BYTES: &[u8] = b" \"\\,:{}[]0129-+.eEtfnul\x01a_";
    let mut scanned = 0;
    for line in SCANNED {
        let b = line.as_bytes();
        for i in 0..b.len() {
            let mut variants = vec![[&b[..i], &b[i + 1..]].concat(), [&b[..=i], &b[i..]].concat()];
            variants.extend(BYTES.iter().map(|x| [&b[..i], &[*x], &b[i + 1..]].concat()));
            for v in variants {
                if let Ok(text) = std::str::from_utf8(&v) {
                    scanned += usize::from(check(text));
                }
            }
        }
    }
    assert!(scanned > 1000, "{scanned}");
}

#[test]
fn lines_not_in_the_writers_form_are_left_to_the_derived_path() {
    for line in [
        r#"{"v":2,"ep":"e","t":7,"kind":"chat","from":0,"to":"all","tokens":12}"#,
        r#"{"v":1,"ep":"e","t":7,"kind":"chat","from":0,"to":"all","tokens":12,"tokens":3}"#,
        r#"{"v":1,"ep":"e","t":7,"kind":"chat","from":0,"to":"all"}"#,
        r#"{"v":1,"ep":"e","t":7,"kind":"chat","from":0,"to":"all","tokens":12,"x":1}"#,
        r#"{"v":1,"ep":"e","t":7,"kind":"chat","from":0,"to":[1,2],"tokens":12}"#,
        r#"{"v":1,"ep":"e","t":7,"kind":"chat","from":0,"to":"all","tokens":12} "#,
        r#"{"v":1,"ep":"e\u0041","t":7,"kind":"chat","from":0,"to":"all","tokens":12}"#,
        r#"{"v":1,"ep":"e","t":7,"kind":"action","agent":0,"action":"place","ok":true,"pos":[-0,0,0]}"#,
        r#"{"v":1,"ep":"e","t":7,"kind":"action","agent":0,"action":"place","ok":true,"count":null}"#,
        r#"{"v":1,"ep":"e","t":7,"kind":"action","agent":0,"action":"fly","ok":true}"#,
        r#"{"v":1,"ep":"e","t":7,"kind":"gate","agent":1,"issue_id":4,"tier":0,"features":{"C":0,"A":0,"D":0,"R":3,"H":0},"score":1,"decision":"stay_local","oracle_local_feasible":false}"#,
        r#"{"v":1,"ep":"e","t":7,"kind":"gate","agent":1,"issue_id":4,"tier":1,"features":{"A":0,"C":0,"D":0,"R":3,"H":0},"score":1,"decision":"stay_local","oracle_local_feasible":false}"#,
        r#"{"v":1,"ep":"e","t":7,"kind":"gate","agent":1,"issue_id":4,"tier":1,"features":{"C":0,"A":0,"D":0,"R":3,"H":0},"score":1e999,"decision":"stay_local","oracle_local_feasible":false}"#,
        r#"{"v":1,"ep":"e","t":19,"kind":"episode_end","tsr":1,"complete":true,"correct_blocks":4,"blueprint_blocks":4,"reason":"complete","villager_blocks":3}"#,
        r#"{"v":1,"ep":"e","t":17,"kind":"say","agent":1,"what":"answer","text":"ok"}"#,
    ] {
        assert!(brief(line).is_none(), "{line}");
    }
}

/// Every line of the fuzzing corpus and the hostile traces.
#[test]
fn the_corpus_scans_alike() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut scanned = 0;
    for dir in ["fuzz/corpus/trace_line", "fuzz/regressions/trace_line", "tests/bad_input/traces"] {
        for e in std::fs::read_dir(root.join(dir)).expect("corpus folder") {
            let bytes = std::fs::read(e.expect("entry").path()).expect("corpus file");
            for line in bytes.split(|b| *b == b'\n') {
                if let Ok(line) = std::str::from_utf8(line) {
                    scanned += usize::from(check(line));
                }
            }
        }
    }
    assert!(scanned > 100, "only {scanned} corpus lines scanned");
}
