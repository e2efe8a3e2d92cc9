// Other detectors' published loop rules, each written here in a few lines from where its project
// describes it (named above each), for scripts/eval.mjs to set beside the guard's configs on the
// same calls. Only the rules are re-implemented, not the detectors: each sees what the replay
// feeds the guard, one executed call at a time in the harness's order (`call` answers whether the
// rule fires at it; its second argument is the input after it, if any) and the user prompts
// (`prompt`); nothing of their projects is used.
//
// Each input is `{ tool, args, result: { content, isError }, response, turn, step }` (cli/formats;
// the model response a call came in is `responseOf`, lib/history.js). An
// argument's "key-sorted JSON" is canonicalize() (the guard's, a deep key sort); "top-level keys
// sorted" leaves nested values as they are; "as given" keeps the model's key order.
import { canonicalize } from '../index.js'
import { responseOf } from '../lib/history.js'

/** `args` with its top-level keys sorted (and `skip` left out), as JSON; anything but an object as it is. */
function topSorted(args, skip = []) {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return JSON.stringify(args)
  return JSON.stringify(Object.fromEntries(Object.keys(args).sort().filter((key) => !skip.includes(key)).map((key) => [key, args[key]])))
}

/**
 * `value` as the AI SDK's hasRepeatedToolCalls serializes it for comparison: each value tagged with
 * its type, object keys sorted, -0 kept apart from 0. The replay's arguments are parsed JSON, so
 * the values it refuses (cycles, functions, class instances, ...) never come.
 */
