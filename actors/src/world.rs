//! The world actor: owns the episode (any [`Staged`] scenario) and answers its needs.
//! Its loop is the stepper's (`gatecrew_engine::stepper`), with actors behind each
//! answer: the board actor, the crew's agent actors (stepped concurrently, their
//! answers put back in input order), the consultant, the recorder.

use std::marker::PhantomData;

use gatecrew_engine::{Answer, Need, Scenario, Stepped};
use gatecrew_protocol::AgentId;
use gatecrew_protocol::trace::Event;
use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use crate::board::BoardMsg;
use crate::consult::{Consultant, Consults};
use crate::hosted::{Hosted, Staged};
use crate::messages::{AgentHandle, AgentMsg, CrewMsg, StepReply};
use crate::recorder::RecorderMsg;

/// What a running episode reports to an observer (a progress bar, a test).
#[derive(Debug, Clone)]
pub enum Tap<E = Event, P = gatecrew_crew::Progress> {
    /// Trace events, in order.
    Events(Vec<E>),
    /// Where the episode stands after a round.
    Progress(P),
}

/// The world actor of scenario `S`.
pub struct WorldActor<S>(PhantomData<fn() -> S>);

impl<S> WorldActor<S> {
    /// The world actor of an `S`.
    pub fn new() -> Self {
        WorldActor(PhantomData)
    }
}

impl<S> Default for WorldActor<S> {
    fn default() -> Self {
        WorldActor::new()
    }
}

/// Messages to the world.
pub enum WorldMsg<S: Scenario> {
    /// Run the episode to its end; replies when the trace is complete.
    Run(RpcReplyPort<Result<S::Finished, Err>>),
}

impl<S: Scenario + 'static> ractor::Message for WorldMsg<S> {}

type Err = crate::messages::Cause;

/// The agents of a staged scenario.
type AgentOf<S> = <S as Staged>::Agent;

/// What the world actor works with.
pub struct WorldState<S: Staged> {
    episode: Option<S>,
    board: Option<ActorRef<BoardMsg>>,
    crew: ActorRef<CrewMsg<AgentOf<S>>>,
    recorder: ActorRef<RecorderMsg<S::Event>>,
    tap: Option<UnboundedSender<Tap<S::Event, S::Progress>>>,
    consults: Consults,
}

/// Arguments: the episode and the actors it talks to.
pub struct WorldArgs<S: Staged> {
    /// The episode.
    pub episode: S,
    /// The board actor, answering the episode's posts and expiries (`None`: a scenario
    /// that never asks for them).
    pub board: Option<ActorRef<BoardMsg>>,
    /// The crew supervisor.
    pub crew: ActorRef<CrewMsg<AgentOf<S>>>,
    /// Where each round's trace events go, in order.
    pub recorder: ActorRef<RecorderMsg<S::Event>>,
    /// Where to report progress.
    pub tap: Option<UnboundedSender<Tap<S::Event, S::Progress>>>,
    /// The tier-3 adjudicator for consults.
    pub consultant: Consultant,
}

type AnswerOf<A> = crate::messages::Answer<<A as Hosted>::Output>;

/// The episode's one channel for the agents' answers (see [`StepReply`]).
struct Answers<A: Hosted> {
    tx: UnboundedSender<AnswerOf<A>>,
    rx: UnboundedReceiver<AnswerOf<A>>,
}

impl<A: Hosted> Answers<A> {
    fn new() -> Self {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        Answers { tx, rx }
    }
}

fn board(b: &Option<ActorRef<BoardMsg>>) -> Result<&ActorRef<BoardMsg>, Err> {
    b.as_ref().ok_or_else(|| "the episode asked for a board it was started without".into())
}

impl<S: Staged> WorldState<S> {
    /// Steps every agent of `inputs` at once: one message to each, the answers back
    /// through the episode's one answer channel and put in input order. An agent that
    /// failed (its reply answered `None`) is stepped again by its restarted actor,
    /// which was given the same input without the fault; failures are handled in input
    /// order, so the restarts do not depend on scheduling either.
    async fn step_all(
        &mut self,
        agents: &mut [AgentHandle<AgentOf<S>>],
        answers: &mut Answers<AgentOf<S>>,
        inputs: Vec<(AgentId, S::Input)>,
        sight: Option<<AgentOf<S> as Hosted>::Sight>,
    ) -> Result<Vec<Stepped<S::Output>>, Err> {
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
        let mut outputs: Vec<Option<S::Output>> = std::iter::repeat_with(|| None).take(n).collect();
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
            })??;
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

    async fn run(&mut self) -> Result<S::Finished, Err> {
        let mut episode = self.episode.take().ok_or("the episode already ran")?;
        episode.start();
        let mut agents = ractor::call!(self.crew, CrewMsg::All)?;
        let mut answers = Answers::new();
        loop {
            let answer = match episode.poll() {
                Need::Deadline => match &self.board {
                    Some(b) => Answer::Deadline(ractor::call!(b, BoardMsg::NextDeadline)?),
                    None => Answer::Deadline(None),
                },
                Need::Adjudicate(reqs) => Answer::Adjudicated(self.consults.resolve(reqs).await?),
                Need::Expire(now) => Answer::Expired(ractor::call!(board(&self.board)?, BoardMsg::Expire, now)?),
                Need::Post { from, msg, now } => Answer::Posted(ractor::call!(board(&self.board)?, |reply| {
                    BoardMsg::Post { caller: from, msg, now, reply }
                })?),
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

    fn emit(&self, episode: &mut S) -> Result<(), Err> {
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

impl<S: Staged> Actor for WorldActor<S> {
    type Msg = WorldMsg<S>;
    type State = WorldState<S>;
    type Arguments = WorldArgs<S>;

    async fn pre_start(
        &self,
        _myself: ActorRef<Self::Msg>,
        a: WorldArgs<S>,
    ) -> Result<Self::State, ActorProcessingErr> {
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
