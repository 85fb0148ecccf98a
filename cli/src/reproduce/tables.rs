//! `docs/paper-004.md`: each table of paper 004 with its figures beside ours, the paired
//! differences behind each comparison, and one sentence on whether the table's finding
//! holds here and why. A finding is read off the paired intervals: it holds where the
//! interval of every difference it claims lies on the claimed side of zero.

use std::fmt::Write as _;

use gatecrew_analyze::{Interval, Metric, Paired, Report, format_diff};

use super::{Runs, paper};

/// A table's section and its verdict.
struct Section {
    title: &'static str,
    body: String,
    verdict: String,
}

fn val(r: Option<&Report>, p: &str, m: Metric) -> Option<f64> {
    r?.value(p, "all", m)
}

fn n(r: Option<&Report>, p: &str) -> usize {
    r.and_then(|r| r.group(p, "all")).map_or(0, |g| g.episodes)
}

fn pct(x: Option<f64>) -> String {
    x.map_or("-".into(), |x| format!("{:.1}", x * 100.0))
}

fn num(x: Option<f64>, digits: usize) -> String {
    x.map_or("-".into(), |x| format!("{x:.digits$}"))
}

fn diff(p: Option<&Paired>, policy: &str, m: Metric) -> Option<Interval> {
    p?.diff(policy, "all", m)
}

fn shown(p: Option<&Paired>, policy: &str, m: Metric) -> String {
    diff(p, policy, m).map_or("-".into(), |i| format_diff(m, i))
}

/// Whether a difference is above zero (`Some(true)`), below (`Some(false)`), or its
/// interval holds zero (`None`, also when undefined).
fn side(i: Option<Interval>) -> Option<bool> {
    let i = i?;
    if i.lo > 0.0 {
        Some(true)
    } else if i.hi < 0.0 {
        Some(false)
    } else {
        None
    }
}

/// "holds", "holds in part (k of n)" or "does not hold".
fn verdict(held: usize, of: usize) -> String {
    match held {
        h if h == of => "holds".into(),
        0 => "does not hold".into(),
        h => format!("holds in part ({h} of {of})"),
    }
}

fn pairs(p: Option<&Paired>, policy: &str) -> usize {
    p.and_then(|p| p.groups.iter().find(|g| g.policy == policy && g.key == "all")).map_or(0, |g| g.pairs)
}

const FRAMEWORKS: [(&str, &str, &str); 2] =
    [("MindCraft", "flatcomm", "gated_flatcomm"), ("VillagerAgent", "central_dag", "gated_central_dag")];

fn table2(runs: &Runs) -> Section {
    let mut body = String::from(
        "| method | ours as | standard TSR % paper / ours | standard CS paper / ours | custom TSR % paper / ours | custom CS paper / ours |\n|---|---|---|---|---|---|\n",
    );
    let (std, cus) = (runs.report("standard"), runs.report("custom"));
    for (k, (_, base, gated)) in FRAMEWORKS.iter().enumerate() {
        for (j, policy) in [base, gated].into_iter().enumerate() {
            let row = &paper::TABLE2[2 * k + j];
            let _ = writeln!(
                body,
                "| {} | `{policy}` (n={}/{}) | {} / {} | {} / {} | {} / {} | {} / {} |",
                row.method,
                n(std, policy),
                n(cus, policy),
                row.standard.0,
                pct(val(std, policy, Metric::Tsr)),
                row.standard.1,
                num(val(std, policy, Metric::Cs), 1),
                row.custom.0,
                pct(val(cus, policy, Metric::Tsr)),
                row.custom.1,
                num(val(cus, policy, Metric::Cs), 1),
            );
        }
    }
    body.push_str("\nPaired differences, the gated variant less its baseline on the same episodes (95% paired bootstrap; `*`: the interval excludes 0):\n\n| framework | setting | pairs | TSR | CS | Msg | ticks |\n|---|---|---|---|---|---|---|\n");
    let mut held = 0;
    let mut claims = 0;
    for (name, base, gated) in FRAMEWORKS {
        for (setting, run) in [("standard", "standard"), ("custom", "custom")] {
            let p = runs.paired(&format!("{run}/{base}"));
            let _ = writeln!(
                body,
                "| {name} | {setting} | {} | {} | {} | {} | {} |",
                pairs(p, gated),
                shown(p, gated, Metric::Tsr),
                shown(p, gated, Metric::Cs),
                shown(p, gated, Metric::Msg),
                shown(p, gated, Metric::Ticks),
            );
            claims += 2;
            held += usize::from(side(diff(p, gated, Metric::Tsr)) == Some(true));
            held += usize::from(side(diff(p, gated, Metric::Cs)) == Some(false));
        }
    }
    let p = runs.paired("custom/flatcomm");
    let why = format!(
        "on the custom split the gate in front of the chat changes messages by {} and episode length by {} ticks against a TSR change of {}: the scripted bots finish what their inventories allow under every channel, so the gate's effect shows first in what coordination costs, and TSR moves only where a channel's cost runs an episode out of time",
        shown(p, "gated_flatcomm", Metric::Msg),
        shown(p, "gated_flatcomm", Metric::Ticks),
        shown(p, "gated_flatcomm", Metric::Tsr),
    );
    let verdict = format!(
        "Table 2 (the gate raises TSR and lowers CS on both frameworks, in both settings) {} here ({held} of {claims} claimed differences on the claimed side of zero): {why}.",
        verdict(held, claims)
    );
    Section { title: "Table 2: the gate on each framework (TSR, CS)", body, verdict }
}

