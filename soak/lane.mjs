// One lane of the soak: a set of harness contexts in this thread (the reference plugin in one,
// this plugin in the others, opt-in features in some), the same agents in each, and rounds in
// which every agent takes a turn from the same seeded plan in every context at once. After each
// turn the contexts' transcripts are compared; every call's reminder is compared with the model's.
import { Context } from '@deepseek-ai/cordis'
import LlmRuntime, { LlmAdapter, CallId, createUserMessage } from '@deepseek-ai/dsh-llm'
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session'
import SystemPrompt from '@deepseek-ai/dsh-system-prompt'
import ToolRuntime, { defineContentToolFixture } from '@deepseek-ai/dsh-tools'
import AgentRegistry from '@deepseek-ai/dsh-agent'
import AgentLoop from '@deepseek-ai/dsh-agent-loop'
import * as reference from '@deepseek-ai/dsh-repeat-tool-reminder'
import * as guard from '../index.js'
import { GuardModel } from './model.mjs'
import { TOOLS, planTurn, rng } from './plan.mjs'
import { plantDrop, plantLeak } from './plant.mjs'

const BASE = { thresholds: [3, 5, 8], exclude: ['todo_write'] }
/** The contexts of a lane: the reference's, the guard's with the same config, and opt-in ones. */
export const CONTEXTS = [
  { name: 'ref', plugin: reference, config: BASE, compare: 'exact' },
  { name: 'guard', plugin: guard, config: BASE, compare: 'exact' },
  // `share`: the share of the lane's agents (the first slots) that a context has; the harness's
  // own work per agent is what limits the soak's pace.
  { name: 'opt-cycles', plugin: guard, config: { thresholds: [3, 6], exclude: ['todo_write'], cycles: { maxPeriod: 3, repeats: 2 }, overrides: [{ tools: ['poll', 'e*t'], thresholds: [4, 7] }], repeatEvery: 2 }, compare: 'calls', share: 0.5 },
  { name: 'opt-results', plugin: guard, config: { thresholds: [2, 4], exclude: ['todo_write'], sameResultOnly: true, cycles: { maxPeriod: 2, repeats: 3 } }, compare: 'calls', share: 0.5 },
  // ignoreArguments and similar: the plan's `n` and `opts.z` left out, near-identical calls reminded.
  { name: 'opt-near', plugin: guard, config: { thresholds: [3, 5], exclude: ['todo_write'], ignoreArguments: [{ tools: ['*'], keys: ['n', 'opts.z'] }], similar: { minCalls: 2, similarity: 0.6 }, resume: true }, compare: 'calls', share: 0.25 },
  // noProgress and failures: polls that settle, runs of the same call and failing calls, by their
  // results; perResponse: the same call twice in one response counted once.
  { name: 'opt-progress', plugin: guard, config: { thresholds: [4, 8], exclude: ['todo_write'], noProgress: { minCalls: 3, window: 8 }, failures: { minCalls: 2, window: 6 }, perResponse: true }, compare: 'calls', share: 0.25 },
  // clear() runs on this guard between other contexts' calls.
  { name: 'clear', plugin: guard, config: BASE, compare: 'calls', clearing: true, share: 0.25 },
]
// Generous: on a loaded machine a gate round (every agent waits for the slowest) takes minutes.
const TURN_LIMIT_MS = Number(process.env.SOAK_TURN_LIMIT_MS ?? 300_000)
const GUARD_PLUGIN = new Set([guard.name, reference.name])

/** A model whose responses the lane queues before each turn. */
class QueuedModel extends LlmAdapter {
  queue = []
  resolveModel(provider, model) {
    return Promise.resolve({ provider, id: model, name: model })
  }

  async * stream() {
    const response = this.queue.shift()
    if (!response) throw new Error('soak model: no response queued')
    for (const chunk of response) yield chunk
  }
}

function response(calls) {
  const chunks = []
  calls.forEach((call, index) => {
    const id = CallId(call.id)
    chunks.push({ type: 'block-start', index, blockType: 'tool-call' })
    chunks.push({ type: 'tool-call-delta', index, id, name: call.tool, argumentsDelta: call.json })
    chunks.push({ type: 'block-end', index, block: { type: 'tool-call', id, name: call.tool, arguments: call.json } })
  })
  chunks.push({ type: 'usage', usage: { inputTokens: 10, outputTokens: 5 } }, { type: 'finish', reason: { kind: 'tool-calls' } })
  return chunks
}

