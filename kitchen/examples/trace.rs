//! Prints one episode step by step:
//! `cargo run -p gatecrew-kitchen --example trace -- LEVEL POLICY [agents] [factor] [seed] [steps]`.

#![allow(clippy::print_stdout)] // An example prints its result.

use std::sync::Arc;

use gatecrew_kitchen::{Cuisine, PolicyKind, World};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cuisine = Cuisine::load_default()?;
    let level = cuisine.level(args.first().map_or("level_0", String::as_str))?;
    let policy: PolicyKind = args.get(1).map_or("dispatcher", String::as_str).parse()?;
    let agents: usize = args.get(2).map_or(Ok(2), |a| a.parse())?;
    let factor: f64 = args.get(3).map_or(Ok(1.0), |a| a.parse())?;
    let seed: u64 = args.get(4).map_or(Ok(0), |a| a.parse())?;
    let steps: u32 = args.get(5).map_or(Ok(30), |a| a.parse())?;
    let book = &cuisine.book;
    let mut world = World::new(Arc::clone(level), Arc::clone(book), agents, level.file_timing(factor), seed);
    let mut pol = policy.build(&world, agents);
    for _ in 0..steps {
        let actions = pol.decide(&world);
        let orders: Vec<String> =
            world.pending().iter().map(|o| format!("#{} {} ({})", o.id.0, book.name(o.dish), o.remaining)).collect();
        let report = world.step(&actions);
        let acts: Vec<String> = report
            .outcomes
            .iter()
            .map(|(a, r)| format!("{a:?}{}", if let Err(e) = r { format!(" REFUSED {e:?}") } else { String::new() }))
            .collect();
        let hands: Vec<String> = world
            .agents()
            .iter()
            .map(|b| format!("{}:{}", world.location(b.at).name, b.holding.map_or("-", |h| book.name(h))))
            .collect();
        let tools: Vec<String> = world
            .locations()
            .iter()
            .filter(|l| !l.contents.is_empty())
            .map(|l| {
                let c: Vec<&str> = l.contents.iter().map(|&i| book.name(i)).collect();
                format!("{}[{}]{}", l.name, c.join("&"), if l.occupied > 0 { "*" } else { "" })
            })
            .collect();
        println!(
            "t{:<3} orders {:?}\n     acts {}\n     hands {}  tools {}  done {} failed {}",
            report.step,
            orders,
            acts.join(" | "),
            hands.join(" "),
            tools.join(" "),
            report.completed.len(),
            report.failed.len()
        );
    }
    println!("{:?}", pol.counters());
    Ok(())
}
