//! The progress bars of the long commands: one look, and hidden when standard error is
//! not a terminal (CI logs, pipes).

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar over `len` items called `what` ("episodes", "points"), with elapsed time, ETA
/// and a message slot.
pub fn bar(len: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    if std::io::stderr().is_terminal() {
        let bar_style = if crate::term::colors().stderr { "bar:40.cyan/blue" } else { "bar:40" };
        let template = format!("[{{elapsed_precise}}] [{{{bar_style}}}] {{pos}}/{{len}} {what}, ETA {{eta}}  {{msg}}");
        bar.set_style(
            ProgressStyle::with_template(&template)
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
    } else {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar
}