function say(text) {
  return [
    { type: 'block-start', index: 0, blockType: 'text' },
    { type: 'text-delta', index: 0, text },
    { type: 'block-end', index: 0, block: { type: 'text', text } },
    { type: 'usage', usage: { inputTokens: 10, outputTokens: 1 } },
    { type: 'finish', reason: { kind: 'stop' } },
  ]
}

const aborted = (signal) => new Promise((resolve) => {
  if (signal.aborted) resolve()
  else signal.addEventListener('abort', resolve, { once: true })
})

/**
 * A transcript as the model sees it, normalized: ids, times and the plugin's name left out.
 * `calls`: only the calls and the tools' results, for contexts whose reminders differ by design.
 */
function normalize(events, mode) {
  const kept = mode === 'calls'
    ? events.filter((e) => e.type === 'tool/call' || e.type === 'tool/result').map((e) => ({ type: e.type, data: e.data }))
    : events
  return JSON.stringify(kept, (key, value) => {
    if (key === 'id' || key === 'timestamp' || key === 'time' || key === 'ts' || key === 'createdAt' || key === 'durationMs') return undefined
    if (key === 'plugin' && GUARD_PLUGIN.has(value)) return '<guard>'
    return value
  })
}

/**
 * Runs one lane: `rounds` rounds, or (without `rounds`) rounds until `deadline` (a time in ms). `flavour`: 'guard', or
 * 'baseline' (no guard plugin loaded anywhere: the same load for the harness alone). `log(figures)` after each round;
 * `finished()` is awaited after the last round, before every agent is disposed. Returns the lane's figures and deviations.
 */
