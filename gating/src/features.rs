//! The five gate features (DESIGN section 5.1), each computed from plain facts that the
//! agent gathers from its own state, the board and what it sees. No LLM, no world
//! access: the functions here are the decision tables, and tests check them by hand.

use gatecrew_protocol::trace::FeatureVec;

use crate::level::Level;

/// The feature vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Features {
    /// Criticality in the task graph.
    pub c: Level,
    /// Coordination advantage.
    pub a: Level,
    /// Downstream impact.
    pub d: Level,
    /// Local recoverability.
    pub r: Level,
    /// History penalty.
    pub h: Level,
}

impl Features {
    /// From five numbers; `None` if any is above 3.
    pub fn new(c: u8, a: u8, d: u8, r: u8, h: u8) -> Option<Self> {
        Some(Features { c: Level::new(c)?, a: Level::new(a)?, d: Level::new(d)?, r: Level::new(r)?, h: Level::new(h)? })
    }

    /// The trace form.
    pub fn to_vec(self) -> FeatureVec {
        FeatureVec { c: self.c.get(), a: self.a.get(), d: self.d.get(), r: self.r.get(), h: self.h.get() }
    }
}

/// Facts behind C, from the task graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CriticalityFacts {
    /// Nodes that depend on the blocked node, directly or not.
    pub dependents: usize,
    /// Longest chain of dependents below it.
    pub depth: usize,
    /// Whether any dependent belongs to a teammate.
    pub teammate_dependents: bool,
    /// Whether every remaining node of this agent waits on it.
    pub blocks_all_own_work: bool,
}

/// Dependents beyond which a sub-structure counts as a major component.
pub const LOCAL_SUBSTRUCTURE: usize = 3;

/// C: 0 no dependents; 1 a local sub-structure (at most [`LOCAL_SUBSTRUCTURE`]
/// dependents, depth <= 2); 2 a major component (more descendants, a deeper chain, or a
/// teammate's nodes); 3 the critical path (all of this agent's remaining work waits on
/// it and a teammate's work depends on it).
pub fn criticality(f: CriticalityFacts) -> Level {
    if f.dependents == 0 {
        Level::L0
    } else if f.blocks_all_own_work && f.teammate_dependents {
        Level::L3
    } else if f.teammate_dependents || f.depth > 2 || f.dependents > LOCAL_SUBSTRUCTURE {
        Level::L2
    } else {
        Level::L1
    }
}

/// Facts behind A, from the board and the visible teammates.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AdvantageFacts {
    /// Distance to the nearest visible teammate.
    pub nearest_teammate: Option<f64>,
    /// Whether every teammate already answered `CANNOT_SUPPLY` for this item.
    pub all_refused: bool,
    /// Distance to the nearest visible teammate that offered this item earlier.
    pub nearest_offerer: Option<f64>,
}

/// A: 0 nobody within 32 blocks or everybody refused; 1 a teammate within 32, surplus
/// unknown; 2 a teammate that offered this item earlier is within 16; 3 within 4.
pub fn advantage(f: AdvantageFacts) -> Level {
    let near = |d: Option<f64>, r: f64| d.is_some_and(|d| d <= r);
    if f.all_refused || !near(f.nearest_teammate, 32.0) {
        Level::L0
    } else if near(f.nearest_offerer, 4.0) {
        Level::L3
    } else if near(f.nearest_offerer, 16.0) {
        Level::L2
    } else {
        Level::L1
    }
}

/// Facts behind D.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImpactFacts {
    /// Every agent's remaining work waits on the node.
    pub every_agent_waits: bool,
    /// Some teammate's node waits on it.
    pub teammate_waits: bool,
    /// This agent has other work it can do meanwhile.
    pub other_work: bool,
    /// Estimated ticks of the local recovery, `None` if none is known.
    pub recovery_ticks: Option<u64>,
}

