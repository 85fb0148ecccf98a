//! The end-of-run report: a table for people, one JSON object for scripts.

use std::path::Path;

use comfy_table::Cell;
use gatecrew_analyze::table;
use gatecrew_crew::{Finished, Setup};
use gatecrew_protocol::metrics::EpisodeMetrics;
use gatecrew_protocol::trace::TaskScores;
use serde::Serialize;

use crate::adjudications::AdjudicationSummary;

/// The figures of one run.
#[derive(Debug, Serialize)]
pub struct Report {
    /// Episode id.
    pub episode: String,
    /// Policy.
    pub policy: String,
    /// Seed.
    pub seed: u64,
    /// Crew size.
    pub agents: usize,
    /// Runtime used.
    pub runtime: &'static str,
    /// Block-level completion.
    pub tsr: f64,
    /// Fully built.
    pub complete: bool,
    /// Correct blocks.
    pub correct_blocks: u32,
    /// Blueprint blocks.
    pub blueprint_blocks: u32,
    /// Why it ended.
    pub end_reason: String,
    /// Scaffold blocks left standing outside the blueprint at the end.
    pub scaffold_left: u32,
    /// Wrong blocks dug out of blueprint cells and replaced by the right one (always
    /// in `--json`, 0 included: scripts read the key without checking for it).
    pub blocks_replaced: u32,
    /// Ticks simulated.
    pub ticks: u64,
    /// Environment actions.
    pub cs: u64,
    /// Public messages.
    pub msg: u64,
    /// Issues detected (waits on a teammate's block apart, in `waits`).
    pub issues: u64,
    /// `dependency_blocked` issues: waits on a teammate's block.
    pub waits: u64,
    /// Waits that cleared before the end.
    pub waits_cleared: u64,
    /// Gate decisions (`stayed_local + escalated`): an issue is gated each time its
    /// bot weighs asking, so there can be more decisions than issues.
    pub gate_decisions: u64,
    /// Gate decisions to stay local.
    pub stayed_local: u64,
    /// Gate decisions to escalate.
    pub escalated: u64,
    /// Issues resolved.
    pub resolved: u64,
    /// Resolved by the local solver.
    pub resolved_local: u64,
    /// Resolved through the board.
    pub resolved_board: u64,
    /// Windows opened.
    pub windows: u64,
    /// Confirmed transfers.
    pub confirmed_transfers: u64,
    /// Local resolution rate.
    pub lrr: Option<f64>,
    /// Unnecessary escalation rate.
    pub uer: Option<f64>,
    /// Effective coordination rate.
    pub ecr: Option<f64>,
    /// Resolution success rate.
    pub rsr: Option<f64>,
    /// Where the trace is.
    pub trace: String,
    /// Tier-3 adjudications, when the gray zone went to an external adjudicator.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adjudication: Option<AdjudicationSummary>,
    /// MindCraft's accuracy and VillagerBench's recall, for `--task` runs only.
    #[serde(flatten)]
    pub scores: TaskScores,
    /// What the task file describes that the blueprint does not hold as described,
    /// each with its JSON path (`--task` runs only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Cells of the task file left out because they can never be built (each named in
    /// `warnings`); the blueprint and TSR are the rest (`--task` runs with any only).
    #[serde(skip_serializing_if = "is_zero")]
    pub cells_dropped: u32,
    /// Crew members that are people; without `--interactive` a deterministic stand-in
    /// plays each (it builds nothing and answers requests from their items).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub humans: Vec<String>,
    /// The first human was played by the person at the terminal (`--interactive`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub human_seat_interactive: bool,
    /// Runs on a Minecraft server only: observation, failures, bridge overhead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minecraft: Option<crate::minecraft::McSummary>,
}