export async function runLane({ lane, seed, agents: agentCount, rounds, deadline, flavour, plant, log = () => {}, finished = async () => {} }) {
  const next = rng(seed + lane * 7919)
  const deviations = []
  const figures = { lane, rounds: 0, turns: 0, calls: 0, reminders: 0, faults: {}, reloadsAtRest: 0, reloadsMidTurn: 0, recreated: 0, subagents: 0, clears: 0 }
  const deviate = (what) => {
    if (deviations.length < 20) deviations.push({ lane, round: figures.rounds, ...what })
    else deviations.push(null)
  }
  // callId -> { fault, output }: what each context's tools and listeners do with the call.
  const calls = new Map()
  const contexts = []
  // The clearing context's guard is cleared from inside other contexts' tool calls, between calls
  // of its own agents (everything here runs in one thread: "concurrently" means interleaved).
  const clearing = {
    clear: null,
    ticks: 0,
    tick() {
      if (++this.ticks % 23 === 0) this.clear?.()
    },
  }
  for (const spec of CONTEXTS) {
    const withGuard = flavour === 'guard' || spec.plugin === reference
    contexts.push(await boot(spec, withGuard))
  }

  async function boot(spec, withGuard) {
    const ctx = new Context()
    await ctx.plugin(LlmRuntime)
    await ctx.plugin(SessionStore)
    await ctx.plugin(SystemPrompt, {})
    await ctx.plugin(ToolRuntime, {})
    await ctx.plugin(AgentRegistry)
    await ctx.plugin(AgentLoop, { agents: [] })
    const c = { ...spec, ctx, withGuard, model: withGuard ? new GuardModel(spec.config, { keepProto: spec.plugin === guard }) : null, agents: new Map(), idle: new Map(), hung: new Map(), heard: 0, delivered: 0, gate: null }
    for (const name of TOOLS) {
      ctx.tools.register(defineContentToolFixture({
        name,
        description: name,
        parameters: {},
        async execute(_args, exec) {
          // A real tool waits on I/O: the loop yields to timers and messages (memory samples) here.
          await new Promise((resolve) => setImmediate(resolve))
          if (!c.clearing) clearing.tick()
          const call = calls.get(exec.callId)
          if (call?.fault?.startsWith('tool-')) struck(c, call.fault)
          if (call?.fault === 'tool-throw') throw new Error(`tool failed: ${exec.callId}`)
          if (call?.fault === 'tool-hang') {
            c.hung.get(exec.callId)?.()
            await aborted(exec.signal)
            throw new Error('tool aborted')
          }
          return [{ type: 'text', text: call?.output ?? `ok:${name}` }]
        },
      }))
    }
    ctx.on('agent/status', ({ agent, status }) => {
      if (status === 'idle') c.idle.get(agent)?.()
    })
    // The witness, outside the plugin: feeds the model the calls the waterfall sees, in its
    // order, and checks the reminder the plugin folded into the decision against the model's.
    ctx.on('agent/pre-step', ({ agent, messages }, next) => {
      if (messages.some((m) => m.source?.kind === 'user')) c.model?.reset(agent)
      else c.model?.nextResponse(agent)
      return next()
    })
    ctx.on('tools/post-execute', async (exec, result, next) => {
      const expected = c.model?.observe(exec.agent, exec.name, exec.arguments, result) ?? null
      const decision = await next()
      if (!c.model) return decision
      const ours = decision.additionalContexts?.[0]
      const got = ours && GUARD_PLUGIN.has(ours.source?.plugin) ? ours : null
      if (got) {
        c.delivered++
        if (c.plugin === guard) figures.reminders++
      }
      if (!expected !== !got || (got && (got.content[0].text !== expected.text || got.source.summary !== expected.summary))) {
        deviate({ context: c.name, agent: exec.agent?.id, call: exec.callId, tool: exec.name, arguments: JSON.stringify(exec.arguments)?.slice(0, 300), expected: expected?.summary ?? null, got: got?.source.summary ?? null, expectedText: expected?.text.slice(0, 300), gotText: got?.content[0].text.slice(0, 300) })
      }
      return decision
    })
    if (withGuard && spec.plugin === guard) {
      if (plant === 'drop') plantDrop(ctx)
      ctx.on('repeat-tool-guard/reminder', () => {
        // Listeners that fail: the guard must isolate them from the call and from each other.
        if (++c.heard % 5 === 0) {
          if (c.name === 'guard') figures.faults['reminder listener threw'] = (figures.faults['reminder listener threw'] ?? 0) + 1
          throw new Error('reminder listener failed')
        }
      })
      ctx.on('repeat-tool-guard/reminder', async () => {
        if (c.heard % 7 === 0) throw new Error('async reminder listener failed')
      })
    }
    if (flavour === 'guard' && plant === 'leak' && spec.plugin === guard) plantLeak(ctx)
    await load(c)
    for (let slot = 0; slot < Math.ceil(agentCount * (spec.share ?? 1)); slot++) {
      const model = new QueuedModel()
      ctx.llm.registerAdapter([`soak-${slot}`], model)
      const subModel = new QueuedModel()
      ctx.llm.registerAdapter([`soak-${slot}-sub`], subModel)
      c.agents.set(slot, { id: `agent-${slot}`, provider: `soak-${slot}`, model, subModel, handle: null, cursor: 0 })
      await create(c, c.agents.get(slot))
    }
    return c
  }

  /** Loads the plugin (when this context has one) and then the downstream listener that faults. */
  async function load(c) {
    if (c.withGuard) c.fiber = await c.ctx.plugin(c.plugin, c.config)
    c.inner = c.ctx.on('tools/post-execute', (exec, _result, next) => {
      const fault = calls.get(exec.callId)?.fault
      if (fault) struck(c, fault)
      if (fault === 'post-throw') throw new Error('downstream listener threw')
      if (fault === 'post-reject') return Promise.reject(new Error('downstream listener rejected'))
      if (fault === 'post-hang') {
        c.hung.get(exec.callId)?.()
        return aborted(exec.signal).then(() => { throw new Error('downstream listener aborted') })
      }
      if (fault === 'gate') {
        const gate = c.gate
        gate.arrived()
        return gate.open.then(next)
      }
      return next()
    })
    if (c.clearing && c.withGuard) {
      const g = guard.guardOf(c.fiber.ctx)
      clearing.clear = () => {
        g.clear()
        // clear() keeps the counts and drops every chain: so does the model, at the same moment.
        c.model.chains = new WeakMap()
        figures.clears++
      }
    }
  }

  /** Counts a fault that struck, as the reference's context saw it (the others see the same). */
  function struck(c, fault) {
    if (c.plugin === reference) figures.faults[fault] = (figures.faults[fault] ?? 0) + 1
  }

  async function unload(c) {
    if (c.clearing) clearing.clear = null
    c.inner()
    if (c.fiber) await c.fiber.dispose()
    c.fiber = null
    c.model?.clear()
  }

  async function reload(c) {
    checkStats(c)
    await unload(c)
    await load(c)
  }

  /** The guard's own counts are the model's; a guard holds chains only for live agents. */
  function checkStats(c) {
    if (!c.withGuard || c.plugin !== guard) return
    const g = guard.guardOf(c.fiber.ctx)
    const stats = g.stats()
    if (stats.observed !== c.model.observed || stats.reminders !== c.model.reminders) {
      deviate({ context: c.name, stats, model: { observed: c.model.observed, reminders: c.model.reminders } })
    }
    if (c.heard !== c.delivered) deviate({ context: c.name, heard: c.heard, delivered: c.delivered, what: 'reminder events vs delivered reminders' })
    c.heard = c.delivered = 0
    const live = [...c.agents.values()].filter((a) => a.handle).length
    if (g.agentCount > live) deviate({ context: c.name, what: 'chains held for agents that are gone', agentCount: g.agentCount, live })
  }

  async function create(c, a, meta) {
    a.handle = await c.ctx.agentLoop.createAgent(c.ctx, {
      sessionId: SessionId(a.id),
      agentOptions: { provider: a.provider, model: 'soak' },
      meta,
    })
    a.cursor = 0
  }

  /** Disposes the agent's handle; a disposal that never finishes is a deviation, not a hang. */
  async function dispose(a, what = 'at rest') {
    const handle = a.handle
    a.handle = null
    if (!handle) return
    let timer
    const limit = new Promise((resolve) => { timer = setTimeout(() => resolve('timeout'), TURN_LIMIT_MS) })
    if (await Promise.race([handle.dispose().then(() => 'done'), limit]) === 'timeout') deviate({ agent: a.id, what: `the agent's disposal (${what}) never finished` })
    clearTimeout(timer)
  }

  /** Runs `plan` as one turn of agent `a` (slot `slot`) in context `c`; returns its new events. */
  async function turn(c, slot, a, plan) {
    const agent = a.handle.agent
    a.model.queue.length = 0
    for (const step of plan.steps) a.model.queue.push(response(step))
    a.model.queue.push(say(`done ${figures.rounds}`))
    const last = plan.steps.at(-1)[0]
    const idle = new Promise((resolve) => c.idle.set(agent, resolve))
    const hung = plan.end === 'say' ? null : new Promise((resolve) => c.hung.set(last.id, resolve))
    const source = plan.kind === 'user' ? { kind: 'user' } : { kind: 'plugin', plugin: 'soak-followup', form: 'notice', summary: 'follow-up' }
    agent.followup(createUserMessage({ content: [{ type: 'text', text: `round ${figures.rounds}` }], source }))
    let timer
    const limit = new Promise((resolve) => { timer = setTimeout(() => resolve('timeout'), TURN_LIMIT_MS) })
    try {
      if (hung) {
        if (await Promise.race([hung, limit]) === 'timeout') return timedOut(c, a, 'the hanging call never started', plan)
        c.hung.delete(last.id)
        struck(c, plan.end === 'cancel' ? 'turn cancelled mid-call' : 'agent disposed mid-call')
        if (plan.end === 'cancel') agent.cancel({ kind: 'user' })
        else {
          const events = agent.session.events
          await dispose(a, `with ${last.fault} in flight`)
          return events.slice(a.cursor)
        }
      }
      if (await Promise.race([idle, limit]) === 'timeout') return timedOut(c, a, 'the turn never ended', plan)
    } finally {
      clearTimeout(timer)
      c.idle.delete(agent)
    }
    const events = agent.session.events
    const fresh = events.slice(a.cursor)
    a.cursor = events.length
    return fresh
  }

  function timedOut(c, a, what, plan) {
    const events = a.handle?.agent.session.events.slice(a.cursor) ?? []
    deviate({ context: c.name, agent: a.handle?.agent.id, what, status: a.handle?.agent.status, events: summarize(events).slice(-12), plan: { kind: plan.kind, end: plan.end, steps: plan.steps.map((s) => s.map((call) => `${call.tool}${call.fault ? `!${call.fault}` : ''}`).join('+')) } })
    return []
  }

  /** One slot's turn in every context at once, then the comparison of the new events. */
  async function slotTurn(slot, plan) {
    const results = await Promise.all(contexts.filter((c) => c.agents.has(slot)).map(async (c) => {
      const a = c.agents.get(slot)
      if (plan.recreate && a.handle) {
        await dispose(a)
        await create(c, a)
      } else if (!a.handle) {
        await create(c, a)
      }
      let sub = null
      if (plan.sub) {
        // A subagent of the slot's agent, its calls interleaved with the parent's; disposed after.
        const s = { id: `${a.id}/sub-${figures.rounds}`, provider: `${a.provider}-sub`, model: a.subModel }
        await create(c, s, { origin: 'subagent', parentSession: SessionId(a.id) })
        sub = turn(c, slot, s, plan.sub).then(async (events) => {
          await dispose(s)
          return events
        })
      }
      const parent = turn(c, slot, a, plan)
      return { c, events: await parent, sub: sub ? await sub : null }
    }))
    const [ref] = results
    for (const which of ['events', 'sub']) {
      if (!ref[which]) continue
      const exact = normalize(ref[which], 'exact')
      const callsOnly = normalize(ref[which], 'calls')
      for (const r of results.slice(1)) {
        // Without the guard (the baseline), only the calls and results can be compared.
        // An agent whose calls carry own "__proto__" keys: the reference is not the contract there
        // (README, Known limits); the model, which checks every call, is.
        const same = r.c.compare === 'exact' && r.c.withGuard && !protoSlot(slot) ? normalize(r[which], 'exact') === exact : normalize(r[which], 'calls') === callsOnly
        if (!same) deviate({ context: r.c.name, slot, which, what: 'transcript differs from the reference\'s', ref: summarize(ref[which]), got: summarize(r[which]) })
      }
    }
    const results0 = ref.events.filter((e) => e.type === 'tool/result')
    figures.turns++
    figures.calls += results0.length + (ref.sub?.filter((e) => e.type === 'tool/result').length ?? 0)
  }

  function summarize(events) {
    return events.map((e) => `${e.type}${e.type === 'user/message' ? `:${e.data.source?.summary ?? e.data.source?.kind}` : ''}${e.type === 'tool/result' ? `:${JSON.stringify(e.data.message?.content?.[0]?.content?.[0]?.text ?? e.data).slice(0, 60)}` : ''}`)
  }

  const protoSlot = (slot) => slot % 10 === 9
  const agentsState = Array.from({ length: agentCount }, () => ({}))
  let callSeq = 0
  while (rounds ? figures.rounds < rounds : Date.now() < deadline) {
    figures.rounds++
    // The plugin is reloaded mid-turn in round 2 and then now and then, at rest in round 3 and
    // now and then.
    const gate = figures.rounds === 2 || next() < 0.08
    const plans = agentsState.map((state, slot) => planTurn(next, state, { gate, proto: protoSlot(slot) }))
    for (const [slot, plan] of plans.entries()) {
      for (const p of [plan, plan.sub].filter(Boolean)) {
        for (const call of p.steps.flat()) {
          call.id = `c${lane}.${slot}.${++callSeq}`
          calls.set(call.id, call)
        }
      }
      if (plan.recreate) figures.recreated++
      if (plan.sub) figures.subagents++
    }
    let opened = null
    if (gate) {
      // Every agent's turn stops at its gate call, inside the guard's listener (which awaits the
      // downstream decision); the plugin is unloaded and loaded again there, then the gate opens.
      for (const c of contexts) {
        let arrivedCount = 0
        let arrivedAll
        const all = new Promise((resolve) => { arrivedAll = resolve })
        let open
        const expected = c.agents.size
        c.gate = { open: new Promise((resolve) => { open = resolve }), arrived: () => { if (++arrivedCount === expected) arrivedAll() }, count: () => arrivedCount }
        c.gate.all = all
        c.gate.release = open
      }
      opened = Promise.all(contexts.map(async (c) => {
        let timer
        const limit = new Promise((resolve) => { timer = setTimeout(() => resolve('timeout'), TURN_LIMIT_MS) })
        if (await Promise.race([c.gate.all, limit]) === 'timeout') deviate({ context: c.name, what: 'not every agent reached the gate', arrived: c.gate.count() })
        clearTimeout(timer)
        await reload(c)
        c.gate.release()
      }))
      figures.reloadsMidTurn++
    }
    await Promise.all(plans.map((plan, slot) => slotTurn(slot, plan)))
    if (opened) await opened
    for (const c of contexts) checkStats(c)
    if (figures.rounds === 3 || next() < 0.1) {
      for (const c of contexts) await reload(c)
      figures.reloadsAtRest++
    }
    calls.clear()
    log(figures)
  }
  // The end: every agent disposed, every chain gone.
  await finished()
  for (const c of contexts) {
    checkStats(c)
    for (const a of c.agents.values()) await dispose(a)
    if (c.withGuard && c.plugin === guard && guard.guardOf(c.fiber.ctx).agentCount !== 0) {
      deviate({ context: c.name, what: 'chains left after every agent was disposed', agentCount: guard.guardOf(c.fiber.ctx).agentCount })
    }
    await unload(c)
  }
  return { figures, deviations }
}
