//! `gatecrew analyze` on hand-built traces whose metrics are computed by hand.

use std::path::PathBuf;

use gatecrew_analyze::{AnalyzeError, By, Metric, Report, read_traces};

use crate::common::write;

/// Episode 1 (gated, class B): 3 issues, 2 of them material issues resolved by the board
/// and 1 an unreachable target (a retry) resolved locally; 2 escalations, one of them
/// unnecessary with R = 1 (the bot's own knowledge held a route); 2 windows, 1
/// confirmed; 4 board messages; 5 actions; TSR 0.5.
const EP1: &str = r#"{"v":1,"ep":"e1","t":0,"kind":"episode_start","policy":"gated","seed":1,"config_hash":"x","agents":[0,1],"blueprint_blocks":4,"class":"B"}
{"v":1,"ep":"e1","t":1,"kind":"action","agent":0,"action":"place","ok":true}
{"v":1,"ep":"e1","t":2,"kind":"action","agent":0,"action":"place","ok":true}
{"v":1,"ep":"e1","t":3,"kind":"action","agent":1,"action":"move_to","ok":false,"reason":"no_path"}
{"v":1,"ep":"e1","t":4,"kind":"action","agent":1,"action":"craft","ok":true}
{"v":1,"ep":"e1","t":5,"kind":"action","agent":1,"action":"give","ok":true}
{"v":1,"ep":"e1","t":6,"kind":"issue","agent":0,"issue_id":1,"issue":"missing_material","item":"glass","count":2}
{"v":1,"ep":"e1","t":6,"kind":"gate","agent":0,"issue_id":1,"tier":3,"features":{"C":2,"A":1,"D":2,"R":0,"H":0},"score":0.68,"decision":"escalate","action":"REQUEST_MATERIAL","oracle_local_feasible":false}
{"v":1,"ep":"e1","t":6,"kind":"issue","agent":0,"issue_id":2,"issue":"missing_material","item":"stick","count":1}
{"v":1,"ep":"e1","t":6,"kind":"gate","agent":0,"issue_id":2,"tier":2,"features":{"C":2,"A":1,"D":2,"R":1,"H":0},"score":0.95,"decision":"escalate","action":"REQUEST_MATERIAL","oracle_local_feasible":true}
{"v":1,"ep":"e1","t":6,"kind":"issue","agent":1,"issue_id":3,"issue":"unreachable","pos":[1,0,1]}
{"v":1,"ep":"e1","t":6,"kind":"gate","agent":1,"issue_id":3,"tier":1,"rule":"no_message","features":{"C":0,"A":1,"D":0,"R":0,"H":0},"score":0.3,"decision":"stay_local","action":"LOCAL_SKIP","oracle_local_feasible":false}
{"v":1,"ep":"e1","t":7,"kind":"board","msg":"REQUEST_MATERIAL","window":0,"from":0,"to":"all","item":"glass","count":2}
{"v":1,"ep":"e1","t":7,"kind":"window","window":0,"event":"open","issue_id":1}
{"v":1,"ep":"e1","t":7,"kind":"board","msg":"REQUEST_MATERIAL","window":1,"from":0,"to":"all","item":"stick","count":1}
{"v":1,"ep":"e1","t":7,"kind":"window","window":1,"event":"open","issue_id":2}
{"v":1,"ep":"e1","t":8,"kind":"board","msg":"OFFER_TRANSFER","window":0,"from":1,"to":0,"item":"glass","count":2}
{"v":1,"ep":"e1","t":9,"kind":"board","msg":"CONFIRM_TRANSFER","window":0,"from":0,"to":1,"item":"glass","count":2}
{"v":1,"ep":"e1","t":9,"kind":"window","window":0,"event":"close","outcome":"confirmed"}
{"v":1,"ep":"e1","t":9,"kind":"resolved","agent":0,"issue_id":1,"by":"board"}
{"v":1,"ep":"e1","t":9,"kind":"resolved","agent":0,"issue_id":2,"by":"board"}
{"v":1,"ep":"e1","t":40,"kind":"window","window":1,"event":"close","outcome":"timeout"}
{"v":1,"ep":"e1","t":50,"kind":"resolved","agent":1,"issue_id":3,"by":"local"}
{"v":1,"ep":"e1","t":60,"kind":"episode_end","tsr":0.5,"complete":false,"correct_blocks":2,"blueprint_blocks":4,"reason":"stalled"}
"#;

