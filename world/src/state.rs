//! Block states: the properties Minecraft writes after a block name, as in
//! `oak_door[half=lower,hinge=left,facing=north]`. A blueprint cell may specify some of
//! them; a placed block carries the state it was placed with; scoring compares only the
//! properties the blueprint specifies.
//!
//! Only the properties construction tasks use are modelled, each as an enum, so that a
//! misspelt value is an error instead of a silent mismatch.

use std::fmt;

/// Declares a property value enum with its Minecraft spellings.
macro_rules! prop_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident = $text:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $($(#[$vm])* $var),+
        }

        impl $name {
            /// The Minecraft spelling.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$var => $text),+
                }
            }

            fn parse(s: &str) -> Option<Self> {
                match s {
                    $($text => Some($name::$var),)+
                    _ => None,
                }
            }

            fn spellings() -> &'static [&'static str] {
                &[$($text),+]
            }
        }
    };
}

prop_enum!(
    /// Where a block faces.
    Facing {
        /// -z.
        North = "north",
        /// +z.
        South = "south",
        /// +x.
        East = "east",
        /// -x.
        West = "west",
        /// +y.
        Up = "up",
        /// -y.
        Down = "down",
    }
);

prop_enum!(
    /// Which half: doors and tall plants use upper/lower, stairs and trapdoors top/bottom.
    Half {
        /// The top cell of a two-cell block.
        Upper = "upper",
        /// The bottom cell of a two-cell block.
        Lower = "lower",
        /// Upside down (stairs, trapdoors).
        Top = "top",
        /// Upright.
        Bottom = "bottom",
    }
);

prop_enum!(
    /// The side a door's hinge is on.
    Hinge {
        /// Left.
        Left = "left",
        /// Right.
        Right = "right",
    }
);

prop_enum!(
    /// The axis of logs and pillars.
    Axis {
        /// East-west.
        X = "x",
        /// Upright.
        Y = "y",
        /// North-south.
        Z = "z",
    }
);

prop_enum!(
    /// A slab's `type`.
    SlabType {
        /// In the upper half of the cell.
        Top = "top",
        /// In the lower half.
        Bottom = "bottom",
        /// Both halves.
        Double = "double",
    }
);

prop_enum!(
    /// A stair's `shape`.
    StairShape {
        /// Straight.
        Straight = "straight",
        /// Inner corner, left.
        InnerLeft = "inner_left",
        /// Inner corner, right.
        InnerRight = "inner_right",
        /// Outer corner, left.
        OuterLeft = "outer_left",
        /// Outer corner, right.
        OuterRight = "outer_right",
    }
);

/// The state of one block: every property optional (`None`: unspecified, anything
/// matches). `Copy` and small, so cells and actions carry it by value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockState {
    /// `facing`.
    pub facing: Option<Facing>,
    /// `half`.
    pub half: Option<Half>,
    /// `hinge`.
    pub hinge: Option<Hinge>,
    /// `axis`.
    pub axis: Option<Axis>,
    /// `open` (doors, gates, trapdoors).
    pub open: Option<bool>,
    /// `type` (slabs).
    pub slab: Option<SlabType>,
    /// `shape` (stairs).
    pub shape: Option<StairShape>,
    /// `powered`.
    pub powered: Option<bool>,
    /// `waterlogged`.
    pub waterlogged: Option<bool>,
}

/// A block state that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// `[...]` is not closed, or text follows it.
    #[error("malformed block state in \"{0}\": expected name[key=value, ...]")]
    Malformed(String),
    /// A property this world does not model.
    #[error(
        "unknown block state property \"{0}\" (known: facing, half, hinge, axis, open, type, shape, powered, waterlogged)"
    )]
    UnknownProperty(String),
    /// A value the property does not take.
    #[error("block state {key}={value} is not valid (expected one of {expected})")]
    BadValue {
        /// The property.
        key: String,
        /// The value given.
        value: String,
        /// The spellings allowed.
        expected: String,
    },
    /// The same property twice.
    #[error("block state property \"{0}\" is given twice")]
    Duplicate(String),
}

fn value<T>(key: &str, v: &str, parse: fn(&str) -> Option<T>, spellings: &[&str]) -> Result<T, StateError> {
    parse(v).ok_or_else(|| StateError::BadValue {
        key: key.to_owned(),
        value: v.to_owned(),
        expected: spellings.join(", "),
    })
}

