// How far a repeated ~1 MB call (bench.mjs's "~1 MB string") is from what any exact check of it
// must do: read the new copy's string. The plugin finds such a call equal to the last one in
// JavaScript (lib/encode.js `repeats`), by looking the new string up in an object whose one key is
// the string it kept (V8 compares the two by memcmp), and Rust then counts it without reading it.
// Timed on fresh deep-frozen copies, as many as a round of bench.mjs (out of cache, as a harness's
// freshly parsed arguments are): the plugin's listener, V8's `===` of the two strings (a word at a
// time, what the plugin did before), a single read of the string (`indexOf` of a code unit
// it does not hold), the string written out as Latin-1 into a buffer (what handing it to native
// code costs first: Node-API copies a string out the same way), and the reference's listener.
// Interleaved rounds, medians of ns per call.
// Run: node --expose-gc benchmark/long-string-floor.mjs (FLOOR_ROUNDS sets the rounds, 9).
import * as reference from '@deepseek-ai/dsh-repeat-tool-reminder'
import * as guard from '../index.js'
import { callsPerRound, inTurn, measure, median } from './cases.mjs'
import { deepFreeze, listenersOf } from '../__test__/support/listeners.mjs'

const ROUNDS = Number(process.env.FLOOR_ROUNDS ?? 9)
const json = JSON.stringify({ path: 'out.txt', content: 'x'.repeat(1 << 20) })
const kept = JSON.parse(json).content
const agent = () => ({ id: 'agent-0' })
const ours = listenersOf(guard, {})['tools/post-execute']
const theirs = listenersOf(reference, {})['tools/post-execute']
// A buffer as long as the string, for the copy out.
const out = Buffer.allocUnsafe(kept.length)
let sink = 0
/** Mean ns per call of `f` over the copies' strings. */
function each(copies, f) {
  globalThis.gc?.()
  const start = process.hrtime.bigint()
  for (const copy of copies) sink += f(copy.content)
  return Number(process.hrtime.bigint() - start) / copies.length
}
const sides = {
  'the plugin (native)': (copies) => measure(ours, copies, agent),
  '`===` with the kept string': (copies) => each(copies, (text) => (text === kept ? 1 : 0)),
  'one read of the string': (copies) => each(copies, (text) => (text.indexOf('y') < 0 ? 1 : 0)),
  'the string copied out': (copies) => each(copies, (text) => out.latin1Write(text)),
  'the reference': (copies) => measure(theirs, copies, agent),
}

const times = Object.fromEntries(Object.keys(sides).map((side) => [side, []]))
for (let round = 0; round <= ROUNDS; round++) {
  for (const side of inTurn(sides, round)) {
    const copies = Array.from({ length: callsPerRound(json) }, () => deepFreeze(JSON.parse(json)))
    const time = await sides[side](copies)
    if (round > 0) times[side].push(time) // round 0 warms up
  }
}
console.log(`Node ${process.version}: a repeated ~1 MB call, µs per call, medians of ${ROUNDS} interleaved rounds`)
console.log(`| ${Object.keys(sides).join(' | ')} |`)
console.log(`|${Object.keys(sides).map(() => ' ---: |').join('')}`)
console.log(`| ${Object.values(times).map((t) => (median(t) / 1000).toFixed(0)).join(' | ')} |`)
if (sink === 0) console.log('(nothing read)')
