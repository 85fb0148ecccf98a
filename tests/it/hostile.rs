//! Hostile and unlucky input: whatever a file, a chat line, a socket, a
//! signal or a server sends, gatecrew answers with a clear error or a clean result, in
//! bounded memory and time, and keeps what it had already written. The files of the
//! bad-input corpus (`tests/bad_input`) cover the plain errors; these tests cover what
//! needs more than one file to show.

use std::path::Path;

/// `gatecrew run --stepper --quiet` of the default crew config writing `trace`, with
/// `extra` flags: the whole trace most hostile tests start from.
pub(crate) fn default_run(trace: &Path, extra: &[&str]) -> (u8, String, String) {
    let cfg = crate::common::default_config();
    let mut args =
        vec!["run", "--stepper", "--quiet", "--config", cfg.to_str().unwrap(), "--trace", trace.to_str().unwrap()];
    args.extend_from_slice(extra);
    crate::cli::gatecrew(&args)
}

mod arith;
mod bounds;
mod escaped;
mod faults;
mod files;
mod keys;
mod memory;
mod output;
mod resume;
mod shown;
mod signals;
mod streamed;
mod written;
mod ws;
