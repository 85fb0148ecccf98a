// The bridge's commands. Each takes the bot's entry and the request and returns the
// reply's data; a failure throws a BridgeError whose `code` tells the Rust side whether
// the action failed in the game (no_path, occupied, ...) or the bot is gone.
//
// Transfers, chests and crafting take one of two paths (docs/minecraft.md):
// * `standins: true` (the local flying-squid harness): the server-side stand-in
//   commands of standins.js, because flying-squid 1.12.0 has no working chests,
//   crafting or dropped items;
// * otherwise (vanilla, Paper): mineflayer's own toss, openContainer and craft.
// Either way the result is read back from the bot's own inventory.
'use strict'

const mineflayer = require('mineflayer')
const { pathfinder, Movements, goals } = require('mineflayer-pathfinder')
const { Vec3 } = require('vec3')
const slots = require('./slots')

class BridgeError extends Error {
  constructor (code, message, data) {
    super(message)
    this.code = code
    this.data = data
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const DEFAULT_TIMEOUT_MS = 30000
const MAX_RADIUS = 10

function withTimeout (p, ms, what) {
  let timer
  const t = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new BridgeError('timeout', `${what} timed out after ${ms} ms`)), ms)
  })
  return Promise.race([p, t]).finally(() => clearTimeout(timer))
}

function inventory (bot) {
  const m = new Map()
  for (const it of bot.inventory.items()) m.set(it.name, (m.get(it.name) ?? 0) + it.count)
  return [...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, count]) => ({ name, count }))
}

function countOf (bot, name) {
  return bot.inventory.items().filter((i) => i.name === name).reduce((n, i) => n + i.count, 0)
}

// What the bot itself knows about itself now; on the stand-in harness, whose every
// inventory change comes as a slot packet, mineflayer's copy is put back to the
// server's first (slots.js).
function snapshot (bot) {
  if (bot._gcServer && bot._gcServer.resyncs) slots.resync(bot)
  const p = bot.entity ? bot.entity.position : new Vec3(0, 0, 0)
  return {
    pos: [p.x, p.y, p.z],
    feet: [Math.floor(p.x), Math.floor(p.y + 1e-6), Math.floor(p.z)],
    inventory: inventory(bot),
    game_time: bot.time && bot.time.age !== undefined ? Number(bot.time.age) : null
  }
}

function vec (req) {
  for (const k of ['x', 'y', 'z']) {
    if (!Number.isInteger(req[k])) throw new BridgeError('bad_request', `"${k}" must be an integer`)
  }
  return new Vec3(req.x, req.y, req.z)
}

function itemName (req, key = 'item') {
  const n = req[key]
  if (typeof n !== 'string' || !n) throw new BridgeError('bad_request', `"${key}" must be an item name`)
  return n.replace(/^minecraft:/, '')
}

function positiveCount (req, key = 'count') {
  const n = req[key]
  if (!Number.isInteger(n) || n <= 0) throw new BridgeError('bad_request', `"${key}" must be a positive integer`)
  return n
}

