//! Temporary runner.
#![allow(clippy::print_stdout, missing_docs)]
fn main() {
    let path = std::path::Path::new("configs/crew.toml");
    let setup =
        gatecrew_crew::Setup::load(path, &Default::default()).unwrap_or_else(|e| panic!("{e}"));
    let roster = setup.roster();
    for a in &roster {
        let mut need = std::collections::BTreeMap::new();
        for n in setup.plan.children(setup.plan.agent_root(*a).unwrap()) {
            if let gatecrew_crew::plan::NodeKind::Task(gatecrew_crew::plan::Task::Place {
                item,
                pos,
                ..
            }) = setup.plan.node(n).kind
            {
                *need
                    .entry(setup.data.item_name(item).to_string())
                    .or_insert(0) += 1;
                if setup.data.item_name(item) == "glass" || setup.data.item_name(item) == "oak_door"
                {
                    println!("{a} {} at {pos}", setup.data.item_name(item));
                }
            }
        }
        println!("{a}: {need:?}");
    }
    let mut n = 0;
    let f = gatecrew_crew::run(&setup, &mut |e| {
        n += 1;
        if std::env::var("SHOW").is_ok() {
            println!("{}", serde_json::to_string(e).unwrap());
        }
    });
    println!("{n} events, {f:?}");
}
