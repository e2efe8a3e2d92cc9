// Where a new call's time goes, stage by stage, for the ~100 B and ~10 KB calls of bench.mjs that
// differ from the last one: `npm run profile` (node --expose-gc benchmark/profile.mjs).
//
// The JavaScript side is timed here, in interleaved rounds (medians): the plugin's listener, the
// walk alone (lib/encode.js), the walk with the native call (`__observeEncoded`), and a listener
// that only calls next(). The core's stages are timed by the core's own profile test
// (core/src/profile.rs, built with cargo test --release and run once a round, right after the
// JavaScript side), over the very transports the walk wrote: the side-by-side read that tells a
// call from the one before and checks it (core/src/side_by_side.rs), the guard and the chain; and
// what a call that must be keyed adds, its key form written from the transport and
// BLAKE3. The crossing (the Node-API call, the header, the registry, the agent and tool) is what
// the native call takes beyond the core's `Guard::observe`. Figures to read, never pass/fail.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as guard from '../index.js'
import { encode, transport, release } from '../lib/encode.js'
import { SMALL, inTurn, median, nested } from './cases.mjs'
import { deepFreeze, listenersOf } from '../__test__/support/listeners.mjs'

const binding = createRequire(import.meta.url)('../lib/native.cjs')
const ROUNDS = Number(process.env.PROFILE_ROUNDS ?? 30)
// Distinct calls, taken in turn: each differs from the one before.
const DISTINCT = 64

const cases = [
  { name: '~100 B', args: SMALL, vary: (args, i) => ({ ...args, limit: i }), calls: 4000 },
  { name: '~10 KB', args: nested(10_000), vary: (args, i) => ({ ...args, query: `search ${i}` }), calls: 100 },
]

const downstream = { kind: 'accept' }
const next = () => Promise.resolve(downstream)
const noop = (_exec, _result, next) => next()
const agent = { id: 'agent-0' }

/** Mean ns per call of `run` over `copies`, from a collected heap; `run` awaited when `async`. */
async function time(copies, run, async) {
  globalThis.gc?.()
  const start = process.hrtime.bigint()
  if (async) for (const copy of copies) await run(copy)
  else for (const copy of copies) run(copy)
  return Number(process.hrtime.bigint() - start) / copies.length
}

/** The arguments' transport bytes of the last encoding (after the agent id and tool name). */
function transportOf(value) {
  // Empty agent id and tool name: their prefix is as long as `null`'s encoding less its one tag.
  if (!encode(null, '', '', 0)) throw new Error('could not encode null')
  const prefix = transport.header[1] - 1
  release()
  if (!encode(value, '', '', 0)) throw new Error('not a plain call')
  const bytes = transport.bytes.slice(prefix, transport.header[1])
  release()
  return bytes
}

/** The core's profile test, built with --release: its executable. */
function coreTest() {
  const out = execFileSync('cargo', ['test', '--quiet', '--release', '-p', 'repeat-tool-guard-core', '--lib', '--no-run',
    '--message-format=json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 28 })
  const built = out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l))
    .find((m) => m.reason === 'compiler-artifact' && m.target?.name === 'repeat_tool_guard_core' && m.profile?.test && m.executable)
  if (!built) throw new Error('cargo built no test executable for the core')
  return built.executable
}

/** Writes `values`' transports to `file`: per call a little-endian u32 length, then the bytes. */
function writeTransports(values, file) {
  writeFileSync(file, Buffer.concat(values.map(transportOf).flatMap((bytes) => {
    const length = Buffer.alloc(4)
    length.writeUInt32LE(bytes.length)
    return [length, bytes]
  })))
}