/// Episode 2 (gated, class A): 1 issue resolved locally, no escalation, 1 action, TSR 1.
const EP2: &str = r#"{"v":1,"ep":"e2","t":0,"kind":"episode_start","policy":"gated","seed":2,"config_hash":"x","agents":[0,1,2],"blueprint_blocks":1,"class":"A"}
{"v":1,"ep":"e2","t":1,"kind":"issue","agent":0,"issue_id":1,"issue":"missing_material","item":"glass","count":1}
{"v":1,"ep":"e2","t":1,"kind":"gate","agent":0,"issue_id":1,"tier":2,"features":{"C":1,"A":1,"D":0,"R":3,"H":0},"score":0.3,"decision":"stay_local","action":"LOCAL_RECOVER","oracle_local_feasible":true}
{"v":1,"ep":"e2","t":1,"kind":"recovery","agent":0,"issue_id":1,"step":"fetch glass","ok":true}
{"v":1,"ep":"e2","t":2,"kind":"resolved","agent":0,"issue_id":1,"by":"local"}
{"v":1,"ep":"e2","t":3,"kind":"action","agent":0,"action":"place","ok":true}
{"v":1,"ep":"e2","t":4,"kind":"episode_end","tsr":1.0,"complete":true,"correct_blocks":1,"blueprint_blocks":1,"reason":"complete"}
"#;

/// Episode 3 (flatcomm, class B): 3 chat lines of 100, 200 and 300 tokens, 1 window
/// confirmed, 1 issue resolved by the board.
const EP3: &str = r#"{"v":1,"ep":"e3","t":0,"kind":"episode_start","policy":"flatcomm","seed":1,"config_hash":"x","agents":[0,1],"blueprint_blocks":2,"class":"B"}
{"v":1,"ep":"e3","t":1,"kind":"issue","agent":0,"issue_id":1,"issue":"missing_material","item":"glass","count":1}
{"v":1,"ep":"e3","t":1,"kind":"gate","agent":0,"issue_id":1,"tier":"policy","features":{"C":1,"A":1,"D":0,"R":0,"H":0},"score":0.4,"decision":"escalate","action":"REQUEST_MATERIAL","oracle_local_feasible":false}
{"v":1,"ep":"e3","t":1,"kind":"chat","from":0,"to":"all","tokens":100}
{"v":1,"ep":"e3","t":1,"kind":"window","window":0,"event":"open","issue_id":1}
{"v":1,"ep":"e3","t":2,"kind":"chat","from":1,"to":0,"tokens":200}
{"v":1,"ep":"e3","t":3,"kind":"chat","from":0,"to":1,"tokens":300}
{"v":1,"ep":"e3","t":3,"kind":"window","window":0,"event":"close","outcome":"confirmed"}
{"v":1,"ep":"e3","t":3,"kind":"resolved","agent":0,"issue_id":1,"by":"board"}
{"v":1,"ep":"e3","t":4,"kind":"action","agent":0,"action":"place","ok":true}
{"v":1,"ep":"e3","t":5,"kind":"episode_end","tsr":0.5,"complete":false,"correct_blocks":1,"blueprint_blocks":2,"reason":"tick_limit"}
"#;

fn close(a: Option<f64>, b: f64) {
    let a = a.expect("defined");
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

fn traces() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "runs/gated/e1.jsonl", EP1);
    write(dir.path(), "runs/gated/e2.jsonl", EP2);
    write(dir.path(), "runs/flatcomm/e3.jsonl", EP3);
    let runs = dir.path().join("runs");
    (dir, runs)
}

