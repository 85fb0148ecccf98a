//! Where a coordination style's own channel ([`crate::style::Channel`]: central_dag's
//! manager, flatcomm's chat) meets the episode: the episode is its [`Host`], and runs
//! it at the points of the round where the channel has a say. The channel is taken out
//! of the episode while it runs, so that it can be handed the episode as its host.

use std::collections::VecDeque;

use gatecrew_protocol::trace::{EventKind, LineKind};
use gatecrew_protocol::{AgentId, IssueId, Recipient, Tick};
use gatecrew_world::{Blueprint, World};

use super::Episode;
use crate::agent::StepOutput;
use crate::executor::Call;
use crate::news::BoardNews;
use crate::style::{Aside, Channel, Delivery, Host};

impl Episode {
    /// Runs `f` on the style's channel, if it has one, with the episode as its host.
    fn with_channel<T>(&mut self, f: impl FnOnce(&mut dyn Channel, &mut Self) -> T) -> Option<T> {
        let mut channel = self.coord.channel.take()?;
        let out = f(channel.as_mut(), self);
        self.coord.channel = Some(channel);
        Some(out)
    }

    /// What an agent (not muted) said outside the board.
    pub(crate) fn hear(&mut self, agent: AgentId, aside: Aside) {
        self.with_channel(|c, ep| c.hear(agent, aside, ep));
    }

    /// An issue `agent` handed the channel was lost on the way.
    pub(super) fn channel_lost(&mut self, agent: AgentId, issue: IssueId) {
        self.with_channel(|c, ep| c.lost(agent, issue, ep));
    }

    /// Whether the channel recorded an accepted board message as its own line.
    pub(super) fn channel_posted(&mut self, from: AgentId, to: Recipient) -> bool {
        self.with_channel(|c, ep| c.posted(from, to, ep)).unwrap_or(false)
    }

    /// A round's outputs, before any is applied.
    pub(super) fn channel_round(&mut self, outputs: &mut VecDeque<(AgentId, StepOutput)>) {
        self.with_channel(|c, ep| c.round(outputs, ep));
    }

    /// The clock moved to `now`.
    pub(super) fn channel_expire(&mut self, now: Tick) {
        self.with_channel(|c, ep| c.expire(now, ep));
    }

    /// What the style's channel holds for `agent`, not yet handed over (tests).
    #[cfg(test)]
    pub(crate) fn deliveries(&self, agent: AgentId) -> &[Delivery] {
        &self.crew.slots[agent.index()].deliveries
    }
}

impl Host for Episode {
    fn now(&self) -> Tick {
        self.clock.tick
    }

    fn world(&self) -> &World {
        &self.site.world
    }

    fn blueprint(&self) -> &Blueprint {
        &self.site.blueprint
    }

    fn record(&mut self, kind: EventKind) {
        self.push(kind);
    }

    fn lost(&mut self, from: AgentId, line: LineKind) -> bool {
        Episode::lost(self, from, line)
    }

    fn muted(&self, agent: AgentId) -> bool {
        self.crew.muted.get(agent.index()).copied().unwrap_or(false)
    }

    fn reachable(&self, agent: AgentId) -> bool {
        !Host::muted(self, agent) && !self.failed(agent.index())
    }

    fn broadcast(&mut self, news: BoardNews) {
        Episode::broadcast(self, news);
    }

    fn deliver(&mut self, agent: AgentId, delivery: Delivery, due: Tick) {
        if let Some(s) = self.crew.slots.get_mut(agent.index()) {
            s.deliveries.push(delivery);
            s.delivery_due = Some(s.delivery_due.map_or(due, |t| t.min(due)));
        }
    }

    fn pause_all(&mut self, ticks: u64) {
        for s in &mut self.crew.slots {
            if let Some((t, _)) = &mut s.pending {
                *t = *t + ticks;
            }
            if let Some(t) = &mut s.wait_until {
                *t = *t + ticks;
            }
        }
    }

    fn llm(&self) -> bool {
        self.exec.is_some()
    }

    fn tokens(&self, text: &str) -> Option<u32> {
        self.exec.as_ref().map(|x| x.model().tokens(text))
    }

    fn replan_call(&mut self, prompt: u32, lines: &[String]) -> Option<Call> {
        self.exec_replan(prompt, lines)
    }
}