async function spawnBot (name, req, bots, emit) {
  const timeout = req.timeout_ms ?? DEFAULT_TIMEOUT_MS
  const bot = mineflayer.createBot({
    host: req.host ?? '127.0.0.1',
    port: req.port ?? 25565,
    username: req.username ?? name,
    version: req.version ?? '1.20.4',
    auth: 'offline',
    hideErrors: true,
    logErrors: false,
    checkTimeoutInterval: 60000
  })
  bot.loadPlugin(pathfinder)
  slots.track(bot).resyncs = !!req.standins
  let lost
  const lostPromise = new Promise((resolve, reject) => { lost = reject })
  lostPromise.catch(() => {})
  const entry = {
    name,
    bot,
    standins: !!req.standins,
    gone: null,
    waiters: new Map(), // stand-in nonce -> resolve
    queue: Promise.resolve(),
    serial (fn) {
      const run = this.queue.then(fn, fn)
      this.queue = run.catch(() => {})
      return run
    },
    guard (p) {
      if (this.gone) return Promise.reject(new BridgeError('bot_gone', `${name} is not connected (${this.gone})`))
      return Promise.race([p, lostPromise])
    }
  }
  const goneWith = (why) => {
    if (entry.gone) return
    entry.gone = why
    lost(new BridgeError('bot_gone', `${name} lost its connection: ${why}`))
  }
  bot.on('kicked', (reason) => {
    const text = typeof reason === 'string' ? reason : JSON.stringify(reason)
    emit('kicked', name, { reason: text })
    goneWith(`kicked: ${text}`)
  })
  bot.on('end', (reason) => {
    emit('end', name, { reason: String(reason) })
    goneWith(`connection ended: ${reason}`)
  })
  bot.on('death', () => emit('died', name, {}))
  bot.on('error', (e) => console.error(`[bridge] ${name} error: ${e && e.message}`))
  bot.on('messagestr', (text) => {
    const m = /^\[gatecrew\] (\S+) (ok|err) ?(.*)$/.exec(text)
    if (m && entry.waiters.has(m[1])) {
      entry.waiters.get(m[1])({ ok: m[2] === 'ok', rest: m[3] })
      entry.waiters.delete(m[1])
      return
    }
    emit('chat', name, { text })
  })
  bots.set(name, entry)
  try {
    await withTimeout(new Promise((resolve, reject) => {
      bot.once('spawn', resolve)
      bot.once('error', (e) => reject(new BridgeError('unreachable', `${name} cannot join ${req.host}:${req.port}: ${e.message}`)))
      bot.once('kicked', (r) => reject(new BridgeError('bot_gone', `${name} was refused: ${typeof r === 'string' ? r : JSON.stringify(r)}`)))
      bot.once('end', (r) => reject(new BridgeError('unreachable', `${name} cannot join ${req.host}:${req.port}: connection ended (${r})`)))
    }), timeout, `joining ${req.host}:${req.port}`)
  } catch (e) {
    entry.gone = e.message
    try { bot.quit() } catch (_) {}
    throw e
  }
  const moves = new Movements(bot)
  moves.canDig = false // walking never changes the world
  moves.allow1by1towers = false
  moves.scafoldingBlocks = []
  moves.allowParkour = false
  bot.pathfinder.setMovements(moves)
  bot.pathfinder.thinkTimeout = 5000
  await bot.waitForChunksToLoad().catch(() => {})
  return { ...snapshot(bot), username: bot.username, version: bot.version }
}

async function moveTo (entry, req) {
  const { bot } = entry
  const target = vec(req)
  const range = typeof req.range === 'number' ? req.range : 0
  const goal = range > 0 ? new goals.GoalNear(target.x, target.y, target.z, range) : new goals.GoalBlock(target.x, target.y, target.z)
  const timeout = req.timeout_ms ?? DEFAULT_TIMEOUT_MS
  entry.halted = false // set by talk.js's stop
  const walk = bot.pathfinder.goto(goal)
  walk.catch(() => {})
  try {
    await withTimeout(walk, timeout, `walking to ${target}`)
  } catch (e) {
    // Stop the pathfinder before giving up, or its stale goal breaks the next walk.
    bot.pathfinder.stop()
    bot.pathfinder.setGoal(null)
    bot.clearControlStates()
    const code = entry.halted ? 'stopped' : e instanceof BridgeError ? e.code : 'no_path'
    throw new BridgeError(code, `no path to ${target}: ${e.message}`, snapshot(bot))
  }
  bot.clearControlStates()
  await sleep(50) // let the last position packet settle
  return { reached: goal.isEnd(bot.entity.position.floored()), ...snapshot(bot) }
}

const SUPPORT_FACES = [[0, -1, 0], [1, 0, 0], [-1, 0, 0], [0, 0, 1], [0, 0, -1], [0, 1, 0]]

// Reach as the embedded world measures it (world/src/grid.rs `reach_distance`): from the
// eyes, 1.62 above the centre of the feet cell, to the nearest point of the block, at
// most 4.5 (survival). The same rule on both sides, so that an action the mirror prices
// as in reach is one the bridge tries.
const REACH = 4.5
const EYE_HEIGHT = 1.62

function reachDistance (feet, target) {
  const eye = [feet.x + 0.5, feet.y + EYE_HEIGHT, feet.z + 0.5]
  const axis = (e, lo) => (e < lo ? lo - e : e > lo + 1 ? e - lo - 1 : 0)
  const d = [axis(eye[0], target.x), axis(eye[1], target.y), axis(eye[2], target.z)]
  return Math.hypot(d[0], d[1], d[2])
}

