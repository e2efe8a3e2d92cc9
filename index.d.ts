// Types of the plugin module (index.js). The class API's types are generated from the Rust
// binding into binding.d.ts; this file re-exports them beside the plugin's own exports.
import type { Context } from '@deepseek-ai/cordis'
import type Schema from '@deepseek-ai/schemastery'
import type { Config as GuardConfig, RepeatToolGuard, Tier } from './binding.js'

export { RepeatToolGuard, canonicalize } from './binding.js'
export type { GuardStats, Reminder, Tier, ToolResult } from './binding.js'

/** The cordis plugin name. */
export declare const name: 'repeat-tool-guard'

/**
 * Settings of the guard. Absent keys take their defaults; present keys are validated when the
 * plugin loads (or the class is constructed) and never silently replaced.
 */
export type Config = GuardConfig

/** Payload of the `repeat-tool-guard/reminder` event, emitted for every reminder the plugin delivers and for a hard stop (`stop`, `stopAt`). */
export interface ReminderEvent {
  /** The agent's id. */
  agent: string
  /** The tool whose call brought the reminder. */
  tool: string
  /** The run length; for `cycle`, the block's repetitions. */
  count: number
  tier: Tier
}

/** The name of the event above, `'repeat-tool-guard/reminder'`. */
export declare const REMINDER_EVENT: 'repeat-tool-guard/reminder'

declare module '@deepseek-ai/cordis' {
  interface Events {
    /** The repeat-tool-guard plugin delivered a reminder (observability; listeners cannot affect the call). */
    'repeat-tool-guard/reminder'(event: ReminderEvent): void
  }
}

/** The config schema cordis validates the plugin's config with; the guard checks the values itself. */
export declare const Config: Schema<Config>

/**
 * Installs the guard on `ctx`: counts every agent's tool calls in
 * `tools/post-execute`, folds a reminder in front of the downstream decision's
 * `additionalContexts` when one is due (and emits `repeat-tool-guard/reminder`),
 * resets an agent's chain on a user prompt, and drops it when the agent is
 * disposed. Throws on an invalid config.
 */
export declare function apply(ctx: Context, config: Config): void

/** The `RepeatToolGuard` that the plugin loaded on `ctx` (the plugin fiber's context) uses, for tests and diagnostics. */
export declare function guardOf(ctx: Context): RepeatToolGuard | undefined
