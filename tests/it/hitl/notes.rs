//! What the person tells of their taste and their places steers the bot:
//! a preference decides the wood a chest is made of where any planks will do, and a
//! named place is somewhere the bot can be sent ("go to my house").

use gatecrew_protocol::Pos;
use gatecrew_protocol::trace::{ActionName, Event, EventKind};

use super::robust::{session, setup};

/// The items the bot crafted, in order.
fn crafted(ev: &[Event]) -> Vec<String> {
    ev.iter()
        .filter_map(|e| match &e.kind {
            EventKind::Action { agent, action: ActionName::Craft, ok: true, item, .. } if agent.0 == 0 => item.clone(),
            _ => None,
        })
        .collect()
}

#[test]
fn a_chest_is_made_of_the_wood_the_person_likes_and_of_the_default_otherwise() {
    let s = setup("tests/fixtures/hitl/woods.toml");
    let liked = session(&s, &[(0, "i like spruce".into()), (60, "make a chest".into())], 5);
    let said: Vec<&str> = liked.said.iter().map(|(_, l)| l.as_str()).collect();
    assert!(said.iter().any(|l| l.starts_with("Noted: you like spruce")), "{said:#?}");
    assert!(said.iter().any(|l| l.starts_with("Done: obtain 1 chest")), "{said:#?}");
    let made = crafted(&liked.events);
    assert!(made.iter().any(|i| i == "spruce_planks"), "{made:?}");
    assert!(!made.iter().any(|i| i == "oak_planks"), "{made:?}");
    assert!(made.iter().any(|i| i == "chest"), "{made:?}");
    // Without the preference: the default wood, the oak beside the bot.
    let plain = session(&s, &[(60, "make a chest".into())], 5);
    let said: Vec<&str> = plain.said.iter().map(|(_, l)| l.as_str()).collect();
    assert!(said.iter().any(|l| l.starts_with("Done: obtain 1 chest")), "{said:#?}");
    let made = crafted(&plain.events);
    assert!(made.iter().any(|i| i == "oak_planks"), "{made:?}");
    assert!(!made.iter().any(|i| i == "spruce_planks"), "{made:?}");
}

#[test]
fn a_named_place_is_where_go_to_sends_the_bot_and_an_unnamed_one_is_asked_for() {
    let s = setup("tests/fixtures/hitl/woods.toml");
    let c = session(
        &s,
        &[(0, "go to my farm".into()), (20, "my house is at 8 0 8".into()), (40, "pls go to my house".into())],
        5,
    );
    let said: Vec<&str> = c.said.iter().map(|(_, l)| l.as_str()).collect();
    assert!(said.iter().any(|l| l.starts_with("I don't know where your farm is")), "{said:#?}");
    assert!(said.iter().any(|l| l.starts_with("Going to your house at (8, 0, 8).")), "{said:#?}");
    assert!(said.iter().any(|l| l.starts_with("Done: go to your house at (8, 0, 8).")), "{said:#?}");
    // It walked there: its last walk ended within three blocks of the house.
    let end = c
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Validator(v) if v.label.starts_with("go to your house") => Some(v.clone()),
            _ => None,
        })
        .next_back()
        .unwrap_or_else(|| panic!("no validator of the trip: {said:#?}"));
    assert!(end.pass, "{end:?}");
    let at = end.evidence.at.unwrap();
    assert!(at.dist_sq(Pos::new(8, 0, 8)) <= 9, "{at:?}");
}
