//! `gatecrew`: run crews of Minecraft construction bots that coordinate through a gated
//! public board; calibrate the gate; analyse protocol traces.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod paths;
mod report;
mod run;

/// Crews of Minecraft construction bots that coordinate through a gated public board.
#[derive(Debug, Parser)]
#[command(name = "gatecrew", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run one construction episode and report its coordination metrics.
    Run(run::RunArgs),
}

/// Bad input (a config, a blueprint, a flag): exit code 2, as clap does for flags.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadInput(pub String);

fn main() -> ExitCode {
    init_logging();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let bad_input = e.downcast_ref::<BadInput>().is_some();
            eprintln!("error: {e:#}");
            ExitCode::from(if bad_input { 2 } else { 1 })
        }
    }
}

fn init_logging() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_env("GATECREW_LOG").unwrap_or_else(|_| EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();
    // Injected agent crashes are panics that the supervisor recovers from: log them as
    // one line instead of the default multi-line report.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| {
                info.payload()
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
            })
            .unwrap_or_else(|| "panic".into());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        tracing::warn!("panic{at}: {msg}");
    }));
}
