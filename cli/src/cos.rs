//! `gatecrew cos`: MindAgent's Collaboration Score on the CuisineWorld kitchen (issue
//! 21). Each level runs at the five interval factors under each policy and crew size;
//! the table shows each factor's completion rate and the two CoS variants, named for
//! what they do with orders still pending at the end (the paper's formula leaves them
//! out, MindAgent's script counts them as failed).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};
use gatecrew_kitchen::{CosRow, Cuisine, DEFAULT_HORIZON, FACTORS, PolicyKind, RunSpec, TimingMode};
use serde::Serialize;

use crate::BadInput;

/// Arguments of `gatecrew cos`.
#[derive(Debug, clap::Args)]
pub struct CosArgs {
    /// Levels by name (`level_0,level_3`), or `all`
    #[arg(long, value_delimiter = ',', default_value = "all")]
    levels: Vec<String>,
    /// Kitchen policies: dispatcher, gated, flatcomm
    #[arg(long, value_delimiter = ',', default_value = "dispatcher,gated,flatcomm")]
    policy: Vec<PolicyKind>,
    /// Crew sizes
    #[arg(long, value_delimiter = ',', default_value = "2")]
    agents: Vec<usize>,
    /// The order draws' seed (one episode per factor and seed)
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Steps per episode, unless a level sets max_steps (MindAgent's 60)
    #[arg(long, default_value_t = DEFAULT_HORIZON)]
    horizon: u32,
    /// Order interval and lifetimes: `file` (the level file's, the interval times the factor) or `oracle` (MindAgent's script: from the recipe graph)
    #[arg(long, default_value = "file", value_parser = parse_timing)]
    timing: TimingMode,
    /// The folder with recipe.json and tasks_level_final.json (default: $GATECREW_CUISINEWORLD or ../shared/external-tasks/cuisineworld)
    #[arg(long, value_name = "DIR")]
    tasks: Option<PathBuf>,
    /// Print JSON (every row with its episodes, and the means) instead of tables
    #[arg(long)]
    json: bool,
}

fn parse_timing(s: &str) -> Result<TimingMode, String> {
    match s {
        "file" => Ok(TimingMode::File),
        "oracle" => Ok(TimingMode::Oracle),
        other => Err(format!("unknown timing {other:?}: file or oracle")),
    }
}

/// One policy and crew size over the chosen levels.
#[derive(Debug, Serialize)]
struct Mean {
    policy: PolicyKind,
    agents: usize,
    levels: usize,
    cos_pending_excluded: f64,
    cos_pending_failed: f64,
    messages_per_episode: f64,
}

fn means(rows: &[CosRow], policies: &[PolicyKind], agents: &[usize]) -> Vec<Mean> {
    let mut out = Vec::new();
    for &policy in policies {
        for &n in agents {
            let mine: Vec<&CosRow> = rows.iter().filter(|r| r.policy == policy && r.spec.agents == n).collect();
            let k = mine.len().max(1) as f64;
            let episodes: usize = mine.iter().map(|r| r.episodes.len()).sum();
            out.push(Mean {
                policy,
                agents: n,
                levels: mine.len(),
                cos_pending_excluded: mine.iter().map(|r| r.cos_pending_excluded).sum::<f64>() / k,
                cos_pending_failed: mine.iter().map(|r| r.cos_pending_failed).sum::<f64>() / k,
                messages_per_episode: mine.iter().map(|r| r.messages as f64).sum::<f64>() / episodes.max(1) as f64,
            });
        }
    }
    out
}

/// Runs `gatecrew cos`.
pub fn run(args: CosArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    if args.agents.iter().any(|&n| n == 0 || n > 64) {
        return Err(BadInput(format!("--agents {:?}: each crew size must be in 1..=64", args.agents)).into());
    }
    if args.horizon == 0 {
        return Err(BadInput("--horizon 0: an episode needs at least one step".into()).into());
    }
    let dir = args.tasks.clone().unwrap_or_else(gatecrew_kitchen::default_dir);
    // Shown as the folder it is, not as the build's relative path to it.
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    let cuisine = Cuisine::load(&dir).map_err(|e| BadInput(e.to_string()))?;
    let levels = match args.levels.as_slice() {
        [all] if all == "all" => None,
        names => Some(names),
    };
    let spec = RunSpec { agents: 0, seed: args.seed, horizon: args.horizon, timing: args.timing };
    let rows = gatecrew_kitchen::cos_table(&cuisine, levels, &args.policy, &args.agents, &spec)
        .map_err(|e| BadInput(e.to_string()))?;
    let means = means(&rows, &args.policy, &args.agents);
    if args.json {
        #[derive(Serialize)]
        struct Report<'a> {
            tasks: &'a std::path::Path,
            factors: [f64; 5],
            rows: &'a [CosRow],
            means: &'a [Mean],
        }
        let report = Report { tasks: &dir, factors: FACTORS, rows: &rows, means: &means };
        serde_json::to_writer_pretty(&mut *out, &report).context("writing the report")?;
        writeln!(out)?;
        return Ok(());
    }
    let timing = match args.timing {
        TimingMode::File => "the level file's interval x factor and lifetimes",
        TimingMode::Oracle => "MindAgent's script's (oracle) interval and lifetimes",
    };
    writeln!(out, "CoS on {} ({timing}), seed {}, one episode per factor", dir.display(), args.seed)?;
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    let mut head = vec!["level".to_owned(), "policy".into(), "agents".into()];
    head.extend(FACTORS.iter().map(|f| format!("x{f}")));
    head.extend(["CoS (pending excluded)".into(), "CoS (pending = failed)".into(), "messages".into()]);
    t.set_header(head);
    for r in &rows {
        let mut cells = vec![r.level.clone(), r.policy.to_string(), r.spec.agents.to_string()];
        cells.extend(
            r.episodes
                .iter()
                .map(|e| format!("{:.2} ({}/{}/{})", e.rate_pending_excluded(), e.completed, e.failed, e.pending)),
        );
        cells.extend([
            format!("{:.3}", r.cos_pending_excluded),
            format!("{:.3}", r.cos_pending_failed),
            r.messages.to_string(),
        ]);
        t.add_row(cells);
    }
    writeln!(out, "{t}")?;
    writeln!(out, "each factor: completed / (completed + failed), and (completed/failed/pending) orders")?;
    let mut m = Table::new();
    m.load_preset(UTF8_FULL_CONDENSED);
    m.set_header([
        "policy",
        "agents",
        "levels",
        "CoS (pending excluded)",
        "CoS (pending = failed)",
        "messages/episode",
    ]);
    for x in &means {
        m.add_row([
            x.policy.to_string(),
            x.agents.to_string(),
            x.levels.to_string(),
            format!("{:.3}", x.cos_pending_excluded),
            format!("{:.3}", x.cos_pending_failed),
            format!("{:.1}", x.messages_per_episode),
        ]);
    }
    writeln!(out, "{m}")?;
    Ok(())
}
