//! Dealing a crew's pooled items out to a crew of another size: each bot first gets
//! what its share of the blueprint places (the work split the crew uses), as far as the
//! pool holds it, then the leftovers go round-robin. Nothing is created or lost.

use std::collections::BTreeMap;

use gatecrew_protocol::ItemId;
use gatecrew_world::{Blueprint, GameData, Part};

use crate::plan::split_work;

/// The items each of `n` builders needs for its share of `bp`.
pub fn share_needs(bp: &Blueprint, data: &GameData, n: usize) -> Vec<BTreeMap<ItemId, u32>> {
    let owners = split_work(bp, n);
    let mut needs = vec![BTreeMap::<ItemId, u32>::new(); n];
    for (i, c) in bp.cells().iter().enumerate() {
        if c.part == Part::Upper {
            continue;
        }
        if let Some(item) = data.block_info(c.block).item {
            *needs[owners[i].index()].entry(item).or_insert(0) += 1;
        }
    }
    needs
}

/// `pool` dealt out to `n` builders of `bp` (`n >= 1`).
pub fn deal(mut pool: BTreeMap<ItemId, u32>, bp: &Blueprint, data: &GameData, n: usize) -> Vec<BTreeMap<ItemId, u32>> {
    let mut invs = vec![BTreeMap::<ItemId, u32>::new(); n];
    for (a, need) in share_needs(bp, data, n).iter().enumerate() {
        for (item, want) in need {
            let have = pool.entry(*item).or_insert(0);
            let take = (*want).min(*have);
            *have -= take;
            if take > 0 {
                *invs[a].entry(*item).or_insert(0) += take;
            }
        }
    }
    for (k, (item, left)) in pool.into_iter().enumerate() {
        if left > 0 {
            *invs[k % n].entry(item).or_insert(0) += left;
        }
    }
    invs
}
