//! Loading a crew config (TOML) into a ready-to-run episode [`Setup`].
//!
//! ```toml
//! blueprint = "blueprints/house.toml"     # relative to this file
//! data = "data/minecraft-1.20.4.json"     # default
//! [episode]
//! seed = 7
//! policy = "gated"
//! [gate]        # weights and thresholds, checked against the hierarchy
//! [board]       # window_ticks, handover_ticks, ring (addressees per request, 1-8, default 4)
//! [agent]       # patience and retries
//! [faults]      # action_failure_rate, path_block_rate, path_block, message_drop_rate,
//!               # message_delay_rate, message_delay_ticks, message_duplicate_rate,
//!               # crash_rate, crash = [{ agent = 1, tick = 300 }], mute = [2]
//! [llm]         # tier 3 over an OpenAI-compatible endpoint (gatecrew_gating::llm::LlmSpec):
//!               # url, model, api_key_env (the variable's NAME), timeout_ms, max_tokens,
//!               # output = "json_schema" | "grammar" | "none", confidence_floor,
//!               # fallback = "deterministic" | "stay_local", verdict_delay_ticks,
//!               # breaker = { failures, half_open_ticks }
//! [executor]    # kind = "scripted" | "llm", profile, context_lines, error_scale
//!               # (see crate::executor)
//! [world]       # bounds, rules, terrain, chests (see gatecrew_world::scenario)
//! [[agents]]    # start and inventory, one per bot
//! ```
//!
//! Every error names the file and the line or key at fault.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatecrew_gating::llm::{EpisodeTerms, LlmSpec};
use gatecrew_gating::{Gate, GateParams, GatePolicy, GateSpec};
use gatecrew_protocol::{AgentId, BoardConfig, ItemId, Pos};
use gatecrew_world::scenario::{AgentSpec, ItemCounts, Source, WorldSpec};
use gatecrew_world::{Blueprint, GameData, Inventory, LoadError, LoadErrorKind, World};
use serde::{Deserialize, Serialize};
use toml::Spanned;

use crate::agent::{AgentCore, AgentFactory, AgentSetup, AgentTuning, Physics};
use crate::plan::TaskGraph;
use crate::policy::Policy;

mod deal;
mod parts;
pub use deal::{deal, share_needs};

pub use parts::{EndScorer, SetupParts, config_hash};

/// The `[episode]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EpisodeSpec {
    /// Episode id in the trace.
    pub name: String,
    /// The seed of the world's RNG.
    pub seed: u64,
    /// The episode ends at this tick at the latest.
    pub tick_limit: u64,
    /// The coordination policy.
    pub policy: Policy,
    /// Budget of the local-recovery oracle recorded for UER, in ticks.
    pub oracle_ticks: u64,
    /// Suite class (A..D or standard), written into the trace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<gatecrew_protocol::trace::SuiteClass>,
    /// Suite template, written into the trace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    /// Suite split, written into the trace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split: Option<gatecrew_protocol::trace::Split>,
}

impl Default for EpisodeSpec {
    fn default() -> Self {
        EpisodeSpec {
            name: "episode".into(),
            seed: 7,
            tick_limit: 24_000,
            policy: Policy::Gated,
            oracle_ticks: 600,
            class: None,
            template: None,
            split: None,
        }
    }
}

/// A scheduled agent crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrashSpec {
    /// Which agent.
    pub agent: u32,
    /// At its first wake-up at or after this tick.
    pub tick: u64,
}

/// The `[faults]` section (DESIGN section 3). Every fault is drawn from seeded RNGs, so
/// a faulted episode replays byte for byte. Fields left at their defaults stay out of
/// the config hash, so configs without faults keep the hash they always had.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FaultSpec {
    /// Probability that an action fails with an injected fault.
    pub action_failure_rate: f64,
    /// Probability that a walk finds its path barred by a block dropped onto it.
    #[serde(skip_serializing_if = "is_zero")]
    pub path_block_rate: f64,
    /// The block that bars a path (mineable, like terrain).
    #[serde(skip_serializing_if = "is_default_path_block")]
    pub path_block: String,
    /// Probability that a board message is lost on the way.
    #[serde(skip_serializing_if = "is_zero")]
    pub message_drop_rate: f64,
    /// Probability that a board message reaches the board `message_delay_ticks` late.
    #[serde(skip_serializing_if = "is_zero")]
    pub message_delay_rate: f64,
    /// How late a delayed message arrives.
    #[serde(skip_serializing_if = "is_default_delay")]
    pub message_delay_ticks: u64,
    /// Probability that a board message is sent twice.
    #[serde(skip_serializing_if = "is_zero")]
    pub message_duplicate_rate: f64,
    /// Probability that an agent's actor panics at any one of its steps.
    #[serde(skip_serializing_if = "is_zero")]
    pub crash_rate: f64,
    /// Agent actor crashes at chosen ticks.
    pub crash: Vec<CrashSpec>,
    /// Agents cut off the board both ways: their board messages are never delivered,
    /// and no board news or manager directive reaches them.
    pub mute: Vec<u32>,
}

