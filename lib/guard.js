// The RepeatToolGuard class and canonicalize() as the package exports them: the native ones, with
// every result and error rebuilt in the realm this module was evaluated in. A native addon makes
// its objects in Node's main realm; test runners that run tests in vm contexts (jest's ESM mode,
// vitest's vmThreads and vmForks pools) evaluate this module in the test's realm, where a main-realm
// array or TypeError fails `instanceof` and `toStrictEqual`. Copying costs one small object per
// result; the plugin's hot path reads native results directly and never comes through here.
import { createRequire } from 'node:module'

import { jsonText, resultText } from './json-text.js'

const binding = createRequire(import.meta.url)('./native.cjs')

// The JavaScript error classes the binding throws (its own, and JSON.stringify's on the class path).
const ERRORS = { Error, TypeError, RangeError, SyntaxError }

/**
 * `error` as this realm's error of the same class, message and code; an error already of this
 * realm (one a caller's toJSON or getter threw, say) is returned as it is.
 */
function localError(error) {
  if (error instanceof Error || error === null || typeof error !== 'object') return error
  const Class = Object.hasOwn(ERRORS, error.name) ? ERRORS[error.name] : Error
  const local = new Class(error.message)
  if (error.code !== undefined) local.code = error.code
  return local
}

/** Calls `f`, rethrowing whatever it throws as this realm's error. */
function inRealm(f) {
  try {
    return f()
  } catch (error) {
    throw localError(error)
  }
}

function localReminder(reminder) {
  if (reminder === null || reminder === undefined) return null
  const { tier, count, text, tools } = reminder
  return tools === undefined ? { tier, count, text } : { tier, count, text, tools: [...tools] }
}

/**
 * The arguments of the native guard's `observe` and `restore` for a call: the id and name as
 * given (the native guard checks them, the id first), then, for a tracked tool only, the call's
 * arguments and, when the guard reads results, its result as JSON text. An untracked call is never
 * read: no toJSON or getter of its arguments runs.
 */
export function callOf(native, agentId, toolName, args, result) {
  if (typeof agentId !== 'string' || !native.isTracked(toolName)) return [agentId, toolName]
  return [agentId, toolName, jsonText(args), native.takesResults ? resultText(result) : undefined]
}

/** The native guard behind a RepeatToolGuard, for the plugin's hot path. */
export let nativeOf

export class RepeatToolGuard {
  #native

  static {
    nativeOf = (guard) => guard.#native
  }

  constructor(config) {
    this.#native = inRealm(() => new binding.RepeatToolGuard(config))
  }

  observe(agentId, toolName, args, result) {
    const native = this.#native
    return localReminder(inRealm(() => native.observe(...callOf(native, agentId, toolName, args, result))))
  }

  restore(agentId, toolName, args, result, times) {
    const native = this.#native
    inRealm(() => {
      const [id, tool, argsText, resultText] = callOf(native, agentId, toolName, args, result)
      native.restore(id, tool, argsText, resultText, times)
    })
  }

  stats() {
    // A copy made in this realm (the native object belongs to the addon's).
    return { ...inRealm(() => this.#native.stats()) }
  }

  nextResponse(agentId) {
    inRealm(() => this.#native.nextResponse(agentId))
  }

  reset(agentId) {
    inRealm(() => this.#native.reset(agentId))
  }

  dispose(agentId) {
    inRealm(() => this.#native.dispose(agentId))
  }

  clear() {
    inRealm(() => this.#native.clear())
  }

  isTracked(toolName) {
    return inRealm(() => this.#native.isTracked(toolName))
  }

  get thresholds() {
    return [...inRealm(() => this.#native.thresholds)]
  }

  get takesResults() {
    return inRealm(() => this.#native.takesResults)
  }

  get perResponse() {
    return inRealm(() => this.#native.perResponse)
  }

  get stopAt() {
    return inRealm(() => this.#native.stopAt)
  }

  get resume() {
    return inRealm(() => this.#native.resume)
  }

  get agentCount() {
    return inRealm(() => this.#native.agentCount)
  }
}

export function canonicalize(args) {
  return inRealm(() => binding.canonicalize(jsonText(args)))
}
