// Side-by-side comparison of two versions of encode.js (the JavaScript half of the hot path), for
// trying a change to the walk: node benchmark/encode-ab.mjs <a/encode.js> <b/encode.js>
// (paths relative to this directory, or absolute). Timings on a shared machine drift by a factor of
// two within minutes, so each round times both versions back to back (the order turning every
// round) on fresh deep-frozen copies, and what is printed is the median over 180 rounds of b's time
// divided by a's. The same file given twice gives 0.99-1.01. Not part of npm run bench.
import { SMALL, median, nested } from './cases.mjs'
import { deepFreeze } from '../__test__/support/listeners.mjs'

const [a, b] = process.argv.slice(2, 4)
if (!b) throw new Error('usage: node benchmark/encode-ab.mjs <a/encode.js> <b/encode.js>')
const versions = await Promise.all([a, b].map((file) => import(new URL(file, import.meta.url))))


const cases = [
  { name: '~100 B', args: SMALL, calls: 2000 },
  { name: '~10 KB nested', args: nested(10_000), calls: 20 },
  // A tool's output cut short, with its mark at the end: V8 keeps the text two bytes a unit.
  { name: '~2 KB text cut short', args: { text: `${'x'.repeat(2000)}… (1,234 more characters)` }, calls: 200 },
]

for (const { name, args, calls } of cases) {
  const json = JSON.stringify(args)
  const times = [[], []]
  const ratios = []
  for (let round = 0; round < 200; round++) {
    const copies = versions.map(() => Array.from({ length: calls }, () => deepFreeze(JSON.parse(json))))
    const ns = [0, 0]
    for (const i of round % 2 ? [1, 0] : [0, 1]) {
      const { encode, release } = versions[i]
      const start = process.hrtime.bigint()
      for (const copy of copies[i]) {
        if (!encode(copy, 'agent-0', 'grep', 1)) throw new Error(`${[a, b][i]} did not encode ${name}`)
        release()
      }
      ns[i] = Number(process.hrtime.bigint() - start) / calls
    }
    // The first rounds warm up.
    if (round < 20) continue
    times[0].push(ns[0])
    times[1].push(ns[1])
    ratios.push(ns[1] / ns[0])
  }
  console.log(`${name}: a ${median(times[0]).toFixed(0)} ns, b ${median(times[1]).toFixed(0)} ns, median b/a ${median(ratios).toFixed(3)}`)
}
