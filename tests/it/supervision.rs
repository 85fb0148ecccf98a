//! A panicking agent actor is restarted by the crew supervisor from its last verified
//! state, and the episode finishes as if nothing had happened.

use gatecrew_crew::{Overrides, Setup};
use gatecrew_protocol::trace::EventKind;

use crate::common::{default_config, root, write};
use crate::episode::{actor_trace, events, stepper_trace};

fn with_crash(dir: &std::path::Path) -> Setup {
    let text = std::fs::read_to_string(default_config())
        .unwrap()
        .replace("[world]", "[faults]\ncrash = [{ agent = 1, tick = 40 }]\n\n[world]");
    let cfg = write(dir, "configs/crew.toml", &text);
    std::fs::create_dir_all(dir.join("configs/data")).unwrap();
    std::fs::copy(root().join("configs/data/minecraft-1.20.4.json"), dir.join("configs/data/minecraft-1.20.4.json"))
        .unwrap();
    let bp = std::fs::read_to_string(root().join("configs/blueprints/house.toml")).unwrap();
    write(dir, "configs/blueprints/house.toml", &bp);
    Setup::load(&cfg, &Overrides::default()).unwrap()
}

/// The trace lines that do not depend on the fault config: everything but the start
/// line (its config hash) and the restart line.
fn without_fault_lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8(bytes.to_vec())
        .unwrap()
        .lines()
        .filter(|l| !l.contains("\"kind\":\"restart\"") && !l.contains("\"kind\":\"episode_start\""))
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_panicking_agent_is_restarted_and_the_episode_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let setup = with_crash(dir.path());
    let actors = actor_trace(&setup);
    let evs = events(&actors);
    let restarts: Vec<_> = evs.iter().filter(|e| matches!(e.kind, EventKind::Restart { .. })).collect();
    assert_eq!(restarts.len(), 1, "exactly one restart");
    let EventKind::Restart { agent, cause } = &restarts[0].kind else { unreachable!() };
    assert_eq!(agent.0, 1);
    assert!(cause.contains("injected crash"), "{cause}");
    assert!(restarts[0].t >= 40);
    let Some(EventKind::EpisodeEnd { complete, .. }) = evs.last().map(|e| &e.kind) else { panic!() };
    assert!(*complete, "the episode still finishes");
    // Restarting from the last verified state loses nothing: apart from the fault
    // itself, the trace is the one of the undisturbed episode.
    let clean = stepper_trace(&crate::common::default_setup());
    assert_eq!(without_fault_lines(&actors), without_fault_lines(&clean));
    // The stepper models the same supervision.
    assert_eq!(stepper_trace(&setup), actors);
}
