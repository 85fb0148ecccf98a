//! One crew agent's turn: the per-agent step both runtimes call, from the agent's own
//! state and the desk the crew shares.

use gatecrew_protocol::{ItemId, Tick};

use super::{Announce, COOLDOWN_STEPS, Case, Channel, Handover, Judge, Member, TicketState};
use crate::policy::plan::{Planner, Stuck, Task, act, dispose};
use crate::policy::{Counters, Line};
use crate::tool::ToolKind;
use crate::world::{Action, StepReport, World};

/// What the crew's agents share: the board or the chat, the judge, the counts. An
/// agent's turn reads and writes it, and the next agent's turn in the same step sees
/// what it wrote (a request posted by agent 0 is answered by agent 1 in that step), so
/// turns within a step are taken in agent-id order on both runtimes.
pub(crate) struct Desk<C: Channel, J: Judge> {
    channel: C,
    judge: J,
    /// Answering a request costs the step (flatcomm: "every teammate interrupts its work").
    interrupts: bool,
    agents: usize,
    counters: Counters,
}

impl Member {
    /// What the step did to this agent (`i`): a hand-over it put where it promised is done.
    pub fn observe(&mut self, i: usize, report: &StepReport) {
        if let Some((Action::Put(l), Ok(()))) = report.outcomes.get(i) {
            if let Some(p) = self.helps.iter().position(|h| h.to == *l && Some(h.item) == self.held) {
                self.helps.remove(p);
            }
        }
    }
}

impl<C: Channel, J: Judge> Desk<C, J> {
    pub fn new(channel: C, judge: J, interrupts: bool, agents: usize) -> Self {
        Desk { channel, judge, interrupts, agents, counters: Counters::default() }
    }

    /// Opens a step: closes what timed out.
    pub fn open(&mut self, now: u32) {
        self.channel.expire(now);
    }

    /// The lines written since the last call.
    pub fn lines(&mut self) -> Vec<Line> {
        self.channel.drain()
    }

    /// The counts so far.
    pub fn counters(&self) -> Counters {
        Counters { messages: self.channel.messages(), ..self.counters }
    }

