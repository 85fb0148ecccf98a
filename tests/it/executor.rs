//! The `llm` executor model: applied alike to every policy, deterministic on
//! both runtimes, invisible under the scripted executor, and its parts (latency,
//! mistakes, the context window) doing what they say.

use std::collections::BTreeMap;
use std::sync::Arc;

use gatecrew_crew::executor::{Executor, ExecutorKind, ExecutorSpec, LlmModel};
use gatecrew_crew::{Overrides, Policy, Setup};
use gatecrew_gating::GateSpec;
use gatecrew_gating::llm::{ErrorRates, Latency, LlmProfile};
use gatecrew_protocol::AgentId;
use gatecrew_protocol::trace::{ActionName, CallKind, Decision, Event, EventKind, Tier};

use crate::common::{default_config, root, run_events, write};
use crate::episode::{actor_trace, events, stepper_trace};

const POLICIES: [Policy; 9] = Policy::ALL;

fn latency() -> Latency {
    Latency { a: 5.5, b: 0.0023, c: 0.247, samples: 0, r2: None }
}

fn llm(p0: f64, p1: f64, context: u32) -> Executor {
    let profile = LlmProfile {
        model: "test".into(),
        source: "the test".into(),
        latency: latency(),
        errors: Some(ErrorRates { p0, p1, source: "the test".into() }),
        tokenizer: Default::default(),
    };
    Executor::Llm(Arc::new(LlmModel::new(profile, context, 1.0)))
}

fn setup(policy: Policy, executor: Executor) -> Setup {
    let ov = Overrides { policy: Some(policy), executor: Some(executor), ..Overrides::default() };
    Setup::load(&default_config(), &ov).unwrap()
}

/// One call: kind, mistake, prompt tokens, completion tokens, ticks.
type CallRow = (CallKind, bool, u32, u32, u64);

/// Each agent's calls in order.
fn calls(evs: &[Event]) -> BTreeMap<Option<AgentId>, Vec<CallRow>> {
    let mut m: BTreeMap<_, Vec<_>> = BTreeMap::new();
    for e in evs {
        if let EventKind::LlmCall { agent, call, prompt_tokens, completion_tokens, ticks, mistake } = &e.kind {
            m.entry(*agent).or_default().push((*call, *mistake, *prompt_tokens, *completion_tokens, *ticks));
        }
    }
    m
}

fn end(evs: &[Event]) -> (f64, u64) {
    match evs.last().map(|e| &e.kind) {
        Some(EventKind::EpisodeEnd { tsr, .. }) => (*tsr, evs.last().unwrap().t),
        other => panic!("no episode_end last: {other:?}"),
    }
}

/// Same seed, same decisions: the n-th call of bot k draws the same numbers under every
/// policy (with a constant error rate, the same mistakes), and every call's ticks are
/// the profile's latency line over its own token counts.
#[test]
fn the_executor_model_is_applied_identically_to_every_policy() {
    let runs: Vec<_> = POLICIES.iter().map(|p| (*p, calls(&run_events(&setup(*p, llm(0.2, 0.0, 15)))))).collect();
    let (_, reference) = &runs[0];
    for (policy, by_agent) in &runs {
        for a in 0..3 {
            let mine = &by_agent[&Some(AgentId(a))];
            let theirs = &reference[&Some(AgentId(a))];
            let n = mine.len().min(theirs.len());
            assert!(n >= 20, "{policy:?}: bot{a} made {n} calls");
            let flags = |v: &[CallRow]| v[..n].iter().map(|c| c.1).collect::<Vec<_>>();
            assert_eq!(flags(mine), flags(theirs), "{policy:?}: bot{a}'s draws differ from gated's");
        }
        for calls in by_agent.values() {
            for &(_, _, prompt, completion, ticks) in calls {
                assert_eq!(ticks, latency().ticks(prompt, completion));
            }
        }
    }
    let kinds = |p: Policy| -> Vec<CallKind> {
        let (_, m) = runs.iter().find(|(q, _)| *q == p).unwrap();
        let mut k: Vec<CallKind> = m.values().flatten().map(|c| c.0).collect();
        k.sort();
        k.dedup();
        k
    };
    // What each policy asks its model to do: the protocol's messages are filled in by
    // the gate, flatcomm's are written, the manager re-plans.
    assert!(!kinds(Policy::Gated).contains(&CallKind::Write));
    assert!(kinds(Policy::Flatcomm).contains(&CallKind::Write) && kinds(Policy::Flatcomm).contains(&CallKind::Read));
    assert!(kinds(Policy::NoPartition).contains(&CallKind::Read));
    assert!(kinds(Policy::CentralDag).contains(&CallKind::Replan));
}

