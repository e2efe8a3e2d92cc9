// The opt-in features against the default path, through the plugin's tools/post-execute
// listener, same process, interleaved rounds, fresh frozen arguments per call, in three tables:
// ~100 B calls that repeat (a stuck agent's), ~100 B calls each new (what similar samples), ~10 KB
// calls each new, and ~1 MB calls each new. With BASELINE_DIR set to a built checkout of another revision, the same
// default-config call of that build runs alongside: the ratio shows what the features cost while
// disabled. Then the time resume takes to rebuild a chain from a log of 1,000 calls.
import { pathToFileURL } from 'node:url'
import * as guard from '../index.js'
import { RepeatToolGuard } from '../index.js'
import { callsSinceLastPrompt } from '../lib/history.js'
import { SMALL, median } from './cases.mjs'
import { deepFreeze, listenersOf } from '../__test__/support/listeners.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const result = deepFreeze({ content: [{ type: 'text', text: 'src/a.ts:1: TODO' }], isError: false })

const baseline = process.env.BASELINE_DIR ? await import(pathToFileURL(`${process.env.BASELINE_DIR}/index.js`).href) : undefined
const IGNORE = { ignoreArguments: [{ tools: ['*'], keys: ['task_progress', 'meta.requestId'] }] }

/** The variants: every feature on, with settings that never fire here, so each does the same no-reminder work. */
function variants(all) {
  const list = [{ name: 'default config', plugin: guard, config: {} }]
  if (baseline) list.push({ name: `default config, ${process.env.BASELINE_LABEL ?? 'baseline'}`, plugin: baseline, config: {} })
  if (all) {
    list.push(
      { name: 'cycles { maxPeriod: 5, repeats: 2 }', plugin: guard, config: { cycles: { maxPeriod: 5, repeats: 2 } } },
      { name: 'sameResultOnly', plugin: guard, config: { sameResultOnly: true } },
      { name: 'overrides (one entry, other tool)', plugin: guard, config: { overrides: [{ tools: ['read*'], thresholds: [2] }] } },
      { name: 'repeatEvery: 4', plugin: guard, config: { repeatEvery: 4 } },
      { name: 'perResponse', plugin: guard, config: { perResponse: true } },
      { name: 'resume: true', plugin: guard, config: { resume: true } },
    )
  }
  list.push(
    { name: 'ignoreArguments (two keys, one present)', plugin: guard, config: IGNORE },
    { name: 'similar { minCalls: 1e9 }', plugin: guard, config: { similar: { minCalls: 1e9 } } },
    { name: 'noProgress { minCalls: 64 }', plugin: guard, config: { noProgress: { minCalls: 64 } } },
    { name: 'failures { minCalls: 64 }', plugin: guard, config: { failures: { minCalls: 64 } } },
    { name: "profile: 'recommended', stopAt: 1e9", plugin: guard, config: { profile: 'recommended', noProgress: { minCalls: 64 }, failures: { minCalls: 64 }, similar: { minCalls: 1e9, similarity: 0.9 }, stopAt: 1e9 } },
  )
  for (const variant of list) {
    // Thresholds past any run here: the call that fires is not what this measures.
    variant.listener = listenersOf(variant.plugin, { thresholds: [1e9], ...variant.config })['tools/post-execute']
    variant.times = []
  }
  return list
}

const downstream = { kind: 'accept' }
const next = () => Promise.resolve(downstream)
const agent = { id: 'agent-1' }

/** Times `list` on `perRound` calls made by `make(i)`, and prints the table. */
async function table(title, list, perRound, make) {
  for (let round = 0; round < ROUNDS + 1; round++) {
    // The order of the variants turns from round to round.
    for (let i = 0; i < list.length; i++) {
      const variant = list[(i + round) % list.length]
      const copies = Array.from({ length: perRound }, (_, n) => deepFreeze(make(n)))
      globalThis.gc?.() // run.sh passes --expose-gc: each variant starts from a collected heap
      const start = process.hrtime.bigint()
      for (const args of copies) await variant.listener({ name: 'grep', agent, arguments: args }, result, next)
      if (round > 0) variant.times.push(Number(process.hrtime.bigint() - start) / perRound) // round 0 warms up
    }
  }
  const base = median(list[0].times)
  console.log(`\n${title}: median ns per call`)
  console.log('| native plugin | ns | / default config |')
  console.log('| --- | ---: | ---: |')
  for (const variant of list) {
    const ns = median(variant.times)
    console.log(`| ${variant.name} | ${ns.toFixed(0)} | ${(ns / base).toFixed(2)} |`)
  }
}

console.log(`Node ${process.version}, ${ROUNDS} interleaved rounds`)
const small = JSON.stringify({ ...SMALL, task_progress: '- [x] read the file', meta: { retry: false } })
await table('~100 B, the same call again', variants(true), 20_000, () => JSON.parse(small))
await table('~100 B, each call new', variants(false), 20_000, (n) => ({ ...JSON.parse(small), limit: n }))
const tenKb = 'x'.repeat(10_000)
await table('~10 KB string, each call new', variants(false), 2_000, (n) => ({ path: 'src/a.ts', content: `${n}${tenKb}` }))
const big = 'x'.repeat(1 << 20)
await table('~1 MB string, each call new', variants(false), 20, (n) => ({ path: 'src/a.ts', content: `${n}${big}`, task_progress: `${n}` }))

// resume: rebuilding a chain from a session log of 1,000 calls since the last prompt.
const events = [{ seq: 0, type: 'user/message', data: { source: { kind: 'user' }, content: [] } }]
for (let i = 0; i < 1000; i++) {
  const callId = `c${i}`
  events.push({ seq: events.length, type: 'tool/call', data: { callId, name: 'grep', arguments: JSON.stringify({ ...SMALL, limit: i % 7 }) } })
  events.push({ seq: events.length, type: 'tool/result', data: { message: { content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: 'ok' }], isError: false }] } } })
}
const rebuilds = []
for (let round = 0; round < ROUNDS + 1; round++) {
  const restorer = new RepeatToolGuard({ resume: true })
  const start = process.hrtime.bigint()
  for (const { tool, args, result: r } of callsSinceLastPrompt(events)) restorer.restore('agent-1', tool, args, r)
  if (round > 0) rebuilds.push(Number(process.hrtime.bigint() - start) / 1e6)
}
console.log(`\nresume: a chain rebuilt from 1,000 logged calls in ${median(rebuilds).toFixed(2)} ms (median of ${ROUNDS})`)
