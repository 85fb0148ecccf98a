//! A line as the writer writes it, scanned straight into its [`Brief`].
//!
//! `gatecrew analyze` spent most of its reading time in serde: building an [`super::Event`]
//! per line (its strings and vectors), dropping it, moving it about. [`brief`] reads the
//! frequent kinds in one pass over the bytes, without allocating, and keeps only what
//! the metrics read. It is a recogniser of a subset of what the derived `Deserialize`
//! accepts, not a second grammar: it checks every field of the line against its type
//! (names against the enum's own `Deserialize`, numbers against their range, floats
//! through serde_json's own parser) and answers `None` for anything it is not sure of
//! (whitespace, escapes, `null`, a field unknown, missing or repeated, a number with a
//! sign or a fraction where the writer writes none, a kind it does not scan). The reader
//! then reads that line the usual way, so values and error messages stay those of the
//! derived path; tests check that whatever it accepts, the derived path accepts as the
//! same brief.

use serde::Deserialize;
use serde::de::value::{BorrowedStrDeserializer, Error as ValueError};

use super::brief::{Brief, BriefKind, RuleTag};
use super::event::{ActionName, Decision, GateAction, IssueName, ResolvedBy, Tier, WindowEvent};
use super::{EndReason, FallbackCause, Policy, Split, SuiteClass, TRACE_VERSION};
use crate::ids::IssueId;
use crate::{CloseOutcome, MessageKind};

/// The brief of a line in the writer's form, or `None` (read it the usual way).
pub(super) fn brief(text: &str) -> Option<Brief<'_>> {
    let mut c = Cur { text, b: text.as_bytes(), i: 0 };
    c.lit(b"{\"v\":")?;
    if c.uint(u64::from(u32::MAX))? != u64::from(TRACE_VERSION) {
        return None;
    }
    c.lit(b",\"ep\":")?;
    let ep = c.string()?;
    c.lit(b",\"t\":")?;
    let t = c.uint(u64::MAX)?;
    c.lit(b",\"kind\":")?;
    let kind = match c.string()? {
        "action" => action(&mut c)?,
        "unfinished" => unfinished(&mut c)?,
        "gate" => gate(&mut c)?,
        "issue" => issue(&mut c)?,
        "window" => window(&mut c)?,
        "board" => board(&mut c)?,
        "manager" => manager(&mut c)?,
        "chat" => chat(&mut c)?,
        "resolved" => resolved(&mut c)?,
        "fallback" => fallback(&mut c)?,
        "recovery" => recovery(&mut c)?,
        "episode_start" => episode_start(&mut c)?,
        "episode_end" => episode_end(&mut c)?,
        _ => return None,
    };
    (c.i == c.b.len()).then_some(Brief { ep, t, kind })
}

/// A position in the line.
struct Cur<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
}

