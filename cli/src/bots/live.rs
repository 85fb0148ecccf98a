//! The live endpoints of a model-driven crew: one or more servers (`--llm-url` given
//! several times), each with as many calls in flight as `--llm-concurrency` says, or as
//! it has slots.
//!
//! Calls are spread by caller, never by who is free first: bot `i`'s calls go to
//! endpoint `i mod k`, the central manager's to the first. Which endpoint serves a call
//! is thus fixed by the episode, and the trace depends only on the replies (it records
//! each one), not on which server answered sooner. A call that finds its endpoint's
//! port closed (`connection_refused`, at once) is tried on the next endpoint in turn;
//! any other failure (a timeout, an HTTP error, a bad body) is the call's, and the bot
//! falls back. Each call is bounded by the call timeout from the moment it is made,
//! queueing behind the endpoint's other calls included.

use std::time::Duration;

use gatecrew_crew::bots::{Endpoint, Exchange};
use gatecrew_gating::llm::{BlockingChat, FallbackReason};
use gatecrew_protocol::AgentId;

/// How long the slot count may take to read: the server answers `/props` from memory.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// One server and its queue.
#[derive(Debug)]
pub(super) struct Server {
    pub(super) chat: BlockingChat,
    /// The URL as it may be shown (credentials hidden).
    pub(super) shown: String,
}

/// The endpoints, in the order given.
#[derive(Debug)]
pub(super) struct Live(pub(super) Vec<Server>);

impl Endpoint for Live {
    fn chat(&self, agent: Option<AgentId>, _digest: &str, body: serde_json::Value) -> Exchange {
        let k = self.0.len().max(1);
        let first = agent.map_or(0, |a| a.index() % k);
        let mut waited = 0u64;
        let mut last = None;
        for i in 0..k {
            let server = &self.0[(first + i) % k];
            let (result, ms) = server.chat.chat(body.clone());
            waited = waited.saturating_add(ms);
            match result {
                Err((FallbackReason::ConnectionRefused, b)) => {
                    tracing::warn!(endpoint = %server.shown, "connection refused: the next endpoint takes the call");
                    last = Some(Err((FallbackReason::ConnectionRefused.tag(), b)));
                }
                r => {
                    return Exchange {
                        result: r
                            .map(|(text, u)| (text, u.prompt_tokens, u.completion_tokens))
                            .map_err(|(r, b)| (r.tag(), b)),
                        latency_ms: waited,
                    };
                }
            }
        }
        Exchange { result: last.unwrap_or(Err(("connection_refused".into(), String::new()))), latency_ms: waited }
    }
}

/// The slots a llama.cpp server says it has: `total_slots` of `GET /props`, else the
/// length of `GET /slots` (both at the server's root, beside `/v1`). `None` for a
/// server that says neither (vLLM, Ollama, OpenAI batch on their own).
pub(super) fn server_slots(url: &str, key: Option<&str>) -> Option<usize> {
    let root = url.trim_end_matches('/');
    let root = root.strip_suffix("/v1").unwrap_or(root).to_owned();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
    let http = reqwest::Client::builder().timeout(PROBE_TIMEOUT).build().ok()?;
    let get = |path: &str| {
        let mut req = http.get(format!("{root}{path}"));
        if let Some(k) = key {
            req = req.bearer_auth(k);
        }
        async move {
            let resp = req.send().await.ok()?;
            if !resp.status().is_success() {
                return None;
            }
            resp.json::<serde_json::Value>().await.ok()
        }
    };
    rt.block_on(async {
        if let Some(n) = get("/props").await.and_then(|v| v.get("total_slots").and_then(serde_json::Value::as_u64)) {
            return usize::try_from(n).ok().filter(|n| *n > 0);
        }
        get("/slots").await.and_then(|v| v.as_array().map(Vec::len)).filter(|n| *n > 0)
    })
}
