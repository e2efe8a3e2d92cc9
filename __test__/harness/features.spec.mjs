// The opt-in features in the real deepseek-harness 0.1.0-rc.8 agent loop, with a
// scripted model: cycles, sameResultOnly, overrides, repeatEvery, the repeat-tool-guard/reminder
// event and stats(); and, with every feature absent or disabled, transcripts identical to the
// reference's. Runs on Node >= 22.19 (the harness needs it); see scripts/test.sh.
import test from 'ava'
import { defineContentToolFixture } from '@deepseek-ai/dsh-tools'
import * as reference from '@deepseek-ai/dsh-repeat-tool-reminder'
import * as guard from '../../index.js'
import { boot, callTool, say, reminders, toolResults } from '../support/scripted.mjs'
import { GENTLE, detailed } from '../oracle.mjs'

const times = (n, make) => Array.from({ length: n }, (_, i) => make(i))
const CYCLE_TEXT = (tools, n) => `Repeated cycle of tool calls detected:\n- tools: ${tools.join(', ')}\n- consecutive_repetitions: ${n}\nThe same sequence of calls, with identical arguments, keeps coming back and is not making progress. Do not repeat this sequence again. Inspect the latest results and choose a different action, different arguments, or finish the task if enough evidence has been gathered.`

/** Registers a tool whose body is `execute(args)` (returns text, or throws for an error result). */
function tool(ctx, name, execute) {
  ctx.tools.register(defineContentToolFixture({
    name,
    description: name,
    parameters: {},
    async execute(args) {
      return [{ type: 'text', text: await execute(args) }]
    },
  }))
}

/** Boots with `plugin` and `config`, runs one agent through `script`; `before` may add tools and listeners. */
async function runScript(plugin, config, script, { before, id = 'agent-1' } = {}) {
  const events = []
  const harness = await boot({
    plugin,
    config,
    before: async (ctx) => {
      ctx.on('repeat-tool-guard/reminder', (payload) => { events.push(payload) })
      if (before) await before(ctx)
    },
  })
  const a = await harness.agent(id, script)
  await a.run('go')
  const log = a.events()
  return { harness, a, log, events, reminders: reminders(log, plugin.name), results: toolResults(log) }
}

test('cycles: an alternating read/grep loop gets one cycle reminder, with its block in the source', async (t) => {
  const script = [...times(8, (i) => (i % 2 ? callTool('grep', { q: 'x' }) : callTool('read', { path: 'a' }))), say('done')]
  // The scripted model consumes its script: each run gets its own copy.
  const run = await runScript(guard, { cycles: { maxPeriod: 3, repeats: 3 } }, structuredClone(script))
  t.deepEqual(run.reminders.map((r) => r.text), [CYCLE_TEXT(['read', 'grep'], 3)])
  t.deepEqual(run.reminders.map((r) => r.source), [{ kind: 'plugin', plugin: 'repeat-tool-guard', form: 'notice', summary: '(read, grep) × 3' }])
  t.deepEqual(run.events, [{ agent: 'agent-1', tool: 'grep', count: 3, tier: 'cycle' }])
  t.deepEqual(run.results.map((r) => r.content[0].text), times(8, (i) => (i % 2 ? 'ok:grep' : 'ok:read')), 'tool results are the tools\' own')
  const plain = await runScript(reference, {}, structuredClone(script))
  t.deepEqual(plain.reminders, [], 'the reference sees no loop here')
})

test('cycles: period 3 in the loop; after the cycle breaks and forms anew it fires again', async (t) => {
  const block = () => [callTool('read', { p: 1 }), callTool('grep', { q: 1 }), callTool('probe', {})]
  const script = [...block(), ...block(), ...block(), callTool('todo_write', {}), ...block(), ...block(), say('done')]
  const run = await runScript(guard, { cycles: { maxPeriod: 3, repeats: 2 } }, structuredClone(script))
  t.deepEqual(run.reminders.map((r) => r.source.summary), ['(read, grep, probe) × 2', '(read, grep, probe) × 2'])
  t.deepEqual(run.events.map((e) => e.tool), ['probe', 'probe'])
  const excluded = await runScript(guard, { cycles: { maxPeriod: 3, repeats: 2 }, exclude: ['todo_write'] }, structuredClone(script))
  t.deepEqual(excluded.reminders.map((r) => r.source.summary), ['(read, grep, probe) × 2'], 'an excluded call does not break it')
})

