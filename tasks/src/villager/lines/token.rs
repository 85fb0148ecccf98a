//! Tokens of a description line: keys (`material:`), words, whole numbers and
//! bracketed lists, nested at most 16 deep.

use gatecrew_protocol::Pos;

use super::{LineError, err};

/// A token of the line.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Node {
    /// `key:`
    Key(String),
    /// A bare word (`A`, `rectangle`, `oak_log`, `minecraft:stone`).
    Word(String),
    /// An integer.
    Num(i64),
    /// `[ ... ]`
    List(Vec<Node>),
}

/// Keys after which the value is a block name that may itself hold a colon
/// (`minecraft:stone`).
const NAME_KEYS: [&str; 2] = ["material", "name"];

pub(super) fn tokens(text: &str) -> Result<Vec<Node>, LineError> {
    let mut stack: Vec<Vec<Node>> = vec![Vec::new()];
    let b = text.as_bytes();
    let mut i = 0;
    let mut name_next = false;
    while i < b.len() {
        let c = b[i];
        match c {
            b'[' => {
                if stack.len() > 16 {
                    return err("brackets nested more than 16 deep");
                }
                stack.push(Vec::new());
                i += 1;
            }
            b']' => {
                if stack.len() == 1 {
                    return err(format!("a \"]\" at character {} closes nothing", i + 1));
                }
                let inner = stack.pop().unwrap_or_default();
                if let Some(top) = stack.last_mut() {
                    top.push(Node::List(inner));
                }
                i += 1;
            }
            // Separators keep a pending `material:` waiting for its name.
            b',' | b';' => {
                i += 1;
                continue;
            }
            c if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'-' | b'+' | b'0'..=b'9' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                if i < b.len() && b[i] == b'.' {
                    return err(format!("\"{}\" is not a whole number", number_text(text, start)));
                }
                let t = &text[start..i];
                let n: i64 = t.parse().map_err(|_| LineError(format!("\"{t}\" is not a number")))?;
                if let Some(top) = stack.last_mut() {
                    top.push(Node::Num(n));
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                // `minecraft:stone` after `material:` is one name.
                if name_next && text[start..i].eq_ignore_ascii_case("minecraft") && b.get(i) == Some(&b':') {
                    i += 1;
                    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                        i += 1;
                    }
                }
                let word = &text[start..i];
                let top = stack.last_mut().ok_or_else(|| LineError("unbalanced brackets".into()))?;
                if !name_next && b.get(i) == Some(&b':') {
                    i += 1;
                    let key = word.to_ascii_lowercase();
                    name_next = NAME_KEYS.contains(&key.as_str());
                    top.push(Node::Key(key));
                    continue;
                }
                top.push(Node::Word(word.to_owned()));
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return err(format!("unexpected \"{ch}\" at character {}", i + 1));
            }
        }
        name_next = false;
    }
    if stack.len() != 1 {
        return err("a \"[\" is never closed");
    }
    Ok(stack.pop().unwrap_or_default())
}

fn number_text(text: &str, start: usize) -> &str {
    let end = text[start..]
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .map_or(text.len(), |e| start + e);
    &text[start..end]
}

pub(super) fn as_pos(n: &Node) -> Result<Pos, LineError> {
    let Node::List(v) = n else {
        return err(format!("expected a position [x y z], found {}", show(n)));
    };
    let nums: Vec<i32> = v
        .iter()
        .map(|x| match x {
            Node::Num(k) => i32::try_from(*k).map_err(|_| LineError(format!("{k} is out of range for a coordinate"))),
            other => err(format!("expected a number in a position, found {}", show(other))),
        })
        .collect::<Result<_, _>>()?;
    match nums.as_slice() {
        [x, y, z] => Ok(Pos::new(*x, *y, *z)),
        _ => err(format!("\"{}\" is not a position [x y z]", show(n))),
    }
}

pub(super) fn show(n: &Node) -> String {
    match n {
        Node::Key(k) => format!("{k}:"),
        Node::Word(w) => w.clone(),
        Node::Num(k) => k.to_string(),
        Node::List(v) => format!("[{}]", v.iter().map(show).collect::<Vec<_>>().join(", ")),
    }
}
