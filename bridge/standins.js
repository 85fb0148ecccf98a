// SERVER-SIDE STAND-INS for what flying-squid 1.12.0 lacks. These exist only in the
// local test server (harness.js); against vanilla or Paper the bridge uses mineflayer's
// own toss, chest and craft instead (see docs/minecraft.md).
//
// Measured on flying-squid 1.12.0: a chest never stores its contents (and on 1.21.x
// opening one drops the bot after 30 s), `bot.craft` hangs, and tossed items vanish.
// So the harness registers these commands, which the bridge sends as chat commands in
// place of the missing mechanics:
//
//   /gc-give <nonce> <to> <item> <count>            hand items to a player within 4 blocks
//   /gc-deposit <nonce> <x> <y> <z> <item> <count>  put items into the chest there (reach 4.5)
//   /gc-withdraw <nonce> <x> <y> <z> <item> <count> take items out of it
//   /gc-chest <nonce> <x> <y> <z>                    list a chest's contents (reach 4.5)
//   /gc-fill-chest <nonce> <x> <y> <z> <item> <count>  scenario setup: seed a chest
//   /gc-craft <nonce> <item> <times>                 craft from the registry's recipes; 3x3
//                                                    recipes need a crafting table in reach
//   /gc-stock <nonce> <player> <item> <count>        scenario setup: give in proper stacks
//   /gc-hold <nonce> <item> <hotbar>                  a stack into the selected hotbar slot
//
// Two mechanics are patched in the server itself rather than by command, because the
// bot's own action (a dig, a placement) is what the server must answer:
// * a dug block's drops go straight into the digger's inventory (flying-squid spawns
//   them as item entities that no bot ever picks up): a scaffold dug back returns its
//   item, as on a real server where the drop flies to the player;
// * a two-cell block (a `half` state of upper/lower: doors, tall flowers) placed by a
//   player fills both cells, lower and upper, with the player's facing; flying-squid
//   places only the lower cell, with a `half` value doors do not have. Refused, as in
//   vanilla, when the upper cell is not free.
//
// flying-squid's own /give adds any count to one stack: past the stack size the
// client stops applying the server's packets (a later /tp is ignored), hence gc-stock.
//
// Each answers the calling player with one chat line:
//   [gatecrew] <nonce> ok <json>   or   [gatecrew] <nonce> err <message>
// The bridge still verifies the result from the bot's own inventory, never from the line.
'use strict'

const { Vec3 } = require('vec3')

const TRANSFER_RANGE = 4
const REACH = 4.5
const INVENTORY_SLOTS = { first: 9, last: 44 } // main inventory 9..35, hotbar 36..44