impl<'a> Cur<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn lit(&mut self, s: &[u8]) -> Option<()> {
        let rest = self.b.get(self.i..)?;
        rest.starts_with(s).then(|| self.i += s.len())
    }

    /// `,"key":` gives the key, `}` the end of the object.
    fn key(&mut self) -> Option<Option<&'a str>> {
        match self.peek()? {
            b'}' => {
                self.i += 1;
                Some(None)
            }
            b',' => {
                self.i += 1;
                let k = self.string()?;
                self.lit(b":")?;
                Some(Some(k))
            }
            _ => None,
        }
    }

    /// A string without escapes or control characters (the derived path reads those).
    fn string(&mut self) -> Option<&'a str> {
        self.lit(b"\"")?;
        let start = self.i;
        loop {
            match self.peek()? {
                b'"' => break,
                b'\\' | 0..0x20 => return None,
                _ => self.i += 1,
            }
        }
        let s = self.text.get(start..self.i)?;
        self.i += 1;
        Some(s)
    }

    /// A unit variant of `T`, by `T`'s own `Deserialize`.
    fn name<T: Deserialize<'a>>(&mut self) -> Option<T> {
        let s = self.string()?;
        T::deserialize(BorrowedStrDeserializer::<ValueError>::new(s)).ok()
    }

    /// An unsigned integer at most `max`, written without sign, fraction, exponent or
    /// leading zero.
    fn uint(&mut self, max: u64) -> Option<u64> {
        let start = self.i;
        let mut v: u64 = 0;
        while let Some(d) = self.peek().filter(u8::is_ascii_digit) {
            v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
            self.i += 1;
        }
        let digits = self.i - start;
        let leading_zero = digits > 1 && self.b[start] == b'0';
        if digits == 0 || leading_zero || v > max || matches!(self.peek(), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        Some(v)
    }

    fn u32(&mut self) -> Option<u32> {
        self.uint(u64::from(u32::MAX)).map(|v| v as u32)
    }

    /// An `i32`; `-0` is left to the derived path (serde_json reads it as a float).
    fn i32(&mut self) -> Option<i32> {
        if self.lit(b"-").is_some() {
            if self.peek() == Some(b'0') {
                return None;
            }
            let v = self.uint(1 << 31)?;
            return i32::try_from(-(v as i64)).ok();
        }
        self.uint(i32::MAX as u64).map(|v| v as i32)
    }

    fn bool(&mut self) -> Option<bool> {
        if self.lit(b"true").is_some() { Some(true) } else { self.lit(b"false").map(|()| false) }
    }

    /// A JSON number read as `f64` by serde_json itself (the same bits as the derived
    /// path).
    fn f64(&mut self) -> Option<f64> {
        let start = self.i;
        let _ = self.lit(b"-");
        let digits = |c: &mut Self| {
            let s = c.i;
            while c.peek().is_some_and(|d| d.is_ascii_digit()) {
                c.i += 1;
            }
            c.i > s
        };
        if !digits(self) {
            return None;
        }
        if self.lit(b".").is_some() && !digits(self) {
            return None;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if !digits(self) {
                return None;
            }
        }
        serde_json::from_str(self.text.get(start..self.i)?).ok()
    }

    /// A number in `[0, 1]` that is not `-0` (a rate, a score); any other goes the
    /// derived way, which refuses it with the range ([`super::ranges`]).
    fn unit(&mut self) -> Option<f64> {
        self.f64().filter(|&v| super::ranges::is_unit(v))
    }

    /// `[x,y,z]`, a [`crate::pos::Pos`].
    fn pos(&mut self) -> Option<()> {
        self.lit(b"[")?;
        self.i32()?;
        self.lit(b",")?;
        self.i32()?;
        self.lit(b",")?;
        self.i32()?;
        self.lit(b"]")
    }

    /// A [`crate::message::Recipient`] as the writer writes one agent or everyone (a
    /// list goes the derived way, which checks it).
    fn recipient(&mut self) -> Option<()> {
        if self.peek() == Some(b'"') {
            return (self.string()? == "all").then_some(());
        }
        self.agent().map(drop)
    }

    /// An [`crate::AgentId`]: a `u32` below [`crate::AgentId::LIMIT`] (any other goes
    /// the derived way, which names the bound).
    fn agent(&mut self) -> Option<u32> {
        self.u32().filter(|&n| n < crate::AgentId::LIMIT)
    }

    /// A [`Tier`]: 1, 2, 3 or `"policy"`.
    fn tier(&mut self) -> Option<Tier> {
        if self.peek() == Some(b'"') {
            return (self.string()? == "policy").then_some(Tier::Policy);
        }
        match self.uint(3)? {
            1 => Some(Tier::Rules),
            2 => Some(Tier::Score),
            3 => Some(Tier::Adjudicator),
            _ => None,
        }
    }

    /// A list of agent ids, counted.
    fn agents(&mut self) -> Option<usize> {
        self.lit(b"[")?;
        if self.lit(b"]").is_some() {
            return Some(0);
        }
        let mut n = 0;
        loop {
            self.agent()?;
            n += 1;
            if self.lit(b"]").is_some() {
                return Some(n);
            }
            self.lit(b",")?;
        }
    }
}

/// The fields seen so far, one bit each: a repeated field is left to the derived path
/// (which refuses it), and so is a missing one.
#[derive(Default)]
struct Seen(u32);

impl Seen {
    fn once(&mut self, bit: u32) -> Option<()> {
        let b = 1 << bit;
        (self.0 & b == 0).then(|| self.0 |= b)
    }

    fn has(&self, required: u32) -> Option<()> {
        (self.0 & required == required).then_some(())
    }
}