/// The largest crew `--agents` builds: crews of 10,000 bots, the largest scale the engine
/// is built and measured for.
pub const MAX_CREW: usize = 10_000;
// Every id of the largest crew reads back from its trace.
const _: () = assert!(MAX_CREW < gatecrew_protocol::AgentId::LIMIT as usize);

const DEFAULT_PATH_BLOCK: &str = "cobblestone";
const DEFAULT_DELAY_TICKS: u64 = 20;

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

fn is_default_path_block(s: &str) -> bool {
    s == DEFAULT_PATH_BLOCK
}

fn is_default_delay(t: &u64) -> bool {
    *t == DEFAULT_DELAY_TICKS
}

impl Default for FaultSpec {
    fn default() -> Self {
        FaultSpec {
            action_failure_rate: 0.0,
            path_block_rate: 0.0,
            path_block: DEFAULT_PATH_BLOCK.to_owned(),
            message_drop_rate: 0.0,
            message_delay_rate: 0.0,
            message_delay_ticks: DEFAULT_DELAY_TICKS,
            message_duplicate_rate: 0.0,
            crash_rate: 0.0,
            crash: Vec::new(),
            mute: Vec::new(),
        }
    }
}

impl FaultSpec {
    /// Whether any board-message fault is on.
    pub fn message_faults(&self) -> bool {
        self.message_drop_rate > 0.0 || self.message_delay_rate > 0.0 || self.message_duplicate_rate > 0.0
    }

    /// The first setting out of range, as its key and why.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        let rates = [
            ("action_failure_rate", self.action_failure_rate),
            ("path_block_rate", self.path_block_rate),
            ("message_drop_rate", self.message_drop_rate),
            ("message_delay_rate", self.message_delay_rate),
            ("message_duplicate_rate", self.message_duplicate_rate),
            ("crash_rate", self.crash_rate),
        ];
        for (key, r) in rates {
            if !(0.0..=1.0).contains(&r) {
                return Err((key, format!("{r} is not a probability in [0, 1]")));
            }
        }
        if self.action_failure_rate + self.path_block_rate > 1.0 {
            return Err(("path_block_rate", "action_failure_rate + path_block_rate exceeds 1".into()));
        }
        let msg = self.message_drop_rate + self.message_delay_rate + self.message_duplicate_rate;
        if msg > 1.0 {
            return Err(("message_duplicate_rate", format!("the three message fault rates add up to {msg} > 1")));
        }
        if !(1..=10_000).contains(&self.message_delay_ticks) {
            return Err(("message_delay_ticks", format!("{} is not in 1..=10000", self.message_delay_ticks)));
        }
        Ok(())
    }
}

fn default_data() -> PathBuf {
    PathBuf::from("data/minecraft-1.20.4.json")
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct CrewFile {
    #[serde(default)]
    episode: EpisodeSpec,
    #[serde(default = "default_data")]
    data: PathBuf,
    blueprint: PathBuf,
    #[serde(default)]
    gate: GateSpec,
    #[serde(default)]
    board: BoardConfig,
    #[serde(default)]
    agent: AgentTuning,
    #[serde(default)]
    faults: FaultSpec,
    #[serde(default)]
    llm: Option<LlmSpec>,
    #[serde(default)]
    executor: crate::executor::ExecutorSpec,
    #[serde(default)]
    bots: crate::bots::BotsSpec,
    world: WorldSpec,
    agents: Vec<AgentSpec>,
}

/// Command-line overrides of a config.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    /// Another blueprint file.
    pub blueprint: Option<PathBuf>,
    /// Another seed.
    pub seed: Option<u64>,
    /// Another crew size.
    pub agents: Option<usize>,
    /// Another policy.
    pub policy: Option<Policy>,
    /// Other gate parameters (checked against the hierarchy like the config's).
    pub gate: Option<GateSpec>,
    /// Another LLM endpoint (turns tier-3 consults on).
    pub llm_url: Option<String>,
    /// Another LLM model name (turns tier-3 consults on).
    pub llm_model: Option<String>,
    /// Consult an external tier-3 adjudicator even without an `[llm]` section (its
    /// defaults apply): used to replay recorded adjudications.
    pub consult: bool,
    /// Another `[faults]` section, replacing the config's (`gatecrew run --faults`,
    /// and the soak, whose findings print it so that a run reproduces them).
    pub faults: Option<FaultSpec>,
    /// Another executor, resolved (`--executor`), replacing the config's `[executor]`.
    pub executor: Option<crate::executor::Executor>,
    /// Other bots (`--bots`), replacing the config's `[bots] kind`.
    pub bots: Option<crate::bots::BotsKind>,
}

