//! Shared helpers: the shared files, a world on a level, a scripted policy.

use std::sync::Arc;

use gatecrew_kitchen::{Action, Counters, Cuisine, Policy, StepReport, Timing, World};

pub fn cuisine() -> Cuisine {
    Cuisine::load_default().expect("the shared CuisineWorld files load")
}

/// A world on `level` with one dish's timing fixed by hand.
pub fn world(c: &Cuisine, level: &str, agents: usize, interval: u32, lifetime: u32) -> World {
    let level = Arc::clone(c.level(level).expect("a shared level"));
    let timing = Timing { interval, lifetimes: vec![lifetime; level.menu.len()] };
    World::new(level, Arc::clone(&c.book), agents, timing, 0)
}

/// Location ids of level_0's kitchen: storage, servingtable, blender.
pub const STORAGE: gatecrew_kitchen::LocationId = gatecrew_kitchen::LocationId(0);
pub const TABLE: gatecrew_kitchen::LocationId = gatecrew_kitchen::LocationId(1);
pub const BLENDER: gatecrew_kitchen::LocationId = gatecrew_kitchen::LocationId(2);

/// Two agents make one salmonMeatcake on level_0 and serve it: put at step 8 (the
/// ninth step), as in the paper's appendix H demonstration.
pub fn meatcake_script(c: &Cuisine) -> Vec<Vec<Action>> {
    let salmon = c.book.item("salmon").expect("salmon");
    let flour = c.book.item("flour").expect("flour");
    vec![
        vec![Action::Goto(STORAGE), Action::Goto(STORAGE)],
        vec![Action::Get { at: STORAGE, item: Some(salmon) }, Action::Get { at: STORAGE, item: Some(flour) }],
        vec![Action::Goto(BLENDER), Action::Goto(BLENDER)],
        vec![Action::Put(BLENDER), Action::Put(BLENDER)],
        vec![Action::Activate(BLENDER), Action::Noop],
        vec![Action::Noop, Action::Noop],
        vec![Action::Get { at: BLENDER, item: None }, Action::Noop],
        vec![Action::Goto(TABLE), Action::Noop],
        vec![Action::Put(TABLE), Action::Noop],
    ]
}

/// Plays a fixed list of steps, then noops.
pub struct Scripted {
    pub steps: Vec<Vec<Action>>,
    pub at: usize,
}

impl Policy for Scripted {
    fn decide(&mut self, _: &World) -> Vec<Action> {
        let a = self.steps.get(self.at).cloned().unwrap_or_default();
        self.at += 1;
        a
    }
    fn observe(&mut self, _: &World, _: &StepReport) {}
    fn counters(&self) -> Counters {
        Counters::default()
    }
}

/// Every file of a folder, by name, with its bytes (traces are compared byte for byte).
pub fn files(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap())
        })
        .collect()
}
