// The RepeatToolGuard class and canonicalize, called directly (runs on Node 20 and 22).
import test from 'ava'
import { RepeatToolGuard, canonicalize } from '../index.js'
import { GENTLE, detailed, oracleCanonicalize, randomJson, rng } from './oracle.mjs'

const MSG = {
  empty: 'repeat-tool-guard: `thresholds` must not be empty',
  threshold: (v, hint = '') => `repeat-tool-guard: invalid threshold ${v} — every threshold must be an integer >= 2${hint}`,
  duplicates: 'repeat-tool-guard: `thresholds` must not contain duplicates',
  preview: (v, hint = '') => `repeat-tool-guard: invalid argumentsPreviewChars ${v} — must be an integer >= 1${hint}`,
  quoted: (n) => ` (a string, not a number: write ${n} without quotes)`,
}

/** Observes `calls` ([tool, args] pairs) for one agent; returns [count, tier] of each reminder. */
function run(guard, calls, agent = 'a') {
  return calls.map(([tool, args]) => guard.observe(agent, tool, args)).map((r) => (r ? [r.count, r.tier] : null))
}
const times = (n, call) => Array.from({ length: n }, () => call)

test('defaults: thresholds 3, 5, 8; null and undefined configs take them', (t) => {
  for (const config of [undefined, null, {}]) t.deepEqual(new RepeatToolGuard(config).thresholds, [3, 5, 8])
})

test('validation: the documented messages, first failure wins', (t) => {
  const fails = (config, message, type = Error) => {
    const error = t.throws(() => new RepeatToolGuard(config), { instanceOf: type })
    t.is(error.message, message, JSON.stringify(config))
  }
  fails({ thresholds: [], argumentsPreviewChars: 0 }, MSG.empty)
  for (const [value, shown] of [[NaN, 'NaN'], [Infinity, 'Infinity'], [-Infinity, '-Infinity'], [2.5, '2.5'], [1, '1'], [0, '0'], [-0, '0'], [null, 'null'], [undefined, 'undefined'], [true, 'true'], [{}, '{…}'], [[4, 5], '[4, 5]'], [Symbol('s'), 'Symbol(s)']]) {
    fails({ thresholds: [3, value, 1, 3], argumentsPreviewChars: 0 }, MSG.threshold(shown))
  }
  fails({ thresholds: [3, '3', 1, 3], argumentsPreviewChars: 0 }, MSG.threshold('"3"', MSG.quoted(3)))
  fails({ thresholds: [3, 5, 3], argumentsPreviewChars: 0 }, MSG.duplicates)
  for (const [value, shown] of [[0, '0'], [-0, '0'], [1.5, '1.5'], [NaN, 'NaN'], [Infinity, 'Infinity'], [null, 'null'], [[], '[]']]) {
    fails({ argumentsPreviewChars: value, include: 'x' }, MSG.preview(shown))
  }
  fails({ argumentsPreviewChars: '10', include: 'x' }, MSG.preview('"10"', MSG.quoted(10)))
  fails({ include: 'grep' }, 'repeat-tool-guard: `include` must be an array, got the string "grep"', TypeError)
  fails({ exclude: ['a', 1] }, 'repeat-tool-guard: `exclude[1]` must be a string, got the number 1', TypeError)
  fails({ thresholds: null }, 'repeat-tool-guard: `thresholds` must be an array, got null', TypeError)
  fails({ thresholds: { 0: 3 } }, 'repeat-tool-guard: `thresholds` must be an array, got an object', TypeError)
  fails('thresholds', 'repeat-tool-guard: the config must be an object, got the string "thresholds"', TypeError)
})

