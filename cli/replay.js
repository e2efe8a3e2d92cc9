// Feeds runs of tool calls through RepeatToolGuards as the live plugin would have seen them: each
// call (at its result) is the call's tools/post-execute, a user prompt resets the chain as
// agent/pre-step does, and a new lifecycle of a harness session (a resume) starts from a fresh
// chain, as a disposed agent's does, unless the config has `resume`, under which the plugin
// rebuilds the very chain the replay holds. The inputs come from the format readers (cli/formats/)
// or, for a list of harness events, from lib/history.js, which the plugin's resume reads too.
// The rules themselves are the guard's; nothing here counts runs.
import { RepeatToolGuard } from '../lib/guard.js'
import { guardInputs, responseOf } from '../lib/history.js'
import { IDENTITY_KEYS } from '../lib/keys.js'

/**
 * The config that measures runs: with the run length reported at every call from the second on
 * (`thresholds: [2]`, `repeatEvery: 1`), a guard tells where each run of identical calls ends and
 * how long it got, under exactly the config's idea of "identical": only the identity options are
 * kept, so an option added later is left out unless it changes what identical means.
 */
function measuringConfig(config) {
  const identity = Object.fromEntries(IDENTITY_KEYS.filter((key) => Object.hasOwn(config ?? {}, key)).map((key) => [key, config[key]]))
  return { ...identity, thresholds: [2], repeatEvery: 1, argumentsPreviewChars: 1 }
}

/**
 * A replay of many runs under one or more configs (validated by the guard's constructor, which
 * throws the plugin's own messages). `start(meta)` begins a run, fed its inputs one by one; its
 * `finish()` gives, per config, the reminders that would fire, and adds its runs of identical
 * calls to `runs`.
 */
export class Replay {
  constructor(configs) {
    this.configs = configs
    this.guards = configs.map((config) => new RepeatToolGuard(config ?? {}))
    this.takesResults = this.guards.map((guard) => guard.takesResults)
    this.resume = this.guards.map((guard) => guard.resume)
    this.measures = configs.map((config) => new RepeatToolGuard(measuringConfig(config)))
    // Run lengths per config: tool → (length → runs).
    this.runs = configs.map(() => new Map())
  }

  /** A run of agent `meta.id` (`meta.seedLength`: the events a seeded session inherited). */
  start(meta) {
    return new Run(this, meta)
  }

  /** The reminders per config of a harness session's `events` (see `Run.finish`). */
  session(meta, events) {
    const run = this.start(meta)
    for (const input of guardInputs(events, { from: meta.seedLength ?? 0 })) run.feed(input)
    return run.finish().reminders
  }
}

/** One run in a Replay: its guards' chains for the agent, its reminders, its calls and prompts. */
class Run {
  #replay
  #open
  #lengths
  #seeded = false
  /** The model response the last call came in (its turn and step, or the trajectory's response). */
  #response = null

  constructor(replay, meta) {
    this.#replay = replay
    this.id = meta.id
    this.seedLength = meta.seedLength ?? 0
    this.lifecycle = 1
    this.calls = 0
    this.prompts = []
    this.callSeqs = []
    this.reminders = replay.configs.map(() => [])
    this.#open = replay.configs.map(() => null)
    // Run lengths of this run per config, added to the replay's when it finishes.
    this.#lengths = replay.configs.map(() => new Map())
    replay.configs.forEach((_, i) => this.#reset(i))
  }

  /** One input: `{ kind: 'prompt' | 'lifecycle', seq }` or `{ kind: 'call', seq, turn, step, response?, tool, args, result }`. */
  feed(input) {
    const replay = this.#replay
    if (input.kind === 'lifecycle') {
      // Everything before it was replayed into a new lifecycle, whose agent starts afresh.
      if (this.#seeded || input.seq > this.seedLength) this.lifecycle++
      this.#seeded = true
      replay.configs.forEach((_, i) => {
        if (!replay.resume[i]) this.#reset(i)
      })
      return
    }
    if (input.kind === 'prompt') {
      this.prompts.push(input.seq)
      replay.configs.forEach((_, i) => this.#reset(i))
      return
    }
    const { seq, turn, step, tool, args, result } = input
    // A call of another response: with `perResponse`, the identical calls of one count once.
    const response = responseOf(input)
    if (this.#response !== null && response !== this.#response) for (const guard of replay.guards) guard.nextResponse(this.id)
    this.#response = response
    const call = ++this.calls
    this.callSeqs.push(seq)
    const observe = (guard, i) => (replay.takesResults[i] ? guard.observe(this.id, tool, args, result) : guard.observe(this.id, tool, args))
    replay.guards.forEach((guard, i) => {
      const reminder = observe(guard, i)
      if (reminder) this.reminders[i].push({ seq, turn, step, lifecycle: this.lifecycle, tool, call, ...reminder })
    })
    replay.measures.forEach((guard, i) => {
      if (!guard.isTracked(tool)) return
      const run = observe(guard, i)
      if (run) {
        this.#open[i].length = run.count
      } else {
        this.#close(i)
        this.#open[i] = { tool, length: 1 }
      }
    })
  }

  /** Ends the run: `{ reminders, calls, prompts, callSeqs }`; its run lengths join the replay's. */
  finish() {
    const replay = this.#replay
    replay.configs.forEach((_, i) => {
      this.#close(i)
      for (const [tool, lengths] of this.#lengths[i]) {
        let all = replay.runs[i].get(tool)
        if (!all) replay.runs[i].set(tool, (all = new Map()))
        for (const [length, n] of lengths) all.set(length, (all.get(length) ?? 0) + n)
      }
    })
    this.abandon()
    return { reminders: this.reminders, calls: this.calls, prompts: this.prompts, callSeqs: this.callSeqs }
  }

  /** Drops the run's chains without counting it (a run read again another way). */
  abandon() {
    for (const guard of this.#replay.guards) guard.dispose(this.id)
    for (const guard of this.#replay.measures) guard.dispose(this.id)
  }

  #reset(i) {
    this.#replay.guards[i].reset(this.id)
    this.#replay.measures[i].reset(this.id)
    this.#close(i)
  }

  #close(i) {
    const run = this.#open[i]
    this.#open[i] = null
    if (!run) return
    let lengths = this.#lengths[i].get(run.tool)
    if (!lengths) this.#lengths[i].set(run.tool, (lengths = new Map()))
    lengths.set(run.length, (lengths.get(run.length) ?? 0) + 1)
  }
}
