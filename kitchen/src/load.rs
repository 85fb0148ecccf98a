//! Reading MindAgent's `recipe.json` and `tasks_level_final.json` as they are.
//!
//! Parse, don't validate: what comes out is a [`RecipeBook`] whose every cooked item
//! resolves through an acyclic recipe graph to raw ingredients the storage stocks, and
//! [`Level`]s whose every dish, serve item and kitchen location is a known value. A level
//! whose kitchen lacks a tool some dish needs still loads (the shared `level_12` asks for
//! `frenchFries`, which needs a `fryer` its kitchen does not have): the dish is listed
//! in [`Level::blocked`] and [`Level::completable`] says why in one sentence.

mod raw;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatecrew_protocol::{ItemId, ItemRegistry};
use serde::de::DeserializeOwned;

use crate::error::{Error, ErrorKind};
use crate::level::{Blocked, Level, MenuDish};
use crate::recipe::{Recipe, RecipeBook};
use crate::tool::ToolKind;

/// The environment variable that overrides [`default_dir`].
pub const DIR_VAR: &str = "GATECREW_CUISINEWORLD";
/// The recipe file's name in the directory.
pub const RECIPE_FILE: &str = "recipe.json";
/// The level file's name in the directory.
pub const LEVEL_FILE: &str = "tasks_level_final.json";

/// Where the CuisineWorld files are: `$GATECREW_CUISINEWORLD` when set, else the copy
/// gatecrew ships, `configs/cuisineworld` (MindAgent's files unchanged, so that a clean
/// clone runs): in the working directory, else in the source tree.
pub fn default_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(DIR_VAR).filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let here = Path::new("configs/cuisineworld");
    if here.join(RECIPE_FILE).exists() {
        return here.to_path_buf();
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/cuisineworld")
}

/// The recipe book and every level of a CuisineWorld directory.
#[derive(Debug, Clone)]
pub struct Cuisine {
    /// Items and recipes.
    pub book: Arc<RecipeBook>,
    /// The levels, in natural name order (`level_2` before `level_10`).
    pub levels: Vec<Arc<Level>>,
    /// The level file, for error messages.
    pub level_file: PathBuf,
}

impl Cuisine {
    /// Loads `dir/recipe.json` and `dir/tasks_level_final.json`.
    pub fn load(dir: &Path) -> Result<Self, Error> {
        let book = Arc::new(load_recipes(&dir.join(RECIPE_FILE))?);
        let level_file = dir.join(LEVEL_FILE);
        let levels = load_levels(&level_file, &book)?.into_iter().map(Arc::new).collect();
        Ok(Cuisine { book, levels, level_file })
    }

    /// Loads [`default_dir`].
    pub fn load_default() -> Result<Self, Error> {
        Self::load(&default_dir())
    }

    /// A level by name.
    pub fn level(&self, name: &str) -> Result<&Arc<Level>, Error> {
        self.levels.iter().find(|l| l.name == name).ok_or_else(|| {
            Error::new(
                &self.level_file,
                ErrorKind::NoSuchLevel {
                    name: name.to_owned(),
                    known: self.levels.iter().map(|l| l.name.clone()).collect(),
                },
            )
        })
    }
}

/// Reads a recipe file.
pub fn load_recipes(path: &Path) -> Result<RecipeBook, Error> {
    parse_recipes(&read(path)?, path)
}

/// Reads a level file against a recipe book.
pub fn load_levels(path: &Path, book: &RecipeBook) -> Result<Vec<Level>, Error> {
    parse_levels(&read(path)?, path, book)
}

fn read(path: &Path) -> Result<String, Error> {
    // Capped like every file read whole (`GATECREW_MAX_FILE_BYTES`).
    gatecrew_protocol::limits::read_text_file(path).map_err(|e| Error::new(path, ErrorKind::Io(e.to_string())))
}

