//! The texts a language-model-driven kitchen agent (or dispatcher) would read and
//! write, in MindAgent's forms (the paper's appendix H), so that their tokens can be
//! counted: the level's recipe book, the state, the commands, the world's refusals as
//! feedback, and the crew's lines. Only their sizes matter to the executor model, but
//! they are real texts over the episode's real values: a kitchen with more tools, more
//! pending orders or more agents makes longer prompts.

use std::collections::BTreeSet;
use std::fmt::Write;

use gatecrew_protocol::{BoardMessage, ItemId, Recipient};

use crate::policy::{ChatLine, Line, LineText};
use crate::tool::ToolKind;
use crate::world::{Action, LocationId, Refusal, World};

/// The recipes of the level's dishes (every recipe in their trees), in the book's order.
fn level_recipes(w: &World) -> Vec<&crate::Recipe> {
    let book = w.book();
    let mut items = BTreeSet::new();
    let mut stack: Vec<ItemId> = w.level().menu.iter().flat_map(|m| m.serve.iter().copied()).collect();
    while let Some(i) = stack.pop() {
        if items.insert(i) {
            if let Some(r) = book.recipe_for(i) {
                stack.extend(r.ingredients.iter().copied());
            }
        }
    }
    book.recipes().iter().filter(|r| items.contains(&r.product)).collect()
}

/// The raw ingredients of the level's recipe book, in item order (what the storage hands
/// out to this level's cooks).
pub fn level_raw(w: &World) -> Vec<ItemId> {
    let book = w.book();
    let raw: BTreeSet<ItemId> =
        level_recipes(w).iter().flat_map(|r| r.ingredients.iter().copied()).filter(|&i| book.is_raw(i)).collect();
    raw.into_iter().collect()
}

/// The level's part of the prompt, as MindAgent's: the recipes, the objects, the base
/// ingredients, each tool's capacity, the tools, the crew size.
pub fn book(w: &World) -> String {
    let b = w.book();
    let recipes = level_recipes(w);
    let mut s = String::from("Here are the recipes:\n");
    for r in &recipes {
        let ing: Vec<&str> = r.ingredients.iter().map(|&i| b.name(i)).collect();
        let _ = writeln!(
            s,
            "Cook {} at: -- location: {} -- with ingredients: {},",
            b.name(r.product),
            r.tool,
            ing.join(", ")
        );
    }
    let objects: BTreeSet<ItemId> =
        recipes.iter().flat_map(|r| r.ingredients.iter().copied().chain([r.product])).collect();
    s.push_str("The following objects are available:");
    for (k, &i) in objects.iter().enumerate() {
        let _ = write!(s, " --{}) {}", k + 1, b.name(i));
    }
    s.push_str("\nThe objects are cooked using tools or are just base ingredients. Among them, the following are base ingredients:");
    for (k, &i) in level_raw(w).iter().enumerate() {
        let _ = write!(s, " --{}) {}", k + 1, b.name(i));
    }
    s.push_str("\nYou can only obtain base ingredients from the storage initially.\nAdditional rules:");
    for l in w.locations() {
        match l.kind.spec().capacity {
            Some(c) => {
                let _ = write!(s, " You can place up to {c} item into the {}.", l.name);
            }
            None => {
                let _ = write!(s, " You can place up to infinite item into the {}.", l.name);
            }
        }
    }
    s.push_str("\n** Only ** the following tools are available:");
    for l in w.locations() {
        let _ = write!(s, " {},", l.name);
    }
    let n = w.agents().len();
    let _ = writeln!(
        s,
        " You cannot pick up these tools. You can only use those tools at the corresponding location.\nThere are {n} agents available, so you can execute {n} actions at a time."
    );
    s
}

/// The state as MindAgent prints it: the game (level, pending orders with lifetimes,
/// step), every agent (where, holding what) and every location (what is inside, which
/// are occupied).
pub fn state(w: &World, max_steps: u32) -> String {
    let b = w.book();
    let mut s = String::with_capacity(512);
    let _ = writeln!(s, "-game state:\ncurrent game level: {}\ncurrent dishes:", w.level().name);
    for o in w.pending() {
        let _ = writeln!(s, "    name: {} lifetime: {}", b.name(o.dish), o.remaining);
    }
    let _ = writeln!(s, "current game step: {}\nmaximum game steps: {max_steps}\n-agent state:", w.time());
    for (i, a) in w.agents().iter().enumerate() {
        let held = a.holding.map_or("None", |h| b.name(h));
        let _ = writeln!(s, "at(agent{i}, {})\nhold(agent{i}, {held})", w.location(a.at).name);
        if a.occupied > 0 {
            let _ = writeln!(s, "occupy(agent{i})");
        }
    }
    s.push_str("-kitchen state:\n");
    for l in w.locations() {
        let inside: Vec<&str> = l.contents.iter().map(|&i| b.name(i)).collect();
        let inside = if inside.is_empty() { "None".to_owned() } else { inside.join(", ") };
        let _ = writeln!(s, "inside({}, {inside})", l.name);
        if l.is_occupied() {
            let _ = writeln!(s, "occupy({})", l.name);
        }
    }
    s
}

