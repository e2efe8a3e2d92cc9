// An agent's traffic, not one call: a seeded sequence of 10,000 tool calls through both plugins'
// tools/post-execute listeners, in one process. Most calls are new; about one in ten repeats the
// same agent's last call; sizes run from ~50 B to ~50 KB, spread evenly on a log scale, as tool
// arguments come (a read or a grep is small, an edit or a todo list middling, a written file large),
// and a few are ~1 MB file writes. Several agents take turns, as subagents do.
//
// The sequence runs in chunks of CHUNK calls; each chunk times both sides back to back on fresh
// deep-frozen copies (the side that goes first turning every chunk), each from a collected heap, so
// both see the same machine. It prints each side's total time per 10,000 calls (the median over the
// passes) and the median of each pass's reference ÷ native. TRAFFIC_PASSES sets the passes (5),
// TRAFFIC_SEED the sequence (1). Run: node --expose-gc benchmark/traffic.mjs (part of npm run bench).
import * as reference from '@deepseek-ai/dsh-repeat-tool-reminder'
import * as guard from '../index.js'
import { median } from './cases.mjs'
import { deepFreeze, listenersOf } from '../__test__/support/listeners.mjs'
import { rng } from '../__test__/oracle.mjs'

const CALLS = 10_000
const CHUNK = 250
const PASSES = Number(process.env.TRAFFIC_PASSES ?? 5)
const SEED = Number(process.env.TRAFFIC_SEED ?? 1)
const REPEATS = 0.1
const WRITES_1MB = 0.001

const random = rng(SEED)
const pick = (list) => list[Math.floor(random() * list.length)]
const WORDS = ['const', 'return', 'function', 'if', 'await', 'value', 'index', 'result', 'error', 'config',
  'export', 'import', 'from', 'the', 'agent', 'tool', 'call', 'next', '=>', '{', '}', '(', ')', ';', 'let',
  'for', 'of', 'null', 'true', 'string', 'number', 'é', '–']
const path = () => `src/${pick(['lib', 'core', 'app', 'test'])}/${pick(['index', 'guard', 'chain', 'util', 'api'])}-${Math.floor(random() * 500)}.${pick(['ts', 'js', 'rs', 'md'])}`

/** About `length` characters of code-like text, lines of words. */
function text(length) {
  const parts = []
  let size = 0
  while (size < length) {
    const word = random() < 0.08 ? '\n' : `${pick(WORDS)} `
    parts.push(word)
    size += word.length
  }
  return parts.join('')
}

/** Arguments of about `bytes` bytes of JSON, shaped as the tool that would take them. */
function argumentsOf(bytes) {
  if (bytes < 200) {
    return pick([
      () => ['read_file', { path: path(), offset: Math.floor(random() * 400), limit: 200 }],
      () => ['grep', { pattern: text(Math.max(4, bytes - 90)).trim(), path: path(), flags: ['-n'], limit: 50 }],
      () => ['bash', { command: `npm test -- ${text(Math.max(4, bytes - 70)).trim()}`, timeout: 120000 }],
    ])()
  }
  if (bytes < 5000 || random() < 0.4) {
    return pick([
      () => ['edit', { path: path(), old_string: text(bytes * 0.45), new_string: text(bytes * 0.45) }],
      () => ['todo_write', {
        todos: Array.from({ length: Math.max(1, Math.round(bytes / 90)) }, (_, i) => ({
          id: String(i + 1), content: text(40).trim(), status: pick(['pending', 'in_progress', 'completed']), priority: pick(['high', 'medium', 'low']),
        })),
      }],
      () => ['bash', { command: text(bytes - 60), description: 'run it', timeout: 600000 }],
    ])()
  }
  return ['write_file', { path: path(), content: text(bytes - 40) }]
}

/** The sequence: [agent index, tool name, arguments' JSON] per call, and what it holds. */
function sequence() {
  const calls = []
  const last = new Map()
  const counts = { repeats: 0, large: 0 }
  for (let i = 0; i < CALLS; i++) {
    // The main agent makes most calls; three subagents take turns with it.
    const agent = random() < 0.7 ? 0 : 1 + Math.floor(random() * 3)
    let call
    if (last.has(agent) && random() < REPEATS) {
      call = last.get(agent)
      counts.repeats++
    } else if (random() < WRITES_1MB) {
      call = ['write_file', JSON.stringify({ path: path(), content: text(1 << 20) })]
      counts.large++
    } else {
      // 50 B to 50 KB, even on a log scale.
      const [tool, args] = argumentsOf(Math.round(50 * 1000 ** random()))
      call = [tool, JSON.stringify(args)]
    }
    last.set(agent, call)
    calls.push([agent, ...call])
  }
  return { calls, counts }
}

const { calls, counts } = sequence()
const sizes = calls.map(([, , json]) => json.length)
const agents = Array.from({ length: 4 }, (_, i) => ({ id: `agent-${i}` }))
const downstream = { kind: 'accept' }
const next = () => Promise.resolve(downstream)
const sides = [guard, reference].map((plugin) => listenersOf(plugin, {})['tools/post-execute'])

/** ns that `listener` takes over `copies` of calls `from`…, from a collected heap. */
async function run(listener, copies, from) {
  globalThis.gc?.()
  const start = process.hrtime.bigint()
  for (let i = 0; i < copies.length; i++) {
    const [agent, name] = calls[from + i]
    await listener({ name, agent: agents[agent], arguments: copies[i] }, {}, next)
  }
  return Number(process.hrtime.bigint() - start)
}

const totals = [[], []]
const ratios = []
for (let pass = 0; pass <= PASSES; pass++) {
  const ns = [0, 0]
  for (let from = 0, chunk = 0; from < CALLS; from += CHUNK, chunk++) {
    const copiesOf = () => calls.slice(from, from + CHUNK).map(([, , json]) => deepFreeze(JSON.parse(json)))
    const copies = [copiesOf(), copiesOf()]
    for (const side of (pass + chunk) % 2 ? [1, 0] : [0, 1]) ns[side] += await run(sides[side], copies[side], from)
  }
  // The first pass warms up.
  if (pass === 0) continue
  totals[0].push(ns[0] / 1e6)
  totals[1].push(ns[1] / 1e6)
  ratios.push(ns[1] / ns[0])
}

const kb = (n) => `${(n / 1000).toFixed(1)} KB`
console.log(`Node ${process.version}: an agent's traffic, ${CALLS.toLocaleString('en')} calls (seed ${SEED}): ` +
  `${CALLS - counts.repeats} new, ${counts.repeats} repeats, ${counts.large} of ~1 MB; median ${kb(median(sizes))}, ` +
  `${(sizes.reduce((a, b) => a + b, 0) / 1e6).toFixed(1)} MB of JSON in all; ${PASSES} passes`)
console.log('| plugin | ms per 10,000 calls |')
console.log('| --- | ---: |')
console.log(`| native | ${median(totals[0]).toFixed(1)} |`)
console.log(`| reference | ${median(totals[1]).toFixed(1)} |`)
console.log(`reference ÷ native, the median of the passes' ratios: ${median(ratios).toFixed(2)}×`)
