// @deepseek-ai/dsh-repeat-tool-guard: the cordis plugin over the native RepeatToolGuard.
// Chain tracking, canonical arguments and reminder texts live in Rust (src/, core/);
// this file only wires them to the harness events.
import { createRequire } from 'node:module'
import Schema from '@deepseek-ai/schemastery'
import { createUserMessage } from '@deepseek-ai/dsh-llm'

import { encode, transport, release, repeats } from './lib/encode.js'
import { RepeatToolGuard, callOf, canonicalize, nativeOf } from './lib/guard.js'
import { callsSinceLastPrompt, responseOf } from './lib/history.js'
import { SYMBOLS, endsTurn, unknownKeyWarning, unknownKeys } from './lib/keys.js'
import { OPTION_SCHEMA } from './lib/options.js'

const require = createRequire(import.meta.url)
const binding = require('./lib/native.cjs')
// The hot path's function, looked up once: the addon's exports object has many members.
const { __observeEncoded: observeEncoded } = binding

export { RepeatToolGuard, canonicalize }

export const name = 'repeat-tool-guard'

// A config that is not an object passes too, for the guard to report with its own message.
export const Config = Schema.union([OPTION_SCHEMA, Schema.any()])

/** The event emitted for every reminder the plugin delivers, and for a hard stop (tier `stop`): `{ agent, tool, count, tier }`. */
export const REMINDER_EVENT = 'repeat-tool-guard/reminder'

/** Puts `reminder` first among the downstream decision's contexts, keeping everything else. */
function foldReminder(downstream, reminder) {
  return { ...downstream, additionalContexts: [reminder, ...(downstream.additionalContexts ?? [])] }
}

/**
 * The reminder's source summary, the tier's symbol between the calls and the count: `grep × 3`,
 * `grep ≈ 5`, `grep ⟳ 6`, `grep ✗ 3`; a cycle names its block, `(read, grep) × 2`; the hard stop
 * says so, `grep × 20: turn ended`.
 */
function summaryOf(tool, reminder) {
  const calls = reminder.tools ? `(${reminder.tools.join(', ')})` : tool
  return `${calls} ${SYMBOLS[reminder.tier]} ${reminder.count}${endsTurn(reminder) ? ': turn ended' : ''}`
}

// Tool names whose tracked-ness is known. Names come from the agent's tool registry, so there are
// few; the cap only keeps a misbehaving caller from growing it without bound.
const TRACKED_CACHE_LIMIT = 1024

const guards = new WeakMap()

/** The RepeatToolGuard that the plugin loaded on `ctx` (its fiber's context) uses, for tests and diagnostics. */
export function guardOf(ctx) {
  return guards.get(ctx)
}

/** One warning per config key the guard does not know (a typo such as `thresholdz`); nothing else changes. */
function warnUnknownKeys(logger, config) {
  for (const key of unknownKeys(config)) logger.warn('%s', unknownKeyWarning(key))
}

