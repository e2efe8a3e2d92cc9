// The seeded script: what each agent's model calls in each turn, with which arguments, which
// faults strike, and how the turn ends. Every context of a lane replays the same plans.
import { rng } from '../__test__/oracle.mjs'

export { rng }

// todo_write is excluded in every config (transparent to chains); poll's results change.
export const TOOLS = ['probe', 'grep', 'read', 'edit', 'todo_write', 'poll']
const ODD_KEYS = ['', 'constructor', 'toString', '\\ud800', '\\udc00x', '01', '1', '-0', '😀', 'e\\u0301', '\\u0000', '\\"', '\\\\', '\\u2028']
const ODD_NUMBERS = ['1e400', '-0', '1.0', '9007199254740993', '5e-324', '1E2', '0.1', '-1e-7']

const pick = (next, list) => list[Math.floor(next() * list.length)]
const int = (next, lo, hi) => lo + Math.floor(next() * (hi - lo + 1))

/**
 * Raw argument text, hostile or plain: what a model might send (the loop parses it). `proto`: own
 * "__proto__" keys too, where this plugin differs from the reference on purpose (README, Known limits).
 */
export function randomArguments(next, proto = false) {
  const oddKeys = proto ? ['__proto__', ...ODD_KEYS] : ODD_KEYS
  const r = next()
  if (r < 0.04) { // deep
    const depth = int(next, 50, 600)
    return next() < 0.5 ? `${'['.repeat(depth)}0${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}null${'}'.repeat(depth)}`
  }
  if (r < 0.07) { // wide, odd keys included
    const width = int(next, 50, 800)
    const keys = Array.from({ length: width }, (_, i) => (i < oddKeys.length && next() < 0.5 ? oddKeys[i] : `k${int(next, 0, 5000)}`))
    return `{${keys.map((k, i) => `"${k}":${i % 3 ? i : `"v${i}"`}`).join(',')}}`
  }
  if (r < 0.09) { // large string, some astral and lone-surrogate units
    const length = int(next, 1000, 48_000)
    const unit = pick(next, ['x', 'é', '😀', '\\ud800', '\\n'])
    return `{"path":"big","s":"${unit.repeat(Math.ceil(length / 2))}"}`
  }
  if (r < 0.12) { // odd keys and numbers
    return `{${Array.from({ length: int(next, 1, 6) }, () => `"${pick(next, oddKeys)}":${pick(next, ODD_NUMBERS)}`).join(',')}}`
  }
  if (r < 0.13) return 'raw {not json'
  if (r < 0.15) return ''
  return `{"q":"${pick(next, ['a', 'b', 'c', 'main', 'TODO'])}","n":${int(next, 0, 3)}${next() < 0.3 ? `,"opts":{"z":1,"a":[1,{"y":2,"b":null}]}` : ''}}`
}

/** The same value written differently (keys in another order, spacing): the same call to the guard. */
export function rewritten(json, next) {
  if (!json.startsWith('{') || json.length > 4000 || next() < 0.5) return json
  try {
    const value = JSON.parse(json)
    if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.hasOwn(value, '__proto__')) return json
    const keys = Object.keys(value).reverse()
    return `{ ${keys.map((k) => `${JSON.stringify(k)} : ${JSON.stringify(value[k])}`).join(' , ')} }`
  } catch {
    return json
  }
}

/** One near miss: the same call but one value changed. */
function nearMiss(json) {
  return json.startsWith('{"q"') ? json.replace('"n":', '"n":1') : `{"near":${JSON.stringify(json.slice(0, 200))}}`
}

/**
 * One agent's turn. `agent.pool` (kept across turns) holds calls the model keeps coming back to, so
 * runs continue across turns that a plugin follow-up opens. Returns
 * `{ kind, recreate, steps: [[call, ...], ...], end, sub }`, each call `{ tool, json, fault, output }`.
 * `gate`: one call waits at a gate (the plugin is reloaded there), no other faults.
 */
