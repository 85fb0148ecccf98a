//! Item counts that a board message may carry.

use std::fmt;
use std::num::NonZeroU32;

use serde::{Deserialize, Serialize};

/// The largest count a message may carry: a full 36-slot inventory of 64-stacks. Anything
/// larger cannot be held by one bot, so it is a malformed message, not a big request.
pub const MAX_COUNT: u32 = 36 * 64;

/// An item count in `1..=MAX_COUNT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "i64", into = "u32")]
pub struct Count(NonZeroU32);

/// Why a number is not a [`Count`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CountError {
    /// Zero or negative.
    #[error("count must be at least 1, got {0}")]
    NotPositive(i64),
    /// More than one bot can carry.
    #[error("count {0} exceeds the maximum of {MAX_COUNT}")]
    TooLarge(i64),
}

impl Count {
    /// Checks the bounds.
    pub fn new(n: i64) -> Result<Self, CountError> {
        if n < 1 {
            return Err(CountError::NotPositive(n));
        }
        if n > i64::from(MAX_COUNT) {
            return Err(CountError::TooLarge(n));
        }
        // Bounds were checked above, so both conversions succeed.
        let v = u32::try_from(n).map_err(|_| CountError::TooLarge(n))?;
        NonZeroU32::new(v).map(Count).ok_or(CountError::NotPositive(n))
    }

    /// The count as a number.
    pub fn get(self) -> u32 {
        self.0.get()
    }
}

impl TryFrom<i64> for Count {
    type Error = CountError;
    fn try_from(n: i64) -> Result<Self, CountError> {
        Count::new(n)
    }
}

impl From<Count> for u32 {
    fn from(c: Count) -> u32 {
        c.get()
    }
}

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
