//! Bad input gives a typed error naming the file and the line or key; nothing panics.

use std::path::Path;

use gatecrew_crew::{Overrides, Setup};
use gatecrew_world::{Blueprint, GameData, LoadErrorKind};

use crate::common::{data, default_config, root, write};

fn default_text() -> String {
    std::fs::read_to_string(default_config()).unwrap()
}

/// Writes a crew config next to copies of the default blueprint and data, and loads it.
fn load_variant(dir: &Path, text: &str) -> Result<Setup, String> {
    let cfg = dir.join("configs/crew.toml");
    write(dir, "configs/crew.toml", text);
    let bp = std::fs::read_to_string(root().join("configs/blueprints/house.toml")).unwrap();
    write(dir, "configs/blueprints/house.toml", &bp);
    let data = dir.join("configs/data/minecraft-1.20.4.json");
    if !data.exists() {
        std::fs::create_dir_all(data.parent().unwrap()).unwrap();
        std::fs::copy(root().join("configs/data/minecraft-1.20.4.json"), &data).unwrap();
    }
    Setup::load(&cfg, &Overrides::default()).map_err(|e| e.to_string())
}

#[test]
fn weights_breaking_the_hierarchy_are_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    let text = default_text()
        .replace("[world]", "[gate]\nweights = { c = 0.2, a = 0.2, d = 0.2, r = 0.2, h = 0.2 }\n\n[world]");
    let err = load_variant(dir.path(), &text).unwrap_err();
    assert!(err.contains("crew.toml:"), "{err}");
    assert!(err.contains("gate.weights") && err.contains("hierarchy"), "{err}");
    let text = default_text().replace("[world]", "[gate]\ntheta_low = 0.95\n\n[world]");
    let err = load_variant(dir.path(), &text).unwrap_err();
    assert!(err.contains("theta_low"), "{err}");
}

#[test]
fn an_unknown_key_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = default_text().replace("tick_limit = 24000", "tick_limit = 24000\nticklimit = 5");
    let line = text.lines().position(|l| l.starts_with("ticklimit")).unwrap() + 1;
    let err = load_variant(dir.path(), &text).unwrap_err();
    assert!(err.contains(&format!("crew.toml:{line}:")), "{err}");
    assert!(err.contains("unknown field `ticklimit`"), "{err}");
}

#[test]
fn a_negative_count_names_its_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let text = default_text().replace("oak_log = 4 }", "oak_log = -4 }");
    let line = text.lines().position(|l| l.contains("oak_log = -4")).unwrap() + 1;
    let err = load_variant(dir.path(), &text).unwrap_err();
    assert!(err.contains(&format!("crew.toml:{line}")), "{err}");
    assert!(err.contains("oak_log") && err.contains("-4"), "{err}");
}

#[test]
fn an_unknown_item_in_an_inventory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = default_text().replace("glass = 4", "glas = 4");
    let err = load_variant(dir.path(), &text).unwrap_err();
    assert!(err.contains("unknown item \"glas\"") && err.contains("did you mean \"glass\""), "{err}");
}

#[test]
fn every_unknown_block_of_a_blueprint_is_listed_with_its_line() {
    let text = "name = \"x\"\n[[block]]\nat = [0, 0, 0]\nblock = \"cobblestone\"\n[[block]]\nat = [1, 0, 0]\nblock = \"cobble\"\n[[fill]]\nfrom = [0, 0, 2]\nto = [1, 0, 2]\nblock = \"oak_plank\"\n";
    let err = Blueprint::parse(text, Path::new("bp.toml"), &data()).unwrap_err();
    let LoadErrorKind::UnknownBlocks(list) = err.kind() else { panic!("{err}") };
    assert_eq!(list.iter().map(|(l, _)| *l).collect::<Vec<_>>(), vec![11, 7]);
    let msg = err.to_string();
    assert!(msg.starts_with("bp.toml") && msg.contains("line 7") && msg.contains("line 11"), "{msg}");
    assert!(msg.contains("did you mean \"oak_planks\""), "{msg}");
}

#[test]
fn falling_or_hanging_blocks_over_air_that_stays_air_are_refused() {
    for block in ["sand", "torch"] {
        let text = format!("name = \"x\"\n[[block]]\nat = [0, 3, 0]\nblock = \"{block}\"\n");
        let err = Blueprint::parse(&text, Path::new("bp.toml"), &data()).unwrap_err();
        assert!(err.to_string().contains("bp.toml:3") && err.to_string().contains("can never stay"), "{err}");
    }
}

#[test]
fn a_floating_block_loads_and_is_marked_for_a_scaffold() {
    let text = "name = \"x\"\n[[block]]\nat = [0, 3, 0]\nblock = \"cobblestone\"\n";
    let bp = Blueprint::parse(text, Path::new("bp.toml"), &data()).unwrap();
    assert!(bp.floats(0, &data()));
}

#[test]
fn a_recipe_naming_an_unknown_item_is_refused_with_its_key() {
    let text = std::fs::read_to_string(root().join("configs/data/minecraft-1.20.4.json")).unwrap();
    let bad = text.replacen(
        r#""ingredients":[{"item":"oak_log","count":1}]"#,
        r#""ingredients":[{"item":"oak_logg","count":1}]"#,
        1,
    );
    assert_ne!(bad, text, "the fixture must change a recipe");
    let err = GameData::from_json(&bad, Path::new("data.json")).unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with("data.json: key `recipes["), "{msg}");
    assert!(msg.contains("ingredients[0].item") && msg.contains("unknown item \"oak_logg\""), "{msg}");
}

#[test]
fn malformed_json_data_names_line_and_column() {
    let err = GameData::from_json("{\n  \"version\": 3,\n", Path::new("d.json")).unwrap_err();
    assert!(matches!(err.kind(), LoadErrorKind::Syntax { line: 2, .. }), "{err}");
}
