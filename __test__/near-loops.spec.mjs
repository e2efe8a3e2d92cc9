// ignoreArguments, similar, resume's restore() and the session-log reading behind resume, through
// the RepeatToolGuard class and lib/history.js (the addon suite).
import test from 'ava'
import { RepeatToolGuard } from '../index.js'
import { callsSinceLastPrompt, guardInputs } from '../lib/history.js'

/** Observes `calls` ([tool, args]) for one agent; returns [call number, tier, count] per reminder. */
function fired(guard, calls, agent = 'a') {
  return calls
    .map(([tool, args]) => guard.observe(agent, tool, args))
    .map((r, i) => r && [i + 1, r.tier, r.count])
    .filter(Boolean)
}

function fails(t, config, message, type) {
  const error = t.throws(() => new RepeatToolGuard(config), { instanceOf: type }, JSON.stringify(config))
  t.is(error.message, message, JSON.stringify(config))
  if (type === Error) t.false(error instanceof TypeError, `${message} is not a TypeError`)
}

test('ignoreArguments: wrong types are TypeErrors naming the entry; empty lists and bad key paths fail loud', (t) => {
  fails(t, { ignoreArguments: 'task_progress' }, 'repeat-tool-guard: `ignoreArguments` must be an array, got the string "task_progress"', TypeError)
  fails(t, { ignoreArguments: [null] }, 'repeat-tool-guard: `ignoreArguments[0]` must be an object, got null', TypeError)
  fails(t, { ignoreArguments: [{ keys: ['a'] }] }, 'repeat-tool-guard: `ignoreArguments[0].tools` must be an array, got undefined', TypeError)
  fails(t, { ignoreArguments: [{ tools: [], keys: ['a'] }] }, 'repeat-tool-guard: `ignoreArguments[0].tools` must not be empty', Error)
  fails(t, { ignoreArguments: [{ tools: ['*'], keys: ['a', 3] }] }, 'repeat-tool-guard: `ignoreArguments[0].keys[1]` must be a string, got the number 3', TypeError)
  for (const [bad, shown] of [['', '""'], ['.a', '".a"'], ['a.', '"a."'], ['a\\b', '"a\\\\b"'], ['a\\', '"a\\\\"']]) {
    fails(t, { ignoreArguments: [{ tools: ['*'], keys: [bad] }] }, `repeat-tool-guard: invalid ignoreArguments[0].keys[0] ${shown} — must be names separated by \`.\`, none empty (\`\\.\` is a dot and \`\\\\\` a backslash within a name)`, Error)
  }
})

test('ignoreArguments: dotted paths reach into nested objects; a name with a dot is written with \\.', (t) => {
  const guard = new RepeatToolGuard({ thresholds: [2, 3], ignoreArguments: [{ tools: ['*'], keys: ['meta.id', 'x\\.y'] }] })
  const calls = [1, 2, 3].map((i) => ['write', { path: 'a', meta: { id: i, keep: true }, 'x.y': i, x: { y: 1 } }])
  t.deepEqual(fired(guard, calls), [[2, 'gentle', 2], [3, 'detailed', 3]])
  const detailed = new RepeatToolGuard({ thresholds: [2, 3], ignoreArguments: [{ tools: ['*'], keys: ['meta.id', 'x\\.y'] }] })
  const texts = calls.map(([tool, args]) => detailed.observe('a', tool, args)?.text).filter(Boolean)
  t.true(texts[1].includes('- arguments: {"meta":{"keep":true},"path":"a","x":{"y":1}}\n- ignored_keys: meta.id, x\\.y\n'), texts[1])
  // An array in the way: paths never reach into arrays, so the calls differ.
  const arrays = new RepeatToolGuard({ thresholds: [2], ignoreArguments: [{ tools: ['*'], keys: ['list.id'] }] })
  t.deepEqual(fired(arrays, [['t', { list: [{ id: 1 }] }], ['t', { list: [{ id: 2 }] }]]), [])
})