/// Same seed and config, same trace, byte for byte, on the stepper and on actors.
#[test]
fn an_llm_episode_is_deterministic_on_both_runtimes() {
    for policy in [Policy::Gated, Policy::Flatcomm, Policy::CentralDag] {
        let s = setup(policy, llm(0.05, 0.05, 15));
        let a = stepper_trace(&s);
        assert_eq!(a, stepper_trace(&s), "{policy:?}: two stepper runs differ");
        assert_eq!(a, actor_trace(&s), "{policy:?}: stepper and actors differ");
        let evs = events(&a);
        let Some(EventKind::EpisodeStart { executor: Some(label), .. }) = evs.first().map(|e| &e.kind) else {
            panic!("episode_start records the executor")
        };
        assert_eq!((label.model.as_str(), label.context_lines, label.errors), ("test", 15, true));
    }
}

/// The scripted executor is today's crew: the same trace as without the flag, and
/// nothing of the model in it.
#[test]
fn the_scripted_executor_changes_nothing() {
    let plain = stepper_trace(&Setup::load(&default_config(), &Overrides::default()).unwrap());
    let scripted = stepper_trace(&setup(Policy::Gated, Executor::Scripted));
    assert_eq!(plain, scripted);
    let text = String::from_utf8(plain).unwrap();
    assert!(!text.contains("llm_call") && !text.contains("\"executor\""));
}

/// Thinking costs time: the same crew takes longer under the model, and a bot whose
/// every decision goes wrong places nothing right: its actions fail as `mistaken`,
/// except places made with another held block, which put that wrong block down.
#[test]
fn latency_slows_the_crew_and_mistakes_fail_actions() {
    let (tsr0, t0) = end(&run_events(&setup(Policy::Gated, Executor::Scripted)));
    let free = run_events(&setup(Policy::Gated, llm(0.0, 0.0, 15)));
    let (tsr1, t1) = end(&free);
    assert_eq!((tsr0, tsr1), (1.0, 1.0));
    let acts = calls(&free).values().flatten().filter(|c| c.0 == CallKind::Act).count() as u64;
    assert!(t1 > t0 + acts / 3 * 5, "{t0} -> {t1} ticks with {acts} act calls of 5.5+ ticks each over 3 bots");
    let wrong = run_events(&setup(Policy::Gated, llm(1.0, 0.0, 15)));
    let (tsr, _) = end(&wrong);
    assert_eq!(tsr, 0.0, "no block of a bot that always errs is right");
    let (mut failed, mut misplaced) = (0, 0);
    for e in &wrong {
        let EventKind::Action { action, ok, reason, .. } = &e.kind else { continue };
        match (ok, reason.as_deref()) {
            (false, Some("mistaken")) => failed += 1,
            (true, _) if *action == ActionName::Place => misplaced += 1,
            other => panic!("an always-wrong bot's action {action:?} ended {other:?}"),
        }
    }
    assert!(failed > 0, "no action failed as mistaken");
    // The default house's bots start with more than one kind of block.
    assert!(misplaced > 0, "no wrong block was placed");
}

