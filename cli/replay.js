// Feeds one session's stored events through RepeatToolGuards as the live plugin would have seen
// them: each tool result is the call's tools/post-execute, a user prompt resets the chain as
// agent/pre-step does, and a new lifecycle of the session (a resume) starts from a fresh chain,
// as a disposed agent's does. The rules themselves are the guard's; nothing here counts runs.
import { RepeatToolGuard } from '../lib/guard.js'

// Results the loop or the crash repair wrote without running post-execute: a call aborted before
// dispatch, and the closers synthesized for an interrupted turn.
export const NOT_OBSERVED = new Set(['ABORTED_BEFORE_DISPATCH', 'TOOL_NOT_STARTED', 'TOOL_OUTCOME_UNKNOWN'])

/** The loop's parse of a call's arguments: JSON, the raw text when it is not JSON, `{}` when empty. */
export function parseArguments(raw) {
  try {
    return raw ? JSON.parse(raw) : {}
  } catch {
    return raw
  }
}

/**
 * The config that measures runs: with the run length reported at every call from the second on
 * (`thresholds: [2]`, `repeatEvery: 1`), a guard tells where each run of identical calls ends and
 * how long it got, under exactly the config's idea of "identical" (include, exclude,
 * sameResultOnly and the like are kept; what only decides where or whether reminders fire is
 * dropped, the other tiers' options among it).
 */
function measuringConfig(config) {
  const identity = { ...config }
  for (const key of ['thresholds', 'overrides', 'cycles', 'similar', 'resume', 'repeatEvery', 'argumentsPreviewChars']) delete identity[key]
  return { ...identity, thresholds: [2], repeatEvery: 1, argumentsPreviewChars: 1 }
}

/**
 * A replay of many sessions under one or more configs (validated by the guard's constructor,
 * which throws the plugin's own messages). `session(meta, events)` returns, per config, the
 * reminders that would fire, and adds the session's runs to `runs`.
 */
export class Replay {
  constructor(configs) {
    this.configs = configs
    this.guards = configs.map((config) => new RepeatToolGuard(config ?? {}))
    this.sameResultOnly = configs.map((config) => config?.sameResultOnly === true)
    this.measures = configs.map((config) => new RepeatToolGuard(measuringConfig(config)))
    // Run lengths per config: tool → (length → runs).
    this.runs = configs.map(() => new Map())
  }

  /** The reminders per config, each `{ seq, turn, step, lifecycle, tool, tier, count, text, tools? }`. */
  session(meta, events) {
    const id = meta.id
    const reminders = this.configs.map(() => [])
    const open = this.configs.map(() => null)
    const calls = new Map()
    const seedLength = meta.seedLength ?? 0
    let lifecycle = 1
    let seeded = false
    const reset = () => {
      for (const guard of this.guards) guard.reset(id)
      for (const guard of this.measures) guard.reset(id)
      open.forEach((run, i) => this.#close(i, run))
      open.fill(null)
    }
    reset()
    for (const event of events) {
      if (event.seq < seedLength) continue
      switch (event.type) {
        case 'session/end-seed':
          // Everything before it was replayed into a new lifecycle, whose agent starts afresh.
          if (seeded || event.seq > seedLength) lifecycle++
          seeded = true
          reset()
          break
        case 'user/message':
          if (event.data?.source?.kind === 'user') reset()
          break
        case 'tool/call':
          calls.set(event.data.callId, event.data)
          break
        case 'tool/result': {
          const block = event.data?.message?.content?.[0]
          const call = calls.get(block?.toolCallId)
          if (!call || NOT_OBSERVED.has(event.data.error?.code)) break
          calls.delete(block.toolCallId)
          const args = parseArguments(call.arguments)
          const result = { content: block.content, isError: block.isError === true }
          this.guards.forEach((guard, i) => {
            const reminder = this.sameResultOnly[i] ? guard.observe(id, call.name, args, result) : guard.observe(id, call.name, args)
            if (reminder) reminders[i].push({ seq: event.seq, turn: call.turn, step: call.step, lifecycle, tool: call.name, ...reminder })
          })
          this.measures.forEach((guard, i) => {
            if (!guard.isTracked(call.name)) return
            const step = this.sameResultOnly[i] ? guard.observe(id, call.name, args, result) : guard.observe(id, call.name, args)
            if (step) {
              open[i].length = step.count
            } else {
              this.#close(i, open[i])
              open[i] = { tool: call.name, length: 1 }
            }
          })
          break
        }
      }
    }
    open.forEach((run, i) => this.#close(i, run))
    for (const guard of this.guards) guard.dispose(id)
    for (const guard of this.measures) guard.dispose(id)
    return reminders
  }

  #close(i, run) {
    if (!run) return
    let lengths = this.runs[i].get(run.tool)
    if (!lengths) this.runs[i].set(run.tool, (lengths = new Map()))
    lengths.set(run.length, (lengths.get(run.length) ?? 0) + 1)
  }
}