/// Parses a recipe file's text (`file` names it in errors).
pub fn parse_recipes(text: &str, file: &Path) -> Result<RecipeBook, Error> {
    let raw: raw::RawRecipes = typed(text, file)?;
    let mut names: Vec<&str> = raw.keys().map(String::as_str).collect();
    for r in raw.values() {
        names.extend(r.ingredients.iter().map(String::as_str));
    }
    names.sort_unstable();
    names.dedup();
    // One item in hand at a time: stack size 1.
    let items = ItemRegistry::new(names.iter().map(|n| (*n, 1)))
        .map_err(|e| Error::at(file, "$", format!("cannot index the items: {e}")))?;
    let id = |name: &str| items.parse(name).map_err(|e| e.to_string());
    let mut recipes = Vec::with_capacity(raw.len());
    for (product, r) in &raw {
        let at = key("$", product);
        let tool = ToolKind::parse(&r.location).filter(|t| t.cooks()).ok_or_else(|| {
            Error::at(
                file,
                key(&at, "location"),
                format!("unknown cooking tool \"{}\" (known: {})", r.location, ToolKind::known()),
            )
        })?;
        if r.ingredients.is_empty() {
            return Err(Error::at(file, key(&at, "ingredients"), "a recipe needs at least one ingredient"));
        }
        if let Some(cap) = tool.spec().capacity.filter(|&c| r.ingredients.len() > c as usize) {
            return Err(Error::at(
                file,
                key(&at, "ingredients"),
                format!("{} ingredients do not fit a {tool}, which holds {cap}", r.ingredients.len()),
            ));
        }
        let mut ingredients = Vec::with_capacity(r.ingredients.len());
        for (i, name) in r.ingredients.iter().enumerate() {
            ingredients.push(id(name).map_err(|m| Error::at(file, format!("{at}.ingredients[{i}]"), m))?);
        }
        ingredients.sort_unstable();
        let product = id(product).map_err(|m| Error::at(file, &at, m))?;
        recipes.push(Recipe { product, ingredients, tool });
    }
    let book = RecipeBook::new(Arc::new(items), recipes);
    match check_graph(&book) {
        Ok(sizes) => Ok(book.with_expansions(sizes)),
        Err((item, why)) => Err(Error::at(file, key("$", book.name(item)), why)),
    }
}

/// Parses a level file's text against a recipe book.
pub fn parse_levels(text: &str, file: &Path, book: &RecipeBook) -> Result<Vec<Level>, Error> {
    let raw: raw::RawLevels = typed(text, file)?;
    let mut levels = Vec::with_capacity(raw.len());
    for (name, l) in raw {
        let at = key("$", &name);
        let positive = |v: u32, field: &str| {
            if v == 0 { Err(Error::at(file, key(&at, field), "must be at least 1")) } else { Ok(v) }
        };
        let task_interval = positive(l.task_interval, "task_interval")?;
        let num_agents = positive(l.num_agents, "num_agents")?;
        let mut kitchen = Vec::with_capacity(l.kitchen.len());
        for (i, t) in l.kitchen.iter().enumerate() {
            kitchen.push(ToolKind::parse(t).ok_or_else(|| {
                Error::at(
                    file,
                    format!("{at}.kitchen[{i}]"),
                    format!("unknown tool \"{t}\" (known: {})", ToolKind::known()),
                )
            })?);
        }
        for needed in [ToolKind::Storage, ToolKind::Servingtable] {
            if !kitchen.contains(&needed) {
                return Err(Error::at(file, key(&at, "kitchen"), format!("the kitchen has no {needed}")));
            }
        }
        if l.task_list.is_empty() {
            return Err(Error::at(file, key(&at, "task_list"), "no dishes: no order can ever arrive"));
        }
        let mut menu = Vec::with_capacity(l.task_list.len());
        let mut blocked = Vec::new();
        for (dish_name, t) in &l.task_list {
            let dat = key(&key(&at, "task_list"), dish_name);
            let dish = book
                .item(dish_name)
                .filter(|&d| book.recipe_for(d).is_some())
                .ok_or_else(|| Error::at(file, &dat, format!("no recipe makes \"{dish_name}\"")))?;
            if t.location != ToolKind::Servingtable.as_str() {
                return Err(Error::at(
                    file,
                    key(&dat, "location"),
                    format!("orders are served on the servingtable, not \"{}\"", t.location),
                ));
            }
            let mut serve = Vec::with_capacity(t.ingredients.len());
            for (i, n) in t.ingredients.iter().enumerate() {
                serve.push(book.item(n).ok_or_else(|| {
                    Error::at(file, format!("{dat}.ingredients[{i}]"), format!("unknown item \"{n}\""))
                })?);
            }
            if serve.is_empty() {
                return Err(Error::at(file, key(&dat, "ingredients"), "an order serves at least one item"));
            }
            let lifetime = if t.task_lifetime == 0 {
                return Err(Error::at(file, key(&dat, "task_lifetime"), "must be at least 1"));
            } else {
                t.task_lifetime
            };
            if let Some((tool, needed_for)) = serve.iter().find_map(|&s| missing_tool(book, &kitchen, s)) {
                blocked.push(Blocked { dish, tool, needed_for });
            }
            menu.push(MenuDish { dish, serve, lifetime });
        }
        levels.push(Level { name, task_interval, menu, kitchen, num_agents, max_steps: l.max_steps, blocked });
    }
    levels.sort_by(|a, b| natural(&a.name).cmp(&natural(&b.name)));
    Ok(levels)
}