/// What the trace's place and mine actions did to the blueprint's cells: how many
/// wrong blocks went into a cell, how many of those were dug out and the cell placed
/// right afterwards, and how many cells still hold a wrong block at the end.
fn cell_history(evs: &[Event], s: &Setup) -> (u32, u32, u32) {
    let mut held: BTreeMap<gatecrew_protocol::Pos, bool> = BTreeMap::new();
    let mut dug = std::collections::BTreeSet::new();
    let (mut wrong, mut replaced) = (0, 0);
    for e in evs {
        let EventKind::Action { action, ok: true, item, pos: Some(pos), .. } = &e.kind else { continue };
        let Some(cell) = s.blueprint.cell_at(*pos) else { continue };
        match action {
            ActionName::Place => {
                let right = item.as_deref() == Some(s.data.block_name(cell.block));
                wrong += u32::from(!right);
                replaced += u32::from(right && dug.remove(pos));
                held.insert(*pos, right);
            }
            ActionName::Mine => {
                let was_wrong = held.remove(pos) == Some(false);
                if was_wrong {
                    dug.insert(*pos);
                }
            }
            _ => {}
        }
    }
    (wrong, replaced, held.values().filter(|r| !**r).count() as u32)
}

/// A place the model got wrong puts another held block down and succeeds: the bot's
/// plan counts the cell as done. The bot sees the block in the cell, digs it out and
/// places the right one; the report counts the replacements. Without mistakes nothing
/// is placed wrong and nothing replaced; at a small rate wrong blocks appear, every
/// one is replaced and the house completes, on both runtimes alike.
#[test]
fn a_wrong_block_is_dug_out_and_replaced() {
    let right = setup(Policy::Gated, llm(0.0, 0.0, 15));
    let evs = run_events(&right);
    assert_eq!(cell_history(&evs, &right).0, 0, "without mistakes every place is the cell's block");
    let Some(EventKind::EpisodeEnd { blocks_replaced, .. }) = evs.last().map(|e| &e.kind) else { panic!("no end") };
    assert_eq!(*blocks_replaced, None, "nothing to replace");
    for policy in [Policy::Gated, Policy::Flatcomm] {
        let s = setup(policy, llm(0.08, 0.0, 15));
        let bytes = stepper_trace(&s);
        let evs = events(&bytes);
        let Some(EventKind::EpisodeEnd { complete, correct_blocks, blueprint_blocks, blocks_replaced, .. }) =
            evs.last().map(|e| &e.kind)
        else {
            panic!("no episode_end")
        };
        let (wrong, replaced, wrong_at_end) = cell_history(&evs, &s);
        assert!(wrong > 0, "{policy:?}: no wrong block at an 8% rate");
        assert_eq!(replaced, wrong, "{policy:?}: every wrong block is dug out and the cell placed right");
        assert_eq!(*blocks_replaced, Some(replaced), "{policy:?}: the end counts what the trace shows");
        assert_eq!(wrong_at_end, 0, "{policy:?}: no cell ends wrong");
        assert!(*complete && *correct_blocks == *blueprint_blocks, "{policy:?}: the house completes");
        assert_eq!(bytes, actor_trace(&s), "{policy:?}: the actor runtime gives the same trace");
    }
}

/// `gatecrew run --executor llm` reports the replacements in its table and in
/// `--json`, as the trace's `episode_end` counts them.
#[test]
fn the_run_reports_the_blocks_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = default_config();
    let run = |name: &str, json: bool| {
        let trace = dir.path().join(name);
        let mut args = vec!["run", "--config", cfg.to_str().unwrap(), "--stepper", "--executor", "llm"];
        args.extend(["--error-scale", "0.1", "--trace", trace.to_str().unwrap()]);
        if json {
            args.push("--json");
        }
        let (code, out, err) = crate::cli::gatecrew(&args);
        assert_eq!(code, 0, "{err}");
        let last = std::fs::read_to_string(&trace).unwrap().lines().last().unwrap().to_owned();
        let end: Event = serde_json::from_str(&last).unwrap();
        let EventKind::EpisodeEnd { blocks_replaced: Some(n), .. } = end.kind else { panic!("{last}") };
        (out, n)
    };
    let (out, n) = run("j.jsonl", true);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert!(n > 0);
    assert_eq!(v["blocks_replaced"].as_u64(), Some(u64::from(n)), "{v}");
    let (table, m) = run("t.jsonl", false);
    assert_eq!(m, n, "the same run");
    let row = table.lines().find(|l| l.contains("blocks replaced")).unwrap_or_else(|| panic!("{table}"));
    assert!(row.contains(&format!("{n} wrong blocks")), "{row}");
}

