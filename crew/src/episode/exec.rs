//! Where the `llm` executor model ([`crate::executor`]) enters the episode: at a
//! wake-up (the context window, reading), when an output is applied (writing, each
//! action, in-process tier-3 consults), at a re-plan and at an external consult. Under
//! the scripted executor every hook returns at once and changes nothing.

use gatecrew_gating::DecisionCard;
use gatecrew_gating::llm::SYSTEM_PROMPT as CONSULT_SYSTEM_PROMPT;
use gatecrew_protocol::trace::{CallKind, EventKind};
use gatecrew_protocol::{AgentId, BoardMessage, IssueId, ItemId};
use gatecrew_world::{Action, Failure, Observation, Outcome, Pending, Receipt};

use super::Episode;
use super::faults::Post;
use crate::executor::render;
use crate::executor::state::Call;
use crate::news::BoardNews;
use crate::style::Aside;

/// A read call's completion: the model's end of turn. A reply is a write call of its
/// own, with its own line's tokens.
const READ_COMPLETION_TOKENS: u32 = 1;

/// The adjudicator's answer as the grammar admits it, for its completion tokens.
const CONSULT_REPLY: &str = r#"{"decision":"stay_local","confidence":0.75}"#;

fn teammate_line(agent: AgentId, n: &BoardNews) -> bool {
    match n {
        BoardNews::Posted { msg, .. } => msg.from() != agent,
        BoardNews::Chat { from } => *from != agent,
        BoardNews::Closed(_) | BoardNews::Rejected { .. } => false,
    }
}

impl Episode {
    pub(super) fn record_call(&mut self, agent: Option<AgentId>, call: CallKind, c: &Call) {
        metrics::counter!("gatecrew_executor_calls_total", "call" => call.as_str()).increment(1);
        if c.mistake {
            metrics::counter!("gatecrew_executor_mistakes_total", "call" => call.as_str()).increment(1);
        }
        self.push(EventKind::LlmCall {
            agent,
            call,
            prompt_tokens: c.prompt,
            completion_tokens: c.completion,
            ticks: c.ticks,
            mistake: c.mistake,
        });
    }

    /// At `agent`'s wake-up: teammate lines beyond its context window scrolled out
    /// unread; the rest enter its context; a chat-reading bot (one whose style charges
    /// reading) reads them with a call that replaces the scripted reading ticks, and a
    /// mistaken read ignores one of them.
    pub(super) fn exec_wake(&mut self, i: usize, view: &Observation) {
        let Some(x) = &mut self.exec else { return };
        let agent = AgentId(i as u32);
        let chat = self.coord.style.board_as_chat();
        let data = self.site.world.data().clone();
        let s = &mut self.crew.slots[i];
        let lines = s.news.iter().filter(|n| teammate_line(agent, n)).count();
        let cap = x.model().context_lines();
        if lines > cap {
            let mut skip = lines - cap;
            s.news.retain(|n| {
                let gone = skip > 0 && teammate_line(agent, n);
                skip -= usize::from(gone);
                !gone
            });
            metrics::counter!("gatecrew_executor_lines_scrolled_out_total").increment((lines - cap) as u64);
        }
        for n in s.news.iter().filter(|n| teammate_line(agent, n)) {
            if let Some(text) = render::news(n, &data, chat) {
                let t = x.model().tokens(&text);
                x.hear(i, t);
            }
        }
        if s.reading == 0 {
            return;
        }
        let own = x.model().tokens(&render::state(&self.site.world, agent, view));
        let call = x.call(i, own, true, READ_COMPLETION_TOKENS);
        s.reading = call.ticks;
        if call.mistake {
            let k = s.news.iter().filter(|n| teammate_line(agent, n)).count();
            if k > 0 {
                let target = (call.pick % k as u64) as usize;
                let mut seen = 0;
                s.news.retain(|n| {
                    if !teammate_line(agent, n) {
                        return true;
                    }
                    seen += 1;
                    seen - 1 != target
                });
            }
        }
        self.record_call(Some(agent), CallKind::Read, &call);
    }

    /// `agent` starts `action`: the call that chose it. Returns its ticks (added before
    /// the action completes) and, when it was a mistake, the draw that says what went
    /// wrong ([`Self::mistaken_outcome`]).
    pub(super) fn exec_act(&mut self, agent: AgentId, action: &Action) -> (u64, Option<u64>) {
        let Some(x) = &mut self.exec else { return (0, None) };
        let view = self.site.world.observe(agent);
        let own = x.model().tokens(&render::state(&self.site.world, agent, &view));
        let completion = x.model().tokens(&render::action(action, self.site.world.data()));
        let call = x.call(agent.index(), own, true, completion);
        self.record_call(Some(agent), CallKind::Act, &call);
        (call.ticks, call.mistake.then_some(call.pick))
    }

