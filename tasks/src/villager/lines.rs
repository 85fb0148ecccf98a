//! The grammar of one VillagerBench description line.
//!
//! VillagerBench's lines were written by people and language models, so they are a loose
//! family rather than one format. Every shape in the published file is one of these, and
//! the reader takes them all the same way: a line is a sequence of `key:value` pairs,
//! optionally inside one pair of brackets; a value is a word, a number, a position
//! `[x y z]` (commas optional) or a bracketed list of values and pairs.
//!
//! ```text
//! material: X facing: F position: [x, y, z]
//! [material:X facing:F positions:[[x y z] [x y z] ...]]
//! [material:X facing:F positions:[start:[..] end:[..] start:[..] end:[..] single:[..]]]
//! [material:X positions:[position:[..] facing:E position:[..] facing:W]]     (also pos:, coords:)
//! [material:X facing:F shape:rectangle corners:[[..] [..] ([..] [..])] missing:[[..] ...]]
//! [material:X facing:F shape:irregular positions:[[..] ...]]
//! [material:X facing:F layers:[height:-59 shape:rectangle corners:[..] height:-58 ...]]
//! [material:X ... material:Y ...]          (several materials in one line)
//! [name:composter facing:A position:[..]]  (a block by name)
//! ```
//!
//! A `facing:` before the positions of a segment is the segment's; one inside a
//! positions list belongs to the positions listed since the previous one. A rectangle is
//! every cell of the box its corners span (two opposite corners, or all four); `missing:`
//! cells are holes in it. `height:` names the layer's y; the positions' own y wins, and a
//! disagreement is reported. A `start:` with no `end:` is one cell, reported.
//!
//! The reader never drops a cell silently: each cell a line describes ends up in a
//! [`Segment`], and anything it had to assume is a note on the line.

use std::fmt;

use gatecrew_protocol::Pos;

/// Most cells one task's lines may describe. A box is counted before it is listed, so
/// a line spanning the `i32` range costs nothing; 2^20 cells (about 12 MB of positions)
/// is 1,000 times the largest task in VillagerBench's published file (task_91, about
/// 1,000 cells) and far beyond what a crew builds in a 256-block site.
pub const MAX_CELLS: usize = 1 << 20;

/// One material of a line and the cells it goes into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The block name as written (`material:` or `name:`).
    pub block: String,
    /// Cells with their facing letter (`A` when none was given).
    pub cells: Vec<(Pos, String)>,
}

/// A line read: its segments and what the reader had to assume.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Line {
    /// Materials in the order written.
    pub segments: Vec<Segment>,
    /// Assumptions, each about cells that were still read.
    pub notes: Vec<String>,
}

/// Why a line cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError(pub String);

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(m: impl Into<String>) -> Result<T, LineError> {
    Err(LineError(m.into()))
}

mod token;

use token::{Node, as_pos, show, tokens};

fn side(a: i32, b: i32) -> usize {
    usize::try_from((i64::from(a) - i64::from(b)).unsigned_abs().saturating_add(1)).unwrap_or(usize::MAX)
}

/// Every cell of the box spanned by `a` and `b`, counted against `budget` first.
fn boxed(a: Pos, b: Pos, budget: &mut usize) -> Result<Vec<Pos>, LineError> {
    let n = side(a.x, b.x).saturating_mul(side(a.y, b.y)).saturating_mul(side(a.z, b.z));
    if n > *budget {
        return err(format!("the box from {a} to {b} holds {n} cells; a task may describe at most {MAX_CELLS}"));
    }
    *budget -= n;
    let mut v = Vec::with_capacity(n);
    for x in a.x.min(b.x)..=a.x.max(b.x) {
        for y in a.y.min(b.y)..=a.y.max(b.y) {
            for z in a.z.min(b.z)..=a.z.max(b.z) {
                v.push(Pos::new(x, y, z));
            }
        }
    }
    Ok(v)
}

/// Reads one line; `budget` is the number of cells the task may still describe.
pub fn read(text: &str, budget: &mut usize) -> Result<Line, LineError> {
    let mut nodes = tokens(text)?;
    // One pair of brackets around the whole line is only a wrapper.
    if let [Node::List(inner)] = nodes.as_slice() {
        if matches!(inner.first(), Some(Node::Key(_))) {
            nodes = inner.clone();
        }
    }
    let mut r = Reader { line: Line::default(), budget, seg: None };
    let mut it = nodes.into_iter().peekable();
    while let Some(n) = it.next() {
        let Node::Key(key) = n else {
            return err(format!("expected a key such as material:, found {}", show(&n)));
        };
        let Some(value) = it.next() else {
            return err(format!("{key}: has no value"));
        };
        r.pair(&key, value)?;
    }
    r.close()?;
    if r.line.segments.is_empty() {
        return err("no material: or name: in the line");
    }
    Ok(r.line)
}

