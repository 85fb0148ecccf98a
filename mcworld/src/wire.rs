//! The bridge's wire format: JSON lines. A request is `{"id","bot","cmd",...}`; a
//! reply is `{"id","ok":true,"data"}` or `{"id","ok":false,"error","code"}`; an
//! event is `{"event","bot",...}` (kicked, end, died, chat).

use serde::{Deserialize, Serialize};

/// A bridge command with its arguments. Coordinates are Minecraft's.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum Command {
    /// Join a server as this bot.
    SpawnBot {
        /// Server host.
        host: String,
        /// Server port.
        port: u16,
        /// Minecraft version.
        version: String,
        /// Whether the server is the local flying-squid harness with its stand-ins.
        standins: bool,
        /// How long joining may take.
        timeout_ms: u64,
    },
    /// Walk with the pathfinder (`range` 0: onto the block).
    MoveTo {
        /// Target x.
        x: i32,
        /// Target y.
        y: i32,
        /// Target z.
        z: i32,
        /// Stop within this distance.
        range: f64,
        /// Give up (and stop the pathfinder) after this long.
        timeout_ms: u64,
    },
    /// Place a held item as a block.
    PlaceBlock {
        /// Where x.
        x: i32,
        /// Where y.
        y: i32,
        /// Where z.
        z: i32,
        /// The item.
        item: String,
    },
    /// Break a block.
    Dig {
        /// x.
        x: i32,
        /// y.
        y: i32,
        /// z.
        z: i32,
    },
    /// Position, inventory, blocks within a radius, nearby entities.
    Observe {
        /// Half-size of the box of blocks.
        radius: i32,
    },
    /// The blocks at given cells, as the bot sees them.
    Look {
        /// The cells.
        cells: Vec<[i32; 3]>,
    },
    /// Hand items to another bot.
    Give {
        /// Its name.
        to: String,
        /// The item.
        item: String,
        /// How many.
        count: u32,
    },
    /// Put items into a chest.
    Deposit {
        /// Chest x.
        x: i32,
        /// Chest y.
        y: i32,
        /// Chest z.
        z: i32,
        /// The item.
        item: String,
        /// How many.
        count: u32,
    },
    /// Take items out of a chest.
    Withdraw {
        /// Chest x.
        x: i32,
        /// Chest y.
        y: i32,
        /// Chest z.
        z: i32,
        /// The item.
        item: String,
        /// How many.
        count: u32,
    },
    /// Craft an item `times` times.
    Craft {
        /// The result item.
        item: String,
        /// Repetitions.
        times: u32,
    },
    /// A chat command for scenario setup (give, tp, setblock): never an agent's action.
    Admin {
        /// The line, starting with `/`.
        line: String,
    },
    /// Say a line in the game's chat (a partner's reply to the person); runs at once.
    Chat {
        /// The line.
        text: String,
    },
    /// Stop the walk or dig in progress now (the person said stop); runs at once.
    Stop,
    /// Leave the server.
    Quit,
    /// Answered at once: measures the bridge's own round trip.
    Ping,
}

impl Command {
    /// The command's wire name.
    pub fn name(&self) -> &'static str {
        match self {
            Command::SpawnBot { .. } => "spawn_bot",
            Command::MoveTo { .. } => "move_to",
            Command::PlaceBlock { .. } => "place_block",
            Command::Dig { .. } => "dig",
            Command::Observe { .. } => "observe",
            Command::Look { .. } => "look",
            Command::Give { .. } => "give",
            Command::Deposit { .. } => "deposit",
            Command::Withdraw { .. } => "withdraw",
            Command::Craft { .. } => "craft",
            Command::Admin { .. } => "admin",
            Command::Chat { .. } => "chat",
            Command::Stop => "stop",
            Command::Quit => "quit",
            Command::Ping => "ping",
        }
    }
}

/// One request line.
#[derive(Debug, Serialize)]
pub(crate) struct Request<'a> {
    pub id: u64,
    pub bot: &'a str,
    #[serde(flatten)]
    pub cmd: &'a Command,
}

/// A stack of items.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Stack {
    /// Item name.
    pub name: String,
    /// Count.
    pub count: u32,
}

/// A block the bot sees.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SeenBlock {
    /// x.
    pub x: i32,
    /// y.
    pub y: i32,
    /// z.
    pub z: i32,
    /// Block name.
    pub name: String,
}

/// An entity the bot sees.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SeenEntity {
    /// Entity type (`player`, `mob`, ...).
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// A player's name.
    pub username: Option<String>,
    /// Position.
    pub pos: [f64; 3],
}