fn boolean(s: &str) -> Option<bool> {
    match s {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

fn set<T>(slot: &mut Option<T>, key: &str, v: T) -> Result<(), StateError> {
    if slot.is_some() {
        return Err(StateError::Duplicate(key.to_owned()));
    }
    *slot = Some(v);
    Ok(())
}

impl BlockState {
    /// Whether no property is specified.
    pub fn is_empty(&self) -> bool {
        *self == BlockState::default()
    }

    /// Sets one property from its Minecraft spelling (`facing`, `north`).
    pub fn set_property(&mut self, key: &str, v: &str) -> Result<(), StateError> {
        let v = v.trim();
        match key.trim() {
            "facing" => set(&mut self.facing, key, value(key, v, Facing::parse, Facing::spellings())?),
            "half" => set(&mut self.half, key, value(key, v, Half::parse, Half::spellings())?),
            "hinge" => set(&mut self.hinge, key, value(key, v, Hinge::parse, Hinge::spellings())?),
            "axis" => set(&mut self.axis, key, value(key, v, Axis::parse, Axis::spellings())?),
            "open" => set(&mut self.open, key, value(key, v, boolean, &["true", "false"])?),
            "type" => set(&mut self.slab, key, value(key, v, SlabType::parse, SlabType::spellings())?),
            "shape" => set(&mut self.shape, key, value(key, v, StairShape::parse, StairShape::spellings())?),
            "powered" => set(&mut self.powered, key, value(key, v, boolean, &["true", "false"])?),
            "waterlogged" => set(&mut self.waterlogged, key, value(key, v, boolean, &["true", "false"])?),
            other => Err(StateError::UnknownProperty(other.to_owned())),
        }
    }

    /// Whether a placed block's state satisfies this (specified) state: every property
    /// given here must be equal there.
    pub fn satisfied_by(&self, actual: &BlockState) -> bool {
        fn ok<T: PartialEq>(want: &Option<T>, have: &Option<T>) -> bool {
            want.as_ref().is_none_or(|w| have.as_ref() == Some(w))
        }
        ok(&self.facing, &actual.facing)
            && ok(&self.half, &actual.half)
            && ok(&self.hinge, &actual.hinge)
            && ok(&self.axis, &actual.axis)
            && ok(&self.open, &actual.open)
            && ok(&self.slab, &actual.slab)
            && ok(&self.shape, &actual.shape)
            && ok(&self.powered, &actual.powered)
            && ok(&self.waterlogged, &actual.waterlogged)
    }

    /// The state of the upper cell of a two-cell block placed with this state: the same,
    /// with `half=upper` where the lower cell says `half=lower`.
    pub fn upper_half(&self) -> BlockState {
        let mut s = *self;
        if s.half == Some(Half::Lower) {
            s.half = Some(Half::Upper);
        }
        s
    }
}

/// Splits `name[key=value, ...]` into the name and its state. Spaces around names,
/// keys and values are ignored, as Minecraft's command parser does.
pub fn parse_block_spec(spec: &str) -> Result<(String, BlockState), StateError> {
    let spec = spec.trim();
    let Some(open) = spec.find('[') else {
        return Ok((spec.to_owned(), BlockState::default()));
    };
    let rest = &spec[open + 1..];
    let Some(inner) = rest.strip_suffix(']') else {
        return Err(StateError::Malformed(spec.to_owned()));
    };
    let mut state = BlockState::default();
    for part in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((k, v)) = part.split_once('=') else {
            return Err(StateError::Malformed(spec.to_owned()));
        };
        state.set_property(k.trim(), v)?;
    }
    Ok((spec[..open].trim().to_owned(), state))
}

impl fmt::Display for BlockState {
    /// `[facing=north,half=lower]`, or nothing when no property is given.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = |v: bool| if v { "true" } else { "false" };
        let props: [(&str, Option<&str>); 9] = [
            ("facing", self.facing.map(Facing::as_str)),
            ("half", self.half.map(Half::as_str)),
            ("hinge", self.hinge.map(Hinge::as_str)),
            ("axis", self.axis.map(Axis::as_str)),
            ("open", self.open.map(b)),
            ("type", self.slab.map(SlabType::as_str)),
            ("shape", self.shape.map(StairShape::as_str)),
            ("powered", self.powered.map(b)),
            ("waterlogged", self.waterlogged.map(b)),
        ];
        let given: Vec<String> = props.iter().filter_map(|(k, v)| v.map(|v| format!("{k}={v}"))).collect();
        if given.is_empty() { Ok(()) } else { write!(f, "[{}]", given.join(",")) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_inline_states_with_spaces() {
        let (name, s) = parse_block_spec("dark_oak_door[half=lower, hinge=left]").unwrap();
        assert_eq!(name, "dark_oak_door");
        assert_eq!(s.half, Some(Half::Lower));
        assert_eq!(s.hinge, Some(Hinge::Left));
        assert_eq!(s.facing, None);
        assert_eq!(s.to_string(), "[half=lower,hinge=left]");
        assert_eq!(parse_block_spec("stone").unwrap(), ("stone".to_owned(), BlockState::default()));
    }

    #[test]
    fn rejects_bad_states() {
        assert!(matches!(parse_block_spec("oak_door[half=lower"), Err(StateError::Malformed(_))));
        assert!(matches!(parse_block_spec("oak_door[colour=red]"), Err(StateError::UnknownProperty(_))));
        assert!(matches!(parse_block_spec("oak_door[facing=norht]"), Err(StateError::BadValue { .. })));
        assert!(matches!(parse_block_spec("oak_door[open=true,open=false]"), Err(StateError::Duplicate(_))));
    }

    #[test]
    fn only_specified_properties_are_checked() {
        let want = BlockState { facing: Some(Facing::North), ..BlockState::default() };
        let placed = BlockState { facing: Some(Facing::North), half: Some(Half::Lower), ..BlockState::default() };
        assert!(want.satisfied_by(&placed));
        assert!(BlockState::default().satisfied_by(&placed));
        assert!(!want.satisfied_by(&BlockState::default()));
        assert!(!placed.satisfied_by(&want), "half is specified and missing");
        assert_eq!(placed.upper_half().half, Some(Half::Upper));
    }
}
