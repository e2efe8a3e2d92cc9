// The plugin in the real deepseek-harness 0.1.0-rc.8 agent loop, with a scripted model.
// Runs on Node >= 22.19 (the harness needs it); see scripts/test.sh.
import { readFileSync, writeFileSync } from 'node:fs'
import test from 'ava'
import * as reference from '@deepseek-ai/dsh-repeat-tool-reminder'
import * as guard from '../../index.js'
import { boot, callTool, say, reminders, toolResults, createUserMessage, warningsOf } from '../support/scripted.mjs'
import { GENTLE, detailed } from '../oracle.mjs'
import { KNOWN_KEYS } from '../../lib/keys.js'

const times = (n, make) => Array.from({ length: n }, (_, i) => make(i))

/** Runs one agent through `script` with `plugin`; returns its log, reminders and tool results. */
async function runScript(plugin, config, script, options = {}) {
  const harness = await boot({ plugin, config, ...options })
  const a = await harness.agent('agent-1', script)
  await a.run('go')
  const events = a.events()
  return { harness, events, reminders: reminders(events, plugin.name), results: toolResults(events) }
}

/** Scenarios run through both this plugin and the TypeScript reference: the reminders must match. */
const scenarios = {
  'escalation at 3/5/8, nothing past 8': {
    config: { thresholds: [3, 5, 8] },
    script: [...times(10, () => callTool('grep', { q: 'same' })), say('done')],
    expect: [GENTLE, detailed('grep', 5, '{"q":"same"}'), detailed('grep', 8, '{"q":"same"}')],
  },
  'gentle keyed to the first of unsorted custom thresholds': {
    config: { thresholds: [4, 2] },
    script: [...times(4, () => callTool('probe', {})), say('done')],
    expect: [GENTLE, detailed('probe', 4, '{}')],
  },
  'the preview cap, cutting inside a surrogate pair': {
    config: { thresholds: [2, 3], argumentsPreviewChars: 9 },
    script: [...times(3, () => callTool('grep', { s: '😀😀😀' })), say('done')],
    expect: [GENTLE, detailed('grep', 3, '{"s":"😀😀😀"}', 9)],
  },
  'a different tracked call resets the run': {
    config: { thresholds: [3] },
    script: [callTool('grep', { q: 1 }), callTool('grep', { q: 1 }), callTool('grep', { q: 2 }), callTool('grep', { q: 2 }), callTool('read', { q: 2 }), callTool('read', { q: 2 }), callTool('read', { q: 2 }), say('done')],
    expect: [GENTLE],
  },
  'excluded calls are transparent (grep X, todo_write, grep X counts two)': {
    config: { thresholds: [2], exclude: ['todo_write'] },
    script: [callTool('grep', { q: 'X' }), callTool('todo_write', { items: [1] }), callTool('grep', { q: 'X' }), say('done')],
    expect: [GENTLE],
  },
  'include globs select the tracked tools': {
    config: { thresholds: [2], include: ['gr*'] },
    script: [callTool('grep', { q: 'X' }), callTool('read', {}), callTool('grep', { q: 'X' }), callTool('read', {}), say('done')],
    expect: [GENTLE],
  },
  'regex metacharacters in patterns match literally': {
    config: { thresholds: [2], exclude: ['gr.p', 'rea?', '[probe]'] },
    script: [callTool('grep', {}), callTool('grep', {}), callTool('read', {}), callTool('read', {}), callTool('probe', {}), callTool('probe', {}), say('done')],
    expect: [GENTLE, GENTLE, GENTLE],
  },
  'argument property order does not matter': {
    config: { thresholds: [3] },
    script: [callTool('grep', { a: 1, b: { d: 2, c: 3 } }), callTool('grep', { b: { c: 3, d: 2 }, a: 1 }), callTool('grep', { b: { d: 2, c: 3 }, a: 1 }), say('done')],
    expect: [GENTLE],
  },
  'malformed argument JSON counts by its raw text': {
    config: { thresholds: [2, 3] },
    script: [...times(3, () => callTool('grep', '{"q": oops')), say('done')],
    expect: [GENTLE, detailed('grep', 3, '"{\\"q\\": oops"')],
  },
  // Unregistered tool names reach tools/post-execute as the model sent them, lone surrogates too.
  'tool names differing only in a lone surrogate are different tools, named exactly': {
    config: { thresholds: [2, 3] },
    script: [callTool('x\uD800', {}), ...times(3, () => callTool('x\uDBFF', '{"q":"\\ud800"}')), say('done')],
    expect: [GENTLE, detailed('x\uDBFF', 3, '{"q":"\\ud800"}')],
  },
  'exclude: U+FFFD does not exclude a lone surrogate': {
    config: { thresholds: [2], exclude: ['x\uFFFD'] },
    script: [...times(2, () => callTool('x\uD800', {})), say('done')],
    expect: [GENTLE],
  },
  'exclude: a lone surrogate excludes only itself': {
    config: { thresholds: [2], exclude: ['x\uD800'] },
    script: [callTool('x\uDBFF', {}), callTool('x\uD800', {}), callTool('x\uDBFF', {}), callTool('x\uD800', {}), say('done')],
    expect: [GENTLE],
  },
  'include: * takes one code unit, half of a surrogate pair too': {
    config: { thresholds: [2], include: ['a*\uDE00'] },
    script: [...times(2, () => callTool('a😀', {})), say('done')],
    expect: [GENTLE],
  },
}