/// A config that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SetupError {
    /// A file could not be loaded (names the file and the line or key).
    #[error("{0}")]
    Load(#[from] LoadError),
}

/// Everything an episode needs, checked.
#[derive(Debug, Clone)]
pub struct Setup {
    /// Episode id.
    pub name: String,
    /// Seeds every random draw (faults, ties): the same seed gives the same trace.
    pub seed: u64,
    /// Tick limit.
    pub tick_limit: u64,
    /// How the crew coordinates: the gate procedure and the coordination style.
    pub policy: Policy,
    /// Oracle budget.
    pub oracle_ticks: u64,
    /// Game data.
    pub data: Arc<GameData>,
    /// What to build: the cells progress and completion are judged against.
    pub blueprint: Arc<Blueprint>,
    /// The world at tick 0, with the bots.
    pub world: World,
    /// Gate parameters.
    pub gate: GateParams,
    /// Board timing.
    pub board: BoardConfig,
    /// Agent tuning.
    pub tuning: AgentTuning,
    /// The faults to inject (none by default): crashes, drops, delays, mutes.
    pub faults: FaultSpec,
    /// The crew's task graph (each agent gets a copy).
    pub plan: TaskGraph,
    /// Hash of the resolved configuration.
    pub config_hash: String,
    /// Suite labels, when the episode comes from a suite.
    pub labels: Labels,
    /// The tier-3 LLM adjudicator, when one is configured.
    pub llm: Option<LlmSpec>,
    /// Scores beside TSR, for episodes imported from another system's task file.
    pub scorer: Option<Arc<dyn EndScorer>>,
    /// Sees the world after every step, read-only (a live viewer's exact inventories);
    /// never part of the config or its hash, and never changes the trace.
    pub probe: Option<Arc<dyn crate::episode::probe::WorldProbe>>,
    /// What drives the bots' decisions: scripted (the default) or the `llm` model.
    pub executor: crate::executor::Executor,
    /// Model-driven bots' terms (`[bots] kind = "model"`); `None` for scripted bots.
    pub model_bots: Option<crate::bots::ModelBots>,
    /// The seat the model-driven bots ask, once attached ([`Setup::attach_seat`]).
    pub seat: Option<Arc<crate::bots::Seat>>,
}

/// Suite labels written into `episode_start`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Labels {
    /// Class A..D.
    pub class: Option<gatecrew_protocol::trace::SuiteClass>,
    /// Template name.
    pub template: Option<String>,
    /// Split name.
    pub split: Option<gatecrew_protocol::trace::Split>,
    /// What an imported task file describes that the blueprint does not hold as
    /// described, each with its JSON path (empty for configs and the suite).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Cells of an imported task left out because they can never be built (each also
    /// has its warning).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub cells_dropped: u32,
    /// Crew members that are people (a MineCollab task's humans), by name: the last
    /// agents of the world. They hold their own items and build no share.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub humans: Vec<String>,
}

impl Labels {
    /// Agents that take a share of the blueprint: every agent but the humans.
    pub fn builders(&self, agents: usize) -> usize {
        agents.saturating_sub(self.humans.len()).max(1)
    }
}

#[derive(Serialize)]
struct Resolved<'a> {
    data_version: &'a str,
    episode: &'a EpisodeSpec,
    gate: &'a GateSpec,
    board: &'a BoardConfig,
    agent: &'a AgentTuning,
    faults: &'a FaultSpec,
    // Absent without consults, so that configs without them keep their hash.
    #[serde(skip_serializing_if = "Option::is_none")]
    llm: Option<EpisodeTerms>,
    world: &'a WorldSpec,
    agents: &'a [AgentSpec],
    blueprint: Vec<(Pos, &'a str)>,
}

