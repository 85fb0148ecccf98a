//! Where the task memory of [`gatecrew_hitl::memory`] is kept between runs: an SQLite
//! file under the user's data directory (`GATECREW_DATA_DIR` or `--memory-db` to put it
//! elsewhere). A file that is not a gatecrew memory, or a damaged one, is an error that
//! says so; it is never replaced or repaired silently.

use std::path::{Path, PathBuf};

pub use gatecrew_hitl::memory::{Fact, Provenance, Record, StoreFault, TaskMemory};
use rusqlite::{Connection, OpenFlags, params};

/// The schema tag in the `meta` table.
const SCHEMA: &str = "gatecrew-memory-1";

/// The environment variable naming the data directory (the memory file goes inside).
pub const DATA_DIR_VAR: &str = "GATECREW_DATA_DIR";

/// A memory store that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MemoryError {
    /// The file is not a gatecrew memory, or it is damaged. It was left as it is.
    #[error(
        "{path}: the task-memory database is unreadable ({detail}); it was left untouched: move it away to start a fresh memory, or pass --memory-db to use another file"
    )]
    Corrupt {
        /// The file at fault.
        path: PathBuf,
        /// What is wrong, in words (the check that failed, the damaged column).
        detail: String,
        /// The error that found it, when one did (SQLite's, JSON's).
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
    },
    /// The folder of the file cannot be created.
    #[error("{path}: cannot open the task-memory database: {source}")]
    Folder {
        /// The file at fault.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file cannot be opened or its tables created.
    #[error("{path}: cannot open the task-memory database: {source}")]
    Open {
        /// The file at fault.
        path: PathBuf,
        /// What SQLite said.
        #[source]
        source: rusqlite::Error,
    },
    /// A query failed on a healthy file.
    #[error("task memory: {0}")]
    Sql(#[from] rusqlite::Error),
    /// No data directory could be found (no home directory).
    #[error("no user data directory; set {DATA_DIR_VAR} or pass --memory-db")]
    NoDataDir,
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
        let open = |source: rusqlite::Error| MemoryError::Open { path: path.to_owned(), source };
        let corrupt = |detail: String, source: Option<rusqlite::Error>| MemoryError::Corrupt {
            path: path.to_owned(),
            detail,
            source: source.map(|e| e.into()),
        };
        if !exists {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|source| MemoryError::Folder { path: path.to_owned(), source })?;
            }
        }
        let flags = if exists {
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX
        } else {
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX
        };
        let conn = Connection::open_with_flags(path, flags).map_err(open)?;
        if exists {
            // Read before anything is written: a foreign or damaged file fails here.
            let check: String =
                conn.query_row("PRAGMA quick_check", [], |r| r.get(0)).map_err(|e| corrupt(e.to_string(), Some(e)))?;
            if check != "ok" {
                return Err(corrupt(format!("integrity check: {check}"), None));
            }
            let tag: Option<String> = conn
                .query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| r.get(0))
                .map_err(|e| corrupt(format!("not a gatecrew memory: {e}"), Some(e)))?;
            if tag.as_deref() != Some(SCHEMA) {
                return Err(corrupt(format!("schema {:?}, expected {SCHEMA}", tag.unwrap_or_default()), None));
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
            .map_err(open)?;
        }
        Ok(Store { conn, path: path.to_owned() })
    }

    /// The SQLite file the store reads and writes.
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
        fn damaged<E: std::error::Error + Send + Sync + 'static>(path: &Path, id: i64, col: &str, e: E) -> MemoryError {
            MemoryError::Corrupt {
                path: path.to_owned(),
                detail: format!("record {id}: column {col}: {e}"),
                source: Some(Box::new(e)),
            }
        }
        let path = self.path.as_path();
        raw.into_iter()
            .map(|(id, world, run, tick, goal, outcome, items, feedback, lessons)| {
                Ok(Record {
                    id,
                    world,
                    run,
                    tick: u64::try_from(tick).map_err(|e| damaged(path, id, "tick", e))?,
                    goal,
                    outcome,
                    items: serde_json::from_str(&items).map_err(|e| damaged(path, id, "items", e))?,
                    feedback: serde_json::from_str(&feedback).map_err(|e| damaged(path, id, "feedback", e))?,
                    lessons: serde_json::from_str(&lessons).map_err(|e| damaged(path, id, "lessons", e))?,
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

impl TaskMemory for Store {
    fn add_record(&self, r: &Record) -> Result<i64, StoreFault> {
        Ok(Store::add_record(self, r)?)
    }
    fn add_fact(&self, f: &Fact) -> Result<(), StoreFault> {
        Ok(Store::add_fact(self, f)?)
    }
    fn records(&self, world: Option<&str>) -> Result<Vec<Record>, StoreFault> {
        Ok(Store::records(self, world)?)
    }
    fn facts(&self, world: Option<&str>) -> Result<Vec<Fact>, StoreFault> {
        Ok(Store::facts(self, world)?)
    }
}
