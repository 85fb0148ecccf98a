//! Every family the exporter can serve, with its type, unit and `# HELP` text.
//!
//! The libraries call `metrics::counter!` and friends without describing them; the
//! descriptions live here, in one table, so that each family served has HELP and its
//! unit (Prometheus' naming rules: the unit is the name's last word before `_total`).
//! A test checks that every family named in the workspace's sources is in this table.

/// What kind of series a family is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Only goes up.
    Counter,
    /// Goes up and down.
    Gauge,
    /// Observations in buckets.
    Histogram,
}

/// One metric family as served.
#[derive(Debug, Clone, Copy)]
pub struct Family {
    /// The name served (after `_ms` histograms are renamed `_seconds`).
    pub name: &'static str,
    /// Its type.
    pub kind: Kind,
    /// What one unit of it is: a base unit (`seconds`, `bytes`) or what is counted
    /// (`ticks`, `blocks`, `tokens`, `episodes`); the name ends with it.
    pub unit: &'static str,
    /// What it measures.
    pub help: &'static str,
}

const fn c(name: &'static str, unit: &'static str, help: &'static str) -> Family {
    Family { name, kind: Kind::Counter, unit, help }
}

const fn g(name: &'static str, unit: &'static str, help: &'static str) -> Family {
    Family { name, kind: Kind::Gauge, unit, help }
}

const fn h(name: &'static str, unit: &'static str, help: &'static str) -> Family {
    Family { name, kind: Kind::Histogram, unit, help }
}

/// Series derived from the trace: they equal what the run's traces say.
pub const TRACE: [Family; 17] = [
    c("gatecrew_trace_events_total", "events", "Trace events written, by kind"),
    c("gatecrew_episodes_total", "episodes", "Episodes ended as recorded in the trace (episode_end events), by reason"),
    h("gatecrew_episode_ticks", "ticks", "Game ticks each recorded episode lasted (20 ticks are one game second)"),
    c("gatecrew_board_messages_total", "messages", "Board messages accepted, by protocol kind"),
    c("gatecrew_board_rejected_total", "messages", "Board messages rejected, by rejection kind"),
    c("gatecrew_gate_decisions_total", "decisions", "Gate decisions, by deciding tier (1, 2, 3, policy) and decision"),
    c("gatecrew_transfers_total", "transfers", "Board windows closed, by outcome"),
    c("gatecrew_issues_total", "issues", "Issues detected, by kind"),
    c("gatecrew_issues_resolved_total", "issues", "Issues resolved, by how (local, board)"),
    c("gatecrew_llm_tokens_total", "tokens", "Tier-3 adjudicator tokens, by type (prompt, completion)"),
    c("gatecrew_llm_requests_total", "requests", "Tier-3 adjudications, by what decided (model, fallback)"),
    h(
        "gatecrew_llm_latency_seconds",
        "seconds",
        "Tier-3 adjudication round trips, wall seconds as the trace recorded them",
    ),
    h(
        "gatecrew_request_to_confirm_ticks",
        "ticks",
        "Game ticks from REQUEST_MATERIAL to a confirmed transfer (20 ticks are one game second)",
    ),
    c("gatecrew_chat_messages_total", "messages", "Free-chat and manager lines of the baselines, by channel"),
    c("gatecrew_chat_tokens_total", "tokens", "Modelled tokens of free-chat and manager lines, by channel"),
    c(
        "gatecrew_episode_blocks_total",
        "blocks",
        "Blueprint blocks at each recorded episode's end, by state (correct, missing)",
    ),
    g(
        "gatecrew_blueprint_blocks",
        "blocks",
        "Blueprint blocks of the episodes running now (of the one run, kept at its end), by state (placed, remaining)",
    ),
];

