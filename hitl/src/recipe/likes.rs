//! What the person said they like ("i like spruce", "i prefer birch planks") as the
//! recipe planner's taste. A way to obtain an item is liked when a preference names
//! the item itself or what the way makes it from: a recipe's ingredient, the block
//! mined, the smelt's input. So with "i like spruce" a chest (any planks will do) is
//! crafted from spruce planks, and spruce planks are taken from a chest that holds
//! them as gladly as crafted. A preference names an item when each of its words is a
//! word of the item's name ("spruce" names spruce planks and spruce logs) or when the
//! vocabulary reads the words as that item ("cobble" is cobblestone).

use gatecrew_protocol::ItemId;
use gatecrew_world::GameData;

use crate::words::{Vocabulary, singular, words};

/// The person's preferences, newest first. See the module docs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Likes {
    /// Each preference's words (singular), newest first.
    wishes: Vec<Vec<String>>,
}

impl Likes {
    /// Preferences as said ("spruce", "birch planks"), newest first.
    pub fn new<'a>(newest_first: impl IntoIterator<Item = &'a str>) -> Self {
        let wishes = newest_first
            .into_iter()
            .map(|w| words(w).iter().map(|x| singular(x)).collect::<Vec<_>>())
            .filter(|w| !w.is_empty())
            .collect();
        Likes { wishes }
    }

    /// Whether no preference was said.
    pub fn is_empty(&self) -> bool {
        self.wishes.is_empty()
    }

    /// How the preferences rank a name (an item's or a block's, `snake_case`): 0 for
    /// the newest preference naming it, 1 for the one before; `usize::MAX` for none.
    pub fn rank_name(&self, name: &str) -> usize {
        let parts: Vec<String> = name.split('_').map(singular).collect();
        self.wishes.iter().position(|w| w.iter().all(|x| parts.contains(x))).unwrap_or(usize::MAX)
    }

    /// How the preferences rank an item (see [`Self::rank_name`]); the vocabulary's
    /// reading of a preference's words counts too.
    pub fn rank(&self, data: &GameData, vocab: &Vocabulary, item: ItemId) -> usize {
        if self.wishes.is_empty() {
            return usize::MAX;
        }
        let by_name = self.rank_name(data.item_name(item));
        let by_vocab = self
            .wishes
            .iter()
            .position(|w| {
                let named = vocab.items_in(w);
                matches!(named.as_slice(), [(i, r)] if *i == item && r.len() == w.len())
            })
            .unwrap_or(usize::MAX);
        by_name.min(by_vocab)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> GameData {
        GameData::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../configs/data/minecraft-1.20.4.json"
        )))
        .unwrap()
    }

    #[test]
    fn a_preference_names_the_items_whose_names_hold_its_words_newest_first() {
        let d = data();
        let v = Vocabulary::new(&d).unwrap();
        let likes = Likes::new(["birch planks", "spruce"]);
        let item = |n: &str| d.item(n).unwrap();
        assert_eq!(likes.rank(&d, &v, item("birch_planks")), 0);
        assert_eq!(likes.rank(&d, &v, item("spruce_planks")), 1);
        assert_eq!(likes.rank(&d, &v, item("spruce_log")), 1);
        // "birch planks" is two words: birch logs are not named by it.
        assert_eq!(likes.rank(&d, &v, item("birch_log")), usize::MAX);
        assert_eq!(likes.rank(&d, &v, item("oak_planks")), usize::MAX);
        // Words the vocabulary reads as an item.
        assert_eq!(Likes::new(["cobble"]).rank(&d, &v, item("cobblestone")), 0);
        assert_eq!(Likes::default().rank(&d, &v, item("spruce_planks")), usize::MAX);
        assert_eq!(Likes::new(["spruce"]).rank_name("spruce_log"), 0);
    }
}
