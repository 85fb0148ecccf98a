//! `gatecrew export`: traces out to Parquet or CSV tables for DuckDB, polars and pandas.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use gatecrew_analyze::export::{ExportError, Format, export};
use gatecrew_protocol::replace::ReplaceError;

use crate::BadInput;

/// Warnings shown before the rest are counted.
const SHOWN_WARNINGS: usize = 10;

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    /// Apache Parquet (Snappy), typed columns.
    Parquet,
    /// CSV with a header; nulls are empty fields.
    Csv,
}

/// Arguments of `gatecrew export`.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// Trace files or folders (searched for *.jsonl)
    #[arg(required = true, value_name = "DIR")]
    paths: Vec<PathBuf>,
    /// Table format
    #[arg(long, value_enum, default_value = "parquet")]
    format: FormatArg,
    /// Output folder: gets episodes.<ext> and events.<ext>
    #[arg(long, value_name = "PATH")]
    out: PathBuf,
    /// Print one JSON object with what was written
    #[arg(long)]
    json: bool,
}

/// Runs `gatecrew export`.
pub fn run(a: ExportArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    let started = Instant::now();
    let format = match a.format {
        FormatArg::Parquet => Format::Parquet,
        FormatArg::Csv => Format::Csv,
    };
    if a.out.is_file() {
        return Err(BadInput(format!("--out {}: is a file; give a folder for the two tables", a.out.display())).into());
    }
    let sum = export(&a.paths, format, &a.out).map_err(|e| match e {
        // A bad trace is bad input; a failed write is not.
        ExportError::Read(e) => BadInput(e.to_string()).into(),
        // So is an output another export is writing: refused, nothing done.
        ExportError::Output(e) if matches!(*e, ReplaceError::Held { .. }) => BadInput(e.to_string()).into(),
        e => anyhow::Error::new(e),
    })?;
    // The first few say what is wrong; hundreds of the same say nothing more.
    for w in sum.warnings.iter().take(SHOWN_WARNINGS) {
        writeln!(err, "warning: {}", gatecrew_protocol::text::escape(w))?;
    }
    if sum.warnings.len() > SHOWN_WARNINGS {
        writeln!(err, "warning: ... and {} more", sum.warnings.len() - SHOWN_WARNINGS)?;
    }
    if sum.episodes == 0 {
        // Empty tables are no export: kitchen traces (`gatecrew cos --trace`) or other
        // files gave no construction episode. That is bad input, not success.
        return Err(BadInput(format!(
            "nothing to export: {} files hold no construction episode ({} warnings), the tables written are \
             empty; export reads \
             construction traces (gatecrew run, suite run); kitchen traces from `gatecrew cos --trace` are read \
             by `gatecrew analyze`",
            sum.files,
            sum.warnings.len()
        ))
        .into());
    }
    if a.json {
        serde_json::to_writer(&mut *out, &sum)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "exported {} episodes, {} events from {} traces ({:.1} MB) in {:.2} s:",
            sum.episodes,
            sum.events,
            sum.files,
            sum.bytes as f64 / 1e6,
            started.elapsed().as_secs_f64()
        )?;
        for p in &sum.outputs {
            writeln!(out, "  {}", p.display())?;
        }
    }
    Ok(())
}
