//! The `gatecrew` command line, as a library so that tests drive it in-process with
//! their own output streams: [`main_with`] parses the arguments, runs the command and
//! returns the exit code (0 ran, 1 failed while running, 2 bad input).

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use gatecrew_protocol::text::Printable;

mod adjudicate;
mod adjudications;
mod analyze;
mod bench_llm;
pub mod binary;
mod bots;
mod calibrate;
mod check;
mod cos;
mod counts;
mod executor;
mod export;
mod hitl_eval;
mod interactive;
pub mod interrupt;
mod jobs;
mod memory;
mod minecraft;
mod output;
mod paths;
mod progress;
mod replay;
mod report;
mod reproduce;
mod run;
mod soak;
mod suite;
mod task;
pub mod term;
mod tier3;
mod watch;

/// Crews of Minecraft construction bots that coordinate through a gated public board.
#[derive(Debug, Parser)]
#[command(name = "gatecrew", version, about, long_about = None)]
struct Cli {
    /// Colour: `auto` on a terminal unless NO_COLOR is set (to anything but empty) or
    /// TERM=dumb; help, errors, tables, progress bars and log lines
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = term::ColorChoice::Auto)]
    color: term::ColorChoice,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run one construction episode and report its coordination metrics.
    Run(Box<run::RunArgs>),
    /// Send one decision card to the LLM adjudicator and print its verdict, tokens and latency.
    Adjudicate(adjudicate::AdjudicateArgs),
    /// Time an OpenAI-compatible endpoint at several prompt and completion sizes; fit the llm executor's latency profile.
    BenchLlm(bench_llm::BenchLlmArgs),
    /// Generate or run the episode suite.
    #[command(subcommand)]
    Suite(suite::SuiteCmd),
    /// Coordination metrics from traces, per policy and class, with 95% intervals.
    Analyze(analyze::AnalyzeArgs),
    /// Grid-search the gate's weights and thresholds on the suite's calibration split.
    Calibrate(calibrate::CalibrateArgs),
    /// The human partner's task memory (records and facts kept by interactive runs).
    #[command(subcommand)]
    Memory(memory::MemoryCmd),
    /// Intent-classification accuracy and latency on the labelled utterances, and graph-update latency.
    HitlEval(hitl_eval::HitlEvalArgs),
    /// Many suite episodes with every fault on: counts conservation violations, escaped panics, deadlocks, memory.
    Soak(soak::SoakArgs),
    /// Parse config, blueprint, task, trace, message or LLM-reply files; name each defect's file and line.
    Check(check::CheckArgs),
    /// Traces out to Parquet or CSV tables (episodes and events) for DuckDB, polars and pandas.
    Export(export::ExportArgs),
    /// Replay a trace in the browser: play, pause, step and scrub through its ticks.
    Replay(replay::ReplayArgs),
    /// MindAgent's Collaboration Score on the CuisineWorld kitchen: levels x interval factors x policies x crew sizes.
    Cos(cos::CosArgs),
    /// Run what a paper's tables need and write its figures beside ours (`reproduce 004` writes docs/paper-004.md).
    Reproduce(reproduce::ReproduceArgs),
    /// Print a shell completion script (e.g. `gatecrew completions bash > ~/.local/share/bash-completion/completions/gatecrew`).
    Completions {
        /// The shell
        #[arg(value_enum, value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
}

/// The viewer's scene of a run's setup (its blueprint, its bots' starts), as `--serve` builds it.
pub use watch::scene as viewer_scene;

/// Bad input (a config, a blueprint, a flag): exit code 2, as clap does for flags.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadInput(pub String);

/// Runs the command line with the given arguments (the first is the program name),
/// writing results to `out` and errors to `err`, neither of them a terminal (no colour
/// under `--color auto`, tables 100 columns wide). Both go through
/// [`Printable`](gatecrew_protocol::text::Printable): whatever a command prints, from a
/// file, a server or a model, reaches a terminal without its control characters.
pub fn main_with<I, T>(args: I, out: &mut dyn Write, err: &mut dyn Write) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    main_on(args, term::Terminal::default(), out, err)
}

