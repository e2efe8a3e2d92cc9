// The hook in the real Gemini CLI 0.61.0, offline against a scripted model, configured with the
// docs' snippet (the hooks of ~/.gemini/settings.json). Gemini CLI's own loop detector, which ends
// the turn at 5 identical calls, is off (`model.disableLoopDetection`, gemini-cli.mjs): case a
// needs the 5th call, and case c must show the hook's stop, not the detector's.
import test from 'ava'

import { checkFailure, checkRepeat, checkReplay, failureCase, repeatCase, seenCalls, stopCase } from './support/cases.mjs'
import { geminiCli as host } from './support/gemini-cli.mjs'
import { reminderProblems, toldCalls, transcriptText } from './support/expect.mjs'
import { disposeAll, executions, explain } from './support/suite.mjs'

const a = repeatCase(host)
const b = failureCase(host)
const c = stopCase(host)

test.after.always(disposeAll)

test('a: the same run_shell_command call five times: the reminders reach the model after calls 3 and 5, as the class gives them', async (t) => {
  await checkRepeat(t, host, a)
})

test('replay: the chat log of a gives the reminders the model was shown', async (t) => {
  await checkReplay(t, a)
})

test('b: a command failing with the same error for three other arguments (recommended): the failure reminder reaches the model at the 3rd', async (t) => {
  await checkFailure(t, host, b)
})

test('replay: the chat log of b gives the reminders the model was shown', async (t) => {
  await checkReplay(t, b)
})

test('c: stopAt 4: the turn ends at the 4th identical call, which runs, and the chat log holds why', async (t) => {
  const result = await c.run()
  const expected = c.expected(result)
  const stop = expected[c.stopAt - 1]
  t.deepEqual(toldCalls(host, result), seenCalls(host, c.script.slice(0, c.stopAt)), explain(result))
  t.is(stop?.tier, 'stop', explain(result))
  t.is(result.exitCode, 0, explain(result))
  t.is(await executions(result), c.stopAt, explain(result))
  // The 4th call's result is never sent: the model was last asked after the 3rd call.
  t.deepEqual(result.turns.map((r) => r.kind), ['step', 'step', 'step', 'step'], explain(result))
  t.deepEqual(reminderProblems(host, result, expected), [], explain(result))
  t.true((await transcriptText(result.transcriptPath)).includes(stop.text), `the stop text is in the chat log\n${explain(result)}`)
})

test('replay: the chat log of c gives the stop where the hook stopped', async (t) => {
  await checkReplay(t, c)
})
