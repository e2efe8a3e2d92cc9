// The scripted loops every host spec runs, each run once and read by several tests: the model's
// script, the guard's config, and the reminders the class gives for the calls as the hook sees them.
import { join } from 'node:path'

import { expectedReminders, hookCalls, reminderProblems, replay, replayProblems, toldCalls } from './expect.mjs'
import { repeat } from './script.mjs'
import { RAN_LOG, executions, explain, once, run } from './suite.mjs'

export const LOOP_COMMAND = `echo ran >> ${RAN_LOG}`

// A tool that is not there fails with the same error whatever its arguments: the `failures` rule.
export const failingCommand = (input) => `echo ran >> ${RAN_LOG}; nosuchtool --input ${input}`

/** The config file a run's project holds (the replay reads it with --config). */
export const configPath = (result) => join(result.box.project, '.repeat-tool-guard.json')

/** The script's calls as `host`'s hook is told them (`{ tool, args }`). */
export const seenCalls = (host, script) => script.map((call) => host.seen(call.args.command ?? call.args.cmd))

/** a: the same shell call five times, the defaults (no config file: the snippet alone). */
export function repeatCase(host) {
  const script = repeat(host.shell(LOOP_COMMAND), 5)
  const expected = expectedReminders({}, seenCalls(host, script))
  return { script, expected, run: once(() => run(host, { script })) }
}

/** b: one tool failing with the same error for three other arguments, under the recommended profile. */
export function failureCase(host) {
  const config = { profile: 'recommended' }
  const script = ['a.txt', 'b.txt', 'c.txt'].map((input) => host.shell(failingCommand(input)))
  return {
    script,
    config,
    run: once(() => run(host, { script, config, tap: true })),
    // The results are what the hook got: read from its stdins (lib/host-results.js).
    expected: (result) => expectedReminders(config, hookCalls(host, result.hooks)),
  }
}

/** c: stopAt 4, the model asking for the same call `times` times. */
export function stopCase(host, { stopAt = 4, times = 8 } = {}) {
  const config = { stopAt }
  const script = repeat(host.shell(LOOP_COMMAND), times)
  return {
    script,
    config,
    stopAt,
    run: once(() => run(host, { script, config, tap: true })),
    // The calls the hook was told had run (a denied call never runs: no post-call event).
    expected: (result) => expectedReminders(config, hookCalls(host, result.hooks)),
  }
}

/** d: two calls, a user prompt (a second run resuming the session), three calls. */
export function promptCase(host) {
  const first = repeat(host.shell(LOOP_COMMAND), 2)
  const second = repeat(host.shell(LOOP_COMMAND), 3)
  const calls = seenCalls(host, first)
  const expected = expectedReminders({}, [...calls, 'prompt', ...seenCalls(host, second)])
  return {
    expected,
    run: once(async () => {
      const before = await run(host, { script: first, tap: true, prompt: 'Run the check.' })
      const after = await run(host, { script: second, box: before.box, resume: true, prompt: 'Run it again.' })
      return { before, after }
    }),
  }
}

/** What case a shows on every host: the reminders reach the model after calls 3 and 5, as the class gives them, and the client goes on to its final answer. */
export async function checkRepeat(t, host, a) {
  const result = await a.run()
  t.deepEqual(a.expected.map((r) => r?.tier ?? null), [null, null, 'gentle', null, 'detailed'])
  t.is(result.exitCode, 0, explain(result))
  t.is(await executions(result), 5, explain(result))
  t.deepEqual(reminderProblems(host, result, a.expected), [], explain(result))
  t.is(result.turns.at(-1).kind, 'final', 'the client went on to the final answer')
}

/** What case b shows on every host: the calls as the hook is told them, and the failure reminder reaching the model at the 3rd. The run, for a host's own checks. */
export async function checkFailure(t, host, b) {
  const result = await b.run()
  const expected = b.expected(result)
  t.deepEqual(toldCalls(host, result), seenCalls(host, b.script), explain(result))
  t.deepEqual(expected.map((r) => r?.tier ?? null), [null, null, 'failure'], explain(result))
  t.deepEqual(reminderProblems(host, result, expected), [], explain(result))
  return result
}

/** That the replay of a case's transcript (with its project's config, for a case that has one) gives the reminders the model was shown. */
export async function checkReplay(t, kase) {
  const result = await kase.run()
  const expected = typeof kase.expected === 'function' ? kase.expected(result) : kase.expected
  const replayed = await replay(result.transcriptPath, kase.config === undefined ? undefined : configPath(result))
  t.deepEqual(replayProblems(replayed, expected), [], result.transcriptPath)
}
