// The guard in OpenAI's Agents SDK for JavaScript (@openai/agents 0.20), through the SDK's own
// extension points: a tool output guardrail counts each call once its tool has returned; the run's
// `callModelInputFilter` puts each reminder after the results of its turn, at every model call, so
// that reminders stay where they came; with `stopAt`, a tool input guardrail rejects every later
// call of a stopped agent with the stop text, and the agent's `toolUseBehavior` ends the run with it
// where the agent's output is text. It uses the class (lib/guard.js), never the plugin, and never
// the SDK either: the guardrails and the filter are the plain objects and functions its types
// describe, so the ES and the CommonJS copy of the SDK take them alike. docs/FRAMEWORKS.md says how.
import { endsTurn } from '../lib/keys.js'
import { adapterGuard } from './guard.js'

const NAME = 'repeat-tool-guard'
const ALLOW = Object.freeze({ behavior: Object.freeze({ type: 'allow' }) })
// The reminders a keyed chain keeps, to show again where they came in its later runs: the newest,
// which are few, since reminders are rare.
const KEPT_REMINDERS = 64


/** A call's arguments as the guard compares them: the model's JSON text parsed, else the text itself. */
function argumentsOf(text) {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** The chains of one run, or of every run with one key: each agent's, by name. */
class Run {
  constructor(id, key) {
    this.id = id
    this.key = key
    /** Agent name → `{ id, stop }`: its chain's id in the guard, and its stop once stopped. */
    this.agents = new Map()
    /** Call id → the reminder its result brought, which the model reads after that result. */
    this.notes = new Map()
    /** The sets of runs by context that hold this one. */
    this.homes = new Set()
  }

  chain(name) {
    let chain = this.agents.get(name)
    if (chain === undefined) {
      // Distinct for every run and name: a number for a run, a string for a key.
      chain = { id: JSON.stringify([this.id, name]), stop: undefined }
      this.agents.set(name, chain)
    }
    return chain
  }

  note(callId, text) {
    this.notes.set(callId, text)
    if (this.key !== undefined && this.notes.size > KEPT_REMINDERS) this.notes.delete(this.notes.keys().next().value)
  }
}

/** The guard in the Agents SDK; `loopGuard(config, options)` makes one. */
class AgentsLoopGuard {
  #guard
  #key
  #warn
  #announce
  #perResponse
  #stops
  #count = 0
  /** The SDK's RunContext of a run → its Run. */
  #byContext = new WeakMap()
  /** Key → Run, until dispose(key). */
  #keyed = new Map()
  /** The context object a run was given (all the filter is handed of the run) → its runs. */
  #byUserContext = new WeakMap()
  /** The runs whose context is not an object. */
  #loose = new Set()
  /** Tool → its guarded copy. */
  #tools = new WeakMap()
  #agents = new WeakSet()
  #inputGuardrail = { type: 'tool_input', name: NAME, run: async (data) => this.#deny(data) }
  #outputGuardrail = { type: 'tool_output', name: NAME, run: async (data) => this.#watch(data) }
  // Nothing tells a run is over but its RunContext going: then its chains go too.
  #finished = new FinalizationRegistry((run) => this.#drop(run))

  constructor(config, options = {}) {
    ;({ guard: this.#guard, warn: this.#warn, announce: this.#announce } = adapterGuard(config, options))
    checkOptions(options)
    this.#key = options.key
    this.#perResponse = this.#guard.perResponse
    this.#stops = this.#guard.stopAt !== null
    this.callModelInputFilter = (args) => this.#filter(args)
    /** What to spread into the options of `run()` or `runner.run()`, or the config of `new Runner()`. */
    this.runOptions = Object.freeze({ callModelInputFilter: this.callModelInputFilter })
  }

  /**
   * Guards `agent` in place, and the agents it hands off to: its function tools get the guard's
   * guardrails (copies of the tools, which other agents may share); with `stopAt`, its
   * toolUseBehavior ends the run at the stop. Returns `agent`.
   */
  agent(agent) {
    if (this.#agents.has(agent)) return agent
    this.#agents.add(agent)
    agent.tools = agent.tools.map((tool) => this.#guardTool(tool))
    if (this.#stops && canEnd(agent)) agent.toolUseBehavior = this.#ending(agent.toolUseBehavior)
    for (const handoff of agent.handoffs ?? []) this.agent(typeof handoff.onInvokeHandoff === 'function' ? handoff.agent : handoff)
    return agent
  }

  /** Why the run of `result` (a RunResult, or a RunContext) stopped: `{ reminder, toolName, toolCallId, agent, key? }`. */
  stopReason(result) {
    const context = result?.runContext ?? result
    const run = context !== null && typeof context === 'object' ? this.#find(context) : undefined
    for (const chain of run?.agents.values() ?? []) if (chain.stop !== undefined) return chain.stop
    return undefined
  }

  /** A new prompt on the chain of `key`: its agents start over and their stop is lifted (their reminders stay where they came). */
  reset(key) {
    for (const chain of this.#keyed.get(String(key))?.agents.values() ?? []) {
      this.#guard.reset(chain.id)
      chain.stop = undefined
    }
  }

  /** The chain of `key` is done: its counts and kept reminders go. */
  dispose(key) {
    const run = this.#keyed.get(String(key))
    if (run === undefined) return
    this.#keyed.delete(String(key))
    this.#drop(run)
  }

  /** The class's counts: calls observed, reminders given, per tier. */
  stats() {
    return this.#guard.stats()
  }

  /** `tool` with the guard's guardrails before its own; a tool that is not a function tool as it is. */
  #guardTool(tool) {
    if (tool?.type !== 'function') return tool
    let copy = this.#tools.get(tool)
    if (copy !== undefined) return copy
    // A copy, made as the SDK's toolNamespace() makes one.
    copy = Object.create(Object.getPrototypeOf(tool), Object.getOwnPropertyDescriptors(tool))
    // First: a stopped agent's call is rejected whatever the tool's guardrails say, and a call
    // that ran is counted even when a guardrail of the tool replaces its output.
    copy.inputGuardrails = [this.#inputGuardrail, ...(tool.inputGuardrails ?? [])]
    copy.outputGuardrails = [this.#outputGuardrail, ...(tool.outputGuardrails ?? [])]
    this.#tools.set(tool, copy)
    return copy
  }

  /** A toolUseBehavior that ends the run with the stop text once the agent is stopped, else asks `previous`. */
  #ending(previous) {
    return async (context, results) => {
      const stop = this.#stopOf(context, results[0]?.runItem?.agent?.name)
      if (stop !== undefined) return { isFinalOutput: true, isInterrupted: undefined, finalOutput: stop.reminder.text }
      if (typeof previous === 'function') return previous(context, results)
      return { isFinalOutput: false, isInterrupted: undefined }
    }
  }

  /** The stop of agent `name` in the run of `context`, if stopped; a key function that throws is warned about. */
  #stopOf(context, name) {
    try {
      return this.#find(context)?.agents.get(name)?.stop
    } catch (error) {
      this.#warn(`could not find the run of ${name}: ${error?.message ?? error}`)
      return undefined
    }
  }

  /** The Run of the SDK's RunContext `context`, if it has one: a run's calls counted, or its key's. */
  #find(context) {
    const run = this.#byContext.get(context)
    if (run !== undefined) return run
    const key = keyOf(this.#key, context)
    return key === undefined ? undefined : this.#keyed.get(key)
  }

  /** The Run of the SDK's RunContext `context`, made when its first call is counted. */
  #runOf(context) {
    let run = this.#byContext.get(context)
    if (run !== undefined) return run
    const key = keyOf(this.#key, context)
    if (key === undefined) {
      run = new Run(++this.#count)
      this.#finished.register(context, run)
    } else {
      run = this.#keyed.get(key) ?? new Run(key, key)
      this.#keyed.set(key, run)
    }
    this.#byContext.set(context, run)
    const home = this.#runsOf(context.context, true)
    home.add(run)
    run.homes.add(home)
    return run
  }

  #runsOf(userContext, create = false) {
    if (userContext === null || (typeof userContext !== 'object' && typeof userContext !== 'function')) return this.#loose
    let runs = this.#byUserContext.get(userContext)
    if (runs === undefined && create) this.#byUserContext.set(userContext, (runs = new Set()))
    return runs ?? new Set()
  }

  #drop(run) {
    for (const chain of run.agents.values()) this.#guard.dispose(chain.id)
    run.agents.clear()
    run.notes.clear()
    for (const home of run.homes) home.delete(run)
  }

  /** Counts a call that ran (the tool output guardrail); never fails the call. */
  #watch({ context, agent, toolCall, output }) {
    try {
      if (!this.#guard.isTracked(toolCall.name)) return ALLOW
      const run = this.#runOf(context)
      const chain = run.chain(agent.name)
      // A thrown error reaches the guard as the model reads it: the tool's errorFunction's text.
      const reminder = this.#guard.observe(chain.id, toolCall.name, argumentsOf(toolCall.arguments), { content: output, isError: false })
      if (reminder === null) return ALLOW
      this.#deliver(run, chain, { reminder, toolName: toolCall.name, toolCallId: toolCall.callId, agent: agent.name })
      return { ...ALLOW, outputInfo: reminder }
    } catch (error) {
      // As in the plugin: the call proceeds as if unobserved.
      this.#warn(`could not observe ${toolCall?.name}: ${error?.message ?? error}`)
      return ALLOW
    }
  }

  #deliver(run, chain, delivered) {
    if (run.key !== undefined) delivered.key = run.key
    this.#announce(delivered)
    if (endsTurn(delivered.reminder)) {
      // As the plugin: one stop message an agent; a later call at the bound says nothing new.
      if (chain.stop !== undefined) return
      chain.stop = delivered
    }
    run.note(delivered.toolCallId, delivered.reminder.text)
  }


  /** Rejects a stopped agent's call (the tool input guardrail): the model reads the stop text as its result. */
  #deny({ context, agent }) {
    const stop = this.#stopOf(context, agent?.name)
    if (stop === undefined) return ALLOW
    return { behavior: { type: 'rejectContent', message: stop.reminder.text }, outputInfo: stop.reminder }
  }

  /** The callModelInputFilter: the input with each reminder after the results of its turn. */
  #filter({ modelData, agent, context }) {
    const runs = this.#runsOf(context)
    // Each model call is one response: with `perResponse`, its identical calls count once.
    if (this.#perResponse) {
      for (const run of runs) {
        const chain = run.agents.get(agent?.name)
        if (chain !== undefined) this.#guard.nextResponse(chain.id)
      }
    }
    const noteOf = (callId) => {
      for (const run of runs) if (run.notes.has(callId)) return run.notes.get(callId)
      return undefined
    }
    return { ...modelData, input: withNotes(modelData.input, noteOf) }
  }
}

function checkOptions({ key, warn, onReminder }) {
  if (key !== undefined && typeof key !== 'string' && typeof key !== 'function') {
    throw new TypeError('loopGuard: options.key must be a string or a function of the run\'s RunContext')
  }
  if (warn !== undefined && typeof warn !== 'function') throw new TypeError('loopGuard: options.warn must be a function')
  if (onReminder !== undefined && typeof onReminder !== 'function') throw new TypeError('loopGuard: options.onReminder must be a function')
}

/** The chain key of a run: the caller's string, what its function answers for the run, or none. */
function keyOf(key, context) {
  const chosen = typeof key === 'function' ? key(context) : key
  if (chosen === undefined || chosen === null) return undefined
  if (typeof chosen !== 'string') throw new TypeError('loopGuard: options.key must answer a string (or nothing)')
  return chosen
}

/**
 * Whether the run can end at the stop: the stop text becomes the final output, which only an agent
 * whose output is text takes; and only the default behavior or a function can be composed with.
 */
function canEnd(agent) {
  const behavior = agent.toolUseBehavior
  return agent.outputType === 'text' && (behavior === 'run_llm_again' || typeof behavior === 'function')
}

/** A reminder as the model reads it: a user message, as the plugin adds it. */
const userMessage = (text) => ({ type: 'message', role: 'user', content: text })

/**
 * `input` with, after each block of consecutive function call results, the reminders those results
 * brought, in their order; one there already (a session that kept the filtered input) is not added again.
 */
function withNotes(input, noteOf) {
  const out = []
  let due = []
  for (let i = 0; i < input.length; i++) {
    out.push(input[i])
    if (input[i]?.type !== 'function_call_result') continue
    const text = noteOf(input[i].callId)
    if (text !== undefined) due.push(text)
    if (input[i + 1]?.type === 'function_call_result') continue
    out.push(...missing(due, input, i + 1).map(userMessage))
    due = []
  }
  return out
}

/** The texts of `due` that the user messages at `from` in `input` do not hold already. */
function missing(due, input, from) {
  const present = []
  for (let i = from; input[i]?.type === 'message' && input[i].role === 'user'; i++) present.push(input[i].content)
  return due.filter((text) => {
    const at = present.indexOf(text)
    if (at === -1) return true
    present.splice(at, 1)
    return false
  })
}

/**
 * The guard for OpenAI's Agents SDK: `guard.agent(agent)` guards an agent (and those it hands off
 * to), `guard.runOptions` goes into `run()`'s options. `config` is the plugin's (validated here: a bad
 * one throws the plugin's message); `options`: `key` (a string, or a function of the run's
 * RunContext) for a chain that outlives a run, `onReminder(delivered)`, `warn(message)`.
 */
export function loopGuard(config, options) {
  return new AgentsLoopGuard(config, options)
}
