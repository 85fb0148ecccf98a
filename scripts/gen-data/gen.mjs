// gen.mjs — derives configs/data/minecraft-1.20.4.json from the npm package
// minecraft-data (pinned in package.json) plus a few documented vanilla tables
// that minecraft-data does not carry (tool tiers, furnace recipes, fuel times).
//
// Usage:  cd scripts/gen-data && npm ci && node gen.mjs
//
// The output is deterministic: every list is written in a fixed order
// (minecraft-data id order, or an explicit sort), so running twice gives
// byte-identical files. Any curated name that does not exist in the game
// version aborts the run with a non-zero exit code naming the culprit, so a
// future version bump cannot silently drop data.

import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

const GAME_VERSION = '1.20.4';
const MCDATA_VERSION = '3.117.0';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT_PATH = join(HERE, '..', '..', 'configs', 'data', `minecraft-${GAME_VERSION}.json`);

// ---------------------------------------------------------------------------
// Curated inputs
// ---------------------------------------------------------------------------

// Crafting results whose recipes we export. This is the set the construction
// bots may need to craft (building blocks, basic tools, redstone bits,
// storage). Every recipe variant minecraft-data knows for these results is
// exported (e.g. crafting_table from each plank type).
const CURATED_RECIPE_RESULTS = [
  'oak_planks', 'spruce_planks', 'birch_planks', 'stick', 'crafting_table', 'chest', 'furnace',
  'oak_door', 'spruce_door', 'oak_slab', 'spruce_slab', 'cobblestone_slab', 'stone_slab',
  'stone_brick_slab', 'oak_stairs', 'spruce_stairs', 'cobblestone_stairs', 'stone_brick_stairs',
  'oak_fence', 'spruce_fence', 'oak_fence_gate', 'glass_pane', 'torch', 'ladder',
  'wooden_pickaxe', 'wooden_axe', 'wooden_shovel', 'wooden_sword',
  'stone_pickaxe', 'stone_axe', 'stone_shovel', 'stone_sword', 'stone_hoe', 'iron_pickaxe',
  'repeater', 'redstone_torch', 'lever', 'stone_pressure_plate', 'oak_pressure_plate',
  'oak_button', 'stone_button', 'stone_bricks', 'oak_trapdoor', 'oak_sign', 'bowl', 'bucket',
  'white_wool', 'white_bed', 'bricks', 'cobblestone_wall', 'oak_boat', 'composter', 'barrel',
];

// The generated file must contain at least this many recipes (sanity check).
const MIN_RECIPES = 40;

// Vanilla tool tiers (Minecraft Java 1.20.4, net.minecraft.world.item.Tiers):
//   speed = mining speed multiplier of the tool on blocks it is effective on,
//   level = harvest level (which blocks it can harvest).
// Order matters: it is the tie-break when picking the "lowest" tier for a
// block's harvest requirement (golden has level 0 like wooden; wooden wins).
const TOOL_TIERS = [
  { name: 'wooden', speed: 2.0, level: 0 },
  { name: 'stone', speed: 4.0, level: 1 },
  { name: 'iron', speed: 6.0, level: 2 },
  { name: 'diamond', speed: 8.0, level: 3 },
  { name: 'netherite', speed: 9.0, level: 4 },
  { name: 'golden', speed: 12.0, level: 0 },
];

// Tool kinds exported in tools.items (items named <tier>_<kind>).
const TOOL_KINDS = ['pickaxe', 'axe', 'shovel', 'hoe', 'sword'];

// Vanilla furnace recipes (data/minecraft/recipes/*.json of type
// minecraft:smelting in 1.20.4). minecraft-data has no furnace recipes.
// All take the default 200 ticks (10 s) in a plain furnace.
const SMELTING = [
  ['sand', 'glass'],
  ['red_sand', 'glass'],
  ['cobblestone', 'stone'],
  ['stone', 'smooth_stone'],
  ['raw_iron', 'iron_ingot'],
  ['iron_ore', 'iron_ingot'],
  ['raw_gold', 'gold_ingot'],
  ['gold_ore', 'gold_ingot'],
  ['raw_copper', 'copper_ingot'],
  ['clay_ball', 'brick'],
  ['clay', 'terracotta'],
  ['netherrack', 'nether_brick'],
  ['cactus', 'green_dye'],
  ['oak_log', 'charcoal'],
  ['spruce_log', 'charcoal'],
  ['birch_log', 'charcoal'],
  ['coal_ore', 'coal'],
  ['stone_bricks', 'cracked_stone_bricks'],
  ['wet_sponge', 'sponge'],
  ['kelp', 'dried_kelp'],
].map(([input, output]) => ({ input, output, ticks: 200 }));

