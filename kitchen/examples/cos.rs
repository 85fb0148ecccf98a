//! Prints the CoS of every shared level under every kitchen policy:
//! `cargo run -p gatecrew-kitchen --example cos -- [agents] [seed] [file|oracle]`.

#![allow(clippy::print_stdout)] // An example prints its result.

use gatecrew_kitchen::{Cuisine, PolicyKind, RunSpec, TimingMode, cos_table};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let agents: usize = args.next().map_or(Ok(2), |a| a.parse())?;
    let seed: u64 = args.next().map_or(Ok(0), |a| a.parse())?;
    let timing = match args.next().as_deref() {
        Some("oracle") => TimingMode::Oracle,
        _ => TimingMode::File,
    };
    let cuisine = Cuisine::load_default()?;
    let spec = RunSpec { timing, ..RunSpec::new(agents, seed) };
    let rows = cos_table(&cuisine, None, &PolicyKind::ALL, &[agents], &spec)?;
    for r in rows {
        let per: Vec<String> =
            r.episodes.iter().map(|e| format!("{}/{}/{}", e.completed, e.failed, e.pending)).collect();
        println!(
            "{:9} {:10} cos(excl pending) {:.3}  cos(pending failed) {:.3}  msgs {:5}  c/f/p per factor {}",
            r.level,
            r.policy.as_str(),
            r.cos_pending_excluded,
            r.cos_pending_failed,
            r.messages,
            per.join(" ")
        );
    }
    Ok(())
}
