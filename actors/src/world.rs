//! The world actor: owns the episode core and drives the lockstep.

use gatecrew_crew::agent::{StepInput, StepOutput};
use gatecrew_crew::{Answer, Episode, Finished, Need, Progress, Sight, Stepped};
use gatecrew_protocol::AgentId;
use gatecrew_protocol::trace::Event;
use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use ractor_cluster_derive::RactorMessage;
use tokio::sync::mpsc::UnboundedSender;

use crate::board::BoardMsg;
use crate::consult::{Consultant, Consults};
use crate::messages::{AgentHandle, AgentMsg, CrewMsg, StepReply};
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

/// The episode's one channel for the agents' answers (see [`StepReply`]).
struct Answers {
    tx: tokio::sync::mpsc::UnboundedSender<crate::messages::Answer>,
    rx: tokio::sync::mpsc::UnboundedReceiver<crate::messages::Answer>,
}

impl Answers {
    fn new() -> Self {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        Answers { tx, rx }
    }
}

impl WorldState {
    /// Steps every awake agent at once: one message to each, the answers back through
    /// the episode's one answer channel and put in input order. An agent that failed
    /// (its reply answered `None`) is stepped again by its restarted actor, which its
    /// journal gave the same input without the fault; failures are handled in input
    /// order, so the restarts do not depend on scheduling either.
    async fn step_all(
        &self,
        agents: &mut [AgentHandle],
        answers: &mut Answers,
        inputs: Vec<(AgentId, StepInput)>,
        sight: Option<Sight>,
    ) -> Result<Vec<Stepped>, Err> {
        let n = inputs.len();
        let mut ids = Vec::with_capacity(n);
        for (slot, (id, input)) in inputs.into_iter().enumerate() {
            ids.push(id);
            // A send to an actor that is gone drops the message, and with it the reply,
            // which then answers `None`: the restart below takes over.
            let msg = AgentMsg::Step(input, sight.clone(), StepReply::new(slot, answers.tx.clone()));
            let _ = agents[id.index()].actor.cast(msg);
        }
        // Every agent lets go of its sight before it answers: once the answers are in,
        // the episode has the world to itself again.
        drop(sight);
        let mut outputs: Vec<Option<StepOutput>> = std::iter::repeat_with(|| None).take(n).collect();
        let mut failed = Vec::new();
        for _ in 0..n {
            let (slot, out) = answers.rx.recv().await.ok_or("the answer channel closed mid-step")?;
            match out {
                Some(out) => outputs[slot] = Some(out),
                None => failed.push(slot),
            }
        }
        failed.sort_unstable();
        let mut restarted: Vec<Option<String>> = Vec::new();
        if !failed.is_empty() {
            restarted.resize(n, None);
        }
        for slot in failed {
            let id = ids[slot];
            let fresh = ractor::call!(self.crew, |reply| CrewMsg::Agent {
                id,
                newer_than: Some(agents[id.index()].generation),
                reply
            })?;
            outputs[slot] = Some(ractor::call!(fresh.actor, AgentMsg::Resume)?);
            restarted[slot] = Some(fresh.cause.clone().unwrap_or_else(|| "failure".into()));
            agents[id.index()] = fresh;
        }
        let mut restarted = restarted.into_iter();
        Ok(ids
            .into_iter()
            .zip(outputs)
            .map(|(agent, output)| Stepped {
                agent,
                output: output.expect("every slot was answered or restarted"),
                restarted: restarted.next().flatten(),
            })
            .collect())
    }

    async fn run(&mut self) -> Result<Finished, Err> {
        let mut episode = self.episode.take().ok_or("the episode already ran")?;
        // The agents take their own views, in parallel where the runtime has workers
        // to spare (gatecrew_crew's `sight` module).
        episode.defer_views();
        let mut agents = ractor::call!(self.crew, CrewMsg::All)?;
        let mut answers = Answers::new();
        loop {
            let answer = match episode.poll() {
                Need::Deadline => Answer::Deadline(ractor::call!(self.board, BoardMsg::NextDeadline)?),
                Need::Adjudicate(reqs) => Answer::Adjudicated(self.consults.resolve(reqs).await?),
                Need::Expire(now) => Answer::Expired(ractor::call!(self.board, BoardMsg::Expire, now)?),
                Need::Post { from, msg, now } => {
                    Answer::Posted(ractor::call!(self.board, |reply| BoardMsg::Post { caller: from, msg, now, reply })?)
                }
                Need::Outside(_) => Answer::Ready,
                Need::Step(inputs) => {
                    let sight = episode.sight();
                    Answer::Stepped(self.step_all(&mut agents, &mut answers, inputs, sight).await?)
                }
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
