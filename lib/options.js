// The config schema the cordis plugin declares: one field per option that core/src/options.rs
// declares, rendered from it between the OPTIONS lines. The known keys and tiers are in keys.js.
import Schema from '@deepseek-ai/schemastery'

// `any` on purpose: the native constructor validates every value with the documented
// messages and applies defaults only to absent keys. A typed schema with defaults
// would reject with other messages, or put defaults in place of `null`.
// BEGIN OPTIONS: rendered from core/src/options.rs, checked by core/tests/options.rs
export const OPTION_SCHEMA = Schema.object({
  thresholds: Schema.any().description('Run lengths that bring a reminder, integers >= 2 (sorted): the first gentle, later ones detailed. Default: [3, 5, 8].'),
  argumentsPreviewChars: Schema.any().description('UTF-16 code units of arguments quoted in the detailed reminder, an integer >= 1 (never limits detection). Default: 500.'),
  include: Schema.any().description('Tool-name patterns to track; empty means every tool. Default: [].'),
  exclude: Schema.any().description('Tool-name patterns transparent to the chain: neither counted nor breaking a run. Default: [].'),
  profile: Schema.any().description('`recommended` turns on the detections measured to catch the most stuck runs at the fewest reminders in solved ones (docs/DETECTION.md): today `noProgress` and `failures` at their defaults and `similar` at 8 calls 0.9 alike. Explicit keys override it. Default: none.'),
  cycles: Schema.any().description('Opt-in: remind once when a block of 2 to `maxPeriod` (at most 5) calls repeats `repeats` (>= 2) times back to back; both required. Default: off.'),
  sameResultOnly: Schema.any().description('Opt-in: a run grows only while the results (`content` and `isError`) are equal too. Default: false.'),
  overrides: Schema.any().description('Opt-in: per-tool thresholds; the first entry with a pattern matching the tool wins. Default: [].'),
  repeatEvery: Schema.any().description('Opt-in: past the last threshold, a detailed reminder every this many further calls of the run, an integer >= 1. Default: off.'),
  ignoreArguments: Schema.any().description('Opt-in: for tools matching `tools`, the argument keys named in `keys` (dotted paths into nested objects, `\\.` for a dot within a name) are left out of the comparison. Default: [].'),
  similar: Schema.any().description('Opt-in: remind once when `minCalls` (default 5) calls of one tool in a row each differ from the last but are at least `similarity` (default 0.85) alike. Default: off.'),
  noProgress: Schema.any().description('Opt-in: remind when `minCalls` (default 6) of the agent\'s last `window` (default 16) calls are the same call with the same result, volatile parts (numbers, ids, timestamps) left out. Default: off.'),
  failures: Schema.any().description('Opt-in: remind when `minCalls` (default 3) of the agent\'s last `window` (default 8) calls are one tool failing with the same error, with other arguments each time (a result flagged `isError: true`, or with an error word such as `error`, `not found` or `failed` in its first 512 bytes), volatile parts left out. Calls with the same arguments count once: the same call failing again is a repeat, for the run rule and `noProgress`. Default: off.'),
  perResponse: Schema.any().description('Opt-in: identical calls made together in one model response count once (the agent\'s last call again in the same response neither grows its run nor brings a reminder); the same call in the next response does. The plugin tells responses apart by the harness\'s steps; the class by `nextResponse(agentId)`. Default: false.'),
  stopAt: Schema.any().description('Opt-in hard stop: once a run of identical calls, `similar`\'s run of near-identical ones, `noProgress`\'s count of the same call and result, or `failures`\' count of the same error, reaches this many (an integer >= 2), the plugin ends the agent\'s turn and says why. Default: off.'),
  resume: Schema.any().description('Opt-in: an agent resumed on a persisted session continues its chains, rebuilt from the session\'s calls since the last user prompt. Default: false.'),
})
// END OPTIONS