// Vanilla furnace burn times in ticks (AbstractFurnaceBlockEntity.getFuel()
// in 1.20.4). One item smelts ticks/200 items.
const FUELS = [
  ['coal', 1600],
  ['charcoal', 1600],
  ['coal_block', 16000],
  ['lava_bucket', 20000],
  ['blaze_rod', 2400],
  ['dried_kelp_block', 4001],
  ['oak_planks', 300],
  ['spruce_planks', 300],
  ['birch_planks', 300],
  ['oak_log', 300],
  ['spruce_log', 300],
  ['birch_log', 300],
  ['oak_slab', 150],
  ['spruce_slab', 150],
  ['stick', 100],
  ['crafting_table', 300],
  ['chest', 300],
  ['ladder', 300],
  ['oak_fence', 300],
  ['wooden_pickaxe', 200],
  ['wooden_axe', 200],
  ['wooden_shovel', 200],
  ['wooden_sword', 200],
  ['wooden_hoe', 200],
  ['bowl', 100],
  ['oak_door', 200],
  ['oak_sign', 200],
].map(([item, ticks]) => ({ item, ticks }));

// Blocks that are placed by an item with a different name. Checked before the
// same-name rule, because some blocks share their name with an item that does
// NOT place them (the `wheat` item is the harvest; `wheat_seeds` plants the
// crop). Wall-mounted variants (wall_torch, oak_wall_sign, *_wall_banner,
// *_wall_head, *_coral_wall_fan, ...) are not listed here: they are derived by
// dropping "wall_" from the name (see placingItem below).
// Blocks not covered by any rule (fire, portals, potted plants, candle cakes,
// filled cauldrons, attached stems, ...) get item = null.
const PLACED_BY = {
  // crops and plants placed from seeds / produce
  wheat: 'wheat_seeds',
  carrots: 'carrot',
  potatoes: 'potato',
  beetroots: 'beetroot_seeds',
  pumpkin_stem: 'pumpkin_seeds',
  melon_stem: 'melon_seeds',
  torchflower_crop: 'torchflower_seeds',
  pitcher_crop: 'pitcher_pod',
  cocoa: 'cocoa_beans',
  sweet_berry_bush: 'sweet_berries',
  cave_vines: 'glow_berries',
  bamboo_sapling: 'bamboo',
  // body segments of column plants: the item that extends the column
  cave_vines_plant: 'glow_berries',
  kelp_plant: 'kelp',
  weeping_vines_plant: 'weeping_vines',
  twisting_vines_plant: 'twisting_vines',
  big_dripleaf_stem: 'big_dripleaf',
  // redstone / string
  redstone_wire: 'redstone',
  tripwire: 'string',
  // fluids and powder snow are placed from buckets
  water: 'water_bucket',
  lava: 'lava_bucket',
  powder_snow: 'powder_snow_bucket',
};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

function die(msg) {
  process.stderr.write(`gen.mjs: error: ${msg}\n`);
  process.exit(1);
}

// ---------------------------------------------------------------------------
// Load data
// ---------------------------------------------------------------------------

const mcdataPkg = require('minecraft-data/package.json');
if (mcdataPkg.version !== MCDATA_VERSION) {
  die(`expected minecraft-data ${MCDATA_VERSION}, found ${mcdataPkg.version} (run npm ci)`);
}
const mcData = require('minecraft-data')(GAME_VERSION);
if (!mcData || mcData.version.minecraftVersion !== GAME_VERSION || mcData.type !== 'pc') {
  die(`minecraft-data has no pc/${GAME_VERSION} data`);
}

const itemsArray = [...mcData.itemsArray].sort((a, b) => a.id - b.id);
const blocksArray = [...mcData.blocksArray].sort((a, b) => a.id - b.id);

function itemName(id, context) {
  const it = mcData.items[id];
  if (!it) die(`unknown item id ${id} (${context})`);
  return it.name;
}

function requireItem(name, context) {
  if (!mcData.itemsByName[name]) die(`item "${name}" does not exist in ${GAME_VERSION} (${context})`);
  return name;
}

function requireBlock(name, context) {
  if (!mcData.blocksByName[name]) die(`block "${name}" does not exist in ${GAME_VERSION} (${context})`);
  return name;
}

// ---------------------------------------------------------------------------
// Items
// ---------------------------------------------------------------------------

const items = itemsArray.map((it) => ({ name: it.name, stack: it.stackSize }));

// ---------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------