test('cycles: a user prompt resets the agent\'s cycle state; two agents keep their own', async (t) => {
  const harness = await boot({ plugin: guard, config: { cycles: { maxPeriod: 2, repeats: 2 } } })
  const a = await harness.agent('agent-a', [callTool('read', {}), callTool('grep', {}), callTool('read', {}), say('first'), callTool('grep', {}), callTool('read', {}), say('second')])
  const b = await harness.agent('agent-b', [callTool('grep', {}), callTool('read', {}), callTool('grep', {}), callTool('read', {}), say('b')])
  await Promise.all([a.run('first'), b.run('go')])
  await a.run('second', 'user')
  t.deepEqual(reminders(a.events()), [], 'read, grep, read | prompt | grep, read: no cycle across the prompt')
  t.deepEqual(reminders(b.events()).map((r) => r.source.summary), ['(grep, read) × 2'])
})

test('sameResultOnly: polling that returns new data is not a loop; an unchanged result is', async (t) => {
  let polls = 0
  const before = (ctx) => tool(ctx, 'poll', () => `progress ${Math.min(++polls, 5)}`)
  const script = () => [...times(7, () => callTool('poll', { job: 1 })), say('done')]
  const run = await runScript(guard, { sameResultOnly: true, thresholds: [3] }, script(), { before })
  t.deepEqual(run.results.map((r) => r.content[0].text), ['progress 1', 'progress 2', 'progress 3', 'progress 4', 'progress 5', 'progress 5', 'progress 5'])
  t.deepEqual(run.reminders.map((r) => [r.text, r.source.summary]), [[GENTLE, 'poll × 3']], 'the 5th to 7th results are equal')
  t.is(run.log.filter((e) => e.type === 'user/message' && e.data.source?.plugin === 'repeat-tool-guard').length, 1)
  polls = 0
  const plain = await runScript(guard, { thresholds: [3] }, script(), { before })
  t.deepEqual(plain.reminders.map((r) => r.source.summary), ['poll × 3'], 'without it, the 3rd poll is flagged')
})

test('sameResultOnly: an error result differs from a success with the same text', async (t) => {
  let calls = 0
  const before = (ctx) => tool(ctx, 'build', () => {
    if (++calls % 2 === 0) throw new Error('failed')
    return 'failed'
  })
  const script = [...times(6, () => callTool('build', {})), say('done')]
  const run = await runScript(guard, { sameResultOnly: true, thresholds: [2] }, script, { before })
  t.deepEqual(run.results.map((r) => r.isError === true), [false, true, false, true, false, true])
  t.deepEqual(run.reminders, [])
  calls = 0
  const denied = await runScript(guard, { sameResultOnly: true, thresholds: [2, 3] }, [...times(3, () => callTool('grep', {})), say('done')], {
    before: (ctx) => { ctx.on('tools/pre-execute', () => Promise.resolve({ kind: 'deny', reason: 'no' })) },
  })
  t.deepEqual(denied.reminders.map((r) => r.text), [GENTLE, detailed('grep', 3, '{}')], 'the same denial each time is the same result')
})