/// Under the model a gated bot's gray-zone verdict is a call of its own: it enters when
/// the call is done, and a mistaken call flips it. At rate 0 every tier-3 decision is
/// the deterministic adjudicator's; at rate 0.5 as many differ from it as consult calls
/// went wrong. The gray zone is the whole score range here
/// (configs/gates/boundary-all.toml), so that every issue tier 1 leaves is a consult.
#[test]
fn a_mistaken_consult_flips_the_verdict() {
    let all = |executor| {
        let gate = GateSpec { theta_low: 0.0, theta_high: 1.0, ..GateSpec::default() };
        let ov = Overrides { executor: Some(executor), gate: Some(gate), ..Overrides::default() };
        Setup::load(&default_config(), &ov).unwrap()
    };
    let midpoint = all(Executor::Scripted).gate.midpoint();
    for p in [0.0, 0.5] {
        let evs = run_events(&all(llm(p, 0.0, 15)));
        let consults: Vec<CallRow> = calls(&evs).into_values().flatten().filter(|c| c.0 == CallKind::Consult).collect();
        let (mut tier3, mut flipped) = (0, 0);
        for e in &evs {
            let EventKind::Gate { tier: Tier::Adjudicator, features, score, decision, .. } = &e.kind else { continue };
            tier3 += 1;
            let det = if features.r == 0 || *score >= midpoint { Decision::Escalate } else { Decision::StayLocal };
            flipped += usize::from(*decision != det);
        }
        assert!(tier3 > 0, "rate {p}: no issue reached the gray zone");
        assert_eq!(tier3, consults.len(), "rate {p}: one consult call a tier-3 decision");
        assert_eq!(flipped, consults.iter().filter(|c| c.1).count(), "rate {p}: flips vs mistaken consults");
        assert!(!evs.iter().any(|e| matches!(e.kind, EventKind::Adjudication { .. })), "no external adjudicator");
        assert_eq!(flipped > 0, p > 0.0, "rate {p}: {flipped} flipped of {tier3}");
    }
}

/// The manager re-plans from the status it is shown, written out and counted: every
/// unplaced cell is a line of its prompt, so re-plans late in the build, with fewer
/// cells left, are shorter than the first. A modelled size (a fixed part and 4 tokens a
/// cell) would make every two prompts differ by a multiple of 4; counted
/// lines (coordinates, block names, owners) do not.
#[test]
fn a_replan_prompt_is_the_status_counted() {
    let evs = run_events(&setup(Policy::CentralDag, llm(0.0, 0.0, 15)));
    let replans: Vec<u32> = calls(&evs)[&None].iter().filter(|c| c.0 == CallKind::Replan).map(|c| c.2).collect();
    assert!(replans.len() >= 2, "{replans:?}");
    assert!(replans[0] > replans[replans.len() - 1], "{replans:?}");
    assert!(
        replans.iter().any(|p| p.abs_diff(replans[0]) % 4 != 0),
        "a modelled size, not a counted text: {replans:?}"
    );
}

/// Errors grow with the prompt: flatcomm's long chat contexts make more mistakes per
/// call than the gated crew's short ones, under the same p0 and p1.
#[test]
fn long_prompts_err_more_often() {
    let rate = |policy| {
        let evs = run_events(&setup(policy, llm(0.0, 0.2, 15)));
        let c: Vec<_> = calls(&evs).into_values().flatten().collect();
        let prompt = c.iter().map(|c| f64::from(c.2)).sum::<f64>() / c.len() as f64;
        (prompt, c.iter().filter(|c| c.1).count() as f64 / c.len() as f64)
    };
    let (gated_prompt, gated) = rate(Policy::Gated);
    let (flat_prompt, flat) = rate(Policy::Flatcomm);
    assert!(flat_prompt > gated_prompt, "flatcomm's prompts {flat_prompt:.0} vs gated's {gated_prompt:.0}");
    // p = 0.2 per 1,000 prompt tokens: the expected rates follow the prompts.
    assert!((gated - 0.2 * gated_prompt / 1000.0).abs() < 0.06, "gated: {gated} at {gated_prompt:.0} tokens");
    assert!((flat - 0.2 * flat_prompt / 1000.0).abs() < 0.06, "flatcomm: {flat} at {flat_prompt:.0} tokens");
}

