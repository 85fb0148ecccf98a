//! CoS rows of a policy the caller builds, at the factors the caller picks: the path of
//! the dispatcher over a real model (`gatecrew cos --llm-url`), whose policy holds a
//! client the kitchen does not know, and whose calls are too slow to spend on five
//! factors when one is asked for. The episodes are the same loop as every other
//! ([`super::run`]); a live model's traces say so in their id (`-live-`) and in
//! `kitchen_start`'s `live_model`.

use std::sync::Arc;

use super::episode::{EpisodeCore, Trace};
use super::run::{drive_core, start_info};
use super::{CosRow, EpisodeOutcome, RunSpec};
use crate::level::Level;
use crate::policy::{Policy, PolicyKind, Split};
use crate::recipe::RecipeBook;
use crate::trace::{TraceDir, TraceWriteError, episode_id};
use crate::world::World;

/// What [`cos_row_with`] runs beyond the spec.
pub struct Built<'a> {
    /// The policy's kind (its name in the rows and traces).
    pub policy: PolicyKind,
    /// The interval factors, one episode each (MindAgent's five: [`super::FACTORS`]).
    pub factors: &'a [f64],
    /// A fresh policy for an episode's world and its steps.
    pub build: &'a dyn Fn(&World, u32) -> Box<dyn Policy + Send>,
    /// The real model a dispatcher asks, for the traces.
    pub live_model: Option<&'a str>,
}

/// One level's row over `b.factors`; `each` sees every episode as it ends.
pub fn cos_row_with(
    book: &Arc<RecipeBook>,
    level: &Arc<Level>,
    spec: &RunSpec,
    b: &Built<'_>,
    traces: Option<&TraceDir>,
    each: &mut dyn FnMut(&EpisodeOutcome),
) -> Result<CosRow, TraceWriteError> {
    let mut episodes = Vec::with_capacity(b.factors.len());
    let steps = level.max_steps.unwrap_or(spec.horizon);
    for &factor in b.factors {
        let build = |w: &World| Split::one((b.build)(w, steps));
        let trace = Trace { on: traces.is_some(), live_model: b.live_model };
        let (core, mut deciders) = EpisodeCore::new(book, level, b.policy, factor, spec, &build, trace);
        let mut info = start_info(b.policy, factor, spec, level);
        info.live_model = b.live_model;
        let mut file = traces.map(|t| t.file(&episode_id(&level.name, spec.agents, &info))).transpose()?;
        let out = drive_core(core, &mut deciders, file.as_mut());
        if let Some(f) = file {
            f.finish()?;
        }
        each(&out);
        episodes.push(out);
    }
    Ok(CosRow::from_episodes(&level.name, b.policy, spec.clone(), episodes))
}