test('noProgress: a test re-run between edits that keeps failing the same way, its line number growing, is reminded', async (t) => {
  let runs = 0
  const before = (ctx) => {
    tool(ctx, 'run_tests', () => `/bin/bash: line ${++runs * 37}: make: *** No rule to make target 'test'`)
    tool(ctx, 'edit', ({ text }) => `edited: ${text}`)
  }
  const script = [...times(6, (i) => [callTool('run_tests', {}), callTool('edit', { text: `fix ${i}` })]).flat(), say('done')]
  const run = await runScript(guard, { noProgress: { minCalls: 4, window: 8 } }, structuredClone(script), { before })
  t.deepEqual(run.reminders.map((r) => r.source), [{ kind: 'plugin', plugin: 'repeat-tool-guard', form: 'notice', summary: 'run_tests ⟳ 4' }])
  t.true(run.reminders[0].text.startsWith('Tool calls without progress detected:\n- tool: run_tests\n- same_call_same_result: 4 of the last 8 calls\n'))
  t.deepEqual(run.events, [{ agent: 'agent-1', tool: 'run_tests', count: 4, tier: 'noProgress' }])
  t.deepEqual(new Set(run.results.filter((_, i) => i % 2 === 0).map((r) => r.content[0].text)).size, 6, 'each result differs as it is')
  runs = 0
  const plain = await runScript(reference, {}, structuredClone(script), { before })
  t.deepEqual(plain.reminders, [], 'the reference sees no loop here')
  runs = 0
  const recommended = await runScript(guard, { profile: 'recommended' }, structuredClone(script), { before })
  t.deepEqual(recommended.reminders.map((r) => r.source.summary), ['run_tests ⟳ 6'], "profile 'recommended': 6 in 16")
})

test('noProgress: a poll whose status moves is progress', async (t) => {
  let polls = 0
  const before = (ctx) => tool(ctx, 'poll', () => `job 1: ${['queued', 'running', 'building', 'testing', 'done'][Math.min(polls++, 4)]} (request ${polls}a7f)`)
  const script = [...times(5, () => [callTool('poll', { job: 1 }), callTool('read', { path: 'log' })]).flat(), say('done')]
  const run = await runScript(guard, { noProgress: { minCalls: 3, window: 10 } }, structuredClone(script), { before })
  t.deepEqual(run.reminders.map((r) => r.source.summary), ['read ⟳ 3'], 'only the unchanged read is flagged')
})

test('stopAt: the guard ends the turn through concludeTurn, says why, and emits its event; the result stays the tool\'s', async (t) => {
  const script = [...times(8, () => callTool('grep', { q: 'x' })), say('done')]
  const run = await runScript(guard, { stopAt: 4 }, structuredClone(script))
  // The 4th call ends the turn; rc.8 runs one more step for the message to be read, and the call
  // the model still makes there (the 5th, still at the bound) ends it with nothing left to read.
  t.deepEqual(run.results.map((r) => r.content[0].text), times(5, () => 'ok:grep'), 'no call after the 5th')
  t.deepEqual(run.reminders.map((r) => r.source.summary), ['grep × 3', 'grep × 4: turn ended'])
  t.true(run.reminders[1].text.startsWith('Tool call loop stopped:\n- tool: grep\n- calls: 4, the limit'))
  // One event per stop: the 5th call ends the same turn again, without a message or an event.
  t.deepEqual(run.events.map((e) => [e.tier, e.count]), [['gentle', 3], ['stop', 4]])
  t.is(run.log.filter((e) => e.type === 'turn/end').length, 1)
  t.false(run.log.some((e) => e.type === 'assistant/message' && JSON.stringify(e.data).includes('done')), 'the model never got to say done')
  const plain = await runScript(guard, {}, structuredClone(script))
  t.is(plain.results.length, 8, 'without stopAt all 8 calls run')
})

test('overrides: a tool\'s own thresholds; first match wins; others keep the global ones', async (t) => {
  const config = { thresholds: [4], overrides: [{ tools: ['pro*'], thresholds: [2] }, { tools: ['probe', 'grep'], thresholds: [3] }] }
  const script = [...times(3, () => callTool('probe', { q: 1 })), ...times(4, () => callTool('grep', { q: 1 })), ...times(4, () => callTool('read', {})), say('done')]
  const run = await runScript(guard, config, script)
  t.deepEqual(run.reminders.map((r) => [r.text, r.source.summary]), [[GENTLE, 'probe × 2'], [GENTLE, 'grep × 3'], [GENTLE, 'read × 4']])
  const detailedToo = await runScript(guard, { overrides: [{ tools: ['grep'], thresholds: [2, 4] }] }, [...times(4, () => callTool('grep', { q: 1 })), say('done')])
  t.deepEqual(detailedToo.reminders.map((r) => r.text), [GENTLE, detailed('grep', 4, '{"q":1}')])
})

