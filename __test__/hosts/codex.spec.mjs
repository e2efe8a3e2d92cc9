// The hook in the real Codex CLI 0.169.0, offline against a scripted model, configured with the
// docs' snippet ($CODEX_HOME/hooks.json). The model calls `exec_command { cmd }`; the hook is told
// `Bash { command }`, and the expected reminders come from the class over the calls as the hook sees them.
import test from 'ava'

import { checkFailure, checkRepeat, checkReplay, failureCase, promptCase, repeatCase, seenCalls, stopCase } from './support/cases.mjs'
import { codex as host } from './support/codex.mjs'
import { reminderProblems, shownAfter, toldCalls } from './support/expect.mjs'
import { disposeAll, executions, explain } from './support/suite.mjs'

const a = repeatCase(host)
const b = failureCase(host)
const c = stopCase(host)
const d = promptCase(host)

test.after.always(disposeAll)

test('a: the same shell call five times: the reminders reach the model after calls 3 and 5, as the class gives them', async (t) => {
  await checkRepeat(t, host, a)
})

test('replay: the rollout of a gives the reminders the model was shown', async (t) => {
  await checkReplay(t, a)
})

test('b: a command failing with the same error for three other arguments (recommended): the failure reminder reaches the model at the 3rd', async (t) => {
  await checkFailure(t, host, b)
})

test('replay: the rollout of b gives the reminders the model was shown', async (t) => {
  await checkReplay(t, b)
})

// Codex 0.169 does not end the turn on `continue: false` from PostToolUse: it sends the model
// `stopReason` in place of the call's output and goes on. The hook's denials of every later call
// are what keep the loop from running.
test('c: stopAt 4: the 4th identical call runs, the model is told why, and every later call is denied', async (t) => {
  const result = await c.run()
  const expected = c.expected(result)
  const stop = expected[c.stopAt - 1]
  t.deepEqual(toldCalls(host, result), seenCalls(host, c.script.slice(0, c.stopAt)), explain(result))
  t.is(stop?.tier, 'stop', explain(result))
  t.is(result.exitCode, 0, explain(result))
  t.is(await executions(result), c.stopAt, explain(result))
  t.deepEqual(reminderProblems(host, result, expected, { upTo: c.stopAt }), [], explain(result))
  const later = Array.from({ length: c.script.length - c.stopAt }, (_, i) => shownAfter(host, result, c.stopAt + i))
  t.true(later.every((text) => text?.includes(stop.text)), `each later call was answered with the stop text\n${JSON.stringify(later)}\n${explain(result)}`)
  t.log(`Codex asked the model ${result.turns.length - c.stopAt} more times after the stop`)
})

test('replay: the rollout of c gives the stop where the hook stopped', async (t) => {
  await checkReplay(t, c)
})

test('d: a user prompt between calls starts the chain over (codex exec resume --last)', async (t) => {
  const { before, after } = await d.run()
  t.deepEqual(d.expected.map((r) => r?.tier ?? null), [null, null, null, null, 'gentle'])
  t.is(after.exitCode, 0, explain(after))
  const sessions = new Set([...before.hooks, ...after.hooks].map((hook) => hook.stdin.session_id))
  t.is(sessions.size, 1, `both runs are one session for the hook, so only the prompt can have reset the chain\n${explain(after)}`)
  t.deepEqual(reminderProblems(host, after, d.expected), [], explain(after))
})
