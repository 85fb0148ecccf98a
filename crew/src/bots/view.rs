//! What of the crew a model-driven bot's prompt holds beside its private state: the
//! partition made real (DESIGN section 6, "Bots"). Which lines enter depends on the
//! policy's style ([`crate::style::Style::model_view`]):
//!
//! * [`View::Addressed`] (`gated`, `rule_*`, `no_gate`, and the bots of `central_dag`):
//!   only the protocol messages addressed to the bot, each kept while its window is open
//!   (a closed exchange is history, and the bot's own `H` says what came of its asks);
//!   under `central_dag`, the manager's last order to it. Bounded by the windows open
//!   with the bot.
//! * [`View::Board`] (`no_partition`): every board message since the start, and the
//!   teammates it sees. It grows with the board.
//! * [`View::Chat`] (`flatcomm`, `gated_flatcomm`): the chat as MindCraft keeps it:
//!   every line, until [`MINDCRAFT_MAX_MESSAGES`] are held, when the oldest
//!   [`MINDCRAFT_SUMMARY_CHUNK`] are dropped. MindCraft folds the dropped lines into a
//!   summary of at most 500 characters with another model call; that call is not made
//!   here (the prompt keeps no summary), so the chat's share of a prompt is what
//!   MindCraft's turns are without its memory line.
//!
//! Every line enters the prompt as `> line`, in the order the bot heard it.

use std::collections::VecDeque;

use gatecrew_protocol::{AgentId, Pos, WindowId};
use gatecrew_world::GameData;

use crate::news::BoardNews;

/// MindCraft's `max_messages`, "max number of messages to keep in context"
/// (settings.js line 39 of kolbytn/mindcraft at 00127506, 2025-06-16).
pub const MINDCRAFT_MAX_MESSAGES: usize = 15;
/// MindCraft's `summary_chunk_size`: the turns dropped (into its memory summary) when
/// `max_messages` are held (src/agent/history.js, same commit).
pub const MINDCRAFT_SUMMARY_CHUNK: usize = 5;

/// Which of the crew's lines a bot's prompt holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// The protocol messages addressed to the bot, while their windows are open.
    Addressed,
    /// Every board message, and the teammates in sight.
    Board,
    /// The chat, as MindCraft keeps it.
    Chat,
}

/// The lines a bot has heard that its next prompt holds.
#[derive(Debug, Clone)]
pub struct Transcript {
    view: View,
    /// Each line with the board window it belongs to (what closes it under `Addressed`).
    lines: VecDeque<(Option<WindowId>, String)>,
    /// `central_dag`: the manager's last order to the bot.
    order: Option<String>,
    /// `no_partition`: the teammates in sight at the last look.
    teammates: Vec<(AgentId, Pos)>,
}

impl Transcript {
    /// An empty transcript for `view`.
    pub fn new(view: View) -> Self {
        Transcript { view, lines: VecDeque::new(), order: None, teammates: Vec::new() }
    }

    /// `me` heard `news`.
    pub fn hear(&mut self, me: AgentId, news: &BoardNews, data: &GameData) {
        match (self.view, news) {
            (View::Addressed, BoardNews::Posted { window, msg }) if msg.from() != me && msg.to().includes(me) => {
                self.lines.push_back((Some(*window), crate::executor::render::message(msg, data, false)));
            }
            (View::Addressed, BoardNews::Closed(c)) => self.lines.retain(|(w, _)| *w != Some(c.window)),
            (View::Board, BoardNews::Posted { window, msg }) => {
                self.lines.push_back((Some(*window), crate::executor::render::message(msg, data, false)));
            }
            (View::Board | View::Chat, BoardNews::Chat { from }) => {
                self.push(None, crate::executor::render::status(*from));
            }
            (View::Chat, BoardNews::Posted { window, msg }) => {
                self.push(Some(*window), crate::executor::render::message(msg, data, true));
            }
            _ => {}
        }
    }

    /// Adds a line, dropping the oldest chunk as MindCraft does under `Chat`.
    fn push(&mut self, window: Option<WindowId>, line: String) {
        self.lines.push_back((window, line));
        if self.view == View::Chat && self.lines.len() >= MINDCRAFT_MAX_MESSAGES {
            self.lines.drain(..MINDCRAFT_SUMMARY_CHUNK);
        }
    }

