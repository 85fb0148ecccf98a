//! The flat-chat crew: the same agents as the gated crew, with no gate and no protocol.
//! Every agent broadcasts its intention each time it takes a new order and every need
//! the moment it hits it (a tool it cannot get included); every teammate reads every
//! line and answers each need, and an agent that answers loses its step doing so
//! (DESIGN section 6: "every teammate interrupts its work to read and answer"). Intent
//! lines are read without losing a step. Messages are chat lines: each broadcast, each
//! answer, each thank-you.

use std::collections::BTreeSet;

use gatecrew_protocol::ItemId;

use super::Counters;
use super::crew::{Ask, Case, Channel, Crew, Judge, TicketState};
use super::gated::{HANDOVER_STEPS, WINDOW_STEPS};
use crate::world::{LocationId, World};

/// The flatcomm crew.
pub(crate) fn crew(_: &World, agents: usize) -> Crew<Chat, Broadcast> {
    Crew::new(agents, Chat { agents, lines: 0, needs: Vec::new() }, Broadcast, true)
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
}

impl Channel for Chat {
    fn ask(&mut self, w: &World, me: usize, item: ItemId, to: LocationId) -> Option<u32> {
        if self.agents < 2 {
            return None;
        }
        self.lines += 1;
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
        self.lines += 1;
        n.answered.insert(me);
        if yes && n.taken_by.is_none() {
            n.taken_by = Some(me);
            n.state = TicketState::Offered(me);
            return true;
        }
        if n.taken_by.is_none() && n.answered.len() >= self.agents {
            n.state = TicketState::Refused;
        }
        false
    }

    fn state(&self, ticket: u32) -> TicketState {
        self.needs.get(ticket as usize).map_or(TicketState::TimedOut, |n| n.state)
    }

    fn confirm(&mut self, _: usize, ticket: u32, _: u32) {
        if let Some(n) = self.needs.get_mut(ticket as usize) {
            self.lines += 1;
            n.state = TicketState::Confirmed;
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

    fn announce(&mut self, _: usize) {
        if self.agents > 1 {
            self.lines += 1;
        }
    }

    fn messages(&self) -> u64 {
        self.lines
    }
}
