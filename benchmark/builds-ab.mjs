// The reference against one or more built checkouts of this package, through their plugins'
// tools/post-execute listeners, all in the same interleaved rounds (the order turning every round),
// a fresh deep-frozen copy of the arguments per call as in bench.mjs: for a change that touches the
// native side as well as encode.js, where encode-ab.mjs sees only the walk. Each directory needs
// its index.js, native.cjs and built binary (`npm run build`) and a node_modules beside it (a
// symlink to this one will do). Prints, per case, each side's median ns and the median over the
// rounds of the reference's time divided by that side's; with two or more builds, also each later
// build's time over the first's, round by round. Not part of npm run bench.
//   node --expose-gc benchmark/builds-ab.mjs <dir> [<dir> ...]      (BUILDS_CASES=100 for the ~100 B cases; 1 MB for the long strings; deep,wide)
// BUILDS_CONFIG='{"profile":"recommended"}' gives the builds (not the reference) that config.
import * as reference from '@deepseek-ai/dsh-repeat-tool-reminder'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { SMALL, callsPerRound, median, nested } from './cases.mjs'
import { deepFreeze, listenersOf } from '../__test__/support/listeners.mjs'

const dirs = process.argv.slice(2)
if (dirs.length === 0) throw new Error('usage: node --expose-gc benchmark/builds-ab.mjs <dir> [<dir> ...]')
const plugins = [reference, ...(await Promise.all(dirs.map((dir) => import(pathToFileURL(resolve(dir, 'index.js')).href))))]
const names = ['reference', ...dirs]
const config = JSON.parse(process.env.BUILDS_CONFIG ?? '{}')
const listeners = plugins.map((plugin, i) => listenersOf(plugin, i === 0 ? {} : config)['tools/post-execute'])
const ROUNDS = Number(process.env.BUILDS_ROUNDS ?? 21)
const ONLY = process.env.BUILDS_CASES?.split(',')
const next = () => Promise.resolve({ kind: 'accept' })
const AGENTS = [{ id: 'agent-0' }, { id: 'agent-1' }]

function deep(levels) {
  let value = { leaf: 1 }
  for (let i = 0; i < levels; i++) value = { z: i, a: value }
  return value
}

const cases = [
  { name: '~100 B', args: SMALL },
  { name: '~10 KB nested', args: nested(10_000) },
  // Each call differs from the last, as in bench.mjs.
  { name: '~100 B, each call new', args: SMALL, vary: (args, i) => ({ ...args, limit: i }) },
  { name: '~10 KB nested, each call new', args: nested(10_000), vary: (args, i) => ({ ...args, query: `search ${i}` }) },
  // Two agents in turn: each call's key is written (the other agent's call comes between its own).
  { name: '~100 B, each call new, two agents in turn', args: SMALL, vary: (args, i) => ({ ...args, limit: i }), agents: 2 },
  { name: '~10 KB nested, each call new, two agents in turn', args: nested(10_000), vary: (args, i) => ({ ...args, query: `search ${i}` }), agents: 2 },
  { name: '~1 MB string, each call new, two agents in turn', args: { path: 'out.txt', content: 'x'.repeat(1 << 20) }, vary: (args, i) => ({ ...args, path: `out-${i}.txt` }), agents: 2 },
  { name: 'deep (1,000 levels)', args: deep(1000) },
  { name: 'wide (10,000 keys)', args: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`key${(i * 7919) % 10_000}`, i])) },
  { name: '~1 MB string', args: { path: 'out.txt', content: 'x'.repeat(1 << 20) } },
  // The same with one code unit past Latin-1 at its end: V8 then keeps it two bytes a unit.
  { name: '~1 MB string, one € at its end', args: { path: 'out.txt', content: 'x'.repeat(1 << 20) + '€' } },
]
for (const { name, args, vary, agents = 1 } of cases.filter((c) => !ONLY || ONLY.some((word) => c.name.includes(word)))) {
  const json = JSON.stringify(args)
  const perRound = callsPerRound(json)
  const times = listeners.map(() => [])
  const ratios = listeners.map(() => [])
  for (let round = 0; round < ROUNDS + 1; round++) {
    const copy = (_, i) => deepFreeze(vary ? vary(JSON.parse(json), i) : JSON.parse(json))
    const copies = listeners.map(() => Array.from({ length: perRound }, copy))
    const ns = listeners.map(() => 0)
    for (let k = 0; k < listeners.length; k++) {
      const i = (k + round) % listeners.length
      globalThis.gc?.()
      const start = process.hrtime.bigint()
      for (let c = 0; c < perRound; c++) {
        await listeners[i]({ name: 'grep', agent: AGENTS[c % agents], arguments: copies[i][c] }, {}, next)
      }
      ns[i] = Number(process.hrtime.bigint() - start) / perRound
    }
    // Round 0 warms up.
    if (round === 0) continue
    for (let i = 0; i < listeners.length; i++) {
      times[i].push(ns[i])
      ratios[i].push(ns[0] / ns[i])
    }
  }
  const sides = names.map((side, i) => `${side} ${median(times[i]).toFixed(0)} ns` + (i ? ` (${median(ratios[i]).toFixed(2)}×)` : ''))
  console.log(`${name}: ${sides.join(', ')}`)
  // Each later build against the first, round by round: a change to compare directly.
  for (let i = 2; i < listeners.length; i++) {
    const against = times[i].map((ns, round) => ns / times[1][round])
    console.log(`  ${names[i]} / ${names[1]}: median ${median(against).toFixed(3)} of the rounds' time ratios`)
  }
}
