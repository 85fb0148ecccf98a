#!/usr/bin/env node
// The local test server: flying-squid 1.12.0 run in this process, bound to loopback,
// online-mode off, superflat, with a fresh in-memory world (no world folder: nothing is
// read or written on disk). Started by gatecrew's `--local-server` and by its tests.
//
//   node harness.js [--port 0] [--host 127.0.0.1] [--version 1.20.4]
//
// stdout carries exactly one JSON line once the server accepts players:
//   {"event":"ready","port":12345,"version":"1.20.4","pid":4242,"ground_y":5}
// Everything else (flying-squid's own logs included) goes to stderr. The server stops
// on SIGTERM, SIGINT, or when its stdin closes (so it never outlives the process that
// started it with a pipe).
'use strict'

const { installStandIns } = require('./standins')

// stdout is reserved for the ready line. flying-squid logs through console.log, and
// its console plugin binds a readline prompt to `process.stdout` when it is loaded:
// point both at stderr for good.
const writeOut = process.stdout.write.bind(process.stdout)
Object.defineProperty(process, 'stdout', { configurable: true, enumerable: true, get: () => process.stderr })
console.log = (...args) => console.error(...args)
console.info = (...args) => console.error(...args)

function parseArgs (argv) {
  const opts = { port: 0, host: '127.0.0.1', version: '1.20.4' }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const v = argv[i + 1]
    if (a === '--port') { opts.port = Number(v); i++ } else if (a === '--host') { opts.host = v; i++ } else if (a === '--version') { opts.version = v; i++ } else {
      throw new Error(`unknown argument ${a} (use --port N, --host H, --version V)`)
    }
  }
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) throw new Error(`bad --port ${opts.port}`)
  return opts
}

// The superflat generator's layers: bedrock at y=0, dirt 1..3, grass at 4; bots stand at 5.
const GROUND_Y = 5

async function main () {
  const opts = parseArgs(process.argv.slice(2))
  const mc = require('flying-squid')
  const serv = mc.createMCServer({
    port: opts.port,
    host: opts.host,
    'online-mode': false,
    version: opts.version,
    motd: 'gatecrew test server',
    'max-players': 16,
    logging: false,
    gameMode: 0, // survival: placing spends items, as on a real server
    difficulty: 0,
    // No worldFolder: the world lives in memory only and is new every start.
    generation: { name: 'superflat', options: { worldHeight: 80 } },
    kickTimeout: 30000,
    plugins: {},
    modpe: false,
    'view-distance': 4,
    'player-list-text': { header: { text: 'gatecrew' }, footer: { text: 'test server' } },
    'everybody-op': true, // scenario setup uses admin commands (give, tp, setblock)
    'max-entities': 100
  })
  serv.on('error', (e) => console.error('[harness] server error:', e && e.message))
  // From 1.20.2 on flying-squid announces players with a wrong entity type, and other
  // bots then show up as some other mob: set the player type explicitly.
  serv.on('newPlayer', (p) => { p.entityType = serv.registry.entitiesByName.player.id })
  installStandIns(serv)

  const stop = async (why) => {
    console.error(`[harness] stopping: ${why}`)
    try { await serv.destroy() } catch (e) { console.error('[harness] destroy:', e && e.message) }
    process.exit(0)
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
  process.stdin.on('end', () => stop('stdin closed'))
  process.stdin.on('error', () => stop('stdin error'))
  process.stdin.resume()

  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server did not start within 20 s')), 20000)
    serv.once('listening', (p) => {
      serv.waitForReady(20000).then(() => { clearTimeout(timer); resolve(p) }, reject)
    })
  })
  writeOut(JSON.stringify({ event: 'ready', port, version: opts.version, pid: process.pid, ground_y: GROUND_Y }) + '\n')
  console.error(`[harness] flying-squid ${opts.version} ready on ${opts.host}:${port}`)
}

main().catch((e) => {
  console.error('[harness] failed:', e && e.stack ? e.stack : e)
  process.exit(1)
})
