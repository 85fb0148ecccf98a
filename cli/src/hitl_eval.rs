//! `gatecrew hitl-eval`: the intent benchmark of paper 000 (section 4.5) on our plans:
//! accuracy and latency of the deterministic parser and, with `--llm-url`, of a model,
//! per plan size; and the graph-update latency of each intervention type.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};
use gatecrew_gating::llm::{LlmSpec, OutputMode};
use gatecrew_hitl::classify::{Classify, ParserClassifier};
use gatecrew_hitl::eval::{self, Row, Score};
use gatecrew_hitl::llm::LlmClassifier;
use gatecrew_hitl::words::Vocabulary;
use gatecrew_world::GameData;

use crate::BadInput;
use crate::paths::configs_file;

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
    /// Per-request timeout for the model, ms
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    timeout_ms: u64,
    /// Repetitions per graph-update measurement
    #[arg(long, value_name = "N", default_value_t = 200)]
    reps: usize,
    /// One JSON object instead of tables
    #[arg(long)]
    json: bool,
    /// Print the three plans (every node, indented) and exit
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
    model_only: f64,
    asked: usize,
    fallbacks: usize,
    p50_ms: f64,
    p95_ms: f64,
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
            Summary {
                classifier: name.into(),
                plan,
                nodes: if nodes == usize::MAX { 0 } else { nodes },
                n,
                type_accuracy: v.iter().filter(|r| r.score != Score::WrongType).count() as f64 / n.max(1) as f64,
                accuracy: v.iter().filter(|r| r.score == Score::Right).count() as f64 / n.max(1) as f64,
                // Right by the model's own answer (a fallback to the parser counts as wrong).
                model_only: v.iter().filter(|r| r.score == Score::Right && !r.fell_back).count() as f64
                    / n.max(1) as f64,
                asked: v.iter().filter(|r| r.score == Score::Asked).count(),
                fallbacks: v.iter().filter(|r| r.fell_back).count(),
                p50_ms: p50,
                p95_ms: p95,
            }
        })
        .collect()
}

/// Runs `gatecrew hitl-eval`.
pub fn run(args: HitlEvalArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let data_path =
        configs_file("data/minecraft-1.20.4.json").ok_or_else(|| BadInput("no configs/data here".into()))?;
    let data = GameData::load(&data_path).map_err(|e| BadInput(e.to_string()))?;
    let vocab = Vocabulary::new(&data).map_err(|e| BadInput(e.to_string()))?;
    if args.show_plans {
        for (name, p) in eval::plans(&data, &vocab) {
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
    let plans = eval::plans(&data, &vocab);
    let mut summaries = summarise("parser", &eval::run(&set, &plans, &mut ParserClassifier, &vocab, &data));
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
        let rows = eval::run(&set, &plans, llm.as_mut(), &vocab, &data);
        summaries.extend(summarise(&format!("llm {model}"), &rows));
    }
    let updates: Vec<Updates> = plans
        .iter()
        .map(|(name, p)| ((*name).to_owned(), p.len(), eval::update_latency(p, &vocab, &data, args.reps)))
        .collect();
    if args.json {
        let upd: Vec<_> = updates
            .iter()
            .map(|(n, s, v)| serde_json::json!({"plan": n, "nodes": s, "median_us": v.iter().map(|(k, t)| (k.to_string(), *t)).collect::<BTreeMap<_, _>>()}))
            .collect();
        serde_json::to_writer(
            &mut *out,
            &serde_json::json!({"utterances": set.len(), "classification": summaries, "updates": upd}),
        )?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "{} labelled utterances from {}", set.len(), path.display())?;
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    t.set_header([
        "classifier",
        "plan",
        "nodes",
        "n",
        "type acc",
        "accuracy",
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
            format!("{:.1}%", 100.0 * s.type_accuracy),
            format!("{:.1}%", 100.0 * s.accuracy),
            format!("{:.1}%", 100.0 * s.model_only),
            s.asked.to_string(),
            s.fallbacks.to_string(),
            format!("{:.3}", s.p50_ms),
            format!("{:.3}", s.p95_ms),
        ]);
    }
    writeln!(out, "{t}")?;
    let mut u = Table::new();
    u.load_preset(UTF8_FULL_CONDENSED);
    let kinds: Vec<&str> = updates.first().map(|(_, _, v)| v.iter().map(|(k, _)| *k).collect()).unwrap_or_default();
    let mut header = vec!["graph update, median µs".to_owned(), "nodes".to_owned()];
    header.extend(kinds.iter().map(|k| (*k).to_owned()));
    u.set_header(header);
    for (name, size, v) in &updates {
        let mut row = vec![name.clone(), size.to_string()];
        row.extend(v.iter().map(|(_, t)| format!("{t:.1}")));
        u.add_row(row);
    }
    writeln!(out, "{u}")?;
    Ok(())
}
