//! `gatecrew hitl-eval`: the intent benchmark of paper 000 (section 4.5) on labelled
//! lines in the open format of `gatecrew_hitl_app::eval` (anyone's lines, over built-in
//! plans, goals, blueprints or task files): accuracy per plan and per type, a confusion
//! matrix, node (and part) accuracy, stop recall, latency; the lines it cannot score
//! are counted and listed; the graph-update latency of each intervention type; for
//! sets whose lines carry a language tag, accuracy by language and type.

mod lang;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use gatecrew_analyze::table;
use gatecrew_gating::llm::{LlmSpec, OutputMode};
use gatecrew_hitl::classify::{Classify, ParserClassifier};
use gatecrew_hitl::intent::IntentType;
use gatecrew_hitl::words::Vocabulary;
use gatecrew_hitl_app::eval::{self, PlanRef, Row, Score};
use gatecrew_hitl_app::llm::LlmClassifier;
use gatecrew_world::{Blueprint, GameData};

use crate::BadInput;
use crate::paths::configs_file;

/// The most repetitions of one update measurement: each is timed and kept for the
/// median (8 bytes), after a clone of the plan, so that a maximal `--reps` holds 8 MB
/// of samples and ends in minutes rather than asking for memory it cannot have.
const MAX_REPS: u64 = 1_000_000;

/// Arguments of `gatecrew hitl-eval`.
#[derive(Debug, clap::Args)]
pub struct HitlEvalArgs {
    /// Labelled utterances (JSON Lines) [default: configs/hitl/utterances.jsonl]
    #[arg(long, value_name = "FILE")]
    utterances: Option<PathBuf>,
    /// Also classify with this OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1
    #[arg(long, value_name = "URL", requires = "model")]
    llm_url: Option<String>,
    /// Model name for --llm-url
    #[arg(long, value_name = "NAME")]
    model: Option<String>,
    /// How the model's answer is constrained
    #[arg(long, value_enum, default_value = "json-schema")]
    output: Output,
    /// Per-request timeout for the model, ms (1 to 600000, as every model timeout)
    #[arg(long, value_name = "MS", default_value_t = 10_000, value_parser = crate::counts::between::<u64>(1, 600_000))]
    timeout_ms: u64,
    /// Repetitions per graph-update measurement on the built-in plans, 0 to 1000000 (0: none)
    #[arg(long, value_name = "N", default_value_t = 200, value_parser = crate::counts::between::<u32>(0, MAX_REPS))]
    reps: u32,
    /// One JSON object instead of tables
    #[arg(long)]
    json: bool,
    /// Also list every line not scored right, with what it was taken for
    #[arg(long)]
    show_wrong: bool,
    /// Print the built-in plans (every node, indented) and exit
    #[arg(long)]
    show_plans: bool,
}

/// Output constraint.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Output {
    JsonSchema,
    Grammar,
    None,
}

