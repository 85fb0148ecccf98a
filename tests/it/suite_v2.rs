//! Suite v2 (`configs/suite-v2`, DESIGN section 7): what it adds to v1 holds in the
//! committed files, and the files are what the generator writes.

use std::collections::BTreeSet;

use gatecrew_crew::Overrides;
use gatecrew_protocol::trace::{EventKind, Split, SuiteClass};
use gatecrew_suite::{Manifest, Version};

use crate::common::{data, root, write};
use crate::suite::{check_balance, check_every_class, files};

fn dir() -> std::path::PathBuf {
    root().join("configs/suite-v2")
}

#[test]
fn version_2_generation_reproduces_the_committed_suite() {
    let out = tempfile::tempdir().unwrap();
    let m =
        gatecrew_suite::generate(out.path(), &root().join("configs/data/minecraft-1.20.4.json"), Version::V2).unwrap();
    assert_eq!(m.version, 2);
    let fresh = files(out.path());
    assert_eq!(fresh.len(), 40 + 240 + 1);
    assert!(files(&dir()) == fresh, "configs/suite-v2 differs from `gatecrew suite generate --suite-version 2`");
}

#[test]
fn version_2_is_balanced_and_every_shortage_means_its_class() {
    let impossible = check_balance(&dir());
    // v2 tries every candidate for a D with a long route before it settles for
    // D-impossible; v1 took the first injection that failed collaboration.
    assert!(impossible < 34, "D-impossible: {impossible}");
    check_every_class(&dir());
}

/// Several shortages of different classes per episode, on distinct bot-item pairs; a
/// share of A and C sources out of the victim's view at its start.
#[test]
fn version_2_episodes_have_several_shortages_and_sources_out_of_view() {
    let m = Manifest::load(&dir()).unwrap();
    let main: Vec<_> = m.episode.iter().filter(|e| e.split != Split::Standard).collect();
    let mut several = 0;
    let (mut ac, mut out_of_view) = (0, 0);
    for e in &main {
        let s = &e.shortage;
        assert!((1..=3).contains(&s.len()), "{}", e.id);
        assert_eq!(s[0].class, e.class, "{}: the primary shortage comes first", e.id);
        let pairs: BTreeSet<_> = s.iter().map(|x| (x.victim, x.item.clone())).collect();
        assert_eq!(pairs.len(), s.len(), "{}: one shortage per bot and item", e.id);
        let classes: BTreeSet<_> = s.iter().map(|x| x.class).collect();
        assert_eq!(classes.len(), s.len(), "{}: classes differ", e.id);
        several += usize::from(s.len() >= 2);
        for x in s.iter().filter(|x| matches!(x.class, SuiteClass::A | SuiteClass::C)) {
            ac += 1;
            let dist = x.how.split(" blocks away").next().and_then(|h| h.rsplit(' ').next()?.parse::<i32>().ok());
            // The view radius is 16 blocks (DESIGN section 4).
            out_of_view += usize::from(dist.is_some_and(|d| d > 16));
        }
    }
    assert!(several >= 170, "episodes with two or three shortages: {several} of 200");
    assert!(out_of_view * 5 >= ac, "A and C sources out of view: {out_of_view} of {ac}");
    assert!(out_of_view * 2 <= ac, "most sources stay in view: {out_of_view} of {ac}");
}

/// Every v2 episode (standard ones too) runs with the background faults and a time
/// limit of 120 ticks a block (MineCollab's pyramid: 1,000 s for 168 blocks), and the
/// faults happen.
#[test]
fn version_2_episodes_run_with_faults_and_minecollab_time_limits() {
    let m = Manifest::load(&dir()).unwrap();
    let mut faults_seen = 0;
    for (k, e) in m.episode.iter().enumerate() {
        let setup = gatecrew_crew::Setup::load_with_data(&dir().join(&e.file), &Overrides::default(), data()).unwrap();
        assert_eq!(setup.faults.action_failure_rate, 0.02, "{}", e.id);
        assert_eq!(setup.faults.message_drop_rate, 0.02, "{}", e.id);
        let cells = setup.blueprint.cells().len() as u64;
        assert_eq!(setup.tick_limit, cells * 120, "{}", e.id);
        if k % 24 == 0 {
            let events = crate::common::run_events(&setup);
            faults_seen += events
                .iter()
                .filter(|ev| match &ev.kind {
                    EventKind::MessageFault { .. } => true,
                    EventKind::Action { ok: false, reason, .. } => {
                        reason.as_deref().is_some_and(|r| r.contains("injected"))
                    }
                    _ => false,
                })
                .count();
        }
    }
    assert!(faults_seen > 0, "no fault happened in 10 episodes");
}

#[test]
fn a_manifest_whose_entries_do_not_fit_its_version_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let entry = |version: u32, extra: &str| {
        format!(
            "version = {version}\n[[episode]]\nid = \"e1\"\nfile = \"episodes/e1.toml\"\ntemplate = \"t\"\nfamily = \"f\"\nclass = \"B\"\nseed = 0\nagents = 2\nsplit = \"test\"\n{extra}"
        )
    };
    let shortage =
        "[[episode.shortage]]\nclass = \"B\"\nvictim = 1\nitem = \"stone\"\ndeficit = 3\nholder = 0\nhow = \"x\"\n";
    for (text, want) in [
        (entry(1, shortage), "episode e1: a `shortage` list needs manifest version 2"),
        (entry(2, "victim = 1\nitem = \"stone\"\n"), "episode e1: version 2 lists its injections as"),
        (entry(2, &shortage.replace("class = \"B\"", "class = \"C\"")), "the first shortage's class must be"),
        (entry(3, ""), "manifest version 3 is not supported"),
    ] {
        let d = tmp.path().join(format!("m{}", want.len()));
        write(&d, "suite.toml", &text);
        let err = Manifest::load(&d).unwrap_err().to_string();
        assert!(err.contains("suite.toml") && err.contains(want), "{err}");
    }
    let d = tmp.path().join("ok");
    write(&d, "suite.toml", &entry(2, shortage));
    let m = Manifest::load(&d).unwrap();
    assert_eq!(m.episode[0].shortages()[0].item, "stone");
}
