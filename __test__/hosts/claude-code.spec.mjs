// The hook in the real Claude Code 2.1.328, offline against a scripted model, configured with the
// docs' snippet (the project's .claude/settings.json). Each case checks what the model was shown
// against RepeatToolGuard run over the same calls, and replays the transcript Claude Code left.
import test from 'ava'

import { configPath, failureCase, promptCase, repeatCase, seenCalls, stopCase } from './support/cases.mjs'
import { claudeCode as host } from './support/claude-code.mjs'
import { reminderProblems, replay, replayProblems, toldCalls, transcriptText } from './support/expect.mjs'
import { disposeAll, executions, explain } from './support/suite.mjs'

const a = repeatCase(host)
const b = failureCase(host)
const c = stopCase(host)
const d = promptCase(host)

test.after.always(disposeAll)

test('a: the same Bash call five times: the reminders reach the model after calls 3 and 5, as the class gives them', async (t) => {
  const result = await a.run()
  t.deepEqual(a.expected.map((r) => r?.tier ?? null), [null, null, 'gentle', null, 'detailed'])
  t.is(result.exitCode, 0, explain(result))
  t.is(await executions(result), 5, explain(result))
  t.deepEqual(reminderProblems(host, result, a.expected), [], explain(result))
  t.is(result.turns.at(-1).kind, 'final', 'the client went on to the final answer')
})

test('replay: the transcript of a gives the reminders the model was shown', async (t) => {
  const result = await a.run()
  t.deepEqual(replayProblems(await replay(result.transcriptPath), a.expected), [], result.transcriptPath)
})

test('b: Bash failing with the same error for three other commands (recommended): the failure reminder reaches the model at the 3rd', async (t) => {
  const result = await b.run()
  const expected = b.expected(result)
  t.deepEqual(toldCalls(host, result), seenCalls(host, b.script), explain(result))
  t.deepEqual(expected.map((r) => r?.tier ?? null), [null, null, 'failure'], explain(result))
  t.true(result.hooks.some((hook) => hook.stdin.hook_event_name === 'PostToolUseFailure'), 'a failed Bash call is a PostToolUseFailure')
  t.deepEqual(reminderProblems(host, result, expected), [], explain(result))
})

test('replay: the transcript of b gives the reminders the model was shown', async (t) => {
  const result = await b.run()
  t.deepEqual(replayProblems(await replay(result.transcriptPath, configPath(result)), b.expected(result)), [], result.transcriptPath)
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
  const result = await c.run()
  t.deepEqual(replayProblems(await replay(result.transcriptPath, configPath(result)), c.expected(result)), [], result.transcriptPath)
})

test('d: a user prompt between calls starts the chain over (a second -p run resuming the session)', async (t) => {
  const { before, after } = await d.run()
  t.deepEqual(d.expected.map((r) => r?.tier ?? null), [null, null, null, null, 'gentle'])
  t.is(after.exitCode, 0, explain(after))
  const sessions = new Set([...before.hooks, ...after.hooks].map((hook) => hook.stdin.session_id))
  t.is(sessions.size, 1, `both runs are one session for the hook, so only the prompt can have reset the chain\n${explain(after)}`)
  t.deepEqual(reminderProblems(host, after, d.expected), [], explain(after))
})
