// The opt-in features against the default path, through the plugin's tools/post-execute
// listener, same process, interleaved rounds, fresh frozen ~100 B arguments per call. With
// BASELINE_DIR set to a built checkout without the features (a revision before the
// features), the same default-config call of that build runs alongside: the ratio shows what the
// features cost while disabled.
import { pathToFileURL } from 'node:url'
import * as guard from '../index.js'
import { SMALL, median } from './cases.mjs'
import { deepFreeze, listenersOf } from '../__test__/support/listeners.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const PER_ROUND = 20_000
const json = JSON.stringify(SMALL)
const result = deepFreeze({ content: [{ type: 'text', text: 'src/a.ts:1: TODO' }], isError: false })

const variants = [{ name: 'default config', plugin: guard, config: {} }]
if (process.env.BASELINE_DIR) {
  const baseline = await import(pathToFileURL(`${process.env.BASELINE_DIR}/index.js`).href)
  variants.push({ name: `default config, ${process.env.BASELINE_LABEL ?? 'baseline'}`, plugin: baseline, config: {} })
}
// Settings that are on but never fire here, so every variant does the same no-reminder work.
variants.push(
  { name: 'cycles { maxPeriod: 5, repeats: 2 }', plugin: guard, config: { cycles: { maxPeriod: 5, repeats: 2 } } },
  { name: 'sameResultOnly', plugin: guard, config: { sameResultOnly: true } },
  { name: 'overrides (one entry, other tool)', plugin: guard, config: { overrides: [{ tools: ['read*'], thresholds: [2] }] } },
  { name: 'repeatEvery: 4', plugin: guard, config: { repeatEvery: 4 } },
)
for (const variant of variants) {
  // Thresholds past any run here: the call that fires is not what this measures.
  variant.listener = listenersOf(variant.plugin, { thresholds: [1e9], ...variant.config })['tools/post-execute']
  variant.times = []
}

const downstream = { kind: 'accept' }
const next = () => Promise.resolve(downstream)
const agent = { id: 'agent-1' }

for (let round = 0; round < ROUNDS + 1; round++) {
  // The order of the variants turns from round to round.
  for (let i = 0; i < variants.length; i++) {
    const variant = variants[(i + round) % variants.length]
    const copies = Array.from({ length: PER_ROUND }, () => deepFreeze(JSON.parse(json)))
    globalThis.gc?.() // run.sh passes --expose-gc: each variant starts from a collected heap
    const start = process.hrtime.bigint()
    for (const args of copies) await variant.listener({ name: 'grep', agent, arguments: args }, result, next)
    if (round > 0) variant.times.push(Number(process.hrtime.bigint() - start) / PER_ROUND) // round 0 warms up
  }
}

const base = median(variants[0].times)
console.log(`Node ${process.version}, ${ROUNDS} interleaved rounds, ~100 B calls, median ns per call`)
console.log('| native plugin | ns | / default config |')
console.log('| --- | ---: | ---: |')
for (const variant of variants) {
  const ns = median(variant.times)
  console.log(`| ${variant.name} | ${ns.toFixed(0)} | ${(ns / base).toFixed(2)} |`)
}