const tierByName = new Map(TOOL_TIERS.map((t, i) => [t.name, { ...t, order: i }]));

// "<tier>_<kind>" -> {kind, tier}, or null for anything else (e.g. shears).
function parseTool(name) {
  for (const kind of TOOL_KINDS) {
    const suffix = `_${kind}`;
    if (!name.endsWith(suffix)) continue;
    const tier = name.slice(0, -suffix.length);
    if (tierByName.has(tier)) return { kind, tier };
  }
  return null;
}

const toolItems = [];
for (const it of itemsArray) {
  const t = parseTool(it.name);
  if (t) toolItems.push({ item: it.name, kind: t.kind, tier: t.tier });
}
// Every tier x kind combination must exist in 1.20.4.
for (const tier of TOOL_TIERS) {
  for (const kind of TOOL_KINDS) requireItem(`${tier.name}_${kind}`, 'tool tier table');
}

// ---------------------------------------------------------------------------
// Blocks
// ---------------------------------------------------------------------------

for (const [block, item] of Object.entries(PLACED_BY)) {
  requireBlock(block, 'PLACED_BY table');
  requireItem(item, `PLACED_BY table, block ${block}`);
}

function placingItem(block) {
  if (Object.hasOwn(PLACED_BY, block.name)) return PLACED_BY[block.name];
  if (mcData.itemsByName[block.name]) return block.name;
  // Wall-mounted variants: wall_torch -> torch, oak_wall_sign -> oak_sign,
  // white_wall_banner -> white_banner, tube_coral_wall_fan -> tube_coral_fan ...
  let base = null;
  if (block.name.startsWith('wall_')) base = block.name.slice('wall_'.length);
  else if (block.name.includes('_wall_')) base = block.name.replace('_wall_', '_');
  if (base && mcData.itemsByName[base]) return base;
  return null;
}

function effectiveTool(block) {
  // material looks like "mineable/pickaxe", "plant;mineable/axe",
  // "leaves;mineable/hoe", "default", "wool", ...
  const parts = String(block.material ?? '').split(';');
  for (const p of parts) {
    const m = /^mineable\/(pickaxe|axe|shovel|hoe)$/.exec(p);
    if (m) return m[1];
  }
  return null;
}

function harvestNeeds(block) {
  // Absent harvestTools = drops when mined by hand. minecraft-data 3.117.0 also
  // has an EMPTY harvestTools object on command blocks etc. and on the
  // experimental 1.21 blocks (tuff bricks, copper doors/bulbs/grates...); we
  // treat an empty set like an absent one (no requirement known).
  const ids = Object.keys(block.harvestTools ?? {});
  if (ids.length === 0) return null;
  const tools = [];
  const untiered = [];
  for (const id of ids) {
    const name = itemName(Number(id), `harvestTools of block ${block.name}`);
    const t = parseTool(name);
    if (t) tools.push(t);
    else untiered.push(name);
  }
  // Untiered alternatives (only shears, on cobweb) are ignored: the lowest
  // tiered tool is a valid way to harvest.
  if (tools.length === 0) {
    die(`block ${block.name}: harvestTools has no tiered tool (${untiered.join(', ')})`);
  }
  const kinds = [...new Set(tools.map((t) => t.kind))];
  if (kinds.length !== 1) die(`block ${block.name}: harvestTools mixes tool kinds ${kinds.join(', ')}`);
  const lowest = tools.reduce((best, t) => {
    const a = tierByName.get(t.tier);
    const b = tierByName.get(best.tier);
    return a.level < b.level || (a.level === b.level && a.order < b.order) ? t : best;
  });
  return { kind: lowest.kind, tier: lowest.tier };
}

function dropNames(block) {
  const out = [];
  for (const d of block.drops ?? []) {
    // Drops are plain item ids in 1.20.4; tolerate {drop: id|{id}} shapes of
    // other versions just in case.
    let id = d;
    if (typeof d === 'object' && d !== null) id = typeof d.drop === 'object' ? d.drop.id : d.drop;
    if (typeof id !== 'number') die(`block ${block.name}: unexpected drop entry ${JSON.stringify(d)}`);
    const name = itemName(id, `drops of block ${block.name}`);
    // minecraft-data lists item 0 (air) as the drop of pumpkin_stem,
    // melon_stem and red_mushroom_block: that is "nothing", not an item.
    if (name === 'air') continue;
    if (!out.includes(name)) out.push(name);
  }
  return out;
}

function blockHeight(block) {
  const half = (block.states ?? []).find((s) => s.name === 'half');
  if (half && Array.isArray(half.values) && half.values.includes('upper') && half.values.includes('lower')) {
    return 2;
  }
  return 1;
}

