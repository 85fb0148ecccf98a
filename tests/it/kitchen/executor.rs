//! The executor model in the kitchen: scripted runs are what they were; under `llm`
//! every decision is a call, deterministic per seed, with the same draws under every
//! policy, mistakes that follow the error scale, and prompts that grow with the chat.

use std::sync::Arc;

use gatecrew_gating::llm::{ErrorRates, Latency, LlmProfile};
use gatecrew_kitchen::executor::{CallRecord, wrong_actions};
use gatecrew_kitchen::{
    Action, Cuisine, EpisodeExec, EpisodeOutcome, Executor, FACTORS, LlmModel, PolicyKind, RunSpec, TimingMode, World,
    cos, run_episode, run_with_exec,
};

use super::common::cuisine;

/// Every episode of 4 levels x 3 policies x 3 crew sizes x 2 timings x 5 factors,
/// as (completed, failed, pending, skipped, refused, messages), and its FNV-1a hash.
fn digest(c: &Cuisine, executor: &Executor) -> (String, u64) {
    let mut s = String::new();
    for level in ["level_0", "level_3", "level_7", "level_12"] {
        let l = c.level(level).unwrap();
        for policy in PolicyKind::ALL {
            for agents in [2, 3, 4] {
                for timing in [TimingMode::File, TimingMode::Oracle] {
                    for f in FACTORS {
                        let spec = RunSpec { timing, executor: executor.clone(), ..RunSpec::new(agents, 3) };
                        let e = run_episode(&c.book, l, policy, f, &spec);
                        s.push_str(&format!(
                            "{},{},{},{},{},{};",
                            e.completed, e.failed, e.pending, e.skipped, e.refused, e.counters.messages
                        ));
                    }
                }
            }
        }
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    (s, h)
}

/// A profile whose mistake rate is `p` whatever the prompt.
fn constant(p: f64) -> Arc<LlmModel> {
    let profile = LlmProfile {
        model: "constant".into(),
        source: "test".into(),
        latency: Latency { a: 5.5, b: 0.0023, c: 0.247, samples: 0, r2: None },
        errors: Some(ErrorRates { p0: p, p1: 0.0, source: "test".into() }),
        tokenizer: Default::default(),
    };
    Arc::new(LlmModel::new(profile, 1.0))
}

fn builtin(scale: f64) -> Executor {
    Executor::llm_builtin(scale).expect("the built-in profile parses")
}

/// One episode under the llm executor, with its calls.
fn episode(
    c: &Cuisine,
    level: &str,
    policy: PolicyKind,
    agents: usize,
    model: &Arc<LlmModel>,
    seed: u64,
) -> (EpisodeOutcome, Vec<CallRecord>) {
    let level = c.level(level).unwrap();
    let world = World::new(Arc::clone(level), Arc::clone(&c.book), agents, level.oracle_timing(&c.book, 1.0), seed);
    let mut p = policy.build(&world, agents);
    let mut x = EpisodeExec::new(Arc::clone(model), seed, agents, 60);
    let e = run_with_exec(world, p.as_mut(), policy.as_str(), 1.0, 60, Some(&mut x));
    (e, x.calls().to_vec())
}

#[test]
fn scripted_runs_are_what_they_were_before_the_executor() {
    let c = cuisine();
    // Pinned on the commit before the executor existed (9869e26): 360 episodes.
    let (s, h) = digest(&c, &Executor::Scripted);
    assert_eq!(h, 0xbd09_30a5_fc3a_4fa0, "scripted outcomes changed: {s}");
    let e = run_episode(&c.book, c.level("level_3").unwrap(), PolicyKind::Flatcomm, 1.0, &RunSpec::new(3, 0));
    assert_eq!(e.model, Default::default(), "scripted decisions cost nothing");
}

#[test]
fn an_error_scale_of_zero_makes_no_mistakes_and_changes_no_outcome() {
    let c = cuisine();
    let (scripted, _) = digest(&c, &Executor::Scripted);
    let (llm, _) = digest(&c, &builtin(0.0));
    assert_eq!(scripted, llm, "with no mistakes the calls only count");
    let spec = RunSpec { executor: builtin(0.0), ..RunSpec::new(3, 0) };
    for policy in PolicyKind::ALL {
        let e = run_episode(&c.book, c.level("level_3").unwrap(), policy, 1.0, &spec);
        assert_eq!(e.model.mistakes, 0, "{policy}");
        let per_step = if policy == PolicyKind::Dispatcher { 1 } else { 3 };
        assert_eq!(e.model.calls, 60 * per_step, "{policy}: one call per step, or per agent per step");
        assert!(e.model.prompt_tokens > e.model.calls * 500, "{policy}: real prompts: {:?}", e.model);
        assert!(e.model.model_seconds > 0.0 && e.model.wait_seconds <= e.model.model_seconds);
    }
}

#[test]
fn the_llm_executor_is_deterministic_per_seed() {
    let c = cuisine();
    let level = c.level("level_3").unwrap();
    for policy in PolicyKind::ALL {
        let spec = |seed| RunSpec { timing: TimingMode::Oracle, executor: builtin(1.0), ..RunSpec::new(3, seed) };
        let a = run_episode(&c.book, level, policy, 1.5, &spec(5));
        assert_eq!(a, run_episode(&c.book, level, policy, 1.5, &spec(5)), "{policy}");
        assert!(a.model.mistakes > 0, "{policy}: GPT-4o's fitted rate makes mistakes: {:?}", a.model);
    }
    let model = constant(0.5);
    let (_, x) = episode(&c, "level_3", PolicyKind::Gated, 3, &model, 5);
    let (_, y) = episode(&c, "level_3", PolicyKind::Gated, 3, &model, 6);
    assert_ne!(x.iter().map(|c| c.pick).collect::<Vec<_>>(), y.iter().map(|c| c.pick).collect::<Vec<_>>());
}

#[test]
fn every_policy_draws_the_same_numbers() {
    let c = cuisine();
    let model = constant(0.3);
    for agents in [2, 4] {
        let (_, g) = episode(&c, "level_5", PolicyKind::Gated, agents, &model, 11);
        let (_, f) = episode(&c, "level_5", PolicyKind::Flatcomm, agents, &model, 11);
        for k in 0..agents {
            let mine = |calls: &[CallRecord]| {
                calls.iter().filter(|c| c.who == k).map(|c| (c.mistake, c.pick)).collect::<Vec<_>>()
            };
            let (a, b) = (mine(&g), mine(&f));
            assert_eq!(a.len(), 60);
            assert_eq!(a, b, "agent {k} of {agents}: its n-th call draws alike under gated and flatcomm");
            let mistakes = a.iter().filter(|(m, _)| *m).count();
            assert!((8..=30).contains(&mistakes), "p = 0.3 over 60 calls: {mistakes}");
        }
        // The prompts differ (flatcomm's chat), the draws do not.
        assert_ne!(g.iter().map(|c| c.prompt).collect::<Vec<_>>(), f.iter().map(|c| c.prompt).collect::<Vec<_>>());
    }
    // The dispatcher draws from a stream of its own, one call per step.
    let (_, d) = episode(&c, "level_5", PolicyKind::Dispatcher, 2, &model, 11);
    assert_eq!(d.len(), 60);
    assert!(d.iter().all(|c| c.who == 2));
    assert!(d.iter().all(|c| c.hit.is_some() == c.mistake), "a dispatcher mistake hits one agent");
}

#[test]
fn mistakes_at_rate_one_collapse_the_cos() {
    let c = cuisine();
    let level = c.level("level_0").unwrap();
    for policy in PolicyKind::ALL {
        let scripted = cos(&c.book, level, policy, &RunSpec::new(2, 0));
        // 1000 x GPT-4o's rates: p = 1 for every call.
        let all_wrong = cos(&c.book, level, policy, &RunSpec { executor: builtin(1000.0), ..RunSpec::new(2, 0) });
        assert_eq!(all_wrong.model.mistakes, all_wrong.model.calls, "{policy}");
        let (before, after) = (scripted.cos_pending_excluded, all_wrong.cos_pending_excluded);
        assert!(before > 0.5, "{policy}: {before}");
        // A crew agent's every command is wrong; a dispatcher's mistake hits one agent's
        // command of the two, so the other still works.
        let bound = if policy == PolicyKind::Dispatcher { before / 2.0 } else { 0.05 };
        assert!(after < bound, "{policy}: {before} -> {after}");
    }
}

#[test]
fn flatcomm_prompts_are_longer_than_the_gated_crews() {
    let c = cuisine();
    for agents in [2, 3, 4] {
        let spec = RunSpec { timing: TimingMode::Oracle, executor: builtin(0.0), ..RunSpec::new(agents, 0) };
        let mean = |p| {
            let mut n = (0u64, 0u64);
            for level in ["level_1", "level_4", "level_9"] {
                let r = cos(&c.book, c.level(level).unwrap(), p, &spec);
                n.0 += r.model.prompt_tokens;
                n.1 += r.model.calls;
            }
            n.0 as f64 / n.1 as f64
        };
        let (g, f) = (mean(PolicyKind::Gated), mean(PolicyKind::Flatcomm));
        assert!(f > g + 5.0, "{agents} agents: flatcomm {f:.1} vs gated {g:.1} prompt tokens per call");
    }
}

#[test]
fn a_wrong_command_is_never_the_intended_one() {
    let c = cuisine();
    let level = c.level("level_0").unwrap();
    let w = World::new(Arc::clone(level), Arc::clone(&c.book), 2, level.file_timing(1.0), 0);
    // Agents start at the serving table (location 1 of storage, servingtable, blender).
    let here = w.agents()[0].at;
    let intended = Action::Goto(gatecrew_kitchen::LocationId(0));
    let wrong = wrong_actions(&w, 0, intended);
    assert_eq!(wrong[0], Action::Noop);
    assert!(!wrong.contains(&intended) && !wrong.contains(&Action::Goto(here)));
    assert!(wrong.contains(&Action::Goto(gatecrew_kitchen::LocationId(2))));
    assert!(wrong.contains(&Action::Put(here)) && !wrong.contains(&Action::Activate(here)), "{wrong:?}");
    assert_eq!(wrong.len(), 1 + 1 + 1 + 1, "noop, goto blender, get here, put here");
    // At the storage: one get per raw ingredient of the level (salmon, flour, ...).
    let mut w = w;
    w.step(&[Action::Goto(gatecrew_kitchen::LocationId(0)), Action::Noop]);
    let salmon = c.book.item("salmon");
    let wrong = wrong_actions(&w, 0, Action::Get { at: gatecrew_kitchen::LocationId(0), item: salmon });
    assert!(wrong.contains(&Action::Get { at: gatecrew_kitchen::LocationId(0), item: c.book.item("flour") }));
    assert!(!wrong.contains(&Action::Get { at: gatecrew_kitchen::LocationId(0), item: salmon }));
}
