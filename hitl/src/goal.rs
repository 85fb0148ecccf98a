//! What the person wants, in game terms: the words of a new task or an added sub-goal
//! mapped to an item and a count, a told place to take it from, or the crew's building
//! work. The classifier (parser or model) only names the goal; the recipe planner
//! turns it into a sub-graph.

use gatecrew_protocol::{ItemId, Pos};
use gatecrew_world::GameData;

use crate::words::{Vocabulary, coords, count, item_words, words};

/// A goal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    /// Hold `count` more of `item`.
    Obtain {
        /// The item.
        item: ItemId,
        /// How many.
        count: u32,
    },
    /// The item lies at a place (a chest, a dropped stack): take it from there.
    Fetch {
        /// The item.
        item: ItemId,
        /// Where.
        from: Pos,
    },
    /// Build the bot's share of the crew's blueprint.
    Build,
}

impl Goal {
    /// The goal in words, as the plan labels it.
    pub fn describe(&self, data: &GameData) -> String {
        match *self {
            Goal::Obtain { item, count } => format!("obtain {count} {}", item_words(data, item)),
            Goal::Fetch { item, from } => {
                format!("take {} from the chest at ({}, {}, {})", item_words(data, item), from.x, from.y, from.z)
            }
            Goal::Build => "build my share".into(),
        }
    }
}

const BUILD_WORDS: [&str; 7] = ["build", "building", "house", "blueprint", "construction", "share", "builds"];

/// Reads a goal from words: an item (and a count, default 1), with a position it is a
/// place to fetch from; building words without an item are the crew's build.
pub fn read_goal(text: &str, vocab: &Vocabulary) -> Option<Goal> {
    let ws = words(text);
    let at = coords(&ws);
    let skip = at.as_ref().map(|(_, r)| r.clone());
    let item = vocab
        .items_in(&ws)
        .into_iter()
        .find(|(_, r)| skip.as_ref().is_none_or(|s| !s.contains(&r.start)))
        .map(|(i, _)| i);
    match (item, at) {
        (Some(item), Some((from, _))) => Some(Goal::Fetch { item, from }),
        (Some(item), None) => Some(Goal::Obtain { item, count: count(&ws, skip.as_ref()).unwrap_or(1) }),
        (None, _) if ws.iter().any(|w| BUILD_WORDS.contains(&w.as_str())) => Some(Goal::Build),
        (None, _) => None,
    }
}