impl Setup {
    /// Loads a crew config, applying overrides.
    pub fn load(path: &Path, ov: &Overrides) -> Result<Setup, SetupError> {
        let text = gatecrew_protocol::limits::read_text_file(path)
            .map_err(|e| LoadError::new(path, LoadErrorKind::Io(e.to_string())))?;
        Self::parse(&text, path, ov)
    }

    /// Loads a crew config with game data already loaded (the config's `data` key is
    /// ignored): for suites, where hundreds of episodes share one data file.
    pub fn load_with_data(path: &Path, ov: &Overrides, data: Arc<GameData>) -> Result<Setup, SetupError> {
        let text = gatecrew_protocol::limits::read_text_file(path)
            .map_err(|e| LoadError::new(path, LoadErrorKind::Io(e.to_string())))?;
        Self::parse_inner(&text, path, ov, Some(data))
    }

    /// Parses a crew config's text; relative paths resolve against `path`'s folder.
    pub fn parse(text: &str, path: &Path, ov: &Overrides) -> Result<Setup, SetupError> {
        Self::parse_inner(text, path, ov, None)
    }

    /// [`Self::parse`] with game data already loaded.
    pub fn parse_with_data(text: &str, path: &Path, ov: &Overrides, data: Arc<GameData>) -> Result<Setup, SetupError> {
        Self::parse_inner(text, path, ov, Some(data))
    }

    fn parse_inner(text: &str, path: &Path, ov: &Overrides, data: Option<Arc<GameData>>) -> Result<Setup, SetupError> {
        let mut file: CrewFile = gatecrew_world::error::parse_toml(path, text)?;
        let base = path.parent().unwrap_or(Path::new("."));
        let data = match data {
            Some(d) => d,
            None => Arc::new(GameData::load(&base.join(&file.data)).map_err(|e| missing_file(e, "data", path, text))?),
        };
        let bp_path = ov.blueprint.clone().unwrap_or_else(|| base.join(&file.blueprint));
        let blueprint = Blueprint::load(&bp_path, &data);
        // A --blueprint flag is not in the config: only the config's own key gets its line.
        let blueprint = Arc::new(if ov.blueprint.is_some() {
            blueprint?
        } else {
            blueprint.map_err(|e| missing_file(e, "blueprint", path, text))?
        });
        if let Some(seed) = ov.seed {
            file.episode.seed = seed;
        }
        if let Some(policy) = ov.policy {
            file.episode.policy = policy;
        }
        if let Some(gate) = ov.gate {
            file.gate = gate;
        }
        if let Some(faults) = &ov.faults {
            file.faults = faults.clone();
        }
        let gate = GateParams::new(file.gate).map_err(|e| {
            let key = e.key();
            let err = LoadError::new(path, LoadErrorKind::Invalid(e.to_string())).at(key);
            match line_of_key(text, key.rsplit('.').next().unwrap_or(key)) {
                Some(l) => err.line(l),
                None => err,
            }
        })?;
        if gate.spec().experiment && !gate.keeps_hierarchy() {
            tracing::warn!(config = %path.display(), "experiment gate: the weight hierarchy is not enforced");
        }
        let bots_kind = ov.bots.unwrap_or(file.bots.kind);
        // Model-driven bots take --llm-url and --model for their seat: the gray zone
        // goes to an adjudicator only when the config has its own [llm] section.
        let llm = if bots_kind == crate::bots::BotsKind::Model {
            let seat_only = Overrides { llm_url: None, llm_model: None, ..ov.clone() };
            llm_spec(file.llm.clone(), &seat_only, path, text)?
        } else {
            llm_spec(file.llm.clone(), ov, path, text)?
        };
        if let Err((key, why)) = file.faults.check() {
            let err = LoadError::new(path, LoadErrorKind::Invalid(why)).at(format!("faults.{key}"));
            return Err(match line_of_key(text, key) {
                Some(l) => err.line(l),
                None => err,
            }
            .into());
        }
        if file.agents.is_empty() {
            return Err(LoadError::new(path, LoadErrorKind::Invalid("at least one [[agents]] entry is needed".into()))
                .at("agents")
                .into());
        }
        let src = Source::new(path, text);
        let mut agents = file.agents.clone();
        if let Some(n) = ov.agents {
            if n == 0 || n > MAX_CREW {
                return Err(LoadError::new(
                    path,
                    LoadErrorKind::Invalid(format!("--agents {n}: a crew has 1 to {MAX_CREW} bots")),
                )
                .into());
            }
            if n != agents.len() {
                agents = resize_crew(&agents, n, &blueprint, &data, &file.world, &src)?;
            }
        }
        let world = file.world.build(&data, &agents, file.episode.seed, &src)?;
        check_blueprint_fits(&blueprint, &world, &bp_path)?;
        let cells: Vec<(Pos, &str)> = blueprint.cells().iter().map(|c| (c.pos, data.block_name(c.block))).collect();
        let resolved = Resolved {
            data_version: &data.version,
            episode: &file.episode,
            gate: &file.gate,
            board: &file.board,
            agent: &file.agent,
            faults: &file.faults,
            llm: llm
                .as_ref()
                .filter(|_| crate::style::of(file.episode.policy).gate() == GatePolicy::Gated)
                .map(LlmSpec::episode_terms),
            world: &file.world,
            agents: &agents,
            blueprint: cells,
        };
        let config_hash = config_hash(&resolved);
        let parts = SetupParts {
            episode: file.episode.clone(),
            data: data.clone(),
            blueprint: blueprint.clone(),
            world,
            gate,
            board: file.board,
            tuning: file.agent,
            faults: file.faults.clone(),
            config_hash,
            labels: Labels {
                class: file.episode.class,
                template: file.episode.template.clone(),
                split: file.episode.split,
                ..Labels::default()
            },
            scorer: None,
        };
        let mut setup = Setup::from_parts(parts, path)?;
        setup.llm = llm;
        let executor = match &ov.executor {
            Some(e) => e.clone(),
            None => crate::executor::Executor::resolve(&file.executor, base).map_err(|e| {
                let err = LoadError::new(path, LoadErrorKind::Invalid(e.to_string())).at("executor");
                match line_of_key(text, "executor") {
                    Some(l) => err.line(l),
                    None => err,
                }
            })?,
        };
        setup.set_executor(executor);
        let mut bots = file.bots.clone();
        if let Some(kind) = ov.bots {
            bots.kind = kind;
        }
        let model_bots = crate::bots::ModelBots::resolve(&bots, base).map_err(|e| {
            let err = LoadError::new(path, LoadErrorKind::Invalid(e.to_string())).at("bots");
            match line_of_key(text, "bots") {
                Some(l) => err.line(l),
                None => err,
            }
        })?;
        setup.set_model_bots(model_bots);
        Ok(setup)
    }

