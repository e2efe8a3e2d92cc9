// Real traffic: the calls and results of the shared agent trajectories (shared/datasets/
// agent-trajectories beside the checkout, or TRAFFIC_DIR) driven through the plugin's tools/post-execute listener as the
// harness drives it (fresh deep-frozen arguments and a fresh result per call), in two shapes: one
// session at a time, and eight sessions interleaved call by call as agents of one process. Each
// with this plugin's defaults and `profile: 'recommended'`, and through the class (`observe`, which
// the hook and the framework adapters use), against the reference with its defaults.
//
// The calls run in chunks; each round times every side on the same chunk back to back, each from
// a collected heap, the order turning every round. The whole measurement runs three times: it
// prints the first run's median ns per call and median of the rounds' reference ÷ side ratios, the
// lowest and highest ratio of all runs, and each target, met when every run meets it. Without the shared folder it
// says so and runs on generated traffic of the same sizes (arguments ~400 B, results ~800 B on
// average): a smoke run only.
// Usage: node --expose-gc benchmark/traffic.mjs   (TRAFFIC_ROUNDS, 15; TRAFFIC_RUNS, 3; TRAFFIC_DIR)
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'

import * as reference from '@deepseek-ai/dsh-repeat-tool-reminder'
import * as plugin from '../index.js'
import { RepeatToolGuard } from '../lib/guard.js'
import { inTurn, median } from './cases.mjs'
import { deepFreeze, listenersOf } from '../__test__/support/listeners.mjs'
import { rng } from '../__test__/oracle.mjs'

const DIR = process.env.TRAFFIC_DIR ?? join(fileURLToPath(new URL('../..', import.meta.url)), 'shared', 'datasets', 'agent-trajectories')
const ROUNDS = Number(process.env.TRAFFIC_ROUNDS ?? 15)
const RUNS = Number(process.env.TRAFFIC_RUNS ?? 3)
const INTERLEAVED = 8
const CHUNK = 2500

/** Each trajectory's calls, in order: `{ tool, args (JSON text), text (the result's) }`; sessions without calls left out. */
function trajectories(dir) {
  const sessions = []
  for (const name of readdirSync(dir).filter((file) => file.endsWith('.jsonl.gz')).sort()) {
    for (const line of gunzipSync(readFileSync(join(dir, name))).toString('utf8').split('\n')) {
      if (line.trim() === '') continue
      const { messages } = JSON.parse(line)
      const results = new Map(messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, typeof m.content === 'string' ? m.content : JSON.stringify(m.content)]))
      const calls = messages.flatMap((m) => m.tool_calls ?? []).map((call) => ({ tool: call.function.name, args: call.function.arguments || '{}', text: results.get(call.id) ?? '' }))
      if (calls.length > 0) sessions.push(calls)
    }
  }
  return sessions
}

/** Generated sessions of the shared set's sizes, for a smoke run where it is absent. */
function generated() {
  const random = rng(1)
  const words = (n) => Array.from({ length: n }, () => ['path', 'src', 'test', 'value', 'error', 'file', 'line', 'def', 'return'][Math.floor(random() * 9)]).join(' ')
  return Array.from({ length: 850 }, () => Array.from({ length: 30 }, (_, i) => {
    const args = JSON.stringify({ command: `${words(8)} ${i % 5}`, path: `src/${words(2)}.py`, content: words(40) })
    return { tool: ['bash', 'edit', 'read'][i % 3], args, text: words(140) }
  }))
}

const real = existsSync(DIR)
const sessions = real ? trajectories(DIR) : generated()
if (!real) console.log(`traffic.mjs: ${DIR} is not here: generated traffic of the same sizes, for a smoke run only (the targets are judged on the shared set)`)

/** The calls in the order a shape makes them: `[agent, call]`. */
function order(shape) {
  if (shape === 'one at a time') return sessions.flatMap((calls, s) => calls.map((call) => [`s${s}`, call]))
  const out = []
  const slots = []
  let nextSession = 0
  const fill = (slot) => { slots[slot] = nextSession < sessions.length ? { s: nextSession, i: 0, calls: sessions[nextSession++] } : null }
  for (let slot = 0; slot < INTERLEAVED; slot++) fill(slot)
  while (slots.some(Boolean)) {
    for (let slot = 0; slot < INTERLEAVED; slot++) {
      const at = slots[slot]
      if (!at) continue
      out.push([`s${at.s}`, at.calls[at.i++]])
      if (at.i === at.calls.length) fill(slot)
    }
  }
  return out
}

