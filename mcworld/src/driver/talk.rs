//! The driver's side of a person beside the bots ([`crate::partner`]): their chat
//! lines in, the partner's replies out to the game's chat in order, the partner's bot
//! stepped through the partner, a stop sent to the bridge at once.

use std::time::Duration;

use gatecrew_crew::Stepped;
use gatecrew_crew::agent::StepInput;
use gatecrew_crew::episode::stepper::step_supervised;
use gatecrew_protocol::{AgentId, Tick};
use tokio::sync::mpsc;

use super::Driver;
use crate::verify::{Done, Verdict};
use crate::wire::Command;

/// The partner's lines on their way to the game's chat, one at a time and in order.
pub(super) struct Relay {
    tx: mpsc::UnboundedSender<String>,
    task: tokio::task::JoinHandle<()>,
}

impl Relay {
    /// Starts the relay for the partner's bot.
    pub(super) fn start(bridge: std::sync::Arc<crate::Bridge>, bot: String, wait: Duration) -> Relay {
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        let task = tokio::spawn(async move {
            while let Some(text) = rx.recv().await {
                if let Err(e) = bridge.request(&bot, &Command::Chat { text }, wait).await {
                    tracing::warn!(bot, "a line for the game's chat was not said: {e}");
                }
            }
        });
        Relay { tx, task }
    }
}

impl Driver<'_> {
    /// What the partner's bot heard in the game's chat.
    pub(super) fn heard(&mut self, bot: &str, text: &str) {
        let ctx = self.ctx;
        match self.talk.as_deref_mut() {
            Some(t) if ctx.name(t.agent()) == bot => t.chat(text, &ctx.names),
            _ => tracing::debug!(bot, text, "chat"),
        }
    }

    /// Holds the episode open while the person may talk; the tick the partner needs.
    pub(super) fn talk_deadline(&mut self) -> Option<Tick> {
        let now = self.now();
        let t = self.talk.as_deref()?;
        self.episode.hold_open(t.open());
        t.deadline(now, self.tick_limit)
    }

    /// Before anyone is woken: the person's lines enter, a stop is sent at once.
    pub(super) fn talk_outside(&mut self) {
        let now = self.episode.tick();
        let Some(t) = self.talk.as_deref_mut() else { return };
        self.episode.hold_open(t.open());
        let said = t.outside(&mut self.episode, now);
        let me = t.agent();
        if said.stop {
            let bridge = self.ctx.bridge.clone();
            let name = self.ctx.name(me).to_owned();
            let wait = self.ctx.timeouts.command;
            tokio::spawn(async move {
                if let Err(e) = bridge.request(&name, &Command::Stop, wait).await {
                    tracing::warn!(bot = name, "the stop did not reach the bot: {e}");
                }
            });
        }
        self.say(said.lines);
    }

    /// The partner's events into the trace, its lines to the chat.
    pub(super) fn talk_drain(&mut self) {
        let Some(t) = self.talk.as_deref_mut() else { return };
        let lines = t.drain(&mut self.episode);
        self.say(lines);
    }

    /// The episode is over: the partner's last words are said before the bots leave.
    pub(super) async fn talk_finish(&mut self) {
        let now = self.episode.tick();
        if let Some(t) = self.talk.as_deref_mut() {
            let lines = t.finish(&mut self.episode, now);
            self.say(lines);
        }
        if let Some(Relay { tx, task }) = self.relay.take() {
            drop(tx);
            if tokio::time::timeout(self.ctx.timeouts.command, task).await.is_err() {
                tracing::warn!("the partner's last lines did not all reach the game's chat");
            }
        }
    }

    fn say(&mut self, lines: Vec<String>) {
        for l in lines {
            tracing::info!(line = l, "the partner says");
            if let Some(r) = &self.relay {
                let _ = r.tx.send(l);
            }
        }
    }

    /// Steps the awake agents; the partner's bot through the partner.
    pub(super) fn step(&mut self, inputs: Vec<(AgentId, StepInput)>) -> Vec<Stepped> {
        let me = self.talk.as_deref().map(crate::partner::Talk::agent);
        inputs
            .into_iter()
            .map(|(id, input)| match self.talk.as_deref_mut() {
                Some(t) if Some(id) == me => Stepped::ok(id, t.step(&mut self.agents[id.index()], input)),
                _ => step_supervised(&mut self.agents[id.index()], id, input),
            })
            .collect()
    }

    /// The partner's command went to the game now.
    pub(super) fn talk_sent(&mut self, agent: AgentId) {
        let now = self.episode.tick();
        if let Some(t) = self.talk.as_deref_mut().filter(|t| t.agent() == agent) {
            t.sent(now);
        }
    }

    /// A stopped command's reply: the mirror takes what the bot saw, nobody waits for
    /// it (the action was recorded as interrupted when the stop came).
    pub(super) fn stale_reply(&mut self, done: &mut Option<Done>) -> bool {
        let Some(d) = done.as_ref() else { return false };
        let agent = d.agent;
        let stale = self.talk.as_deref_mut().filter(|t| t.agent() == agent).is_some_and(|t| t.take_stale());
        if !stale {
            return false;
        }
        let Some(d) = done.take() else { return false };
        if let Verdict::Fatal(cause) = self.ctx.verify(self.episode.world_mut(), d, &mut self.placements) {
            self.fail(agent, cause);
        }
        true
    }
}