test('validation: a message shows the value as written, one message per mistake', (t) => {
  const fails = (config, message, type = Error) => {
    const error = t.throws(() => new RepeatToolGuard(config), { instanceOf: type }, message)
    t.is(error.message, message)
  }
  // The strings YAML leaves where a number or a boolean belongs, as a cordis.yml gives them.
  fails({ thresholds: ['3', 5] }, MSG.threshold('"3"', MSG.quoted(3)))
  fails({ thresholds: [' 3', 5] }, MSG.threshold('" 3"'))
  fails({ thresholds: [''] }, MSG.threshold('""'))
  fails({ resume: 'yes' }, 'repeat-tool-guard: `resume` must be a boolean, got the string "yes" (YAML 1.2 reads yes as a string: write true or false)', TypeError)
  fails({ sameResultOnly: 'Off' }, 'repeat-tool-guard: `sameResultOnly` must be a boolean, got the string "Off" (YAML 1.2 reads Off as a string: write true or false)', TypeError)
  fails({ resume: 'true' }, 'repeat-tool-guard: `resume` must be a boolean, got the string "true" (a string, not a boolean: write true without quotes)', TypeError)
  fails({ ignoreArguments: [{ tools: ['x'], keys: [''] }] }, 'repeat-tool-guard: invalid ignoreArguments[0].keys[0] "" — must be names separated by `.`, none empty (`\\.` is a dot and `\\\\` a backslash within a name)')
  // Arrays and objects briefly: three items at most, nested arrays two deep, objects as {…}.
  fails({ exclude: [['a', 'b', 'c', 'd']] }, 'repeat-tool-guard: `exclude[0]` must be a string, got the array ["a", "b", "c", …]', TypeError)
  fails({ exclude: [[[1], [], { a: 1 }]] }, 'repeat-tool-guard: `exclude[0]` must be a string, got the array [[…], [], {…}]', TypeError)
  fails({ include: [3n] }, 'repeat-tool-guard: `include[0]` must be a string, got the bigint 3n', TypeError)
  fails({ include: [() => 'x'] }, 'repeat-tool-guard: `include[0]` must be a string, got a function', TypeError)
  fails({ thresholds: ['\ud800"\n'] }, MSG.threshold('"\\ud800\\"\\n"'))
  // A list config: the one message that it is not an object.
  fails([{ thresholds: [3] }], 'repeat-tool-guard: the config must be an object, got the array [{…}]', TypeError)
  fails([[3, 5, 8, 13]], 'repeat-tool-guard: the config must be an object, got the array [[…]]', TypeError)
})

test('thresholds are sorted ascending; integers beyond 2^32 are valid', (t) => {
  t.deepEqual(new RepeatToolGuard({ thresholds: [8, 1e21, 2, 5] }).thresholds, [2, 5, 8, 1e21])
})

test('escalation: gentle at the first threshold, detailed at each later one, silent past the last', (t) => {
  const guard = new RepeatToolGuard()
  const args = { q: 'same' }
  const got = run(guard, times(12, ['grep', args]))
  t.deepEqual(got.map((r, i) => r && [i + 1, ...r]).filter(Boolean), [[3, 3, 'gentle'], [5, 5, 'detailed'], [8, 8, 'detailed']])
  const again = new RepeatToolGuard()
  const texts = times(8, ['grep', args]).map(([tool, a]) => again.observe('a', tool, a)?.text).filter(Boolean)
  t.deepEqual(texts, [GENTLE, detailed('grep', 5, '{"q":"same"}'), detailed('grep', 8, '{"q":"same"}')])
})

test('the gentle tier is keyed to the smallest of unsorted custom thresholds', (t) => {
  const got = run(new RepeatToolGuard({ thresholds: [6, 2, 4] }), times(7, ['t', {}]))
  t.deepEqual(got, [null, [2, 'gentle'], null, [4, 'detailed'], null, [6, 'detailed'], null])
})

test('a different tracked call starts a new run at 1', (t) => {
  const guard = new RepeatToolGuard({ thresholds: [2] })
  t.deepEqual(run(guard, [['t', 1], ['t', 2], ['t', 2], ['u', 2], ['u', 2], ['u', { x: 1 }]]), [null, null, [2, 'gentle'], null, [2, 'gentle'], null])
})

test('untracked calls neither count nor reset: exclude and include', (t) => {
  const excluding = new RepeatToolGuard({ thresholds: [2], exclude: ['todo_write'] })
  t.deepEqual(run(excluding, [['grep', 'X'], ['todo_write', {}], ['grep', 'X']]), [null, null, [2, 'gentle']])
  t.false(excluding.isTracked('todo_write'))
  const including = new RepeatToolGuard({ thresholds: [2], include: ['read*', 'mcp_*_get'] })
  t.true(including.isTracked('read'))
  t.true(including.isTracked('mcp_fs_get'))
  t.false(including.isTracked('grep'))
  t.deepEqual(run(including, [['read_file', 1], ['grep', 1], ['read_file', 1]]), [null, null, [2, 'gentle']])
})

