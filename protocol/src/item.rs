//! Items, named as Minecraft names them, checked against the game data.

use std::collections::HashMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// An item known to the loaded [`ItemRegistry`]. Only the registry hands these out, so
/// a value in hand names a real item of the pinned game version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ItemId(pub u16);

impl ItemId {
    /// The id as an index into per-item tables.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// The item names and stack sizes of one game version, in the data file's order.
#[derive(Debug, Clone, Default)]
pub struct ItemRegistry {
    names: Vec<Box<str>>,
    stacks: Vec<u16>,
    index: HashMap<Box<str>, ItemId>,
}

/// An item name that the game data does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown item \"{name}\"{}", suggestion_text(.suggestion))]
pub struct UnknownItem {
    /// The name as written.
    pub name: String,
    /// The closest known name, when one is close.
    pub suggestion: Option<String>,
}

fn suggestion_text(s: &Option<String>) -> String {
    s.as_ref().map(|s| format!(" (did you mean \"{s}\"?)")).unwrap_or_default()
}

/// A registry that cannot be built from the given entries.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// The same name twice.
    #[error("item \"{0}\" is listed twice")]
    Duplicate(String),
    /// A stack size of zero or above 64.
    #[error("item \"{name}\" has stack size {stack}, expected 1..=64")]
    BadStack {
        /// The item.
        name: String,
        /// Its stack size.
        stack: u32,
    },
    /// More items than an [`ItemId`] can address.
    #[error("too many items ({0})")]
    TooMany(usize),
}

impl ItemRegistry {
    /// Builds a registry from `(name, stack size)` pairs, ids in the given order.
    pub fn new<S: Into<String>>(entries: impl IntoIterator<Item = (S, u32)>) -> Result<Self, RegistryError> {
        let mut reg = ItemRegistry::default();
        for (name, stack) in entries {
            let name: String = name.into();
            if !(1..=64).contains(&stack) {
                return Err(RegistryError::BadStack { name, stack });
            }
            let id = u16::try_from(reg.names.len()).map_err(|_| RegistryError::TooMany(reg.names.len()))?;
            if reg.index.insert(name.clone().into_boxed_str(), ItemId(id)).is_some() {
                return Err(RegistryError::Duplicate(name));
            }
            reg.names.push(name.into_boxed_str());
            // `stack` is 1..=64 here.
            reg.stacks.push(stack as u16);
        }
        Ok(reg)
    }

    /// Looks a name up; a `minecraft:` prefix is accepted.
    pub fn parse(&self, name: &str) -> Result<ItemId, UnknownItem> {
        let bare = name.strip_prefix("minecraft:").unwrap_or(name);
        self.index
            .get(bare)
            .copied()
            .ok_or_else(|| UnknownItem { name: name.to_owned(), suggestion: self.closest(bare) })
    }

    /// The item's name.
    ///
    /// # Panics
    /// If the id did not come from this registry: ids are only minted by [`Self::parse`].
    pub fn name(&self, id: ItemId) -> &str {
        &self.names[id.index()]
    }

    /// How many of the item fit in one inventory slot.
    pub fn stack_size(&self, id: ItemId) -> u32 {
        u32::from(self.stacks[id.index()])
    }

    /// Whether the id belongs to this registry.
    pub fn contains(&self, id: ItemId) -> bool {
        id.index() < self.names.len()
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the registry is empty.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// A displayable `name` for an id, or `#<n>` for a foreign id, for error messages.
    pub fn display(&self, id: ItemId) -> ItemName<'_> {
        ItemName { reg: self, id }
    }

    fn closest(&self, name: &str) -> Option<String> {
        self.names
            .iter()
            .map(|n| (strsim::levenshtein(name, n), n))
            .filter(|(d, n)| *d <= 2.max(n.len() / 4))
            .min_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)))
            .map(|(_, n)| n.to_string())
    }
}

/// See [`ItemRegistry::display`].
pub struct ItemName<'a> {
    reg: &'a ItemRegistry,
    id: ItemId,
}

impl fmt::Display for ItemName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.reg.contains(self.id) { f.write_str(self.reg.name(self.id)) } else { write!(f, "#{}", self.id.0) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg() -> ItemRegistry {
        ItemRegistry::new([("oak_planks", 64), ("oak_door", 64), ("bucket", 16)]).unwrap()
    }

    #[test]
    fn parses_names_with_and_without_namespace() {
        let r = reg();
        assert_eq!(r.parse("oak_door").unwrap(), ItemId(1));
        assert_eq!(r.parse("minecraft:bucket").unwrap(), ItemId(2));
        assert_eq!(r.stack_size(ItemId(2)), 16);
    }

    #[test]
    fn unknown_name_suggests_the_closest() {
        let err = reg().parse("oak_plank").unwrap_err();
        assert_eq!(err.suggestion.as_deref(), Some("oak_planks"));
        assert!(err.to_string().contains("did you mean \"oak_planks\""));
        assert_eq!(reg().parse("zzzzzzzzzzzz").unwrap_err().suggestion, None);
    }

    #[test]
    fn rejects_duplicates_and_bad_stacks() {
        assert!(matches!(ItemRegistry::new([("a", 64), ("a", 1)]), Err(RegistryError::Duplicate(_))));
        assert!(matches!(ItemRegistry::new([("a", 0)]), Err(RegistryError::BadStack { .. })));
    }
}
