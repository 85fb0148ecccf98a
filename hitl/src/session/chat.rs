//! Chat: small talk and questions are answered from what the bot knows, and the plan
//! goes on (paper 000, "Chat").

use super::Partner;
use crate::words::{item_words, words};

impl Partner {
    /// A one-line answer to a chat line.
    pub(super) fn chat(&mut self, text: &str) -> String {
        let ws = words(text);
        let has = |w: &str| ws.iter().any(|x| x == w);
        let item = self.vocab.items_in(&ws).first().map(|(i, _)| *i);
        if has("where") {
            if let Some(item) = item {
                let name = item_words(&self.data, item);
                let told = self.know.told_stores(item);
                if let Some((p, _)) = told.first() {
                    return format!("You told me {name} is in the chest at ({}, {}, {}).", p.x, p.y, p.z);
                }
                let v = self.know.view(&self.inv, self.pos);
                let seen = gatecrew_world::cost::Knowledge::stored(&v, item);
                return match seen.first() {
                    Some((p, n)) => format!("I saw {n} {name} at ({}, {}, {}).", p.x, p.y, p.z),
                    None => format!("I don't know where {name} is."),
                };
            }
        }
        if (has("how") && has("many")) || has("have") && item.is_some() {
            if let Some(item) = item {
                return format!("I have {} {}.", self.inv.count(item), item_words(&self.data, item));
            }
        }
        if ["hi", "hello", "hey", "yo"].iter().any(|g| has(g)) {
            return "Hi!".into();
        }
        if ["thanks", "thank", "thx"].iter().any(|g| has(g)) {
            return "You're welcome.".into();
        }
        if has("doing") || has("plan") || has("status") || has("up") {
            return "Here is the plan:".into();
        }
        "OK.".into()
    }
}