function feetOf (bot) {
  const p = bot.entity.position
  return new Vec3(Math.floor(p.x), Math.floor(p.y + 1e-6), Math.floor(p.z))
}

function inReach (bot, target) {
  return reachDistance(feetOf(bot), target) <= REACH + 1e-9
}

const solid = (b) => !!b && b.boundingBox === 'block'
const empty = (b) => !b || b.boundingBox === 'empty'

// Blocks that fill two cells (doors, tall plants): a `half` state of upper/lower.
function isTall (bot, item) {
  const block = bot.registry.blocksByName[item]
  const half = block && block.states && block.states.find((s) => s.name === 'half')
  return !!half && Array.isArray(half.values) && half.values.includes('upper') && half.values.includes('lower')
}

// Whether the bot's body (0.6 wide, 1.8 tall) overlaps a cell.
function bodyOverlaps (bot, cell) {
  const p = bot.entity.position
  const w = (bot.entity.width ?? 0.6) / 2
  const h = bot.entity.height ?? 1.8
  return p.x + w > cell.x && p.x - w < cell.x + 1 &&
    p.z + w > cell.z && p.z - w < cell.z + 1 &&
    p.y + h > cell.y && p.y < cell.y + 1
}

// Steps the bot to the middle of its feet cell (a few ticks of walking), so that its
// body stays in its own column: a jump-place lands on the new block, and a block placed
// beside it does not overlap it.
async function centre (bot, ms = 1500) {
  const end = Date.now() + ms
  const cell = feetOf(bot)
  const mid = new Vec3(cell.x + 0.5, bot.entity.position.y, cell.z + 0.5)
  try {
    while (Date.now() < end) {
      const p = bot.entity.position
      const dx = mid.x - p.x
      const dz = mid.z - p.z
      if (Math.abs(dx) < 0.2 && Math.abs(dz) < 0.2) break
      await bot.lookAt(new Vec3(mid.x, p.y + (bot.entity.height ?? 1.8) * 0.9, mid.z), true)
      bot.setControlState('forward', true)
      bot.setControlState('sneak', true) // never walks off an edge
      await sleep(50)
      bot.setControlState('forward', false)
      await sleep(50)
    }
  } finally {
    bot.setControlState('forward', false)
    bot.setControlState('sneak', false)
  }
}

// Waits until the bot stands on something (after a jump or a fall), at most `ms`.
async function landed (bot, ms = 3000) {
  const end = Date.now() + ms
  await sleep(100)
  while (!bot.entity.onGround && Date.now() < end) await sleep(25)
  await sleep(100) // the last position packet
}

// Pillaring as a player does it: jump, and at the top of the jump place a block into
// the cell the feet just left, against the top of the block below; land on it.
async function jumpPlace (entry, target, item) {
  const { bot } = entry
  const below = bot.blockAt(target.offset(0, -1, 0))
  if (!solid(below)) throw new BridgeError('no_support', `nothing under ${target} to jump from`, snapshot(bot))
  const head = bot.blockAt(target.offset(0, 2, 0))
  if (!empty(head)) throw new BridgeError('occupied', `no room to jump: ${target.offset(0, 2, 0)} holds ${head.name}`, snapshot(bot))
  await holdItem(entry, item)
  await centre(bot)
  await bot.lookAt(target.offset(0.5, 0, 0.5), true)
  bot.setControlState('jump', true)
  try {
    // The server refuses a block in the cell its copy of the player stands in: wait
    // until the feet are clear of it, plus a tick for the position packet.
    const up = await until(() => bot.entity.position.y >= target.y + 1.0, 1500)
    if (!up) throw new BridgeError('refused', `the jump from ${target} did not clear the cell`, snapshot(bot))
    await sleep(50)
    bot.setControlState('jump', false)
    await bot.placeBlock(below, new Vec3(0, 1, 0))
  } catch (e) {
    if (e instanceof BridgeError) throw e
    console.error(`[bridge] ${entry.name} jump-place: ${e.message}`)
  } finally {
    bot.setControlState('jump', false)
  }
  await landed(bot)
}

