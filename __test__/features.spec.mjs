// The opt-in features through the RepeatToolGuard class (the addon suite):
// cycles, sameResultOnly, overrides, repeatEvery and stats(), their validation, and the default
// behaviour with each of them absent or explicitly disabled.
import test from 'ava'
import { RepeatToolGuard } from '../index.js'
import { GENTLE, detailed } from './oracle.mjs'

const times = (n, call) => Array.from({ length: n }, () => call)

/** Observes `calls` ([tool, args, result?]) for one agent; returns [call number, tier, count] per reminder. */
function fired(guard, calls, agent = 'a') {
  return calls
    .map(([tool, args, ...result]) => guard.observe(agent, tool, args, ...result))
    .map((r, i) => r && [i + 1, r.tier, r.count])
    .filter(Boolean)
}

/** `n` repetitions of a block of calls. */
const repeat = (n, block) => Array.from({ length: n }, () => block).flat()

const CYCLE_TEXT = (tools, n) => `Repeated cycle of tool calls detected:\n- tools: ${tools.join(', ')}\n- consecutive_repetitions: ${n}\nThe same sequence of calls, with identical arguments, keeps coming back and is not making progress. Do not repeat this sequence again. Inspect the latest results and choose a different action, different arguments, or finish the task if enough evidence has been gathered.`

function fails(t, config, message, type = Error) {
  const error = t.throws(() => new RepeatToolGuard(config), { instanceOf: type }, JSON.stringify(config))
  t.is(error.message, message, JSON.stringify(config))
  if (type === Error) t.false(error instanceof TypeError, `${message} is not a TypeError`)
}

// ---- validation -------------------------------------------------------------------------------

/** What follows a message for a string that reads as the number `n` where a number belongs. */
const QUOTED = (n) => ` (a string, not a number: write ${n} without quotes)`

test('cycles: wrong types are TypeErrors; maxPeriod outside 2..5 and repeats below 2 fail loud', (t) => {
  for (const [value, got] of [[null, 'null'], [3, 'the number 3'], ['2,3', 'the string "2,3"'], [true, 'the boolean true'], [[2, 3], 'the array [2, 3]'], [() => 1, 'a function']]) {
    fails(t, { cycles: value }, `repeat-tool-guard: \`cycles\` must be an object, got ${got}`, TypeError)
  }
  for (const [value, shown, hint = ''] of [[1, '1'], [6, '6'], [0, '0'], [2.5, '2.5'], [NaN, 'NaN'], [Infinity, 'Infinity'], ['3', '"3"', QUOTED(3)], [null, 'null'], [undefined, 'undefined'], [[3], '[3]'], [true, 'true']]) {
    fails(t, { cycles: { maxPeriod: value, repeats: 2 } }, `repeat-tool-guard: invalid cycles.maxPeriod ${shown} — must be an integer from 2 to 5${hint}`)
  }
  for (const [value, shown, hint = ''] of [[1, '1'], [0, '0'], [-2, '-2'], [2.5, '2.5'], [NaN, 'NaN'], [Infinity, 'Infinity'], ['3', '"3"', QUOTED(3)], [null, 'null'], [undefined, 'undefined']]) {
    fails(t, { cycles: { maxPeriod: 2, repeats: value } }, `repeat-tool-guard: invalid cycles.repeats ${shown} — must be an integer >= 2${hint}`)
  }
  fails(t, { cycles: {} }, 'repeat-tool-guard: invalid cycles.maxPeriod undefined — must be an integer from 2 to 5')
  for (const maxPeriod of [2, 3, 4, 5]) t.notThrows(() => new RepeatToolGuard({ cycles: { maxPeriod, repeats: 2, other: 'ignored' } }))
  t.notThrows(() => new RepeatToolGuard({ cycles: { maxPeriod: 2, repeats: 1e21 } }))
})