for (const [title, { config, script, expect }] of Object.entries(scenarios)) {
  test(`${title} (same reminders as the reference)`, async (t) => {
    const ours = await runScript(guard, config, structuredClone(script))
    const theirs = await runScript(reference, config, structuredClone(script))
    t.deepEqual(ours.reminders.map((r) => r.text), expect)
    t.deepEqual(ours.reminders.map((r) => r.text), theirs.reminders.map((r) => r.text))
    t.deepEqual(ours.reminders.map((r) => r.seq), theirs.reminders.map((r) => r.seq), 'recorded at the same place in the log')
    t.deepEqual(ours.reminders.map((r) => ({ ...r.source, plugin: 'reference' })), theirs.reminders.map((r) => ({ ...r.source, plugin: 'reference' })))
    t.true(ours.reminders.every((r) => r.source.plugin === 'repeat-tool-guard' && r.source.form === 'notice'))
    t.deepEqual(ours.results, theirs.results, 'tool results are the tools\' own')
  })
}

test('two agents interleaving keep separate chains', async (t) => {
  const harness = await boot({ plugin: guard, config: { thresholds: [3] } })
  const a = await harness.agent('agent-a', [...times(3, () => callTool('grep', { q: 'a' })), say('a done')])
  const b = await harness.agent('agent-b', [...times(2, () => callTool('grep', { q: 'a' })), say('b done')])
  await Promise.all([a.run(), b.run()])
  t.deepEqual(reminders(a.events()).map((r) => r.source.summary), ['grep × 3'])
  t.deepEqual(reminders(b.events()), [], 'two calls of b are not added to a\'s three')
})

test('agents whose ids differ only in a lone surrogate keep separate chains, as in the reference', async (t) => {
  const run = async (plugin) => {
    const harness = await boot({ plugin, config: { thresholds: [3, 4] } })
    const a = await harness.agent('a\uD800', [...times(3, () => callTool('grep', { q: 'a' })), say('a done'), callTool('grep', { q: 'a' }), say('again')])
    const b = await harness.agent('a\uDBFF', [...times(2, () => callTool('grep', { q: 'a' })), say('b done')])
    await Promise.all([a.run(), b.run()])
    // A third agent, disposed: its id differs from a's in a lone surrogate only.
    const c = await harness.agent('a\uFFFD', [say('c done')])
    await c.run()
    await c.dispose()
    await a.run('keep going', 'plugin')
    return [a, b].map((agent) => reminders(agent.events(), plugin.name).map((r) => [r.source.summary, r.text]))
  }
  const ours = await run(guard)
  const fourth = detailed('grep', 4, '{"q":"a"}')
  t.deepEqual(ours, [[['grep × 3', GENTLE], ['grep × 4', fourth]], []], 'a reaches 3 alone, b has two calls, and neither c\'s prompt nor its disposal touched a\'s chain')
  t.deepEqual(ours, await run(reference))
})

test('a user prompt resets the chain; a plugin follow-up does not', async (t) => {
  const harness = await boot({ plugin: guard, config: { thresholds: [3] } })
  const user = await harness.agent('agent-user', [callTool('grep', {}), callTool('grep', {}), say('first'), callTool('grep', {}), say('second')])
  await user.run('first', 'user')
  await user.run('second', 'user')
  t.deepEqual(reminders(user.events()), [])
  const followup = await harness.agent('agent-followup', [callTool('grep', {}), callTool('grep', {}), say('first'), callTool('grep', {}), say('second')])
  await followup.run('first', 'user')
  await followup.run('keep going', 'plugin')
  t.deepEqual(reminders(followup.events(), 'repeat-tool-guard').map((r) => r.source.summary), ['grep × 3'])
})