/// A reply's data: what the bot observed about itself after the command, plus what the
/// command adds. Fields a command does not report are empty.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default)]
pub struct Data {
    /// Exact position.
    pub pos: Option<[f64; 3]>,
    /// The block the feet are in.
    pub feet: Option<[i32; 3]>,
    /// The whole inventory.
    pub inventory: Option<Vec<Stack>>,
    /// How long the command ran inside the bridge (in the game), milliseconds.
    pub elapsed_ms: f64,
    /// `move_to`: whether the goal was reached.
    pub reached: Option<bool>,
    /// `place_block`, `dig`: the block now at the target.
    pub block: Option<String>,
    /// `dig`: the block that was there.
    pub removed: Option<String>,
    /// `give`: how many left the giver.
    pub given: Option<u32>,
    /// `give`: the receiver's count before, as its own client saw it.
    pub receiver_before: Option<u32>,
    /// `give`: the receiver's count after.
    pub receiver_after: Option<u32>,
    /// Chest commands: the chest's contents after.
    pub contents: Option<Vec<Stack>>,
    /// `observe`: blocks in the box.
    pub blocks: Vec<SeenBlock>,
    /// `observe`: entities nearby.
    pub entities: Vec<SeenEntity>,
    /// `look`: block names, one per cell asked.
    pub names: Vec<String>,
    /// `admin`: chat lines the server answered with.
    pub said: Vec<String>,
}

impl Data {
    /// The count of an item in the reported inventory (`None`: no inventory reported).
    pub fn count(&self, item: &str) -> Option<u32> {
        self.inventory.as_ref().map(|inv| inv.iter().filter(|s| s.name == item).map(|s| s.count).sum())
    }
}

/// An error reply: its code, its message, and what the bot knew about itself.
pub type Refusal = (ErrorCode, String, Option<Box<Data>>);

/// A line from the bridge.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// The answer to request `id`.
    Reply {
        /// The request.
        id: u64,
        /// Success data, or the error's code, message and data.
        result: Result<Box<Data>, Refusal>,
    },
    /// Something happened to a bot.
    Event(Event),
}

/// A pushed event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The server kicked the bot.
    Kicked {
        /// The bot.
        bot: String,
        /// The server's reason.
        reason: String,
    },
    /// The bot's connection ended.
    Ended {
        /// The bot.
        bot: String,
        /// Why.
        reason: String,
    },
    /// The bot died.
    Died {
        /// The bot.
        bot: String,
    },
    /// A chat line the bot received.
    Chat {
        /// The bot.
        bot: String,
        /// The text.
        text: String,
    },
    /// A player left the server (as a bot saw it).
    PlayerLeft {
        /// The bot that saw it.
        bot: String,
        /// The player's name.
        player: String,
    },
    /// The bridge process is gone.
    BridgeExited {
        /// Exit status or what was seen.
        status: String,
    },
}

#[derive(Deserialize)]
struct RawLine {
    id: Option<u64>,
    ok: Option<bool>,
    data: Option<Data>,
    error: Option<String>,
    code: Option<ErrorCode>,
    event: Option<String>,
    bot: Option<String>,
    reason: Option<String>,
    text: Option<String>,
    player: Option<String>,
}

/// Server chat, as long as a person's chat may be (`GATECREW_MAX_CHAT_BYTES`): a
/// longer line is cut at a character boundary and marked.
fn cap_chat(mut text: String) -> String {
    let max = gatecrew_protocol::limits::max_chat_bytes();
    if text.len() > max {
        let mut cut = max;
        while !text.is_char_boundary(cut) {
            cut = cut.saturating_sub(1);
        }
        text.truncate(cut);
        text.push_str(" [cut]");
    }
    text
}

/// Parses one line from the bridge; `Err` names what is wrong with it.
pub fn parse_line(line: &str) -> Result<Incoming, String> {
    let raw: RawLine = serde_json::from_str(line).map_err(|e| format!("not a protocol line ({e}): {line}"))?;
    if let Some(event) = raw.event {
        let bot = raw.bot.unwrap_or_default();
        let reason = raw.reason.unwrap_or_default();
        return Ok(Incoming::Event(match event.as_str() {
            "kicked" => Event::Kicked { bot, reason },
            "end" => Event::Ended { bot, reason },
            "died" => Event::Died { bot },
            "chat" => Event::Chat { bot, text: cap_chat(raw.text.unwrap_or_default()) },
            "player_left" => Event::PlayerLeft { bot, player: raw.player.unwrap_or_default() },
            other => return Err(format!("unknown event {other:?}")),
        }));
    }
    let id = raw.id.ok_or_else(|| format!("a reply without an id: {line}"))?;
    let result = match raw.ok {
        Some(true) => Ok(Box::new(raw.data.unwrap_or_default())),
        Some(false) => Err((
            raw.code.unwrap_or(ErrorCode::Unknown),
            raw.error.unwrap_or_else(|| "no message".into()),
            raw.data.map(Box::new),
        )),
        None => return Err(format!("a reply without \"ok\": {line}")),
    };
    Ok(Incoming::Reply { id, result })
}