/// The first tool (and the item needing it) in `item`'s recipe tree that `kitchen` lacks.
fn missing_tool(book: &RecipeBook, kitchen: &[ToolKind], item: ItemId) -> Option<(ToolKind, ItemId)> {
    let r = book.recipe_for(item)?;
    if !kitchen.contains(&r.tool) {
        return Some((r.tool, item));
    }
    r.ingredients.iter().find_map(|&i| missing_tool(book, kitchen, i))
}

/// The longest chain of recipes from a dish down to a raw ingredient. MindAgent's
/// recipe file goes 3 deep; 8 leaves room for richer menus, and keeps the planners'
/// walks down the graph (recursive, like the cooks' own) short.
pub const MAX_RECIPE_DEPTH: usize = 8;

/// The most nodes one item's full expansion may have: the item, every recipe below it
/// and every raw ingredient, counted with repeats (an ingredient taken twice is
/// expanded twice). That is the work each walk down from an item does: the crews' step
/// estimates ([`RecipeBook::solo_steps`]), the planner and the tool check visit every
/// node, every turn, so a graph where each item takes two of the next would double
/// their work per level. The shared file's largest expansion has 8 nodes (`Hopper`);
/// each node is at least two steps of a cook (get or activate, then put), so 1,000
/// nodes are 2,000 steps, 200 times the shared orders' lifetime of 10.
pub const MAX_EXPANSION: u64 = 1_000;

/// What is wrong with a recipe graph, at the item named.
enum GraphFault {
    Cycle(ItemId),
    Deep,
    Large(ItemId, u64),
}

