//! A person in a human participant's seat: a MineCollab task's human with
//! `--interactive`. The seat holds the human's items and builds nothing on its own;
//! when a teammate asks for something the seat could give, the seat's offer waits for
//! the person's yes or no instead of being sent by the bot's own rule. A yes posts the
//! offer (the hand-over then runs as any other); a no posts `CANNOT_SUPPLY`; a window
//! that closes first is reported as missed. Other lines go to the partner as usual.

use std::collections::VecDeque;

use gatecrew_protocol::{AgentId, BoardMessage, IssueId, ItemRegistry, RefusalReason, WindowId};

/// An offer waiting for the person.
#[derive(Debug, Clone)]
struct Held {
    msg: BoardMessage,
    issue: Option<IssueId>,
    window: WindowId,
    to: AgentId,
}

/// What the person said about the oldest offer waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// Give it.
    Give,
    /// Keep it.
    Refuse,
}

/// Reads a line as a yes or a no to a request, if it is one. Only short answers count:
/// a longer line ("give me the planks first") is an instruction for the partner.
pub fn reply(line: &str) -> Option<Reply> {
    let words: Vec<String> = line
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    if words.is_empty() || words.len() > 4 {
        return None;
    }
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    const NO: [&str; 9] = ["no", "n", "nope", "refuse", "keep", "don't", "dont", "decline", "nah"];
    const YES: [&str; 11] = ["yes", "y", "yeah", "yep", "ok", "okay", "sure", "give", "take", "here", "fine"];
    if w.iter().any(|x| NO.contains(x)) {
        return Some(Reply::Refuse);
    }
    if w.iter().any(|x| YES.contains(x)) {
        return Some(Reply::Give);
    }
    None
}

/// The seat's offers waiting for the person, oldest first.
#[derive(Debug, Default)]
pub struct Seat {
    held: VecDeque<Held>,
}

impl Seat {
    /// Takes the seat's offers out of a step's posts to wait for the person; returns
    /// what to ask them.
    pub fn hold(&mut self, posts: &mut Vec<(BoardMessage, Option<IssueId>)>, items: &ItemRegistry) -> Vec<String> {
        let mut asks = Vec::new();
        posts.retain(|(msg, issue)| {
            let BoardMessage::OfferTransfer { window, to, item, count, .. } = msg else {
                return true;
            };
            asks.push(format!(
                "{to} asks for {} x{} and you hold it: say \"give\" or \"no\" (window {window})",
                items.name(*item),
                count.get()
            ));
            self.held.push_back(Held { msg: msg.clone(), issue: *issue, window: *window, to: *to });
            false
        });
        asks
    }

    /// Whether an offer is waiting for the person.
    pub fn waiting(&self) -> bool {
        !self.held.is_empty()
    }

    /// The person's answer to the oldest offer waiting: the message to post now, the
    /// issue behind it, and what to say.
    pub fn answer(
        &mut self,
        r: Reply,
        me: AgentId,
        items: &ItemRegistry,
    ) -> Option<(BoardMessage, Option<IssueId>, String)> {
        let h = self.held.pop_front()?;
        match r {
            Reply::Give => {
                let said = format!("giving {} what it asked for (window {})", h.to, h.window);
                Some((h.msg, h.issue, said))
            }
            Reply::Refuse => {
                let item = match &h.msg {
                    BoardMessage::OfferTransfer { item, .. } => *item,
                    _ => return None,
                };
                let msg = BoardMessage::CannotSupply {
                    window: h.window,
                    from: me,
                    to: h.to,
                    item,
                    reason: RefusalReason::NoSurplus,
                };
                let said = format!("keeping the {}; told {} no (window {})", items.name(item), h.to, h.window);
                Some((msg, h.issue, said))
            }
        }
    }

    /// Drops offers whose window is no longer open; returns what to say about them.
    pub fn expire(&mut self, open: impl Fn(WindowId) -> bool) -> Vec<String> {
        let mut said = Vec::new();
        self.held.retain(|h| {
            let keep = open(h.window);
            if !keep {
                said.push(format!("window {} closed before you answered; {} was not given anything", h.window, h.to));
            }
            keep
        });
        said
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_answers_are_replies_and_instructions_are_not() {
        for y in ["give", "yes", "OK!", "sure, take it", "y"] {
            assert_eq!(reply(y), Some(Reply::Give), "{y}");
        }
        for n in ["no", "No.", "keep it", "nope", "don't"] {
            assert_eq!(reply(n), Some(Reply::Refuse), "{n}");
        }
        for other in ["build the roof first", "what are you doing?", "", "stop"] {
            assert_eq!(reply(other), None, "{other}");
        }
    }
}
