// Feeds one session's stored events through RepeatToolGuards as the live plugin would have seen
// them (lib/history.js reads the log, as the plugin's resume does): each tool result is the
// call's tools/post-execute, a user prompt resets the chain as agent/pre-step does, and a new
// lifecycle of the session (a resume) starts from a fresh chain, as a disposed agent's does,
// unless the config has `resume`, under which the plugin rebuilds the very chain the replay holds.
// The rules themselves are the guard's; nothing here counts runs.
import { RepeatToolGuard } from '../lib/guard.js'
import { guardInputs } from '../lib/history.js'

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
    const seedLength = meta.seedLength ?? 0
    let lifecycle = 1
    let seeded = false
    const reset = (i) => {
      this.guards[i].reset(id)
      this.measures[i].reset(id)
      this.#close(i, open[i])
      open[i] = null
    }
    this.configs.forEach((_, i) => reset(i))
    for (const input of guardInputs(events, { from: seedLength })) {
      if (input.kind === 'lifecycle') {
        // Everything before it was replayed into a new lifecycle, whose agent starts afresh.
        if (seeded || input.seq > seedLength) lifecycle++
        seeded = true
        this.configs.forEach((config, i) => {
          if (config?.resume !== true) reset(i)
        })
        continue
      }
      if (input.kind === 'prompt') {
        this.configs.forEach((_, i) => reset(i))
        continue
      }
      const { seq, turn, step, tool, args, result } = input
      this.guards.forEach((guard, i) => {
        const reminder = this.sameResultOnly[i] ? guard.observe(id, tool, args, result) : guard.observe(id, tool, args)
        if (reminder) reminders[i].push({ seq, turn, step, lifecycle, tool, ...reminder })
      })
      this.measures.forEach((guard, i) => {
        if (!guard.isTracked(tool)) return
        const run = this.sameResultOnly[i] ? guard.observe(id, tool, args, result) : guard.observe(id, tool, args)
        if (run) {
          open[i].length = run.count
        } else {
          this.#close(i, open[i])
          open[i] = { tool, length: 1 }
        }
      })
    }
    this.configs.forEach((_, i) => this.#close(i, open[i]))
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
