//! Where default files live.

use std::path::{Path, PathBuf};

/// The default crew config: `configs/crew.toml` under the current directory, else the
/// one in the source tree this binary was built from.
pub fn default_config() -> Option<PathBuf> {
    let here = PathBuf::from("configs/crew.toml");
    if here.is_file() {
        return Some(here);
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/crew.toml");
    built.is_file().then_some(built)
}

/// The default trace path for an episode. The name may come from a task file (a JSON
/// key): it goes through [`file_stem`], so that `../../x` stays inside `runs/`.
pub fn default_trace(name: &str, policy: &str, seed: u64) -> PathBuf {
    PathBuf::from("runs").join(format!("{}-{policy}-s{seed}.jsonl", file_stem(name)))
}

/// The longest stem [`file_stem`] returns (file systems allow 255 bytes per name; the
/// rest is left for the policy, seed and extension).
pub const MAX_STEM: usize = 120;

/// A name from input (a task id, an episode id) made safe as one file-name component:
/// ASCII letters, digits, `-`, `_` and `.` are kept, anything else (separators, `..`'s
/// leading dot, control characters) becomes `_`, and a name that had to change gets
/// 8 hex digits of its SHA-256 so that two ids never share a file.
pub fn file_stem(name: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut s: String = name
        .chars()
        .enumerate()
        .map(|(i, c)| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '_' => c,
            '.' if i > 0 => c,
            _ => '_',
        })
        .collect();
    if s == name && !s.is_empty() && s.len() <= MAX_STEM {
        return s;
    }
    s.truncate(MAX_STEM - 9);
    let hash: String = Sha256::digest(name.as_bytes()).iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!("{s}-{hash}")
}

/// A file under `configs/`: in the current directory, else in the source tree.
pub fn configs_file(rel: &str) -> Option<PathBuf> {
    let here = PathBuf::from("configs").join(rel);
    if here.exists() {
        return Some(here);
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs").join(rel);
    built.exists().then_some(built)
}

/// The default game data file.
pub fn default_data() -> Option<PathBuf> {
    configs_file("data/minecraft-1.20.4.json")
}

/// Suite v1's folder: `configs/suite` (created by `gatecrew suite generate`).
pub fn default_suite() -> PathBuf {
    configs_file("suite").unwrap_or_else(|| PathBuf::from("configs/suite"))
}

/// Suite v2's folder, the default of `suite run`, `calibrate` and `soak`:
/// `configs/suite-v2` (`gatecrew suite generate --suite-version 2`).
pub fn default_suite_v2() -> PathBuf {
    configs_file("suite-v2").unwrap_or_else(|| PathBuf::from("configs/suite-v2"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_become_one_safe_file_name_component() {
        assert_eq!(file_stem("build_house_3"), "build_house_3");
        assert_eq!(file_stem("v1.2"), "v1.2");
        for hostile in ["../../x", "..", "/etc/passwd", "a/b", "a\\b", "", ".hidden", "x\0y", "é"] {
            let s = file_stem(hostile);
            assert!(
                !s.contains('/') && !s.contains('\\') && !s.starts_with('.') && !s.is_empty(),
                "{hostile:?} -> {s}"
            );
            assert_eq!(Path::new(&s).components().count(), 1, "{s}");
        }
        assert_ne!(file_stem("a/b"), file_stem("a_b"), "changed names keep apart");
        assert!(file_stem(&"x".repeat(1000)).len() <= MAX_STEM);
        let t = default_trace("../../x", "gated", 1);
        assert!(t.starts_with("runs") && t.components().count() == 2, "{}", t.display());
    }
}
