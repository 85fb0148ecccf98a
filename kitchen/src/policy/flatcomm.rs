//! The flat-chat crew: the same agents as the gated crew, with no gate and no protocol.
//! Every agent broadcasts its intention each time it takes a new order and every need
//! the moment it hits it (a tool it cannot get included); every teammate reads every
//! line and answers each need, and an agent that answers loses its step doing so
//! (DESIGN section 6: "every teammate interrupts its work to read and answer"). Intent
//! lines are read without losing a step. Messages are chat lines: each broadcast, each
//! answer, each thank-you.

use std::collections::BTreeSet;

use gatecrew_protocol::ItemId;

use super::crew::{Announce, Ask, Case, Channel, Crew, Judge, TicketState};
use super::gated::{HANDOVER_STEPS, WINDOW_STEPS};
use super::{ChatLine, Counters, Line, LineText};
use crate::world::{LocationId, World};

/// The flatcomm crew.
pub(crate) fn crew(_: &World, agents: usize) -> Crew<Chat, Broadcast> {
    Crew::new(agents, Chat { agents, lines: 0, needs: Vec::new(), said: Vec::new() }, Broadcast, true)
}

/// Every issue goes to the chat.
pub(crate) struct Broadcast;

impl Judge for Broadcast {
    fn escalate(&mut self, _: &Case, _: &mut Counters) -> bool {
        true
    }
}

#[derive(Debug, Clone)]
struct Need {
    from: usize,
    item: ItemId,
    to: LocationId,
    opened: u32,
    taken_by: Option<usize>,
    answered: BTreeSet<usize>,
    state: TicketState,
}

/// The chat: lines counted, needs tracked until someone delivers or nobody can.
pub(crate) struct Chat {
    agents: usize,
    lines: u64,
    needs: Vec<Need>,
    /// Lines not yet drained: (writer, line). Every teammate reads each.
    said: Vec<(usize, ChatLine)>,
}

impl Chat {
    fn say(&mut self, from: usize, line: ChatLine) {
        self.lines += 1;
        self.said.push((from, line));
    }
}

impl Channel for Chat {
    fn ask(&mut self, w: &World, me: usize, item: ItemId, to: LocationId) -> Option<u32> {
        if self.agents < 2 {
            return None;
        }
        self.say(me, ChatLine::Need { item, to });
        let answered = BTreeSet::from([me]);
        let need = Need { from: me, item, to, opened: w.time(), taken_by: None, answered, state: TicketState::Open };
        self.needs.push(need);
        Some(self.needs.len() as u32 - 1)
    }

    fn inbox(&mut self, me: usize) -> Vec<Ask> {
        self.needs
            .iter()
            .enumerate()
            .filter(|(_, n)| n.state == TicketState::Open && !n.answered.contains(&me))
            .map(|(t, n)| Ask { ticket: t as u32, from: n.from, item: n.item, to: n.to })
            .collect()
    }

    fn answer(&mut self, me: usize, ask: &Ask, yes: bool, _: u32) -> bool {
        let Some(n) = self.needs.get_mut(ask.ticket as usize) else { return false };
        n.answered.insert(me);
        let (to, item) = (n.from, n.item);
        if yes && n.taken_by.is_none() {
            n.taken_by = Some(me);
            n.state = TicketState::Offered(me);
            self.say(me, ChatLine::Offer { to, item });
            return true;
        }
        if n.taken_by.is_none() && n.answered.len() >= self.agents {
            n.state = TicketState::Refused;
        }
        self.say(me, ChatLine::Refuse { to, item });
        false
    }

    fn state(&self, ticket: u32) -> TicketState {
        self.needs.get(ticket as usize).map_or(TicketState::TimedOut, |n| n.state)
    }

    fn confirm(&mut self, me: usize, ticket: u32, _: u32) {
        if let Some(n) = self.needs.get_mut(ticket as usize) {
            n.state = TicketState::Confirmed;
            let (to, item) = (n.taken_by.unwrap_or(me), n.item);
            self.say(me, ChatLine::Thanks { to, item });
        }
    }

    fn expire(&mut self, now: u32) {
        for n in &mut self.needs {
            let limit = if n.taken_by.is_some() { HANDOVER_STEPS } else { WINDOW_STEPS };
            let open = matches!(n.state, TicketState::Open | TicketState::Offered(_));
            if open && u64::from(now) >= u64::from(n.opened) + limit {
                n.state = TicketState::TimedOut;
            }
        }
    }

    fn announce(&mut self, me: usize, what: Announce) {
        if self.agents > 1 {
            let line = match what {
                Announce::Goal(dish) => ChatLine::Goal(dish),
                Announce::Stuck(item) => ChatLine::Stuck(item),
            };
            self.say(me, line);
        }
    }

    fn messages(&self) -> u64 {
        self.lines
    }

    fn drain(&mut self) -> Vec<Line> {
        self.said.drain(..).map(|(from, line)| Line { from, to: None, text: LineText::Chat(line) }).collect()
    }
}