async function placeBlock (entry, req) {
  const { bot } = entry
  const target = vec(req)
  const item = itemName(req)
  if (entry.standins) slots.resync(bot)
  const here = bot.blockAt(target)
  if (!empty(here)) throw new BridgeError('occupied', `${target} holds ${here.name}`, snapshot(bot))
  const tall = isTall(bot, item)
  const feet = feetOf(bot)
  const pillar = feet.equals(target) && !tall
  if (!pillar && (feet.equals(target) || feet.offset(0, 1, 0).equals(target) || (tall && feet.equals(target.offset(0, 1, 0))))) {
    throw new BridgeError('occupied', `the bot stands in ${target}`, snapshot(bot))
  }
  if (tall) {
    const top = bot.blockAt(target.offset(0, 1, 0))
    if (!empty(top)) throw new BridgeError('occupied', `${target.offset(0, 1, 0)} holds ${top.name}`, snapshot(bot))
  }
  if (!inReach(bot, target)) throw new BridgeError('out_of_reach', `${target} is out of reach (${reachDistance(feet, target).toFixed(2)} from the eyes)`, snapshot(bot))
  if (countOf(bot, item) === 0) throw new BridgeError('missing_items', `has no ${item}`, snapshot(bot))
  // A placement the server did not make (no block update, or it refused) is tried once
  // more; still nothing is `not_placed`, never a success.
  for (let attempt = 0; ; attempt++) {
    if (pillar) {
      if (!feetOf(bot).equals(target)) break // the first jump landed elsewhere: the outcome says where
      await jumpPlace(entry, target, item)
    } else {
      await placeAgainst(entry, target, item, tall)
    }
    const now = bot.blockAt(target)
    if ((now && now.name !== 'air') || attempt >= 1) break
    console.error(`[bridge] ${entry.name}: no block appeared at ${target}; trying once more`)
  }
  const now = bot.blockAt(target)
  if (!now || now.name === 'air') throw new BridgeError('not_placed', `no block appeared at ${target} after two tries`, snapshot(bot))
  return { block: now.name, props: now.getProperties ? now.getProperties() : {}, ...snapshot(bot) }
}

// The item in hand as the server holds it (slots.js).
function holdItem (entry, item) {
  return slots.hold(entry, item, standIn, BridgeError, snapshot)
}

async function placeAgainst (entry, target, item, tall) {
  const { bot } = entry
  let ref = null
  let face = null
  // A two-cell block stands on the block below it.
  const faces = tall ? SUPPORT_FACES.slice(0, 1) : SUPPORT_FACES
  for (const [dx, dy, dz] of faces) {
    const b = bot.blockAt(target.offset(dx, dy, dz))
    if (solid(b)) { ref = b; face = new Vec3(-dx, -dy, -dz); break }
  }
  if (!ref) throw new BridgeError('no_support', `nothing supports ${target}`, snapshot(bot))
  if (bodyOverlaps(bot, target) || (tall && bodyOverlaps(bot, target.offset(0, 1, 0)))) await centre(bot)
  await holdItem(entry, item)
  try {
    await bot.placeBlock(ref, face)
  } catch (e) {
    // mineflayer gives up after 5 s without a block update; the observation decides.
    console.error(`[bridge] ${entry.name} placeBlock: ${e.message}`)
  }
}

async function dig (entry, req) {
  const { bot } = entry
  const target = vec(req)
  const b = bot.blockAt(target)
  if (!b || b.name === 'air') throw new BridgeError('nothing_there', `nothing at ${target}`, snapshot(bot))
  if (!b.diggable) throw new BridgeError('refused', `${b.name} at ${target} cannot be dug`, snapshot(bot))
  if (!inReach(bot, target)) throw new BridgeError('out_of_reach', `cannot reach ${b.name} at ${target}`, snapshot(bot))
  const before = b.name
  const underFeet = feetOf(bot).offset(0, -1, 0).equals(target)
  const drops = new Map(inventory(bot).map((s) => [s.name, s.count]))
  await bot.dig(b, true)
  if (underFeet) await landed(bot) // digging the pillar down: the bot falls onto the next block
  // Drops reach the inventory after the block is gone (the stand-in's at once, a real
  // server's when the item flies to the bot): wait for the count to move.
  const changed = () => inventory(bot).some((s) => s.count > (drops.get(s.name) ?? 0))
  await until(changed, entry.standins ? 1500 : 1000)
  const now = bot.blockAt(target)
  return { removed: before, block: now ? now.name : 'air', ...snapshot(bot) }
}

