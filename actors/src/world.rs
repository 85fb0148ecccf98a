//! The world actor: owns the episode core and drives the lockstep.

use gatecrew_crew::agent::{StepInput, StepOutput};
use gatecrew_crew::{Answer, Episode, Finished, Need, Progress, Stepped};
use gatecrew_protocol::AgentId;
use gatecrew_protocol::trace::Event;
use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use ractor_cluster_derive::RactorMessage;
use tokio::sync::mpsc::UnboundedSender;

use crate::board::BoardMsg;
use crate::consult::{Consultant, Consults};
use crate::messages::{AgentHandle, AgentMsg, CrewMsg};
use crate::recorder::RecorderMsg;

/// What a running episode reports to an observer (a progress bar, a test).
#[derive(Debug, Clone)]
pub enum Tap {
    /// Trace events, in order.
    Events(Vec<Event>),
    /// Blocks in place after a step.
    Progress(Progress),
}

/// The world actor.
pub struct WorldActor;

/// Messages to the world.
#[derive(RactorMessage)]
pub enum WorldMsg {
    /// Run the episode to its end; replies when the trace is complete.
    Run(RpcReplyPort<Result<Finished, Err>>),
}

/// What the world actor works with.
pub struct WorldState {
    episode: Option<Episode>,
    board: ActorRef<BoardMsg>,
    crew: ActorRef<CrewMsg>,
    recorder: ActorRef<RecorderMsg>,
    tap: Option<UnboundedSender<Tap>>,
    consults: Consults,
}

/// Arguments: the episode and the actors it talks to.
pub struct WorldArgs {
    /// The episode core.
    pub episode: Episode,
    /// The board actor, answering the episode's posts and expiries.
    pub board: ActorRef<BoardMsg>,
    /// The crew supervisor.
    pub crew: ActorRef<CrewMsg>,
    /// Where each round's trace events go, in order.
    pub recorder: ActorRef<RecorderMsg>,
    /// Where to report progress.
    pub tap: Option<UnboundedSender<Tap>>,
    /// The tier-3 adjudicator for consults.
    pub consultant: Consultant,
}

type Err = crate::messages::Cause;

impl WorldState {
    async fn agents(&self, n: usize) -> Result<Vec<AgentHandle>, Err> {
        let mut v = Vec::with_capacity(n);
        for i in 0..n {
            v.push(ractor::call!(self.crew, |reply| CrewMsg::Agent {
                id: AgentId(i as u32),
                newer_than: None,
                reply
            })?);
        }
        Ok(v)
    }

    /// Steps one agent; if its actor fails, waits for the supervisor's restart and has
    /// the new actor step the same input again (its journal kept it, without the
    /// fault). Returns the output and the new handle, if there was a restart.
    async fn step(
        crew: ActorRef<CrewMsg>,
        handle: AgentHandle,
        input: StepInput,
    ) -> Result<(StepOutput, Option<AgentHandle>), Err> {
        let first = handle.actor.call(|reply| AgentMsg::Step(Box::new(input), reply), None).await;
        if let Ok(ractor::rpc::CallResult::Success(out)) = first {
            return Ok((out, None));
        }
        let fresh = ractor::call!(crew, |reply| CrewMsg::Agent {
            id: handle.agent,
            newer_than: Some(handle.generation),
            reply
        })?;
        let out = ractor::call!(fresh.actor, AgentMsg::Resume)?;
        Ok((out, Some(fresh)))
    }

    async fn run(&mut self) -> Result<Finished, Err> {
        let mut episode = self.episode.take().ok_or("the episode already ran")?;
        let n = episode.world().agent_count();
        let mut agents = self.agents(n).await?;
        loop {
            let answer = match episode.poll() {
                Need::Deadline => Answer::Deadline(ractor::call!(self.board, BoardMsg::NextDeadline)?),
                Need::Adjudicate(reqs) => Answer::Adjudicated(self.consults.resolve(reqs).await?),
                Need::Expire(now) => Answer::Expired(ractor::call!(self.board, BoardMsg::Expire, now)?),
                Need::Post { from, msg, now } => {
                    Answer::Posted(ractor::call!(self.board, |reply| BoardMsg::Post { caller: from, msg, now, reply })?)
                }
                Need::Outside(_) => Answer::Ready,
                Need::Step(inputs) => Answer::Stepped(self.step_all(&mut agents, inputs).await?),
                Need::Flush => {
                    self.consults.start(&mut episode);
                    self.emit(&mut episode)?;
                    Answer::Ready
                }
                Need::Over(_) => {
                    self.consults.abort_all();
                    Answer::Ready
                }
                Need::Done(finished) => return Ok(finished),
            };
            episode.answer(answer);
        }
    }

    /// Every awake agent thinks at once; the episode applies the answers in id order.
    async fn step_all(
        &self,
        agents: &mut [AgentHandle],
        inputs: Vec<(AgentId, StepInput)>,
    ) -> Result<Vec<Stepped>, Err> {
        let steps = inputs.into_iter().map(|(id, input)| {
            let crew = self.crew.clone();
            let handle = agents[id.index()].clone();
            async move { (id, Self::step(crew, handle, input).await) }
        });
        let mut out = Vec::new();
        for (id, r) in futures::future::join_all(steps).await {
            let (output, restarted) = r?;
            let restarted = restarted.map(|h| {
                let cause = h.cause.clone().unwrap_or_else(|| "failure".into());
                agents[id.index()] = h;
                cause
            });
            out.push(Stepped { agent: id, output, restarted });
        }
        Ok(out)
    }

    fn emit(&self, episode: &mut Episode) -> Result<(), Err> {
        let events = episode.drain();
        if let Some(tap) = &self.tap {
            if !events.is_empty() {
                let _ = tap.send(Tap::Events(events.clone()));
            }
            let _ = tap.send(Tap::Progress(episode.progress()));
        }
        if !events.is_empty() {
            self.recorder.cast(RecorderMsg::Record(events))?;
        }
        Ok(())
    }
}

impl Actor for WorldActor {
    type Msg = WorldMsg;
    type State = WorldState;
    type Arguments = WorldArgs;

    async fn pre_start(&self, _myself: ActorRef<Self::Msg>, a: WorldArgs) -> Result<Self::State, ActorProcessingErr> {
        Ok(WorldState {
            episode: Some(a.episode),
            board: a.board,
            crew: a.crew,
            recorder: a.recorder,
            tap: a.tap,
            consults: Consults::new(a.consultant),
        })
    }

    async fn handle(
        &self,
        _myself: ActorRef<Self::Msg>,
        msg: Self::Msg,
        state: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            WorldMsg::Run(reply) => {
                use tracing::Instrument;
                let span = tracing::info_span!("episode", runtime = "actors");
                let result = state.run().instrument(span).await;
                let _ = reply.send(result);
            }
        }
        Ok(())
    }
}
