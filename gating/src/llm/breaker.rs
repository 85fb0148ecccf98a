//! The circuit breaker in front of the adjudicator, driven by episode ticks rather
//! than the wall clock, so that an episode with the same verdicts takes the same path:
//!
//! * **closed**: every consult calls the model; `failures` consecutive failed verdicts
//!   open it;
//! * **open** from tick `t`: consults go straight to the fallback, until tick
//!   `t + half_open_ticks`;
//! * **half-open**: the next consult is a trial call (others still fall back while it
//!   is in flight); its verdict closes the breaker or opens it again.
//!
//! Verdicts are recorded when they enter the episode, in a fixed order.

use gatecrew_protocol::Tick;

use super::config::BreakerSpec;

/// The breaker's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakerState {
    /// Calls go through; this many consecutive failures so far.
    Closed {
        /// Consecutive failures.
        failures: u32,
    },
    /// Calls fall back, since this tick.
    Open {
        /// When it opened.
        since: Tick,
    },
    /// One trial call allowed.
    HalfOpen {
        /// Whether the trial is in flight.
        trial_out: bool,
    },
}

/// What the breaker lets a consult do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Call the model.
    Call,
    /// Call the model as the half-open trial.
    Trial,
    /// Fall back without a call.
    Refused,
}

/// A state change worth logging.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transition {
    /// Closed (or half-open) to open.
    Opened,
    /// Open to half-open.
    HalfOpened,
    /// Half-open to closed.
    Closed,
}

/// The breaker. See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct Breaker {
    spec: BreakerSpec,
    state: BreakerState,
}

impl Breaker {
    /// A closed breaker.
    pub fn new(spec: BreakerSpec) -> Self {
        Breaker { spec, state: BreakerState::Closed { failures: 0 } }
    }

    /// The state now.
    pub fn state(&self) -> BreakerState {
        self.state
    }

    /// A consult at `now`: may it call the model? Also reports a half-open transition.
    pub fn admit(&mut self, now: Tick) -> (Admission, Option<Transition>) {
        let mut moved = None;
        if let BreakerState::Open { since } = self.state {
            if now >= since + self.spec.half_open_ticks {
                self.state = BreakerState::HalfOpen { trial_out: false };
                moved = Some(Transition::HalfOpened);
            }
        }
        let admission = match &mut self.state {
            BreakerState::Closed { .. } => Admission::Call,
            BreakerState::Open { .. } | BreakerState::HalfOpen { trial_out: true } => Admission::Refused,
            BreakerState::HalfOpen { trial_out } => {
                *trial_out = true;
                Admission::Trial
            }
        };
        (admission, moved)
    }

    /// A verdict of a call admitted as `admission` entered the episode at `now`.
    /// Verdicts of calls admitted before the breaker opened count only while it is
    /// closed; in half-open, only the trial's verdict decides.
    pub fn record(&mut self, now: Tick, admission: Admission, failed: bool) -> Option<Transition> {
        match (&mut self.state, admission) {
            (_, Admission::Refused) => None,
            (BreakerState::Closed { failures }, Admission::Call) => {
                if !failed {
                    *failures = 0;
                    return None;
                }
                *failures += 1;
                if *failures >= self.spec.failures {
                    self.state = BreakerState::Open { since: now };
                    return Some(Transition::Opened);
                }
                None
            }
            (BreakerState::HalfOpen { .. }, Admission::Trial) => {
                if failed {
                    self.state = BreakerState::Open { since: now };
                    Some(Transition::Opened)
                } else {
                    self.state = BreakerState::Closed { failures: 0 };
                    Some(Transition::Closed)
                }
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: BreakerSpec = BreakerSpec { failures: 2, half_open_ticks: 100 };

    #[test]
    fn opens_after_n_consecutive_failures_and_a_success_resets_the_count() {
        let mut b = Breaker::new(SPEC);
        assert_eq!(b.admit(Tick(0)).0, Admission::Call);
        assert_eq!(b.record(Tick(1), Admission::Call, true), None);
        assert_eq!(b.record(Tick(2), Admission::Call, false), None);
        assert_eq!(b.record(Tick(3), Admission::Call, true), None);
        assert_eq!(b.record(Tick(4), Admission::Call, true), Some(Transition::Opened));
        assert_eq!(b.state(), BreakerState::Open { since: Tick(4) });
        assert_eq!(b.admit(Tick(50)), (Admission::Refused, None));
        // A straggler admitted while closed does not move an open breaker.
        assert_eq!(b.record(Tick(60), Admission::Call, false), None);
        assert_eq!(b.admit(Tick(103)), (Admission::Refused, None));
    }

    #[test]
    fn half_opens_after_m_ticks_with_one_trial() {
        let mut b = Breaker::new(BreakerSpec { failures: 1, ..SPEC });
        b.record(Tick(10), Admission::Call, true);
        assert_eq!(b.admit(Tick(110)), (Admission::Trial, Some(Transition::HalfOpened)));
        assert_eq!(b.admit(Tick(111)), (Admission::Refused, None), "one trial at a time");
        // A failed trial opens it again from the verdict's tick.
        assert_eq!(b.record(Tick(150), Admission::Trial, true), Some(Transition::Opened));
        assert_eq!(b.admit(Tick(249)).0, Admission::Refused);
        assert_eq!(b.admit(Tick(250)), (Admission::Trial, Some(Transition::HalfOpened)));
        // A good trial closes it.
        assert_eq!(b.record(Tick(260), Admission::Trial, false), Some(Transition::Closed));
        assert_eq!(b.admit(Tick(261)).0, Admission::Call);
        assert_eq!(b.state(), BreakerState::Closed { failures: 0 });
    }
}
