//! `gatecrew memory list`: what interactive runs remembered.

use std::io::Write;
use std::path::PathBuf;

use gatecrew_analyze::table;
use gatecrew_hitl_app::memory::{Store, default_path};
use gatecrew_protocol::text::cell;

use crate::BadInput;

/// `gatecrew memory ...`
#[derive(Debug, clap::Subcommand)]
pub enum MemoryCmd {
    /// List the summarised plans and the facts kept, oldest first.
    List {
        /// The memory file [default: $GATECREW_DATA_DIR/memory.sqlite, else the user data directory]
        #[arg(long, value_name = "FILE")]
        memory_db: Option<PathBuf>,
        /// Only this world (episode name)
        #[arg(long, value_name = "NAME")]
        world: Option<String>,
        /// One JSON object instead of tables
        #[arg(long)]
        json: bool,
    },
}

/// Runs `gatecrew memory`.
pub fn run(cmd: MemoryCmd, out: &mut dyn Write) -> anyhow::Result<()> {
    let MemoryCmd::List { memory_db, world, json } = cmd;
    let path = match memory_db {
        Some(p) => p,
        None => default_path().map_err(|e| BadInput(e.to_string()))?,
    };
    if !path.exists() {
        // Nothing kept yet is an empty memory: JSON readers get the same shape.
        if json {
            let empty: [(); 0] = [];
            serde_json::to_writer(
                &mut *out,
                &serde_json::json!({ "path": path, "exists": false, "records": empty, "facts": empty }),
            )?;
            writeln!(out)?;
        } else {
            writeln!(out, "no task memory at {} yet", path.display())?;
        }
        return Ok(());
    }
    let store = Store::open(&path).map_err(|e| BadInput(e.to_string()))?;
    let records = store.records(world.as_deref())?;
    let facts = store.facts(world.as_deref())?;
    if json {
        serde_json::to_writer(
            &mut *out,
            &serde_json::json!({ "path": path, "exists": true, "records": records, "facts": facts }),
        )?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "task memory {} — {} records, {} facts", path.display(), records.len(), facts.len())?;
    let mut t = table::new([
        "id",
        "world",
        "run",
        "tick",
        "goal",
        "outcome",
        "items (seen)",
        "feedback (told)",
        "lessons (inferred)",
    ]);
    for r in &records {
        let items: Vec<String> = r.items.iter().map(|(i, n)| format!("{i} {n:+}")).collect();
        t.add_row([
            r.id.to_string(),
            cell(&r.world),
            cell(&r.run),
            r.tick.to_string(),
            cell(&r.goal),
            cell(&r.outcome),
            cell(&items.join(", ")),
            cell(&r.feedback.join("; ")),
            cell(&r.lessons.join("; ")),
        ]);
    }
    writeln!(out, "{t}")?;
    let mut f = table::new(["world", "fact", "item", "where", "count", "provenance", "run", "tick"]);
    for x in &facts {
        f.add_row([
            cell(&x.world),
            cell(&x.kind),
            cell(&x.item),
            x.pos.map(|(a, b, c)| format!("({a}, {b}, {c})")).unwrap_or_default(),
            x.count.map(|c| c.to_string()).unwrap_or_default(),
            x.provenance.as_str().to_owned(),
            cell(&x.run),
            x.tick.to_string(),
        ]);
    }
    writeln!(out, "{f}")?;
    Ok(())
}