/// A bot keeps the last N teammate lines: with a window of one line, a chat-reading
/// bot's prompts stay shorter than with fifteen, on the same episode.
#[test]
fn the_context_window_bounds_what_a_bot_reads() {
    let mean_read = |context| {
        let evs = run_events(&setup(Policy::Flatcomm, llm(0.0, 0.0, context)));
        let reads: Vec<u32> =
            calls(&evs).into_values().flatten().filter(|c| c.0 == CallKind::Read).map(|c| c.2).collect();
        assert!(!reads.is_empty());
        reads.iter().map(|p| f64::from(*p)).sum::<f64>() / reads.len() as f64
    };
    let (one, fifteen) = (mean_read(1), mean_read(15));
    assert!(one + 20.0 < fifteen, "window 1: {one:.0} tokens a read, window 15: {fifteen:.0}");
}

/// The `[executor]` table and the profile are checked like the rest of a config: an
/// unknown key, a bad value and a bad profile are named.
#[test]
fn bad_executor_settings_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(default_config()).unwrap().replace(
        "blueprint = \"blueprints/house.toml\"\ndata = \"data/minecraft-1.20.4.json\"",
        &format!(
            "blueprint = \"{}\"\ndata = \"{}\"",
            root().join("configs/blueprints/house.toml").display(),
            root().join("configs/data/minecraft-1.20.4.json").display()
        ),
    );
    let load = |extra: &str| {
        let p = write(dir.path(), "crew.toml", &format!("{base}\n[executor]\n{extra}\n"));
        Setup::load(&p, &Overrides::default()).map(|_| ()).unwrap_err().to_string()
    };
    let e = load("kind = \"llm\"\ncontext = 3");
    assert!(e.contains("crew.toml") && e.contains("context"), "{e}");
    let e = load("kind = \"llm\"\nerror_scale = -1.0");
    assert!(e.contains("executor") && e.contains("error_scale"), "{e}");
    write(
        dir.path(),
        "p.toml",
        "model = \"m\"\nsource = \"x\"\n[latency]\na = 1\nb = 0\nc = 0\n[errors]\np0 = 1.5\np1 = 0\nsource = \"y\"\n",
    );
    let e = load("kind = \"llm\"\nprofile = \"p.toml\"");
    assert!(e.contains("p.toml") && e.contains("errors.p0"), "{e}");
    let ok = write(dir.path(), "ok.toml", &format!("{base}\n[executor]\nkind = \"llm\"\ncontext_lines = 4\n"));
    let s = Setup::load(&ok, &Overrides::default()).unwrap();
    assert!(matches!(&s.executor, Executor::Llm(m) if m.context_lines() == 4));
    let plain = Setup::load(&default_config(), &Overrides::default()).unwrap();
    assert_ne!(s.config_hash, plain.config_hash, "the executor is part of the configuration");
    let spec = ExecutorSpec { kind: ExecutorKind::Llm, ..ExecutorSpec::default() };
    assert!(Executor::resolve(&spec, &root()).unwrap().model().unwrap().profile().errors.is_some());
}

/// The executor model prices each wake from the view the agent wakes to, so an episode
/// with it keeps taking the views itself; the scripted one hands them to the runtime.
#[test]
fn the_executor_model_keeps_the_views_in_the_episode() {
    use gatecrew_crew::Episode;
    assert!(!Episode::new(&setup(Policy::Gated, llm(0.1, 0.1, 8))).defer_views());
    assert!(Episode::new(&setup(Policy::Gated, Executor::Scripted)).defer_views());
}