test('sameResultOnly must be a boolean; repeatEvery an integer >= 1', (t) => {
  for (const [value, got] of [[null, 'null'], ['true', 'the string "true" (a string, not a boolean: write true without quotes)'], ['yes', 'the string "yes" (YAML 1.2 reads yes as a string: write true or false)'], ['maybe', 'the string "maybe"'], [1, 'the number 1'], [{}, 'an object'], [[true], 'the array [true]']]) {
    fails(t, { sameResultOnly: value }, `repeat-tool-guard: \`sameResultOnly\` must be a boolean, got ${got}`, TypeError)
  }
  for (const [value, shown, hint = ''] of [[0, '0'], [-0, '0'], [-1, '-1'], [1.5, '1.5'], [NaN, 'NaN'], [Infinity, 'Infinity'], ['4', '"4"', QUOTED(4)], [null, 'null'], [false, 'false'], [[], '[]']]) {
    fails(t, { repeatEvery: value }, `repeat-tool-guard: invalid repeatEvery ${shown} — must be an integer >= 1${hint}`)
  }
  t.notThrows(() => new RepeatToolGuard({ sameResultOnly: false, repeatEvery: 1 }))
})

test('overrides: malformed entries are TypeErrors naming the entry; thresholds are checked like the global ones', (t) => {
  const good = { tools: ['a'], thresholds: [2] }
  fails(t, { overrides: null }, 'repeat-tool-guard: `overrides` must be an array, got null', TypeError)
  fails(t, { overrides: { tools: ['a'], thresholds: [2] } }, 'repeat-tool-guard: `overrides` must be an array, got an object', TypeError)
  fails(t, { overrides: 'a' }, 'repeat-tool-guard: `overrides` must be an array, got the string "a"', TypeError)
  fails(t, { overrides: [good, 1] }, 'repeat-tool-guard: `overrides[1]` must be an object, got the number 1', TypeError)
  fails(t, { overrides: [null] }, 'repeat-tool-guard: `overrides[0]` must be an object, got null', TypeError)
  fails(t, { overrides: [[good]] }, 'repeat-tool-guard: `overrides[0]` must be an object, got the array [{…}]', TypeError)
  fails(t, { overrides: [{ thresholds: [2] }] }, 'repeat-tool-guard: `overrides[0].tools` must be an array, got undefined', TypeError)
  fails(t, { overrides: [{ tools: 'a', thresholds: [2] }] }, 'repeat-tool-guard: `overrides[0].tools` must be an array, got the string "a"', TypeError)
  fails(t, { overrides: [{ tools: ['a', 1], thresholds: [2] }] }, 'repeat-tool-guard: `overrides[0].tools[1]` must be a string, got the number 1', TypeError)
  fails(t, { overrides: [{ tools: [], thresholds: [2] }] }, 'repeat-tool-guard: `overrides[0].tools` must not be empty')
  fails(t, { overrides: [{ tools: ['a'] }] }, 'repeat-tool-guard: `overrides[0].thresholds` must be an array, got undefined', TypeError)
  fails(t, { overrides: [good, { tools: ['a'], thresholds: null }] }, 'repeat-tool-guard: `overrides[1].thresholds` must be an array, got null', TypeError)
  fails(t, { overrides: [{ tools: ['a'], thresholds: [] }] }, 'repeat-tool-guard: `overrides[0].thresholds` must not be empty')
  for (const [value, shown, hint = ''] of [[1, '1'], [2.5, '2.5'], ['3', '"3"', QUOTED(3)], [null, 'null'], [NaN, 'NaN']]) {
    fails(t, { overrides: [{ tools: ['a'], thresholds: [3, value] }] }, `repeat-tool-guard: invalid threshold ${shown} — every threshold must be an integer >= 2${hint}`)
  }
  fails(t, { overrides: [{ tools: ['a'], thresholds: [4, 4] }] }, 'repeat-tool-guard: `overrides[0].thresholds` must not contain duplicates')
  t.notThrows(() => new RepeatToolGuard({ overrides: [] }))
})