// Blocks that fall when nothing is below them: vanilla's FallingBlock subclasses in
// 1.20.4 (SandBlock, GravelBlock, ConcretePowderBlock, AnvilBlock, DragonEggBlock,
// BrushableBlock). minecraft-data carries no gravity flag, so the family is named here.
const FALLING = /^(sand|red_sand|gravel|suspicious_sand|suspicious_gravel|anvil|chipped_anvil|damaged_anvil|dragon_egg|[a-z_]+_concrete_powder)$/;

// Where a block must be held to stay (vanilla's canSurvive, by family), derived from
// the block's states where the game data says it (a `face` state: buttons, levers,
// grindstones; a `hanging` state: lanterns) and from the name families otherwise:
//   "any"    — some neighbouring face (the ordinary placement rule)
//   "below"  — the block below (torches, carpets, doors, rails, plants, ...)
//   "behind" — the block its `facing` points away from (wall torches, ladders, wall signs)
//   "face"   — by its `face` state: floor below, ceiling above, wall behind
//   "hang"   — below, or above when hanging (lanterns); ceiling hanging signs above
const BELOW = /^(torch|soul_torch|redstone_torch|redstone_wire|repeater|comparator|snow|candle|[a-z_]+_candle|rail|powered_rail|detector_rail|activator_rail|lily_pad|[a-z_]+_carpet|moss_carpet|[a-z_]+_door|[a-z_]+_pressure_plate|[a-z_]+_sign|[a-z_]+_banner|[a-z_]+_coral|[a-z_]+_coral_fan|flower_pot|cactus|bamboo)$/;
const BEHIND = /^(ladder|tripwire_hook|wall_torch|soul_wall_torch|redstone_wall_torch|[a-z_]+_wall_sign|[a-z_]+_wall_banner|[a-z_]+_wall_hanging_sign|[a-z_]+_coral_wall_fan)$/;

function attachRule(b) {
  const states = new Set((b.states ?? []).map((s) => s.name));
  if (states.has('face')) return 'face';
  if (BEHIND.test(b.name)) {
    if (!states.has('facing')) die(`block ${b.name}: wall-mounted without a facing state`);
    return 'behind';
  }
  if (/_hanging_sign$/.test(b.name)) return 'hang';
  if (states.has('hanging')) return 'hang';
  if (/_wall_/.test(b.name)) return 'any';
  if (BELOW.test(b.name)) return 'below';
  // Plants without a collision box grow on the block below (vines and lichen cling to
  // any side and are left to the ordinary rule).
  const material = String(b.material ?? '');
  if (b.boundingBox === 'empty' && material.split(';').includes('plant') && !/vine|lichen|hanging_roots|spore_blossom/.test(b.name)) {
    return 'below';
  }
  return 'any';
}

const blocks = blocksArray.map((b) => ({
  name: b.name,
  item: placingItem(b),
  hardness: b.hardness === null || b.hardness === undefined || b.hardness < 0 ? null : b.hardness,
  tool: effectiveTool(b),
  needs: harvestNeeds(b),
  drops: dropNames(b),
  solid: b.boundingBox === 'block',
  // A bot walks through an open door or fence gate: the simulator treats them as
  // open, which is how a building crew leaves them.
  passable: b.boundingBox !== 'block' || /_door$|_fence_gate$/.test(b.name),
  height: blockHeight(b),
  gravity: FALLING.test(b.name),
  attach: attachRule(b),
}));

// ---------------------------------------------------------------------------
// Recipes
// ---------------------------------------------------------------------------

const LETTERS = 'ABCDEFGHI';

function convertRecipe(resultName, r) {
  const count = r.result?.count ?? 1;
  if (r.inShape) {
    const rows = r.inShape;
    const height = rows.length;
    const width = Math.max(...rows.map((row) => row.length));
    if (rows.some((row) => row.length !== width)) {
      die(`recipe for ${resultName}: ragged inShape ${JSON.stringify(rows)}`);
    }
    if (width > 3 || height > 3) die(`recipe for ${resultName}: shape larger than 3x3`);
    const order = []; // item names by first appearance, row-major
    const counts = new Map();
    const shape = rows.map((row) =>
      row
        .map((cell) => {
          if (cell === null || cell === undefined) return ' ';
          const name = itemName(cell, `recipe for ${resultName}`);
          if (!counts.has(name)) {
            order.push(name);
            counts.set(name, 0);
          }
          counts.set(name, counts.get(name) + 1);
          return LETTERS[order.indexOf(name)];
        })
        .join(''),
    );
    return {
      result: resultName,
      count,
      grid: width <= 2 && height <= 2 ? 2 : 3,
      shape,
      ingredients: order.map((item) => ({ item, count: counts.get(item) })),
    };
  }
  if (r.ingredients) {
    const order = [];
    const counts = new Map();
    for (const cell of r.ingredients) {
      if (cell === null || cell === undefined) continue;
      const name = itemName(cell, `recipe for ${resultName}`);
      if (!counts.has(name)) {
        order.push(name);
        counts.set(name, 0);
      }
      counts.set(name, counts.get(name) + 1);
    }
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    if (total > 9) die(`recipe for ${resultName}: more than 9 shapeless ingredients`);
    return {
      result: resultName,
      count,
      grid: total <= 4 ? 2 : 3,
      ingredients: order.map((item) => ({ item, count: counts.get(item) })),
    };
  }
  die(`recipe for ${resultName} has neither inShape nor ingredients`);
}

