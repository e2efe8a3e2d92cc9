// The WebAssembly (WASI) build against the native build and the TypeScript reference, all three
// through their plugin's tools/post-execute listener in one process, in interleaved rounds (the
// order turning every round), a fresh deep-frozen copy of the arguments for every call. The WASI
// build is a second copy of the package (index.js, lib/, binding.cjs) loaded with
// NAPI_RS_FORCE_WASI=error, beside the native one. Prints median ns per call and the median over
// the rounds of each round's WASI / native and reference / WASI ratios. Needs the WASI build in
// npm/wasm32-wasi/ (npm run build:all -- wasm32-wasip1-threads). Run: npm run bench
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import * as reference from '@deepseek-ai/dsh-repeat-tool-reminder'
import * as native from '../index.js'
import { SMALL, callsPerRound, measure, median, nested } from './cases.mjs'
import { deepFreeze, listenersOf } from '../__test__/support/listeners.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const wasiDir = join(root, 'npm', 'wasm32-wasi')
if (!existsSync(join(wasiDir, 'repeat-tool-guard.wasm32-wasi.wasm'))) {
  console.log(`WASI build: skipped (no ${join(wasiDir, 'repeat-tool-guard.wasm32-wasi.wasm')}; npm run build:all -- wasm32-wasip1-threads makes it)`)
  process.exit(0)
}

// The copy: what npm publishes, the WASI loader beside binding.cjs (where it looks first), and
// this checkout's node_modules.
const copy = mkdtempSync(join(tmpdir(), 'rtg-bench-wasi-'))
process.on('exit', () => rmSync(copy, { recursive: true, force: true }))
const { files } = createRequire(import.meta.url)('../package.json')
for (const file of ['package.json', ...files]) cpSync(join(root, file), join(copy, file), { recursive: true })
for (const file of ['repeat-tool-guard.wasi.cjs', 'repeat-tool-guard.wasm32-wasi.wasm', 'wasi-worker.mjs']) cpSync(join(wasiDir, file), join(copy, file))
symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir')
const forced = process.env.NAPI_RS_FORCE_WASI
process.env.NAPI_RS_FORCE_WASI = 'error'
const wasi = await import(pathToFileURL(join(copy, 'index.js')).href)
if (forced === undefined) delete process.env.NAPI_RS_FORCE_WASI
else process.env.NAPI_RS_FORCE_WASI = forced
const targetOf = (dir) => createRequire(join(dir, 'index.js'))('./binding.cjs').__napiBindingTarget
if (targetOf(copy) !== 'wasm32-wasi' || targetOf(root) !== 'native') throw new Error(`loaded ${targetOf(copy)} and ${targetOf(root)}, not wasm32-wasi and native`)

const ROUNDS = process.env.BENCH_ROUNDS === undefined ? undefined : Number(process.env.BENCH_ROUNDS)
const ONLY = process.env.BENCH_CASES?.split(',')
const cases = [
  { name: '~100 B', args: SMALL, rounds: 20 },
  { name: '~10 KB nested', args: nested(10_000), rounds: 12 },
  { name: '~1 MB string', args: { path: 'out.txt', content: 'x'.repeat(1 << 20) }, rounds: 6 },
  { name: 'reminder call (~100 B)', args: { pattern: 'TODO' }, config: { thresholds: [2, 3] }, reminder: true, rounds: 20 },
]


console.log(`Node ${process.version}, the WASI build: median ns per call, and the median of the rounds' ratios, over interleaved rounds`)
console.log('| case | rounds | native ns | WASI ns | reference ns | WASI / native | reference / WASI |')
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |')
for (const c of cases.filter((c) => !ONLY || ONLY.some((word) => c.name.includes(word)))) {
  const json = JSON.stringify(c.args)
  // A tenth of bench.mjs' calls per round: the WASI build is the slow side.
  const perRound = Math.max(5, Math.floor(callsPerRound(json) / 10))
  const sides = [native, wasi, reference].map((plugin) => listenersOf(plugin, c.config ?? {})['tools/post-execute'])
  const agents = Array.from({ length: 4 }, (_, i) => ({ id: `agent-${i}` }))
  const agent = c.reminder ? (i) => agents[Math.floor(i / 3) % 4] : () => agents[0]
  const times = [[], [], []]
  const wasiNative = []
  const referenceWasi = []
  const rounds = ROUNDS ?? c.rounds
  for (let round = 0; round < rounds + 1; round++) {
    const copies = sides.map(() => Array.from({ length: perRound }, () => deepFreeze(JSON.parse(json))))
    const t = []
    // The order turns every round: each side goes first, second and third equally often.
    for (let k = 0; k < 3; k++) {
      const side = (round + k) % 3
      t[side] = await measure(sides[side], copies[side], agent)
    }
    if (round > 0) {
      t.forEach((value, side) => times[side].push(value))
      wasiNative.push(t[1] / t[0])
      referenceWasi.push(t[2] / t[1])
    }
  }
  const [n, w, r] = times.map(median)
  console.log(`| ${c.name} | ${rounds} | ${n.toFixed(0)} | ${w.toFixed(0)} | ${r.toFixed(0)} | ${median(wasiNative).toFixed(2)}× | ${median(referenceWasi).toFixed(2)}× |`)
}
process.exit(0)
