//! Cells of a task that can never be built, left out with a warning each so that the
//! rest of the task runs, as MindCraft and VillagerBench run such tasks.
//!
//! MindCraft's own generator writes carpets over air and doors with a wall where their
//! top goes (a third of its generated houses hold one); such a cell can never stay as
//! written in Minecraft. The blueprint's partial build
//! ([`Blueprint::from_states_partial`]) names each and why; here they are moved from the
//! task's cells to [`ImportedTask::left_out`] with a warning naming the cell in the
//! file's own coordinates.

use std::collections::BTreeMap;
use std::path::Path;

use gatecrew_protocol::Pos;
use gatecrew_world::{BlockId, Blueprint, GameData, LeftOutReason};

use crate::error::{TaskError, TaskErrorKind};
use crate::task::{ImportedTask, Warning};

/// Blocks no item places in this world (`fire`, lit by flint and steel in Minecraft)
/// cannot be built by a bot: such cells are left out of the blueprint and reported, so
/// the rest of the task still runs.
pub(crate) fn leave_out_unplaceable(mut task: ImportedTask, data: &GameData, at: &str) -> ImportedTask {
    let mut left: BTreeMap<BlockId, (usize, Pos)> = BTreeMap::new();
    let mut gone = Vec::new();
    task.cells.retain(|c| {
        let keep = c.block == BlockId::AIR || data.block_info(c.block).item.is_some();
        if !keep {
            left.entry(c.block).or_insert((0, c.pos)).0 += 1;
            gone.push(*c);
        }
        keep
    });
    task.left_out.extend(gone);
    for (b, (n, pos)) in left {
        task.warnings.push(Warning {
            path: at.to_owned(),
            cells: n,
            message: format!(
                "{n} \"{}\" cell{} (first at {pos}) left out: no item places it in this world",
                data.block_name(b),
                if n == 1 { "" } else { "s" }
            ),
        });
    }
    task
}

/// The corner a site is shifted by ([`crate::site::setup`] puts it at the origin): the
/// lowest cell is on the ground.
pub(crate) fn low_corner(task: &ImportedTask) -> Option<Pos> {
    let first = task.cells.first()?.pos;
    Some(task.cells.iter().fold(first, |m, c| Pos::new(m.x.min(c.pos.x), m.y.min(c.pos.y), m.z.min(c.pos.z))))
}

/// Leaves out every cell that can never stand as the file writes it, and what stood
/// only on such a cell. Leaving out the lowest cells raises the ground, so the check
/// repeats until the corner stays where it is.
pub(crate) fn leave_out_unbuildable(
    mut task: ImportedTask,
    data: &GameData,
    at: &str,
    file: &Path,
) -> Result<ImportedTask, TaskError> {
    while let Some(lo) = low_corner(&task) {
        // Far-apart cells are refused by the site setup with their span; nothing to do here.
        let fits = task.cells.iter().all(|c| {
            [(c.pos.x, lo.x), (c.pos.y, lo.y), (c.pos.z, lo.z)]
                .iter()
                .all(|(a, b)| i64::from(*a) - i64::from(*b) <= crate::site::MAX_SPAN)
        });
        if !fits {
            break;
        }
        let shift = |p: Pos| Pos::new(p.x - lo.x, p.y - lo.y, p.z - lo.z);
        let back = |p: Pos| Pos::new(p.x + lo.x, p.y + lo.y, p.z + lo.z);
        let cells = task.cells.iter().map(|c| (shift(c.pos), c.block, c.state));
        let (bp, left) = match Blueprint::from_states_partial(&task.id, cells, file, data) {
            Ok(v) => v,
            // What the site setup refuses anyway (a cell outside the world): it says so there.
            Err(_) => break,
        };
        if left.is_empty() {
            break;
        }
        let why: BTreeMap<Pos, (BlockId, &LeftOutReason)> =
            left.iter().map(|l| (back(l.pos), (l.block, &l.reason))).collect();
        let mut gone = Vec::new();
        task.cells.retain(|c| {
            let keep = c.block == BlockId::AIR || bp.cell_at(shift(c.pos)).is_some();
            if !keep {
                gone.push(*c);
            }
            keep
        });
        for c in &gone {
            let message = match why.get(&c.pos) {
                Some((block, reason)) => reason.describe_in(*block, shift(c.pos), data, back),
                // The top of a two-cell block whose lower half went.
                None if why.contains_key(&c.pos.down()) => {
                    format!("the top half of the {} at {}, left out with it", data.block_name(c.block), c.pos.down())
                }
                None => format!("{} at {} stood only on cells left out", data.block_name(c.block), c.pos),
            };
            task.warnings.push(Warning { path: at.to_owned(), cells: 1, message: format!("{message}; left out") });
        }
        if gone.is_empty() {
            return Err(TaskError::new(
                file,
                TaskErrorKind::Invalid(format!(
                    "task \"{}\": {} cells cannot be built and none of them is a cell of the task",
                    task.id,
                    left.len()
                )),
            ));
        }
        task.left_out.extend(gone);
        if low_corner(&task).map(|l| l.y) == Some(lo.y) {
            break;
        }
    }
    Ok(task)
}
