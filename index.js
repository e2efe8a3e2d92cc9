// @deepseek-ai/dsh-repeat-tool-guard: the cordis plugin over the native RepeatToolGuard.
// Chain tracking, canonical arguments and reminder texts live in Rust (src/, core/);
// this file only wires them to the harness events.
import { createRequire } from 'node:module'
import Schema from '@deepseek-ai/schemastery'
import { createUserMessage } from '@deepseek-ai/dsh-llm'

const require = createRequire(import.meta.url)
const binding = require('./native.cjs')

export const { RepeatToolGuard, canonicalize, __napiBindingTarget } = binding

export const name = 'repeat-tool-guard'

// `any` on purpose: the native constructor validates every value with the documented
// messages and applies defaults only to absent keys. A typed schema with defaults
// would reject with other messages, or put defaults in place of `null`.
export const Config = Schema.object({
  thresholds: Schema.any().description('Run lengths that trigger a reminder (default [3, 5, 8]).'),
  include: Schema.any().description('Tool-name patterns to track; empty means all (default []).'),
  exclude: Schema.any().description('Tool-name patterns transparent to the chain (default []).'),
  argumentsPreviewChars: Schema.any().description('Cap on arguments quoted in the detailed reminder (default 500).'),
})

/** Puts `reminder` first among the downstream decision's contexts, keeping everything else. */
function foldReminder(downstream, reminder) {
  return { ...downstream, additionalContexts: [reminder, ...(downstream.additionalContexts ?? [])] }
}

const guards = new WeakMap()

/** The RepeatToolGuard that the plugin loaded on `ctx` (its fiber's context) uses, for tests and diagnostics. */
export function guardOf(ctx) {
  return guards.get(ctx)
}

export function apply(ctx, config) {
  const guard = new RepeatToolGuard(config)
  guards.set(ctx, guard)
  const logger = ctx.logger(name)

  ctx.on('tools/post-execute', async (exec, _result, next) => {
    let reminder = null
    if (exec.agent) {
      try {
        reminder = guard.observe(exec.agent.id, exec.name, exec.arguments)
      } catch (error) {
        // Never let the guard fail a tool call: the call proceeds as if unobserved.
        logger.warn('could not observe %s: %s', exec.name, error?.message ?? error)
      }
    }
    const downstream = await next()
    if (!reminder) return downstream
    return foldReminder(downstream, createUserMessage({
      content: [{ type: 'text', text: reminder.text }],
      source: { kind: 'plugin', plugin: name, form: 'notice', summary: `${exec.name} × ${reminder.count}` },
    }))
  })

  ctx.on('agent/pre-step', ({ agent, messages }, next) => {
    if (messages.some((message) => message.source?.kind === 'user')) guard.reset(agent.id)
    return next()
  })

  ctx.on('agent/disposed', ({ agent }) => {
    guard.dispose(agent.id)
  })
}