const recipes = [];
for (const resultName of CURATED_RECIPE_RESULTS) {
  const id = mcData.itemsByName[resultName]?.id;
  if (id === undefined) die(`curated recipe result "${resultName}" does not exist in ${GAME_VERSION}`);
  const variants = mcData.recipes[id];
  if (!variants || variants.length === 0) die(`curated recipe result "${resultName}" has no recipe in minecraft-data`);
  for (const v of variants) {
    const rec = convertRecipe(resultName, v);
    // Every ingredient must be a known item (it always is when resolved from
    // ids, but keep the guard explicit).
    if (rec.ingredients.every((ing) => mcData.itemsByName[ing.item])) recipes.push(rec);
  }
}

const recipeKey = (r) => [
  r.result,
  r.ingredients.map((i) => i.item).join(','),
  JSON.stringify(r),
];
recipes.sort((a, b) => {
  const ka = recipeKey(a);
  const kb = recipeKey(b);
  for (let i = 0; i < ka.length; i++) {
    if (ka[i] < kb[i]) return -1;
    if (ka[i] > kb[i]) return 1;
  }
  return 0;
});
// Drop exact duplicates (none in 3.117.0, but cheap insurance).
const dedupedRecipes = recipes.filter(
  (r, i) => i === 0 || JSON.stringify(r) !== JSON.stringify(recipes[i - 1]),
);

if (dedupedRecipes.length < MIN_RECIPES) {
  die(`only ${dedupedRecipes.length} recipes generated, expected at least ${MIN_RECIPES}`);
}

// ---------------------------------------------------------------------------
// Smelting and fuels (validated tables)
// ---------------------------------------------------------------------------

for (const s of SMELTING) {
  requireItem(s.input, 'SMELTING table input');
  requireItem(s.output, 'SMELTING table output');
}
for (const f of FUELS) requireItem(f.item, 'FUELS table');

// ---------------------------------------------------------------------------
// Write
// ---------------------------------------------------------------------------

function arrayLines(arr, indent) {
  if (arr.length === 0) return '[]';
  const pad = ' '.repeat(indent + 2);
  return `[\n${arr.map((x) => pad + JSON.stringify(x)).join(',\n')}\n${' '.repeat(indent)}]`;
}

const source = `minecraft-data ${MCDATA_VERSION} (npm), pc/${GAME_VERSION}; smelting and fuel tables: see scripts/gen-data/gen.mjs`;

const parts = [
  `  "version": ${JSON.stringify(GAME_VERSION)}`,
  `  "source": ${JSON.stringify(source)}`,
  `  "items": ${arrayLines(items, 2)}`,
  `  "blocks": ${arrayLines(blocks, 2)}`,
  `  "tools": {\n    "tiers": ${arrayLines(TOOL_TIERS, 4)},\n    "items": ${arrayLines(toolItems, 4)}\n  }`,
  `  "recipes": ${arrayLines(dedupedRecipes, 2)}`,
  `  "smelting": ${arrayLines(SMELTING, 2)}`,
  `  "fuels": ${arrayLines(FUELS, 2)}`,
];
const text = `{\n${parts.join(',\n')}\n}\n`;

// Round-trip check: the hand-assembled text must be valid JSON.
JSON.parse(text);

mkdirSync(dirname(OUT_PATH), { recursive: true });
writeFileSync(OUT_PATH, text);

process.stderr.write(
  `gen.mjs: wrote configs/data/minecraft-${GAME_VERSION}.json: items=${items.length} blocks=${blocks.length} ` +
    `recipes=${dedupedRecipes.length} smelting=${SMELTING.length} fuels=${FUELS.length}\n`,
);
