//! The suite manifest (`suite.toml`): one entry per episode file.

use std::path::{Path, PathBuf};

use gatecrew_protocol::trace::{Split, SuiteClass};
use serde::{Deserialize, Serialize};

/// One shortage injected into an episode: a bot lacks some of an item, and the class
/// says where the items can come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shortage {
    /// The class this shortage was injected and checked as.
    pub class: SuiteClass,
    /// The bot that lacks the item.
    pub victim: u32,
    /// The item it lacks.
    pub item: String,
    /// How many it lacks.
    pub deficit: u32,
    /// The teammate that holds the items (B, C, a muted D holder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder: Option<u32>,
    /// How it was injected (for people reading the suite).
    pub how: String,
}

/// One episode of the suite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Episode id (also the trace's `ep`).
    pub id: String,
    /// The crew config, relative to the manifest.
    pub file: String,
    /// Template name.
    pub template: String,
    /// Template family.
    pub family: String,
    /// The injected issue's class; in a version 2 suite, the class of the episode's
    /// first (primary) shortage, by which the suite is balanced and reported.
    pub class: SuiteClass,
    /// Seed index within the template (0..5).
    pub seed: u64,
    /// Crew size.
    pub agents: usize,
    /// The split.
    pub split: Split,
    /// The bot the injection targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub victim: Option<u32>,
    /// The item it lacks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// How many it lacks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deficit: Option<u32>,
    /// The teammate that holds the item (B, C, some D).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder: Option<u32>,
    /// How the class was injected (for people reading the suite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub how: Option<String>,
    /// Version 2: every shortage of the episode, the primary one first (the fields
    /// `victim` to `how` above are then left out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shortage: Vec<Shortage>,
}

impl Entry {
    /// The episode's shortages: version 2's list, or version 1's one injection (none
    /// for a standard episode).
    pub fn shortages(&self) -> Vec<Shortage> {
        if !self.shortage.is_empty() {
            return self.shortage.clone();
        }
        match (self.victim, &self.item) {
            (Some(victim), Some(item)) => vec![Shortage {
                class: self.class,
                victim,
                item: item.clone(),
                deficit: self.deficit.unwrap_or(0),
                holder: self.holder,
                how: self.how.clone().unwrap_or_default(),
            }],
            _ => Vec::new(),
        }
    }
}

/// The suite manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Format version: 1 (one injection per episode, flat fields) or 2 (a list of
    /// shortages per episode).
    pub version: u32,
    /// The episodes, in generation order.
    pub episode: Vec<Entry>,
}

/// A manifest that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// More keys than a TOML file may hold (names the file, the key and the bound).
    #[error(transparent)]
    Keys(#[from] gatecrew_protocol::limits::TomlKeysError),
    /// Reading failed.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause (missing, too large, not UTF-8).
        source: gatecrew_protocol::limits::ReadFileError,
    },
    /// The TOML is invalid.
    #[error("{path}: {message}")]
    Syntax {
        /// The file.
        path: PathBuf,
        /// The parser's message (with the line).
        message: String,
    },
    /// An entry that does not fit the manifest's version.
    #[error("{path}: episode {id}: {message}")]
    Entry {
        /// The file.
        path: PathBuf,
        /// The episode.
        id: String,
        /// What is wrong.
        message: String,
    },
    /// An unsupported version.
    #[error("{path}: manifest version {found} is not supported (this build reads versions 1 and 2)")]
    Version {
        /// The file.
        path: PathBuf,
        /// The version found.
        found: u32,
    },
}

impl Manifest {
    /// The manifest file of a suite folder.
    pub fn path_in(dir: &Path) -> PathBuf {
        dir.join("suite.toml")
    }

    /// Reads `DIR/suite.toml`.
    pub fn load(dir: &Path) -> Result<Manifest, ManifestError> {
        let path = Self::path_in(dir);
        let text = gatecrew_protocol::limits::read_text_file(&path)
            .map_err(|source| ManifestError::Io { path: path.clone(), source })?;
        gatecrew_protocol::limits::check_toml_keys(&path, &text)?;
        let m: Manifest =
            toml::from_str(&text).map_err(|e| ManifestError::Syntax { path: path.clone(), message: e.to_string() })?;
        if !(1..=2).contains(&m.version) {
            return Err(ManifestError::Version { path, found: m.version });
        }
        for e in &m.episode {
            let flat = e.victim.is_some() || e.item.is_some() || e.deficit.is_some() || e.holder.is_some();
            let message = match m.version {
                1 if !e.shortage.is_empty() => "a `shortage` list needs manifest version 2",
                2 if flat => "version 2 lists its injections as `[[episode.shortage]]`, not `victim`/`item` fields",
                2 if e.class != SuiteClass::Standard && e.shortage.first().is_none_or(|s| s.class != e.class) => {
                    "the first shortage's class must be the episode's class"
                }
                _ => continue,
            };
            return Err(ManifestError::Entry { path, id: e.id.clone(), message: message.into() });
        }
        Ok(m)
    }

    /// The manifest as TOML.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).unwrap_or_default();
        format!("# The gatecrew episode suite, generated by `gatecrew suite generate`. Do not edit by hand.\n{body}")
    }

    /// Entries of a split (`None` for every entry).
    pub fn split(&self, split: Option<Split>) -> impl Iterator<Item = &Entry> + '_ {
        self.episode.iter().filter(move |e| split.is_none_or(|s| e.split == s))
    }
}