fn table3(runs: &Runs) -> Section {
    let metrics = [Metric::Lrr, Metric::Uer, Metric::Ecr, Metric::Rsr];
    let mut body = String::from(
        "| setting | method | ours as (n) | LRR % paper / ours | UER % paper / ours | ECR % paper / ours | RSR % paper / ours | transfer yield % (ours) |\n|---|---|---|---|---|---|---|---|\n",
    );
    let mut held = 0;
    let mut claims = 0;
    let mut diffs = String::from(
        "\nPaired differences, gated variant less baseline:\n\n| setting | framework | LRR | UER | ECR | RSR | transfer yield |\n|---|---|---|---|---|---|---|\n",
    );
    for (setting, run, table) in
        [("standard", "standard", &paper::TABLE3_STANDARD), ("custom", "custom", &paper::TABLE3_CUSTOM)]
    {
        let r = runs.report(run);
        for (k, (name, base, gated)) in FRAMEWORKS.iter().enumerate() {
            for (j, policy) in [base, gated].into_iter().enumerate() {
                let fig = table[2 * k + j];
                let method = if j == 0 { name.to_string() } else { format!("{name} + Ours") };
                let mut row = format!("| {setting} | {method} | `{policy}` ({}) ", n(r, policy));
                for (m, f) in metrics.iter().zip(fig) {
                    let _ = write!(row, "| {f} / {} ", pct(val(r, policy, *m)));
                }
                let _ = writeln!(body, "{row}| {} |", pct(val(r, policy, Metric::Yield)));
            }
            let p = runs.paired(&format!("{run}/{base}"));
            let _ = writeln!(
                diffs,
                "| {setting} | {name} | {} | {} | {} | {} | {} |",
                shown(p, gated, Metric::Lrr),
                shown(p, gated, Metric::Uer),
                shown(p, gated, Metric::Ecr),
                shown(p, gated, Metric::Rsr),
                shown(p, gated, Metric::Yield),
            );
            // The paper: LRR, ECR and RSR up, UER down.
            for (m, up) in [(Metric::Lrr, true), (Metric::Uer, false), (Metric::Ecr, true), (Metric::Rsr, true)] {
                claims += 1;
                held += usize::from(side(diff(p, gated, m)) == Some(up));
            }
        }
    }
    body.push_str(&diffs);
    if val(runs.report("standard"), "flatcomm", Metric::Lrr).is_none() {
        body.push_str("\nThe standard split gives every bot what it needs (abundant resources): no material or tool issue arises there, so its rates are undefined (`-`).\n");
    }
    let c = runs.report("custom");
    let verdict = format!(
        "Table 3 (the gate raises LRR, ECR and RSR and lowers UER) {} here ({held} of {claims}): LRR counts material and tool issues only, and a baseline's escalations are every such issue, so its LRR is what its channel failed to deliver; on the common base the custom run's transfer yield is {}% for `flatcomm` against {}% for `gated_flatcomm` and {}% for `central_dag` against {}% for `gated_central_dag`.",
        verdict(held, claims),
        pct(val(c, "flatcomm", Metric::Yield)),
        pct(val(c, "gated_flatcomm", Metric::Yield)),
        pct(val(c, "central_dag", Metric::Yield)),
        pct(val(c, "gated_central_dag", Metric::Yield)),
    );
    Section { title: "Table 3: how coordination goes (LRR, UER, ECR, RSR)", body, verdict }
}

