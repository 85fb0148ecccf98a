//! The texts a language-model-driven bot would read and write, written out so that
//! their tokens can be counted: its state (MindCraft's `!stats`, `!inventory` and
//! `!nearbyBlocks` outputs carry the same facts), the command it answers with, and the
//! crew's lines as they appear in its context. Only their sizes matter to the executor
//! model, but they are real texts over the episode's real values, so a bot holding
//! thirty kinds of items or reading a long request pays for it.

use std::collections::BTreeSet;
use std::fmt::Write;

use gatecrew_protocol::{AgentId, BoardMessage, ItemId, Pos};
use gatecrew_world::{Action, GameData, Observation, World};

use crate::news::BoardNews;
use crate::style::{Directive, ManagerAsk};

/// The bot's state as its prompt shows it.
pub fn state(world: &World, agent: AgentId, view: &Observation) -> String {
    let data = world.data();
    let mut s = String::with_capacity(512);
    let _ = writeln!(s, "You are {agent}, at {}.", view.pos);
    s.push_str("Inventory:");
    match world.body(agent) {
        Some(b) if b.inventory.iter().next().is_some() => {
            for (item, n) in b.inventory.iter() {
                let _ = write!(s, " {} x{n},", data.item_name(item));
            }
            s.pop();
        }
        _ => s.push_str(" nothing"),
    }
    s.push('\n');
    let nearby: BTreeSet<&str> = view.blocks.iter().map(|(_, b)| data.block_name(*b)).collect();
    let _ = writeln!(s, "Nearby blocks: {}", nearby.into_iter().collect::<Vec<_>>().join(", "));
    if !view.resources.is_empty() {
        s.push_str("Resources in sight:");
        for (p, b) in &view.resources {
            let _ = write!(s, " {} at {p},", data.block_name(*b));
        }
        s.pop();
        s.push('\n');
    }
    for c in &view.containers {
        let _ = write!(s, "A {:?} at {}", c.kind, c.pos);
        if let Some(items) = &c.contents {
            s.push_str(" holding");
            for (item, n) in items {
                let _ = write!(s, " {} x{n},", data.item_name(*item));
            }
            s.pop();
        }
        s.push('\n');
    }
    for (p, item, n) in &view.dropped {
        let _ = writeln!(s, "Dropped: {} x{n} at {p}", data.item_name(*item));
    }
    if !view.teammates.is_empty() {
        s.push_str("Teammates in sight:");
        for (a, p) in &view.teammates {
            let _ = write!(s, " {a} at {p},");
        }
        s.pop();
        s.push('\n');
    }
    s
}

/// The command a bot answers with, in the system prompt's syntax.
pub fn action(a: &Action, data: &GameData) -> String {
    let xyz = |p: gatecrew_protocol::Pos| format!("{}, {}, {}", p.x, p.y, p.z);
    match *a {
        Action::MoveTo { target, range } => format!("moveTo({}, {range})", xyz(target)),
        Action::Mine { pos } => format!("mine({})", xyz(pos)),
        Action::Craft { recipe, times } => {
            format!("craft({}, {times})", data.item_name(data.recipe(recipe).result))
        }
        Action::Smelt { furnace, input, count, fuel } => {
            format!("smelt({}, {}, {count}, {})", xyz(furnace), data.item_name(input), data.item_name(fuel))
        }
        Action::Place { pos, item, .. } => format!("place({}, {})", data.item_name(item), xyz(pos)),
        Action::Give { to, item, count, .. } => format!("give({to}, {}, {count})", data.item_name(item)),
        Action::Drop { item, count } => format!("drop({}, {count})", data.item_name(item)),
        Action::PickUp { pos } => format!("pickUp({})", xyz(pos)),
        Action::Deposit { chest, item, count } => {
            format!("deposit({}, {}, {count})", xyz(chest), data.item_name(item))
        }
        Action::Withdraw { chest, item, count } => {
            format!("withdraw({}, {}, {count})", xyz(chest), data.item_name(item))
        }
    }
}