#[test]
fn metrics_match_hand_computed_values() {
    let (_dir, runs) = traces();
    let read = read_traces(&[runs]).unwrap();
    assert_eq!((read.files, read.episodes.len()), (3, 3));
    let r = Report::build(&read.episodes, By::Class);
    let v = |p: &str, k: &str, m: Metric| r.value(p, k, m);
    // gated, all: TSR mean (0.5 + 1) / 2; CS mean (5 + 1) / 2; Msg mean (4 + 0) / 2.
    close(v("gated", "all", Metric::Tsr), 0.75);
    close(v("gated", "all", Metric::Complete), 0.5);
    close(v("gated", "all", Metric::Cs), 3.0);
    close(v("gated", "all", Metric::Msg), 2.0);
    // Pooled over material and tool issues (DESIGN section 8 as amended): e1 #1 and #2
    // by the board, e2 #1 locally: LRR 1/3, RSR 3/3. e1 #3 (unreachable) is a retry, in a
    // row of its own: 1 in 2 episodes, resolved. Escalations 2, one unnecessary, and
    // that one's R = 1: all of UER is the gate's own error, none out of view. Windows
    // 2, one confirmed: ECR 1/2, and 1 confirmed transfer for 2 escalations.
    close(v("gated", "all", Metric::Lrr), 1.0 / 3.0);
    close(v("gated", "all", Metric::Rsr), 1.0);
    close(v("gated", "all", Metric::Retries), 0.5);
    close(v("gated", "all", Metric::RetriesResolved), 1.0);
    close(v("gated", "all", Metric::Uer), 0.5);
    close(v("gated", "all", Metric::UerKnown), 0.5);
    close(v("gated", "all", Metric::UerUnseen), 0.0);
    close(v("gated", "all", Metric::Ecr), 0.5);
    close(v("gated", "all", Metric::Escalations), 1.0);
    close(v("gated", "all", Metric::Yield), 0.5);
    // Per class: B is episode 1 alone; its only locally resolved issue was the retry.
    close(v("gated", "B", Metric::Tsr), 0.5);
    close(v("gated", "B", Metric::Lrr), 0.0);
    close(v("gated", "A", Metric::Lrr), 1.0);
    assert_eq!(v("gated", "A", Metric::RetriesResolved), None, "no retry in A");
    assert_eq!(v("gated", "A", Metric::Uer), None, "no escalation: UER undefined");
    // flatcomm: 3 chat lines, 600 tokens, ECR 1.
    close(v("flatcomm", "all", Metric::Msg), 3.0);
    close(v("flatcomm", "all", Metric::MsgTokens), 600.0);
    close(v("flatcomm", "all", Metric::Ecr), 1.0);
    close(v("flatcomm", "all", Metric::Yield), 1.0);
    close(v("flatcomm", "all", Metric::Lrr), 0.0);
    // The gate decisions by tier and rule: gated's four, flatcomm's one.
    let d = &r.decisions;
    assert_eq!(d.policies, ["gated", "flatcomm"]);
    assert_eq!(d.totals, [4, 1]);
    let row = |label: &str| d.rows.iter().find(|r| r.label == label).map(|r| r.counts.clone());
    assert_eq!(row("tier 1 no_message -> stay_local"), Some(vec![1, 0]));
    assert_eq!(row("tier 2 -> escalate"), Some(vec![1, 0]));
    assert_eq!(row("tier 2 -> stay_local"), Some(vec![1, 0]));
    assert_eq!(row("tier 3 -> escalate"), Some(vec![1, 0]));
    assert_eq!(row("policy -> escalate"), Some(vec![0, 1]));
    assert_eq!(d.rows.len(), 5);
    assert!(r.tables().contains("tier 1 no_message -> stay_local"), "{}", r.tables());
    // The intervals contain the estimate, and are points when there is one episode.
    for g in &r.groups {
        for c in &g.cells {
            if let Some(i) = c.interval {
                assert!(i.lo <= i.value + 1e-12 && i.value <= i.hi + 1e-12, "{g:?}");
            }
        }
    }
    let by_agents = Report::build(&read.episodes, By::Agents);
    close(by_agents.value("gated", "3 bots", Metric::Tsr), 1.0);
    // e1's tier-3 decision has no adjudication event behind it: the deterministic
    // adjudicator settled it, and the column says so.
    assert!(r.tables().contains("gated (n=2, det. tier 3)"), "{}", r.tables());
    assert!(r.group("gated", "all").unwrap().deterministic_tier3);
    assert!(!r.group("flatcomm", "all").unwrap().deterministic_tier3);
}

