//! What the terminal gets: colour, chosen by `--color auto|always|never`, and the width
//! tables fit. Under `auto` a stream is coloured only when it is a terminal, `NO_COLOR`
//! is unset or empty and `TERM` is not `dumb` (<https://no-color.org>). The choice
//! covers clap's help and errors, the tables, the progress bars and the log lines.

use std::cell::Cell;
use std::ffi::{OsStr, OsString};

/// `--color`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour on a terminal, unless NO_COLOR is set or TERM=dumb
    #[default]
    Auto,
    /// Colour even into a pipe or a file
    Always,
    /// No colour
    Never,
}

/// Which of the process's output streams are terminals, and the width of standard
/// output's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Terminal {
    /// Standard output is a terminal.
    pub stdout: bool,
    /// Standard error is a terminal.
    pub stderr: bool,
}

impl Terminal {
    /// The process's own streams.
    pub fn detect() -> Self {
        use std::io::IsTerminal;
        Terminal { stdout: std::io::stdout().is_terminal(), stderr: std::io::stderr().is_terminal() }
    }
}

/// Whether each stream is coloured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Colors {
    /// Standard output: tables, clap's help.
    pub stdout: bool,
    /// Standard error: clap's errors, progress bars, log lines.
    pub stderr: bool,
}

impl Colors {
    /// The streams' colours under `choice`, with `env` reading the environment.
    pub fn resolve(choice: ColorChoice, term: Terminal, env: impl Fn(&str) -> Option<OsString>) -> Self {
        match choice {
            ColorChoice::Always => Colors { stdout: true, stderr: true },
            ColorChoice::Never => Colors::default(),
            ColorChoice::Auto => {
                let no_color = env("NO_COLOR").is_some_and(|v| !v.is_empty());
                let dumb = env("TERM").is_some_and(|v| v == "dumb");
                let allowed = !no_color && !dumb;
                Colors { stdout: allowed && term.stdout, stderr: allowed && term.stderr }
            }
        }
    }

    /// The colours of this command line run with these streams in this process's
    /// environment.
    pub fn of(args: &[OsString], term: Terminal) -> Self {
        Colors::resolve(choice_in(args), term, |k: &str| std::env::var_os(k))
    }
}

/// The `--color` a command line asks for, read before clap parses it: clap's own errors
/// (a bad flag) are shown in the colour asked for. The last one counts, as clap keeps
/// it; nothing after `--` is a flag; a bad value is clap's to report (shown plain).
pub fn choice_in(args: &[OsString]) -> ColorChoice {
    use clap::ValueEnum;
    let mut choice = ColorChoice::Auto;
    let mut words = args.iter().skip(1).map(OsString::as_os_str);
    while let Some(w) = words.next() {
        let value: Option<&OsStr> = match w.to_str() {
            Some("--") => break,
            Some("--color") => words.next(),
            Some(s) => s.strip_prefix("--color=").map(OsStr::new),
            None => None,
        };
        if let Some(c) = value.and_then(OsStr::to_str).and_then(|v| ColorChoice::from_str(v, false).ok()) {
            choice = c;
        }
    }
    choice
}

thread_local! {
    static COLORS: Cell<Colors> = const { Cell::new(Colors { stdout: false, stderr: false }) };
}

/// Runs `f` with `colors` as what [`colors`] says on this thread, and the tables it
/// makes laid out for `term` (a terminal's width, else 100 columns).
pub fn with<R>(colors: Colors, term: Terminal, f: impl FnOnce() -> R) -> R {
    struct Restore(Colors);
    impl Drop for Restore {
        fn drop(&mut self) {
            COLORS.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(COLORS.with(|c| c.replace(colors)));
    let width = if term.stdout { None } else { Some(gatecrew_analyze::table::WIDTH) };
    gatecrew_analyze::table::with_look(gatecrew_analyze::table::Look { width, color: colors.stdout }, f)
}

/// The colours of the command running on this thread.
pub fn colors() -> Colors {
    COLORS.with(Cell::get)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn args(s: &str) -> Vec<OsString> {
        s.split_whitespace().map(OsString::from).collect()
    }

    #[test]
    fn the_last_color_flag_before_a_double_dash_counts() {
        assert_eq!(choice_in(&args("gatecrew run")), ColorChoice::Auto);
        assert_eq!(choice_in(&args("gatecrew --color never run")), ColorChoice::Never);
        assert_eq!(choice_in(&args("gatecrew run --color=always")), ColorChoice::Always);
        assert_eq!(choice_in(&args("gatecrew --color always run --color never")), ColorChoice::Never);
        assert_eq!(choice_in(&args("gatecrew --color=always -- --color never")), ColorChoice::Always);
        assert_eq!(choice_in(&args("gatecrew --color sometimes")), ColorChoice::Auto);
        assert_eq!(choice_in(&args("gatecrew --color")), ColorChoice::Auto);
    }

    #[test]
    fn auto_colours_a_terminal_unless_no_color_or_a_dumb_terminal() {
        let both = Terminal { stdout: true, stderr: true };
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| OsString::from(v))
        };
        let on = Colors { stdout: true, stderr: true };
        assert_eq!(Colors::resolve(ColorChoice::Auto, both, env(&[("TERM", "xterm")])), on);
        let piped = Terminal { stdout: false, stderr: true };
        assert_eq!(Colors::resolve(ColorChoice::Auto, piped, env(&[])), Colors { stdout: false, stderr: true });
        assert_eq!(Colors::resolve(ColorChoice::Auto, both, env(&[("NO_COLOR", "1")])), Colors::default());
        assert_eq!(Colors::resolve(ColorChoice::Auto, both, env(&[("NO_COLOR", "0")])), Colors::default());
        assert_eq!(Colors::resolve(ColorChoice::Auto, both, env(&[("NO_COLOR", "")])), on, "empty is unset");
        assert_eq!(Colors::resolve(ColorChoice::Auto, both, env(&[("TERM", "dumb")])), Colors::default());
        assert_eq!(Colors::resolve(ColorChoice::Always, Terminal::default(), env(&[("NO_COLOR", "1")])), on);
        assert_eq!(Colors::resolve(ColorChoice::Never, both, env(&[])), Colors::default());
    }
}
