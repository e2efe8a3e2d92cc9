// The guard in the AI SDK 7's tool loop (generateText, streamText, ToolLoopAgent): loopGuard()
// gives a `prepareStep` that counts the last step's calls and adds each reminder after that step's
// tool results, where the model reads it, and a `stopWhen` that ends the loop at `stopAt`. It uses
// the class (lib/guard.js), never the plugin: no cordis, no harness, and no `ai` either, since the
// SDK hands every step in, so importing it costs the class alone. docs/FRAMEWORKS.md says how.
import { endsTurn } from '../lib/keys.js'
import { adapterGuard } from './guard.js'

// The reminders a chain keeps, to show again where they came (a keyed chain's later runs): the
// newest, which are few, since reminders are rare.
const KEPT_REMINDERS = 64

/** What the model reads of a tool error: the SDK's own words for it (`getErrorMessage`, `error-text`). */
function errorText(error) {
  if (error === null || error === undefined) return 'unknown error'
  if (typeof error === 'string') return error
  if (error instanceof Error) return error.toString()
  return JSON.stringify(error)
}

/** A step's outcome part as the guard reads results: `{ content, isError }`. */
function resultOf(outcome) {
  return outcome.type === 'tool-error'
    ? { content: errorText(outcome.error), isError: true }
    : { content: outcome.output, isError: false }
}

const isOutcome = (part) => part.type === 'tool-error' || (part.type === 'tool-result' && part.preliminary !== true)

/**
 * The calls of `step` that ran, as their outcome parts (`tool-result` or `tool-error`, each with
 * the call's name and input), in the order the model made them; then results of calls of earlier
 * steps (a provider's deferred results), when they come. A call without an outcome (waiting for
 * an approval, a tool without `execute`) never ran and is not counted.
 */
function * executedCalls(step) {
  const outcomes = new Map()
  for (const part of step.content) if (isOutcome(part)) outcomes.set(part.toolCallId, part)
  for (const part of step.content) {
    if (part.type !== 'tool-call' || !outcomes.has(part.toolCallId)) continue
    yield outcomes.get(part.toolCallId)
    outcomes.delete(part.toolCallId)
  }
  yield * outcomes.values()
}

const userMessage = (text) => ({ role: 'user', content: [{ type: 'text', text }] })

/** The text of a user message of one text part (or a string), else undefined. */
function textOf(message) {
  if (message?.role !== 'user') return undefined
  const { content } = message
  if (typeof content === 'string') return content
  return Array.isArray(content) && content.length === 1 && content[0]?.type === 'text' ? content[0].text : undefined
}

/** Per tool call id in `messages`, the index of the last message holding its result. */
function resultIndexes(messages) {
  const indexes = new Map()
  messages.forEach((message, i) => {
    if (!Array.isArray(message?.content) || (message.role !== 'tool' && message.role !== 'assistant')) return
    for (const part of message.content) if (part?.type === 'tool-result') indexes.set(part.toolCallId, i)
  })
  return indexes
}

/**
 * `messages` with each kept reminder right after its step's results, unless it is there already:
 * the SDK carries a step's messages into the next, and a caller's own `prepareStep` may rebuild
 * them. A reminder whose step's results are no longer in `messages` is left out.
 */
function withReminders(messages, kept) {
  if (kept.length === 0) return messages
  const indexes = resultIndexes(messages)
  const places = []
  for (const { anchors, texts } of kept) {
    const at = Math.max(-1, ...anchors.map((id) => indexes.get(id) ?? -1))
    if (at >= 0) places.push({ at, texts })
  }
  const out = [...messages]
  // From the last place back, so that an insertion never moves a place still to come.
  for (const { at, texts } of places.sort((a, b) => b.at - a.at)) {
    let i = at + 1
    // Never between a step's result messages (a provider's results come in the assistant message).
    while (out[i]?.role === 'tool') i++
    for (const text of texts) {
      if (textOf(out[i]) !== text) out.splice(i, 0, userMessage(text))
      i++
    }
  }
  return out.length === messages.length ? messages : out
}



/** The guard's hooks for the AI SDK's tool loop; `loopGuard(config, options)` makes one. */
class LoopGuard {
  #guard
  #perResponse
  #takesResults
  #warn
  #announce
  // Chains by id: a run's own `run:<callId>`, a caller's key `key:<key>`.
  #chains = new Map()
  // Runs by the SDK's callId (one generateText or streamText call): its chain, the steps counted, its stop.
  #runs = new Map()
  #lastStop
  // A run's state goes when its first step is collected: the SDK keeps its steps until the run
  // and its result are gone.
  #finished = new FinalizationRegistry((callId) => this.#endRun(callId))

