// A person beside the bots (`gatecrew run --interactive --world minecraft`): the bot
// says the partner's lines in the game's chat, a stop cuts the bot's walk or dig at
// once, and a player leaving the server is reported (the session ends when its person
// leaves). `chat` and `stop` run at once, never behind the bot's command in progress:
// a stop that waited for the walk it stops would stop nothing.
'use strict'

const { BridgeError } = require('./actions')

// Minecraft's chat line limit (256 characters, vanilla's ServerboundChatPacket): a
// longer line is sent in pieces, cut at spaces where there are any.
const CHAT_MAX = 256

function pieces (text) {
  const out = []
  let rest = text.replace(/\s+/g, ' ').trim()
  while (rest.length > CHAT_MAX) {
    let cut = rest.lastIndexOf(' ', CHAT_MAX)
    if (cut <= 0) cut = CHAT_MAX
    out.push(rest.slice(0, cut))
    rest = rest.slice(cut).trim()
  }
  if (rest) out.push(rest)
  return out
}

async function chat (entry, req) {
  if (typeof req.text !== 'string') throw new BridgeError('bad_request', '"text" must be a string')
  // A line starting with / would be a server command, not chat.
  const lines = pieces(req.text).map((l) => (l.startsWith('/') ? ` ${l}` : l))
  for (const l of lines) entry.bot.chat(l)
  return { sent: lines.length }
}

async function stop (entry) {
  const { bot } = entry
  entry.halted = true
  bot.pathfinder.stop()
  bot.pathfinder.setGoal(null)
  bot.clearControlStates()
  if (bot.targetDigBlock) bot.stopDigging()
  return {}
}

// The commands that bypass the bot's queue.
const immediate = { chat, stop }

function watch (entry, emit) {
  entry.bot.on('playerLeft', (p) => {
    if (p && p.username && p.username !== entry.name) emit('player_left', entry.name, { player: p.username })
  })
}

module.exports = { immediate, watch, pieces }
