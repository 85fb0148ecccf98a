//! What the person wants, in game terms: the words of a new task or an added sub-goal
//! mapped to an item and a count, a told place to take it from, or the crew's building
//! work. The classifier (parser or model) only names the goal; the recipe planner
//! turns it into a sub-graph.
//!
//! A count typed in chat is read once, at this edge, into a [`Count`] (1 to
//! [`MAX_COUNT`], the protocol's bound: what one bot can carry). A count outside it, or
//! a fraction, is no goal but a [`BadCount`], which the partner answers in words,
//! quoting the count as it was said: never a silent clamp, never an absurd plan.

use gatecrew_protocol::{Count, CountError, ItemId, MAX_COUNT, Pos};
use gatecrew_world::GameData;

use crate::words::{CountProblem, NotACount, Vocabulary, coords, count, item_words, words};

/// What the person wants the bot to achieve, in game terms (read from a line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    /// Hold `count` more of `item`.
    Obtain {
        /// The item to hold.
        item: ItemId,
        /// How many.
        count: Count,
    },
    /// The item lies at a place (a chest, a dropped stack): take it from there.
    Fetch {
        /// The item to take.
        item: ItemId,
        /// Where it lies.
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

/// A goal naming an item with a count no bot can carry out: 0, a fraction, or more
/// than [`MAX_COUNT`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{said}")]
pub struct BadCount {
    /// The item named.
    pub item: ItemId,
    /// The count as it was said, and what is wrong with it.
    #[source]
    pub said: NotACount,
}

impl BadCount {
    /// What is wrong with the count.
    pub fn problem(&self) -> CountProblem {
        self.said.problem
    }

    /// The partner's answer to the person: it quotes the count as the person wrote it.
    pub fn reply(&self, data: &GameData) -> String {
        let name = item_words(data, self.item);
        let said = &self.said.said;
        match self.said.problem {
            CountProblem::OutOfBounds(CountError::NotPositive(_)) => {
                format!("I cannot get {said} {name}: say how many, from 1 to {MAX_COUNT}.")
            }
            CountProblem::OutOfBounds(CountError::TooLarge(_)) => format!(
                "I cannot get {said} {name}: one bot carries at most {MAX_COUNT} (36 stacks of 64); say a number from 1 to {MAX_COUNT}."
            ),
            CountProblem::NotWhole => {
                format!("I cannot get {said} {name}: a count is a whole number; say one from 1 to {MAX_COUNT}.")
            }
        }
    }
}

/// A goal read from words, or the item it names with a count that is not one.
pub type ReadGoal = Result<Goal, BadCount>;

const BUILD_WORDS: [&str; 7] = ["build", "building", "house", "blueprint", "construction", "share", "builds"];

/// Reads a goal from words: an item (and a count, default 1), with a position it is a
/// place to fetch from; building words without an item are the crew's build. `None`:
/// no goal in the words; `Some(Err)`: an item with a count out of bounds.
pub fn read_goal_checked(text: &str, vocab: &Vocabulary) -> Option<ReadGoal> {
    let ws = words(text);
    let at = coords(&ws);
    let skip = at.as_ref().map(|(_, r)| r.clone());
    let item = vocab
        .items_in(&ws)
        .into_iter()
        .find(|(_, r)| skip.as_ref().is_none_or(|s| !s.contains(&r.start)))
        .map(|(i, _)| i);
    match (item, at) {
        (Some(item), Some((from, _))) => Some(Ok(Goal::Fetch { item, from })),
        (Some(item), None) => {
            let said = match count(&ws, skip.as_ref()) {
                Some(said) => said,
                // No count said: one.
                None => Ok(Count::new(1).expect("1 is a count")),
            };
            Some(said.map(|count| Goal::Obtain { item, count }).map_err(|said| BadCount { item, said }))
        }
        (None, _) if ws.iter().any(|w| BUILD_WORDS.contains(&w.as_str())) => Some(Ok(Goal::Build)),
        (None, _) => None,
    }
}

/// Reads a goal, a bad count being no goal (see [`read_goal_checked`] for the answer).
pub fn read_goal(text: &str, vocab: &Vocabulary) -> Option<Goal> {
    read_goal_checked(text, vocab).and_then(Result::ok)
}

#[cfg(test)]
mod tests;