export function apply(ctx, config) {
  const logger = ctx.logger(name)
  // Before validating: a typo is reported even when another value fails the config.
  warnUnknownKeys(logger, config)
  const exported = new RepeatToolGuard(config)
  guards.set(ctx, exported)
  // The listeners use the native guard itself: its results never leave this module.
  const guard = nativeOf(exported)
  const handle = guard.__handle()
  // Results reach the guard only when a detection reads them (`sameResultOnly`, `noProgress`, `failures`).
  const takesResults = guard.takesResults
  // As validated, a profile's settings applied: never read from the config as given.
  const { resume, perResponse } = guard
  const tracked = new Map()
  // The last tool asked about (none yet: a value no name is): an agent mostly calls the same tool again.
  let lastTool = tracked
  let lastTracked = false

  function isTracked(tool) {
    if (tool === lastTool) return lastTracked
    let known = tracked.get(tool)
    if (known === undefined) {
      if (tracked.size >= TRACKED_CACHE_LIMIT) tracked.clear()
      known = guard.isTracked(tool)
      tracked.set(tool, known)
    }
    lastTool = tool
    lastTracked = known
    return known
  }

  // Whether the last call counted repeated its agent's call before (the binding answers `null`
  // for such a call without a reminder). Only then is a call compared with the last one, and the
  // walk tracks what it writes, so that a stuck agent's next calls are counted without a walk.
  let repeated = false

  /** Counts the call and returns the reminder due, if any; never throws. */
  function observe(exec, result) {
    try {
      const tool = exec.name
      if (!isTracked(tool)) return null
      const id = exec.agent.id
      if (repeated && !takesResults && repeats(exec.arguments, id, tool, handle)) {
        // `false`: the guard keeps no such call; then the call is walked as any other.
        const observed = binding.__observeAgain(handle)
        if (observed !== false) {
          repeated = observed === null
          return observed
        }
      }
      // Not plain parsed JSON (or an odd id): the class path, which applies JSON's rules exactly.
      // Results are compared only when asked for.
      if (typeof id !== 'string' || !encode(exec.arguments, id, tool, handle, takesResults, result, repeated)) {
        repeated = false
        return guard.observe(...callOf(guard, id, tool, exec.arguments, result))
      }
      try {
        const observed = observeEncoded(transport.buffer)
        repeated = observed === null
        return observed
      } finally {
        release()
      }
    } catch (error) {
      repeated = false
      // Never let the guard fail a tool call: the call proceeds as if unobserved.
      logger.warn('could not observe %s: %s', exec.name, error?.message ?? error)
      return null
    }
  }

  /**
   * Tells `repeat-tool-guard/reminder` listeners about a delivered reminder. Each listener runs
   * now, in order, isolated from the others (`ctx.parallel`, which calls them synchronously and
   * collects their failures); a throwing or rejecting listener is logged and never reaches the tool call.
   */
  function announce(exec, reminder) {
    try {
      ctx.parallel(REMINDER_EVENT, { agent: exec.agent.id, tool: exec.name, count: reminder.count, tier: reminder.tier })
        .catch((error) => {
          const reasons = error?.errors ?? [error]
          logger.warn('a %s listener failed: %s', REMINDER_EVENT, reasons.map((reason) => reason?.message ?? reason).join('; '))
        })
    } catch (error) {
      logger.warn('could not emit %s: %s', REMINDER_EVENT, error?.message ?? error)
    }
  }

  // `stopAt`: the agents told in this turn why it ends. rc.8 runs one more step for a context
  // left at the end of a turn, for the model to read it; a call that step makes still at the bound
  // ends the turn without a second message (nor a second event: it is the same stop), so nothing
  // is left to run a step for.
  const stopped = new Set()

  async function stopAgain(exec, result, next) {
    return concluding(exec, result, await next())
  }

  async function deliver(exec, result, reminder, message, next) {
    const decision = foldReminder(await next(), message)
    announce(exec, reminder)
    return endsTurn(reminder) ? concluding(exec, result, decision) : decision
  }

  /**
   * `stopAt`: ends the agent's turn after this batch of calls, the harness's own way
   * (`concludeTurn`). rc.8 reads the mark when it builds a successful result from its value, which
   * it does for a decision that carries one: the tool's own value is passed on unchanged, so the
   * result the model sees is the tool's. A failed call, or a decision that replaced the content
   * downstream, cannot carry the mark: the message still says why, and the next call that reaches
   * the bound ends the turn.
   */
  function concluding(exec, result, decision) {
    exec.concludeTurn()
    if (decision.kind !== 'accept' || result.isError || Object.hasOwn(decision, 'content')) return decision
    return Object.hasOwn(decision, 'value') ? decision : { ...decision, value: result.value }
  }

  // Observed before `next()`, like the reference, so the count is right whatever runs downstream.
  ctx.on('tools/post-execute', (exec, result, next) => {
    const reminder = exec.agent ? observe(exec, result) : null
    if (!reminder) return next()
    if (endsTurn(reminder) && stopped.has(exec.agent.id)) return stopAgain(exec, result, next)
    if (endsTurn(reminder)) stopped.add(exec.agent.id)
    return deliver(exec, result, reminder, createUserMessage({
      content: [{ type: 'text', text: reminder.text }],
      source: { kind: 'plugin', plugin: name, form: 'notice', summary: summaryOf(exec.name, reminder) },
    }), next)
  })

  // Each step is one model response: with `perResponse`, its identical calls count once.
  ctx.on('agent/pre-step', ({ agent, messages }, next) => {
    if (messages.some((message) => message.source?.kind === 'user')) guard.reset(agent.id)
    else if (perResponse) guard.nextResponse(agent.id)
    return next()
  })

  // Without a stop, no listener more than the reference's.
  if (guard.stopAt !== null) {
    ctx.on('agent/turn-stopping', ({ agent }) => {
      stopped.delete(agent.id)
    })
  }

  // `resume`: an agent resumed on a persisted session continues its chain from the log's calls
  // since the last user prompt, counted as they were when the plugin first met them.
  if (resume) {
    ctx.on('agent/session-start', ({ agent, source }) => {
      if (source !== 'resume') return
      let calls
      try {
        calls = callsSinceLastPrompt(agent.session.events)
      } catch (error) {
        // A log the guard cannot read: the chain starts empty, as without `resume`.
        logger.warn('could not read the session of resumed agent %s: %s', agent?.id, error?.message ?? error)
        return
      }
      guard.reset(agent.id)
      let response = null
      for (const call of calls) {
        const { tool, args, result } = call
        try {
          // A call of another step is one of another model response.
          if (perResponse && response !== null && responseOf(call) !== response) guard.nextResponse(agent.id)
          response = responseOf(call)
          if (isTracked(tool)) guard.restore(...callOf(guard, agent.id, tool, args, result))
        } catch (error) {
          // As in `observe`: a call the guard cannot count leaves the chain as it was.
          logger.warn('could not restore a call of %s: %s', tool, error?.message ?? error)
        }
      }
    })
  }

  ctx.on('agent/disposed', ({ agent }) => {
    stopped.delete(agent.id)
    guard.dispose(agent.id)
  })

  // Unloading the plugin drops every chain at once, not whenever the guard is collected.
  ctx.effect(() => () => {
    guard.clear()
    guards.delete(ctx)
  }, 'repeat-tool-guard chains')
}
