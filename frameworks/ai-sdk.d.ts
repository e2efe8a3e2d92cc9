// Types of the AI SDK adapter (frameworks/ai-sdk.js), written by hand. The SDK's own types are
// imported as types only: nothing of `ai` loads at run time.
import type { ModelMessage, PrepareStepFunction, StepResult, StopCondition } from 'ai'
import type { Config, GuardStats, Reminder } from '../binding.js'

export type { Config, Reminder }

/** A reminder the guard gave in a run, with the call that brought it. */
export interface DeliveredReminder {
  /** The class's reminder: `tier`, `count`, `text` (what the model reads), `tools` for a cycle. */
  reminder: Reminder
  /** The tool of the call that brought it. */
  toolName: string
  /** That call's id; the reminder follows the results of its step. */
  toolCallId: string
  /** The step (from 0) whose calls brought it. */
  stepNumber: number
  /** The run: the SDK's `callId` of the generateText or streamText call. */
  callId: string
  /** The chain's key, when the run is on a keyed chain. */
  key?: string
}

export interface LoopGuardOptions {
  /**
   * A chain that outlives a run: every run with the same key continues it (one conversation's
   * turns, say). A function is asked once per run, with the runtime context of its first step.
   * Without a key (or when the function answers nothing), each run has a chain of its own.
   */
  key?: string | ((run: { runtimeContext: unknown }) => string | null | undefined)
  /** Called for every reminder the guard gives, a repeated stop included (observability). */
  onReminder?: (delivered: DeliveredReminder) => void
  /** Where warnings go (an unknown config key, a call that could not be observed). Default: `console.warn`. */
  warn?: (message: string) => void
}

/** The two hooks to spread into the options of generateText, streamText or ToolLoopAgent. */
export interface LoopGuardHooks {
  /** Counts the previous step's calls and returns the step's `messages` with every reminder after its step's results. */
  prepareStep: (options: Parameters<PrepareStepFunction<any, any>>[0]) => { messages: ModelMessage[] }
  /** True once a call of the run reached `stopAt` (a reminder of tier `stop`). */
  stopWhen: StopCondition<any, any>
}

export interface LoopGuard extends LoopGuardHooks {
  /** The hooks for runs on the chain of `key`, with this guard's config and counts. */
  withKey(key: string): LoopGuardHooks
  /**
   * Why the run of `steps` stopped (`result.steps`, `await result.steps` for streamText): its
   * `stop` reminder, or undefined. Without `steps`, the last stop of any run.
   */
  stopReason(steps?: ReadonlyArray<StepResult<any, any>>): DeliveredReminder | undefined
  /** A new prompt on the chain of `key`: it starts over (its reminders stay where they came). */
  reset(key: string): void
  /** The chain of `key` is done: its counts and kept reminders go. */
  dispose(key: string): void
  /** The class's counts since the guard was made. */
  stats(): GuardStats
}

/**
 * The guard for the AI SDK 7's tool loop. `config` is the plugin's: a bad one throws its message
 * here, an unknown key is warned about.
 */
export declare function loopGuard(config?: Config | null, options?: LoopGuardOptions): LoopGuard
