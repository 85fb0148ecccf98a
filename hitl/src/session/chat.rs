//! Chat: small talk and questions are answered from what the bot knows (its private
//! state: inventory, position, what it saw and was told, why it is idle) and its plan,
//! and the plan goes on unchanged (paper 000, "Chat").

use super::Partner;
use crate::words::{item_words, words};

/// Items listed when the bot says what it holds, at most.
const MAX_HELD: usize = 8;

impl Partner {
    /// A one-line answer to a chat line (the caller adds the plan preview).
    pub(super) fn chat(&mut self, text: &str) -> String {
        let ws = words(text);
        let has = |w: &str| ws.iter().any(|x| x == w);
        let any = |v: &[&str]| v.iter().any(|w| has(w));
        let item = self.vocab.items_in(&ws).first().map(|(i, _)| *i);
        if let Some(note) = super::notes::read_note(text, self.pos) {
            return self.keep_note(note);
        }
        if any(&["where", "wheres"]) {
            if let Some(a) = self.where_landmark(text) {
                return a;
            }
        }
        if any(&["like", "prefer", "favourite", "favorite"]) && any(&["what", "do", "which"]) {
            if let Some(a) = self.likes() {
                return a;
            }
        }
        if has("why")
            && any(&["stop", "stopped", "stopping", "idle", "waiting", "wait", "standing", "moving", "nothing"])
        {
            return self.why_idle();
        }
        if any(&["where", "wheres"]) {
            if let Some(item) = item {
                return self.where_item(item);
            }
            if any(&["you", "u"]) {
                return format!("I am at ({}, {}, {}).", self.pos.x, self.pos.y, self.pos.z);
            }
        }
        if let Some(item) = item.filter(|_| any(&["many", "have", "got", "holding", "carrying", "hold"])) {
            return format!("I have {} {}.", self.inv.count(item), item_words(&self.data, item));
        }
        if any(&["hold", "holding", "carrying", "carry", "inventory", "inv", "have", "got", "items", "pockets"])
            && any(&["what", "whats", "you", "your"])
        {
            return self.held_items();
        }
        if ["hi", "hello", "hey", "yo"].iter().any(|g| has(g)) {
            return "Hi!".into();
        }
        if ["thanks", "thank", "thx", "ty"].iter().any(|g| has(g)) {
            return "You're welcome.".into();
        }
        if any(&[
            "doing", "plan", "status", "up", "next", "working", "progress", "busy", "done", "task", "now", "far",
            "left",
        ]) {
            return self.doing();
        }
        "OK.".into()
    }

    /// What the bot is on: the part of a build (with how much of it is placed) or the
    /// goal, and how many goals are open.
    fn doing(&self) -> String {
        let plan = &self.plan;
        if plan.idle() {
            return self.why_idle();
        }
        let path = plan.path();
        let part = path.iter().rev().find(|n| plan.group(**n) == Some(crate::plan::Group::Part));
        let goals = plan.open_goals().len();
        let more = match goals {
            0 | 1 => String::new(),
            n => format!(" {n} goals are open."),
        };
        match (part, path.get(1)) {
            (Some(p), _) => {
                // Its cells (a part may also hold the obtaining of its blocks).
                let kids: Vec<_> = plan
                    .children(*p)
                    .into_iter()
                    .filter(|k| matches!(plan.step(*k).kind, crate::plan::Kind::Leaf(crate::plan::Leaf::Place(_))))
                    .collect();
                let done = kids.iter().filter(|k| plan.step(**k).state == crate::plan::State::Done).count();
                format!("I am on \"{}\": {done} of {} placed.{more}", plan.label(*p), kids.len())
            }
            (None, Some(g)) => format!("I am working on \"{}\".{more}", plan.label(*g)),
            (None, None) if goals == 0 => "My plan is empty.".into(),
            (None, None) => format!("{goals} goal(s) open."),
        }
    }

    fn why_idle(&self) -> String {
        match (&self.stopped_by, self.plan.idle()) {
            (Some((t, line)), true) => format!("You told me to stop (\"{line}\", tick {}).", t.0),
            (_, true) => "I was stopped.".into(),
            (_, false) if self.plan.open_goals().is_empty() => "I have nothing left to do.".into(),
            (_, false) => "I am not stopped.".into(),
        }
    }

    fn where_item(&self, item: gatecrew_protocol::ItemId) -> String {
        let name = item_words(&self.data, item);
        let told = self.know.told_stores(item);
        if let Some((p, _)) = told.first() {
            return format!("You told me {name} is in the chest at ({}, {}, {}).", p.x, p.y, p.z);
        }
        let held = self.inv.count(item);
        let v = self.know.view(&self.inv, self.pos);
        let seen = gatecrew_world::cost::Knowledge::stored(&v, item);
        match (seen.first(), held) {
            (Some((p, n)), _) => format!("I saw {n} {name} at ({}, {}, {}).", p.x, p.y, p.z),
            (None, h) if h > 0 => format!("I have {h} {name} with me."),
            (None, _) => format!("I don't know where {name} is."),
        }
    }

    fn held_items(&self) -> String {
        let mut held: Vec<(gatecrew_protocol::ItemId, u32)> = self.inv.iter().filter(|(_, n)| *n > 0).collect();
        if held.is_empty() {
            return "I hold nothing.".into();
        }
        held.sort_by_key(|(i, n)| (std::cmp::Reverse(*n), *i));
        let more = held.len().saturating_sub(MAX_HELD);
        let list: Vec<String> =
            held.iter().take(MAX_HELD).map(|(i, n)| format!("{n} {}", item_words(&self.data, *i))).collect();
        let tail = if more > 0 { format!(" and {more} more kinds") } else { String::new() };
        format!("I hold {}{tail}.", list.join(", "))
    }
}
