//! The kitchen world actor: owns the episode core and drives the lockstep (see the
//! module docs of [`crate::kitchen`]).

use std::sync::Arc;

use gatecrew_kitchen::{Action, EpisodeCore, Line, StepReport, World};
use ractor::rpc::CallResult;
use ractor::{Actor, ActorProcessingErr, ActorRef, MessagingErr};

use super::messages::{CookMsg, DeskMsg, DispatcherMsg, Finished, KitchenWorldMsg};
use crate::messages::Cause;

/// The kitchen world actor.
pub struct KitchenWorldActor;

/// Who decides: the dispatcher, or the cooks and their desk.
#[derive(Clone)]
pub enum Deciders {
    /// One central planner.
    Central(ActorRef<DispatcherMsg>),
    /// A crew.
    Crew {
        /// One cook per agent, in agent-id order.
        cooks: Vec<ActorRef<CookMsg>>,
        /// Their shared desk.
        desk: ActorRef<DeskMsg>,
    },
}

/// The world actor's state: the episode (taken when it finishes) and who decides.
pub struct KitchenWorldState {
    core: Option<EpisodeCore>,
    deciders: Deciders,
}

/// A concurrent call's failure, as a cause.
fn failed<T, M>(r: Result<CallResult<T>, MessagingErr<M>>) -> Result<T, Cause> {
    match r {
        Ok(CallResult::Success(t)) => Ok(t),
        Ok(CallResult::Timeout) => Err("a kitchen actor timed out".into()),
        Ok(CallResult::SenderError) => Err("a kitchen actor stopped before answering".into()),
        Err(e) => Err(format!("a kitchen actor could not be reached: {e}").into()),
    }
}

impl Deciders {
    /// The intended actions of one step in `world`, and the lines written deciding them.
    async fn decide(&self, world: &Arc<World>) -> Result<(Vec<Action>, Vec<Line>), Cause> {
        match self {
            Deciders::Central(d) => Ok(ractor::call!(d, DispatcherMsg::Decide, Arc::clone(world))?),
            Deciders::Crew { cooks, desk } => {
                ractor::call!(desk, DeskMsg::Open, world.time())?;
                let mut actions = Vec::with_capacity(cooks.len());
                // One at a time, in agent-id order: a turn sees the desk as the turns
                // before it left it (see the module docs).
                for cook in cooks {
                    let turn = cook
                        .call(|reply| CookMsg::Turn { world: Arc::clone(world), desk: desk.clone(), reply }, None)
                        .await;
                    actions.push(failed(turn)?);
                }
                Ok((actions, ractor::call!(desk, DeskMsg::Lines)?))
            }
        }
    }

    /// Every decider learns what the step did; the cooks concurrently.
    async fn observe(&self, world: &Arc<World>, report: StepReport) -> Result<(), Cause> {
        let report = Arc::new(report);
        match self {
            Deciders::Central(d) => Ok(ractor::call!(d, DispatcherMsg::Observe, Arc::clone(world), report)?),
            Deciders::Crew { cooks, .. } => {
                let calls = cooks.iter().map(|c| c.call(|reply| CookMsg::Observe(Arc::clone(&report), reply), None));
                for r in futures::future::join_all(calls).await {
                    failed(r)?;
                }
                Ok(())
            }
        }
    }

    /// The policy's counts at the end.
    async fn counters(&self) -> Result<gatecrew_kitchen::Counters, Cause> {
        Ok(match self {
            Deciders::Central(d) => ractor::call!(d, DispatcherMsg::Counters)?,
            Deciders::Crew { desk, .. } => ractor::call!(desk, DeskMsg::Counters)?,
        })
    }
}

/// Runs `core` to its end with `deciders`.
async fn run(mut core: EpisodeCore, deciders: &Deciders) -> Result<Finished, Cause> {
    let mut world = Arc::new(core.world().clone());
    while !core.over() {
        let (intended, lines) = deciders.decide(&world).await?;
        let report = core.step(intended, &lines);
        world = Arc::new(core.world().clone());
        deciders.observe(&world, report).await?;
    }
    let counters = deciders.counters().await?;
    Ok(core.finish(counters))
}

impl Actor for KitchenWorldActor {
    type Msg = KitchenWorldMsg;
    type State = KitchenWorldState;
    type Arguments = (EpisodeCore, Deciders);

    async fn pre_start(
        &self,
        _myself: ActorRef<Self::Msg>,
        (core, deciders): Self::Arguments,
    ) -> Result<Self::State, ActorProcessingErr> {
        Ok(KitchenWorldState { core: Some(core), deciders })
    }

    async fn handle(
        &self,
        _myself: ActorRef<Self::Msg>,
        msg: Self::Msg,
        state: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            KitchenWorldMsg::Run(reply) => {
                let result = match state.core.take() {
                    Some(core) => run(core, &state.deciders).await,
                    None => Err("the kitchen episode was already run".into()),
                };
                let _ = reply.send(result);
            }
        }
        Ok(())
    }
}