    /// The manager's order to the bot (`central_dag`): it replaces the one before.
    pub fn order(&mut self, line: String) {
        self.order = Some(line);
    }

    /// What the bot sees of its teammates now (kept under `Board` only).
    pub fn see(&mut self, teammates: &[(AgentId, Pos)]) {
        if self.view == View::Board {
            self.teammates.clear();
            self.teammates.extend_from_slice(teammates);
        }
    }

    /// Lines held now.
    pub fn len(&self) -> usize {
        self.lines.len() + usize::from(self.order.is_some())
    }

    /// Whether no line is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The prompt's part: a heading, then each line as `> line`.
    pub fn render(&self) -> String {
        let heading = match self.view {
            View::Addressed => "Messages to you:",
            View::Board => "Board:",
            View::Chat => "Chat:",
        };
        let mut s = String::from(heading);
        if self.is_empty() {
            s.push_str(" none");
        }
        for (_, l) in &self.lines {
            s.push_str("\n> ");
            s.push_str(l);
        }
        if let Some(o) = &self.order {
            s.push_str("\n> ");
            s.push_str(o);
        }
        if self.view == View::Board {
            s.push_str("\nTeammates in sight:");
            if self.teammates.is_empty() {
                s.push_str(" none");
            }
            for (a, p) in &self.teammates {
                s.push_str(&format!(" {a} at {} {} {};", p.x, p.y, p.z));
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use gatecrew_protocol::{BoardMessage, CloseOutcome, Count, Recipient, RequestReason, Tick, WindowClosed};

    use super::*;

    fn data() -> GameData {
        GameData::load(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/data/minecraft-1.20.4.json")))
            .unwrap()
    }

    fn request(data: &GameData, from: u32, to: Recipient, window: u32) -> BoardNews {
        BoardNews::Posted {
            window: WindowId(window),
            msg: BoardMessage::RequestMaterial {
                from: AgentId(from),
                to,
                item: data.item("oak_planks").unwrap(),
                count: Count::new(4).unwrap(),
                reason: RequestReason::MissingMaterial,
            },
        }
    }

    #[test]
    fn addressed_keeps_what_is_open_and_for_the_bot_only() {
        let data = data();
        let me = AgentId(1);
        let mut t = Transcript::new(View::Addressed);
        t.hear(me, &request(&data, 0, Recipient::Agent(AgentId(2)), 0), &data);
        assert!(t.is_empty(), "a request to someone else is not the bot's");
        t.hear(me, &request(&data, 1, Recipient::All, 1), &data);
        assert!(t.is_empty(), "its own request is in its history, not its messages");
        t.hear(me, &request(&data, 0, Recipient::All, 2), &data);
        assert_eq!(t.len(), 1);
        assert!(t.render().contains("\n> bot0: REQUEST_MATERIAL"), "{}", t.render());
        let closed = WindowClosed {
            window: WindowId(2),
            requester: AgentId(0),
            item: data.item("oak_planks").unwrap(),
            at: Tick(9),
            outcome: CloseOutcome::Timeout,
        };
        t.hear(me, &BoardNews::Closed(closed), &data);
        assert!(t.is_empty());
        assert_eq!(t.render(), "Messages to you: none");
    }

    #[test]
    fn the_board_keeps_everything_and_the_chat_what_mindcraft_keeps() {
        let data = data();
        let (mut board, mut chat) = (Transcript::new(View::Board), Transcript::new(View::Chat));
        let mut most = 0;
        for w in 0..40 {
            let n = request(&data, w % 3, Recipient::All, w);
            board.hear(AgentId(0), &n, &data);
            chat.hear(AgentId(0), &n, &data);
            most = most.max(chat.len());
        }
        assert_eq!(board.len(), 40);
        // Fifteen held drop the oldest five: at the 15th, 20th, ... 40th line.
        assert_eq!(most, MINDCRAFT_MAX_MESSAGES - 1);
        assert_eq!(chat.len(), MINDCRAFT_MAX_MESSAGES - MINDCRAFT_SUMMARY_CHUNK);
        assert!(chat.render().contains("> bot0: I need 4 oak_planks"), "{}", chat.render());
        board.see(&[(AgentId(2), Pos::new(1, 0, 2))]);
        assert!(board.render().ends_with("Teammates in sight: bot2 at 1 0 2;"), "{}", board.render());
    }
}