test('patterns: * is the only wildcard, everything else is literal, the whole name must match', (t) => {
  for (const pattern of ['a.b', 'a?b', '[ab]', 'a{b,c}', 'a\\b', 'a]b', '(x)|^$+']) {
    const guard = new RepeatToolGuard({ include: [pattern] })
    t.true(guard.isTracked(pattern), pattern)
  }
  t.false(new RepeatToolGuard({ include: ['a.b'] }).isTracked('axb'))
  t.false(new RepeatToolGuard({ include: ['a?b'] }).isTracked('axb'))
  t.false(new RepeatToolGuard({ include: ['[ab]'] }).isTracked('a'))
  t.false(new RepeatToolGuard({ include: ['a{b,c}'] }).isTracked('ab'))
  t.false(new RepeatToolGuard({ include: ['grep'] }).isTracked('grep2'))
  t.true(new RepeatToolGuard({ include: ['*'] }).isTracked(''))
  t.true(new RepeatToolGuard({ include: ['mcp_*'] }).isTracked('mcp_a/b'))
  t.true(new RepeatToolGuard({ exclude: ['mcp_*'] }).isTracked('grep'), 'a pattern matching no tool is valid')
})

test('argument property order does not matter; values do', (t) => {
  const guard = new RepeatToolGuard({ thresholds: [3] })
  t.deepEqual(run(guard, [['t', { a: 1, b: [{ y: 1, x: 2 }] }], ['t', { b: [{ x: 2, y: 1 }], a: 1 }], ['t', JSON.parse('{"b":[{"x":2,"y":1}],"a":1}')]]), [null, null, [3, 'gentle']])
  t.deepEqual(run(guard, [['t', { a: 1 }], ['t', { a: '1' }], ['t', { a: 1 }]]), [null, null, null])
})

test('chains are per agent; reset and dispose drop one agent\'s state', (t) => {
  const guard = new RepeatToolGuard({ thresholds: [2] })
  t.is(guard.observe('a', 't', {}), null)
  t.is(guard.observe('b', 't', {}), null)
  t.is(guard.agentCount, 2)
  t.is(guard.observe('a', 't', {})?.count, 2)
  guard.reset('a')
  t.is(guard.observe('a', 't', {}), null, 'a reset agent starts over')
  t.is(guard.observe('b', 't', {})?.count, 2, 'the other agent is untouched')
  guard.dispose('a')
  guard.dispose('b')
  guard.reset('never-seen')
  guard.dispose('never-seen')
  t.is(guard.agentCount, 0)
})

test('detection compares the full canonical arguments, never the preview', (t) => {
  const guard = new RepeatToolGuard({ thresholds: [2], argumentsPreviewChars: 10 })
  const long = 'x'.repeat(5000)
  t.deepEqual(run(guard, [['t', { s: `${long}a` }], ['t', { s: `${long}b` }], ['t', { s: `${long}b` }]]), [null, null, [2, 'gentle']])
})

test('the detailed preview is head-truncated in UTF-16 code units, cutting surrogate pairs as slice does', (t) => {
  const args = { s: '😀'.repeat(10) }
  const canonical = oracleCanonicalize(args)
  for (const cap of [1, 5, 6, 7, 25, 26, 500]) {
    const guard = new RepeatToolGuard({ thresholds: [2, 3], argumentsPreviewChars: cap })
    guard.observe('a', 'write', args)
    guard.observe('a', 'write', args)
    const reminder = guard.observe('a', 'write', args)
    t.is(reminder.text, detailed('write', 3, canonical, cap), `cap ${cap}`)
  }
})

test('canonicalize matches the deep key-sort + JSON.stringify oracle on 3,000 random trap-laden values', (t) => {
  const next = rng(20261129)
  for (let i = 0; i < 3000; i++) {
    const value = randomJson(next)
    const expected = oracleCanonicalize(value)
    if (canonicalize(value) !== expected) return t.fail(`mismatch for ${expected}`)
    const viaText = JSON.parse(JSON.stringify(value))
    if (canonicalize(viaText) !== expected) return t.fail(`mismatch after a JSON round trip for ${expected}`)
  }
  t.pass()
})

test('canonical form: V8 key order, number and string formatting, __proto__ kept', (t) => {
  t.is(canonicalize(JSON.parse('{"b":1,"10":2,"2":3,"a":4,"01":5,"4294967295":6,"4294967294":7}')), '{"2":3,"10":2,"4294967294":7,"01":5,"4294967295":6,"a":4,"b":1}')
  t.is(canonicalize(JSON.parse('[-0,1e21,5e-324,1.7976931348623157e308,9007199254740993,1E2]')), '[0,1e+21,5e-324,1.7976931348623157e+308,9007199254740992,100]')
  t.is(canonicalize({ s: '\u0000\u001f\b\n"\\\uD800\uDC00\uDC00\uD83D\uDE00\u2028' }), '{"s":"\\u0000\\u001f\\b\\n\\"\\\\𐀀\\udc00😀\u2028"}')
  t.is(canonicalize(JSON.parse('{"__proto__":{"b":1,"a":2},"x":1}')), '{"__proto__":{"a":2,"b":1},"x":1}')
  t.is(canonicalize('{"not json'), '"{\\"not json"', 'a raw string is its JSON literal')
})

