//! Reading typed values out of a parsed JSON document with the JSON path of any fault
//! (through `serde_path_to_error`), and writing such paths.

use serde::de::DeserializeOwned;
use serde_json::Value;

/// `base.key`, or `base["key"]` when the key is not a plain identifier (`["0"]`).
pub fn key(base: &str, k: &str) -> String {
    let plain = k.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain { format!("{base}.{k}") } else { format!("{base}[{}]", Value::String(k.to_owned())) }
}

/// `base[i]`.
pub fn index(base: &str, i: usize) -> String {
    format!("{base}[{i}]")
}

/// Deserializes `value` found at `base`; on failure returns the full JSON path of the
/// fault and the message.
pub fn typed<T: DeserializeOwned>(value: &Value, base: &str) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let mut path = base.to_owned();
        for seg in e.path().iter() {
            path = match seg {
                serde_path_to_error::Segment::Seq { index: i } => index(&path, *i),
                serde_path_to_error::Segment::Map { key: k } => key(&path, k),
                serde_path_to_error::Segment::Enum { variant } => key(&path, variant),
                serde_path_to_error::Segment::Unknown => format!("{path}.?"),
            };
        }
        (path, e.into_inner().to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Level {
        coordinates: [i32; 3],
    }

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Doc {
        levels: Vec<Level>,
    }

    #[test]
    fn paths_name_the_fault() {
        let v: Value = serde_json::from_str(r#"{"levels": [{"coordinates": [1, 2, 3]}, {}]}"#).unwrap();
        let (path, msg) = typed::<Doc>(&v, "$.t").unwrap_err();
        assert_eq!(path, "$.t.levels[1]");
        assert!(msg.contains("coordinates"), "{msg}");
        let v: Value = serde_json::from_str(r#"{"levels": [{"coordinates": [1, "x", 3]}]}"#).unwrap();
        assert_eq!(typed::<Doc>(&v, "$").unwrap_err().0, "$.levels[0].coordinates[1]");
        assert_eq!(key("$", "a b"), r#"$["a b"]"#);
    }
}
