//! `gatecrew run --interactive`: a person talks to one bot while the crew works, on
//! the terminal (and over a websocket on 127.0.0.1), or from a scripted session file.

use std::path::PathBuf;

use anyhow::Context;
use gatecrew_crew::{ByAdjudicator, Finished, Observer, Progress, Resolver, Setup};
use gatecrew_gating::llm::BlockingLlm;
use gatecrew_hitl::classify::{Classify, ParserClassifier};
use gatecrew_hitl::driver::{Driver, Output, run_script};
use gatecrew_hitl::memory::TaskMemory;
use gatecrew_hitl::recipe::PlannerConfig;
use gatecrew_hitl::script::Script;
use gatecrew_hitl::session::{Partner, PartnerConfig};
use gatecrew_hitl_app::llm::LlmClassifier;
use gatecrew_hitl_app::memory::{Store, default_path};
use gatecrew_protocol::text::escape;
use gatecrew_protocol::trace::{Event, TraceWriter};
use gatecrew_protocol::{AgentId, Tick};

use crate::BadInput;
use crate::tier3::Tier3;
use crate::watch::TraceFile;

/// The flags of an interactive run.
#[derive(Debug, Clone, clap::Args)]
pub struct InteractiveArgs {
    /// Talk to one bot while the crew works: each chat line (terminal, --ws clients) becomes an intent on its plan
    #[arg(long)]
    pub interactive: bool,
    /// A scripted session instead of the terminal: lines `TICK text` or `+N text`
    #[arg(long, value_name = "FILE", requires = "interactive")]
    pub script: Option<PathBuf>,
    /// The bot the person talks to (its index) [default: 0, or a task's first human, whose
    /// seat the person then takes: their items, their yes or no to each request]
    #[arg(long, value_name = "N", requires = "interactive")]
    pub partner: Option<u32>,
    /// Lines closer than this many ticks are merged into one intent
    #[arg(long, value_name = "TICKS", default_value_t = 40, requires = "interactive")]
    pub merge_ticks: u64,
    /// Also take chat lines over a websocket on 127.0.0.1:PORT (0: a free port)
    #[arg(long, value_name = "PORT", requires = "interactive", conflicts_with = "script")]
    pub ws: Option<u16>,
    /// Wall-clock milliseconds per tick in a live session (1 to 60000)
    #[arg(long, value_name = "MS", default_value_t = 50, requires = "interactive", value_parser = crate::counts::between::<u64>(1, 60_000))]
    pub tick_ms: u64,
    /// Read no lines from the terminal (websocket clients only)
    #[arg(long, requires = "ws")]
    pub no_stdin: bool,
    /// Classify with the deterministic parser even when an LLM endpoint is configured
    #[arg(long, requires = "interactive")]
    pub parser: bool,
    /// Task-memory file [default: $GATECREW_DATA_DIR/memory.sqlite, else the user data directory]
    #[arg(long, value_name = "FILE")]
    pub memory_db: Option<PathBuf>,
    /// Keep no task memory
    #[arg(long, conflicts_with = "memory_db")]
    pub no_memory: bool,
}

/// What `run.rs`'s watch offers besides observing: printing a line.
pub trait Console: Observer {
    /// Prints a line for the person.
    fn line(&mut self, text: String);
}

/// The trace, the console and the partner's lines.
struct Out<'a> {
    console: &'a mut dyn Console,
    writer: TraceWriter<TraceFile>,
    error: Option<std::io::Error>,
}

impl Observer for Out<'_> {
    fn event(&mut self, ev: &Event) {
        if self.error.is_none() {
            if let Err(e) = self.writer.write(ev) {
                self.error = Some(e);
            }
        }
        self.console.event(ev);
    }
    fn progress(&mut self, p: Progress) {
        self.console.progress(p);
    }
}

impl Output for Out<'_> {
    fn said(&mut self, t: Tick, agent: AgentId, text: &str) {
        self.console.line(format!("  t={:<6} {agent}> {}", t.0, escape(text)));
    }
}

/// The trace alone, for the live session's episode thread; events are kept for the
/// console's figures afterwards.
struct Recorder {
    writer: TraceWriter<TraceFile>,
    events: Vec<Event>,
    error: Option<std::io::Error>,
}

impl Observer for Recorder {
    fn event(&mut self, ev: &Event) {
        if self.error.is_none() {
            if let Err(e) = self.writer.write(ev) {
                self.error = Some(e);
            }
        }
        self.events.push(ev.clone());
    }
}

impl Output for Recorder {
    fn said(&mut self, _: Tick, _: AgentId, _: &str) {}
}

fn resolver(t: Tier3) -> anyhow::Result<Box<dyn Resolver + Send>> {
    Ok(match t {
        Tier3::Deterministic(d) => Box::new(ByAdjudicator(d)),
        Tier3::Replay(r) => Box::new(r),
        Tier3::Live(c) => Box::new(ByAdjudicator(BlockingLlm::new(*c)?)),
    })
}

/// Opens the task memory the flags name (none with `--no-memory`).
pub fn open_memory(args: &InteractiveArgs) -> anyhow::Result<Option<Store>> {
    if args.no_memory {
        return Ok(None);
    }
    let path = match &args.memory_db {
        Some(p) => p.clone(),
        None => default_path().map_err(|e| BadInput(e.to_string()))?,
    };
    Ok(Some(Store::open(&path).map_err(|e| BadInput(e.to_string()))?))
}