test('values outside JSON follow JSON.stringify or throw a TypeError that names the problem', (t) => {
  t.is(canonicalize({ b: undefined, a: () => 1, c: [undefined, Symbol('x')], d: new Map([[1, 2]]), e: { toJSON: () => ({ z: 1, y: 2 }) } }), '{"c":[null,null],"d":{},"e":{"y":2,"z":1}}')
  t.is(canonicalize(new Date(0)), '"1970-01-01T00:00:00.000Z"')
  t.is(canonicalize(new Uint8Array([2, 1])), '{"0":2,"1":1}')
  t.throws(() => canonicalize(10n), { instanceOf: TypeError, message: /BigInt/ })
  const cycle = { a: 1 }
  cycle.self = cycle
  t.throws(() => canonicalize(cycle), { instanceOf: TypeError, message: /circular/ })
  t.throws(() => canonicalize(undefined), { instanceOf: TypeError, message: /no JSON form/ })
  const guard = new RepeatToolGuard({ thresholds: [2] })
  guard.observe('a', 't', { x: 1 })
  t.throws(() => guard.observe('a', 't', { x: 1n }), { instanceOf: TypeError })
  t.is(guard.observe('a', 't', { x: 1 })?.count, 2, 'a failed observation leaves the chain as it was')
})

test('a non-string agent id or tool name is a TypeError naming the argument and what it got', (t) => {
  const guard = new RepeatToolGuard({ thresholds: [2] })
  const cases = [
    [() => guard.observe(42, 'grep', {}), 'agentId must be a string, got number'],
    [() => guard.observe(undefined, 'grep', {}), 'agentId must be a string, got undefined'],
    [() => guard.observe('a', undefined, {}), 'toolName must be a string, got undefined'],
    [() => guard.observe('a', null, {}), 'toolName must be a string, got null'],
    [() => guard.observe('a', ['grep'], {}), 'toolName must be a string, got object'],
    [() => guard.reset(1n), 'agentId must be a string, got bigint'],
    [() => guard.dispose(Symbol('a')), 'agentId must be a string, got symbol'],
    [() => guard.isTracked(() => 'grep'), 'toolName must be a string, got function'],
  ]
  for (const [call, message] of cases) t.throws(call, { instanceOf: TypeError, message: `repeat-tool-guard: ${message}` })
  t.is(guard.stats().observed, 0, 'nothing was counted')
  guard.observe('a', 'grep', {})
  t.is(guard.observe('a', 'grep', {})?.count, 2, 'the guard works on after them')
})

test('an error the caller\'s own code throws while arguments are read reaches the caller as it was thrown', (t) => {
  const thrown = new RangeError('getter failed')
  const guard = new RepeatToolGuard()
  t.is(t.throws(() => guard.observe('a', 't', { get x() { throw thrown } })), thrown)
  t.is(t.throws(() => canonicalize({ toJSON() { throw thrown } })), thrown)
})

test('perResponse, stopAt and resume as validated: what the plugin, the hook and the replay read, never the config as given', (t) => {
  const plain = new RepeatToolGuard({})
  t.deepEqual([plain.perResponse, plain.stopAt, plain.resume], [false, null, false])
  const set = new RepeatToolGuard({ perResponse: true, stopAt: 4, resume: true, profile: 'recommended' })
  t.deepEqual([set.perResponse, set.stopAt, set.resume], [true, 4, true])
  t.is(new RepeatToolGuard({ perResponse: false }).perResponse, false)
})

test('restore takes a count: the same call that many times in a row, as that many restores; a count that is no integer >= 1 is an error', (t) => {
  const once = new RepeatToolGuard({ repeatEvery: 50 })
  const many = new RepeatToolGuard({ repeatEvery: 50 })
  for (let i = 0; i < 1006; i++) once.restore('a', 'grep', { q: 1 })
  many.restore('a', 'grep', { q: 1 }, undefined, 1006)
  t.deepEqual(many.observe('a', 'grep', { q: 1 }), once.observe('a', 'grep', { q: 1 }))
  t.is(many.observe('a', 'grep', { q: 1 })?.count, 1008)
  for (const bad of [0, 1.5, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
    t.throws(() => many.restore('a', 'grep', { q: 1 }, undefined, bad), { instanceOf: Error, message: /^repeat-tool-guard: times must be an integer >= 1, got / })
  }
})