export function planTurn(next, agent, { gate = false, subagents = true, proto = false } = {}) {
  if (!agent.pool || next() < 0.1) agent.pool = Array.from({ length: 3 }, () => ({ tool: pick(next, TOOLS), json: randomArguments(next, proto) }))
  const steps = []
  const length = int(next, 1, 7)
  while (steps.length < length) {
    const r = next()
    const base = next() < 0.8 ? pick(next, agent.pool) : { tool: pick(next, TOOLS), json: randomArguments(next, proto) }
    if (r < 0.45) { // a run of the same call, written the same or differently
      for (let i = int(next, 2, 10); i > 0; i--) steps.push([{ tool: base.tool, json: rewritten(base.json, next) }])
      if (next() < 0.2) steps.push([{ tool: base.tool, json: nearMiss(base.json) }])
    } else if (r < 0.6) { // a cycle of two or three calls
      const block = [base, ...Array.from({ length: int(next, 1, 2) }, () => pick(next, agent.pool))]
      for (let i = int(next, 2, 4); i > 0; i--) for (const call of block) steps.push([{ tool: call.tool, json: call.json }])
    } else if (r < 0.7) { // an excluded bookkeeping call inside a run
      steps.push([base], [{ tool: 'todo_write', json: '{"items":[1]}' }], [base])
    } else if (r < 0.8) { // polling: same call, results that change and then settle
      const settle = int(next, 0, 4)
      for (let i = 0; i < int(next, 3, 8); i++) steps.push([{ tool: 'poll', json: '{"job":7}', output: `progress ${Math.min(i, settle)}` }])
    } else if (r < 0.84) { // a tool failing the same way for a few paths, some tried again (a counter in its message)
      const tool = pick(next, ['read', 'edit'])
      for (let i = int(next, 2, 5); i > 0; i--) steps.push([{ tool, json: `{"path":"missing-${int(next, 0, 3)}"}`, output: `Error: no such file or directory (errno ${int(next, 1, 9)})` }])
    } else if (r < 0.9) { // two calls in one response, the same one twice or another
      steps.push([{ ...base }, next() < 0.5 ? { ...base } : { tool: pick(next, TOOLS), json: randomArguments(next, proto) }])
    } else {
      steps.push([{ ...base }])
    }
  }
  // Agents are re-created under the same id now and then, and always after a few turns: the
  // harness rebuilds each request from the whole session, so long sessions only cost time.
  agent.turns = (agent.turns ?? 0) + 1
  const recreate = next() < 0.05 || agent.turns > 2
  if (recreate) agent.turns = 0
  // Each call its own object: the pool's are shared between steps and turns.
  const own = steps.map((step) => step.map(({ tool, json, output }) => ({ tool, json, output, fault: null })))
  const plan = { kind: next() < 0.3 ? 'user' : 'plugin', recreate, steps: own, end: 'say', sub: null }
  const calls = own.flat()
  // A call whose arguments are not an object fails validation before the tool runs (its error
  // result still goes through tools/post-execute): a hanging tool needs arguments that are one.
  // The gate and the hanging listener get the same, so that each stops where it is meant to.
  if (gate) {
    Object.assign(pick(next, own)[0], { fault: 'gate', json: '{"q":"gate"}' })
    return plan
  }
  const f = next()
  if (f < 0.03) pick(next, calls).fault = 'post-throw'
  else if (f < 0.06) pick(next, calls).fault = 'post-reject'
  else if (f < 0.1) pick(next, calls).fault = 'tool-throw'
  else if (f < 0.16) {
    // The turn's last call hangs (in the tool, or in a downstream listener) until the turn is
    // cancelled or the agent disposed.
    const last = own.at(-1)
    last.length = 1
    Object.assign(last[0], { fault: next() < 0.5 ? 'tool-hang' : 'post-hang', json: '{"q":"hang"}' })
    plan.end = next() < 0.5 ? 'cancel' : 'dispose'
  }
  if (subagents && plan.end === 'say' && next() < 0.05) plan.sub = planTurn(next, {}, { subagents: false, proto })
  return plan
}
