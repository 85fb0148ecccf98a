#!/usr/bin/env node
// gatecrew's mineflayer bridge: JSON lines on stdio, one bot per name.
//
// stdin, one request a line:   {"id":7,"bot":"bot0","cmd":"move_to","x":3,"y":5,"z":1,"range":0}
// stdout, one reply a line:    {"id":7,"ok":true,"data":{...}}
//                              {"id":7,"ok":false,"error":"no path to 3 5 1","code":"no_path","data":{...}}
// stdout, pushed events:       {"event":"kicked","bot":"bot1","reason":"..."}  (also "end", "died", "chat", "player_left")
//
// stdout carries only the protocol; every log goes to stderr. Commands for one bot run
// one at a time, in arrival order; different bots run concurrently (`chat` and `stop`,
// in talk.js, run at once). The commands are in actions.js. The bridge exits when stdin closes (after quitting every bot).
'use strict'

// Libraries log with console.log: send it to stderr so stdout stays pure protocol.
const writeOut = process.stdout.write.bind(process.stdout)
console.log = (...args) => console.error(...args)
console.info = (...args) => console.error(...args)
console.warn = (...args) => console.error(...args)

const readline = require('readline')
const { commands, spawnBot, BridgeError } = require('./actions')
const talk = require('./talk')

const bots = new Map() // name -> entry (see actions.js spawnBot)

function send (obj) {
  writeOut(JSON.stringify(obj) + '\n')
}

function emit (event, bot, fields) {
  send({ event, bot, ...fields })
}

function replyError (id, e, data) {
  const code = e instanceof BridgeError ? e.code : 'internal'
  const out = { id, ok: false, error: e && e.message ? e.message : String(e), code }
  if (data) out.data = data
  send(out)
}

async function handle (req) {
  const { id, bot: name, cmd } = req
  const started = process.hrtime.bigint()
  const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6
  try {
    let data
    if (cmd === 'spawn_bot') {
      if (bots.has(name) && !bots.get(name).gone) throw new BridgeError('bad_request', `bot ${name} already exists`)
      data = await spawnBot(name, req, bots, emit)
      talk.watch(bots.get(name), emit)
    } else if (cmd === 'ping') {
      data = {}
    } else {
      const entry = bots.get(name)
      if (!entry) throw new BridgeError('not_connected', `no bot named ${name}`)
      const now = talk.immediate[cmd]
      const run = commands[cmd]
      if (now) data = await entry.guard(now(entry, req))
      else if (!run) throw new BridgeError('bad_request', `unknown command ${cmd}`)
      else data = await entry.serial(() => entry.guard(run(entry, req, bots)))
    }
    send({ id, ok: true, data: { ...data, elapsed_ms: elapsed() } })
  } catch (e) {
    if (!(e instanceof BridgeError)) console.error(`[bridge] ${name} ${cmd}:`, e && e.stack ? e.stack : e)
    replyError(id, e, e && e.data ? { ...e.data, elapsed_ms: elapsed() } : { elapsed_ms: elapsed() })
  }
}

function main () {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
  rl.on('line', (line) => {
    if (!line.trim()) return
    let req
    try {
      req = JSON.parse(line)
    } catch (e) {
      send({ id: null, ok: false, error: `not JSON: ${e.message}`, code: 'bad_request' })
      return
    }
    if (typeof req !== 'object' || req === null || req.id === undefined || typeof req.cmd !== 'string') {
      send({ id: req && req.id !== undefined ? req.id : null, ok: false, error: 'a request needs "id", "bot" and "cmd"', code: 'bad_request' })
      return
    }
    handle(req)
  })
  rl.on('close', () => {
    console.error('[bridge] stdin closed: quitting every bot')
    for (const entry of bots.values()) {
      try { entry.bot.quit('bridge stopping') } catch (_) {}
    }
    setTimeout(() => process.exit(0), 200)
  })
  process.on('uncaughtException', (e) => console.error('[bridge] uncaught:', e && e.stack ? e.stack : e))
  process.on('unhandledRejection', (e) => console.error('[bridge] unhandled rejection:', e && e.stack ? e.stack : e))
  console.error(`[bridge] ready (pid ${process.pid})`)
}

main()