const ABLATION: [&str; 6] = ["flatcomm", "no_partition", "no_gate", "rule_only", "rule_score", "gated"];

fn table4(runs: &Runs) -> Section {
    let r = runs.report("custom");
    let mut body = String::from(
        "| variant | ours as (n) | TSR % paper / ours | CS paper / ours | ECR % paper / ours | Msg paper / ours | transfer yield % |\n|---|---|---|---|---|---|---|\n",
    );
    for ((name, tsr, cs, ecr, msg), policy) in paper::TABLE4.iter().zip(ABLATION) {
        let _ = writeln!(
            body,
            "| {name} | `{policy}` ({}) | {tsr} / {} | {cs} / {} | {ecr} / {} | {msg} / {} | {} |",
            n(r, policy),
            pct(val(r, policy, Metric::Tsr)),
            num(val(r, policy, Metric::Cs), 1),
            pct(val(r, policy, Metric::Ecr)),
            num(val(r, policy, Metric::Msg), 2),
            pct(val(r, policy, Metric::Yield)),
        );
    }
    let _ = writeln!(
        body,
        "| (the gate on the chat) | `gated_flatcomm` ({}) | - | - | - | - | {} |",
        n(r, "gated_flatcomm"),
        pct(val(r, "gated_flatcomm", Metric::Yield))
    );
    body.push_str("\nEach gate step against the one before it, on the same episodes (each policy's paired difference from `gated`, the step the difference of two of those):\n\n| step | Msg | TSR | ECR |\n|---|---|---|---|\n");
    let p = runs.paired("custom/gated");
    let at = |policy: &str, m: Metric| -> Option<f64> {
        if policy == "gated" { Some(0.0) } else { diff(p, policy, m).map(|i| i.value) }
    };
    let steps = [
        ("no gate -> rules", "no_gate", "rule_only"),
        ("rules -> rules + score", "rule_only", "rule_score"),
        ("rules + score -> full", "rule_score", "gated"),
    ];
    let mut drops = Vec::new();
    for (label, from, to) in steps {
        let d = |m| Some(at(to, m)? - at(from, m)?);
        drops.push(d(Metric::Msg));
        let _ = writeln!(
            body,
            "| {label} | {} | {} | {} |",
            num(d(Metric::Msg), 2),
            d(Metric::Tsr).map_or("-".into(), |v| format!("{:+.1} points", v * 100.0)),
            d(Metric::Ecr).map_or("-".into(), |v| format!("{:+.1} points", v * 100.0)),
        );
    }
    let score_largest = match (drops[0], drops[1], drops[2]) {
        (Some(a), Some(b), Some(c)) => b < a && b < c,
        _ => false,
    };
    let fewer = side(diff(p, "rule_only", Metric::Msg)) == Some(true);
    let verdict = format!(
        "Table 4 (each gate tier cuts messages, the score step the most) {}: `rule_only` (the paper's Rules only, which lets what its rules leave through) sends {} messages per episode against {} for `rule_score` and {} for `gated`; the score's step {} the largest cut in messages here{}.",
        verdict(usize::from(score_largest) + usize::from(fewer), 2),
        num(val(r, "rule_only", Metric::Msg), 2),
        num(val(r, "rule_score", Metric::Msg), 2),
        num(val(r, "gated", Metric::Msg), 2),
        if score_largest { "is" } else { "is not" },
        if fewer { ", and rules alone send more than the full gate (paired interval off zero)" } else { "" },
    );
    Section { title: "Table 4: the ablation (custom split)", body, verdict }
}