/// [`main_with`] for streams that are terminals as `terminal` says (the binary's own):
/// `--color auto` colours a terminal, and tables fit its width.
pub fn main_on<I, T>(args: I, terminal: term::Terminal, out: &mut dyn Write, err: &mut dyn Write) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let colors = term::Colors::of(&args, terminal);
    let mut out = printable(out, colors.stdout);
    let mut err = printable(err, colors.stderr);
    // A panic that escapes a command is a bug: it ends as an error (exit 1) instead of
    // Rust's 101 and a backtrace note. Unwinding drops the command's output files on
    // the way, so a trace in progress is flushed and kept as its `.partial`.
    let ran = term::with(colors, terminal, || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_cli(args, &mut out, &mut err)))
    });
    let code = match ran {
        Ok(code) => code,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_else(|| "a panic without a message".into());
            let _ = out.flush();
            let _ = writeln!(
                err,
                "{} internal error: {}; this is a bug in gatecrew, please report it with the command line \
                 (a trace in progress is kept as its .partial file)",
                error_word(colors.stderr),
                gatecrew_protocol::text::escape(&msg)
            );
            ExitCode::FAILURE
        }
    };
    let _ = out.flush();
    let _ = err.flush();
    code
}

fn printable(w: &mut dyn Write, colour: bool) -> Printable<&mut dyn Write> {
    if colour { Printable::with_colours(w) } else { Printable::new(w) }
}

/// `error:`, in clap's red and bold when coloured.
fn error_word(colour: bool) -> String {
    if colour {
        let s = clap::builder::styling::AnsiColor::Red.on_default().bold();
        format!("{s}error:{s:#}")
    } else {
        "error:".to_owned()
    }
}

fn run_cli(args: Vec<OsString>, out: &mut dyn Write, err: &mut dyn Write) -> ExitCode {
    let colors = term::colors();
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = e.exit_code();
            // clap quotes a bad value as given (and drops escape sequences from it when
            // rendering plain), so one with a line break would print a line of its own:
            // the message shown is the one the same arguments give escaped.
            let shown: Vec<OsString> = args
                .iter()
                .map(|a| {
                    a.to_str().map_or_else(|| a.clone(), |s| gatecrew_protocol::text::escape(s).into_owned().into())
                })
                .collect();
            let e = if shown == args { e } else { Cli::try_parse_from(&shown).err().unwrap_or(e) };
            // Coloured only where asked: a plain stream would show the escapes as text.
            let colour = if e.use_stderr() { colors.stderr } else { colors.stdout };
            let text = if colour { e.render().ansi().to_string() } else { e.render().to_string() };
            if e.use_stderr() {
                let _ = write!(err, "{text}");
            } else {
                let _ = write!(out, "{text}");
            }
            return ExitCode::from(u8::try_from(code).unwrap_or(2));
        }
    };
    let result = match cli.command {
        Command::Run(args) => run::run(*args, out, err),
        Command::Adjudicate(args) => adjudicate::adjudicate(args, out),
        Command::BenchLlm(args) => bench_llm::run(args, out, err),
        Command::Suite(cmd) => suite::run(cmd, out, err),
        Command::Analyze(args) => analyze::run(args, out, err),
        Command::Calibrate(args) => calibrate::run(args, out, err),
        Command::Memory(cmd) => memory::run(cmd, out),
        Command::HitlEval(args) => hitl_eval::run(args, out),
        Command::Soak(args) => soak::run(args, out, err),
        Command::Check(args) => check::run(args, out, err),
        Command::Export(args) => export::run(args, out, err),
        Command::Replay(args) => replay::run(args, out, err),
        Command::Cos(args) => cos::run(args, out, err),
        Command::Reproduce(args) => reproduce::run(args, out, err),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(shell, &mut Cli::command(), "gatecrew", out);
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`gatecrew memory list | head`): like any Unix tool, stop
        // quietly; there is nobody left to tell.
        Err(e) if e.chain().any(is_broken_pipe) => ExitCode::SUCCESS,
        Err(e) => {
            let bad_input = e.downcast_ref::<BadInput>().is_some();
            // One line: the chain quotes files, servers and models.
            let _ =
                writeln!(err, "{} {}", error_word(colors.stderr), gatecrew_protocol::text::escape(&format!("{e:#}")));
            ExitCode::from(if bad_input { 2 } else { 1 })
        }
    }
}

/// A write to a closed pipe, directly or through serde_json's writer.
fn is_broken_pipe(e: &(dyn std::error::Error + 'static)) -> bool {
    let pipe = Some(std::io::ErrorKind::BrokenPipe);
    e.downcast_ref::<std::io::Error>().map(std::io::Error::kind) == pipe
        || e.downcast_ref::<serde_json::Error>().and_then(serde_json::Error::io_error_kind) == pipe
}