/// The segment being read.
struct Open {
    block: String,
    facing: Option<String>,
    height: Option<i32>,
    shape: Option<String>,
    /// Cells, with their own facing when one was given beside them.
    cells: Vec<(Pos, Option<String>)>,
    /// Corners of a rectangle not yet closed (closed by `missing:`, the next shape or the end).
    rect: Option<Vec<Pos>>,
    holes: Vec<Pos>,
}

struct Reader<'b> {
    line: Line,
    budget: &'b mut usize,
    seg: Option<Open>,
}

impl Reader<'_> {
    fn open(&mut self) -> Result<&mut Open, LineError> {
        self.seg.as_mut().ok_or_else(|| LineError("a position comes before any material:".into()))
    }

    fn pair(&mut self, key: &str, value: Node) -> Result<(), LineError> {
        match (key, value) {
            ("material" | "name", Node::Word(w)) => {
                self.close()?;
                self.seg = Some(Open {
                    block: w,
                    facing: None,
                    height: None,
                    shape: None,
                    cells: Vec::new(),
                    rect: None,
                    holes: Vec::new(),
                });
            }
            ("facing", Node::Word(w)) => {
                let s = self.open()?;
                // Positions listed before a facing at this level take it; otherwise it is
                // the segment's.
                let mut took = false;
                for c in s.cells.iter_mut().filter(|c| c.1.is_none()) {
                    c.1 = Some(w.clone());
                    took = true;
                }
                if !took {
                    s.facing = Some(w);
                }
            }
            ("position" | "pos" | "coords" | "single", v) => {
                let p = as_pos(&v)?;
                self.spend(1)?;
                let s = self.open()?;
                let f = s.facing.clone();
                s.cells.push((p, f));
            }
            ("positions", Node::List(v)) => self.positions(v)?,
            ("shape", Node::Word(w)) => {
                self.finish_rect()?;
                let w = w.to_ascii_lowercase();
                if w != "rectangle" && w != "irregular" {
                    return err(format!("unknown shape \"{w}\" (rectangle or irregular)"));
                }
                self.open()?.shape = Some(w);
            }
            ("corners", Node::List(v)) => {
                self.finish_rect()?;
                let corners = v.iter().map(as_pos).collect::<Result<Vec<_>, _>>()?;
                if corners.len() != 2 && corners.len() != 4 {
                    return err(format!("corners: needs two or four positions, found {}", corners.len()));
                }
                let s = self.open()?;
                if s.shape.as_deref().is_some_and(|sh| sh != "rectangle") {
                    return err("corners: belong to shape:rectangle");
                }
                s.rect = Some(corners);
            }
            ("missing", Node::List(v)) => {
                let holes = v.iter().map(as_pos).collect::<Result<Vec<_>, _>>()?;
                let s = self.open()?;
                if s.rect.is_none() {
                    return err("missing: comes after the corners: of a rectangle");
                }
                s.holes.extend(holes);
                self.finish_rect()?;
            }
            ("height", Node::Num(h)) => {
                self.finish_rect()?;
                let h = i32::try_from(h).map_err(|_| LineError(format!("height {h} is out of range")))?;
                self.open()?.height = Some(h);
            }
            ("layers", Node::List(v)) => {
                let mut it = v.into_iter();
                while let Some(n) = it.next() {
                    let Node::Key(k) = n else {
                        return err(format!("expected height:, shape: or corners: in layers:, found {}", show(&n)));
                    };
                    if matches!(k.as_str(), "material" | "name" | "layers") {
                        return err(format!("{k}: cannot go inside layers:"));
                    }
                    let Some(val) = it.next() else {
                        return err(format!("{k}: has no value"));
                    };
                    self.pair(&k, val)?;
                }
                self.finish_rect()?;
            }
            (k, v) => return err(format!("{k}: {} is not understood", show(&v))),
        }
        Ok(())
    }

    /// A `positions:` list: bare positions, `start:`/`end:` boxes, `position:` or
    /// `pos:`/`coords:`/`single:` cells, each optionally followed by `facing:`.
    fn positions(&mut self, v: Vec<Node>) -> Result<(), LineError> {
        let mut it = v.into_iter().peekable();
        let mut start: Option<Pos> = None;
        while let Some(n) = it.next() {
            match n {
                Node::List(inner) if matches!(inner.first(), Some(Node::List(_))) => {
                    // A list of positions nested once more.
                    self.positions(inner)?;
                }
                n @ Node::List(_) => {
                    let p = as_pos(&n)?;
                    self.spend(1)?;
                    self.open()?.cells.push((p, None));
                }
                Node::Key(k) => {
                    let Some(val) = it.next() else {
                        return err(format!("{k}: has no value"));
                    };
                    match k.as_str() {
                        "start" => {
                            if let Some(s) = start.replace(as_pos(&val)?) {
                                self.lone_start(s)?;
                            }
                        }
                        "end" => {
                            let Some(s) = start.take() else {
                                return err("an end: without a start:");
                            };
                            let cells = boxed(s, as_pos(&val)?, self.budget)?;
                            self.open()?.cells.extend(cells.into_iter().map(|p| (p, None)));
                        }
                        "facing" => {
                            if let Some(s) = start.take() {
                                self.lone_start(s)?;
                            }
                            self.pair("facing", val)?;
                        }
                        "position" | "pos" | "coords" | "single" => {
                            if let Some(s) = start.take() {
                                self.lone_start(s)?;
                            }
                            let p = as_pos(&val)?;
                            self.spend(1)?;
                            self.open()?.cells.push((p, None));
                        }
                        _ => self.pair(&k, val)?,
                    }
                }
                other => return err(format!("{} is not a position", show(&other))),
            }
        }
        if let Some(s) = start {
            self.lone_start(s)?;
        }
        Ok(())
    }

    fn lone_start(&mut self, s: Pos) -> Result<(), LineError> {
        self.spend(1)?;
        self.line.notes.push(format!("start:{s} has no end:; read as the one cell {s}"));
        self.open()?.cells.push((s, None));
        Ok(())
    }

    fn spend(&mut self, n: usize) -> Result<(), LineError> {
        if n > *self.budget {
            return err(format!("the task describes more than {MAX_CELLS} cells"));
        }
        *self.budget -= n;
        Ok(())
    }

    /// Turns the rectangle being read, if any, into cells.
    fn finish_rect(&mut self) -> Result<(), LineError> {
        let Some(s) = self.seg.as_mut() else { return Ok(()) };
        let Some(corners) = s.rect.take() else { return Ok(()) };
        let holes = std::mem::take(&mut s.holes);
        let lo = corners.iter().fold(corners[0], |m, c| Pos::new(m.x.min(c.x), m.y.min(c.y), m.z.min(c.z)));
        let hi = corners.iter().fold(corners[0], |m, c| Pos::new(m.x.max(c.x), m.y.max(c.y), m.z.max(c.z)));
        let mut notes = Vec::new();
        let on_corner =
            |c: &Pos| (c.x == lo.x || c.x == hi.x) && (c.y == lo.y || c.y == hi.y) && (c.z == lo.z || c.z == hi.z);
        if let Some(c) = corners.iter().find(|c| !on_corner(c)) {
            notes.push(format!("corner {c} is not a corner of the box {lo}..{hi} the corners span; the box is built"));
        }
        let mut cells = boxed(lo, hi, self.budget)?;
        for h in &holes {
            match cells.iter().position(|c| c == h) {
                Some(i) => {
                    cells.remove(i);
                    *self.budget += 1;
                }
                None => notes.push(format!("missing:{h} is outside the rectangle {lo}..{hi}; nothing to leave out")),
            }
        }
        if let Some(h) = s.height {
            if cells.iter().any(|c| c.y != h) {
                notes.push(format!("height:{h} but the corners give y {}..{}; the corners' y is used", lo.y, hi.y));
            }
        }
        s.cells.extend(cells.into_iter().map(|p| (p, None)));
        self.line.notes.extend(notes);
        Ok(())
    }

    fn close(&mut self) -> Result<(), LineError> {
        // A rectangle left open at the end of a segment is complete as it is.
        self.finish_rect()?;
        let Some(s) = self.seg.take() else { return Ok(()) };
        if let Some(h) = s.height {
            if s.shape.is_none() && s.cells.iter().any(|(p, _)| p.y != h) {
                self.line.notes.push(format!("height:{h} but positions give other y; the positions' y is used"));
            }
        }
        let default = s.facing.clone().unwrap_or_else(|| "A".to_owned());
        let cells = s.cells.into_iter().map(|(p, f)| (p, f.unwrap_or_else(|| default.clone()))).collect();
        self.line.segments.push(Segment { block: s.block, cells });
        Ok(())
    }
}

#[cfg(test)]
mod tests;