fn table7(runs: &Runs) -> Section {
    let (c, l) = (runs.report("custom"), runs.report("llm-executor"));
    let mut body = String::from("| paper setting | TSR % | CS | ECR % |\n|---|---|---|---|\n");
    for (name, tsr, cs, ecr) in paper::TABLE7 {
        let _ = writeln!(body, "| {name} | {tsr} | {cs} | {ecr} |");
    }
    body.push_str("\n| ours | executor | n | TSR % | CS | ECR % | tier-3 calls / issue | exec tokens / call |\n|---|---|---|---|---|---|---|---|\n");
    for (label, r, policy, exec) in [
        ("`rule_score` (no gray zone)", c, "rule_score", "scripted"),
        ("`gated`, deterministic adjudicator", c, "gated", "scripted"),
        ("`rule_score` (no gray zone)", l, "rule_score", "llm"),
        ("`gated`, the llm executor's modelled consults", l, "gated", "llm"),
        ("`flatcomm`", c, "flatcomm", "scripted"),
    ] {
        let _ = writeln!(
            body,
            "| {label} | {exec} | {} | {} | {} | {} | {} | {} |",
            n(r, policy),
            pct(val(r, policy, Metric::Tsr)),
            num(val(r, policy, Metric::Cs), 1),
            pct(val(r, policy, Metric::Ecr)),
            num(val(r, policy, Metric::LlmCalls), 3),
            num(val(r, policy, Metric::ExecTokens), 0),
        );
    }
    let p = runs.paired("llm-executor/rule_score");
    let q = runs.paired("custom/gated");
    let _ = writeln!(
        body,
        "\nPaired, `gated` less `rule_score`: scripted TSR {} CS {}; under the llm executor TSR {} CS {} ECR {}.",
        diff(q, "rule_score", Metric::Tsr).map_or("-".into(), |i| format_diff(Metric::Tsr, negate(i))),
        diff(q, "rule_score", Metric::Cs).map_or("-".into(), |i| format_diff(Metric::Cs, negate(i))),
        shown(p, "gated", Metric::Tsr),
        shown(p, "gated", Metric::Cs),
        shown(p, "gated", Metric::Ecr),
    );
    let up = side(diff(p, "gated", Metric::Tsr));
    let verdict = format!(
        "Table 7 (a model in the gray zone adds a little over Rule + Score) {}: no language model of the paper's size is run here; the llm executor's consults model one's latency and mistakes from a published profile (docs/executor.md), and against `rule_score` under the same executor `gated` changes TSR by {}, because the gray zone holds a small share of decisions ({} tier-3 calls per issue).",
        match up {
            Some(true) => "holds",
            Some(false) => "does not hold",
            None => "is not resolved (the paired interval holds zero)",
        },
        shown(p, "gated", Metric::Tsr),
        num(val(l, "gated", Metric::LlmCalls), 3),
    );
    Section { title: "Table 7: the adjudicator", body, verdict }
}

fn negate(i: Interval) -> Interval {
    Interval { value: -i.value, lo: -i.hi, hi: -i.lo }
}

fn table8(runs: &Runs) -> Section {
    let mut body = String::new();
    let Some(p) = &runs.perturb else {
        return Section {
            title: "Table 8: perturbing the weights",
            body: "The perturbation run left no table.\n".into(),
            verdict: "Table 8 could not be evaluated: the perturbation run left no table.".into(),
        };
    };
    body.push_str("| paper configuration | TSR % | CS | UER % | LRR % | ours | weights C A D R H | hierarchy | test TSR % | CS | Msg | UER % | LRR % |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for ((name, tsr, cs, uer, lrr), row) in paper::TABLE8.iter().zip(&p.rows) {
        let w = row.spec.weights;
        let t = &row.test;
        let _ = writeln!(
            body,
            "| {name} | {tsr} | {cs} | {uer} | {lrr} | {} | {} {} {} {} {} | {} | {:.1} | {:.1} | {:.2} | {:.1} | {:.1} |",
            row.name,
            w.c,
            w.a,
            w.d,
            w.r,
            w.h,
            if row.keeps_hierarchy { "kept" } else { "broken (experiment)" },
            t.tsr * 100.0,
            t.cs,
            t.msg,
            t.uer * 100.0,
            t.lrr * 100.0,
        );
    }
    if runs.bots.model() {
        let _ = writeln!(
            body,
            "\nTest split: {} episodes per variant, each a `suite run --policy gated --gate FILE` of the model-driven bots (the `perturb-*` runs below; the four perturbed gates are written into `perturb/gates/`). `calibrate --perturb` is not used here: its decision replay re-simulates scripted bots only, so with model bots the calibration split is not run. The columns are calibrate's own (pooled UER and LRR over material and tool issues).",
            p.test_episodes
        );
    } else {
        let _ = writeln!(
            body,
            "\nTest split: {} episodes; calibration split: {} (both in `perturbation.json`, written by `calibrate --perturb` with scripted bots).",
            p.test_episodes, p.calibration_episodes
        );
    }
    let base = p.rows.first().map(|r| r.test.tsr);
    let lower = p.rows.iter().skip(1).filter(|r| base.is_some_and(|b| r.test.tsr < b)).count();
    let verdict = format!(
        "Table 8 (every perturbation of the hierarchy lowers TSR) {}: {lower} of {} perturbed gates finish less than the chosen point on the test split; where TSR barely moves, the perturbation changes which issues are asked about (UER, LRR) more than whether the build finishes, since a bot that stays local still recovers or skips.",
        verdict(lower, p.rows.len().saturating_sub(1)),
        p.rows.len().saturating_sub(1),
    );
    Section { title: "Table 8: perturbing the weights", body, verdict }
}