/// A truncated tail is skipped with a warning; the episode it cut short (no
/// `episode_end`) is named and left out of the figures: its counts are incomplete, and
/// would skew every mean they entered.
#[test]
fn a_truncated_tail_is_reported_and_its_episode_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let cut = &EP2[..EP2.len() - 40];
    let f = write(dir.path(), "cut.jsonl", cut);
    let whole = write(dir.path(), "whole.jsonl", EP3);
    let read = read_traces(&[f.clone(), whole]).unwrap();
    assert_eq!(read.episodes.len(), 1, "only the whole episode counts");
    assert_eq!(read.episodes[0].episode, "e3");
    assert_eq!(read.left_out, 1);
    assert_eq!(read.warnings.len(), 2, "{:?}", read.warnings);
    assert!(read.warnings[0].contains("cut.jsonl:7: truncated"), "{:?}", read.warnings);
    assert!(read.warnings[1].contains("cut.jsonl: episode e2 has no episode_end"), "{:?}", read.warnings);
    // Alone, it leaves nothing to measure: an error that says why.
    let err = read_traces(&[f]).unwrap_err();
    assert!(matches!(err, AnalyzeError::NoComplete { files: 1, .. }), "{err}");
    assert!(err.to_string().contains("cut.jsonl: episode e2 has no episode_end"), "{err}");
}

#[test]
fn a_garbage_line_is_an_error_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = EP2.replacen("\n", "\n{\"v\":1,\"ep\":\"e2\",\"t\":1,\"kind\":\"action\"}\n", 1);
    let f = write(dir.path(), "bad.jsonl", &bad);
    let err = read_traces(&[f]).unwrap_err();
    assert!(matches!(err, AnalyzeError::Trace { line: 2, .. }), "{err}");
    assert!(err.to_string().contains("bad.jsonl:2"), "{err}");
}

#[test]
fn an_unknown_major_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "v2.jsonl", &EP2.replace("{\"v\":1,", "{\"v\":2,"));
    let err = read_traces(&[f]).unwrap_err().to_string();
    assert!(err.contains("v2.jsonl:1") && err.contains("version 2 is not supported"), "{err}");
}

#[test]
fn the_plot_is_drawn_with_the_bundled_font() {
    let (dir, runs) = traces();
    let read = read_traces(&[runs]).unwrap();
    let r = Report::build(&read.episodes, By::Class);
    for name in ["p.svg", "p.png"] {
        let p = dir.path().join(name);
        gatecrew_analyze::plot::plot(&r, &p).unwrap();
        assert!(std::fs::metadata(&p).unwrap().len() > 1000);
    }
    assert!(gatecrew_analyze::plot::plot(&r, &dir.path().join("p.pdf")).is_err());
    // Each panel's y axis says what it measures; the legend stands in a strip above the
    // panels, where no bar is drawn.
    let svg = std::fs::read_to_string(dir.path().join("p.svg")).unwrap();
    for label in ["share of blueprint cells correct", "public messages per episode", "actions per episode"] {
        assert!(svg.contains(label), "no y label {label:?}");
    }
    let texts: Vec<(f64, String)> = svg
        .split("<text")
        .skip(1)
        .filter_map(|t| {
            let y = t.split(" y=\"").nth(1)?.split('"').next()?.parse().ok()?;
            let body = t.split_once('>')?.1.split("</text>").next()?.trim().to_owned();
            Some((y, body))
        })
        .collect();
    assert!(!r.policies.is_empty());
    for p in &r.policies {
        let (y, _) = texts.iter().find(|(_, b)| b == p).unwrap_or_else(|| panic!("no legend entry {p}"));
        assert!(*y < 40.0, "{p}'s legend entry at y {y}, inside the panels");
    }
    let rects_in_strip = svg
        .split("<rect")
        .skip(1)
        .filter_map(|t| t.split(" y=\"").nth(1)?.split('"').next()?.parse::<f64>().ok())
        .filter(|y| *y > 0.0 && *y < 40.0)
        .count();
    assert_eq!(rects_in_strip, r.policies.len(), "one swatch per policy in the strip, no bar");
}