/// Checks the graph below every recipe: no cycle, at most [`MAX_RECIPE_DEPTH`]
/// recipes deep, at most [`MAX_EXPANSION`] nodes in any item's expansion, and returns
/// each item's expansion size. Each item is expanded once (sizes kept), and the walk
/// never goes deeper than the bound, so the check costs one visit per ingredient listed
/// whatever the expansions would cost.
fn check_graph(book: &RecipeBook) -> Result<Vec<u64>, (ItemId, String)> {
    struct Walk<'b> {
        book: &'b RecipeBook,
        // 0 unvisited, 1 on the current path, 2 done.
        mark: Vec<u8>,
        size: Vec<u64>,
        // Recipes in the longest chain from the item down, itself included.
        height: Vec<usize>,
    }
    impl Walk<'_> {
        fn visit(&mut self, item: ItemId, level: usize) -> Result<(u64, usize), GraphFault> {
            let i = item.index();
            match self.mark[i] {
                1 => return Err(GraphFault::Cycle(item)),
                // Reached again, maybe deeper than before: its chain counts from here,
                // or a chain through an item first expanded nearer the top passes.
                2 if level + self.height[i] > MAX_RECIPE_DEPTH => return Err(GraphFault::Deep),
                2 => return Ok((self.size[i], self.height[i])),
                _ => {}
            }
            let Some(r) = self.book.recipe_for(item) else {
                self.mark[i] = 2;
                self.size[i] = 1;
                return Ok((1, 0));
            };
            if level >= MAX_RECIPE_DEPTH {
                return Err(GraphFault::Deep);
            }
            self.mark[i] = 1;
            let (mut size, mut below) = (1u64, 0usize);
            for &ing in &r.ingredients {
                let (n, h) = self.visit(ing, level + 1)?;
                size = size.saturating_add(n);
                below = below.max(h);
                if size > MAX_EXPANSION {
                    return Err(GraphFault::Large(item, size));
                }
            }
            self.mark[i] = 2;
            self.size[i] = size;
            self.height[i] = below + 1;
            Ok((size, below + 1))
        }
    }
    let n = book.items().len();
    let mut walk = Walk { book, mark: vec![0; n], size: vec![1; n], height: vec![0; n] };
    for r in book.recipes() {
        match walk.visit(r.product, 0) {
            Ok(_) => {}
            Err(GraphFault::Cycle(item)) => {
                return Err((
                    item,
                    "the recipe graph has a cycle through this item: it never resolves to raw ingredients".into(),
                ));
            }
            Err(GraphFault::Deep) => {
                return Err((
                    r.product,
                    format!(
                        "making this item takes more than {MAX_RECIPE_DEPTH} recipes in a chain; at most {MAX_RECIPE_DEPTH}"
                    ),
                ));
            }
            Err(GraphFault::Large(item, size)) => {
                return Err((
                    item,
                    format!(
                        "making this item expands to at least {size} recipes and raw ingredients (counted with repeats); at most {MAX_EXPANSION}"
                    ),
                ));
            }
        }
    }
    Ok(walk.size)
}

/// `level_10` -> ("level_", 10), so that levels sort by number.
fn natural(name: &str) -> (&str, u64, &str) {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (stem, num) = name.split_at(name.len() - digits);
    (stem, num.parse().unwrap_or(0), name)
}

/// Deserializes JSON text; a syntax error gives its line and column, any other fault
/// the JSON path (through `serde_path_to_error`).
fn typed<T: DeserializeOwned>(text: &str, file: &Path) -> Result<T, Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let mut path = "$".to_owned();
        for seg in e.path().iter() {
            path = match seg {
                serde_path_to_error::Segment::Seq { index } => format!("{path}[{index}]"),
                serde_path_to_error::Segment::Map { key: k } => key(&path, k),
                serde_path_to_error::Segment::Enum { variant } => key(&path, variant),
                serde_path_to_error::Segment::Unknown => format!("{path}.?"),
            };
        }
        let inner = e.into_inner();
        if inner.is_syntax() || inner.is_eof() {
            syntax(file, &inner)
        } else {
            Error::at(file, path, inner.to_string())
        }
    })?;
    de.end().map_err(|e| syntax(file, &e))?;
    Ok(value)
}

fn syntax(file: &Path, e: &serde_json::Error) -> Error {
    Error::new(file, ErrorKind::Syntax { line: e.line(), column: e.column(), message: e.to_string() })
}

/// `base.key`, or `base["key"]` when the key is not a plain identifier.
fn key(base: &str, k: &str) -> String {
    let plain = k.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain { format!("{base}.{k}") } else { format!("{base}[{}]", serde_json::Value::String(k.to_owned())) }
}
