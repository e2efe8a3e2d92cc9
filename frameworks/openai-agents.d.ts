// Types of the OpenAI Agents SDK adapter (frameworks/openai-agents.js), written by hand. The SDK's
// own types are imported as types only: nothing of `@openai/agents` loads at run time.
import type { Agent, CallModelInputFilter, RunContext } from '@openai/agents'
import type { Config, GuardStats, Reminder } from '../binding.js'

export type { Config, Reminder }

/** A reminder the guard gave in a run, with the call that brought it. */
export interface DeliveredReminder {
  /** The class's reminder: `tier`, `count`, `text` (what the model reads), `tools` for a cycle. */
  reminder: Reminder
  /** The tool of the call that brought it. */
  toolName: string
  /** That call's id; the reminder follows the results of its turn. */
  toolCallId: string
  /** The name of the agent that made the call: each agent of a run has a chain of its own. */
  agent: string
  /** The chain's key, when the run is on a keyed chain. */
  key?: string
}

export interface LoopGuardOptions {
  /**
   * A chain that outlives a run: every run with the same key continues it, and its stop (a run
   * resumed from a state saved as text, say). A function is asked with the run's RunContext
   * (`({ context }) => context.taskId`). Without a key (or when the function answers nothing),
   * each run has chains of its own.
   */
  key?: string | ((runContext: RunContext<any>) => string | null | undefined)
  /** Called for every reminder the guard gives, a repeated stop included (observability). */
  onReminder?: (delivered: DeliveredReminder) => void
  /** Where warnings go (an unknown config key, a call that could not be observed). Default: `console.warn`. */
  warn?: (message: string) => void
}

export interface LoopGuard {
  /**
   * Guards `agent` in place and returns it, with the agents it hands off to: its function tools
   * become copies with the guard's tool guardrails; with `stopAt`, its `toolUseBehavior` ends the
   * run at the stop (an agent whose output is text).
   */
  agent<TAgent extends Agent<any, any>>(agent: TAgent): TAgent
  /** What to spread into the options of `run()` or `runner.run()`, or the config of `new Runner()`. */
  readonly runOptions: Readonly<{ callModelInputFilter: CallModelInputFilter<any> }>
  /** The filter that puts every reminder after its turn's results in what the model reads. */
  readonly callModelInputFilter: CallModelInputFilter<any>
  /** Why the run of `result` (a run's result, or its RunContext) stopped: its `stop` reminder, or undefined. */
  stopReason(result: { readonly runContext: RunContext<any> } | RunContext<any>): DeliveredReminder | undefined
  /** A new prompt on the chain of `key`: it starts over and its stop is lifted (its reminders stay where they came). */
  reset(key: string): void
  /** The chain of `key` is done: its counts and kept reminders go. */
  dispose(key: string): void
  /** The class's counts since the guard was made. */
  stats(): GuardStats
}

/**
 * The guard for OpenAI's Agents SDK for JavaScript. `config` is the plugin's: a bad one throws its
 * message here, an unknown key is warned about.
 */
export declare function loopGuard(config?: Config | null, options?: LoopGuardOptions): LoopGuard
