//! A person beside the bots on the server (`gatecrew run --interactive --world
//! minecraft`): they play in the game and type in its chat. The partner bot's bridge
//! client hears every chat line; a player's line (`<name> text`, from a name that is
//! not one of the crew's bots) enters the partner at the episode's tick when it
//! arrives, which on a server is game time. The partner's replies are said in the
//! game's chat by its bot. A stop cuts a walk or a dig in the game at once
//! ([`Command::Stop`] bypasses the bot's queue) and the action is recorded as
//! interrupted at that tick; the stopped command's own reply only brings the mirror in
//! line. A placement or a craft in flight finishes first (the game has begun it), and
//! the bot stops after it. The session lasts while a person who spoke is on the server (or until the
//! tick limit); when they leave, the episode ends once the bots are done.

use std::collections::BTreeSet;

use gatecrew_crew::Episode;
use gatecrew_crew::agent::{AgentCore, StepInput, StepOutput};
use gatecrew_hitl::session::Partner;
use gatecrew_protocol::{AgentId, Tick};

/// The partner and what the person said since the last round.
pub struct Talk {
    partner: Partner,
    heard: Vec<String>,
    people: BTreeSet<String>,
    left: bool,
    started: bool,
    /// Replies of stopped commands still to come (the mirror takes them; nobody waits).
    stale: u32,
    /// When the partner's command now in the game was sent.
    sent_at: Option<Tick>,
}

impl std::fmt::Debug for Talk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Talk").field("people", &self.people).field("left", &self.left).finish_non_exhaustive()
    }
}

/// What a round's outside phase asks of the driver.
#[derive(Debug, Default)]
pub(crate) struct Said {
    /// Lines for the game's chat, by the partner's bot.
    pub lines: Vec<String>,
    /// Stop the partner's command in the game now.
    pub stop: bool,
}

/// A player's chat line as a bot's client prints it (`<alex> make a white bed`): the
/// player and the text, unless the player is one of `ours`.
pub(crate) fn player_line<'t>(text: &'t str, ours: &[String]) -> Option<(&'t str, &'t str)> {
    let (name, said) = text.strip_prefix('<')?.split_once("> ")?;
    let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (valid && !ours.iter().any(|o| o == name)).then_some((name, said.trim()))
}

impl Talk {
    /// The partner, before the episode starts. A stop on the server lets a placement
    /// or a craft in flight finish (the game has begun it; it is never left half done)
    /// and cuts a walk or a dig.
    pub fn new(mut partner: Partner) -> Self {
        partner.finish_actions_on_stop();
        Talk {
            partner,
            heard: Vec::new(),
            people: BTreeSet::new(),
            left: false,
            started: false,
            stale: 0,
            sent_at: None,
        }
    }

    /// The partner, after the session.
    pub fn into_partner(self) -> Partner {
        self.partner
    }

    /// The bot the person talks to.
    pub fn agent(&self) -> AgentId {
        self.partner.agent()
    }

    /// The people who spoke, by name.
    pub fn people(&self) -> &BTreeSet<String> {
        &self.people
    }

    /// A chat line the partner's bot received.
    pub(crate) fn chat(&mut self, text: &str, ours: &[String]) {
        if let Some((who, said)) = player_line(text, ours) {
            tracing::info!(player = who, line = said, "heard in the game's chat");
            self.people.insert(who.to_owned());
            if !said.is_empty() {
                self.heard.push(said.to_owned());
            }
        }
    }

    /// A player left the server: the session ends if they had spoken.
    pub(crate) fn left(&mut self, player: &str) {
        if self.people.contains(player) {
            tracing::info!(player, "the person left the server");
            self.left = true;
        }
    }

    /// Whether a person may still talk: the episode is held open.
    pub(crate) fn open(&self) -> bool {
        !self.left || self.partner.holding() || !self.heard.is_empty()
    }

    /// The tick the episode must stop at for the partner: now, with lines waiting;
    /// the merge window's end; with nothing else, past the tick limit (the episode
    /// waits for the person rather than stalling).
    pub(crate) fn deadline(&self, now: Tick, tick_limit: u64) -> Option<Tick> {
        if !self.heard.is_empty() {
            return Some(now);
        }
        let held = self.open().then_some(Tick(tick_limit.saturating_add(1)));
        [self.partner.due(), held].into_iter().flatten().min()
    }

    /// Before anyone is woken: the person's lines enter, the partner's clock ticks, a
    /// stop cuts the command in the game.
    pub(crate) fn outside(&mut self, ep: &mut Episode, now: Tick) -> Said {
        if !self.started {
            self.started = true;
            self.partner.start(now);
        }
        for line in std::mem::take(&mut self.heard) {
            self.partner.hear(now, &line);
        }
        self.partner.tick(now);
        let me = self.partner.agent();
        let mut stop = false;
        if self.partner.take_halt() {
            let elapsed = self.sent_at.map_or(0, |t| now.0.saturating_sub(t.0));
            if ep.interrupt_running(me, elapsed) {
                tracing::debug!(agent = %me, "stop: the command in the game is cut");
                stop = true;
                self.stale += 1;
                self.sent_at = None;
            } else {
                // Its reply is in but not yet applied: cut like the simulator's.
                ep.interrupt(me);
            }
        }
        let lines = self.drain(ep);
        if self.partner.wants_wake() {
            ep.nudge(me);
        }
        Said { lines, stop }
    }

    /// The partner's trace events go into the episode; its lines come back.
    pub(crate) fn drain(&mut self, ep: &mut Episode) -> Vec<String> {
        for kind in self.partner.drain_events() {
            ep.record_external(kind);
        }
        self.partner.drain_said()
    }

    /// Steps the partner's bot.
    pub(crate) fn step(&mut self, core: &mut AgentCore, input: StepInput) -> StepOutput {
        self.partner.step(core, input)
    }

    /// The partner's command was sent at `now`.
    pub(crate) fn sent(&mut self, now: Tick) {
        self.sent_at = Some(now);
    }

    /// Whether a reply is one of a stopped command's (then nobody waits for it).
    pub(crate) fn take_stale(&mut self) -> bool {
        let stale = self.stale > 0;
        self.stale = self.stale.saturating_sub(1);
        stale
    }

    /// The episode is over: the open plan goes to task memory as interrupted.
    pub(crate) fn finish(&mut self, ep: &mut Episode, now: Tick) -> Vec<String> {
        self.partner.finish(now);
        self.drain(ep)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_other_players_lines_are_the_persons() {
        let ours = vec!["bot0".to_owned(), "bot1".to_owned()];
        assert_eq!(player_line("<alex> make a white bed", &ours), Some(("alex", "make a white bed")));
        assert_eq!(player_line("<Steve_2> stop ", &ours), Some(("Steve_2", "stop")));
        assert_eq!(player_line("<bot0> Done: obtain 1 white bed.", &ours), None);
        for not_chat in ["alex joined the game.", "[gatecrew] n1 ok", "<> hi", "<a b> hi", "<alex>hi"] {
            assert_eq!(player_line(not_chat, &ours), None, "{not_chat}");
        }
    }
}