test('repeatEvery: the reminders keep coming past the last threshold (3, 5, 8, then 12, 16, 20)', async (t) => {
  const script = [...times(21, () => callTool('grep', { q: 'same' })), say('done')]
  const run = await runScript(guard, { thresholds: [3, 5, 8], repeatEvery: 4 }, script)
  t.deepEqual(run.reminders.map((r) => r.source.summary), [3, 5, 8, 12, 16, 20].map((n) => `grep × ${n}`))
  t.deepEqual(run.reminders.map((r) => r.text), [GENTLE, ...[5, 8, 12, 16, 20].map((n) => detailed('grep', n, '{"q":"same"}'))])
  t.deepEqual(run.events.map((e) => [e.count, e.tier]), [[3, 'gentle'], [5, 'detailed'], [8, 'detailed'], [12, 'detailed'], [16, 'detailed'], [20, 'detailed']])
})

test('the repeat-tool-guard/reminder event: one per delivered reminder, { agent, tool, count, tier }', async (t) => {
  const script = [...times(5, () => callTool('grep', { q: 1 })), say('done')]
  const run = await runScript(guard, {}, script, { id: 'agent-events' })
  t.deepEqual(run.events, [
    { agent: 'agent-events', tool: 'grep', count: 3, tier: 'gentle' },
    { agent: 'agent-events', tool: 'grep', count: 5, tier: 'detailed' },
  ])
  t.deepEqual(Object.keys(run.events[0]), ['agent', 'tool', 'count', 'tier'])
  t.deepEqual(guard.guardOf(run.harness.fiber.ctx).stats(), { observed: 5, reminders: 2, gentle: 1, detailed: 1, cycle: 0, similar: 0, noProgress: 0, failure: 0, stop: 0 })
})

test('a throwing or rejecting event listener never fails the tool call, and the others still hear the event', async (t) => {
  // ava fails the test on an unhandled rejection, so the async listener's failure must be caught too.
  const heard = []
  const before = (ctx) => {
    ctx.on('repeat-tool-guard/reminder', () => { throw new Error('listener broke') })
    ctx.on('repeat-tool-guard/reminder', async () => { throw new Error('async listener broke') })
    ctx.on('repeat-tool-guard/reminder', (e) => { heard.push(e.count) })
  }
  const script = [...times(3, () => callTool('grep', {})), say('done')]
  const run = await runScript(guard, { thresholds: [2, 3] }, script, { before })
  t.deepEqual(run.results.map((r) => r.content[0].text), ['ok:grep', 'ok:grep', 'ok:grep'], 'every call succeeded')
  t.deepEqual(run.reminders.map((r) => r.text), [GENTLE, detailed('grep', 3, '{}')])
  t.deepEqual(heard, [2, 3])
  t.deepEqual(run.events, [{ agent: 'agent-1', tool: 'grep', count: 2, tier: 'gentle' }, { agent: 'agent-1', tool: 'grep', count: 3, tier: 'detailed' }])
})

test('no event for a reminder that is not delivered (an inner listener fails the pipeline)', async (t) => {
  const harness = await boot({ plugin: guard, config: { thresholds: [2] } })
  const heard = []
  harness.ctx.on('repeat-tool-guard/reminder', (e) => { heard.push(e) })
  harness.ctx.on('tools/post-execute', () => Promise.reject(new Error('inner failure')))
  const a = await harness.agent('agent-fail', [callTool('grep', {}), callTool('grep', {}), say('done')])
  await a.run('go')
  t.deepEqual(reminders(a.events(), 'repeat-tool-guard'), [], 'nothing delivered')
  t.deepEqual(heard, [], 'nothing announced')
  t.is(guard.guardOf(harness.fiber.ctx).stats().gentle, 1, 'the guard did count it')
})

