// How far the JavaScript walk (lib/encode.js) is from a walk that only reads: the ~100 B and ~10 KB
// calls of bench.mjs that differ from the last one, encoded (as the plugin does before
// `__observeEncoded`), read by a bare `for…in` walk with the same prototype check and no writing,
// and printed by `JSON.stringify`; over 64 copies taken in turn (in cache) and over as many fresh
// ones as a round of bench.mjs (mostly not). Interleaved rounds, medians of ns per call.
// Run: node --expose-gc benchmark/walk-floor.mjs (WALK_ROUNDS sets the rounds, 15).
import '../index.js'
import { encode, release } from '../lib/encode.js'
import { SMALL, callsPerRound, inTurn, median, nested, readOnly } from './cases.mjs'
import { deepFreeze } from '../__test__/support/listeners.mjs'

const ROUNDS = Number(process.env.WALK_ROUNDS ?? 15)
const sides = {
  'the walk (encode.js)': (args) => {
    if (!encode(args, 'agent-0', 'grep', 0)) throw new Error('not encoded')
    release()
  },
  'a bare for…in walk': readOnly,
  'JSON.stringify': (args) => JSON.stringify(args).length,
}

const cases = [
  { name: '~100 B', args: SMALL, vary: (args, i) => ({ ...args, limit: i }) },
  { name: '~10 KB', args: nested(10_000), vary: (args, i) => ({ ...args, query: `search ${i}` }) },
]

console.log(`Node ${process.version}: ns per call, medians of ${ROUNDS} interleaved rounds`)
console.log(`| call, copies | ${Object.keys(sides).join(' | ')} |`)
console.log(`| --- |${Object.keys(sides).map(() => ' ---: |').join('')}`)
let sink = 0
for (const c of cases) {
  const json = JSON.stringify(c.args)
  for (const [label, count] of [['64 in turn', 64], ['fresh', callsPerRound(json)]]) {
    const copies = Array.from({ length: count }, (_, i) => deepFreeze(c.vary(JSON.parse(json), i)))
    const calls = callsPerRound(json)
    const times = Object.fromEntries(Object.keys(sides).map((side) => [side, []]))
    for (let round = 0; round <= ROUNDS; round++) {
      for (const side of inTurn(sides, round)) {
        const run = sides[side]
        globalThis.gc?.()
        const start = process.hrtime.bigint()
        for (let i = 0; i < calls; i++) sink += run(copies[i % count]) ?? 0
        if (round > 0) times[side].push(Number(process.hrtime.bigint() - start) / calls) // round 0 warms up
      }
    }
    console.log(`| ${c.name}, ${label} | ${Object.values(times).map((t) => median(t).toFixed(0)).join(' | ')} |`)
  }
}
if (sink === 0) console.log('(nothing read)')