    /// Runs the episode with model-driven bots under `terms` (`None`: scripted). Their
    /// terms enter the config hash; scripted bots leave it as it was.
    pub fn set_model_bots(&mut self, terms: Option<crate::bots::ModelBots>) {
        if let Some(t) = &terms {
            self.config_hash = config_hash(&(&self.config_hash, "bots", t));
        }
        self.model_bots = terms;
    }

    /// Gives the model-driven bots their seat: a live endpoint or a recorded trace.
    pub fn attach_seat(&mut self, endpoint: Arc<dyn crate::bots::Endpoint>, model: &str) {
        if let Some(t) = &self.model_bots {
            self.seat = Some(Arc::new(crate::bots::Seat::new(endpoint, t.clone(), model)));
        }
    }

    /// Runs the episode under `executor`. The `llm` executor's terms (its profile,
    /// window and error scale) enter the config hash; the scripted one leaves it as it
    /// was.
    pub fn set_executor(&mut self, executor: crate::executor::Executor) {
        if let Some(m) = executor.model() {
            self.config_hash = config_hash(&(&self.config_hash, m.terms()));
        }
        self.executor = executor;
    }

    /// Whether the gray zone goes to an external adjudicator: a `[llm]` section (or
    /// its command-line overrides) under the `gated` policy.
    pub fn consults(&self) -> bool {
        self.llm.is_some() && crate::style::of(self.policy).gate() == GatePolicy::Gated
    }

    /// Whether the agents park gray-zone issues for a verdict that enters later: with
    /// an external adjudicator, and under the `llm` executor, where the gated bot's own
    /// model judges the gray zone with a call that takes time and can go wrong
    /// (`crate::episode::consult`). Otherwise the gray zone settles at once in the core.
    pub fn parks_gray(&self) -> bool {
        self.consults()
            || (matches!(self.executor, crate::executor::Executor::Llm(_))
                && crate::style::of(self.policy).gate() == GatePolicy::Gated)
    }

