//! `gatecrew check` on a kitchen trace (`gatecrew cos --trace`): the kitchen's own
//! reader and fold, the ones `gatecrew analyze` uses, so a file `check` passes is one
//! `analyze` reads whole. As for construction traces, a truncated last line and an
//! episode without its `kitchen_end` are defects here (`analyze` warns and leaves them
//! out).

use std::io::{BufReader, Read};
use std::path::Path;

use gatecrew_kitchen::trace::{FileFold, Folded, KitchenReader, LineErrorKind};

use super::Defect;

/// Every defect of the kitchen trace `file`, in line order.
/// `stream` is the file's bytes, opened once by the caller.
pub(super) fn trace(file: &Path, stream: impl Read) -> Vec<Defect> {
    let mut defects = Vec::new();
    let mut reader = KitchenReader::new(BufReader::new(stream));
    // After an event that does not fit its episode the fold's state means nothing:
    // later lines are still parsed (each is checked on its own), no longer folded.
    let mut fold = Some(FileFold::new());
    let mut episodes = 0u64;
    let cut = |ep: &dyn std::fmt::Display| Defect {
        file: file.to_path_buf(),
        line: None,
        message: format!("episode {ep} has no kitchen_end (cut short)"),
    };
    for item in reader.by_ref() {
        let (line, rec) = match item {
            Ok(x) => x,
            Err(e) => {
                defects.push(Defect { file: file.to_path_buf(), line: Some(e.line), message: e.kind.to_string() });
                continue;
            }
        };
        let Some(f) = fold.as_mut() else { continue };
        match f.push(&rec) {
            Ok(Folded::Going) => {}
            Ok(Folded::Done(_)) => episodes += 1,
            Ok(Folded::CutShort(ep)) => defects.push(cut(&ep)),
            Err(why) => {
                let kind = LineErrorKind::Invalid(why);
                defects.push(Defect { file: file.to_path_buf(), line: Some(line), message: kind.to_string() });
                fold = None;
            }
        }
    }
    if let Some(ep) = fold.and_then(FileFold::finish) {
        defects.push(cut(&ep));
    }
    if episodes == 0 && defects.is_empty() {
        defects.push(Defect { file: file.to_path_buf(), line: None, message: "no complete kitchen episode".into() });
    }
    defects
}
