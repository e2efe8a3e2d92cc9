// ignoreArguments, similar and failures in the real deepseek-harness 0.1.0-rc.8 agent loop, with a
// scripted model: a loop whose calls carry a changing progress note, a loop of near-identical
// calls, and a tool failing the same way whatever its arguments, each caught where the reference
// sees nothing. Runs on Node >= 22.19 (the harness needs it).
import test from 'ava'
import * as reference from '@deepseek-ai/dsh-repeat-tool-reminder'
import * as guard from '../../index.js'
import { boot, callTool, callTools, say, reminders, toolResults } from '../support/scripted.mjs'
import { GENTLE } from '../oracle.mjs'

const times = (n, make) => Array.from({ length: n }, (_, i) => make(i))

/** Boots with `plugin` and `config`, runs one agent through `script` in a turn a user opened. */
async function runScript(plugin, config, script, answer = undefined) {
  const events = []
  const harness = await boot({ plugin, config, answer, before: (ctx) => { ctx.on('repeat-tool-guard/reminder', (payload) => { events.push(payload) }) } })
  const a = await harness.agent('agent-1', script)
  await a.run('go')
  const log = a.events()
  return { harness, events, reminders: reminders(log, plugin.name), results: toolResults(log) }
}

// A model re-reading one file, with a progress note that changes every time.
const progressLoop = () => [...times(5, (i) => callTool('read', { path: 'src/a.ts', task_progress: `- [x] step ${i}`, meta: { requestId: `r${i}`, retry: false } })), say('done')]

test('ignoreArguments: calls that differ only in ignored keys make a run; the detailed reminder quotes them without those keys and names them', async (t) => {
  const config = { thresholds: [3, 5], ignoreArguments: [{ tools: ['read', 'write_*'], keys: ['task_progress', 'meta.requestId'] }] }
  const run = await runScript(guard, config, progressLoop())
  t.deepEqual(run.reminders.map((r) => r.source.summary), ['read × 3', 'read × 5'])
  t.is(run.reminders[0].text, GENTLE)
  t.is(run.reminders[1].text, 'Repeated tool call detected:\n- tool: read\n- consecutive_calls: 5\n- arguments: {"meta":{"retry":false},"path":"src/a.ts"}\n- ignored_keys: task_progress, meta.requestId\nThe repeated calls are not making progress. Do not call this tool with these exact arguments again. Inspect the latest result and choose a different action, different arguments, or finish the task if enough evidence has been gathered.')
  t.true(run.results.every((r) => r.content[0].text === 'ok:read'), 'the tool results are the tool\'s own')
  const plain = await runScript(reference, { thresholds: [3, 5] }, progressLoop())
  t.deepEqual(plain.reminders, [], 'the reference sees no loop')
  const other = await runScript(guard, { thresholds: [3, 5], ignoreArguments: [{ tools: ['grep'], keys: ['task_progress', 'meta.requestId'] }] }, progressLoop())
  t.deepEqual(other.reminders, [], 'the keys count for tools the entry does not match')
})

test('similar: a run of near-identical calls gets one reminder with tier similar; the reference sees none', async (t) => {
  const queries = ['TODO', 'TODO ', 'todo', 'TODO:', 'TODOs', 'TODO(']
  const script = () => [...queries.map((q) => callTool('grep', { pattern: q, path: 'src' })), say('done')]
  const run = await runScript(guard, { similar: { minCalls: 5, similarity: 0.8 } }, script())
  t.deepEqual(run.reminders.map((r) => [r.source.summary, r.text.split('\n').slice(0, 3).join(' | ')]), [['grep ≈ 5', 'Near-identical tool calls detected: | - tool: grep | - consecutive_calls: 5']])
  t.deepEqual(run.events, [{ agent: 'agent-1', tool: 'grep', count: 5, tier: 'similar' }])
  t.deepEqual(guard.guardOf(run.harness.fiber.ctx).stats(), { observed: 6, reminders: 1, gentle: 0, detailed: 0, cycle: 0, similar: 1, noProgress: 0, failure: 0, stop: 0 })
  t.deepEqual((await runScript(reference, {}, script())).reminders, [])
})