impl Report {
    /// Gathers the figures.
    pub fn new(setup: &Setup, m: &EpisodeMetrics, f: Finished, trace: &Path, runtime: &'static str) -> Self {
        let p = f.progress;
        Report {
            episode: setup.name.clone(),
            policy: setup.policy.as_str().to_owned(),
            seed: setup.seed,
            agents: setup.world.agent_count(),
            runtime,
            tsr: if p.total == 0 { 1.0 } else { f64::from(p.correct) / f64::from(p.total) },
            complete: p.correct == p.total,
            correct_blocks: p.correct,
            blueprint_blocks: p.total,
            end_reason: f.reason.as_str().to_owned(),
            scaffold_left: p.scaffold_left,
            blocks_replaced: p.blocks_replaced,
            ticks: p.tick,
            cs: m.cs,
            msg: m.msg,
            issues: m.issues,
            waits: m.waits,
            waits_cleared: m.waits_cleared,
            gate_decisions: m.gated,
            stayed_local: m.stayed_local(),
            escalated: m.escalated,
            resolved: m.resolved(),
            resolved_local: m.resolved_local,
            resolved_board: m.resolved_board,
            windows: m.windows_opened,
            confirmed_transfers: m.windows_confirmed,
            lrr: m.lrr(),
            uer: m.uer(),
            ecr: m.ecr(),
            rsr: m.rsr(),
            trace: trace.display().to_string(),
            adjudication: None,
            scores: TaskScores::default(),
            warnings: setup.labels.warnings.clone(),
            cells_dropped: setup.labels.cells_dropped,
            humans: setup.labels.humans.clone(),
            human_seat_interactive: false,
            minecraft: None,
        }
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn rate(r: Option<f64>) -> String {
    r.map_or("-".into(), |v| format!("{:.1}%", v * 100.0))
}

fn adjudication_rows(a: &AdjudicationSummary) -> Vec<(&'static str, String)> {
    let reasons = if a.fallback_reasons.is_empty() {
        String::new()
    } else {
        let r: Vec<String> = a.fallback_reasons.iter().map(|(k, v)| format!("{k} {v}")).collect();
        format!(" ({})", r.join(", "))
    };
    vec![
        (
            "adjudications",
            format!("{} calls: {} by the model, {} fallbacks{reasons}", a.calls, a.model_verdicts, a.fallbacks),
        ),
        ("tokens", format!("{} total, per call p50 {} / p95 {}", a.tokens, a.tokens_p50, a.tokens_p95)),
        ("latency", format!("p50 {} ms / p95 {} ms", a.latency_p50_ms, a.latency_p95_ms)),
    ]
}

/// Issues detected, and the waits on a teammate's block beside them when there were any.
fn issues_row(r: &Report) -> String {
    match r.waits {
        0 => format!("{} detected", r.issues),
        w => format!("{} detected, and {w} waits on a teammate's block ({} cleared)", r.issues, r.waits_cleared),
    }
}

/// Prints the table.
pub fn print_table(r: &Report, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut t = table::new(vec![Cell::new("metric"), Cell::new("value")]);
    let mut rows: Vec<(&str, String)> = vec![
        (
            "TSR",
            format!(
                "{:.3} ({}/{} blocks{})",
                r.tsr,
                r.correct_blocks,
                r.blueprint_blocks,
                if r.complete { ", complete" } else { "" }
            ),
        ),
        ("CS (actions)", r.cs.to_string()),
        ("Msg (board)", r.msg.to_string()),
        ("issues", issues_row(r)),
        ("gate decisions", format!("{} ({} stay local, {} escalate)", r.gate_decisions, r.stayed_local, r.escalated)),
        ("resolved", format!("{} ({} local, {} through the board)", r.resolved, r.resolved_local, r.resolved_board)),
        ("windows", format!("{} opened, {} confirmed transfers", r.windows, r.confirmed_transfers)),
        ("LRR", rate(r.lrr)),
        ("UER", rate(r.uer)),
        ("ECR", rate(r.ecr)),
        ("RSR", rate(r.rsr)),
        ("ticks", format!("{} (ended: {})", r.ticks, r.end_reason)),
    ];
    if r.scaffold_left > 0 {
        rows.push(("scaffold left", format!("{} blocks outside the blueprint", r.scaffold_left)));
    }
    if r.blocks_replaced > 0 {
        rows.push(("blocks replaced", format!("{} wrong blocks dug out and placed right", r.blocks_replaced)));
    }
    let s = &r.scores;
    if let (Some(a), Some(m), Some(x)) = (s.mindcraft_accuracy, s.mindcraft_matches, s.mindcraft_mismatches) {
        rows.insert(1, ("MindCraft acc.", format!("{a:.3} ({m} matches, {x} mismatches)")));
    }
    if let (Some(v), Some(c), Some(t)) = (s.villager_recall, s.villager_correct, s.villager_blocks) {
        rows.insert(2, ("VillagerBench", format!("recall {v:.3} ({c}/{t} blocks, facing checked)")));
    }
    if let Some(m) = &r.minecraft {
        let seen = m.observed_correct.map_or("-".into(), |c| format!("{c}/{}", r.blueprint_blocks));
        rows.push(("observed", format!("{seen} blocks seen in place by a bot at the end")));
        rows.push((
            "placements",
            format!(
                "{} made, {} not made by the server, {} put another block (read back from the world)",
                m.placements_made, m.placements_not_made, m.wrong_blocks
            ),
        ));
        let ms = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.2} ms"));
        let overhead =
            format!("p50 {}, p95 {} over {} commands", ms(m.overhead_p50_ms), ms(m.overhead_p95_ms), m.commands);
        rows.push(("bridge overhead", overhead));
        for f in &m.failed {
            rows.push(("agent failed", f.clone()));
        }
    }
    if let Some(a) = &r.adjudication {
        rows.extend(adjudication_rows(a));
    }
    if r.cells_dropped > 0 {
        rows.push((
            "cells dropped",
            format!(
                "{} left out of the task: they can never be built (partial blueprint; see the warnings)",
                r.cells_dropped
            ),
        ));
    }
    if !r.warnings.is_empty() {
        rows.push((
            "task warnings",
            format!("{} (listed above the table and in the trace's episode_start)", r.warnings.len()),
        ));
    }
    if !r.humans.is_empty() {
        let by = if r.human_seat_interactive {
            "the first played by you, any other by a deterministic stand-in"
        } else {
            "played by a deterministic stand-in"
        };
        rows.push(("humans", format!("{} ({by})", r.humans.join(", "))));
    }
    rows.push(("trace", r.trace.clone()));
    for (k, v) in rows {
        t.add_row(vec![Cell::new(k), Cell::new(v)]);
    }
    // The episode is named after a task id from a file: a line break in it is shown
    // escaped, so it cannot start a line of its own.
    let episode = gatecrew_protocol::text::escape(&r.episode);
    writeln!(out, "{episode} — policy {}, seed {}, {} bots, {}", r.policy, r.seed, r.agents, r.runtime)?;
    writeln!(out, "{t}")
}