test('agent disposal drops its state', async (t) => {
  const harness = await boot({ plugin: guard, config: {} })
  const native = guard.guardOf(harness.fiber.ctx)
  const a = await harness.agent('agent-d', [callTool('grep', {}), say('done')])
  await a.run()
  t.is(native.agentCount, 1)
  await a.dispose()
  t.is(native.agentCount, 0)
})

test('calls denied in tools/pre-execute still count', async (t) => {
  const before = (ctx) => { ctx.on('tools/pre-execute', () => Promise.resolve({ kind: 'deny', reason: 'no' })) }
  const run = await runScript(guard, { thresholds: [3, 5] }, [...times(5, () => callTool('grep', {})), say('done')], { before })
  t.deepEqual(run.harness.executed, [], 'the tool body never ran')
  t.deepEqual(run.reminders.map((r) => r.source.summary), ['grep × 3', 'grep × 5'])
  t.true(run.results.every((r) => r.isError))
})

test('direct ctx.tools.execute() calls, without an agent, are ignored', async (t) => {
  const harness = await boot({ plugin: guard, config: { thresholds: [2] } })
  for (let i = 0; i < 4; i++) {
    const result = await harness.ctx.tools.execute({ callId: `direct-${i}`, name: 'grep', arguments: {}, signal: new AbortController().signal })
    t.deepEqual(result.additionalContexts ?? [], [])
  }
  t.is(guard.guardOf(harness.fiber.ctx).agentCount, 0)
})

test('the reminder goes in front of an inner listener\'s block decision and its contexts, which are kept', async (t) => {
  const after = (ctx) => {
    ctx.on('tools/post-execute', () => Promise.resolve({
      kind: 'block',
      feedback: [{ type: 'text', text: 'blocked by policy' }],
      additionalContexts: [createUserMessage({ content: [{ type: 'text', text: 'inner context' }], source: { kind: 'plugin', plugin: 'inner', form: 'notice', summary: 'inner' } })],
    }))
  }
  const run = await runScript(guard, { thresholds: [2] }, [...times(2, () => callTool('grep', {})), say('done')], { after })
  const contexts = reminders(run.events)
  t.deepEqual(contexts.map((r) => r.source.plugin), ['inner', 'repeat-tool-guard', 'inner'])
  t.true(contexts[1].seq < contexts[2].seq, 'the reminder comes first')
  t.is(contexts[1].text, GENTLE)
  t.true(run.results.every((r) => JSON.stringify(r.content).includes('blocked by policy')), 'the block\'s feedback is what the model sees')
})

test('the reminder goes in front of an inner accept\'s contexts, which are kept', async (t) => {
  const after = (ctx) => {
    ctx.on('tools/post-execute', () => Promise.resolve({
      kind: 'accept',
      additionalContexts: [createUserMessage({ content: [{ type: 'text', text: 'inner note' }], source: { kind: 'plugin', plugin: 'inner', form: 'notice', summary: 'inner' } })],
    }))
  }
  const run = await runScript(guard, { thresholds: [2] }, [...times(2, () => callTool('grep', {})), say('done')], { after })
  t.deepEqual(reminders(run.events).map((r) => `${r.source.plugin}:${r.text.slice(0, 10)}`), ['inner:inner note', 'repeat-tool-guard:You are re', 'inner:inner note'])
  t.true(run.results.every((r) => r.content[0].text === 'ok:grep'))
})