/// A plan's name, size and median update latencies by type.
type Updates = (String, usize, Vec<(&'static str, f64)>);

#[derive(serde::Serialize)]
struct Summary {
    classifier: String,
    plan: String,
    nodes: usize,
    n: usize,
    type_accuracy: f64,
    accuracy: f64,
    node_accuracy: Option<f64>,
    model_only: f64,
    asked: usize,
    fallbacks: usize,
    p50_ms: f64,
    p95_ms: f64,
}

fn ratio(a: usize, b: usize) -> f64 {
    a as f64 / b.max(1) as f64
}

fn summarise(name: &str, rows: &[Row]) -> Vec<Summary> {
    let mut by: BTreeMap<(usize, String), Vec<&Row>> = BTreeMap::new();
    for r in rows {
        by.entry((r.nodes, r.plan.clone())).or_default().push(r);
        by.entry((usize::MAX, "all".into())).or_default().push(r);
    }
    by.into_iter()
        .map(|((nodes, plan), v)| {
            let n = v.len();
            let ms: Vec<f64> = v.iter().map(|r| r.ms).collect();
            let (p50, p95) = eval::percentiles(&ms);
            let with_node: Vec<&&Row> = v.iter().filter(|r| r.has_node).collect();
            Summary {
                classifier: name.into(),
                plan,
                nodes: if nodes == usize::MAX { 0 } else { nodes },
                n,
                type_accuracy: ratio(v.iter().filter(|r| r.score != Score::WrongType).count(), n),
                accuracy: ratio(v.iter().filter(|r| r.score == Score::Right).count(), n),
                // Of the lines with a labelled node, part or goal: type and node right.
                node_accuracy: (!with_node.is_empty())
                    .then(|| ratio(with_node.iter().filter(|r| r.score == Score::Right).count(), with_node.len())),
                // Right by the model's own answer (a fallback to the parser counts as wrong).
                model_only: ratio(v.iter().filter(|r| r.score == Score::Right && !r.fell_back).count(), n),
                asked: v.iter().filter(|r| r.score == Score::Asked).count(),
                fallbacks: v.iter().filter(|r| r.fell_back).count(),
                p50_ms: p50,
                p95_ms: p95,
            }
        })
        .collect()
}

/// Per expected type: lines, type right (recall), precision of the prediction, and
/// node right among the labelled nodes.
#[derive(serde::Serialize)]
struct PerType {
    classifier: String,
    kind: &'static str,
    n: usize,
    recall: f64,
    precision: Option<f64>,
    node_accuracy: Option<f64>,
}

fn per_type(name: &str, rows: &[Row]) -> Vec<PerType> {
    IntentType::ALL
        .iter()
        .filter_map(|t| {
            let v: Vec<&Row> = rows.iter().filter(|r| r.expected == *t).collect();
            let predicted = rows.iter().filter(|r| r.got == *t).count();
            if v.is_empty() && predicted == 0 {
                return None;
            }
            let right = v.iter().filter(|r| r.got == *t).count();
            let with_node: Vec<&&Row> = v.iter().filter(|r| r.has_node).collect();
            Some(PerType {
                classifier: name.into(),
                kind: t.as_str(),
                n: v.len(),
                recall: ratio(right, v.len()),
                precision: (predicted > 0).then(|| ratio(right, predicted)),
                node_accuracy: (!with_node.is_empty())
                    .then(|| ratio(with_node.iter().filter(|r| r.score == Score::Right).count(), with_node.len())),
            })
        })
        .collect()
}

/// Expected type (rows) by predicted type (columns).
fn confusion(rows: &[Row]) -> BTreeMap<&'static str, BTreeMap<&'static str, usize>> {
    let mut m: BTreeMap<&'static str, BTreeMap<&'static str, usize>> = BTreeMap::new();
    for r in rows {
        *m.entry(r.expected.as_str()).or_default().entry(r.got.as_str()).or_default() += 1;
    }
    m
}

/// A blueprint from a plan file: a blueprint, a crew config, or another system's task.
fn load_plan_file(r: &PlanRef, data: &std::sync::Arc<GameData>) -> Result<Blueprint, String> {
    match r {
        PlanRef::Blueprint(p) => match Blueprint::load(p, data) {
            Ok(bp) => Ok(bp),
            Err(bp_err) => match gatecrew_crew::Setup::load_with_data(p, &Default::default(), data.clone()) {
                Ok(setup) => Ok((*setup.blueprint).clone()),
                Err(cfg_err) => {
                    Err(format!("{} is neither a blueprint ({bp_err}) nor a crew config ({cfg_err})", p.display()))
                }
            },
        },
        PlanRef::Task(p, id) => {
            let args = crate::task::TaskArgs { file: p, id: id.as_deref(), seed: None, policy: None, agents: None };
            let mut sink = Vec::new();
            crate::task::load(&args, &mut sink).map(|t| (*t.setup.blueprint).clone()).map_err(|e| {
                let listed = String::from_utf8_lossy(&sink).trim().to_owned();
                if listed.is_empty() { e.to_string() } else { format!("{e}; {listed}") }
            })
        }
        _ => Err("not a file".into()),
    }
}

/// Runs `gatecrew hitl-eval`.
pub fn run(args: HitlEvalArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let data_path =
        configs_file("data/minecraft-1.20.4.json").ok_or_else(|| BadInput("no configs/data here".into()))?;
    let data = std::sync::Arc::new(GameData::load(&data_path).map_err(|e| BadInput(e.to_string()))?);
    let vocab = Vocabulary::new(&data).map_err(|e| BadInput(e.to_string()))?;
    if args.show_plans {
        let mut all = eval::plans(&data, &vocab).into_iter().map(|(n, p)| (n.to_owned(), p)).collect::<Vec<_>>();
        all.push(("house".into(), eval::house_plan(&data)));
        for (name, p) in all {
            writeln!(out, "== {name}: {} nodes", p.len())?;
            for l in p.outline(10_000) {
                writeln!(out, "{l}")?;
            }
        }
        return Ok(());
    }
    let path = match &args.utterances {
        Some(p) => p.clone(),
        None => {
            configs_file("hitl/utterances.jsonl").ok_or_else(|| BadInput("no configs/hitl/utterances.jsonl".into()))?
        }
    };
    let set = eval::load(&path).map_err(BadInput)?;
    let plans = eval::prepare(&set, &data, &vocab, &|r| load_plan_file(r, &data));
    let (rows, unscored) = eval::run(&set, &plans, &mut ParserClassifier, &vocab, &data);
    let mut runs: Vec<(String, Vec<Row>)> = vec![("parser".into(), rows)];
    if let (Some(url), Some(model)) = (&args.llm_url, &args.model) {
        let spec = LlmSpec {
            url: Some(url.clone()),
            model: Some(model.clone()),
            timeout_ms: args.timeout_ms,
            output: match args.output {
                Output::JsonSchema => OutputMode::JsonSchema,
                Output::Grammar => OutputMode::Grammar,
                Output::None => OutputMode::None,
            },
            ..LlmSpec::default()
        };
        let mut llm: Box<dyn Classify> = Box::new(LlmClassifier::new(spec).map_err(|e| BadInput(e.to_string()))?);
        let (rows, _) = eval::run(&set, &plans, llm.as_mut(), &vocab, &data);
        runs.push((format!("llm {model}"), rows));
    }
    let summaries: Vec<Summary> = runs.iter().flat_map(|(n, r)| summarise(n, r)).collect();
    let types: Vec<PerType> = runs.iter().flat_map(|(n, r)| per_type(n, r)).collect();
    let tagged = set.iter().any(|u| u.lang.is_some());
    let langs: Vec<lang::PerLang> =
        if tagged { runs.iter().flat_map(|(n, r)| lang::per_lang(n, r)).collect() } else { Vec::new() };
    let stop_recall: Vec<(String, usize, usize)> = runs
        .iter()
        .map(|(n, r)| {
            let stops: Vec<&Row> = r.iter().filter(|x| x.expected == IntentType::Stop).collect();
            (n.clone(), stops.iter().filter(|x| x.got == IntentType::Stop).count(), stops.len())
        })
        .collect();
    let updates: Vec<Updates> = if args.reps == 0 {
        Vec::new()
    } else {
        plans
            .iter()
            .filter(|(r, _)| matches!(r, PlanRef::Builtin(_)))
            .filter_map(|(r, p)| p.as_ref().ok().map(|p| (r.key(), p)))
            .map(|(name, p)| (name, p.len(), eval::update_latency(p, &vocab, &data, args.reps as usize)))
            .collect()
    };
    if args.json {
        let upd: Vec<_> = updates
            .iter()
            .map(|(n, s, v)| serde_json::json!({"plan": n, "nodes": s, "median_us": v.iter().map(|(k, t)| (k.to_string(), *t)).collect::<BTreeMap<_, _>>()}))
            .collect();
        let conf: BTreeMap<&String, _> = runs.iter().map(|(n, r)| (n, confusion(r))).collect();
        serde_json::to_writer(
            &mut *out,
            &serde_json::json!({
                "utterances": set.len(),
                "scored": set.len() - unscored.len(),
                "unscored": unscored,
                "classification": summaries,
                "per_type": types,
                "per_lang": langs,
                "confusion": conf,
                "stop_recall": stop_recall.iter().map(|(n, a, b)| serde_json::json!({"classifier": n, "stopped": a, "stops": b})).collect::<Vec<_>>(),
                "updates": upd,
            }),
        )?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(
        out,
        "{} labelled lines from {}: {} scored, {} not scored",
        set.len(),
        path.display(),
        set.len() - unscored.len(),
        unscored.len()
    )?;
    for u in &unscored {
        writeln!(out, "  not scored: {}:{}: {} ({:?})", path.display(), u.line, u.why, u.text)?;
    }
    let pct = |x: f64| format!("{:.1}%", 100.0 * x);
    let opt = |x: Option<f64>| x.map_or_else(|| "-".to_owned(), pct);
    let mut t = table::new([
        "classifier",
        "plan",
        "nodes",
        "n",
        "type acc",
        "accuracy",
        "node acc",
        "own answers right",
        "asked",
        "fallbacks",
        "p50 ms",
        "p95 ms",
    ]);
    for s in &summaries {
        t.add_row([
            s.classifier.clone(),
            s.plan.clone(),
            if s.nodes == 0 { "-".into() } else { s.nodes.to_string() },
            s.n.to_string(),
            pct(s.type_accuracy),
            pct(s.accuracy),
            opt(s.node_accuracy),
            pct(s.model_only),
            s.asked.to_string(),
            s.fallbacks.to_string(),
            format!("{:.3}", s.p50_ms),
            format!("{:.3}", s.p95_ms),
        ]);
    }
    writeln!(out, "{t}")?;
    let mut pt = table::new(["classifier", "expected type", "n", "type right (recall)", "precision", "node acc"]);
    for r in &types {
        pt.add_row([
            r.classifier.clone(),
            r.kind.to_owned(),
            r.n.to_string(),
            pct(r.recall),
            opt(r.precision),
            opt(r.node_accuracy),
        ]);
    }
    writeln!(out, "{pt}")?;
    if !langs.is_empty() {
        writeln!(out, "{}", lang::table(&langs))?;
    }
    for (name, r) in &runs {
        let m = confusion(r);
        let mut header = vec![format!("{name}: expected \\ got")];
        header.extend(IntentType::ALL.iter().map(|t| t.as_str().to_owned()));
        let mut ct = table::new(header);
        for t in IntentType::ALL {
            let Some(row) = m.get(t.as_str()) else { continue };
            let mut cells = vec![t.as_str().to_owned()];
            cells.extend(IntentType::ALL.iter().map(|g| row.get(g.as_str()).map_or(".".into(), |n| n.to_string())));
            ct.add_row(cells);
        }
        writeln!(out, "{ct}")?;
    }
    if args.show_wrong {
        for (name, r) in &runs {
            for x in r.iter().filter(|x| x.score != Score::Right) {
                writeln!(
                    out,
                    "  {name}: {}:{}: {:?} expected {}, got {} ({:?})",
                    path.display(),
                    x.line,
                    x.text,
                    x.expected.as_str(),
                    x.got.as_str(),
                    x.score
                )?;
            }
        }
    }
    for (n, a, b) in &stop_recall {
        writeln!(out, "stop recall ({n}): {a} of {b}")?;
    }
    if !updates.is_empty() {
        let kinds: Vec<&str> = updates.first().map(|(_, _, v)| v.iter().map(|(k, _)| *k).collect()).unwrap_or_default();
        let mut header = vec!["graph update, median µs".to_owned(), "nodes".to_owned()];
        header.extend(kinds.iter().map(|k| (*k).to_owned()));
        let mut u = table::new(header);
        for (name, size, v) in &updates {
            let mut row = vec![name.clone(), size.to_string()];
            row.extend(v.iter().map(|(_, t)| format!("{t:.1}")));
            u.add_row(row);
        }
        writeln!(out, "{u}")?;
    }
    Ok(())
}
