//! Task-centric memory (paper 000, section 3.4; paper 003's provenance): when a plan
//! completes, fails or is interrupted, its log is summarised deterministically into one
//! record (goal, outcome, items gained, the person's feedback), and the facts worth
//! keeping (where things are) are stored with their provenance: `seen` by the bot,
//! `told` by the person, `inferred` by the bot from what happened. Later runs in the
//! same world read the facts back (a told chest location becomes a fetch alternative).
//!
//! The store is an SQLite file under the user's data directory (`GATECREW_DATA_DIR`
//! or `--memory-db` to put it elsewhere). A file that is not a gatecrew memory, or a
//! damaged one, is an error that says so; it is never replaced or repaired silently.

mod summary;

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, params};
use serde::{Deserialize, Serialize};

pub use summary::{Origin, PlanLog, summarise};

/// The schema tag in the `meta` table.
const SCHEMA: &str = "gatecrew-memory-1";

/// The environment variable naming the data directory (the memory file goes inside).
pub const DATA_DIR_VAR: &str = "GATECREW_DATA_DIR";

/// Where a provenance came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Provenance {
    /// The bot saw it (a verified outcome, an observation).
    Seen,
    /// The person said it.
    Told,
    /// The bot concluded it from what happened.
    Inferred,
}

impl Provenance {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Provenance::Seen => "seen",
            Provenance::Told => "told",
            Provenance::Inferred => "inferred",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "seen" => Provenance::Seen,
            "told" => Provenance::Told,
            "inferred" => Provenance::Inferred,
            _ => return None,
        })
    }
}

/// One summarised plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Row id (0 before it is stored).
    pub id: i64,
    /// The world (episode name) it happened in.
    pub world: String,
    /// The run (episode and seed).
    pub run: String,
    /// The tick the plan ended at.
    pub tick: u64,
    /// The goals, as labelled in the plan.
    pub goal: String,
    /// `completed`, `failed` or `interrupted`.
    pub outcome: String,
    /// Items gained (negative: spent), by name, from the verified inventory: seen.
    pub items: Vec<(String, i64)>,
    /// What the person said about it, in order: told.
    pub feedback: Vec<String>,
    /// What the bot concluded (why a goal failed): inferred.
    pub lessons: Vec<String>,
}

/// A fact about the world.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fact {
    /// The world.
    pub world: String,
    /// `store` (the item is kept at the position) or `no_source` (no way was found).
    pub kind: String,
    /// The item.
    pub item: String,
    /// Where, for a store.
    pub pos: Option<(i32, i32, i32)>,
    /// How many, if known.
    pub count: Option<u32>,
    /// Seen, told or inferred.
    pub provenance: Provenance,
    /// The run that learned it.
    pub run: String,
    /// The tick it was learned at.
    pub tick: u64,
}

/// A memory store that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    /// The file is not a gatecrew memory, or it is damaged. It was left as it is.
    #[error(
        "{path}: the task-memory database is unreadable ({detail}); it was left untouched: move it away to start a fresh memory, or pass --memory-db to use another file"
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What SQLite said.
        detail: String,
    },
    /// The file or its folder cannot be created or opened.
    #[error("{path}: cannot open the task-memory database: {detail}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        detail: String,
    },
    /// A query failed on a healthy file.
    #[error("task memory: {0}")]
    Sql(String),
    /// No data directory could be found (no home directory).
    #[error("no user data directory; set {DATA_DIR_VAR} or pass --memory-db")]
    NoDataDir,
}

impl From<rusqlite::Error> for MemoryError {
    fn from(e: rusqlite::Error) -> Self {
        MemoryError::Sql(e.to_string())
    }
}

/// The default memory file: `$GATECREW_DATA_DIR/memory.sqlite`, else the platform's
/// user data directory (`~/.local/share/gatecrew` on Linux).
pub fn default_path() -> Result<PathBuf, MemoryError> {
    if let Some(d) = std::env::var_os(DATA_DIR_VAR).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(d).join("memory.sqlite"));
    }
    let dirs = directories::ProjectDirs::from("", "", "gatecrew").ok_or(MemoryError::NoDataDir)?;
    Ok(dirs.data_dir().join("memory.sqlite"))
}