test('similar: validation, and its defaults (minCalls 5, similarity 0.85)', (t) => {
  fails(t, { similar: [] }, 'repeat-tool-guard: `similar` must be an object, got the array []', TypeError)
  fails(t, { similar: { minCalls: 2.5 } }, 'repeat-tool-guard: invalid similar.minCalls 2.5 — must be an integer >= 2', Error)
  fails(t, { similar: { similarity: 1.5 } }, 'repeat-tool-guard: invalid similar.similarity 1.5 — must be a number greater than 0 and at most 1', Error)
  fails(t, { similar: { similarity: '0.9' } }, 'repeat-tool-guard: invalid similar.similarity "0.9" — must be a number greater than 0 and at most 1 (a string, not a number: write 0.9 without quotes)', Error)
  const guard = new RepeatToolGuard({ similar: {} })
  const calls = Array.from({ length: 6 }, (_, i) => ['grep', { pattern: 'function handleRequest', path: `src/server${i}.ts` }])
  t.deepEqual(fired(guard, calls), [[5, 'similar', 5]])
  const far = new RepeatToolGuard({ similar: {} })
  t.deepEqual(fired(far, ['a', 'bb', 'ccc', 'dddd', 'eeeee', 'ffffff'].map((q) => ['grep', { q }])), [], 'calls that change a lot are no near-identical run')
})

test('similar: a huge argument is sampled, not compared whole: only its head counts', (t) => {
  const guard = new RepeatToolGuard({ similar: { minCalls: 3, similarity: 1 } })
  const head = 'x'.repeat(1000)
  t.deepEqual(fired(guard, [1, 2, 3].map((i) => ['write', { content: `${head}${'y'.repeat(1 << 20)}${i}` }])), [[3, 'similar', 3]])
})

test('restore() moves the chain as observe() would, with no reminder and no count', (t) => {
  const guard = new RepeatToolGuard({ thresholds: [3, 5], exclude: ['todo_write'] })
  for (let i = 0; i < 4; i++) t.is(guard.restore('a', 'grep', { q: 1 }), undefined)
  guard.restore('a', 'todo_write', {})
  t.deepEqual(guard.stats(), { observed: 0, reminders: 0, gentle: 0, detailed: 0, cycle: 0, similar: 0, noProgress: 0, failure: 0, stop: 0 })
  t.is(guard.observe('a', 'grep', { q: 1 }).count, 5)
  t.throws(() => guard.restore('a', 'grep', 1n), { instanceOf: TypeError })
  t.is(guard.observe('a', 'grep', { q: 1 }), null, 'the run goes on: 6')
  t.throws(() => guard.restore(1, 'grep', {}), { instanceOf: TypeError, message: 'repeat-tool-guard: agentId must be a string, got number' })
})

/** A session log in the harness's shapes. */
function log(...events) {
  return events.map((event, seq) => ({ seq, ...event }))
}
const prompt = (text, kind = 'user') => ({ type: 'user/message', data: { content: [{ type: 'text', text }], source: { kind } } })
const call = (callId, name, args) => ({ type: 'tool/call', data: { turn: 1, step: 2, callId, name, arguments: args } })
const result = (callId, text, code) => ({
  type: 'tool/result',
  data: { message: { source: { kind: 'tool', callId }, content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }], isError: code !== undefined }] }, ...(code ? { error: { name: 'Error', code } } : {}) },
})

test('a session log is read as the plugin met it: prompts, and calls at their results with parsed arguments', (t) => {
  const events = log(
    prompt('go'), call('c1', 'grep', '{"q":1}'), call('c2', 'read', ''), result('c1', 'one'), result('c2', 'two'),
    prompt('a reminder', 'plugin'), call('c3', 'grep', '{"q":'), result('c3', 'three'), { type: 'session/end-seed', data: {} },
    call('c4', 'grep', '{}'), result('c4', 'aborted', 'ABORTED_BEFORE_DISPATCH'), call('c5', 'grep', '{}'), result('c5', 'lost', 'TOOL_OUTCOME_UNKNOWN'), call('c6', 'grep', '{}'),
  )
  t.deepEqual([...guardInputs(events)], [
    { kind: 'prompt', seq: 0 },
    { kind: 'call', seq: 3, turn: 1, step: 2, tool: 'grep', args: { q: 1 }, result: { content: [{ type: 'text', text: 'one' }], isError: false } },
    { kind: 'call', seq: 4, turn: 1, step: 2, tool: 'read', args: {}, result: { content: [{ type: 'text', text: 'two' }], isError: false } },
    { kind: 'call', seq: 7, turn: 1, step: 2, tool: 'grep', args: '{"q":', result: { content: [{ type: 'text', text: 'three' }], isError: false } },
    { kind: 'lifecycle', seq: 8 },
  ])
  t.deepEqual([...guardInputs(events, { from: 4 })].map((input) => input.seq), [7, 8], 'from seq 4: the calls begun before it are not paired')
  t.deepEqual(callsSinceLastPrompt(events).map((c) => c.seq), [3, 4, 7], 'a plugin\'s message is no prompt')
  t.deepEqual(callsSinceLastPrompt([...events, ...log(prompt('again')).map((e) => ({ ...e, seq: 99 }))]), [])
})