/// D: 3 every agent waits; 2 a teammate waits, or no other work and the local
/// recovery is long (over `detour` ticks) or unknown; 1 no other work and the recovery
/// is a short detour; 0 only this agent's next actions wait and it has other work.
pub fn impact(f: ImpactFacts, detour: u64) -> Level {
    if f.every_agent_waits {
        Level::L3
    } else if f.teammate_waits {
        Level::L2
    } else if f.other_work {
        Level::L0
    } else if f.recovery_ticks.is_some_and(|t| t <= detour) {
        Level::L1
    } else {
        Level::L2
    }
}

/// Facts behind R, from the agent's own knowledge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecoverabilityFacts {
    /// The item lies in reach (a dropped stack, an adjacent chest).
    pub in_reach: bool,
    /// One craft from held materials makes it (with a table in reach for 3x3).
    pub one_craft: bool,
    /// Ticks of the cheapest known chain, if any within the search budget.
    pub chain_ticks: Option<u64>,
}

/// R: 3 immediate; 2 one craft; 1 a longer chain; 0 no known way.
pub fn recoverability(f: RecoverabilityFacts) -> Level {
    if f.in_reach {
        Level::L3
    } else if f.one_craft {
        Level::L2
    } else if f.chain_ticks.is_some() {
        Level::L1
    } else {
        Level::L0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn criticality_table() {
        let f = |dependents, depth, teammate, all| {
            criticality(CriticalityFacts { dependents, depth, teammate_dependents: teammate, blocks_all_own_work: all })
        };
        assert_eq!(f(0, 0, false, true), Level::L0);
        assert_eq!(f(2, 2, false, false), Level::L1);
        assert_eq!(f(2, 2, false, true), Level::L1, "all own work waits, but no teammate does");
        assert_eq!(f(5, 3, false, false), Level::L2);
        assert_eq!(f(4, 1, false, false), Level::L2, "more descendants: a major component");
        assert_eq!(f(3, 2, false, true), Level::L1);
        assert_eq!(f(1, 1, true, false), Level::L2);
        assert_eq!(f(1, 1, true, true), Level::L3);
    }

    #[test]
    fn advantage_table() {
        let f = |nearest, refused, offerer| {
            advantage(AdvantageFacts { nearest_teammate: nearest, all_refused: refused, nearest_offerer: offerer })
        };
        assert_eq!(f(None, false, None), Level::L0);
        assert_eq!(f(Some(40.0), false, None), Level::L0);
        assert_eq!(f(Some(10.0), true, Some(2.0)), Level::L0);
        assert_eq!(f(Some(31.0), false, None), Level::L1);
        assert_eq!(f(Some(10.0), false, Some(20.0)), Level::L1);
        assert_eq!(f(Some(10.0), false, Some(12.0)), Level::L2);
        assert_eq!(f(Some(3.0), false, Some(3.5)), Level::L3);
    }

    #[test]
    fn impact_table() {
        let f = |all, mate, other, rec| {
            impact(
                ImpactFacts { every_agent_waits: all, teammate_waits: mate, other_work: other, recovery_ticks: rec },
                20,
            )
        };
        assert_eq!(f(true, true, true, Some(1)), Level::L3);
        assert_eq!(f(false, true, true, Some(1)), Level::L2);
        assert_eq!(f(false, false, true, None), Level::L0);
        assert_eq!(f(false, false, false, Some(20)), Level::L1);
        assert_eq!(f(false, false, false, Some(21)), Level::L2);
        assert_eq!(f(false, false, false, None), Level::L2);
    }

    #[test]
    fn recoverability_table() {
        let f = |r, c, t| recoverability(RecoverabilityFacts { in_reach: r, one_craft: c, chain_ticks: t });
        assert_eq!(f(true, true, Some(1)), Level::L3);
        assert_eq!(f(false, true, Some(10)), Level::L2);
        assert_eq!(f(false, false, Some(300)), Level::L1);
        assert_eq!(f(false, false, None), Level::L0);
    }
}