function tagged(value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return `array:[${value.map(tagged).join(',')}]`
  if (typeof value === 'object') return `object:{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${tagged(value[key])}`).join(',')}}`
  if (typeof value === 'number') return `number:${Object.is(value, -0) ? '-0' : JSON.stringify(value)}`
  return `${typeof value}:${JSON.stringify(value)}`
}

/** A count of the same key in a row, reset by `prompt` when `resets`: `next(key)` is the count with this call. */
function streak(resets) {
  let last
  let count = 0
  return {
    prompt() {
      if (resets) last = undefined
    },
    next(key) {
      count = key === last ? count + 1 : 1
      last = key
      return count
    },
  }
}

export const PEERS = [
  {
    label: 'gemini-cli (5 in a row)',
    // google-gemini/gemini-cli, packages/core/src/services/loopDetectionService.ts: the same call
    // (name and JSON.stringify of its args, keys as given, hashed) TOOL_CALL_LOOP_THRESHOLD = 5
    // times in a row; a new user prompt resets it.
    create() {
      const calls = streak(true)
      return { prompt: calls.prompt, call: ({ tool, args }) => calls.next(`${tool}:${JSON.stringify(args)}`) >= 5 }
    },
  },
  {
    label: 'OpenHands (stuck detector)',
    // All-Hands-AI/OpenHands, openhands/controller/stuck.py, StuckDetector on the history since the
    // last user message: the last 4 actions and the last 4 observations each identical; the last 3
    // actions identical and their observations errors; the last 6 steps alternating two
    // action-observation pairs. An action is a call (name and arguments, key order ignored as dict
    // equality ignores it), an observation its result (content and error flag; OpenHands compares a
    // command's output by command and exit code, which these logs do not carry apart).
    create() {
      let steps = []
      const same = (list, key) => list.every((step) => step[key] === list[0][key])
      const alternating = (list, key) => list.every((step, i) => step[key] === list[i % 2][key])
      return {
        prompt() {
          steps = []
        },
        call({ tool, args, result }) {
          steps.push({ action: `${tool}:${canonicalize(args)}`, observation: JSON.stringify([result.content, result.isError]), error: result.isError })
          if (steps.length > 6) steps.shift()
          const [four, three, six] = [4, 3, 6].map((n) => (steps.length >= n ? steps.slice(-n) : null))
          return Boolean((four && same(four, 'action') && same(four, 'observation')) ||
            (three && same(three, 'action') && three.every((step) => step.error)) ||
            (six && alternating(six, 'action') && alternating(six, 'observation')))
        },
      }
    },
  },
  {
    label: 'Cline (3 soft, 5 hard)',
    // cline/cline, src/core/task/loop-detection.ts: the same tool with the same parameters (keys
    // sorted, task_progress left out) LOOP_DETECTION_SOFT_THRESHOLD = 3 times in a row warns, 5
    // escalates; the count lives with the task, so a user message does not reset it.
    create() {
      const calls = streak(false)
      return { prompt: calls.prompt, call: ({ tool, args }) => [3, 5].includes(calls.next(`${tool}:${topSorted(args, ['task_progress'])}`)) }
    },
  },
  {
    label: 'Roo Code (4th identical call)',
    // RooCodeInc/Roo-Code, src/core/tools/ToolRepetitionDetector.ts: a call serialized with its
    // parameter keys sorted; the count starts at 0 and grows with each identical call after it, and
    // reaching the limit (3) stops the call, so the 4th in a row; then it starts over. Browser
    // scrolls are exempt; a user message does not reset it.
    create() {
      let last = null
      let count = 0
      return {
        prompt() {},
        call({ tool, args }) {
          if (tool === 'browser_action' && ['scroll_down', 'scroll_up'].includes(args?.action)) return false
          const key = `${tool}:${topSorted(args)}`
          count = key === last ? count + 1 : 0
          last = key
          if (count < 3) return false
          last = null
          count = 0
          return true
        },
      }
    },
  },
  {
    label: 'opencode (3 in one response)',
    // sst/opencode, packages/opencode/src/session/processor.ts, the doom-loop check as a call
    // arrives: the last DOOM_LOOP_THRESHOLD = 3 parts of the model's current response are calls of
    // the same tool with the same input (JSON.stringify, keys as given).
    create() {
      let response
      let calls = streak(true)
      return {
        prompt: () => calls.prompt(),
        call(input) {
          if (input.response !== response) calls = streak(true)
          response = input.response
          return calls.next(`${input.tool}:${JSON.stringify(input.args)}`) >= 3
        },
      }
    },
  },
  {
    label: 'OpenClaw (warning at 10)',
    // openclaw/openclaw, src/agents/tool-loop-detection.ts, with the defaults docs/tools/loop-detection.md
    // documents (historySize 30, warningThreshold 10): before a call, a warning when 10 of the last
    // 30 calls were this same call (tool and key-sorted parameters), or when the calls before it
    // alternate between two and this one continues the alternation to 10 calls. The history is the
    // run's (one user prompt). Its known-poll tools and the critical thresholds (20, 30) come later.
    create() {
      let history = []
      return {
        prompt() {
          history = []
        },
        call({ tool, args }) {
          const key = `${tool}:${canonicalize(args)}`
          const last = history.at(-1)
          const other = history.findLast((h) => h !== last)
          let alternation = 0
          while (alternation < history.length && history[history.length - 1 - alternation] === (alternation % 2 ? other : last)) alternation++
          const fires = history.filter((h) => h === key).length >= 10 || (key === other && alternation >= 2 && alternation + 1 >= 10)
          history.push(key)
          if (history.length > 30) history.shift()
          return fires
        },
      }
    },
  },
  {
    label: 'AI SDK (hasRepeatedToolCalls 3)',
    // vercel/ai pull request 17610, packages/ai/src/generate-text/stop-condition.ts
    // at the pull request's latest revision, commit 45ad8f60b2 of 2026-07-29 ("addressing
    // comments"; unreleased): a stop condition, true when the run's last `count` steps (model
    // responses) each made the same calls. A step's calls are an order-independent multiset of
    // tool name and input (serialized with object keys sorted and types tagged; duplicates kept,
    // call ids ignored); a step without calls breaks the streak. It is evaluated once a step's
    // tools have run, so it fires at the step's last call; a run is one generateText call, here
    // one user prompt. count 3, as its documentation's examples (it has no default);
    // `compareResults` (results must match too) is off by default and left off.
    create() {
      const COUNT = 3
      let steps = []
      let current = null
      return {
        prompt() {
          steps = []
          current = null
        },
        call(input, next) {
          const response = responseOf(input)
          if (current?.response !== response) {
            // A response of the turn between the two made no call that ran: a step without calls.
            if (current && input.turn === current.turn && input.step > current.step + 1) steps = []
            current = { response, turn: input.turn, step: input.step, calls: [] }
          }
          current.calls.push(JSON.stringify([input.tool, tagged(input.args)]))
          if (next?.kind === 'call' && responseOf(next) === response) return false
          steps = [...steps.slice(1 - COUNT), JSON.stringify(current.calls.toSorted())]
          return steps.length === COUNT && steps.every((step) => step === steps[0])
        },
      }
    },
  },
]

/** The call (counted from 1) at which `peer` first fires over `inputs` (prompts and calls), or null. */
export function firstFiring(peer, inputs) {
  const detector = peer.create()
  let calls = 0
  for (const [i, input] of inputs.entries()) {
    if (input.kind === 'prompt') detector.prompt()
    if (input.kind !== 'call') continue
    calls++
    // The input after the call too: a rule evaluated once a response's calls have all run (the
    // AI SDK's) tells from it whether the response ends here.
    if (detector.call(input, inputs[i + 1])) return calls
  }
  return null
}