test('the reference\'s keys are validated first, then cycles, sameResultOnly, overrides, repeatEvery', (t) => {
  const all = { cycles: null, sameResultOnly: null, overrides: null, repeatEvery: null }
  fails(t, { ...all, thresholds: [] }, 'repeat-tool-guard: `thresholds` must not be empty')
  fails(t, { ...all, exclude: 1 }, 'repeat-tool-guard: `exclude` must be an array, got the number 1', TypeError)
  fails(t, all, 'repeat-tool-guard: `cycles` must be an object, got null', TypeError)
  fails(t, { ...all, cycles: undefined }, 'repeat-tool-guard: `sameResultOnly` must be a boolean, got null', TypeError)
  fails(t, { ...all, cycles: undefined, sameResultOnly: undefined }, 'repeat-tool-guard: `overrides` must be an array, got null', TypeError)
  fails(t, { repeatEvery: null }, 'repeat-tool-guard: invalid repeatEvery null — must be an integer >= 1')
})

// ---- cycles -----------------------------------------------------------------------------------

test('cycles: a period-2 cycle fires once, naming the block in order, with tier cycle', (t) => {
  const guard = new RepeatToolGuard({ cycles: { maxPeriod: 3, repeats: 3 } })
  const calls = repeat(5, [['read_file', { path: 'a' }], ['grep', { q: 'x' }]])
  const reminders = calls.map(([tool, args]) => guard.observe('a', tool, args))
  t.deepEqual(reminders.map((r, i) => r && i + 1).filter(Boolean), [6], 'once, at the third repetition, not again while it continues')
  const reminder = reminders[5]
  t.is(reminder.tier, 'cycle')
  t.is(reminder.count, 3)
  t.deepEqual(reminder.tools, ['read_file', 'grep'])
  t.is(reminder.text, CYCLE_TEXT(['read_file', 'grep'], 3))
})

test('cycles: period 3, and the same tool with different arguments in the block', (t) => {
  const guard = new RepeatToolGuard({ cycles: { maxPeriod: 3, repeats: 2 } })
  const block = [['read', { p: 1 }], ['read', { p: 2 }], ['grep', { q: 1 }]]
  t.deepEqual(fired(guard, [['x', {}], ...repeat(2, block)]), [[7, 'cycle', 2]])
  guard.reset('a')
  const reminder = [...block, ...block].map(([tool, args]) => guard.observe('a', tool, args)).at(-1)
  t.deepEqual(reminder.tools, ['read', 'read', 'grep'])
  t.is(new RepeatToolGuard({ cycles: { maxPeriod: 2, repeats: 2 } }).observe('a', 'x', {}), null)
  const shortOnly = new RepeatToolGuard({ cycles: { maxPeriod: 2, repeats: 2 } })
  t.deepEqual(fired(shortOnly, repeat(3, block)), [], 'period 3 is beyond maxPeriod 2')
})

test('cycles: one call repeated is not a cycle, only a run; different arguments break the cycle', (t) => {
  const guard = new RepeatToolGuard({ cycles: { maxPeriod: 5, repeats: 2 }, thresholds: [100] })
  t.deepEqual(fired(guard, times(20, ['grep', { q: 1 }])), [])
  guard.reset('a')
  t.deepEqual(fired(guard, [['t', 1], ['u', 1], ['t', 1], ['u', 2], ['t', 1], ['u', 3]]), [])
})

test('cycles: fire again only after the cycle is broken and formed anew', (t) => {
  const guard = new RepeatToolGuard({ cycles: { maxPeriod: 2, repeats: 2 } })
  const ab = [['a', {}], ['b', {}]]
  // a,b ×4 (reported at 4), c breaks it, a,b ×5 forms it anew (reported at 13, once).
  t.deepEqual(fired(guard, [...repeat(4, ab), ['c', {}], ...repeat(5, ab)]), [[4, 'cycle', 2], [13, 'cycle', 2]])
})