/// Reads the fields of one kind: `field!(c, seen; "name" => bit: expr, ...)` then the
/// bits that must be there.
macro_rules! fields {
    ($c:ident, $required:expr; $($name:literal => $bit:literal: $read:expr),* $(,)?) => {{
        let mut seen = Seen::default();
        while let Some(key) = $c.key()? {
            match key {
                $($name => {
                    seen.once($bit)?;
                    $read;
                })*
                _ => return None,
            }
        }
        seen.has($required)?;
    }};
}

fn action(c: &mut Cur<'_>) -> Option<BriefKind> {
    fields!(c, 0b111;
        "agent" => 0: c.agent()?,
        "action" => 1: c.name::<ActionName>()?,
        "ok" => 2: c.bool()?,
        "reason" => 3: c.string()?,
        "item" => 4: c.string()?,
        "count" => 5: c.u32()?,
        "pos" => 6: c.pos()?,
        "ticks" => 7: c.uint(u64::MAX)?,
    );
    Some(BriefKind::Action)
}

fn unfinished(c: &mut Cur<'_>) -> Option<BriefKind> {
    fields!(c, 0b10011;
        "agent" => 0: c.agent()?,
        "node" => 1: c.u32()?,
        "pos" => 2: c.pos()?,
        "block" => 3: c.string()?,
        "why" => 4: c.string()?,
    );
    Some(BriefKind::Else)
}

fn gate(c: &mut Cur<'_>) -> Option<BriefKind> {
    let (mut issue_id, mut tier, mut decision, mut feasible, mut oracle_ticks) = (0, Tier::Policy, None, false, None);
    let (mut rule, mut r) = (None, 0);
    fields!(c, 0b1_0111_0111;
        "agent" => 0: c.agent()?,
        "issue_id" => 1: issue_id = c.uint(u64::MAX)?,
        "tier" => 2: tier = c.tier()?,
        "rule" => 3: rule = Some(RuleTag::of(c.string()?)),
        "features" => 4: {
            // FeatureVec, in the writer's order.
            c.lit(b"{\"C\":")?;
            c.uint(255)?;
            c.lit(b",\"A\":")?;
            c.uint(255)?;
            c.lit(b",\"D\":")?;
            c.uint(255)?;
            c.lit(b",\"R\":")?;
            r = c.uint(255)? as u8;
            c.lit(b",\"H\":")?;
            c.uint(255)?;
            c.lit(b"}")?
        },
        "score" => 5: c.unit()?,
        "decision" => 6: decision = Some(c.name::<Decision>()?),
        "action" => 7: c.name::<GateAction>()?,
        "oracle_local_feasible" => 8: feasible = c.bool()?,
        "context" => 9: {
            // GateContext, in the writer's order.
            c.lit(b"{\"requestable\":")?;
            c.bool()?;
            c.lit(b",\"reachable\":")?;
            c.bool()?;
            c.lit(b",\"other_work\":")?;
            c.bool()?;
            c.lit(b"}")?
        },
        "oracle_ticks" => 10: oracle_ticks = Some(c.uint(u64::MAX)?),
    );
    Some(BriefKind::Gate {
        issue_id: IssueId(issue_id),
        tier,
        rule,
        r,
        decision: decision?,
        oracle_local_feasible: feasible,
        oracle_ticks,
    })
}

fn issue(c: &mut Cur<'_>) -> Option<BriefKind> {
    let (mut issue_id, mut name) = (0, None);
    fields!(c, 0b111;
        "agent" => 0: c.agent()?,
        "issue_id" => 1: issue_id = c.uint(u64::MAX)?,
        "issue" => 2: name = Some(c.name::<IssueName>()?),
        "item" => 3: c.string()?,
        "count" => 4: c.u32()?,
        "node" => 5: c.u32()?,
        "pos" => 6: c.pos()?,
        "reason" => 7: c.string()?,
    );
    Some(BriefKind::Issue { issue_id: IssueId(issue_id), issue: name? })
}