function observe (entry, req) {
  const { bot } = entry
  const r = Math.min(Number.isInteger(req.radius) ? req.radius : 6, MAX_RADIUS)
  const c = bot.entity.position.floored()
  const blocks = []
  for (let dx = -r; dx <= r; dx++) {
    for (let dy = -r; dy <= r; dy++) {
      for (let dz = -r; dz <= r; dz++) {
        const b = bot.blockAt(c.offset(dx, dy, dz))
        if (b && b.name !== 'air' && b.name !== 'cave_air' && b.name !== 'void_air') blocks.push({ x: c.x + dx, y: c.y + dy, z: c.z + dz, name: b.name })
      }
    }
  }
  const entities = Object.values(bot.entities)
    .filter((e) => e !== bot.entity && e.position && e.position.distanceTo(bot.entity.position) <= 32)
    .map((e) => {
      // flying-squid leaves entity.username unset: look the player up by entity.
      const player = Object.values(bot.players).find((p) => p.entity === e)
      return { id: e.id, type: e.type, name: e.name ?? null, username: e.username ?? (player ? player.username : null), pos: [e.position.x, e.position.y, e.position.z] }
    })
  return { ...snapshot(bot), radius: r, blocks, entities }
}

// The blocks at given cells, as the bot's own world view has them.
function look (entry, req) {
  const { bot } = entry
  if (!Array.isArray(req.cells)) throw new BridgeError('bad_request', '"cells" must be a list of [x, y, z]')
  const names = req.cells.map(([x, y, z]) => {
    const b = bot.blockAt(new Vec3(x, y, z))
    return b ? b.name : 'unloaded'
  })
  return { names, ...snapshot(bot) }
}

// Sends a stand-in command and waits for its answer line.
async function standIn (entry, line, timeout) {
  const nonce = `${entry.name}-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6).toString(36)}`
  const answer = new Promise((resolve) => entry.waiters.set(nonce, resolve))
  entry.bot.chat(`/${line.replace('{nonce}', nonce)}`)
  const a = await withTimeout(answer, timeout, `stand-in ${line.split(' ')[0]}`).finally(() => entry.waiters.delete(nonce))
  if (!a.ok) throw new BridgeError('refused', a.rest, snapshot(entry.bot))
  return a.rest ? JSON.parse(a.rest) : {}
}

// Waits until `test()` holds (inventory packets arrive after the action), at most `ms`.
async function until (test, ms) {
  const end = Date.now() + ms
  while (!test() && Date.now() < end) await sleep(20)
  return test()
}

async function give (entry, req, bots) {
  const { bot } = entry
  const item = itemName(req)
  const n = positiveCount(req)
  const to = req.to
  const receiver = bots.get(to)
  const before = countOf(bot, item)
  const rBefore = receiver && !receiver.gone ? countOf(receiver.bot, item) : null
  if (before < n) throw new BridgeError('missing_items', `has ${before} ${item}, not ${n}`, snapshot(bot))
  const timeout = req.timeout_ms ?? 10000
  if (entry.standins) {
    await standIn(entry, `gc-give {nonce} ${to} ${item} ${n}`, timeout)
  } else {
    const other = bot.players[to] && bot.players[to].entity
    if (!other) throw new BridgeError('out_of_reach', `${to} is not in sight`, snapshot(bot))
    await bot.lookAt(other.position.offset(0, 1.2, 0))
    const def = bot.registry.itemsByName[item]
    await bot.toss(def.id, null, n)
  }
  await until(() => countOf(bot, item) <= before - n, 3000)
  if (receiver && rBefore !== null) await until(() => countOf(receiver.bot, item) >= rBefore + n, entry.standins ? 3000 : 6000)
  return {
    item,
    given: before - countOf(bot, item),
    receiver_before: rBefore,
    receiver_after: receiver && !receiver.gone ? countOf(receiver.bot, item) : null,
    ...snapshot(bot)
  }
}