test('cycles: two agents are independent; a reset (user prompt) clears an agent\'s cycle state', (t) => {
  const guard = new RepeatToolGuard({ cycles: { maxPeriod: 2, repeats: 2 } })
  const got = [['x', 'a'], ['y', 'b'], ['x', 'b'], ['y', 'a'], ['x', 'a'], ['y', 'b'], ['x', 'b'], ['y', 'a']]
    .map(([agent, tool]) => guard.observe(agent, tool, {}))
  t.deepEqual(got.map((r) => r && r.tier), [null, null, null, null, null, null, 'cycle', 'cycle'], 'interleaved, each agent\'s own a,b,a,b')
  guard.reset('x')
  t.deepEqual(fired(guard, [['b', {}], ['a', {}], ['b', {}]], 'x'), [], 'x starts over: three calls are not two repetitions')
  t.deepEqual(fired(guard, [['a', {}]], 'x'), [[1, 'cycle', 2]])
  guard.dispose('x')
  guard.dispose('y')
  t.is(guard.agentCount, 0)
})

test('cycles: a run-length reminder due on the same call wins, and the cycle counts as reported', (t) => {
  const guard = new RepeatToolGuard({ cycles: { maxPeriod: 3, repeats: 2 }, thresholds: [2] })
  const abb = [['a', {}], ['b', {}], ['b', {}]]
  t.deepEqual(fired(guard, repeat(4, abb)), [[3, 'gentle', 2], [6, 'gentle', 2], [9, 'gentle', 2], [12, 'gentle', 2]])
  t.is(guard.stats().cycle, 0)
})

test('cycles: untracked calls are transparent to cycles too', (t) => {
  const guard = new RepeatToolGuard({ cycles: { maxPeriod: 2, repeats: 2 }, exclude: ['todo_write'] })
  t.deepEqual(fired(guard, [['a', {}], ['todo_write', {}], ['b', {}], ['a', {}], ['todo_write', { n: 2 }], ['b', {}]]), [[6, 'cycle', 2]])
})

test('cycles compare keys only, even with sameResultOnly', (t) => {
  const guard = new RepeatToolGuard({ cycles: { maxPeriod: 2, repeats: 2 }, sameResultOnly: true })
  const result = (n) => ({ content: [{ type: 'text', text: String(n) }], isError: false })
  t.deepEqual(fired(guard, [['a', {}, result(1)], ['b', {}, result(2)], ['a', {}, result(3)], ['b', {}, result(4)]]), [[4, 'cycle', 2]])
})

// ---- sameResultOnly ---------------------------------------------------------------------------

test('sameResultOnly: changing results never build a run; equal ones do; isError counts', (t) => {
  const guard = new RepeatToolGuard({ sameResultOnly: true, thresholds: [3, 4] })
  const ok = (text) => ({ content: [{ type: 'text', text }], isError: false })
  t.deepEqual(fired(guard, ['1', '2', '3', '4', '5'].map((n) => ['poll', { job: 7 }, ok(n)])), [], 'polling that returns new data')
  t.deepEqual(fired(guard, times(4, ['poll', { job: 7 }, ok('done')])), [[3, 'gentle', 3], [4, 'detailed', 4]], 'the 5th poll started the run')
  guard.reset('a')
  const error = { content: [{ type: 'text', text: 'done' }], isError: true }
  t.deepEqual(fired(guard, [['poll', {}, ok('done')], ['poll', {}, error], ['poll', {}, ok('done')]]), [], 'isError differs')
  guard.reset('a')
  t.deepEqual(fired(guard, [['poll', {}, { content: [], isError: 1 }], ['poll', {}, { content: [], isError: true }], ['poll', {}, { isError: 'yes', content: [] }]]), [[3, 'gentle', 3]], 'isError is read as a boolean')
  guard.reset('a')
  t.deepEqual(fired(guard, [['poll', {}, { content: [{ b: 1, a: 2 }] }], ['poll', {}, { content: [{ a: 2, b: 1 }], isError: false }], ['poll', {}, { content: [{ a: 2, b: 1 }], extra: 'ignored' }]]), [[3, 'gentle', 3]], 'canonical content; other keys ignored')
})

