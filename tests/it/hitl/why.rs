//! Every failure says why, and "done" is said only when it is: a bed in a
//! world with no way to white wool fails naming the wool and what each way to it ran
//! into, and the session's last word is not "everything is done"; the shipped partner
//! world holds the cobweb patch its comment promises (the string of three wool).

use gatecrew_world::BlockId;

use super::robust::{session, setup};

#[test]
fn a_bed_with_no_wool_anywhere_fails_with_its_reason_and_is_not_called_done() {
    let s = setup("tests/fixtures/hitl/no-wool.toml");
    let c = session(&s, &[(0, "make a white bed".into())], 5);
    let said: Vec<&str> = c.said.iter().map(|(_, l)| l.as_str()).collect();
    let failed =
        said.iter().find(|l| l.starts_with("I could not obtain 1 white bed")).unwrap_or_else(|| panic!("{said:#?}"));
    assert!(failed.contains("no white wool: "), "no item named: {failed}");
    // Each way to the wool is accounted for: the chests, the block, the string recipe
    // and what the string lacked.
    for way in ["chest", "no white wool seen to mine", "no string to craft it from", "no cobweb seen to mine"] {
        assert!(failed.contains(way), "{way:?} missing: {failed}");
    }
    assert!(!said.iter().any(|l| l.starts_with("Everything you asked is done")), "{said:#?}");
    assert!(said.iter().any(|l| l.starts_with("Not everything is done: I could not obtain 1 white bed")), "{said:#?}");
}

#[test]
fn the_partner_world_holds_the_cobweb_patch_its_comment_promises() {
    let s = setup("configs/hitl/partner.toml");
    let text = std::fs::read_to_string(crate::common::root().join("configs/hitl/partner.toml")).unwrap();
    assert!(text.contains("cobweb"), "the comment promises a cobweb patch");
    let cobweb = s.data.block("cobweb").unwrap();
    let b = s.world.grid().bounds();
    let mut n = 0;
    for x in b.min.x..=b.max.x {
        for y in b.min.y..=b.max.y {
            for z in b.min.z..=b.max.z {
                if s.world.grid().get(gatecrew_protocol::Pos::new(x, y, z)) == cobweb {
                    n += 1;
                }
            }
        }
    }
    // A bed takes three white wool, and a wool four string: one string per cobweb.
    assert!(n >= 12, "{n} cobwebs");
    assert_ne!(cobweb, BlockId::AIR);
}
