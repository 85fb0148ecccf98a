//! Block and item names: the optional alias table (`configs/aliases.toml`) for names
//! other systems spell differently from our Minecraft 1.20.4 data, and a resolver that
//! collects every unknown name with its JSON path instead of stopping at the first.
//!
//! ```toml
//! [names]
//! grass = "short_grass"    # renamed in 1.20.3
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use gatecrew_protocol::ItemId;
use gatecrew_world::state::StateError;
use gatecrew_world::{BlockId, BlockState, GameData};
use serde::Deserialize;

use crate::error::{TaskError, TaskErrorKind};

/// Old or foreign name -> our name, for blocks and items alike.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Aliases {
    names: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AliasFile {
    #[serde(default)]
    names: BTreeMap<String, String>,
}

impl Aliases {
    /// No aliases.
    pub fn none() -> Self {
        Aliases::default()
    }

    /// Loads an alias table; a missing file is an error (callers check first).
    pub fn load(path: &Path, data: &GameData) -> Result<Self, TaskError> {
        let text = gatecrew_protocol::limits::read_text_file(path)
            .map_err(|e| TaskError::new(path, TaskErrorKind::Io(e.to_string())))?;
        Self::parse(&text, path, data)
    }

    /// Parses an alias table; every target must be a name the data knows.
    pub fn parse(text: &str, path: &Path, data: &GameData) -> Result<Self, TaskError> {
        if let Err(e) = gatecrew_protocol::limits::check_toml_keys(path, text) {
            let message = format!("key `{}`: {}", e.key, e.what());
            return Err(TaskError::new(path, TaskErrorKind::Syntax { line: e.line, column: 1, message }));
        }
        let file: AliasFile = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(0, |s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            TaskError::new(path, TaskErrorKind::Syntax { line, column: 1, message: e.message().to_owned() })
        })?;
        let bad: Vec<(String, String)> = file
            .names
            .iter()
            .filter(|(_, to)| data.block(to).is_none() && data.item(to).is_err())
            .map(|(from, to)| (format!("names.{from}"), format!("alias target \"{to}\" is not a block or item")))
            .collect();
        if !bad.is_empty() {
            return Err(TaskError::new(path, TaskErrorKind::UnknownNames(bad)));
        }
        Ok(Aliases { names: file.names })
    }

    /// Our name for `name` (itself when no alias applies).
    pub fn map<'a>(&'a self, name: &'a str) -> &'a str {
        self.names.get(name).map_or(name, String::as_str)
    }

    /// Number of aliases.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Resolves names against the data, collecting every failure with its JSON path.
pub(crate) struct Resolver<'a> {
    data: &'a GameData,
    aliases: &'a Aliases,
    problems: Vec<(String, String)>,
}

impl<'a> Resolver<'a> {
    pub fn new(data: &'a GameData, aliases: &'a Aliases) -> Self {
        Resolver { data, aliases, problems: Vec::new() }
    }

    /// A block name with a state built by the caller.
    pub fn block(&mut self, name: &str, state: BlockState, path: &str) -> Option<(BlockId, BlockState)> {
        let data = self.data;
        let aliases = self.aliases;
        let trimmed = name.trim();
        let ours = aliases.map(trimmed.strip_prefix("minecraft:").unwrap_or(trimmed));
        match data.block(ours) {
            Some(b) => Some((b, state)),
            None => {
                let hint = data.suggest_block(ours).map(|s| format!(" (did you mean \"{s}\"?)")).unwrap_or_default();
                self.problems.push((path.to_owned(), format!("unknown block \"{name}\"{hint}")));
                None
            }
        }
    }

    /// An item name.
    pub fn item(&mut self, name: &str, path: &str) -> Option<ItemId> {
        let ours = self.canonical_owned(name);
        match self.data.item(&ours) {
            Ok(i) => Some(i),
            Err(e) => {
                self.problems.push((path.to_owned(), e.to_string()));
                None
            }
        }
    }

    fn canonical_owned(&self, name: &str) -> String {
        let trimmed = name.trim();
        self.aliases.map(trimmed.strip_prefix("minecraft:").unwrap_or(trimmed)).to_owned()
    }

    /// Records another problem found while reading names (a bad facing); the same
    /// problem at the same path is listed once.
    pub fn problem(&mut self, path: String, msg: String) {
        if !self.problems.iter().any(|(p, m)| *p == path && *m == msg) {
            self.problems.push((path, msg));
        }
    }

    /// A block's name, for messages.
    pub fn block_name(&self, b: BlockId) -> &str {
        self.data.block_name(b)
    }

    /// `name[key=value, ...]` -> block and state, leniently: a property this world does
    /// not model (`age=3`, `lit=false`) is returned as `key=value` instead of refused.
    pub fn block_spec_lenient(&mut self, spec: &str, path: &str) -> Option<(BlockId, BlockState, Vec<String>)> {
        let spec = spec.trim();
        let (name, props) = match spec.find('[') {
            None => (spec, ""),
            Some(open) => match spec[open + 1..].strip_suffix(']') {
                Some(inner) => (spec[..open].trim(), inner),
                None => {
                    self.problem(
                        path.to_owned(),
                        format!("malformed block state in \"{spec}\": expected name[key=value, ...]"),
                    );
                    return None;
                }
            },
        };
        let mut state = BlockState::default();
        let mut unmodelled = Vec::new();
        for part in props.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((k, v)) = part.split_once('=') else {
                self.problem(
                    path.to_owned(),
                    format!("malformed block state in \"{spec}\": expected name[key=value, ...]"),
                );
                return None;
            };
            match state.set_property(k.trim(), v) {
                Ok(()) => {}
                Err(StateError::UnknownProperty(_)) => unmodelled.push(format!("{}={}", k.trim(), v.trim())),
                Err(e) => {
                    self.problem(path.to_owned(), e.to_string());
                    return None;
                }
            }
        }
        let (b, s) = self.block(name, state, path)?;
        Some((b, s, unmodelled))
    }

    /// Every problem at once, or nothing.
    pub fn finish(self, file: &Path) -> Result<(), TaskError> {
        if self.problems.is_empty() {
            Ok(())
        } else {
            Err(TaskError::new(file, TaskErrorKind::UnknownNames(self.problems)))
        }
    }
}
