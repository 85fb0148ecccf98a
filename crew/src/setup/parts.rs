//! Building a [`Setup`] from its pieces, without a crew config file: the path importers
//! of other systems' task files take (and the config loader too, once it has read its
//! file). The checks that concern the pieces together live here: the blueprint fits the
//! world, crashes name existing agents; the work split and the task graph are derived.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use gatecrew_gating::GateParams;
use gatecrew_protocol::BoardConfig;
use gatecrew_protocol::trace::TaskScores;
use gatecrew_world::{Blueprint, GameData, LoadError, LoadErrorKind, World};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::{EpisodeSpec, FaultSpec, Labels, Setup, SetupError, check_blueprint_fits};
use crate::agent::AgentTuning;
use crate::plan::{build, split_work};

/// Scores an episode's final world the way another system does (MindCraft's per-block
/// accuracy, VillagerBench's block recall). Only episodes imported from such a system's
/// task file have one; its figures go into `episode_end`.
pub trait EndScorer: Send + Sync + fmt::Debug {
    /// Scores the world as it is at the end.
    fn score(&self, world: &World) -> TaskScores;
}

/// The pieces of a [`Setup`].
#[derive(Debug, Clone)]
pub struct SetupParts {
    /// Name, seed, tick limit, policy, oracle budget.
    pub episode: EpisodeSpec,
    /// Game data.
    pub data: Arc<GameData>,
    /// What to build.
    pub blueprint: Arc<Blueprint>,
    /// The world at tick 0 with the bots added (ids dense from 0).
    pub world: World,
    /// Gate parameters, checked.
    pub gate: GateParams,
    /// Board timing.
    pub board: BoardConfig,
    /// Agent tuning.
    pub tuning: AgentTuning,
    /// The faults to inject (none by default): crashes, drops, delays, mutes.
    pub faults: FaultSpec,
    /// Hash of the resolved configuration ([`config_hash`]).
    pub config_hash: String,
    /// Suite labels.
    pub labels: Labels,
    /// Scores beside TSR at the end, for imported tasks.
    pub scorer: Option<Arc<dyn EndScorer>>,
}

/// The first 8 bytes of the SHA-256 of a value's canonical JSON, in hex.
pub fn config_hash(resolved: &impl Serialize) -> String {
    let canonical = serde_json::to_vec(resolved).unwrap_or_default();
    Sha256::digest(&canonical).iter().take(8).map(|b| format!("{b:02x}")).collect()
}

impl Setup {
    /// Assembles a setup; `path` names the file the pieces came from in errors.
    pub fn from_parts(parts: SetupParts, path: &Path) -> Result<Setup, SetupError> {
        let SetupParts {
            episode,
            data,
            blueprint,
            mut world,
            gate,
            board,
            tuning,
            faults,
            config_hash,
            labels,
            scorer,
        } = parts;
        check_blueprint_fits(&blueprint, &world, path)?;
        world.set_failure_rate(faults.action_failure_rate);
        if faults.path_block_rate > 0.0 {
            // A block that bars a path must be one a bot can mine away: solid, one
            // cell tall and breakable (water, doors and bedrock were accepted).
            let minable = |b: &gatecrew_world::BlockId| {
                let info = data.block_info(*b);
                info.solid && !info.passable && info.height == 1 && info.hardness.is_some_and(|h| h >= 0.0)
            };
            let block = data.block(&faults.path_block).filter(minable).ok_or_else(|| {
                LoadError::new(
                    path,
                    LoadErrorKind::Invalid(format!(
                        "{:?} is not a solid, one-cell block a bot can mine (the path block must be)",
                        faults.path_block
                    )),
                )
                .at("faults.path_block")
            })?;
            world.set_path_blocks(faults.path_block_rate, block);
        }
        world.set_keep_clear(blueprint.cells().iter().map(|c| c.pos));
        let agents = world.agent_count();
        if agents == 0 {
            return Err(LoadError::new(path, LoadErrorKind::Invalid("a crew needs at least one bot".into())).into());
        }
        for a in &faults.mute {
            if *a as usize >= agents {
                return Err(LoadError::new(path, LoadErrorKind::Invalid(format!("agent {a} does not exist")))
                    .at("faults.mute")
                    .into());
            }
        }
        for c in &faults.crash {
            if c.agent as usize >= agents {
                return Err(LoadError::new(path, LoadErrorKind::Invalid(format!("agent {} does not exist", c.agent)))
                    .at("faults.crash")
                    .into());
            }
        }
        if labels.humans.len() >= agents {
            return Err(LoadError::new(
                path,
                LoadErrorKind::Invalid("a crew needs at least one bot besides its humans".into()),
            )
            .into());
        }
        let owners = split_work(&blueprint, labels.builders(agents));
        let plan = build(&blueprint, &owners, agents, &data);
        Ok(Setup {
            name: episode.name,
            seed: episode.seed,
            tick_limit: episode.tick_limit,
            policy: episode.policy,
            oracle_ticks: episode.oracle_ticks,
            data,
            blueprint,
            world,
            gate,
            board,
            tuning,
            faults,
            plan,
            config_hash,
            labels,
            scorer,
            llm: None,
            probe: None,
            executor: crate::executor::Executor::Scripted,
            model_bots: None,
            seat: None,
        })
    }
}