fn table9(runs: &Runs) -> Section {
    let r = runs.report("boundary");
    let mut body = String::from(
        "| paper mode | call rate % | TSR % | ECR % | tokens | ours | n | tier-3 share % | TSR % | ECR % | Msg |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let ours = [
        ("`rule_score`", "rule_score"),
        ("`gated` (0.60-0.90, the default)", "gated"),
        ("`gated` + boundary-wide (0.50-1.0)", "boundary-wide"),
        ("`gated` + boundary-all (0-1)", "boundary-all"),
    ];
    for ((name, rate, tsr, ecr, tokens), (label, policy)) in paper::TABLE9.iter().zip(ours) {
        let _ = writeln!(
            body,
            "| {name} | {rate} | {tsr} | {ecr} | {tokens} | {label} | {} | {} | {} | {} | {} |",
            n(r, policy),
            pct(tier3_share(r, policy)),
            pct(val(r, policy, Metric::Tsr)),
            pct(val(r, policy, Metric::Ecr)),
            num(val(r, policy, Metric::Msg), 2),
        );
    }
    let _ = writeln!(
        body,
        "| (narrower than the paper's) | | | | | `gated` + boundary-narrow (0.70-0.80) | {} | {} | {} | {} | {} |",
        n(r, "boundary-narrow"),
        pct(tier3_share(r, "boundary-narrow")),
        pct(val(r, "boundary-narrow", Metric::Tsr)),
        pct(val(r, "boundary-narrow", Metric::Ecr)),
        num(val(r, "boundary-narrow", Metric::Msg), 2),
    );
    let p = runs.paired("boundary/gated");
    let _ = writeln!(
        body,
        "\nPaired against the default gray zone: wide TSR {} ECR {}; all TSR {} ECR {}.",
        shown(p, "boundary-wide", Metric::Tsr),
        shown(p, "boundary-wide", Metric::Ecr),
        shown(p, "boundary-all", Metric::Tsr),
        shown(p, "boundary-all", Metric::Ecr),
    );
    let all_worse = side(diff(p, "boundary-all", Metric::Tsr)) == Some(false);
    let verdict = format!(
        "Table 9 (a wider gray zone adds little and sending every issue to the adjudicator hurts) {}: without a language model the gray zone is settled by the deterministic adjudicator (escalate when R = 0 or the score is past the midpoint), so widening it changes which rule decides rather than adding judgement; every issue to the adjudicator changes TSR by {}.",
        if all_worse { "holds in part" } else { "does not hold" },
        shown(p, "boundary-all", Metric::Tsr),
    );
    Section { title: "Table 9: the gray zone's width", body, verdict }
}

/// Tier-3 decisions per gate decision: the call rate a model in the gray zone would have.
fn tier3_share(r: Option<&Report>, policy: &str) -> Option<f64> {
    let d = &r?.decisions;
    let k = d.policies.iter().position(|p| p == policy)?;
    let tier3: u64 = d.rows.iter().filter(|row| row.tier == 3).map(|row| row.counts[k]).sum();
    let total = d.totals[k];
    (total > 0).then(|| tier3 as f64 / total as f64)
}

