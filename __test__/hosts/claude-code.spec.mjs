// The hook in the real Claude Code 2.1.328, offline against a scripted model, configured with the
// docs' snippet (the project's .claude/settings.json). Each case checks what the model was shown
// against RepeatToolGuard run over the same calls, and replays the transcript Claude Code left.
import test from 'ava'

import { checkFailure, checkRepeat, checkReplay, failureCase, promptCase, repeatCase, seenCalls, stopCase } from './support/cases.mjs'
import { claudeCode as host } from './support/claude-code.mjs'
import { reminderProblems, toldCalls, transcriptText } from './support/expect.mjs'
import { disposeAll, executions, explain } from './support/suite.mjs'

const a = repeatCase(host)
const b = failureCase(host)
const c = stopCase(host)
const d = promptCase(host)

test.after.always(disposeAll)

test('a: the same Bash call five times: the reminders reach the model after calls 3 and 5, as the class gives them', async (t) => {
  await checkRepeat(t, host, a)
})

test('replay: the transcript of a gives the reminders the model was shown', async (t) => {
  await checkReplay(t, a)
})

test('b: Bash failing with the same error for three other commands (recommended): the failure reminder reaches the model at the 3rd', async (t) => {
  const result = await checkFailure(t, host, b)
  t.true(result.hooks.some((hook) => hook.stdin.hook_event_name === 'PostToolUseFailure'), 'a failed Bash call is a PostToolUseFailure')
})

test('replay: the transcript of b gives the reminders the model was shown', async (t) => {
  await checkReplay(t, b)
})

test('c: stopAt 4: the turn ends at the 4th identical call, which runs, and the transcript holds why', async (t) => {
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
  t.true((await transcriptText(result.transcriptPath)).includes(stop.text), `the stop text is in the transcript\n${explain(result)}`)
})

test('replay: the transcript of c gives the stop where the hook stopped', async (t) => {
  await checkReplay(t, c)
})

test('d: a user prompt between calls starts the chain over (a second -p run resuming the session)', async (t) => {
  const { before, after } = await d.run()
  t.deepEqual(d.expected.map((r) => r?.tier ?? null), [null, null, null, null, 'gentle'])
  t.is(after.exitCode, 0, explain(after))
  const sessions = new Set([...before.hooks, ...after.hooks].map((hook) => hook.stdin.session_id))
  t.is(sessions.size, 1, `both runs are one session for the hook, so only the prompt can have reset the chain\n${explain(after)}`)
  t.deepEqual(reminderProblems(host, after, d.expected), [], explain(after))
})