test('sameResultOnly: a missing result is a value of its own', (t) => {
  const guard = new RepeatToolGuard({ sameResultOnly: true, thresholds: [3] })
  t.deepEqual(fired(guard, [['t', {}], ['t', {}, undefined], ['t', {}, null]]), [[3, 'gentle', 3]])
  guard.reset('a')
  t.deepEqual(fired(guard, [['t', {}], ['t', {}, { content: [] }], ['t', {}]]), [])
})

test('sameResultOnly: a result that is not an object, or has no JSON form, throws and leaves the chain alone', (t) => {
  const guard = new RepeatToolGuard({ sameResultOnly: true, thresholds: [2] })
  const ok = { content: [], isError: false }
  t.is(guard.observe('a', 't', {}, ok), null)
  for (const bad of [5, 'text', true]) t.throws(() => guard.observe('a', 't', {}, bad), { instanceOf: TypeError, message: /a tool result must be an object/ })
  t.throws(() => guard.observe('a', 't', {}, { content: [1n] }), { instanceOf: TypeError, message: /BigInt/ })
  t.is(guard.observe('a', 't', {}, ok)?.count, 2)
})

test('without sameResultOnly a given result is ignored, never read', (t) => {
  const guard = new RepeatToolGuard({ thresholds: [2] })
  const trap = { get content() { throw new Error('read') }, get isError() { throw new Error('read') } }
  t.deepEqual(fired(guard, [['t', {}, { content: [1] }], ['t', {}, trap]]), [[2, 'gentle', 2]])
  t.deepEqual(fired(new RepeatToolGuard({ thresholds: [2], sameResultOnly: false }), [['t', {}, 5], ['t', {}, 6]]), [[2, 'gentle', 2]])
})

// ---- overrides --------------------------------------------------------------------------------

test('overrides: the first entry matching the tool supplies its thresholds; others keep the global ones', (t) => {
  const guard = new RepeatToolGuard({
    thresholds: [3, 5],
    overrides: [{ tools: ['poll_*', 'wait'], thresholds: [10, 6] }, { tools: ['poll_fast', 'build'], thresholds: [2] }],
  })
  const at = (tool, n) => {
    guard.reset('a')
    return fired(guard, times(n, [tool, {}]))
  }
  t.deepEqual(at('poll_fast', 12), [[6, 'gentle', 6], [10, 'detailed', 10]], 'poll_* comes first')
  t.deepEqual(at('wait', 10), [[6, 'gentle', 6], [10, 'detailed', 10]])
  t.deepEqual(at('build', 4), [[2, 'gentle', 2]])
  t.deepEqual(at('grep', 6), [[3, 'gentle', 3], [5, 'detailed', 5]])
  t.deepEqual(guard.thresholds, [3, 5], 'the getter shows the global thresholds')
  guard.reset('a')
  t.is(fired(guard, times(6, ['poll_x', { q: '😀' }])).length, 1)
  t.is(guard.observe('a', 'poll_x', { q: '😀' }, undefined), null)
})

test('overrides: patterns follow include/exclude\'s rules (only * is a wildcard, whole names)', (t) => {
  const guard = new RepeatToolGuard({ thresholds: [9], overrides: [{ tools: ['a.b', 'x*'], thresholds: [2] }] })
  const gentleAt = (tool) => {
    guard.reset('a')
    return fired(guard, times(2, [tool, {}])).length === 1
  }
  t.true(gentleAt('a.b'))
  t.false(gentleAt('axb'))
  t.true(gentleAt('x/y'))
  t.false(gentleAt('yx'))
  t.false(gentleAt('x\ny'), '* stops at line terminators')
})

test('overrides: the detailed text is the reference\'s, at the override\'s thresholds', (t) => {
  const guard = new RepeatToolGuard({ overrides: [{ tools: ['grep'], thresholds: [2, 4] }] })
  const texts = times(4, ['grep', { q: 'x' }]).map(([tool, args]) => guard.observe('a', tool, args)?.text).filter(Boolean)
  t.deepEqual(texts, [GENTLE, detailed('grep', 4, '{"q":"x"}')])
})

// ---- repeatEvery ------------------------------------------------------------------------------