/// The agent the person speaks for: `--partner`, else a task's first human, else bot 0.
fn seat_of(args: &InteractiveArgs, setup: &Setup) -> u32 {
    let first_human = setup.labels.builders(setup.world.agent_count());
    args.partner.unwrap_or(if setup.labels.humans.is_empty() { 0 } else { first_human as u32 })
}

/// Checks the flags against the episode before any file is written.
pub fn check(args: &InteractiveArgs, setup: &Setup) -> anyhow::Result<()> {
    let n = u32::try_from(setup.world.agent_count()).unwrap_or(u32::MAX);
    let index = seat_of(args, setup);
    if index >= n {
        return Err(BadInput(format!("--partner {index}: the crew has bots 0..{}", n.saturating_sub(1))).into());
    }
    if let Some(path) = &args.script {
        Script::load(path).map_err(|e| BadInput(e.to_string()))?;
    }
    Ok(())
}

/// Checks the flags of an interactive session on a server: the person types in the
/// game's chat, so there is no script, terminal or websocket to read.
pub fn check_minecraft(args: &InteractiveArgs) -> anyhow::Result<()> {
    if args.script.is_some() || args.ws.is_some() {
        return Err(BadInput(
            "--script and --ws do not go with --world minecraft: the person types in the game's chat".into(),
        )
        .into());
    }
    Ok(())
}

/// `--interactive --world minecraft`: the person plays on the server and talks to the
/// partner bot in the game's chat; the episode runs in the server's game time.
pub fn run_minecraft(
    args: &InteractiveArgs,
    setup: &Setup,
    opts: &gatecrew_mcworld::McOptions,
    file: TraceFile,
    console: &mut dyn Console,
) -> anyhow::Result<(Finished, crate::minecraft::McSummary)> {
    check_minecraft(args)?;
    if seat_of(args, setup) as usize >= setup.labels.builders(setup.world.agent_count()) {
        return Err(BadInput("--interactive --world minecraft: a human's seat is not played on a server".into()).into());
    }
    let partner = partner(args, setup)?;
    let me = partner.agent();
    console.line(format!("talking to {me}: join the server and type in the game's chat; leave it to end the session"));
    let mut talk = gatecrew_mcworld::partner::Talk::new(partner);
    let ran = crate::minecraft::run_with(setup, opts, file, console, Some(&mut talk))?;
    for who in talk.people() {
        console.line(format!("  {} talked to {me}", escape(who)));
    }
    Ok(ran)
}

fn partner(args: &InteractiveArgs, setup: &Setup) -> anyhow::Result<Partner> {
    check(args, setup)?;
    let agent = AgentId(seat_of(args, setup));
    let classifier: Box<dyn Classify> = match &setup.llm {
        Some(spec) if spec.url.is_some() && !args.parser => {
            Box::new(LlmClassifier::new(spec.clone()).map_err(|e| BadInput(e.to_string()))?)
        }
        _ => Box::new(ParserClassifier),
    };
    let store = open_memory(args)?.map(|s| Box::new(s) as Box<dyn TaskMemory>);
    let cfg = PartnerConfig {
        agent,
        merge_ticks: args.merge_ticks,
        planner: PlannerConfig::default(),
        world: setup.name.clone(),
        run: format!("{}-s{}", setup.name, setup.seed),
    };
    Partner::new(cfg, setup, classifier, store).map_err(|e| anyhow::anyhow!(e))
}

/// Runs the interactive episode; the caller prints the report.
pub fn run(
    args: &InteractiveArgs,
    setup: &Setup,
    file: TraceFile,
    console: &mut dyn Console,
    tier3: Tier3,
) -> anyhow::Result<Finished> {
    let partner = partner(args, setup)?;
    let writer = TraceWriter::new(file);
    let resolver = resolver(tier3)?;
    match &args.script {
        Some(path) => {
            let script = Script::load(path).map_err(|e| BadInput(e.to_string()))?;
            console.line(format!("scripted session: {} lines from {}", script.lines.len(), path.display()));
            let mut out = Out { console, writer, error: None };
            let (finished, _) = run_script(setup, partner, &script, resolver, &mut out)?;
            out.writer.flush().context("writing the trace")?;
            if let Some(e) = out.error {
                return Err(e).context("writing the trace");
            }
            Ok(finished)
        }
        None => {
            let driver = Driver::new(setup, partner, resolver);
            let live = gatecrew_hitl_app::live::Live {
                tick_ms: args.tick_ms,
                ws: args.ws.map(|p| std::net::SocketAddr::from(([127, 0, 0, 1], p))),
            };
            let seat = seat_of(args, setup);
            let who = match setup
                .labels
                .humans
                .get((seat as usize).wrapping_sub(setup.labels.builders(setup.world.agent_count())))
            {
                Some(name) if driver.seated() => {
                    format!("you are {name} (bot{seat}'s seat): answer requests with give or no")
                }
                _ => format!("talking to bot{seat}"),
            };
            console.line(format!(
                "{who} (type a line; {} or end of input ends the session)",
                gatecrew_hitl_app::live::QUIT
            ));
            let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting tokio")?;
            let rec = Recorder { writer, events: Vec::new(), error: None };
            let stdin = (!args.no_stdin).then(|| tokio::io::BufReader::new(tokio::io::stdin()));
            let end = {
                let mut show = |l: &str| console.line(format!("  {}", escape(l)));
                rt.block_on(gatecrew_hitl_app::live::run_live(driver, live, stdin, rec, &mut show))?
            };
            let mut rec = end.out;
            rec.writer.flush().context("writing the trace")?;
            if let Some(e) = rec.error {
                return Err(e).context("writing the trace");
            }
            for ev in &rec.events {
                console.event(ev);
            }
            Ok(end.finished)
        }
    }
}