/// Why a bridge command failed, as the bridge classifies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The command ran out of time.
    Timeout,
    /// The pathfinder found no way.
    NoPath,
    /// The target cell is taken.
    Occupied,
    /// Nothing to attach a block to.
    NoSupport,
    /// Too far.
    OutOfReach,
    /// The bot lacks the items.
    MissingItems,
    /// Nothing to dig there.
    NothingThere,
    /// A server-side stand-in said no (its message says why).
    Refused,
    /// No chest there.
    NoContainer,
    /// The chest is full.
    ContainerFull,
    /// The chest lacks the items.
    ContainerShort,
    /// Crafting needs a table in reach.
    NeedsTable,
    /// No block appeared where the bot placed one, tried twice (the server made no
    /// block update, or refused it).
    NotPlaced,
    /// The item could not be put in the hand: the server's own hand slot holds another.
    EquipFailed,
    /// A stop cut the walk short (the person said stop).
    Stopped,
    /// The bot was kicked or lost its connection.
    BotGone,
    /// No such bot, or not connected.
    NotConnected,
    /// The server cannot be reached.
    Unreachable,
    /// The request was malformed (a bug on this side).
    BadRequest,
    /// The bridge hit an unexpected exception.
    Internal,
    /// A code this build does not know.
    #[serde(other)]
    Unknown,
}

impl ErrorCode {
    /// Whether the bot is gone for good (the agent fails), rather than one action failing.
    pub fn is_fatal(self) -> bool {
        matches!(self, ErrorCode::BotGone | ErrorCode::NotConnected | ErrorCode::Unreachable)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn requests_are_flat_objects_with_the_cmd_tag() {
        let cmd = Command::MoveTo { x: 1, y: 5, z: -2, range: 0.0, timeout_ms: 500 };
        let line = serde_json::to_string(&Request { id: 3, bot: "bot0", cmd: &cmd }).unwrap();
        assert_eq!(line, r#"{"id":3,"bot":"bot0","cmd":"move_to","x":1,"y":5,"z":-2,"range":0.0,"timeout_ms":500}"#);
        let quit = serde_json::to_string(&Request { id: 4, bot: "bot1", cmd: &Command::Quit }).unwrap();
        assert_eq!(quit, r#"{"id":4,"bot":"bot1","cmd":"quit"}"#);
    }

    #[test]
    fn replies_and_events_parse() {
        let ok = parse_line(
            r#"{"id":1,"ok":true,"data":{"feet":[1,5,2],"inventory":[{"name":"glass","count":2}],"elapsed_ms":3.5}}"#,
        )
        .unwrap();
        let Incoming::Reply { id: 1, result: Ok(d) } = ok else { panic!("{ok:?}") };
        assert_eq!(d.count("glass"), Some(2));
        assert_eq!(d.count("dirt"), Some(0));
        let err = parse_line(r#"{"id":2,"ok":false,"error":"no path","code":"no_path"}"#).unwrap();
        assert!(matches!(err, Incoming::Reply { id: 2, result: Err((ErrorCode::NoPath, _, None)) }));
        let odd = parse_line(r#"{"id":2,"ok":false,"error":"?","code":"brand_new"}"#).unwrap();
        assert!(matches!(odd, Incoming::Reply { result: Err((ErrorCode::Unknown, _, _)), .. }));
        let ev = parse_line(r#"{"event":"kicked","bot":"bot1","reason":"bye"}"#).unwrap();
        assert_eq!(ev, Incoming::Event(Event::Kicked { bot: "bot1".into(), reason: "bye".into() }));
        let left = parse_line(r#"{"event":"player_left","bot":"bot0","player":"alex"}"#).unwrap();
        assert_eq!(left, Incoming::Event(Event::PlayerLeft { bot: "bot0".into(), player: "alex".into() }));
        let stopped = parse_line(r#"{"id":5,"ok":false,"error":"halted","code":"stopped"}"#).unwrap();
        assert!(matches!(stopped, Incoming::Reply { result: Err((ErrorCode::Stopped, _, _)), .. }));
        assert!(parse_line("hello").is_err());
        assert!(parse_line(r#"{"ok":true}"#).is_err());
    }
}