/// A board message as a line of the crew's channel: the protocol's own form, or, when
/// the board is free chat (`flatcomm`), the sentence a bot would say instead.
pub fn message(msg: &BoardMessage, data: &GameData, chat: bool) -> String {
    let item = data.item_name(msg.item());
    let count = msg.count().map_or(0, |c| c.get());
    match (msg, chat) {
        (BoardMessage::RequestMaterial { from, to, .. }, false) => {
            format!("{from}: REQUEST_MATERIAL {item} x{count} to {to}")
        }
        (BoardMessage::OfferTransfer { from, to, window, .. }, false) => {
            format!("{from}: OFFER_TRANSFER {item} x{count} to {to} (window {})", window.0)
        }
        (BoardMessage::ConfirmTransfer { from, to, window, .. }, false) => {
            format!("{from}: CONFIRM_TRANSFER {item} x{count} from {to} (window {})", window.0)
        }
        (BoardMessage::CannotSupply { from, to, window, .. }, false) => {
            format!("{from}: CANNOT_SUPPLY {item} to {to} (window {})", window.0)
        }
        (BoardMessage::RequestMaterial { from, .. }, true) => {
            format!("{from}: I need {count} {item} for my part. Does anyone have some to spare?")
        }
        (BoardMessage::OfferTransfer { from, to, .. }, true) => {
            format!("{from}: {to}, I have {count} {item} for you, coming over to hand them to you.")
        }
        (BoardMessage::ConfirmTransfer { from, to, .. }, true) => {
            format!("{from}: Got the {count} {item}, thanks {to}.")
        }
        (BoardMessage::CannotSupply { from, to, .. }, true) => {
            format!("{from}: Sorry {to}, I have no {item} to spare.")
        }
    }
}

/// A teammate's line as it enters a bot's context; `None` for what is not a line
/// (a window's closing, a rejection of the bot's own message).
pub fn news(n: &BoardNews, data: &GameData, chat: bool) -> Option<String> {
    match n {
        BoardNews::Posted { msg, .. } => Some(message(msg, data, chat)),
        BoardNews::Chat { from } => Some(status(*from)),
        BoardNews::Closed(_) | BoardNews::Rejected { .. } => None,
    }
}

/// `flatcomm`'s status line (the trace keeps who said one, not its words): a bot
/// reporting that it is stuck, which is what it reports.
pub fn status(from: AgentId) -> String {
    format!("{from}: I'm stuck on my part of the build: something is in the way or I failed to do it. Can anyone help?")
}

/// A line a `central_dag` bot writes to the manager.
pub fn ask(from: AgentId, ask: &ManagerAsk, data: &GameData) -> String {
    match ask {
        ManagerAsk::Report(r) => {
            let mut s = format!("{from} to manager: I hold");
            if r.items.is_empty() {
                s.push_str(" nothing");
            }
            for (item, n) in &r.items {
                let _ = write!(s, " {} x{n},", data.item_name(*item));
            }
            s
        }
        ManagerAsk::Issue { item: Some((item, n)), .. } => {
            format!("{from} to manager: I am missing {n} {} for my next block. Please re-plan.", data.item_name(*item))
        }
        ManagerAsk::Issue { item: None, .. } => {
            format!("{from} to manager: My next block cannot be placed (blocked or failed). Please re-plan.")
        }
        ManagerAsk::Received { window } => format!("{from} to manager: Delivery {} received.", window.0),
    }
}

/// What the `central_dag` manager re-plans from: the line that asked, each unplaced
/// cell with its block and owner, and what each bot reported it can spare.
pub fn replan(
    asked: &str,
    unplaced: impl Iterator<Item = (Pos, ItemId, Option<AgentId>)>,
    spare: impl Iterator<Item = (AgentId, ItemId, u32)>,
    data: &GameData,
) -> String {
    let mut s = format!("{asked}\nUnplaced blocks (x y z block owner):\n");
    for (p, item, owner) in unplaced {
        let owner = owner.map_or_else(|| "-".to_owned(), |a| a.to_string());
        let _ = writeln!(s, "{} {} {} {} {owner}", p.x, p.y, p.z, data.item_name(item));
    }
    s.push_str("Reported spare items:\n");
    for (a, item, n) in spare {
        let _ = writeln!(s, "{a}: {} x{n}", data.item_name(item));
    }
    s
}

/// A directive as the manager writes it.
pub fn directive(to: AgentId, d: &Directive, data: &GameData) -> String {
    match d {
        Directive::RecoverLocally { .. } => format!("manager to {to}: nobody can spare it; get it yourself."),
        Directive::Incoming { from, item, count, .. } => {
            format!("manager to {to}: {from} brings you {count} {}; wait for it.", data.item_name(*item))
        }
        Directive::Deliver { to: receiver, item, count, .. } => {
            format!("manager to {to}: bring {count} {} to {receiver} now.", data.item_name(*item))
        }
        Directive::Resume { .. } => format!("manager to {to}: carry on with your part."),
    }
}