test('every invalid config rejects ctx.plugin() with its exact message', async (t) => {
  const cases = [
    [{ thresholds: [] }, 'repeat-tool-guard: `thresholds` must not be empty'],
    [{ thresholds: [3, 2.5] }, 'repeat-tool-guard: invalid threshold 2.5 — every threshold must be an integer >= 2'],
    [{ thresholds: [1] }, 'repeat-tool-guard: invalid threshold 1 — every threshold must be an integer >= 2'],
    [{ thresholds: ['3'] }, 'repeat-tool-guard: invalid threshold "3" — every threshold must be an integer >= 2 (a string, not a number: write 3 without quotes)'],
    [{ thresholds: [3, 3] }, 'repeat-tool-guard: `thresholds` must not contain duplicates'],
    [{ argumentsPreviewChars: 0 }, 'repeat-tool-guard: invalid argumentsPreviewChars 0 — must be an integer >= 1'],
    [{ argumentsPreviewChars: '20' }, 'repeat-tool-guard: invalid argumentsPreviewChars "20" — must be an integer >= 1 (a string, not a number: write 20 without quotes)'],
    [{ thresholds: null }, 'repeat-tool-guard: `thresholds` must be an array, got null'],
    [{ include: 'grep' }, 'repeat-tool-guard: `include` must be an array, got the string "grep"'],
    [5, 'repeat-tool-guard: the config must be an object, got the number 5'],
    ['thresholds: [3]', 'repeat-tool-guard: the config must be an object, got the string "thresholds: [3]"'],
    [[], 'repeat-tool-guard: the config must be an object, got the array []'],
    [[{ thresholds: [3] }], 'repeat-tool-guard: the config must be an object, got the array [{…}]'],
    [true, 'repeat-tool-guard: the config must be an object, got the boolean true'],
  ]
  for (const [config, message] of cases) {
    const harness = await boot()
    await t.throwsAsync(() => harness.ctx.plugin(guard, config), { message }, JSON.stringify(config))
  }
})

test('an unknown config key gets one warning naming it and the known keys; the transcript stays the reference\'s', async (t) => {
  const config = { thresholdz: [1], thresholds: [2, 3], exclude_tools: ['x'] }
  const script = [...times(3, () => callTool('grep', { q: 1 })), say('done')]
  let warnings
  const ours = await runScript(guard, config, structuredClone(script), { before: (ctx) => { warnings = warningsOf(ctx, guard.name) } })
  const theirs = await runScript(reference, config, structuredClone(script))
  // Every declared option, in validation order: the reference's four first.
  const known = KNOWN_KEYS.join(', ')
  t.true(known.startsWith('thresholds, argumentsPreviewChars, include, exclude, profile, '), known)
  t.deepEqual(warnings.map((w) => w.args.map(String).join(' ')), [
    `%s unknown config key "thresholdz" is ignored (known keys: ${known})`,
    `%s unknown config key "exclude_tools" is ignored (known keys: ${known})`,
  ])
  t.deepEqual(ours.reminders.map((r) => r.text), [GENTLE, detailed('grep', 3, '{"q":1}')])
  t.deepEqual(ours.reminders.map((r) => [r.seq, r.text]), theirs.reminders.map((r) => [r.seq, r.text]))
  t.deepEqual(ours.results, theirs.results)
})

test('a config written as a list gets the one message that it is not an object, no unknown-key warnings', async (t) => {
  const harness = await boot()
  const warnings = warningsOf(harness.ctx, guard.name)
  await t.throwsAsync(() => harness.ctx.plugin(guard, [{ thresholds: [3] }, { exclude: ['todo_write'] }]), {
    instanceOf: TypeError,
    message: 'repeat-tool-guard: the config must be an object, got the array [{…}, {…}]',
  })
  t.deepEqual(warnings, [])
})

test('snapshot: the scripted replay pins both reminder tiers in the transcript', async (t) => {
  const run = await runScript(guard, { thresholds: [3, 5, 8] }, [...times(5, () => callTool('probe', { q: 'same' }, undefined)), say('done')])
  const normalized = run.events
    .filter((e) => ['step/start', 'tool/call', 'tool/result', 'user/message', 'turn/end'].includes(e.type))
    .map((e) => normalize({ seq: e.seq, type: e.type, data: e.data }))
  const file = new URL('./snapshots/scripted-replay.json', import.meta.url)
  const actual = `${JSON.stringify(normalized, null, 2)}\n`
  if (process.env.UPDATE_SNAPSHOTS === '1') writeFileSync(file, actual)
  t.is(actual, readFileSync(file, 'utf8'), 'run with UPDATE_SNAPSHOTS=1 to accept a deliberate change')
  const pinned = normalized.filter((e) => e.type === 'user/message' && e.data.source.kind === 'plugin')
  t.deepEqual(pinned.map((e) => e.data.content[0].text), [GENTLE, detailed('probe', 5, '{"q":"same"}')])
})

/** Replaces ids and timestamps, which change on every run. */
function normalize(value) {
  return JSON.parse(JSON.stringify(value, (key, v) => {
    if (key === 'id' || key === 'timestamp' || key === 'time' || key === 'ts') return '<normalized>'
    if ((key === 'callId' || key === 'toolCallId') && typeof v === 'string') return v.replace(/\d+$/, 'N')
    return v
  }))
}