async function chestMove (entry, req, dir) {
  const { bot } = entry
  const p = vec(req)
  const item = itemName(req)
  const n = positiveCount(req)
  const before = countOf(bot, item)
  const timeout = req.timeout_ms ?? 10000
  let contents
  if (entry.standins) {
    contents = (await standIn(entry, `gc-${dir} {nonce} ${p.x} ${p.y} ${p.z} ${item} ${n}`, timeout)).contents
  } else {
    const block = bot.blockAt(p)
    if (!block || !block.name.includes('chest')) throw new BridgeError('no_container', `no chest at ${p}`, snapshot(bot))
    const chest = await withTimeout(bot.openContainer(block), timeout, 'opening the chest')
    try {
      const def = bot.registry.itemsByName[item]
      if (dir === 'deposit') await chest.deposit(def.id, null, n)
      else await chest.withdraw(def.id, null, n)
      contents = chest.containerItems().map((i) => ({ name: i.name, count: i.count }))
    } catch (e) {
      throw new BridgeError(dir === 'deposit' ? 'container_full' : 'container_short', e.message, snapshot(bot))
    } finally {
      chest.close()
    }
  }
  const want = dir === 'deposit' ? before - n : before + n
  await until(() => countOf(bot, item) === want, 3000)
  return { item, contents, ...snapshot(bot) }
}

async function craft (entry, req) {
  const { bot } = entry
  const item = itemName(req)
  const times = positiveCount(req, 'times')
  const before = countOf(bot, item)
  const timeout = req.timeout_ms ?? 10000
  if (entry.standins) {
    await standIn(entry, `gc-craft {nonce} ${item} ${times}`, timeout)
  } else {
    const def = bot.registry.itemsByName[item]
    if (!def) throw new BridgeError('bad_request', `unknown item ${item}`)
    const table = bot.findBlock({ matching: bot.registry.blocksByName.crafting_table.id, maxDistance: 4.5 })
    const recipe = bot.recipesFor(def.id, null, 1, table)[0]
    if (!recipe) throw new BridgeError(table ? 'missing_items' : 'needs_table', `no recipe for ${item} fits`, snapshot(bot))
    await withTimeout(bot.craft(recipe, times, table ?? undefined), timeout, `crafting ${item}`)
  }
  await until(() => countOf(bot, item) > before, 3000)
  return { item, ...snapshot(bot) }
}

async function chestContents (entry, req) {
  const { bot } = entry
  const p = vec(req)
  if (entry.standins) return { contents: (await standIn(entry, `gc-chest {nonce} ${p.x} ${p.y} ${p.z}`, 10000)).contents, ...snapshot(bot) }
  const chest = await withTimeout(bot.openContainer(bot.blockAt(p)), 10000, 'opening the chest')
  try {
    return { contents: chest.containerItems().map((i) => ({ name: i.name, count: i.count })), ...snapshot(bot) }
  } finally {
    chest.close()
  }
}

// Scenario setup only (give, tp, setblock, clear...): never an agent's action.
async function admin (entry, req) {
  const { bot } = entry
  if (typeof req.line !== 'string' || !req.line.startsWith('/')) throw new BridgeError('bad_request', '"line" must be a command starting with /')
  const said = []
  const listen = (text) => said.push(text)
  bot.on('messagestr', listen)
  try {
    if (req.line.includes('{nonce}')) {
      const data = await standIn(entry, req.line.slice(1), req.timeout_ms ?? 10000)
      return { said, result: data, ...snapshot(bot) }
    }
    bot.chat(req.line)
    await sleep(req.settle_ms ?? 150)
  } finally {
    bot.off('messagestr', listen)
  }
  return { said, ...snapshot(bot) }
}

async function quit (entry) {
  entry.gone = 'quit'
  entry.bot.quit('done')
  return {}
}

const commands = {
  move_to: moveTo,
  place_block: placeBlock,
  dig,
  observe,
  look,
  give,
  deposit: (e, r) => chestMove(e, r, 'deposit'),
  withdraw: (e, r) => chestMove(e, r, 'withdraw'),
  craft,
  chest: chestContents,
  admin,
  quit
}

module.exports = { commands, spawnBot, BridgeError, withTimeout }