test('similar: an excluded tool in between is transparent; another tracked tool ends the run', async (t) => {
  const near = (i) => callTool('grep', { pattern: `needle${i}` })
  const interleaved = [near(1), callTool('todo_write', { n: 1 }), near(2), callTool('todo_write', { n: 2 }), near(3), say('done')]
  const run = await runScript(guard, { exclude: ['todo_write'], similar: { minCalls: 3 } }, interleaved)
  t.deepEqual(run.reminders.map((r) => r.source.summary), ['grep ≈ 3'])
  const broken = [near(1), near(2), callTool('probe', {}), near(3), near(4), say('done')]
  t.deepEqual((await runScript(guard, { similar: { minCalls: 3 } }, broken)).reminders, [])
})

test('failures: a tool that throws the same error for every path gets one failure reminder at the 3rd call; the reference sees none', async (t) => {
  const script = () => [...times(5, (i) => callTool('read', { path: `src/missing-${i}.ts` })), say('done')]
  // The tool throws: rc.8 turns it into an error result (isError), which failures reads.
  const answer = (name) => { throw new Error(`${name}: the workspace is not mounted`) }
  const run = await runScript(guard, { failures: {} }, script(), answer)
  t.deepEqual(run.reminders.map((r) => r.source.summary), ['read ✗ 3'])
  t.true(run.reminders[0].text.startsWith('Repeated tool failures detected:\n- tool: read\n- same_error: 3 of the last 8 calls\n'), run.reminders[0].text)
  t.deepEqual(run.events, [{ agent: 'agent-1', tool: 'read', count: 3, tier: 'failure' }])
  t.true(run.results.every((r) => r.isError), 'the tool results are the tool\'s own errors')
  t.deepEqual((await runScript(reference, {}, script(), answer)).reminders, [])
  t.deepEqual((await runScript(guard, {}, script(), answer)).reminders, [], 'off by default')
})

test('perResponse: three identical calls in one response are one call of the run; the same batch in the next responses grows it', async (t) => {
  const batch = () => callTools([['grep', { q: 'x' }], ['grep', { q: 'x' }], ['grep', { q: 'x' }]])
  const script = () => [batch(), batch(), batch(), say('done')]
  const run = await runScript(guard, { perResponse: true }, script())
  t.deepEqual(run.reminders.map((r) => r.source.summary), ['grep × 3'], 'at the third response')
  t.is(run.results.length, 9, 'every call ran')
  t.deepEqual(run.events, [{ agent: 'agent-1', tool: 'grep', count: 3, tier: 'gentle' }])
  t.is(guard.guardOf(run.harness.fiber.ctx).stats().observed, 3, 'one call a response counted')
  const plain = await runScript(reference, {}, script())
  t.deepEqual(plain.reminders.map((r) => r.source.summary), ['grep × 3', 'grep × 5', 'grep × 8'], 'the reference counts each call, from the first response on')
  t.deepEqual((await runScript(guard, {}, script())).reminders.map((r) => r.source.summary), ['grep × 3', 'grep × 5', 'grep × 8'], 'so does this plugin without perResponse')
})

test('invalid ignoreArguments, similar, failures and resume reject ctx.plugin() with their exact messages', async (t) => {
  const cases = [
    [{ ignoreArguments: {} }, 'repeat-tool-guard: `ignoreArguments` must be an array, got an object'],
    [{ ignoreArguments: [{ tools: ['x'] }] }, 'repeat-tool-guard: `ignoreArguments[0].keys` must be an array, got undefined'],
    [{ ignoreArguments: [{ tools: ['x'], keys: [] }] }, 'repeat-tool-guard: `ignoreArguments[0].keys` must not be empty'],
    [{ ignoreArguments: [{ tools: ['x'], keys: ['a..b'] }] }, 'repeat-tool-guard: invalid ignoreArguments[0].keys[0] "a..b" — must be names separated by `.`, none empty (`\\.` is a dot and `\\\\` a backslash within a name)'],
    [{ similar: true }, 'repeat-tool-guard: `similar` must be an object, got the boolean true'],
    [{ similar: { minCalls: 1 } }, 'repeat-tool-guard: invalid similar.minCalls 1 — must be an integer >= 2'],
    [{ similar: { similarity: 0 } }, 'repeat-tool-guard: invalid similar.similarity 0 — must be a number greater than 0 and at most 1'],
    [{ failures: { window: 65 } }, 'repeat-tool-guard: invalid failures.window 65 — must be an integer from `minCalls` to 64'],
    [{ resume: 'yes' }, 'repeat-tool-guard: `resume` must be a boolean, got the string "yes" (YAML 1.2 reads yes as a string: write true or false)'],
  ]
  for (const [config, message] of cases) {
    const harness = await boot()
    await t.throwsAsync(() => harness.ctx.plugin(guard, config), { message }, JSON.stringify(config))
  }
})