test('invalid opt-in configs reject ctx.plugin() with their exact messages', async (t) => {
  const cases = [
    [{ cycles: null }, 'repeat-tool-guard: `cycles` must be an object, got null'],
    [{ cycles: { maxPeriod: 1, repeats: 2 } }, 'repeat-tool-guard: invalid cycles.maxPeriod 1 — must be an integer from 2 to 5'],
    [{ cycles: { maxPeriod: 6, repeats: 2 } }, 'repeat-tool-guard: invalid cycles.maxPeriod 6 — must be an integer from 2 to 5'],
    [{ cycles: { maxPeriod: 2, repeats: 1 } }, 'repeat-tool-guard: invalid cycles.repeats 1 — must be an integer >= 2'],
    [{ sameResultOnly: 'yes' }, 'repeat-tool-guard: `sameResultOnly` must be a boolean, got the string "yes" (YAML 1.2 reads yes as a string: write true or false)'],
    [{ overrides: [{ tools: 'grep', thresholds: [2] }] }, 'repeat-tool-guard: `overrides[0].tools` must be an array, got the string "grep"'],
    [{ overrides: [{ tools: ['grep'], thresholds: [1] }] }, 'repeat-tool-guard: invalid threshold 1 — every threshold must be an integer >= 2'],
    [{ repeatEvery: 0 }, 'repeat-tool-guard: invalid repeatEvery 0 — must be an integer >= 1'],
  ]
  for (const [config, message] of cases) {
    const harness = await boot()
    await t.throwsAsync(() => harness.ctx.plugin(guard, config), { message }, JSON.stringify(config))
  }
})

/** The model-visible transcript: step, call, result and message events, ids and the plugin name normalized. */
function transcript(log) {
  return JSON.parse(JSON.stringify(
    log.filter((e) => ['step/start', 'tool/call', 'tool/result', 'user/message', 'turn/end'].includes(e.type)).map((e) => ({ seq: e.seq, type: e.type, data: e.data })),
    (key, v) => {
      if (key === 'id' || key === 'timestamp' || key === 'time' || key === 'ts') return '<normalized>'
      if ((key === 'callId' || key === 'toolCallId') && typeof v === 'string') return v.replace(/\d+$/, 'N')
      if (key === 'plugin' && (v === guard.name || v === reference.name)) return '<guard>'
      return v
    },
  ))
}

test('with every opt-in key absent or disabled, the transcript is the reference\'s', async (t) => {
  const script = () => [
    ...times(9, () => callTool('grep', { q: 'same' })),
    ...times(6, (i) => (i % 2 ? callTool('read', {}) : callTool('probe', {}))),
    ...times(3, () => callTool('probe', { b: 1, a: 2 })),
    say('done'),
  ]
  const theirs = transcript((await runScript(reference, { thresholds: [3, 5, 8] }, script())).log)
  t.true(theirs.filter((e) => e.type === 'user/message' && e.data.source.kind === 'plugin').length === 4)
  for (const config of [
    { thresholds: [3, 5, 8] },
    { thresholds: [3, 5, 8], sameResultOnly: false, overrides: [] },
    { thresholds: [3, 5, 8], cycles: undefined, repeatEvery: undefined },
    // Enabled but never reached: a cycle of 50 repetitions, a tool that is never called.
    { thresholds: [3, 5, 8], cycles: { maxPeriod: 5, repeats: 50 }, overrides: [{ tools: ['absent'], thresholds: [2] }] },
    { thresholds: [3, 5, 8], ignoreArguments: [], resume: false },
    // Enabled but never reached: no key of these calls is ignored, no run of near-identical calls is long enough.
    { thresholds: [3, 5, 8], ignoreArguments: [{ tools: ['*'], keys: ['absent', 'q.x'] }], similar: { minCalls: 50 }, resume: true },
  ]) {
    const ours = await runScript(guard, config, script())
    t.deepEqual(transcript(ours.log), theirs, JSON.stringify(config))
  }
})
