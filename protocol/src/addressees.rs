//! The teammates a request names when it does not go to the whole crew (DESIGN section
//! 5.6, "Addressing"): a ring of at most k nearest or likely holders, so that one
//! request draws O(k) answers instead of one from every bot.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::ids::{AgentId, AgentIdError};

/// The most addressees one request may name. The design's default ring is 4; twice that
/// leaves room to configure a wider ring while keeping a request a small `Copy` value
/// (the board, the trace and every agent's news carry it by value).
pub const MAX_ADDRESSEES: usize = 8;

/// One to [`MAX_ADDRESSEES`] distinct agents, kept in ascending id order so that two
/// requests to the same teammates compare equal whatever order they were listed in.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Addressees {
    ids: [AgentId; MAX_ADDRESSEES],
    len: u8,
}

/// Why a list of agents is not [`Addressees`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AddresseesError {
    /// The list is empty.
    #[error("a list of addressees names at least one agent")]
    Empty,
    /// The list is longer than a request may name.
    #[error("a request names at most {MAX_ADDRESSEES} addressees, got {0}")]
    TooMany(usize),
    /// An agent appears twice.
    #[error("{0} is listed twice")]
    Repeated(AgentId),
    /// An id is past the bound of ids read from outside.
    #[error(transparent)]
    Id(#[from] AgentIdError),
}

impl Addressees {
    /// Sorts the ids and checks that there are 1 to [`MAX_ADDRESSEES`] distinct ones.
    pub fn new(ids: impl IntoIterator<Item = AgentId>) -> Result<Self, AddresseesError> {
        let mut out = Addressees { ids: [AgentId(0); MAX_ADDRESSEES], len: 0 };
        let mut n = 0usize;
        for id in ids {
            if n < MAX_ADDRESSEES {
                out.ids[n] = id;
            }
            n += 1;
        }
        if n == 0 {
            return Err(AddresseesError::Empty);
        }
        if n > MAX_ADDRESSEES {
            return Err(AddresseesError::TooMany(n));
        }
        out.ids[..n].sort_unstable();
        if let Some(w) = out.ids[..n].windows(2).find(|w| w[0] == w[1]) {
            return Err(AddresseesError::Repeated(w[0]));
        }
        out.len = n as u8;
        Ok(out)
    }

    /// Addressees read from outside: every id bounded ([`AgentId::read`]), then as
    /// [`Addressees::new`].
    pub fn read(ids: &[u32]) -> Result<Self, AddresseesError> {
        if ids.len() > MAX_ADDRESSEES {
            return Err(AddresseesError::TooMany(ids.len()));
        }
        let ids = ids.iter().map(|&n| AgentId::read(n)).collect::<Result<Vec<_>, _>>()?;
        Addressees::new(ids)
    }

    /// The agents, in ascending id order.
    pub fn as_slice(&self) -> &[AgentId] {
        &self.ids[..usize::from(self.len)]
    }

    /// Whether `a` is one of them.
    pub fn contains(&self, a: AgentId) -> bool {
        self.as_slice().binary_search(&a).is_ok()
    }

    /// How many there are (at least one).
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Always false: kept for the `len`/`is_empty` pair clippy expects.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// How many teammates a request names at most: the design's k (DESIGN section 5.6,
/// default 4), `1..=MAX_ADDRESSEES`. A crew of k + 1 bots or fewer asks everyone at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "i64", into = "u32")]
pub struct RingSize(u8);

impl RingSize {
    /// The design's default, 4 (DESIGN section 5.6).
    pub const DEFAULT: RingSize = RingSize(4);

    /// Checks `1..=MAX_ADDRESSEES`.
    pub fn new(k: i64) -> Result<Self, String> {
        match u8::try_from(k) {
            Ok(v) if v >= 1 && usize::from(v) <= MAX_ADDRESSEES => Ok(RingSize(v)),
            _ => Err(format!("a ring names 1 to {MAX_ADDRESSEES} addressees, got {k}")),
        }
    }

    /// The size as a number.
    pub fn get(self) -> usize {
        usize::from(self.0)
    }

    /// Whether it is the default (left out of a config's hash, so configs without it keep theirs).
    pub fn is_default(&self) -> bool {
        *self == RingSize::DEFAULT
    }
}

impl Default for RingSize {
    fn default() -> Self {
        RingSize::DEFAULT
    }
}

impl TryFrom<i64> for RingSize {
    type Error = String;
    fn try_from(k: i64) -> Result<Self, String> {
        RingSize::new(k)
    }
}

impl From<RingSize> for u32 {
    fn from(k: RingSize) -> u32 {
        u32::from(k.0)
    }
}

impl fmt::Debug for Addressees {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl fmt::Display for Addressees {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, a) in self.as_slice().iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{a}")?;
        }
        Ok(())
    }
}

impl Serialize for Addressees {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Addressees {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Addressees::read(&Vec::<u32>::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[u32]) -> Vec<AgentId> {
        v.iter().copied().map(AgentId).collect()
    }

    #[test]
    fn the_order_given_does_not_matter() {
        let a = Addressees::new(ids(&[7, 2, 5])).unwrap();
        let b = Addressees::new(ids(&[2, 5, 7])).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.as_slice(), ids(&[2, 5, 7]).as_slice());
        assert!(a.contains(AgentId(5)) && !a.contains(AgentId(3)));
        assert_eq!(serde_json::to_string(&a).unwrap(), "[2,5,7]");
    }

    #[test]
    fn empty_repeated_and_overlong_lists_are_refused() {
        assert_eq!(Addressees::new(ids(&[])), Err(AddresseesError::Empty));
        assert_eq!(Addressees::new(ids(&[3, 1, 3])), Err(AddresseesError::Repeated(AgentId(3))));
        assert_eq!(Addressees::new(ids(&[0, 1, 2, 3, 4, 5, 6, 7, 8])), Err(AddresseesError::TooMany(9)));
        let e = serde_json::from_str::<Addressees>("[1,1]").unwrap_err().to_string();
        assert!(e.contains("bot1 is listed twice"), "{e}");
    }
}
