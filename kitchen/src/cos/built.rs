//! CoS rows of a policy the caller builds, at the factors the caller picks: the path of
//! the dispatcher over a real model (`gatecrew cos --llm-url`), whose policy holds a
//! client the kitchen does not know, and whose calls are too slow to spend on five
//! factors when one is asked for. The episodes are the same loop as every other
//! ([`super::run`]); a live model's traces say so in their id (`-live-`) and in
//! `kitchen_start`'s `live_model`.

use std::sync::Arc;

use super::run::{prepare, run_loop, start_info};
use super::{CosRow, EpisodeOutcome, RunSpec};
use crate::level::Level;
use crate::policy::{Policy, PolicyKind};
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
    pub build: &'a dyn Fn(&World, u32) -> Box<dyn Policy>,
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
    for &factor in b.factors {
        let (world, steps, mut exec) = prepare(book, level, factor, spec);
        let mut info = start_info(b.policy, factor, spec, level);
        info.live_model = b.live_model;
        let mut pol = (b.build)(&world, steps);
        let out = match traces {
            None => run_loop(world, pol.as_mut(), b.policy.as_str(), factor, steps, exec.as_mut(), None),
            Some(t) => {
                let (mut rec, path) = t.recorder(episode_id(&level.name, spec.agents, &info))?;
                rec.start(&world, &info);
                let out =
                    run_loop(world, pol.as_mut(), b.policy.as_str(), factor, steps, exec.as_mut(), Some(&mut rec));
                rec.finish().map_err(|source| TraceWriteError { path, source })?;
                out
            }
        };
        each(&out);
        episodes.push(out);
    }
    Ok(CosRow::from_episodes(&level.name, b.policy, spec.clone(), episodes))
}