/// A gray zone the `llm` executor settled (a consult call, no adjudication event) is
/// not labelled as the deterministic adjudicator's, and its calls count.
#[test]
fn a_modelled_tier3_is_labelled_by_its_consults() {
    let ep = r#"{"v":1,"ep":"m1","t":0,"kind":"episode_start","policy":"gated","seed":1,"config_hash":"x","agents":[0,1],"blueprint_blocks":1}
{"v":1,"ep":"m1","t":1,"kind":"issue","agent":0,"issue_id":1,"issue":"missing_material","item":"glass","count":1}
{"v":1,"ep":"m1","t":1,"kind":"llm_call","agent":0,"call":"consult","prompt_tokens":90,"completion_tokens":12,"ticks":30}
{"v":1,"ep":"m1","t":31,"kind":"gate","agent":0,"issue_id":1,"tier":3,"features":{"C":2,"A":1,"D":2,"R":0,"H":0},"score":0.7,"decision":"stay_local","action":"LOCAL_SKIP","oracle_local_feasible":false}
{"v":1,"ep":"m1","t":40,"kind":"episode_end","tsr":0.0,"complete":false,"correct_blocks":0,"blueprint_blocks":1,"reason":"tick_limit"}
"#;
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "m1.jsonl", ep);
    let read = read_traces(&[dir.path().to_path_buf()]).unwrap();
    let r = Report::build(&read.episodes, By::Policy);
    let g = r.group("gated", "all").unwrap();
    assert!(!g.deterministic_tier3 && g.consults == 1, "{g:?}");
    assert!(r.tables().contains("gated (n=1, 1 tier-3 consults)"), "{}", r.tables());
    close(r.value("gated", "all", Metric::LlmCalls), 1.0);
}

/// `--paired`: two policies that ran identical traces differ by zero, with a
/// zero-width interval; a policy with no episode in common is left out; an unknown
/// baseline is refused by name.
#[test]
fn paired_differences_are_zero_width_on_identical_traces() {
    let (dir, runs) = traces();
    for (name, text) in [("e1", EP1), ("e2", EP2)] {
        write(
            dir.path(),
            &format!("runs/no_gate/{name}.jsonl"),
            &text.replace(r#""policy":"gated""#, r#""policy":"no_gate""#),
        );
    }
    let read = read_traces(&[runs]).unwrap();
    let p =
        gatecrew_analyze::Paired::build(&read.episodes, "gated", By::Class, gatecrew_analyze::Ci::default()).unwrap();
    let pairs = |policy: &str, key: &str| p.groups.iter().find(|g| g.policy == policy && g.key == key).map(|g| g.pairs);
    assert_eq!(pairs("no_gate", "all"), Some(2));
    assert_eq!(pairs("no_gate", "B"), Some(1));
    assert_eq!(pairs("flatcomm", "all"), None, "flatcomm ran other episodes");
    for m in [Metric::Tsr, Metric::Cs, Metric::Msg, Metric::Lrr, Metric::Uer, Metric::Yield, Metric::Rsr] {
        let i = p.diff("no_gate", "all", m).unwrap_or_else(|| panic!("{m:?} defined"));
        assert_eq!((i.value, i.lo, i.hi), (0.0, 0.0, 0.0), "{m:?}");
    }
    assert!(p.tables().contains("no_gate (pairs=2)"), "{}", p.tables());
    // A difference that is not zero: drop one board message from no_gate's e1.
    let fewer = EP1.replace(r#""policy":"gated""#, r#""policy":"no_gate""#).replace(
        "{\"v\":1,\"ep\":\"e1\",\"t\":8,\"kind\":\"board\",\"msg\":\"OFFER_TRANSFER\",\"window\":0,\"from\":1,\"to\":0,\"item\":\"glass\",\"count\":2}\n",
        "",
    );
    assert_ne!(fewer, EP1.replace(r#""policy":"gated""#, r#""policy":"no_gate""#));
    write(dir.path(), "runs/no_gate/e1.jsonl", &fewer);
    let read = read_traces(&[dir.path().join("runs")]).unwrap();
    let p =
        gatecrew_analyze::Paired::build(&read.episodes, "gated", By::Policy, gatecrew_analyze::Ci::default()).unwrap();
    // Msg: e1 3 against 4, e2 0 against 0: a mean difference of -0.5.
    close(p.diff("no_gate", "all", Metric::Msg).map(|i| i.value), -0.5);
    let err = gatecrew_analyze::Paired::build(&read.episodes, "central_dag", By::Policy, gatecrew_analyze::Ci::None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("central_dag") && err.contains("gated"), "{err}");
}