/// A crew agent's own lines: who it is, and the world's answer to its last command when
/// it was refused (MindAgent's feedback).
pub fn me(agent: usize, feedback: Option<&str>) -> String {
    match feedback {
        Some(f) => format!("You are agent{agent}.\n-feedback: {f}\n"),
        None => format!("You are agent{agent}.\n"),
    }
}

/// A command in MindAgent's DSL.
pub fn command(w: &World, agent: usize, a: Action) -> String {
    let loc = |l: LocationId| w.locations().get(l.index()).map_or("nowhere", |x| x.name.as_str());
    match a {
        Action::Noop => format!("noop_agent{agent}"),
        Action::Goto(l) => format!("goto_agent{agent}_{}", loc(l)),
        Action::Get { at, item: Some(i) } => format!("get_agent{agent}_{}_{}", w.book().name(i), loc(at)),
        Action::Get { at, item: None } => format!("get_agent{agent}_{}", loc(at)),
        Action::Put(l) => format!("put_agent{agent}_{}", loc(l)),
        Action::Activate(l) => format!("activate_agent{agent}_{}", loc(l)),
    }
}

/// The world's refusal as MindAgent's feedback sentence.
pub fn refusal(w: &World, agent: usize, a: Action, r: Refusal) -> String {
    let at = match a {
        Action::Goto(l) | Action::Put(l) | Action::Activate(l) | Action::Get { at: l, .. } => {
            w.locations().get(l.index()).map_or("nowhere", |x| x.name.as_str())
        }
        Action::Noop => "",
    };
    let held = w.agents().get(agent).and_then(|b| b.holding).map_or("nothing", |h| w.book().name(h));
    let what = match r {
        Refusal::UnknownLocation => format!("{at} is not a location of this kitchen"),
        Refusal::NotThere => format!("agent{agent} is not located in {at}"),
        Refusal::AgentOccupied => format!("agent{agent} is occupied therefore cannot take any actions other than noop"),
        Refusal::ToolOccupied => format!("{at} is occupied, therefore cannot be used now"),
        Refusal::HandsFull => format!("agent{agent} is holding objects, therefore cannot get objects"),
        Refusal::EmptyHanded => format!("agent{agent} is not holding objects, therefore cannot put objects"),
        Refusal::NotStocked => format!("{at} does not stock that object"),
        Refusal::NotPickable => format!("not allowed to pick up from {at} at this point"),
        Refusal::Empty => format!("{at} is empty"),
        Refusal::Waste => format!("putting {held} into {at} will result in waste"),
        Refusal::Full => format!("{at} reaches maximum capacity"),
        Refusal::NotOrdered => format!("no order wants {held} at {at}"),
        Refusal::NotATool => format!("{at} cannot be activated"),
    };
    format!("{}: {what}", command(w, agent, a))
}

/// A line as its readers see it: the protocol's form on the board (gated), the
/// sentence a cook would say in the chat (flatcomm).
pub fn line(w: &World, l: &Line) -> String {
    let b = w.book();
    let loc = |x: LocationId| w.locations().get(x.index()).map_or("nowhere", |y| y.name.as_str());
    let from = l.from;
    match &l.text {
        LineText::Board(msg, dest) => {
            let item = b.name(msg.item());
            let count = msg.count().map_or(0, |c| c.get());
            match msg {
                BoardMessage::RequestMaterial { to, .. } => {
                    let to = match to {
                        Recipient::Agent(a) => format!("agent{}", a.index()),
                        _ => "all".to_owned(),
                    };
                    match dest {
                        Some(d) => format!("agent{from}: REQUEST_MATERIAL {item} x{count} to {to} (into {})", loc(*d)),
                        None => format!("agent{from}: REQUEST_MATERIAL {item} x{count} to {to}"),
                    }
                }
                BoardMessage::OfferTransfer { to, window, .. } => {
                    format!("agent{from}: OFFER_TRANSFER {item} x{count} to agent{} (window {})", to.index(), window.0)
                }
                BoardMessage::ConfirmTransfer { to, window, .. } => {
                    format!(
                        "agent{from}: CONFIRM_TRANSFER {item} x{count} from agent{} (window {})",
                        to.index(),
                        window.0
                    )
                }
                BoardMessage::CannotSupply { to, window, .. } => {
                    format!("agent{from}: CANNOT_SUPPLY {item} to agent{} (window {})", to.index(), window.0)
                }
            }
        }
        LineText::Chat(c) => match *c {
            ChatLine::Goal(dish) => format!("agent{from}: I'm taking the next {} order.", b.name(dish)),
            ChatLine::Need { item, to } => {
                format!("agent{from}: I need a {} in {} for my order. Can anyone bring one?", b.name(item), loc(to))
            }
            ChatLine::Offer { to, item } => {
                format!("agent{from}: agent{to}, I'll bring you the {}.", b.name(item))
            }
            ChatLine::Refuse { to, item } => {
                format!("agent{from}: Sorry agent{to}, I can't bring the {} now.", b.name(item))
            }
            ChatLine::Thanks { to, item } => format!("agent{from}: Got the {}, thanks agent{to}.", b.name(item)),
            ChatLine::Stuck(item) => {
                let tool = b.recipe_for(item).map_or(ToolKind::Storage, |r| r.tool);
                format!("agent{from}: Every {tool} I need for the {} is busy. Can anyone free one?", b.name(item))
            }
        },
    }
}