/// The libraries' own series: counted where the work happens, so a soak's actor
/// re-runs of an episode count here too (the trace-derived series do not).
pub const LIBRARY: [Family; 27] = [
    c("gatecrew_agent_restarts_total", "restarts", "Bot actors restarted by their supervisor after a crash"),
    c("gatecrew_agents_failed_total", "agents", "Bots of external or executor-driven episodes that failed for good"),
    c("gatecrew_actions_total", "actions", "Bot actions completed, by action and whether it succeeded"),
    c("gatecrew_message_faults_total", "messages", "Board messages hit by an injected fault, by fault"),
    c("gatecrew_model_bot_calls_total", "calls", "Language-model calls of --bots model, by decision point"),
    c(
        "gatecrew_model_bot_invalid_total",
        "calls",
        "--bots model replies that named no valid option, by decision point",
    ),
    c(
        "gatecrew_model_bot_fallbacks_total",
        "calls",
        "--bots model decisions left to the scripted core, by decision point",
    ),
    c("gatecrew_executor_calls_total", "calls", "Modelled executor calls, by call kind"),
    c("gatecrew_executor_mistakes_total", "calls", "Modelled executor calls that went wrong, by call kind"),
    c(
        "gatecrew_executor_lines_scrolled_out_total",
        "lines",
        "Teammate lines dropped from an executor's prompt window, oldest first",
    ),
    c("gatecrew_executor_wrong_blocks_total", "blocks", "Blocks an executor mistake placed as the wrong block"),
    c(
        "gatecrew_mc_placements_not_made_total",
        "placements",
        "Placements on a Minecraft server whose block did not appear when read back",
    ),
    c(
        "gatecrew_mc_wrong_blocks_total",
        "blocks",
        "Placements on a Minecraft server that put another block than the cell's",
    ),
    c(
        "gatecrew_adjudicator_breaker_transitions_total",
        "transitions",
        "Adjudicator circuit-breaker transitions, by state entered",
    ),
    c(
        "gatecrew_adjudications_total",
        "adjudications",
        "Calls to the tier-3 adjudicator client, by outcome (model, fallback)",
    ),
    c("gatecrew_adjudication_fallbacks_total", "adjudications", "Adjudications decided by the fallback, by reason"),
    c(
        "gatecrew_adjudication_over_budget_total",
        "adjudications",
        "Adjudications whose tokens went over the configured budget",
    ),
    h("gatecrew_adjudication_latency_seconds", "seconds", "Wall seconds of each tier-3 adjudicator round trip"),
    h("gatecrew_adjudication_tokens", "tokens", "Prompt plus completion tokens of each tier-3 adjudication"),
    h(
        "gatecrew_bridge_overhead_seconds",
        "seconds",
        "Wall seconds a Minecraft bridge command took beyond its game time, by command",
    ),
    c("gatecrew_hitl_repairs_total", "repairs", "Plan flaws repaired in interactive sessions, by rule"),
    c("gatecrew_hitl_bad_counts_total", "requests", "Interactive goals asking for a count no bot can carry"),
    c(
        "gatecrew_hitl_validations_total",
        "validations",
        "Plan validations of interactive sessions, by whether they passed",
    ),
    c("gatecrew_hitl_llm_fallbacks_total", "utterances", "Utterances the intent model could not classify, by reason"),
    c("gatecrew_hitl_memory_writes_total", "writes", "Task-memory writes, by what was written (record, fact)"),
    h("gatecrew_hitl_classify_seconds", "seconds", "Wall seconds to classify one utterance, by classifier"),
    h("gatecrew_hitl_update_seconds", "seconds", "Wall seconds to apply one utterance to the plan, by operation"),
];

/// This process, read from `/proc/self` at each scrape (Prometheus' standard names).
pub const PROCESS: [Family; 7] = [
    g("process_resident_memory_bytes", "bytes", "Resident memory of this process"),
    g("process_resident_memory_max_bytes", "bytes", "Peak resident memory of this process so far"),
    g("process_virtual_memory_bytes", "bytes", "Virtual memory of this process"),
    c("process_cpu_seconds_total", "seconds", "CPU seconds this process has used, user and system"),
    g("process_threads", "threads", "Threads of this process"),
    g("process_open_fds", "fds", "Open file descriptors of this process"),
    g("process_start_time_seconds", "seconds", "When this process started, in seconds since the Unix epoch"),
];

/// The build, as labels.
pub const BUILD: Family = g("gatecrew_build_info", "info", "The gatecrew build, as labels; always 1");

/// Every family, for describing them all at install and for the tests.
pub fn all() -> impl Iterator<Item = &'static Family> {
    TRACE.iter().chain(LIBRARY.iter()).chain(PROCESS.iter()).chain(std::iter::once(&BUILD))
}
