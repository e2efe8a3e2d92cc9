// Robustness through the real deepseek-harness 0.1.0-rc.8 agent loop: deep arguments,
// errors that must not escape the listener, several cordis contexts and worker threads, config
// types at load. Runs on Node >= 22.19 (the harness needs it); see scripts/test.sh.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Worker } from 'node:worker_threads'
import test from 'ava'
import * as guard from '../../index.js'
import { boot, callTool, say, reminders, toolResults, warningsOf as collectWarnings } from '../support/scripted.mjs'
import { GENTLE, detailed } from '../oracle.mjs'

const times = (n, make) => Array.from({ length: n }, (_, i) => make(i))

/** JSON text of `{ b: true, a: { b: true, a: … { q: "x" } } }`, `depth` objects deep (as text: JSON.stringify may give up sooner on some stacks). */
function nested(depth) {
  return `${'{"b":true,"a":'.repeat(depth - 1)}{"q":"x"}${'}'.repeat(depth - 1)}`
}

/** Records every warning a logger named `name` gives on `ctx`. */
const warningsOf = (ctx) => collectWarnings(ctx, guard.name)

test('in ava\'s worker: three identical calls nested 5,000 levels deep keep their tool results and get the gentle reminder', async (t) => {
  const harness = await boot({ plugin: guard, config: {} })
  const warnings = warningsOf(harness.ctx)
  const args = nested(5000)
  const a = await harness.agent('agent-deep', [...times(3, () => callTool('grep', args)), say('done')])
  await a.run()
  const events = a.events()
  t.deepEqual(toolResults(events).map((r) => r.content[0].text), ['ok:grep', 'ok:grep', 'ok:grep'], 'the tools\' own results, no error')
  t.false(toolResults(events).some((r) => r.isError))
  t.deepEqual(harness.executed, ['grep', 'grep', 'grep'])
  const got = reminders(events, guard.name)
  t.deepEqual(got.map((r) => r.text), [GENTLE])
  t.is(got[0].source.summary, 'grep × 3')
  t.deepEqual(warnings, [], 'nothing went wrong')
})

test('on a main thread\'s default stack the reference shows a stack overflow, this plugin the tool results and the reminder', async (t) => {
  const script = fileURLToPath(new URL('./robustness/deep-loop.mjs', import.meta.url))
  const { stdout } = await promisify(execFile)(process.execPath, [script], { maxBuffer: 1 << 24 })
  const seen = JSON.parse(stdout)
  const ours = seen[guard.name]
  t.deepEqual(ours.results, times(3, () => ({ text: 'ok:grep', isError: false })))
  t.deepEqual(ours.reminders, [GENTLE])
  const theirs = seen['repeat-tool-reminder']
  t.log(`reference: ${theirs.results.map((r) => r.text).join(' | ')}; ${theirs.reminders.length} reminders`)
  t.deepEqual(theirs.executed, ['grep', 'grep', 'grep'], 'the tool bodies ran in both')
})

test('deeper than JSON.stringify reaches: raw model JSON 100,000 levels deep is counted through the loop, detailed text included', async (t) => {
  const depth = 100_000
  // JSON.stringify gives up near 10,000 levels, so the model's arguments are sent as text.
  const json = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
  const harness = await boot({ plugin: guard, config: { thresholds: [2, 3], argumentsPreviewChars: 20 } })
  const a = await harness.agent('agent-deeper', [...times(3, () => callTool('grep', json)), say('done')])
  await a.run()
  const events = a.events()
  t.deepEqual(toolResults(events).map((r) => r.content[0].text), ['ok:grep', 'ok:grep', 'ok:grep'])
  t.deepEqual(reminders(events, guard.name).map((r) => r.text), [GENTLE, detailed('grep', 3, json, 20)])
})

test('an error while observing never reaches the tool pipeline; one warning per call, the inner decision untouched', async (t) => {
  // An outer listener swaps in arguments with no JSON form (or that throw when read), as a
  // misbehaving plugin could; an inner one returns its own block decision, which must come back as is.
  const hostile = [
    () => ({ n: 1n }),
    () => { const cycle = { a: 1 }; cycle.self = cycle; return cycle },
    () => undefined,
    () => Symbol('s'),
    () => () => 1,
    () => ({ get boom() { throw new Error('getter failed') } }),
    () => new Proxy({}, { ownKeys() { throw new TypeError('ownKeys failed') } }),
    () => { let v = { n: 1n }; for (let i = 0; i < 20_000; i++) v = [v]; return v },
  ]
  let call = 0
  const seen = []
  const before = (ctx) => {
    ctx.on('tools/post-execute', async (exec, _result, next) => {
      const index = call++
      // Calls 1, 3, 5, …: hostile arguments; calls 0, 2, 4, …: the model's own.
      if (index % 2 === 1) exec.arguments = hostile[(index - 1) / 2]()
      const decision = await next()
      seen.push({ index, decision })
      return decision
    })
  }
  const inner = { kind: 'block', feedback: [{ type: 'text', text: 'inner block' }] }
  const after = (ctx) => { ctx.on('tools/post-execute', () => Promise.resolve(inner)) }
  const calls = hostile.length * 2 + 1
  const harness = await boot({ plugin: guard, config: { thresholds: [hostile.length + 1] }, before, after })
  const warnings = warningsOf(harness.ctx)
  const a = await harness.agent('agent-hostile', [...times(calls, () => callTool('grep', { q: 1 })), say('done')])
  await a.run()
  const events = a.events()
  t.is(seen.length, calls)
  for (const { index, decision } of seen.filter(({ index }) => index % 2 === 1)) {
    t.is(decision, inner, `call ${index}: the guard hands back the downstream decision itself`)
  }
  t.true(toolResults(events).every((r) => JSON.stringify(r).includes('inner block')), 'every call proceeds to the inner decision')
  t.is(warnings.length, hostile.length, 'one warning per failed observation')
  for (const warning of warnings) t.regex(warning.args.map(String).join(' '), /could not observe.*grep/)
  // The failed observations neither counted nor reset: the model's own calls make a run.
  t.deepEqual(reminders(events, guard.name).map((r) => r.source.summary), [`grep × ${hostile.length + 1}`])
})