  constructor(config, options = {}) {
    ;({ guard: this.#guard, warn: this.#warn, announce: this.#announce } = adapterGuard(config, options))
    this.#perResponse = this.#guard.perResponse
    this.#takesResults = this.#guard.takesResults
    checkKey(options.key)
    // The two own properties, so that spreading the guard gives the SDK these and nothing else.
    Object.assign(this, this.#hooks(options.key))
  }

  /** `prepareStep` and `stopWhen` for runs on the chain of `key` (a string), with this guard's config. */
  withKey(key) {
    if (typeof key !== 'string') throw new TypeError('loopGuard: withKey(key) takes a string')
    return this.#hooks(key)
  }

  /**
   * Why the run of `steps` (a result's `steps`, or those a callback got) stopped: the stop's
   * `{ reminder, toolName, toolCallId, stepNumber, callId, key? }`; without `steps`, the last stop of any run.
   */
  stopReason(steps) {
    if (steps === undefined) return this.#lastStop
    const first = steps?.[0]
    return first === undefined ? undefined : this.#runs.get(first.callId)?.stop
  }

  /** A new prompt on the chain of `key`: it starts over (its reminders stay where they came). */
  reset(key) {
    this.#guard.reset(`key:${key}`)
  }

  /** The chain of `key` is done: its counts and kept reminders go. */
  dispose(key) {
    this.#guard.dispose(`key:${key}`)
    this.#chains.delete(`key:${key}`)
  }

  /** The class's counts: calls observed, reminders given, per tier. */
  stats() {
    return this.#guard.stats()
  }

  #hooks(key) {
    return {
      prepareStep: (options) => this.#prepareStep(options, key),
      stopWhen: ({ steps }) => this.#stopWhen(steps, key),
    }
  }

  #prepareStep({ steps, messages, runtimeContext }, key) {
    let chain
    if (steps.length > 0) {
      const run = this.#runOf(steps, key)
      this.#catchUp(run, steps)
      chain = run.chain
    } else {
      // A run's first step: only a keyed chain has reminders from before, of its earlier runs.
      const chosen = keyOf(key, runtimeContext)
      chain = chosen === undefined ? undefined : this.#chains.get(`key:${chosen}`)
    }
    return { messages: chain ? withReminders(messages, chain.reminders) : messages }
  }

  #stopWhen(steps, key) {
    if (steps.length === 0) return false
    const run = this.#runOf(steps, key)
    this.#catchUp(run, steps)
    return run.stop !== undefined
  }

  /** The run `steps` belong to, met first here or in the other hook (the SDK calls `stopWhen` first). */
  #runOf(steps, key) {
    const first = steps[0]
    const callId = first.callId
    let run = this.#runs.get(callId)
    if (run !== undefined) return run
    const chosen = keyOf(key, first.runtimeContext)
    const id = chosen === undefined ? `run:${callId}` : `key:${chosen}`
    let chain = this.#chains.get(id)
    if (chain === undefined) this.#chains.set(id, (chain = { id, reminders: [] }))
    run = { callId, key: chosen, chain, observed: 0, stop: undefined }
    this.#runs.set(callId, run)
    this.#finished.register(first, callId)
    return run
  }

  #endRun(callId) {
    const run = this.#runs.get(callId)
    this.#runs.delete(callId)
    if (run === undefined || run.key !== undefined) return
    this.#guard.dispose(run.chain.id)
    this.#chains.delete(run.chain.id)
  }

  /** Counts the steps of the run not counted yet, each a model response. */
  #catchUp(run, steps) {
    for (; run.observed < steps.length; run.observed++) this.#observeStep(run, steps[run.observed])
  }

  #observeStep(run, step) {
    const { chain } = run
    // Each step is one model response: with `perResponse`, its identical calls count once.
    if (this.#perResponse) this.#guard.nextResponse(chain.id)
    const anchors = []
    const texts = []
    for (const outcome of executedCalls(step)) {
      anchors.push(outcome.toolCallId)
      const reminder = this.#observe(chain.id, outcome)
      if (reminder === null) continue
      const delivered = { reminder, toolName: outcome.toolName, toolCallId: outcome.toolCallId, stepNumber: step.stepNumber, callId: run.callId }
      if (run.key !== undefined) delivered.key = run.key
      this.#announce(delivered)
      if (endsTurn(reminder)) {
        // As the plugin: one stop message a run; a later call at the bound says nothing new.
        if (run.stop !== undefined) continue
        run.stop = delivered
        this.#lastStop = delivered
      }
      texts.push(reminder.text)
    }
    if (texts.length === 0) return
    chain.reminders.push({ anchors, texts })
    if (chain.reminders.length > KEPT_REMINDERS) chain.reminders.shift()
  }

  /** Counts one call and returns the reminder due, if any; never throws. */
  #observe(id, outcome) {
    try {
      return this.#guard.observe(id, outcome.toolName, outcome.input, this.#takesResults ? resultOf(outcome) : undefined)
    } catch (error) {
      // Never let the guard fail the loop: the call counts as if unobserved.
      this.#warn(`could not observe ${outcome.toolName}: ${error?.message ?? error}`)
      return null
    }
  }

}

function checkKey(key) {
  if (key !== undefined && typeof key !== 'string' && typeof key !== 'function') {
    throw new TypeError('loopGuard: options.key must be a string or a function of { runtimeContext }')
  }
}

/** The chain key of a run: the caller's string, what its function answers for the run, or none. */
function keyOf(key, runtimeContext) {
  const chosen = typeof key === 'function' ? key({ runtimeContext }) : key
  if (chosen === undefined || chosen === null) return undefined
  if (typeof chosen !== 'string') throw new TypeError('loopGuard: options.key must answer a string (or nothing)')
  return chosen
}

/**
 * The guard for the AI SDK's tool loop: `{ prepareStep, stopWhen }` to spread into the options of
 * generateText, streamText or ToolLoopAgent. `config` is the plugin's (validated here: a bad one
 * throws the plugin's message); `options`: `key` (a string, or a function of `{ runtimeContext }`)
 * for a chain that outlives a run, `onReminder(delivered)`, `warn(message)`.
 */
export function loopGuard(config, options) {
  return new LoopGuard(config, options)
}