function installStandIns (serv) {
  const registry = serv.registry
  const Item = require('prismarine-item')(registry)
  // Chest contents, kept per position: "x,y,z" -> Map(itemId -> count).
  const chests = new Map()
  const key = (p) => `${p.x},${p.y},${p.z}`

  const reply = (player, nonce, ok, payload) => {
    const text = ok ? `ok ${JSON.stringify(payload ?? {})}` : `err ${payload}`
    player.chat(`[gatecrew] ${nonce} ${text}`)
  }

  const itemByName = (name) => {
    const it = registry.itemsByName[String(name).replace(/^minecraft:/, '')]
    if (!it) throw new Error(`unknown item ${name}`)
    return it
  }

  const count = (player, id) => {
    let n = 0
    for (let s = INVENTORY_SLOTS.first; s <= INVENTORY_SLOTS.last; s++) {
      const it = player.inventory.slots[s]
      if (it && it.type === id) n += it.count
    }
    return n
  }

  // Free room for `id` in the main inventory and hotbar.
  const room = (player, id) => {
    const stack = registry.items[id].stackSize
    let n = 0
    for (let s = INVENTORY_SLOTS.first; s <= INVENTORY_SLOTS.last; s++) {
      const it = player.inventory.slots[s]
      if (!it) n += stack
      else if (it.type === id) n += Math.max(0, stack - it.count)
    }
    return n
  }

  const take = (player, id, n) => {
    for (let s = INVENTORY_SLOTS.last; s >= INVENTORY_SLOTS.first && n > 0; s--) {
      const it = player.inventory.slots[s]
      if (!it || it.type !== id) continue
      const k = Math.min(n, it.count)
      n -= k
      if (it.count === k) player.inventory.updateSlot(s, null)
      else player.inventory.updateSlot(s, new Item(id, it.count - k))
    }
  }

  const give = (player, id, n) => {
    const stack = registry.items[id].stackSize
    for (let s = INVENTORY_SLOTS.first; s <= INVENTORY_SLOTS.last && n > 0; s++) {
      const it = player.inventory.slots[s]
      if (it && it.type === id && it.count < stack) {
        const k = Math.min(n, stack - it.count)
        player.inventory.updateSlot(s, new Item(id, it.count + k))
        n -= k
      }
    }
    // Hotbar first for new stacks, as vanilla does for picked-up items.
    const order = []
    for (let s = 36; s <= 44; s++) order.push(s)
    for (let s = 9; s <= 35; s++) order.push(s)
    for (const s of order) {
      if (n <= 0) break
      if (!player.inventory.slots[s]) {
        const k = Math.min(n, stack)
        player.inventory.updateSlot(s, new Item(id, k))
        n -= k
      }
    }
  }

  const eyes = (player) => player.position.offset(0, 1.62, 0)
  // From the eyes to the nearest point of the block, as the Rust side and actions.js
  // measure reach (world/src/grid.rs `reach_distance`): to the block's centre, a chest
  // the mirror prices as in reach could be refused as out of it.
  const reachTo = (player, p) => {
    const e = eyes(player)
    const axis = (v, lo) => (v < lo ? lo - v : v > lo + 1 ? v - lo - 1 : 0)
    return Math.hypot(axis(e.x, p.x), axis(e.y, p.y), axis(e.z, p.z))
  }

  const int = (s, what) => {
    const n = Number(s)
    if (!Number.isInteger(n)) throw new Error(`${what} must be an integer, not ${s}`)
    return n
  }

  const chestAt = async (player, x, y, z) => {
    const p = new Vec3(int(x, 'x'), int(y, 'y'), int(z, 'z'))
    const block = await player.world.getBlock(p)
    if (!block || block.name !== 'chest') throw new Error(`no chest at ${key(p)}`)
    if (!chests.has(key(p))) chests.set(key(p), new Map())
    return { p, contents: chests.get(key(p)) }
  }

  const listing = (contents) => [...contents.entries()].filter(([, n]) => n > 0)
    .map(([id, n]) => ({ name: registry.items[id].name, count: n }))

  const command = (base, usage, run) => {
    serv.commands.add({
      base,
      info: `gatecrew stand-in: ${usage}`,
      usage: `/${base} ${usage}`,
      onlyPlayer: true,
      parse: (str) => str.trim().split(/\s+/),
      async action (args, ctx) {
        const nonce = args[0]
        try {
          reply(ctx.player, nonce, true, await run(ctx.player, args.slice(1)))
        } catch (e) {
          reply(ctx.player, nonce, false, e.message)
        }
      }
    })
  }

  command('gc-give', '<nonce> <to> <item> <count>', async (player, [to, item, n]) => {
    const target = serv.getPlayer(to)
    if (!target) throw new Error(`no player ${to}`)
    if (target === player) throw new Error('cannot give to oneself')
    const dist = player.position.distanceTo(target.position)
    if (dist > TRANSFER_RANGE) throw new Error(`${to} is ${dist.toFixed(1)} blocks away (more than ${TRANSFER_RANGE})`)
    const it = itemByName(item)
    const k = int(n, 'count')
    if (k <= 0) throw new Error('count must be positive')
    if (count(player, it.id) < k) throw new Error(`has ${count(player, it.id)} ${it.name}, not ${k}`)
    if (room(target, it.id) < k) throw new Error(`${to} has no room for ${k} ${it.name}`)
    take(player, it.id, k)
    give(target, it.id, k)
    return { item: it.name, count: k, to }
  })

  command('gc-deposit', '<nonce> <x> <y> <z> <item> <count>', async (player, [x, y, z, item, n]) => {
    const { p, contents } = await chestAt(player, x, y, z)
    if (reachTo(player, p) > REACH) throw new Error(`chest ${key(p)} is out of reach`)
    const it = itemByName(item)
    const k = int(n, 'count')
    if (k <= 0 || count(player, it.id) < k) throw new Error(`has ${count(player, it.id)} ${it.name}, not ${k}`)
    take(player, it.id, k)
    contents.set(it.id, (contents.get(it.id) ?? 0) + k)
    return { contents: listing(contents) }
  })

  command('gc-withdraw', '<nonce> <x> <y> <z> <item> <count>', async (player, [x, y, z, item, n]) => {
    const { p, contents } = await chestAt(player, x, y, z)
    if (reachTo(player, p) > REACH) throw new Error(`chest ${key(p)} is out of reach`)
    const it = itemByName(item)
    const k = int(n, 'count')
    const have = contents.get(it.id) ?? 0
    if (k <= 0 || have < k) throw new Error(`the chest holds ${have} ${it.name}, not ${k}`)
    if (room(player, it.id) < k) throw new Error(`no room for ${k} ${it.name}`)
    contents.set(it.id, have - k)
    give(player, it.id, k)
    return { contents: listing(contents) }
  })

  command('gc-chest', '<nonce> <x> <y> <z>', async (player, [x, y, z]) => {
    const { p, contents } = await chestAt(player, x, y, z)
    if (reachTo(player, p) > REACH) throw new Error(`chest ${key(p)} is out of reach`)
    return { contents: listing(contents) }
  })

  command('gc-fill-chest', '<nonce> <x> <y> <z> <item> <count>', async (player, [x, y, z, item, n]) => {
    if (!player.op) throw new Error('scenario setup needs op')
    const { contents } = await chestAt(player, x, y, z)
    const it = itemByName(item)
    contents.set(it.id, (contents.get(it.id) ?? 0) + int(n, 'count'))
    return { contents: listing(contents) }
  })

  // The item into the hand: flying-squid ignores inventory clicks, so the bot cannot
  // move a stack from the main inventory into its hotbar itself (slots.js).
  command('gc-hold', '<nonce> <item> <hotbar>', async (player, [item, h]) => {
    const it = itemByName(item)
    const k = int(h, 'hotbar')
    if (k < 0 || k > 8) throw new Error('the hotbar slot is 0..8')
    player.heldItemSlot = k
    const held = 36 + k
    const cur = player.inventory.slots[held]
    if (cur && cur.type === it.id) return { slot: held }
    let from = -1
    for (let s = INVENTORY_SLOTS.first; s <= INVENTORY_SLOTS.last; s++) {
      const x = player.inventory.slots[s]
      if (x && x.type === it.id) { from = s; break }
    }
    if (from < 0) throw new Error(`has no ${it.name}`)
    const moved = player.inventory.slots[from]
    player.inventory.updateSlot(from, cur ? new Item(cur.type, cur.count, cur.metadata, cur.nbt) : null)
    player.inventory.updateSlot(held, new Item(moved.type, moved.count, moved.metadata, moved.nbt))
    return { slot: held, from }
  })

  command('gc-stock', '<nonce> <player> <item> <count>', async (player, [to, item, n]) => {
    if (!player.op) throw new Error('scenario setup needs op')
    const target = serv.getPlayer(to)
    if (!target) throw new Error(`no player ${to}`)
    const it = itemByName(item)
    const k = int(n, 'count')
    if (k <= 0) throw new Error('count must be positive')
    if (room(target, it.id) < k) throw new Error(`${to} has no room for ${k} ${it.name}`)
    give(target, it.id, k)
    return { item: it.name, count: count(target, it.id) }
  })

  command('gc-craft', '<nonce> <item> <times>', async (player, [item, n]) => {
    const it = itemByName(item)
    const times = int(n, 'times')
    if (times <= 0) throw new Error('times must be positive')
    const recipes = registry.recipes[it.id] ?? []
    if (recipes.length === 0) throw new Error(`no recipe makes ${it.name}`)
    const table = await tableInReach(player)
    let why = `no recipe for ${it.name} fits the inventory`
    for (const r of recipes) {
      const { needs, big } = ingredients(r)
      if (big && !table) { why = `${it.name} needs a crafting table in reach`; continue }
      const short = [...needs].find(([id, k]) => count(player, id) < k * times)
      if (short) { why = `needs ${short[1] * times} ${registry.items[short[0]].name}, has ${count(player, short[0])}`; continue }
      const made = r.result.count * times
      for (const [id, k] of needs) take(player, id, k * times)
      if (room(player, it.id) < made) {
        for (const [id, k] of needs) give(player, id, k * times)
        throw new Error('inventory full')
      }
      give(player, it.id, made)
      return { item: it.name, count: made }
    }
    throw new Error(why)
  })

  serv.on('newPlayer', (player) => {
    player.on('dug', (data, cancelled) => {
      if (cancelled || !data.dropBlock || player.gameMode !== 0) return
      data.dropBlock = false
      for (const d of data.drops ?? []) {
        const id = d.blockDropId
        if (id === undefined || id === null || !registry.items[id]) continue
        if (room(player, id) > 0) give(player, id, d.blockDropCount ?? 1)
      }
    })
  })

  for (const block of registry.blocksArray) {
    const half = block.states && block.states.find((st) => st.name === 'half')
    if (!half || !half.values || !half.values.includes('upper') || !half.values.includes('lower')) continue
    if (!registry.itemsByName[block.name]) continue
    serv.onItemPlace(block.name, async ({ player, placedPosition, properties }) => {
      const above = placedPosition.offset(0, 1, 0)
      const top = await player.world.getBlock(above)
      if (top && top.boundingBox !== 'empty') return {} // no room: nothing is placed
      const props = { ...properties, half: 'lower', open: false, powered: false, hinge: 'left' }
      const base = block.defaultState - block.minStateId
      const lower = serv.setBlockDataProperties(base, block.states, props)
      const upper = serv.setBlockDataProperties(base, block.states, { ...props, half: 'upper' })
      player.setBlock(above, block.minStateId + upper)
      return { id: block.id, data: lower }
    }, false)
  }

  // Ingredient counts of a minecraft-data recipe, and whether it needs a 3x3 grid.
  function ingredients (r) {
    const needs = new Map()
    const add = (id) => {
      if (id === null || id === undefined || id === -1) return
      const v = typeof id === 'object' ? id.id : id
      needs.set(v, (needs.get(v) ?? 0) + 1)
    }
    let big = false
    if (r.inShape) {
      big = r.inShape.length > 2 || r.inShape.some((row) => row.length > 2)
      r.inShape.forEach((row) => row.forEach(add))
    } else if (r.ingredients) {
      big = r.ingredients.length > 4
      r.ingredients.forEach(add)
    }
    return { needs, big }
  }

  async function tableInReach (player) {
    const c = player.position.floored()
    for (let dx = -5; dx <= 5; dx++) {
      for (let dy = -3; dy <= 4; dy++) {
        for (let dz = -5; dz <= 5; dz++) {
          const p = c.offset(dx, dy, dz)
          if (reachTo(player, p) > REACH) continue
          const b = await player.world.getBlock(p)
          if (b && b.name === 'crafting_table') return p
        }
      }
    }
    return null
  }
}

module.exports = { installStandIns }
