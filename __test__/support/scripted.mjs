// Boots the published deepseek-harness 0.1.0-rc.8 spine in-process with a scripted model
// (no network), for the demo and the integration suites. Needs Node >= 22.19.
import { Context } from '@deepseek-ai/cordis'
import LlmRuntime, { LlmAdapter, CallId, createUserMessage } from '@deepseek-ai/dsh-llm'
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session'
import SystemPrompt from '@deepseek-ai/dsh-system-prompt'
import ToolRuntime, { defineContentToolFixture } from '@deepseek-ai/dsh-tools'
import AgentRegistry from '@deepseek-ai/dsh-agent'
import AgentLoop from '@deepseek-ai/dsh-agent-loop'
import JsonlSessionPersistence from '@deepseek-ai/dsh-session-persistence-jsonl'

export { createUserMessage, SessionId }

/** Collects the warnings `ctx`'s loggers named `name` print from now on (their `args`, formatted). */
export function warningsOf(ctx, name) {
  const warnings = []
  ctx.logger.exporter({
    levels: { default: 3 },
    export: (message) => {
      if (message.type === 'warn' && message.name === name) warnings.push(message)
    },
  })
  return warnings
}

/** One model turn that calls `name` with `args` (an object, or raw text sent as-is). */
export function callTool(name, args, id = `call-${++callCounter}`) {
  return callTools([[name, args, id]])
}

/** One model turn that makes the calls `[name, args, id?]` together, in one response. */
export function callTools(calls) {
  const chunks = calls.flatMap(([name, args, id = `call-${++callCounter}`], index) => {
    const callId = CallId(id)
    const json = typeof args === 'string' ? args : JSON.stringify(args)
    return [
      { type: 'block-start', index, blockType: 'tool-call' },
      { type: 'tool-call-delta', index, id: callId, name, argumentsDelta: json },
      { type: 'block-end', index, block: { type: 'tool-call', id: callId, name, arguments: json } },
    ]
  })
  return [...chunks, { type: 'usage', usage: { inputTokens: 10, outputTokens: 5 } }, { type: 'finish', reason: { kind: 'tool-calls' } }]
}
let callCounter = 0

/** One model turn that answers with text and ends the turn. */
export function say(text) {
  return [
    { type: 'block-start', index: 0, blockType: 'text' },
    { type: 'text-delta', index: 0, text },
    { type: 'block-end', index: 0, block: { type: 'text', text } },
    { type: 'usage', usage: { inputTokens: 10, outputTokens: text.length } },
    { type: 'finish', reason: { kind: 'stop' } },
  ]
}

/** A model that replays one scripted response per request. */
export class ScriptedModel extends LlmAdapter {
  constructor(script) {
    super()
    this.script = script
  }

  resolveModel(provider, model) {
    return Promise.resolve({ provider, id: model, name: model })
  }

  async * stream() {
    const response = this.script.shift()
    if (!response) throw new Error('scripted model: script exhausted')
    for (const chunk of response) yield chunk
  }
}

/**
 * Boots the spine. `before(ctx)` runs before the guard plugin is loaded (listeners it
 * registers sit outside the guard in the waterfall), `after(ctx)` after it (inside).
 * Tools: `probe`, `grep`, `todo_write` and `read` unless `tools` names others, each answering
 * `answer(name)`: by default `ok:<name>` as one text block.
 * `persistence` (the JSONL backend's config, e.g. `{ root }`) keeps every session on disk, and
 * `resume(id, script)` then resumes one; `stop()` unloads the backend, which writes out every
 * session, as a harness does when it shuts down.
 */
export async function boot({ plugin, config, before, after, persistence, tools = ['probe', 'grep', 'todo_write', 'read'], answer = (name) => [{ type: 'text', text: `ok:${name}` }] } = {}) {
  const ctx = new Context()
  await ctx.plugin(LlmRuntime)
  await ctx.plugin(SessionStore)
  const store = persistence ? await ctx.plugin(JsonlSessionPersistence, persistence) : undefined
  await ctx.plugin(SystemPrompt, {})
  await ctx.plugin(ToolRuntime, {})
  await ctx.plugin(AgentRegistry)
  await ctx.plugin(AgentLoop, { agents: [] })
  const executed = []
  for (const name of tools) {
    ctx.tools.register(defineContentToolFixture({
      name,
      description: name,
      parameters: {},
      async execute() {
        executed.push(name)
        return answer(name)
      },
    }))
  }
  if (before) await before(ctx)
  const fiber = plugin ? await ctx.plugin(plugin, config) : undefined
  if (after) await after(ctx)
  let models = 0

  /** Creates an agent whose model replays `script`; `run(text, kind)` submits a prompt and waits for idle. */
  function agent(id, script) {
    return start(script, (agentOptions) => ctx.agentLoop.createAgent(ctx, { sessionId: SessionId(id), agentOptions }))
  }

  /** Resumes the persisted session `id` as an agent whose model replays `script` (as `agent`). */
  function resume(id, script) {
    return start(script, (agentOptions) => ctx.agentLoop.resume(ctx, { resumeSessionId: SessionId(id), agentOptions }))
  }

  async function start(script, make) {
    const provider = `scripted-${++models}`
    ctx.llm.registerAdapter([provider], new ScriptedModel(script))
    const handle = await make({ provider, model: 'scripted' })
    const live = handle.agent
    return {
      agent: live,
      dispose: () => handle.dispose(),
      events: () => live.session.events,
      run: (text = 'go', kind = 'user') => submit(ctx, live, text, kind),
    }
  }
  return { ctx, fiber, agent, resume, executed, stop: () => store?.dispose() }
}

/**
 * Submits `text` to `agent` as a user prompt (`kind` 'user') or a plugin's follow-up (any other
 * `kind`, which does not reset a chain), and resolves when the agent goes idle.
 */
export function submit(ctx, agent, text, kind = 'user') {
  const idle = untilIdle(ctx, agent)
  const source = kind === 'user' ? { kind: 'user' } : { kind: 'plugin', plugin: 'test-followup', form: 'notice', summary: 'follow-up' }
  agent.followup(createUserMessage({ content: [{ type: 'text', text }], source }))
  return idle
}

function untilIdle(ctx, agent) {
  return new Promise((resolve) => {
    const stop = ctx.on('agent/status', ({ agent: who, status }) => {
      if (who === agent && status === 'idle') {
        stop()
        resolve()
      }
    })
  })
}

/** The reminders recorded in a session log: `user/message` events from a plugin. */
export function reminders(events, plugin) {
  return events
    .filter((e) => e.type === 'user/message' && e.data.source?.kind === 'plugin' && (!plugin || e.data.source.plugin === plugin))
    .map((e) => ({ seq: e.seq, text: e.data.content.map((block) => block.text).join(''), source: e.data.source }))
}

/** Tool results in a session log, in order, as the model sees them. */
export function toolResults(events) {
  return events.filter((e) => e.type === 'tool/result').map((e) => e.data.message.content[0])
}
