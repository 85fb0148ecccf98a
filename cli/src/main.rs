//! `gatecrew`: run crews of Minecraft construction bots that coordinate through a gated
//! public board; calibrate the gate; analyse protocol traces.

use std::process::ExitCode;

// mimalloc, not glibc's malloc: a 1,000-bot episode on actors spent a fifth of its CPU
// time in the allocator with glibc's, and runs 1.39x the stepper with mimalloc against
// 1.77x (docs/benchmarks.md, "The allocator").
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    init_logging();
    gatecrew_cli::interrupt::install();
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr());
    gatecrew_cli::main_with(std::env::args_os(), &mut out, &mut err)
}

/// Only the binary installs a subscriber; `GATECREW_LOG` sets the filter
/// (`warn` by default, e.g. `GATECREW_LOG=gatecrew_crew=debug`).
fn init_logging() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_env("GATECREW_LOG").unwrap_or_else(|_| EnvFilter::new("warn"));
    // Log lines carry outside text (ids, names, replies): escaped like every output, and
    // so without colours (their escapes would be shown as text).
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| gatecrew_protocol::text::Printable::new(std::io::stderr()))
        .with_ansi(false)
        .with_target(false)
        .init();
    // Injected agent crashes are panics that the supervisor recovers from: log them as
    // one line instead of the default multi-line report.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| info.payload().downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_else(|| "panic".into());
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        tracing::warn!("panic{at}: {msg}");
    }));
}
