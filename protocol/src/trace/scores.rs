//! Scores beside TSR that other systems publish, computed at the end of an episode
//! imported from one of their task files and written into `episode_end`.

use serde::{Deserialize, Serialize};

/// MindCraft's and VillagerBench's construction scores. Every field is optional: an
/// episode gets the scores its task file defines (a MineCollab file both, for
/// comparison; the default episode none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskScores {
    /// MindCraft's per-block accuracy: matches / (matches + mismatches) over the
    /// blueprint's cells, skipping cells that are air in both; 1.0 when nothing counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mindcraft_accuracy: Option<f64>,
    /// Cells that match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mindcraft_matches: Option<u32>,
    /// Cells that are missing, wrong or extra.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mindcraft_mismatches: Option<u32>,
    /// VillagerBench's block recall: correct target blocks (facing checked) / target
    /// blocks; 1.0 for an empty target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub villager_recall: Option<f64>,
    /// Target blocks in place with the right facing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub villager_correct: Option<u32>,
    /// Target blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub villager_blocks: Option<u32>,
}

impl TaskScores {
    /// Whether there is no score at all.
    pub fn is_empty(&self) -> bool {
        *self == TaskScores::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Event, EventKind};

    fn end(scores: TaskScores) -> Event {
        Event {
            v: 1,
            ep: "e".into(),
            t: 3,
            kind: EventKind::EpisodeEnd {
                tsr: 1.0,
                complete: true,
                correct_blocks: 4,
                blueprint_blocks: 4,
                reason: crate::trace::EndReason::Complete,
                blocks_replaced: None,
                scores,
            },
        }
    }

    #[test]
    fn scores_are_optional_fields_of_episode_end() {
        let plain = serde_json::to_string(&end(TaskScores::default())).unwrap();
        assert_eq!(
            plain,
            r#"{"v":1,"ep":"e","t":3,"kind":"episode_end","tsr":1.0,"complete":true,"correct_blocks":4,"blueprint_blocks":4,"reason":"complete"}"#
        );
        let scored = end(TaskScores {
            mindcraft_accuracy: Some(0.75),
            mindcraft_matches: Some(3),
            mindcraft_mismatches: Some(1),
            villager_recall: Some(0.5),
            villager_correct: Some(2),
            villager_blocks: Some(4),
        });
        let text = serde_json::to_string(&scored).unwrap();
        assert!(text.ends_with(r#""reason":"complete","mindcraft_accuracy":0.75,"mindcraft_matches":3,"mindcraft_mismatches":1,"villager_recall":0.5,"villager_correct":2,"villager_blocks":4}"#), "{text}");
        assert_eq!(serde_json::from_str::<Event>(&text).unwrap(), scored);
        assert_eq!(serde_json::from_str::<Event>(&plain).unwrap(), end(TaskScores::default()));
    }
}
