//! The `episodes` table: one row per episode with the counts `gatecrew analyze` pools.

use std::path::Path;

use gatecrew_protocol::metrics::EpisodeMetrics;

use super::sink::{Bool, Col, F64, Format, Sink, Str, U32, U64, table, write_err};
use super::{BATCH_ROWS, ExportError, Labels};

table!(
    Row,
    Columns {
        ep: Str,
        policy: Str,
        class: Str,
        seed: U64,
        split: Str,
        template: Str,
        blueprint: Str,
        config_hash: Str,
        file: Str,
        agents: U32,
        blueprint_blocks: U32,
        correct_blocks: U32,
        tsr: F64,
        complete: Bool,
        end_reason: Str,
        ticks: U64,
        cs: U64,
        msg: U64,
        msg_tokens: U64,
        rejected: U64,
        issues: U64,
        waits: U64,
        waits_cleared: U64,
        gated: U64,
        gray: U64,
        escalated: U64,
        escalated_unnecessary: U64,
        unnecessary_300: U64,
        unnecessary_600: U64,
        unnecessary_1200: U64,
        unnecessary_2400: U64,
        escalated_faster: U64,
        resolved_local: U64,
        resolved_board: U64,
        windows_opened: U64,
        windows_confirmed: U64,
        adjudications: U64,
        llm_tokens: U64,
        fallbacks: U64,
        local_recovery_ticks: U64,
        item_issues: U64,
        item_resolved_local: U64,
        item_resolved_board: U64,
        retries: U64,
        retries_resolved: U64,
        escalated_unnecessary_known: U64,
        consults: U64,
    }
);

/// The episodes table being written.
pub(crate) struct Table {
    cols: Columns,
    sink: Sink,
}

impl Table {
    pub fn new(format: Format, path: &Path) -> Result<Self, ExportError> {
        Ok(Table { cols: Columns::new(), sink: Sink::create(format, path, Columns::schema())? })
    }

    pub fn push(&mut self, l: &Labels, m: &EpisodeMetrics, file: &Path) -> Result<(), ExportError> {
        self.cols.append(Row {
            ep: Some(l.ep.clone()),
            policy: l.policy.clone(),
            class: l.class.clone(),
            seed: l.seed,
            split: l.split.clone(),
            template: l.template.clone(),
            blueprint: l.blueprint.clone(),
            config_hash: l.config_hash.clone(),
            file: Some(file.display().to_string()),
            agents: Some(m.agents),
            blueprint_blocks: l.blueprint_blocks,
            correct_blocks: l.correct_blocks,
            tsr: Some(m.tsr),
            complete: Some(m.complete),
            end_reason: m.end_reason.map(|r| r.as_str().to_owned()),
            ticks: Some(m.ticks),
            cs: Some(m.cs),
            msg: Some(m.msg),
            msg_tokens: Some(m.msg_tokens),
            rejected: Some(m.rejected),
            issues: Some(m.issues),
            waits: Some(m.waits),
            waits_cleared: Some(m.waits_cleared),
            gated: Some(m.gated),
            gray: Some(m.gray),
            escalated: Some(m.escalated),
            escalated_unnecessary: Some(m.escalated_unnecessary),
            unnecessary_300: Some(m.escalated_unnecessary_within[0]),
            unnecessary_600: Some(m.escalated_unnecessary_within[1]),
            unnecessary_1200: Some(m.escalated_unnecessary_within[2]),
            unnecessary_2400: Some(m.escalated_unnecessary_within[3]),
            escalated_faster: Some(m.escalated_faster()),
            resolved_local: Some(m.resolved_local),
            resolved_board: Some(m.resolved_board),
            windows_opened: Some(m.windows_opened),
            windows_confirmed: Some(m.windows_confirmed),
            adjudications: Some(m.adjudications),
            llm_tokens: Some(m.tokens),
            fallbacks: Some(m.fallbacks),
            local_recovery_ticks: Some(m.local_recovery_ticks),
            item_issues: Some(m.acct.item_issues),
            item_resolved_local: Some(m.acct.item_resolved_local),
            item_resolved_board: Some(m.acct.item_resolved_board),
            retries: Some(m.acct.retries),
            retries_resolved: Some(m.acct.retries_resolved),
            escalated_unnecessary_known: Some(m.acct.escalated_unnecessary_known),
            consults: Some(m.acct.consults),
        });
        if self.cols.rows() >= BATCH_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), ExportError> {
        if self.cols.rows() == 0 {
            return Ok(());
        }
        let batch = self.cols.finish(self.sink.schema()).map_err(|e| write_err(self.sink.path(), e))?;
        self.sink.write(&batch)
    }

    pub fn close(mut self) -> Result<gatecrew_protocol::replace::Replacement, ExportError> {
        self.flush()?;
        self.sink.close()
    }
}