    /// The crew roster.
    pub fn roster(&self) -> Vec<AgentId> {
        (0..self.world.agent_count() as u32).map(AgentId).collect()
    }

    /// Fresh agent cores, each with its own copy of the plan and its starting state.
    pub fn agents(&self) -> Vec<AgentCore> {
        self.agent_factory().build_all()
    }

    /// What builds the crew's agents at their starting state, as often as asked: the
    /// actors' supervisor rebuilds an agent from it instead of keeping a copy of each
    /// starting core.
    pub fn agent_factory(&self) -> AgentFactory {
        let roster: std::sync::Arc<[AgentId]> = self.roster().into();
        let bodies: Vec<(Pos, Inventory)> = roster
            .iter()
            .map(|&id| {
                let body = self.world.body(id).expect("roster comes from the world");
                (body.pos, body.inventory.clone())
            })
            .collect();
        let starts: Vec<Pos> = bodies.iter().map(|(pos, _)| *pos).collect();
        let regions = crate::agent::work_regions(&self.plan, &starts);
        // The world's extent is public like its rules: an exploring bot stays inside it.
        let physics =
            Physics { bounds: Some(self.world.grid().bounds()), ..Physics::new(self.world.rules(), &self.data) };
        // `id`, `start` and `inventory` here are placeholders the factory replaces per agent.
        let common = AgentSetup {
            id: AgentId(0),
            crew: roster,
            regions,
            data: self.data.clone(),
            blueprint: self.blueprint.clone(),
            plan: self.plan.clone(),
            kept_ground: crate::agent::kept_ground(&self.blueprint),
            gate: Gate::new(self.gate, crate::style::of(self.policy).gate()),
            policy: self.policy,
            tuning: self.tuning,
            physics,
            board: self.board,
            start: Pos::default(),
            inventory: Inventory::default(),
            consult: self.parks_gray(),
            seat: self.seat.clone(),
        };
        AgentFactory::new(common, bodies)
    }
}

/// The `[llm]` section with the command line's overrides, checked.
fn llm_spec(file: Option<LlmSpec>, ov: &Overrides, path: &Path, text: &str) -> Result<Option<LlmSpec>, LoadError> {
    let mut llm = file;
    if ov.consult || ov.llm_url.is_some() || ov.llm_model.is_some() {
        let spec = llm.get_or_insert_with(LlmSpec::default);
        if let Some(u) = &ov.llm_url {
            spec.url = Some(u.clone());
        }
        if let Some(m) = &ov.llm_model {
            spec.model = Some(m.clone());
        }
    }
    if let Some(spec) = &llm {
        spec.check().map_err(|e| {
            let err = LoadError::new(path, LoadErrorKind::Invalid(e.message.clone())).at(e.key);
            match line_of_key(text, e.key.rsplit('.').next().unwrap_or(e.key)) {
                Some(l) => err.line(l),
                None => err,
            }
        })?;
    }
    Ok(llm)
}

/// A file the config names under `key` that cannot be read is the config's fault, at
/// that key's line; any other error in that file stays about that file.
fn missing_file(e: LoadError, key: &str, config: &Path, text: &str) -> LoadError {
    let LoadErrorKind::Io(why) = e.kind() else {
        return e;
    };
    let err =
        LoadError::new(config, LoadErrorKind::Invalid(format!("cannot read {}: {why}", e.file().display()))).at(key);
    match line_of_key(text, key) {
        Some(l) => err.line(l),
        None => err,
    }
}

fn line_of_key(text: &str, key: &str) -> Option<usize> {
    text.lines().position(|l| l.trim_start().starts_with(key)).map(|i| i + 1)
}

fn check_blueprint_fits(bp: &Blueprint, world: &World, path: &Path) -> Result<(), LoadError> {
    let b = world.grid().bounds();
    if let Some(c) = bp.cells().iter().find(|c| !b.contains(c.pos)) {
        return Err(LoadError::new(
            path,
            LoadErrorKind::Invalid(format!("block at {} lies outside world.bounds", c.pos)),
        ));
    }
    if let Some(c) = bp.cells().iter().find(|c| world.block_at(c.pos) != gatecrew_world::BlockId::AIR) {
        return Err(LoadError::new(
            path,
            LoadErrorKind::Invalid(format!("the world already has a block at {}, where the blueprint builds", c.pos)),
        ));
    }
    Ok(())
}