/// The store. See the module docs.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens the memory at `path`, creating it (and its folder) when absent. An existing
    /// file must be a healthy gatecrew memory.
    pub fn open(path: &Path) -> Result<Self, MemoryError> {
        let exists = path.exists();
        let io = |e: &dyn std::fmt::Display| MemoryError::Io { path: path.to_owned(), detail: e.to_string() };
        let corrupt = |d: String| MemoryError::Corrupt { path: path.to_owned(), detail: d };
        if !exists {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| io(&e))?;
            }
        }
        let flags = if exists {
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX
        } else {
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX
        };
        let conn = Connection::open_with_flags(path, flags).map_err(|e| io(&e))?;
        if exists {
            // Read before anything is written: a foreign or damaged file fails here.
            let check: String =
                conn.query_row("PRAGMA quick_check", [], |r| r.get(0)).map_err(|e| corrupt(e.to_string()))?;
            if check != "ok" {
                return Err(corrupt(format!("integrity check: {check}")));
            }
            let tag: Option<String> = conn
                .query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| r.get(0))
                .map_err(|e| corrupt(format!("not a gatecrew memory: {e}")))?;
            if tag.as_deref() != Some(SCHEMA) {
                return Err(corrupt(format!("schema {:?}, expected {SCHEMA}", tag.unwrap_or_default())));
            }
        } else {
            conn.execute_batch(&format!(
                "BEGIN;
                 CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                 INSERT INTO meta VALUES ('schema', '{SCHEMA}');
                 CREATE TABLE records (id INTEGER PRIMARY KEY, world TEXT NOT NULL, run TEXT NOT NULL,
                   tick INTEGER NOT NULL, goal TEXT NOT NULL, outcome TEXT NOT NULL, items TEXT NOT NULL,
                   feedback TEXT NOT NULL, lessons TEXT NOT NULL);
                 CREATE TABLE facts (id INTEGER PRIMARY KEY, world TEXT NOT NULL, kind TEXT NOT NULL,
                   item TEXT NOT NULL, x INTEGER, y INTEGER, z INTEGER, count INTEGER,
                   provenance TEXT NOT NULL, run TEXT NOT NULL, tick INTEGER NOT NULL,
                   UNIQUE (world, kind, item, x, y, z));
                 COMMIT;"
            ))
            .map_err(|e| io(&e))?;
        }
        Ok(Store { conn, path: path.to_owned() })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Stores a record; returns its id.
    pub fn add_record(&self, r: &Record) -> Result<i64, MemoryError> {
        let json = |v: &dyn erased::Json| v.to_json();
        self.conn.execute(
            "INSERT INTO records (world, run, tick, goal, outcome, items, feedback, lessons) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![r.world, r.run, r.tick as i64, r.goal, r.outcome, json(&r.items), json(&r.feedback), json(&r.lessons)],
        )?;
        metrics::counter!("gatecrew_hitl_memory_writes_total", "what" => "record").increment(1);
        Ok(self.conn.last_insert_rowid())
    }

    /// Stores a fact, replacing an older one about the same thing.
    pub fn add_fact(&self, f: &Fact) -> Result<(), MemoryError> {
        let tick = i64::try_from(f.tick).unwrap_or(i64::MAX);
        match f.pos {
            Some((x, y, z)) => {
                self.conn.execute(
                    "INSERT INTO facts (world, kind, item, x, y, z, count, provenance, run, tick) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                     ON CONFLICT (world, kind, item, x, y, z) DO UPDATE SET count = excluded.count,
                       provenance = excluded.provenance, run = excluded.run, tick = excluded.tick",
                    params![f.world, f.kind, f.item, x, y, z, f.count, f.provenance.as_str(), f.run, tick],
                )?;
            }
            None => {
                // SQLite's UNIQUE counts NULLs as distinct, so a fact without a position
                // (`no_source`) never conflicted and every run inserted another row:
                // update it where it is, insert only when there is none.
                let tx = self.conn.unchecked_transaction()?;
                let updated = tx.execute(
                    "UPDATE facts SET count = ?4, provenance = ?5, run = ?6, tick = ?7
                     WHERE world = ?1 AND kind = ?2 AND item = ?3 AND x IS NULL AND y IS NULL AND z IS NULL",
                    params![f.world, f.kind, f.item, f.count, f.provenance.as_str(), f.run, tick],
                )?;
                if updated == 0 {
                    tx.execute(
                        "INSERT INTO facts (world, kind, item, x, y, z, count, provenance, run, tick)
                         VALUES (?1, ?2, ?3, NULL, NULL, NULL, ?4, ?5, ?6, ?7)",
                        params![f.world, f.kind, f.item, f.count, f.provenance.as_str(), f.run, tick],
                    )?;
                }
                tx.commit()?;
            }
        }
        metrics::counter!("gatecrew_hitl_memory_writes_total", "what" => "fact").increment(1);
        Ok(())
    }

    /// Every record, oldest first; only one world's when `world` is given.
    pub fn records(&self, world: Option<&str>) -> Result<Vec<Record>, MemoryError> {
        let mut st = self.conn.prepare(
            "SELECT id, world, run, tick, goal, outcome, items, feedback, lessons FROM records
             WHERE ?1 IS NULL OR world = ?1 ORDER BY id",
        )?;
        type Raw = (i64, String, String, i64, String, String, String, String, String);
        let rows = st.query_map(params![world], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?))
        })?;
        let raw: Vec<Raw> = rows.collect::<Result<Vec<_>, _>>()?;
        // A damaged column is reported with its record, not read back as empty.
        let damaged = |id: i64, col: &str, e: &dyn std::fmt::Display| MemoryError::Corrupt {
            path: self.path.clone(),
            detail: format!("record {id}: column {col}: {e}"),
        };
        raw.into_iter()
            .map(|(id, world, run, tick, goal, outcome, items, feedback, lessons)| {
                Ok(Record {
                    id,
                    world,
                    run,
                    tick: u64::try_from(tick).map_err(|e| damaged(id, "tick", &e))?,
                    goal,
                    outcome,
                    items: serde_json::from_str(&items).map_err(|e| damaged(id, "items", &e))?,
                    feedback: serde_json::from_str(&feedback).map_err(|e| damaged(id, "feedback", &e))?,
                    lessons: serde_json::from_str(&lessons).map_err(|e| damaged(id, "lessons", &e))?,
                })
            })
            .collect()
    }

    /// Every fact, in a fixed order; only one world's when `world` is given.
    pub fn facts(&self, world: Option<&str>) -> Result<Vec<Fact>, MemoryError> {
        let mut st = self.conn.prepare(
            "SELECT world, kind, item, x, y, z, count, provenance, run, tick FROM facts
             WHERE (?1 IS NULL OR world = ?1)
               -- Files written before the fix hold duplicates of facts without a
               -- position: the newest counts (GROUP BY, unlike UNIQUE, takes NULLs alike).
               AND id IN (SELECT MAX(id) FROM facts GROUP BY world, kind, item, x, y, z)
             ORDER BY world, kind, item, x, y, z",
        )?;
        let rows = st.query_map(params![world], |r| {
            let (x, y, z): (Option<i32>, Option<i32>, Option<i32>) = (r.get(3)?, r.get(4)?, r.get(5)?);
            let prov: String = r.get(7)?;
            let damaged = |col: usize, what: String| {
                rusqlite::Error::FromSqlConversionFailure(col, rusqlite::types::Type::Text, what.into())
            };
            Ok(Fact {
                world: r.get(0)?,
                kind: r.get(1)?,
                item: r.get(2)?,
                pos: match (x, y, z) {
                    (Some(x), Some(y), Some(z)) => Some((x, y, z)),
                    _ => None,
                },
                count: r.get(6)?,
                provenance: Provenance::parse(&prov).ok_or_else(|| damaged(7, format!("provenance {prov:?}")))?,
                run: r.get(8)?,
                tick: u64::try_from(r.get::<_, i64>(9)?).map_err(|e| damaged(9, format!("tick: {e}")))?,
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }
}

mod erased {
    /// Serialises a list to JSON for a text column (never fails for these types).
    pub trait Json {
        fn to_json(&self) -> String;
    }
    impl<T: serde::Serialize> Json for T {
        fn to_json(&self) -> String {
            serde_json::to_string(self).unwrap_or_else(|_| "[]".into())
        }
    }
}