fn window(c: &mut Cur<'_>) -> Option<BriefKind> {
    let (mut event, mut outcome) = (None, None);
    fields!(c, 0b11;
        "window" => 0: c.u32()?,
        "event" => 1: event = Some(c.name::<WindowEvent>()?),
        "issue_id" => 2: c.uint(u64::MAX)?,
        "outcome" => 3: outcome = Some(c.name::<CloseOutcome>()?),
    );
    Some(BriefKind::Window { event: event?, outcome })
}

fn board(c: &mut Cur<'_>) -> Option<BriefKind> {
    fields!(c, 0b11111;
        "msg" => 0: c.name::<MessageKind>()?,
        "window" => 1: c.u32()?,
        "from" => 2: c.agent()?,
        "to" => 3: c.recipient()?,
        "item" => 4: c.string()?,
        "count" => 5: c.u32()?,
        "reason" => 6: c.string()?,
    );
    Some(BriefKind::Board)
}

fn manager(c: &mut Cur<'_>) -> Option<BriefKind> {
    let mut tokens = 0;
    fields!(c, 0b100;
        "from" => 0: c.agent()?,
        "to" => 1: c.agent()?,
        "tokens" => 2: tokens = c.u32()?,
    );
    Some(BriefKind::Manager { tokens })
}

fn chat(c: &mut Cur<'_>) -> Option<BriefKind> {
    let mut tokens = 0;
    fields!(c, 0b111;
        "from" => 0: c.agent()?,
        "to" => 1: c.recipient()?,
        "tokens" => 2: tokens = c.u32()?,
    );
    Some(BriefKind::Chat { tokens })
}

fn resolved(c: &mut Cur<'_>) -> Option<BriefKind> {
    let (mut issue_id, mut by) = (0, None);
    fields!(c, 0b111;
        "agent" => 0: c.agent()?,
        "issue_id" => 1: issue_id = c.uint(u64::MAX)?,
        "by" => 2: by = Some(c.name::<ResolvedBy>()?),
    );
    Some(BriefKind::Resolved { issue_id: IssueId(issue_id), by: by? })
}

fn fallback(c: &mut Cur<'_>) -> Option<BriefKind> {
    fields!(c, 0b1111;
        "agent" => 0: c.agent()?,
        "issue_id" => 1: c.uint(u64::MAX)?,
        "action" => 2: c.name::<GateAction>()?,
        "cause" => 3: c.name::<FallbackCause>()?,
    );
    Some(BriefKind::Else)
}

fn recovery(c: &mut Cur<'_>) -> Option<BriefKind> {
    fields!(c, 0b1111;
        "agent" => 0: c.agent()?,
        "issue_id" => 1: c.uint(u64::MAX)?,
        "step" => 2: c.string()?,
        "ok" => 3: c.bool()?,
    );
    Some(BriefKind::Else)
}

fn episode_start(c: &mut Cur<'_>) -> Option<BriefKind> {
    let (mut policy, mut class, mut agents) = (None, None, 0);
    // `warnings` and `humans` (lists of strings) go the derived way.
    fields!(c, 0b11111;
        "policy" => 0: policy = Some(c.name::<Policy>()?),
        "seed" => 1: c.uint(u64::MAX)?,
        "config_hash" => 2: c.string()?,
        "agents" => 3: agents = c.agents()?,
        "blueprint_blocks" => 4: c.u32()?,
        "class" => 5: class = Some(c.name::<SuiteClass>()?),
        "template" => 6: c.string()?,
        "split" => 7: c.name::<Split>()?,
        "blueprint" => 8: c.string()?,
        "experiment" => 9: c.bool()?,
    );
    Some(BriefKind::EpisodeStart { policy: policy?, class, agents })
}

fn episode_end(c: &mut Cur<'_>) -> Option<BriefKind> {
    let (mut tsr, mut complete, mut reason) = (0.0, false, None);
    // The other systems' scores (flattened `TaskScores`) go the derived way.
    fields!(c, 0b11111;
        "tsr" => 0: tsr = c.unit()?,
        "complete" => 1: complete = c.bool()?,
        "correct_blocks" => 2: c.u32()?,
        "blueprint_blocks" => 3: c.u32()?,
        "reason" => 4: reason = Some(c.name::<EndReason>()?),
        "blocks_replaced" => 5: c.u32()?,
    );
    Some(BriefKind::EpisodeEnd { tsr, complete, reason: reason? })
}

#[cfg(test)]
mod tests;