/** One round of the core's stages (ns per call) over the transports in `file`. */
function coreStages(test, file) {
  const out = execFileSync(test, ['profile::stages_of_a_new_call', '--ignored', '--nocapture', '--exact'],
    { env: { ...process.env, PROFILE_CALLS: file, PROFILE_ROUNDS: '1' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  const line = out.split('\n').find((l) => l.startsWith('PROFILE '))
  if (!line) throw new Error(`no PROFILE line from the core's profile test:\n${out}`)
  const [, bytes, ...stages] = line.split(' ')
  return { bytes: Number(bytes), ...Object.fromEntries(stages.map((s) => s.split('=')).map(([k, v]) => [k, Number(v)])) }
}

const test = coreTest()
const dir = mkdtempSync(join(tmpdir(), 'profile-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
const native = new binding.RepeatToolGuard({})
const handle = native.__handle()
const ours = listenersOf(guard, {})['tools/post-execute']
const rows = []
for (const c of cases) {
  const json = JSON.stringify(c.args)
  const values = Array.from({ length: DISTINCT }, (_, i) => c.vary(JSON.parse(json), i))
  const file = join(dir, c.name.replace(/\W/g, ''))
  writeTransports(values, file)
  const sides = {
    floor: (args) => noop({ name: 'grep', agent, arguments: args }, {}, next),
    listener: (args) => ours({ name: 'grep', agent, arguments: args }, {}, next),
    walk: (args) => {
      if (!encode(args, 'agent-0', 'grep', handle)) throw new Error('not encoded')
      release()
    },
    native: (args) => {
      if (!encode(args, 'agent-0', 'grep', handle)) throw new Error('not encoded')
      binding.__observeEncoded(transport.buffer)
      release()
    },
  }
  const texts = values.map((value) => JSON.stringify(value))
  // Per round: each side's time, and the differences the stages are (medians of those).
  const rounds = []
  for (let round = 0; round <= ROUNDS; round++) {
    const ns = {}
    for (const side of inTurn(sides, round)) {
      // Fresh deep-frozen copies, parsed as the loop parses arguments.
      const copies = Array.from({ length: c.calls }, (_, i) => deepFreeze(JSON.parse(texts[i % DISTINCT])))
      ns[side] = await time(copies, sides[side], side === 'floor' || side === 'listener')
    }
    // The core's stages right after, so that a difference with the native call is of one moment.
    ns.core = coreStages(test, file)
    if (round > 0) rounds.push(ns) // round 0 warms up
  }
  const m = (f) => median(rounds.map(f))
  const hashed = rounds[0].core.bytes > 128
  rows.push({
    name: c.name,
    stages: [
      ['the JavaScript walk (lib/encode.js)', m((r) => r.walk)],
      ['the crossing (Node-API call, header, registry, agent and tool)', m((r) => r.native - r.walk - r.core.observe)],
      ['telling the call from the last one, and checking it (core/src/side_by_side.rs)', m((r) => r.core.side_by_side)],
      ['the guard and the chain', m((r) => r.core.observe - r.core.side_by_side)],
      ['the plugin around it (tracked-tool cache, the await)', m((r) => r.listener - r.native - r.floor)],
      ['the floor (a listener that only calls next())', m((r) => r.floor)],
    ],
    total: m((r) => r.listener),
    // Not in the total: what a call that must be keyed (one the read cannot tell) adds.
    keyed: [m((r) => r.core.form - (hashed ? r.core.hash : 0)), hashed ? m((r) => r.core.hash) : 0],
  })
}
console.log(`Node ${process.version}: ns per new call, by stage (medians of ${ROUNDS} interleaved rounds; the core's stages from core/src/profile.rs)`)
console.log(`| stage | ${rows.map((r) => r.name).join(' | ')} |`)
console.log(`| --- |${rows.map(() => ' ---: |').join('')}`)
for (let i = 0; i < rows[0].stages.length; i++) {
  console.log(`| ${rows[0].stages[i][0]} | ${rows.map((r) => r.stages[i][1].toFixed(0)).join(' | ')} |`)
}
console.log(`| through the listener, in all | ${rows.map((r) => r.total.toFixed(0)).join(' | ')} |`)
console.log(`\nA call the side-by-side read cannot tell (members reordered, say) is keyed too: its key form written
from the transport (core/src/key_form.rs) ${rows.map((r) => `${r.keyed[0].toFixed(0)} ns at ${r.name}`).join(', ')}; hashing it
(BLAKE3, forms over 128 B) ${rows.map((r) => `${r.keyed[1].toFixed(0)} ns`).join(', ')}.`)
