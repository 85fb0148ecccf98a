//! The process around the command line: the `gatecrew` binary's `main` (and a test's
//! child process that stands for it) reads its arguments, looks at which of its streams
//! are terminals, installs the log subscriber and the signal handlers, and runs
//! [`main_on`](crate::main_on) on its own standard output and error.

use std::ffi::OsString;
use std::process::ExitCode;

use crate::term::{Colors, Terminal};

/// The binary's `main`, on the process's arguments.
pub fn main() -> ExitCode {
    main_from(std::env::args_os().collect())
}

/// The binary's `main` on these arguments (the first is the program name). Called once
/// per process: it installs the process's log subscriber and signal handlers.
pub fn main_from(args: Vec<OsString>) -> ExitCode {
    let terminal = Terminal::detect();
    init_logging(Colors::of(&args, terminal).stderr);
    crate::interrupt::install();
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr());
    crate::main_on(args, terminal, &mut out, &mut err)
}

/// Only the process installs a subscriber; `GATECREW_LOG` sets the filter (`warn` by
/// default, e.g. `GATECREW_LOG=gatecrew_crew=debug`); coloured as `--color` says for
/// standard error.
fn init_logging(colour: bool) {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_env("GATECREW_LOG").unwrap_or_else(|_| EnvFilter::new("warn"));
    // Log lines carry outside text (ids, names, replies): escaped like every output; in
    // colour only the colour sequences pass.
    let writer = move || {
        let e = std::io::stderr();
        if colour {
            gatecrew_protocol::text::Printable::with_colours(e)
        } else {
            gatecrew_protocol::text::Printable::new(e)
        }
    };
    // A second call in one process (a test) keeps the first subscriber.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(colour)
        .with_target(false)
        .try_init();
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
