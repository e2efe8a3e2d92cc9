// Native guard vs the TypeScript reference, both through their plugin's tools/post-execute
// listener, same process, interleaved rounds, a fresh deep-frozen copy of the arguments for every
// call (as the harness parses them). Prints median ns per call, and the median over the rounds of
// each round's ratio: both sides of a round run back to back, so the ratio is not moved by the
// machine's speed drifting between rounds (on a shared machine, by up to a factor of two within
// minutes), as a ratio of the two medians would be. Run: npm run bench
import * as reference from '@deepseek-ai/dsh-repeat-tool-reminder'
import * as guard from '../index.js'
import { SMALL, callsPerRound, measure, median, nested } from './cases.mjs'
import { deepFreeze, listenersOf } from '../__test__/support/listeners.mjs'

// Rounds per case: the fast cases get more, being cheap and the ones the machine's noise moves
// most (a round of them lasts a fraction of a second). BENCH_ROUNDS=n sets every case's.
const FEW = 8
const MANY = 30
const ROUNDS = process.env.BENCH_ROUNDS === undefined ? undefined : Number(process.env.BENCH_ROUNDS)
// BENCH_CASES=100,wide runs only the cases whose name contains one of the words.
const ONLY = process.env.BENCH_CASES?.split(',')


function deep(levels) {
  let value = { leaf: 1 }
  for (let i = 0; i < levels; i++) value = { z: i, a: value }
  return value
}

const cases = [
  { name: '~100 B', args: SMALL, rounds: MANY },
  { name: '~10 KB nested', args: nested(10_000), rounds: MANY },
  // Every call of these differs from the last (as most calls of an agent that is not stuck do).
  { name: '~100 B, each call new', args: SMALL, vary: (args, i) => ({ ...args, limit: i }), rounds: MANY },
  { name: '~10 KB nested, each call new', args: nested(10_000), vary: (args, i) => ({ ...args, query: `search ${i}` }), rounds: MANY },
  // Two agents in turn (a subagent's calls between its parent's): every call is keyed.
  { name: '~100 B, each call new, two agents in turn', args: SMALL, vary: (args, i) => ({ ...args, limit: i }), agents: 2, rounds: MANY },
  { name: '~10 KB nested, each call new, two agents in turn', args: nested(10_000), vary: (args, i) => ({ ...args, query: `search ${i}` }), agents: 2, rounds: MANY },
  { name: '~1 MB string', args: { path: 'out.txt', content: 'x'.repeat(1 << 20) }, rounds: FEW },
  // One code unit past 0xff: V8 keeps the string two bytes a unit, and encode.js looks for such a
  // unit in its last units before it scans the whole (a unit far from the end is the costly place).
  { name: '~1 MB string, one wide unit at its start', args: { path: 'out.txt', content: `€${'x'.repeat(1 << 20)}` }, rounds: FEW },
  { name: '~1 MB string, one wide unit in its middle', args: { path: 'out.txt', content: `${'x'.repeat(1 << 19)}€${'x'.repeat(1 << 19)}` }, rounds: FEW },
  { name: 'deep (1,000 levels)', args: deep(1000), rounds: FEW },
  { name: 'wide (10,000 keys)', args: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`key${(i * 7919) % 10_000}`, i])), rounds: FEW },
  { name: 'reminder call (~100 B)', args: { pattern: 'TODO' }, config: { thresholds: [2, 3] }, reminder: true, rounds: MANY },
  { name: 'excluded call', args: { pattern: 'TODO' }, config: { exclude: ['grep'] }, rounds: MANY },
  // The floor: what the loop, the await and next() cost with a listener that does nothing.
  { name: 'floor: a listener that only calls next()', args: { pattern: 'TODO' }, floor: true, rounds: MANY },
]



console.log(`Node ${process.version}: median ns per call, and the median of the rounds' ratios, over interleaved rounds`)
console.log('| case | rounds | native ns | reference ns | reference / native |')
console.log('| --- | ---: | ---: | ---: | ---: |')
// Medians per case name, for the line on what an excluded call adds to the floor.
const medians = new Map()
for (const c of cases.filter((c) => !ONLY || ONLY.some((word) => c.name.includes(word)))) {
  const json = JSON.stringify(c.args)
  const perRound = callsPerRound(json)
  const noop = (_exec, _result, next) => next()
  const ours = c.floor ? noop : listenersOf(guard, c.config ?? {})['tools/post-execute']
  const theirs = c.floor ? noop : listenersOf(reference, c.config ?? {})['tools/post-execute']
  // Reminder case: agents cycle so every other call is the 2nd or 3rd of a run (a reminder).
  const agents = Array.from({ length: 4 }, (_, i) => ({ id: `agent-${i}` }))
  const agent = c.reminder ? (i) => agents[Math.floor(i / 3) % 4] : (i) => agents[i % (c.agents ?? 1)]
  const native = []
  const ts = []
  const ratios = []
  const rounds = ROUNDS ?? c.rounds
  for (let round = 0; round < rounds + 1; round++) {
    const copy = (_, i) => deepFreeze(c.vary ? c.vary(JSON.parse(json), i) : JSON.parse(json))
    const copiesA = Array.from({ length: perRound }, copy)
    const copiesB = Array.from({ length: perRound }, copy)
    // Which side goes first alternates from round to round.
    let a, b
    if (round % 2 === 0) {
      a = await measure(ours, copiesA, agent)
      b = await measure(theirs, copiesB, agent)
    } else {
      b = await measure(theirs, copiesB, agent)
      a = await measure(ours, copiesA, agent)
    }
    if (round > 0) { native.push(a); ts.push(b); ratios.push(b / a) } // round 0 warms up
  }
  medians.set(c.name, [median(native), median(ts)])
  console.log(`| ${c.name} | ${rounds} | ${median(native).toFixed(0)} | ${median(ts).toFixed(0)} | ${median(ratios).toFixed(2)}× |`)
}
const excluded = medians.get('excluded call')
const floor = [...medians].find(([name]) => name.startsWith('floor'))?.[1]
if (excluded && floor) {
  console.log(`\nWhat an excluded call adds to the floor (medians' difference): native ${(excluded[0] - floor[0]).toFixed(0)} ns, reference ${(excluded[1] - floor[1]).toFixed(0)} ns`)
}