    /// Agent `i`'s turn: its action this step, from its own state `m`, the visible
    /// kitchen and the desk.
    pub fn turn(&mut self, m: &mut Member, w: &World, i: usize) -> Action {
        let now = w.time();
        let n = self.agents;
        let me = w.agents()[i];
        // What became of my requests.
        m.held = me.holding;
        m.awaits.retain(|a| {
            let key = gatecrew_gating::IssueKey::Material(a.item);
            match self.channel.state(a.ticket) {
                TicketState::Open => true,
                TicketState::Offered(_) => {
                    let arrived = w.location(a.to).contents.contains(&a.item);
                    if arrived {
                        self.channel.confirm(i, a.ticket, now);
                        self.counters.confirmed += 1;
                        m.history.confirmed(key);
                    }
                    !arrived
                }
                TicketState::Refused => {
                    m.history.cannot_supply(key, Tick(u64::from(now)), COOLDOWN_STEPS);
                    false
                }
                TicketState::TimedOut => {
                    m.history.timed_out(key);
                    false
                }
                TicketState::Confirmed => false,
            }
        });
        m.helps.retain(|h| matches!(self.channel.state(h.ticket), TicketState::Offered(by) if by == i));
        // Requests to me: answered from my own state.
        let mut answered = false;
        for ask in self.channel.inbox(i) {
            let cost = w.book().solo_steps(ask.item) + 2;
            let surplus = me.holding == Some(ask.item) && m.goal.is_none();
            let slack = if m.goal.is_none() { u32::MAX } else { m.slack };
            let yes = m.helps.is_empty() && (surplus || (me.holding.is_none() && slack >= cost));
            if self.channel.answer(i, &ask, yes, now) {
                m.helps.push(Handover { ticket: ask.ticket, item: ask.item, to: ask.to });
            }
            answered = true;
        }
        if answered && self.interrupts {
            self.counters.interrupted_steps += 1;
            return Action::Noop;
        }
        // My order.
        let pending = w.pending();
        if m.goal.is_some_and(|g| !pending.iter().any(|o| o.id == g)) {
            m.goal = None;
        }
        if m.goal.is_none() {
            let goal = pending
                .iter()
                .find(|o| o.id.0 as usize % n == i && !m.abandoned.contains(&o.id) && w.level().makeable(o.dish));
            m.goal = goal.map(|o| o.id);
            if let Some(o) = goal {
                self.channel.announce(i, Announce::Goal(o.dish));
            }
        }
        let order = m.goal.and_then(|g| pending.iter().find(|o| o.id == g).copied());
        // Plan with my hands and my tools (those I fill, and the free ones).
        let mut hands = vec![false; w.agents().len()];
        hands[i] = true;
        let mine = (0..w.locations().len())
            .map(|l| {
                let loc = &w.locations()[l];
                m.bind.get(l).copied().flatten().is_some() || (loc.contents.is_empty() && !loc.is_occupied())
            })
            .collect();
        let mut p = Planner::new(w, hands, mine, std::mem::take(&mut m.bind));
        p.claims.expected = m.awaits.iter().map(|a| (a.to, a.item)).collect();
        let mut tasks = Vec::new();
        for h in &m.helps {
            let _ = p.need(h.item, h.to, &mut tasks);
        }
        let help_tasks = tasks.len();
        let planned = order.map(|o| p.order(&o.serve, &mut tasks));
        m.bind = p.claims.bind.clone();
        let solo = match planned {
            Some(Ok(est)) => est.solo,
            _ => 0,
        };
        m.slack = order.map_or(u32::MAX, |o| o.remaining.saturating_sub(solo));
        // Kitchen issues of my order.
        if let (Some(o), Some(result)) = (order, planned) {
            let case = match result {
                Err(Stuck::NoTool(_)) => {
                    m.abandoned.insert(o.id);
                    m.goal = None;
                    None
                }
                Err(Stuck::ToolBusy(_, item)) => Some((item, None, false)),
                Ok(_) if solo > o.remaining => tasks[help_tasks..]
                    .iter()
                    .rev()
                    .find_map(|t| match *t {
                        Task::Fetch { what, to, .. } if w.location(to).kind != ToolKind::Servingtable => {
                            Some((what, Some(to), true))
                        }
                        _ => None,
                    })
                    .filter(|(item, to, _)| !m.awaits.iter().any(|a| a.item == *item && Some(a.to) == *to)),
                Ok(_) => None,
            };
            if let Some((item, to, requestable)) = case {
                if m.seen.insert((o.id, item, requestable)) {
                    self.counters.issues += 1;
                    let case = Self::case(w, i, m, item, requestable, solo <= o.remaining);
                    if self.judge.escalate(&case, &mut self.counters) {
                        self.counters.escalations += 1;
                        match to {
                            Some(to) => {
                                if let Some(ticket) = self.channel.ask(w, i, item, to) {
                                    m.awaits.push(Handover { ticket, item, to });
                                }
                            }
                            None => self.channel.announce(i, Announce::Stuck(item)),
                        }
                    }
                }
            }
        }
        // Act: the first task I can do.
        let first = tasks.iter().copied().find(|t| match t {
            Task::Carry { agent, .. } => *agent == i,
            _ => me.holding.is_none(),
        });
        let busy_hands =
            me.holding.is_some() && !tasks.iter().any(|t| matches!(t, Task::Carry { agent, .. } if *agent == i));
        match first {
            Some(t) => act(w, i, t),
            None if busy_hands && !tasks.is_empty() => dispose(w, i),
            None => Action::Noop,
        }
    }

    /// The facts of an issue about `item`, from this agent's state and the visible kitchen.
    fn case(w: &World, i: usize, m: &Member, item: ItemId, requestable: bool, in_time: bool) -> Case {
        let me = w.agents()[i];
        let mates: Vec<usize> = (0..w.agents().len()).filter(|&j| j != i).collect();
        let holder = mates.iter().find(|&&j| w.agents()[j].holding == Some(item)).map(|&j| w.agents()[j].at == me.at);
        let at = w.location(me.at);
        let in_reach = (at.kind == ToolKind::Storage && w.book().is_raw(item))
            || (at.cooked && at.contents == [item] && m.bind.get(me.at.index()).copied().flatten() == Some(item));
        let dependents = 1 + m
            .goal
            .and_then(|g| w.pending().into_iter().find(|o| o.id == g))
            .map_or(0, |o| o.serve.iter().filter_map(|&s| depth(w, s, item)).max().unwrap_or(0));
        Case {
            item,
            requestable,
            dependents,
            teammates: !mates.is_empty(),
            teammate_here: mates.iter().any(|&j| w.agents()[j].at == me.at),
            holder_here: holder,
            item_steps: w.book().solo_steps(item),
            in_reach,
            in_time,
            other_work: !requestable,
            h: m.history.level(gatecrew_gating::IssueKey::Material(item), Tick(u64::from(w.time()))).get(),
        }
    }
}

/// Recipe levels from `top` down to `item`, if `item` is in `top`'s tree.
fn depth(w: &World, top: ItemId, item: ItemId) -> Option<usize> {
    if top == item {
        return Some(0);
    }
    w.book().recipe_for(top)?.ingredients.iter().find_map(|&i| depth(w, i, item)).map(|d| d + 1)
}
