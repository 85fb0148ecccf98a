//! The look of every table gatecrew prints: one preset, cells wrapped so that the table
//! fits a width (the terminal's on a terminal, else [`WIDTH`] columns), headers in bold
//! when colour is on. The command line sets the look for the command it runs
//! ([`with_look`]); a table made outside one (a library caller, a test) gets the
//! default: 100 columns, no colour.

use std::cell::Cell as StdCell;

use comfy_table::{Attribute, Cell, ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};

/// The width of a table that is not shown on a terminal (a pipe, a file, a CI log):
/// the width a terminal is opened at, and what README's and docs' samples fit in.
pub const WIDTH: u16 = 100;

/// How a table is laid out and styled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Look {
    /// Columns to fit in; `None`: the width of the terminal standard output is.
    pub width: Option<u16>,
    /// Headers in bold (ANSI escapes).
    pub color: bool,
}

impl Default for Look {
    fn default() -> Self {
        Look { width: Some(WIDTH), color: false }
    }
}

thread_local! {
    static LOOK: StdCell<Look> = StdCell::new(Look::default());
}

/// Runs `f` with the tables it makes on this thread laid out as `look`; the look before
/// is back afterwards, even when `f` panics.
pub fn with_look<R>(look: Look, f: impl FnOnce() -> R) -> R {
    struct Restore(Look);
    impl Drop for Restore {
        fn drop(&mut self) {
            LOOK.with(|l| l.set(self.0));
        }
    }
    let _restore = Restore(LOOK.with(|l| l.replace(look)));
    f()
}

/// The look tables get on this thread now.
pub fn look() -> Look {
    LOOK.with(StdCell::get)
}

/// A table with this header, laid out in the current [`look`].
pub fn new<C: Into<Cell>>(header: impl IntoIterator<Item = C>) -> Table {
    let look = look();
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    t.set_content_arrangement(ContentArrangement::Dynamic);
    match look.width {
        // Not comfy-table's own guess from standard output: the command decides.
        Some(w) => {
            t.force_no_tty();
            t.set_width(w);
        }
        // A terminal that tells no usable width (a pseudo-terminal nobody sized reports
        // 0 columns) gets the width of a pipe.
        None => {
            if t.width().is_none_or(|w| w < 20) {
                t.set_width(WIDTH);
            }
        }
    }
    if look.color {
        t.enforce_styling();
    }
    t.set_header(
        header.into_iter().map(|c| if look.color { c.into().add_attribute(Attribute::Bold) } else { c.into() }),
    );
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wide() -> Table {
        let mut t = new(["policy", "a header that is rather long", "another long header", "and a third one"]);
        for i in 0..3 {
            t.add_row([
                format!("policy number {i}"),
                "some words that make a long cell of this table, longer than fits".to_owned(),
                "0.123 (0.100 - 0.150) over 40 episodes of the suite".to_owned(),
                "the last cell, long enough as well to push the width past 100".to_owned(),
            ]);
        }
        t
    }

    #[test]
    fn a_wide_table_wraps_to_the_width() {
        let text = wide().to_string();
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        assert!(widest <= usize::from(WIDTH), "{widest} columns:\n{text}");
        assert!(widest > 80, "the width is used:\n{text}");
        assert!(!text.contains('\u{1b}'), "no colour by default");
        let narrow = with_look(Look { width: Some(60), color: false }, || wide().to_string());
        assert!(narrow.lines().all(|l| l.chars().count() <= 60), "{narrow}");
        assert_eq!(look(), Look::default(), "the look is restored");
    }

    #[test]
    fn colour_puts_headers_in_bold() {
        let text = with_look(Look { width: Some(WIDTH), color: true }, || wide().to_string());
        let header = text.lines().nth(1).unwrap_or_default();
        let bold = header.find("\u{1b}[1m").zip(header.find("policy"));
        assert!(bold.is_some_and(|(b, p)| b < p), "the first header cell starts bold: {text:?}");
        let plain = with_look(Look { width: Some(WIDTH), color: false }, || wide().to_string());
        assert!(!plain.contains('\u{1b}'));
        let unstyled = text.replace("\u{1b}[1m", "").replace("\u{1b}[0m", "");
        assert_eq!(unstyled, plain, "colour changes no layout");
    }
}