/// A crew of another size than the config lists: the listed bots keep their starts,
/// extra bots start on a ring around the site, and the listed inventories are pooled
/// and dealt out by each bot's share of the blueprint (leftovers round-robin), so that
/// no item is created or lost.
fn resize_crew(
    listed: &[AgentSpec],
    n: usize,
    bp: &Blueprint,
    data: &Arc<GameData>,
    world: &WorldSpec,
    src: &Source,
) -> Result<Vec<AgentSpec>, LoadError> {
    let mut pool: BTreeMap<ItemId, u32> = BTreeMap::new();
    for (i, a) in listed.iter().enumerate() {
        for (item, c) in
            gatecrew_world::scenario::resolve_counts(&a.inventory, data, src, &format!("agents[{i}].inventory"))?
        {
            *pool.entry(item).or_insert(0) += c;
        }
    }
    let invs = deal(pool, bp, data, n);
    let kept = &listed[..listed.len().min(n)];
    let extra = extra_starts(kept, n - kept.len(), bp, data, world, src)?;
    Ok((0..n)
        .map(|a| {
            let start = listed.get(a).map_or_else(|| Spanned::new(0..0, extra[a - kept.len()]), |s| s.start.clone());
            let inventory: ItemCounts = invs[a]
                .iter()
                .map(|(i, c)| (Spanned::new(0..0, data.item_name(*i).to_owned()), Spanned::new(0..0, i64::from(*c))))
                .collect();
            AgentSpec { start, inventory }
        })
        .collect())
}

/// Starts for bots the config does not list: the free cells where a bot can stand on
/// square rings around the site, nearest ring first (Chebyshev distance 2 from the
/// blueprint's extent, then 3, ...), at the height of the first listed bot. Cells where
/// a listed bot starts are skipped. When the world holds fewer such cells than bots,
/// the rest share cells in the same order, as players may stand in one another in the
/// game; a warning says so.
fn extra_starts(
    kept: &[AgentSpec],
    count: usize,
    bp: &Blueprint,
    data: &Arc<GameData>,
    world: &WorldSpec,
    src: &Source,
) -> Result<Vec<Pos>, LoadError> {
    if count == 0 {
        return Ok(Vec::new());
    }
    // The world as built for the listed bots tells where one can stand (the seed drives
    // only the world's RNG, not where its blocks are, so any seed gives the same cells).
    let probe = world.build(data, kept, 0, src)?;
    let (lo, hi) = bp.extent().unwrap_or((Pos::new(0, 0, 0), Pos::new(0, 0, 0)));
    let y = kept.first().map_or(lo.y, |a| a.start.get_ref().y);
    let taken: BTreeSet<Pos> = kept.iter().map(|a| *a.start.get_ref()).collect();
    let b = world.bounds;
    let reach = (lo.x - b.min.x).max(b.max.x - hi.x).max(lo.z - b.min.z).max(b.max.z - hi.z).max(2);
    let mut out = Vec::with_capacity(count);
    'rings: for d in 2..=reach {
        let (x0, x1, z0, z1) = (lo.x - d, hi.x + d, lo.z - d, hi.z + d);
        let north = (x0..=x1).map(|x| (x, z0));
        let east = (z0 + 1..=z1).map(|z| (x1, z));
        let south = (x0..x1).rev().map(|x| (x, z1));
        let west = (z0 + 1..z1).rev().map(|z| (x0, z));
        for (x, z) in north.chain(east).chain(south).chain(west) {
            let p = Pos::new(x, y, z);
            if b.contains(p) && !taken.contains(&p) && probe.grid().standable(data, p) {
                out.push(p);
                if out.len() == count {
                    break 'rings;
                }
            }
        }
    }
    if out.is_empty() {
        return Err(LoadError::new(
            &src.path,
            LoadErrorKind::Invalid(format!("--agents: no free cell in world.bounds for {count} more bots to start at")),
        ));
    }
    if out.len() < count {
        tracing::warn!(
            bots = count,
            cells = out.len(),
            "the world has fewer free start cells than bots: some share a cell"
        );
        let free = out.len();
        for i in 0..count - free {
            out.push(out[i % free]);
        }
    }
    Ok(out)
}
