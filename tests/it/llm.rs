//! The LLM adjudicator (tier 3): live tests against a real llama.cpp server started on
//! 127.0.0.1 by `scripts/llm-server.py` (once per test binary, unless
//! `GATECREW_TEST_LLM_URL` names a running one), and an in-process fake server for the
//! faults the real one will not produce on demand.

mod bench;
mod episode;
pub mod fake;
mod faults;
mod key;
mod live;
pub mod server;

use std::path::{Path, PathBuf};

use gatecrew_gating::llm::LlmSpec;
use gatecrew_protocol::trace::{Event, EventKind, FallbackReason};

pub use crate::common::gatecrew;
use crate::common::{root, write};

/// The model name the launcher's server answers to.
pub const MODEL: &str = "smollm2-135m";

/// A spec for `url` with a timeout.
pub fn spec(url: &str, timeout_ms: u64) -> LlmSpec {
    LlmSpec { url: Some(url.to_owned()), model: Some(MODEL.into()), timeout_ms, ..LlmSpec::default() }
}

/// Copies the default configs into `dir`, appending `extra` TOML to the crew config;
/// returns the crew config's path.
pub fn config_with(dir: &Path, extra: &str) -> PathBuf {
    let text = std::fs::read_to_string(root().join("configs/crew.toml")).unwrap();
    write(
        dir,
        "configs/blueprints/house.toml",
        &std::fs::read_to_string(root().join("configs/blueprints/house.toml")).unwrap(),
    );
    std::fs::create_dir_all(dir.join("configs/data")).unwrap();
    let data = dir.join("configs/data/minecraft-1.20.4.json");
    if !data.exists() {
        std::fs::copy(root().join("configs/data/minecraft-1.20.4.json"), data).unwrap();
    }
    write(dir, "configs/crew.toml", &format!("{text}\n{extra}\n"))
}

/// [`config_with`] for model-driven bots (`[bots] kind = "model"`) whose calls time out
/// after `timeout_ms`.
pub fn model_config(dir: &Path, timeout_ms: u64) -> PathBuf {
    config_with(dir, &format!("[bots]\nkind = \"model\"\ntimeout_ms = {timeout_ms}\n"))
}

/// A gray zone from 0.05 to 0.99: nearly every issue the rules leave goes to tier 3.
pub const WIDE_GRAY: &str = "[gate]\ntheta_low = 0.05\ntheta_high = 0.99\n";

/// The events of a trace file.
pub fn trace(path: &Path) -> Vec<Event> {
    crate::episode::events(&std::fs::read(path).unwrap())
}

/// The `adjudication` events: (tick, fallback reason, prompt tokens + completion tokens).
pub fn adjudications(evs: &[Event]) -> Vec<(u64, Option<FallbackReason>, u32)> {
    evs.iter()
        .filter_map(|e| match &e.kind {
            EventKind::Adjudication { fallback, prompt_tokens, completion_tokens, .. } => {
                Some((e.t, *fallback, prompt_tokens + completion_tokens))
            }
            _ => None,
        })
        .collect()
}
