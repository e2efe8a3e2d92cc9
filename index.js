// @deepseek-ai/dsh-repeat-tool-guard: the cordis plugin over the native RepeatToolGuard.
// Chain tracking, canonical arguments and reminder texts live in Rust (src/, core/);
// this file only wires them to the harness events.
import { createRequire } from 'node:module'
import Schema from '@deepseek-ai/schemastery'
import { createUserMessage } from '@deepseek-ai/dsh-llm'

import { encode, encoded, inMemory, release, useMemory } from './lib/encode.js'
import { RepeatToolGuard, canonicalize, nativeOf } from './lib/guard.js'

const require = createRequire(import.meta.url)
const binding = require('./lib/native.cjs')

// The buffer encode.js writes calls into is the binding's own memory, where it can: then a call
// that fits in it needs not be handed over. The WASI build has none, and reads strings slowly.
useMemory(binding.__callMemory, { inlineStrings: binding.__napiBindingTarget === 'wasm32-wasi' })

export { RepeatToolGuard, canonicalize }

export const name = 'repeat-tool-guard'

// `any` on purpose: the native constructor validates every value with the documented
// messages and applies defaults only to absent keys. A typed schema with defaults
// would reject with other messages, or put defaults in place of `null`.
export const Config = Schema.object({
  thresholds: Schema.any().description('Run lengths that trigger a reminder (default [3, 5, 8]).'),
  include: Schema.any().description('Tool-name patterns to track; empty means all (default []).'),
  exclude: Schema.any().description('Tool-name patterns transparent to the chain (default []).'),
  argumentsPreviewChars: Schema.any().description('Cap on arguments quoted in the detailed reminder (default 500).'),
  // Opt-in: absent means off, and the plugin behaves exactly as the reference.
  cycles: Schema.any().description('Opt-in: remind once when a block of 2 to 5 calls repeats back to back, { maxPeriod: 2..5, repeats: >= 2 } (default off).'),
  sameResultOnly: Schema.any().description('Opt-in: a call extends the run only when its result (content and isError) also equals the previous call\'s (default false).'),
  overrides: Schema.any().description('Opt-in: per-tool thresholds, [{ tools: patterns, thresholds }]; the first matching entry wins (default []).'),
  repeatEvery: Schema.any().description('Opt-in: past the last threshold, a detailed reminder every this many further calls of the run (default off).'),
})

/** The event emitted for every reminder the plugin delivers: `{ agent, tool, count, tier }`. */
export const REMINDER_EVENT = 'repeat-tool-guard/reminder'

/** Puts `reminder` first among the downstream decision's contexts, keeping everything else. */
function foldReminder(downstream, reminder) {
  return { ...downstream, additionalContexts: [reminder, ...(downstream.additionalContexts ?? [])] }
}

/** The reminder's source summary: `grep × 3`, or for a cycle its block, `(read, grep) × 2`. */
function summaryOf(tool, reminder) {
  return reminder.tier === 'cycle' ? `(${reminder.tools.join(', ')}) × ${reminder.count}` : `${tool} × ${reminder.count}`
}

// Tool names whose tracked-ness is known. Names come from the agent's tool registry, so there are
// few; the cap only keeps a misbehaving caller from growing it without bound.
const TRACKED_CACHE_LIMIT = 1024

const guards = new WeakMap()

/** The RepeatToolGuard that the plugin loaded on `ctx` (its fiber's context) uses, for tests and diagnostics. */
export function guardOf(ctx) {
  return guards.get(ctx)
}

const KNOWN_KEYS = Object.keys(Config.dict)

/** One warning per config key the guard does not know (a typo such as `thresholdz`); nothing else changes. */
function warnUnknownKeys(logger, config) {
  if (config === null || typeof config !== 'object') return
  for (const key of Object.keys(config)) {
    if (!KNOWN_KEYS.includes(key)) logger.warn('unknown config key %s is ignored (known keys: %s)', JSON.stringify(key), KNOWN_KEYS.join(', '))
  }
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
  // Validated by the constructor: true only when explicitly enabled.
  const sameResultOnly = config?.sameResultOnly === true
  const tracked = new Map()

  function isTracked(tool) {
    let known = tracked.get(tool)
    if (known === undefined) {
      if (tracked.size >= TRACKED_CACHE_LIMIT) tracked.clear()
      known = guard.isTracked(tool)
      tracked.set(tool, known)
    }
    return known
  }

  /** Counts the call and returns the reminder due, if any; never throws. */
  function observe(exec, result) {
    try {
      const tool = exec.name
      if (!isTracked(tool)) return null
      const id = exec.agent.id
      // Not plain parsed JSON (or an odd id): the class path, which applies JSON's rules exactly.
      // Results are compared only when asked for.
      if (typeof id !== 'string' || !encode(exec.arguments, id, tool, handle, sameResultOnly, result)) {
        return sameResultOnly ? guard.observe(id, tool, exec.arguments, result) : guard.observe(id, tool, exec.arguments)
      }
      try {
        return inMemory() ? binding.__observeMemory() : binding.__observeEncoded(encoded.memory, encoded.pieces, encoded.widePieces)
      } finally {
        release()
      }
    } catch (error) {
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

  async function deliver(exec, reminder, message, next) {
    const decision = foldReminder(await next(), message)
    announce(exec, reminder)
    return decision
  }

  // Observed before `next()`, like the reference, so the count is right whatever runs downstream.
  ctx.on('tools/post-execute', (exec, result, next) => {
    const reminder = exec.agent ? observe(exec, result) : null
    if (!reminder) return next()
    return deliver(exec, reminder, createUserMessage({
      content: [{ type: 'text', text: reminder.text }],
      source: { kind: 'plugin', plugin: name, form: 'notice', summary: summaryOf(exec.name, reminder) },
    }), next)
  })

  ctx.on('agent/pre-step', ({ agent, messages }, next) => {
    if (messages.some((message) => message.source?.kind === 'user')) guard.reset(agent.id)
    return next()
  })

  ctx.on('agent/disposed', ({ agent }) => {
    guard.dispose(agent.id)
  })

  // Unloading the plugin drops every chain at once, not whenever the guard is collected.
  ctx.effect(() => () => {
    guard.clear()
    guards.delete(ctx)
  }, 'repeat-tool-guard chains')
}
