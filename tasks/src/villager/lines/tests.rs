use super::*;

fn cells(text: &str) -> Vec<(Pos, String, String)> {
    let mut budget = MAX_CELLS;
    let line = read(text, &mut budget).unwrap_or_else(|e| panic!("{text}: {e}"));
    line.segments.into_iter().flat_map(|s| s.cells.into_iter().map(move |(p, f)| (p, s.block.clone(), f))).collect()
}

fn p(x: i32, y: i32, z: i32) -> Pos {
    Pos::new(x, y, z)
}

#[test]
fn the_three_basic_shapes() {
    assert_eq!(
        cells("material: torch facing: A position: [-8, -58, 0]"),
        vec![(p(-8, -58, 0), "torch".into(), "A".into())]
    );
    let run = cells("[material:ladder facing:N positions:[start:[-9 -60 0] end:[-9 -58 0]]]");
    assert_eq!(run.iter().map(|c| c.0).collect::<Vec<_>>(), vec![p(-9, -60, 0), p(-9, -59, 0), p(-9, -58, 0)]);
    assert!(run.iter().all(|c| c.2 == "N"));
    let list = cells("[material:pumpkin facing:A positions:[[-9 -60 -2] [-10 -60 -1]]]");
    assert_eq!(list.len(), 2);
}

#[test]
fn several_start_end_pairs_are_all_read() {
    // task_44's shape: every pair is a box; none is dropped.
    let c =
        cells("[material:x facing:A positions:[start:[0 0 0] end:[2 0 0] start:[0 1 0] end:[0 1 3] single:[9 9 9]]]");
    assert_eq!(c.len(), 3 + 4 + 1);
}

#[test]
fn facing_after_a_position_is_that_positions() {
    let c = cells("[material:purpur_stairs positions:[position:[1 0 0] facing:E position:[2 0 0] facing:W]]");
    assert_eq!(c.iter().map(|c| c.2.as_str()).collect::<Vec<_>>(), vec!["E", "W"]);
    let c = cells("[material:torch positions:[pos:[1 0 0] facing:N coords:[2 0 0] facing:S]]");
    assert_eq!(c.iter().map(|c| c.2.as_str()).collect::<Vec<_>>(), vec!["N", "S"]);
    // task_71: a start with no end, then a run, each with its own facing.
    let mut budget = MAX_CELLS;
    let line = read("[material:w positions:[start:[0 0 2] facing:y start:[1 0 3] end:[4 0 3] facing:x]]", &mut budget)
        .unwrap();
    let seg = &line.segments[0];
    assert_eq!(seg.cells.len(), 5);
    assert_eq!(seg.cells[0].1, "y");
    assert!(seg.cells[1..].iter().all(|c| c.1 == "x"));
    assert_eq!(line.notes.len(), 1, "{:?}", line.notes);
}

#[test]
fn rectangles_with_two_or_four_corners_and_holes() {
    assert_eq!(cells("[material:d facing:A shape:rectangle corners:[[0 0 0] [4 0 4]]]").len(), 25);
    let four = "[material:s facing:A shape:rectangle corners:[[-15 -60 -1] [-9 -60 -1] [-15 -60 1] [-9 -60 1]] \
                missing:[[-11 -60 0] [-12 -60 0]] material:s facing:A position:[-8 -60 2]]";
    assert_eq!(cells(four).len(), 7 * 3 - 2 + 1);
    let layers = "[material:c facing:A layers:[height:-59 shape:rectangle corners:[[-12 -59 -2] [-9 -59 2]] \
                  height:-58 shape:rectangle corners:[[-12 -58 -2] [-9 -58 2]] height:-56 shape:rectangle corners:[[-11 -56 -1] [-10 -56 1]]]]";
    assert_eq!(cells(layers).len(), 20 + 20 + 6);
    let h =
        "[material:t facing:A height:-60 shape:rectangle corners:[[-16 -60 -1] [-12 -60 -1] [-16 -60 1] [-12 -60 1]]]";
    assert_eq!(cells(h).len(), 15);
}

#[test]
fn several_materials_and_names_in_one_line() {
    let c = cells(
        "[material:oak_fence facing:A positions:[[-9 -60 0] [-9 -59 0]] material:stripped_oak_wood facing:y position:[-9 -58 0]]",
    );
    assert_eq!(c.len(), 3);
    assert_eq!(c[2].1, "stripped_oak_wood");
    assert_eq!(c[2].2, "y");
    let c = cells("[name:composter facing:A position:[-8 -59 2] name:lantern facing:A position:[-10 -57 0]]");
    assert_eq!(c.iter().map(|c| c.1.as_str()).collect::<Vec<_>>(), vec!["composter", "lantern"]);
    let c = cells("[material:dirt_path facing:A shape:irregular positions:[[1 0 1] [1 0 2]]]");
    assert_eq!(c.len(), 2);
    assert_eq!(cells("material: minecraft:stone facing: A position: [1, 2, 3]")[0].1, "minecraft:stone");
}

#[test]
fn malformed_lines_are_errors_not_guesses() {
    let mut b = MAX_CELLS;
    for bad in [
        "material: stone facing: A position: [1, 2]",
        "[material:x positions:[[1 2 3]",
        "[material:x positions:[end:[1 2 3]]]",
        "[material:x shape:circle corners:[[0 0 0] [1 1 1]]]",
        "[material:x corners:[[0 0 0]]]",
        "facing: A position: [1, 2, 3]",
        "[material:x position:[1.5 2 3]]",
        "[material:x positions:[start:[-2147483648 0 0] end:[2147483647 0 0]]]",
    ] {
        assert!(read(bad, &mut b).is_err(), "{bad}");
    }
}
