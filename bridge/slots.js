// The bot's inventory as the server holds it.
//
// mineflayer keeps its own copy of the player's inventory window: the server's slot
// packets (`window_items`, `set_slot`) plus its own predictions of every click it
// sends. A server that accepts a click and says nothing (vanilla) stays in step; one
// that ignores clicks (flying-squid 1.12.0 drops every inventory click on the floor)
// leaves mineflayer believing an item was moved into the hotbar that never was: the
// next placement spends whatever the server holds in that slot (stone where a pressure
// plate belongs), and later the bot misses items it holds. So:
//
// * `track` records the server's own slot packets for the player inventory, from the
//   first packet on;
// * `resync` (after every command, on a server whose every change comes as a slot
//   packet: the stand-in harness) puts mineflayer's copy back to the server's where
//   they differ;
// * `hold` puts an item in the hand without inventory clicks where the server ignores
//   them: a hotbar slot that holds it is selected (`held_item_slot`, which every server
//   honours), else the stand-in `/gc-hold` swaps it into the selected slot on the
//   server, which answers with slot packets; on other servers mineflayer's `equip`. It
//   then checks the server's own held slot and refuses with `equip_failed` otherwise.
'use strict'

const HOTBAR = 36
const SLOTS = 46

function track (bot) {
  const Item = require('prismarine-item')(bot.registry)
  const state = { slots: new Array(SLOTS).fill(null), seen: false, Item }
  bot._gcServer = state
  const put = (slot, data) => {
    if (slot < 0 || slot >= SLOTS) return
    const it = data ? Item.fromNotch(data) : null
    state.slots[slot] = it && it.count > 0 ? it : null
  }
  bot._client.on('window_items', (p) => {
    if (p.windowId !== 0) return
    state.seen = true
    const items = p.items ?? []
    for (let s = 0; s < SLOTS; s++) put(s, items[s])
  })
  bot._client.on('set_slot', (p) => {
    // Window 0 is the player's inventory; -2 addresses it directly (1.17+).
    if (p.windowId !== 0 && p.windowId !== -2) return
    state.seen = true
    put(p.slot, p.item)
  })
  return state
}

const same = (a, b) => (!a && !b) || (!!a && !!b && a.type === b.type && a.count === b.count)

// Puts mineflayer's copy of the inventory back to the server's, slot by slot. Returns
// the slots that differed.
function resync (bot) {
  const state = bot._gcServer
  if (!state || !state.seen) return []
  const fixed = []
  for (let s = 9; s < SLOTS; s++) {
    const server = state.slots[s]
    if (!same(bot.inventory.slots[s], server)) {
      fixed.push(s)
      bot.inventory.updateSlot(s, server ? new state.Item(server.type, server.count, server.metadata, server.nbt) : null)
    }
  }
  if (fixed.length) console.error(`[bridge] ${bot.username}: inventory slots ${fixed.join(', ')} put back to the server's`)
  return fixed
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function until (test, ms) {
  const end = Date.now() + ms
  while (!test() && Date.now() < end) await sleep(20)
  return test()
}

// The server's held item (by its own packets when it sends them all).
function serverHeld (entry) {
  const { bot } = entry
  const state = bot._gcServer
  const slot = HOTBAR + bot.quickBarSlot
  return entry.standins && state && state.seen ? state.slots[slot] : bot.inventory.slots[slot]
}

// Puts `item` in the bot's hand as the server sees it (see the header).
async function hold (entry, item, standIn, BridgeError, snapshot) {
  const { bot } = entry
  const holds = () => { const h = serverHeld(entry); return !!h && h.name === item }
  if (holds()) return
  const slots = entry.standins && bot._gcServer && bot._gcServer.seen ? bot._gcServer.slots : bot.inventory.slots
  for (let s = HOTBAR; s < HOTBAR + 9; s++) {
    if (slots[s] && slots[s].name === item) {
      bot.setQuickBarSlot(s - HOTBAR)
      if (holds()) return
    }
  }
  if (entry.standins) {
    await standIn(entry, `gc-hold {nonce} ${item} ${bot.quickBarSlot}`, 5000)
    await until(holds, 2000)
    resync(bot)
  } else {
    const held = bot.inventory.items().find((i) => i.name === item)
    if (held) await bot.equip(held, 'hand')
  }
  if (!holds()) {
    const h = serverHeld(entry)
    throw new BridgeError('equip_failed', `cannot put ${item} in hand: the server's hand slot holds ${h ? h.name : 'nothing'}`, snapshot(bot))
  }
}

module.exports = { track, resync, hold, serverHeld }