fn table10(runs: &Runs) -> Section {
    let r = runs.report("transfer-all");
    let mut body = String::from(
        "| paper configuration | TSR % | CS | ECR % | ours | n | TSR % | CS | ECR % | transfer yield % |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let ours = [
        ("`central_dag`", "central_dag"),
        ("`gated_central_dag` + construction-calibrated (zero-shot)", "gated_central_dag (calibrated)"),
        ("`gated_central_dag`, defaults (not tuned)", "gated_central_dag"),
    ];
    for ((name, tsr, cs, ecr), (label, policy)) in paper::TABLE10.iter().zip(ours) {
        let _ = writeln!(
            body,
            "| {name} | {tsr} | {cs} | {ecr} | {label} | {} | {} | {} | {} | {} |",
            n(r, policy),
            pct(val(r, policy, Metric::Tsr)),
            num(val(r, policy, Metric::Cs), 1),
            pct(val(r, policy, Metric::Ecr)),
            pct(val(r, policy, Metric::Yield)),
        );
    }
    let p = runs.paired("transfer/central_dag");
    let z = "gated_central_dag (calibrated)";
    let _ = writeln!(
        body,
        "\nNo gate is tuned under `central_dag` here: `gatecrew calibrate` calibrates the protocol's crews, so the paper's locally tuned row has no counterpart; the defaults row stands beside it untuned. Paired, zero-shot less `central_dag`: TSR {} CS {} ECR {} Msg {}.",
        shown(p, z, Metric::Tsr),
        shown(p, z, Metric::Cs),
        shown(p, z, Metric::Ecr),
        shown(p, z, Metric::Msg),
    );
    let held = usize::from(side(diff(p, z, Metric::Tsr)) == Some(true))
        + usize::from(side(diff(p, z, Metric::Cs)) == Some(false));
    let verdict = format!(
        "Table 10 (the gate calibrated elsewhere still improves the DAG framework) {}: in front of the manager the calibrated gate changes TSR by {} and CS by {}, mostly by sparing the crew re-plans it would have waited for ({} manager and board messages per episode).",
        verdict(held, 2),
        shown(p, z, Metric::Tsr),
        shown(p, z, Metric::Cs),
        shown(p, z, Metric::Msg),
    );
    Section { title: "Table 10: the calibrated gate, zero-shot, on the manager's crews", body, verdict }
}

fn sections(runs: &Runs) -> Vec<Section> {
    vec![table2(runs), table3(runs), table4(runs), table7(runs), table8(runs), table9(runs), table10(runs)]
}

/// One line per table: whether its finding holds.
pub(super) fn verdicts(runs: &Runs) -> Vec<String> {
    sections(runs).into_iter().map(|s| s.verdict).collect()
}

/// The whole document.
pub(super) fn document(runs: &Runs) -> String {
    let mut s = String::from("# Paper 004, table by table\n\n");
    let _ = writeln!(
        s,
        "Generated by `gatecrew reproduce 004` on `{}` ({:.0} s of runs); do not edit by hand: run it again. Paper 004 (partitioned state and gated escalation for multi-agent Minecraft crews) is not in this repository; its MindCraft is our `flatcomm`, its VillagerAgent our `central_dag`, and \"+ Ours\" the gate in front of each (`gated_flatcomm`, `gated_central_dag`, docs/baselines.md). The baselines model those systems' coordination inside our world, {}, and the paper's absolute figures (TSR near 30%) are not expected. Percentages are ours times 100; every comparison is paired on the episodes both policies ran, with a 95% paired bootstrap interval (docs/analysis.md).\n",
        runs.suite.display(),
        runs.seconds,
        runs.bots.sentence()
    );
    s.push_str("## Findings\n\n");
    let all = sections(runs);
    for sec in &all {
        let _ = writeln!(s, "- {}", sec.verdict);
    }
    for sec in &all {
        let _ = write!(s, "\n## {}\n\n{}\n{}\n", sec.title, sec.body, sec.verdict);
    }
    s.push_str(&super::model::calls_section(runs));
    s.push_str("\n## Episode counts and commands\n\n| run | what for | episodes per policy |\n|---|---|---|\n");
    for (name, line, purpose) in &runs.commands {
        let counts = match (runs.report(name), &runs.perturb) {
            _ if line.starts_with('#') => "skipped: the filter leaves no episode of its split".to_owned(),
            (Some(report), _) => report
                .policies
                .iter()
                .map(|p| format!("{p} {}", report.group(p, "all").map_or(0, |g| g.episodes)))
                .collect::<Vec<_>>()
                .join(", "),
            (None, Some(p)) if *name == "perturb" => format!(
                "gated under each of {} gates: test {}, calibration {}",
                p.rows.len(),
                p.test_episodes,
                p.calibration_episodes
            ),
            (None, _) => "-".to_owned(),
        };
        let _ = writeln!(s, "| {name} | {purpose} | {counts} |");
    }
    s.push_str("\n```sh\n");
    for (_, c, _) in &runs.commands {
        let _ = writeln!(s, "{c}");
    }
    s.push_str("```\n");
    s
}
