//! Memory per bot on a large crew: at most 100 KB a bot at its peak on the stepper, the
//! world and the board included, for 1,000 bots on the village (every suite template on
//! one site, 3,104 cells) and on the default house. The bound holds because the
//! blueprint's task graph is shared, not copied per bot. The allocator of this test
//! binary counts the bytes held by this thread (the stepper runs on it).

use std::path::Path;

use gatecrew_crew::{Overrides, Setup, run};
use gatecrew_protocol::trace::Event;

const BOTS: usize = 1_000;
/// The bound for the stepper.
const PER_BOT: u64 = 100 * 1024;

fn peak_per_bot(config: &str) -> (u64, f64) {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let overrides = Overrides { agents: Some(BOTS), ..Overrides::default() };
    let mut tsr = 0.0;
    let info = allocation_counter::measure(|| {
        let setup = Setup::load(&root.join(config), &overrides).expect("the config loads");
        let finished = run(&setup, &mut |_: &Event| {});
        tsr = f64::from(finished.progress.correct) / f64::from(finished.progress.total.max(1));
    });
    (info.bytes_max / BOTS as u64, tsr)
}

#[test]
fn a_thousand_bots_hold_at_most_100_kb_each() {
    for config in ["configs/village.toml", "configs/crew.toml"] {
        let (per_bot, tsr) = peak_per_bot(config);
        eprintln!("{config}: {per_bot} bytes a bot at the peak, TSR {tsr:.3}");
        // The run did the work (a bound met by building nothing would mean nothing).
        assert!(tsr > 0.99, "{config}: TSR {tsr}");
        assert!(per_bot > 4 * 1024, "{config}: the counter sees the run ({per_bot} bytes a bot)");
        assert!(per_bot <= PER_BOT, "{config}: {per_bot} bytes a bot at the peak, above {PER_BOT}");
    }
}