const downstream = { kind: 'accept' }
const next = () => Promise.resolve(downstream)
const agents = new Map()
const agentOf = (id) => agents.get(id) ?? agents.set(id, { id }).get(id)

/** Fresh inputs for a chunk, as the loop makes them: parsed, deep-frozen arguments; a new result. */
const inputs = (chunk) => chunk.map(([id, call]) => [agentOf(id), call.tool, deepFreeze(JSON.parse(call.args)), { content: [{ type: 'text', text: call.text }], isError: false }])

async function timeListener(listener, prepared) {
  globalThis.gc?.()
  const start = process.hrtime.bigint()
  for (const [agent, name, args, result] of prepared) await listener({ name, agent, arguments: args }, result, next)
  return Number(process.hrtime.bigint() - start) / prepared.length
}

function timeClass(guard, prepared) {
  globalThis.gc?.()
  const start = process.hrtime.bigint()
  for (const [agent, name, args, result] of prepared) guard.observe(agent.id, name, args, result)
  return Number(process.hrtime.bigint() - start) / prepared.length
}

const calls = sessions.reduce((sum, s) => sum + s.length, 0)
// The targets: reference ÷ side at least this much.
const TARGETS = { defaults: 2, recommended: 1 }

/** One run of `shape`: per side, the median ns per call and the median of the rounds' reference ÷ side. */
async function run(shape) {
  const sequence = order(shape)
  const sides = {
    reference: { listener: listenersOf(reference, {})['tools/post-execute'] },
    defaults: { listener: listenersOf(plugin, {})['tools/post-execute'] },
    recommended: { listener: listenersOf(plugin, { profile: 'recommended' })['tools/post-execute'] },
    'class, defaults': { guard: new RepeatToolGuard({}) },
    'class, recommended': { guard: new RepeatToolGuard({ profile: 'recommended' }) },
  }
  const times = Object.fromEntries(Object.keys(sides).map((name) => [name, []]))
  // Round 0 warms up; each round takes the next chunk, so the rounds cover the traffic.
  for (let round = 0; round <= ROUNDS; round++) {
    const start = (round * CHUNK) % Math.max(1, sequence.length - CHUNK)
    const chunk = sequence.slice(start, start + CHUNK)
    for (const name of inTurn(sides, round)) {
      const prepared = inputs(chunk)
      const side = sides[name]
      const ns = side.listener ? await timeListener(side.listener, prepared) : timeClass(side.guard, prepared)
      if (round > 0) times[name].push(ns)
    }
  }
  return Object.fromEntries(Object.keys(sides).map((name) => {
    const ratios = times[name].map((ns, i) => times.reference[i] / ns)
    return [name, { ns: median(times[name]), ratio: median(ratios) }]
  }))
}

console.log(`traffic.mjs: Node ${process.version}, ${sessions.length} sessions, ${calls} calls${real ? ' (the shared trajectories)' : ''}; ${RUNS} runs of ${ROUNDS} rounds of ${CHUNK} calls; the first run's median ns per call and median of the rounds' reference ÷ side, then the lowest and highest of every run's`)
console.log('| shape | side | ns per call | reference ÷ side | over the runs | target |')
console.log('| --- | --- | ---: | ---: | ---: | --- |')
for (const shape of ['one at a time', `${INTERLEAVED} interleaved`]) {
  const runs = []
  for (let i = 0; i < RUNS; i++) runs.push(await run(shape))
  for (const [name, { ns, ratio }] of Object.entries(runs[0])) {
    const all = runs.map((r) => r[name].ratio)
    const spread = `${Math.min(...all).toFixed(2)}–${Math.max(...all).toFixed(2)}×`
    const target = TARGETS[name] === undefined ? '' : `>= ${TARGETS[name]}×: ${all.every((r) => r >= TARGETS[name]) ? 'met' : 'not met'}`
    console.log(`| ${shape} | ${name} | ${ns.toFixed(0)} | ${name === 'reference' ? '1.00' : ratio.toFixed(2)}× | ${name === 'reference' ? '' : spread} | ${target} |`)
  }
}