test('several cordis contexts in one process each keep their own state', async (t) => {
  const contexts = await Promise.all(times(3, () => boot({ plugin: guard, config: { thresholds: [2, 3] } })))
  const natives = contexts.map((h) => guard.guardOf(h.fiber.ctx))
  t.is(new Set(natives).size, 3, 'one native guard per context')
  // The same agent id in every context; context i sees i + 1 identical calls.
  const agents = await Promise.all(contexts.map((h, i) => h.agent('agent-same-id', [...times(i + 1, () => callTool('grep', { q: 1 })), say('done')])))
  await Promise.all(agents.map((a) => a.run()))
  t.deepEqual(agents.map((a) => reminders(a.events(), guard.name).map((r) => r.source.summary)), [[], ['grep × 2'], ['grep × 2', 'grep × 3']])
  t.deepEqual(natives.map((n) => n.agentCount), [1, 1, 1])
  await agents[1].dispose()
  t.deepEqual(natives.map((n) => n.agentCount), [1, 0, 1], 'disposing an agent in one context leaves the others alone')
})

test('the plugin boots and works in several worker threads at once', async (t) => {
  const script = new URL('./robustness/harness-worker.mjs', import.meta.url)
  const results = await Promise.all(times(3, (i) => new Promise((resolve, reject) => {
    const worker = new Worker(script, { workerData: { calls: i + 2 } })
    worker.once('message', resolve)
    worker.once('error', reject)
    worker.once('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)))
  })))
  t.deepEqual(results.map((r) => r.summaries), [[], ['grep × 3'], ['grep × 3']])
  t.deepEqual(results.map((r) => r.results), [2, 3, 4].map((n) => Array(n).fill('ok:grep')))
})

test('wrong config types fail ctx.plugin() with the exact message or a TypeError naming the field', async (t) => {
  const harness = await boot()
  const threshold = (shown, hint = '') => `repeat-tool-guard: invalid threshold ${shown} — every threshold must be an integer >= 2${hint}`
  const preview = (shown, hint = '') => `repeat-tool-guard: invalid argumentsPreviewChars ${shown} — must be an integer >= 1${hint}`
  const quoted = (n) => ` (a string, not a number: write ${n} without quotes)`
  const cases = [
    [{ thresholds: ['3', '5'] }, threshold('"3"', quoted(3))],
    [{ thresholds: [3, null] }, threshold('null')],
    [{ thresholds: [{}] }, threshold('{…}')],
    [{ thresholds: [[3]] }, threshold('[3]')],
    [{ thresholds: [true] }, threshold('true')],
    [{ thresholds: '3,5' }, 'repeat-tool-guard: `thresholds` must be an array, got the string "3,5"', TypeError],
    [{ thresholds: null }, 'repeat-tool-guard: `thresholds` must be an array, got null', TypeError],
    [{ thresholds: { 0: 3, length: 1 } }, 'repeat-tool-guard: `thresholds` must be an array, got an object', TypeError],
    [{ thresholds: 3 }, 'repeat-tool-guard: `thresholds` must be an array, got the number 3', TypeError],
    [{ argumentsPreviewChars: '500' }, preview('"500"', quoted(500))],
    [{ argumentsPreviewChars: null }, preview('null')],
    [{ argumentsPreviewChars: {} }, preview('{…}')],
    [{ argumentsPreviewChars: [500] }, preview('[500]')],
    [{ argumentsPreviewChars: true }, preview('true')],
    [{ include: null }, 'repeat-tool-guard: `include` must be an array, got null', TypeError],
    [{ include: {} }, 'repeat-tool-guard: `include` must be an array, got an object', TypeError],
    [{ include: [null] }, 'repeat-tool-guard: `include[0]` must be a string, got null', TypeError],
    [{ exclude: 'todo_write' }, 'repeat-tool-guard: `exclude` must be an array, got the string "todo_write"', TypeError],
    [{ exclude: ['a', {}] }, 'repeat-tool-guard: `exclude[1]` must be a string, got an object', TypeError],
    [{ exclude: [['a']] }, 'repeat-tool-guard: `exclude[0]` must be a string, got the array ["a"]', TypeError],
  ]
  for (const [config, message, type = Error] of cases) {
    const error = await t.throwsAsync(() => harness.ctx.plugin(guard, config), { message }, JSON.stringify(config))
    t.true(error instanceof type, `${JSON.stringify(config)}: ${type.name}`)
  }
})
