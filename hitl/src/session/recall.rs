//! Task memory in the session: facts remembered from earlier runs in this world are
//! read at the start; a plan that completed, failed or was interrupted is summarised.

use gatecrew_protocol::trace::{EventKind, MemoryNote, MemoryOp};
use gatecrew_protocol::{Pos, Tick};

use super::Partner;
use crate::knowledge::Told;
use crate::memory::{Fact, Origin, PlanLog, Provenance, summarise};

impl Partner {
    /// The trace's note that fact `f` of an earlier run was read back.
    fn note_read(&mut self, f: &Fact) {
        self.events.push(EventKind::Memory(MemoryNote {
            agent: self.cfg.agent,
            op: MemoryOp::Read,
            text: format!("{} (run {}, tick {})", fact_text(f), f.run, f.tick),
            provenance: f.provenance,
        }));
    }

    pub(super) fn read_memory(&mut self) {
        let Some(store) = &self.store else { return };
        let facts = match store.facts(Some(&self.cfg.world)) {
            Ok(f) => f,
            Err(e) => {
                tracing::warn!(error = %e, "task memory unreadable; going on without it");
                return;
            }
        };
        for f in facts {
            if f.kind == "no_source" {
                // No way was found to the item in an earlier run: a failure says so.
                if let Ok(item) = self.data.item(&f.item) {
                    self.no_source.insert(item, f.run.clone());
                    self.note_read(&f);
                }
                continue;
            }
            if f.kind != "store" {
                // A landmark or a preference the person told in an earlier run.
                if self.recall_note(&f) {
                    self.note_read(&f);
                }
                continue;
            }
            let (Some((x, y, z)), Ok(item)) = (f.pos, self.data.item(&f.item)) else { continue };
            let pos = Pos::new(x, y, z);
            self.know.tell(Told { item, pos, count: f.count.filter(|c| *c > 0) });
            let text = format!("{} in the chest at ({x}, {y}, {z}) (run {}, tick {})", f.item, f.run, f.tick);
            self.events.push(EventKind::Memory(MemoryNote {
                agent: self.cfg.agent,
                op: MemoryOp::Read,
                text,
                provenance: f.provenance,
            }));
        }
    }

    /// Summarises the plan into task memory (when it completed, failed or was
    /// interrupted) and starts a fresh log.
    pub(super) fn remember(&mut self, outcome: &str) {
        if self.plan.children(self.plan.root()).is_empty() {
            return;
        }
        let at = Origin { world: &self.cfg.world, run: &self.cfg.run, tick: self.now };
        let (record, facts) = summarise(&self.log, &self.plan, outcome, &self.inv, &self.know, &self.data, &at);
        let text = format!("{}: {}", record.goal, record.outcome);
        if let Some(store) = &self.store {
            if let Err(e) = store.add_record(&record) {
                tracing::warn!(error = %e, "task memory: the record was not stored");
            }
            for f in &facts {
                if let Err(e) = store.add_fact(f) {
                    tracing::warn!(error = %e, "task memory: a fact was not stored");
                }
            }
        }
        self.events.push(EventKind::Memory(MemoryNote {
            agent: self.cfg.agent,
            op: MemoryOp::Write,
            text,
            provenance: Provenance::Seen,
        }));
        for f in facts {
            self.events.push(EventKind::Memory(MemoryNote {
                agent: self.cfg.agent,
                op: MemoryOp::Write,
                text: fact_text(&f),
                provenance: f.provenance,
            }));
        }
        self.log = PlanLog::new(self.now, &self.inv);
    }

    /// The episode ends: an unfinished plan is remembered as interrupted.
    pub fn finish(&mut self, now: Tick) {
        self.flush(now);
        self.now = now;
        if !self.plan.open_goals().is_empty() {
            self.remember("interrupted");
        }
    }
}

pub(super) fn fact_text(f: &Fact) -> String {
    match f.pos {
        Some((x, y, z)) => {
            format!("{} {} at ({x}, {y}, {z}){}", f.kind, f.item, f.count.map(|c| format!(" x{c}")).unwrap_or_default())
        }
        None => format!("{} {}", f.kind, f.item),
    }
}