    /// The outcome of an action the model chose wrongly, at its completion. A place puts
    /// a wrong block when the bot holds another placeable item (`pick` says which, in
    /// item-id order): the wrong-item error, which the outcome does not tell the bot
    /// (the place succeeded and its plan counts the cell as done); it sees the block in
    /// the cell, as a player would, and digs it out and builds the cell again. Any other
    /// mistaken action does nothing, and the bot learns that it failed (as it would see
    /// nothing change).
    pub(super) fn mistaken_outcome(
        &mut self,
        agent: AgentId,
        mut pending: Pending,
        pick: u64,
    ) -> (Outcome, Option<(AgentId, Receipt)>) {
        if let Action::Place { item, .. } = &mut pending.action {
            let data = self.site.world.data();
            let wrong: Vec<ItemId> = self
                .site
                .world
                .body(agent)
                .map(|b| {
                    b.inventory
                        .iter()
                        .filter(|&(i, n)| n > 0 && i != *item && data.block_for_item(i).is_some())
                        .map(|(i, _)| i)
                        .collect()
                })
                .unwrap_or_default();
            if !wrong.is_empty() {
                *item = wrong[(pick % wrong.len() as u64) as usize];
                metrics::counter!("gatecrew_executor_wrong_blocks_total").increment(1);
                return self.world_mut().complete(agent, pending);
            }
        }
        let failed = Outcome { action: pending.action, ticks: pending.ticks, result: Err(Failure::Mistaken) };
        (failed, None)
    }

    /// The lines `agent` writes with the model (its style's [`crate::style::Style::writes_with_model`]):
    /// each costs a write call, charged like reading; a mistaken line is lost (a wrong
    /// item, count or recipient makes it no usable request, offer or report). Returns
    /// the asides and posts that go out, and the issues whose reports were lost.
    pub(super) fn exec_write(
        &mut self,
        agent: AgentId,
        asides: Vec<Aside>,
        posts: Vec<Post>,
    ) -> (Vec<Aside>, Vec<Post>, Vec<IssueId>) {
        if self.exec.is_none() || !self.coord.style.writes_with_model() {
            return (asides, posts, Vec::new());
        }
        let data = self.site.world.data().clone();
        let chat = self.coord.style.board_as_chat();
        // Every line of one step is written from the same state.
        let view = self.site.world.observe(agent);
        let own = self.exec.as_ref().map_or(0, |x| x.model().tokens(&render::state(&self.site.world, agent, &view)));
        let mut lost = Vec::new();
        let mut kept_asides = Vec::with_capacity(asides.len());
        for a in asides {
            let text = a.text(agent, &data);
            // Like the drop fault, the model's mistakes spare a confirmation.
            if self.write_call(agent, own, &text) && !a.confirms() {
                lost.extend(a.issue());
                continue;
            }
            kept_asides.push(a);
        }
        let mut kept_posts = Vec::with_capacity(posts.len());
        for p in posts {
            let text = render::message(&p.0, &data, chat);
            // Same for a confirmation: the items arrived, the window must close.
            let spared = matches!(p.0, BoardMessage::ConfirmTransfer { .. });
            if self.write_call(agent, own, &text) && !spared {
                continue;
            }
            kept_posts.push(p);
        }
        (kept_asides, kept_posts, lost)
    }

    /// One write call (`own`: the state's tokens); adds its ticks to what the agent's step costs. Whether it went wrong.
    fn write_call(&mut self, agent: AgentId, own: u32, text: &str) -> bool {
        let Some(x) = &mut self.exec else { return false };
        let completion = x.model().tokens(text);
        let call = x.call(agent.index(), own, true, completion);
        self.crew.slots[agent.index()].reading += call.ticks;
        self.record_call(Some(agent), CallKind::Write, &call);
        call.mistake
    }

    /// The call of a consult: the adjudicator's own short prompt and card, not the
    /// bot's executor prompt.
    pub(super) fn consult_call(&mut self, agent: AgentId, card: &DecisionCard) -> Call {
        let x = self.exec.as_mut().expect("only called under the llm executor");
        let own = x.model().tokens(CONSULT_SYSTEM_PROMPT) + x.model().tokens(&card.prompt());
        let completion = x.model().tokens(CONSULT_REPLY);
        x.call_bare(agent.index(), own, completion)
    }

    /// The ticks of an external consult's call, recorded, or `None` under the scripted
    /// executor (the configured verdict delay applies).
    pub(super) fn exec_consult(&mut self, agent: AgentId, card: &DecisionCard) -> Option<u64> {
        self.exec.as_ref()?;
        let call = self.consult_call(agent, card);
        self.record_call(Some(agent), CallKind::Consult, &call);
        Some(call.ticks)
    }

    /// A `central_dag` re-plan under `llm`: its ticks (the pause of the crew) and
    /// whether it went wrong. `prompt` is the re-plan's prompt size, `lines` the
    /// directives it writes.
    pub(super) fn exec_replan(&mut self, prompt: u32, lines: &[String]) -> Option<Call> {
        let x = self.exec.as_mut()?;
        let completion = lines.iter().map(|l| x.model().tokens(l)).sum();
        let who = x.manager();
        let call = x.call(who, prompt, false, completion);
        self.record_call(None, CallKind::Replan, &call);
        Some(call)
    }
}
