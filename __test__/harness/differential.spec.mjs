// Seeded differential fuzzing at the listener level: the same random streams of tool calls,
// prompts, follow-ups and disposals through this plugin's listeners and the reference's
// (@deepseek-ai/dsh-repeat-tool-reminder@0.1.0-rc.8); every post-execute decision must be equal
// (message ids ignored, the plugin name mapped). FUZZ_CALLS=N runs longer; FUZZ_SEED=S replays.
import test from 'ava'
import * as reference from '@deepseek-ai/dsh-repeat-tool-reminder'
import * as guard from '../../index.js'
import { randomJson, rng } from '../oracle.mjs'
import { deepFreeze, listenersOf } from '../support/listeners.mjs'

const CALLS = Number(process.env.FUZZ_CALLS ?? 100_000)
const SEED = Number(process.env.FUZZ_SEED ?? 20261129)
// Names with lone surrogates, U+FFFD and halves of a pair: keyed and matched by code unit.
const TOOLS = ['grep', 'read', 'todo_write', 'mcp_fs.get', 'a?b', 'x[1]', 'run{a,b}', 'back\\slash', 'tool*', 'x\uD800', 'x\uDBFF', 'x\uFFFD', 'a😀', '\uDE00a\uD83D']
const PATTERNS = ['grep', 'read*', '*', 'mcp_*', 'mcp_fs.get', 'mcp_fs?get', 'a?b', 'x[1]', 'run{a,b}', 'back\\slash', 'tool*', '*_write', '.*', '^grep$', 'g*p', 'x\uD800', 'x\uFFFD', 'x*', 'a*\uDE00', '*\uD83D', '\uDE00*']
// Agent ids: plain ones, or ones told apart only by a lone surrogate (or U+FFFD).
const AGENT_IDS = [['agent-0', 'agent-1', 'agent-2'], ['a\uD800', 'a\uDBFF', 'a\uFFFD']]

/** Same value, properties inserted in reverse order: must canonicalize identically. */
function reordered(value) {
  if (Array.isArray(value)) return value.map(reordered)
  if (value !== null && typeof value === 'object') {
    const copy = {}
    for (const key of Object.keys(value).reverse()) copy[key] = reordered(value[key])
    return copy
  }
  return value
}

function withoutProto(value) {
  return JSON.parse(JSON.stringify(value, (key, v) => (key === '__proto__' ? undefined : v)))
}

function randomConfig(next) {
  const pick = (list) => list[Math.floor(next() * list.length)]
  const thresholds = [...new Set(Array.from({ length: 1 + Math.floor(next() * 4) }, () => 2 + Math.floor(next() * 6)))]
  const patterns = () => Array.from({ length: Math.floor(next() * 3) }, () => pick(PATTERNS))
  const cap = next() < 0.7 ? 1 + Math.floor(next() * 40) : pick([500, 10_000])
  return { thresholds, include: next() < 0.3 ? patterns() : [], exclude: next() < 0.5 ? patterns() : [], argumentsPreviewChars: cap }
}

function randomArguments(next, cap) {
  const r = next()
  if (r < 0.15) {
    // Strings around the preview cap, with astral characters that a cut may split.
    const length = Math.max(0, cap - 8 + Math.floor(next() * 16))
    return { s: Array.from({ length }, () => (next() < 0.3 ? '😀' : 'x')).join('').slice(0, length) }
  }
  if (r < 0.2) return 'raw {not json'
  return withoutProto(randomJson(next))
}

function normalize(decision) {
  return JSON.parse(JSON.stringify(decision, (key, value) => {
    if (key === 'id') return '<id>'
    if (key === 'plugin' && (value === guard.name || value === reference.name)) return '<guard>'
    return value
  }))
}

function randomDownstream(next) {
  const r = next()
  const context = { role: 'user', id: 'inner', content: [{ type: 'text', text: 'inner' }], source: { kind: 'plugin', plugin: 'inner', form: 'notice', summary: 'inner' } }
  if (r < 0.6) return { kind: 'accept' }
  if (r < 0.8) return { kind: 'accept', additionalContexts: [context] }
  return { kind: 'block', feedback: [{ type: 'text', text: 'blocked' }], additionalContexts: r < 0.9 ? [context] : undefined }
}

test(`differential fuzzing against the reference: ${CALLS} calls with identical decisions`, async (t) => {
  const next = rng(SEED)
  let calls = 0
  let reminders = 0
  while (calls < CALLS) {
    const config = randomConfig(next)
    const ours = listenersOf(guard, config)
    const theirs = listenersOf(reference, config)
    const ids = AGENT_IDS[next() < 0.7 ? 0 : 1]
    const agents = Array.from({ length: 1 + Math.floor(next() * 3) }, (_, i) => ({ id: ids[i] }))
    const pool = Array.from({ length: 3 }, () => [TOOLS[Math.floor(next() * TOOLS.length)], randomArguments(next, config.argumentsPreviewChars)])
    for (let step = 0; step < 200 && calls < CALLS; step++) {
      const slot = Math.floor(next() * agents.length)
      const agent = agents[slot]
      const r = next()
      if (r < 0.03) {
        const source = next() < 0.5 ? { kind: 'user' } : { kind: 'plugin', plugin: 'other' }
        const payload = { agent, messages: [{ role: 'user', source, content: [] }] }
        await ours['agent/pre-step'](payload, () => Promise.resolve({ kind: 'continue' }))
        await theirs['agent/pre-step'](payload, () => Promise.resolve({ kind: 'continue' }))
        continue
      }
      if (r < 0.04) {
        // The reference keys chains by agent object: a disposed agent comes back as a new object.
        ours['agent/disposed']({ agent })
        agents[slot] = { id: agent.id }
        continue
      }
      const [tool, args] = next() < 0.85 ? pool[Math.floor(next() * pool.length)] : [TOOLS[Math.floor(next() * TOOLS.length)], randomArguments(next, config.argumentsPreviewChars)]
      const variant = next() < 0.5 ? args : reordered(args)
      const downstream = randomDownstream(next)
      // A few calls come without an agent, like a direct ctx.tools.execute().
      const withAgent = next() < 0.98 ? agent : undefined
      const ourExec = { name: tool, agent: withAgent, arguments: deepFreeze(structuredClone(variant)) }
      const theirExec = { name: tool, agent: withAgent, arguments: deepFreeze(structuredClone(variant)) }
      const a = normalize(await ours['tools/post-execute'](ourExec, {}, () => Promise.resolve(structuredClone(downstream))))
      const b = normalize(await theirs['tools/post-execute'](theirExec, {}, () => Promise.resolve(structuredClone(downstream))))
      calls++
      if ((a.additionalContexts?.length ?? 0) > (downstream.additionalContexts?.length ?? 0)) reminders++
      if (JSON.stringify(a) !== JSON.stringify(b)) {
        t.log({ seed: SEED, call: calls, config, tool, args: variant })
        t.deepEqual(a, b)
        return
      }
    }
  }
  t.log(`${calls} calls, ${reminders} reminders, identical decisions (seed ${SEED})`)
  t.true(reminders > calls / 50, 'the streams reach thresholds often enough to compare reminders')
})