test('repeatEvery: past the last threshold a detailed reminder every N calls (3, 5, 8 and 4: 12, 16, 20)', (t) => {
  const guard = new RepeatToolGuard({ repeatEvery: 4 })
  const got = fired(guard, times(23, ['grep', { q: 'same' }]))
  t.deepEqual(got, [[3, 'gentle', 3], [5, 'detailed', 5], [8, 'detailed', 8], [12, 'detailed', 12], [16, 'detailed', 16], [20, 'detailed', 20]])
  guard.reset('a')
  const texts = times(12, ['grep', { q: 'same' }]).map(([tool, args]) => guard.observe('a', tool, args)?.text).filter(Boolean)
  t.is(texts.at(-1), detailed('grep', 12, '{"q":"same"}'))
  t.deepEqual(fired(new RepeatToolGuard({ thresholds: [2], repeatEvery: 1 }), times(5, ['t', {}])).map(([n, tier]) => [n, tier]), [[2, 'gentle'], [3, 'detailed'], [4, 'detailed'], [5, 'detailed']])
})

test('repeatEvery uses the last threshold of the tool\'s own thresholds', (t) => {
  const guard = new RepeatToolGuard({ repeatEvery: 3, overrides: [{ tools: ['poll'], thresholds: [4] }] })
  t.deepEqual(fired(guard, times(11, ['poll', {}])).map(([n]) => n), [4, 7, 10])
  guard.reset('a')
  t.deepEqual(fired(guard, times(14, ['grep', {}])).map(([n]) => n), [3, 5, 8, 11, 14])
})

// ---- stats ------------------------------------------------------------------------------------

test('stats(): observed calls and reminders per tier, per guard, kept across clear()', (t) => {
  const guard = new RepeatToolGuard({ thresholds: [2, 3], cycles: { maxPeriod: 2, repeats: 2 }, exclude: ['todo'] })
  t.deepEqual(guard.stats(), { observed: 0, reminders: 0, gentle: 0, detailed: 0, cycle: 0, similar: 0, noProgress: 0, failure: 0, stop: 0 })
  fired(guard, [['t', {}], ['t', {}], ['t', {}], ['todo', {}], ['u', {}], ['t', {}], ['u', {}]])
  fired(guard, [['t', {}], ['t', {}]], 'b')
  t.throws(() => guard.observe('a', 't', 1n))
  guard.clear()
  t.deepEqual(guard.stats(), { observed: 8, reminders: 4, gentle: 2, detailed: 1, cycle: 1, similar: 0, noProgress: 0, failure: 0, stop: 0 })
  const plain = new RepeatToolGuard()
  fired(plain, times(8, ['t', {}]))
  t.deepEqual(plain.stats(), { observed: 8, reminders: 3, gentle: 1, detailed: 2, cycle: 0, similar: 0, noProgress: 0, failure: 0, stop: 0 })
})

// ---- defaults unchanged -----------------------------------------------------------------------

test('absent and explicitly disabled keys behave exactly as the reference does', (t) => {
  const calls = [...times(10, ['grep', { q: 'same' }]), ...repeat(4, [['a', {}], ['b', {}]]), ...times(4, ['t', {}])]
  const outcome = (config) => {
    const guard = new RepeatToolGuard(config)
    return calls.map(([tool, args]) => guard.observe('a', tool, args, { content: [Math.random()], isError: false }))
  }
  const reference = outcome({})
  t.deepEqual(reference.filter(Boolean).map((r) => [r.tier, r.count]), [['gentle', 3], ['detailed', 5], ['detailed', 8], ['gentle', 3]])
  t.true(reference.filter(Boolean).every((r) => !('tools' in r)), 'no tools key outside cycles')
  for (const config of [{ cycles: undefined }, { sameResultOnly: false }, { overrides: [] }, { repeatEvery: undefined }, { cycles: undefined, sameResultOnly: false, overrides: [], repeatEvery: undefined }]) {
    t.deepEqual(outcome(config), reference, JSON.stringify(config))
  }
})
