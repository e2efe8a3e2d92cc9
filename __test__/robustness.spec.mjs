// Robustness for callers of the class API and canonicalize: hostile arguments, values
// outside JSON, lifecycle and memory, worker threads, config types. Runs on Node 20 (and 22).
// Deep nesting is in robustness-depth.spec.mjs, the heaviest checks in robustness-heavy.spec.mjs.
import { Worker } from 'node:worker_threads'
import test from 'ava'
import { RepeatToolGuard, canonicalize } from '../index.js'
import { GENTLE, oracleCanonicalize, rng } from './oracle.mjs'
import { BEYOND_V8, run, wrap, wrapText } from './support/robustness.mjs'

// ---- 2. Hostile arguments -------------------------------------------------------------------

test('every UTF-16 code unit, control characters and lone surrogates included, as value, key and raw text', (t) => {
  const units = Array.from({ length: 0x10000 }, (_, i) => String.fromCharCode(i))
  const all = units.join('')
  t.is(canonicalize(all), JSON.stringify(all), 'raw text')
  t.is(canonicalize({ all }), oracleCanonicalize({ all }), 'a value')
  t.is(canonicalize(units), JSON.stringify(units), 'one string per unit')
  const keyed = Object.fromEntries(units.map((u, i) => [u, i]))
  t.is(canonicalize(keyed), oracleCanonicalize(keyed), 'one key per unit')
  t.is(canonicalize(JSON.parse(JSON.stringify(keyed))), oracleCanonicalize(keyed), 'one key per unit, parsed')
  // Every surrogate pair, then every pair in the wrong order (two lone surrogates each).
  const pairs = []
  const reversed = []
  for (let high = 0xd800; high <= 0xdbff; high++) {
    for (let low = 0xdc00; low <= 0xdfff; low += 1) {
      pairs.push(String.fromCharCode(high, low))
      if (low % 64 === high % 64) reversed.push(String.fromCharCode(low, high))
    }
  }
  const paired = { pairs: pairs.join(''), reversed: reversed.join('') }
  t.is(canonicalize(paired), oracleCanonicalize(paired))
  const keys = Object.fromEntries([...units.filter((_, i) => i % 7 === 0), ...pairs.filter((_, i) => i % 997 === 0)].map((k, i) => [k, i]))
  t.is(canonicalize(keys), oracleCanonicalize(keys), 'astral keys sort by UTF-16 units among BMP ones')
  t.is(canonicalize(wrap(keyed, BEYOND_V8)), wrapText(oracleCanonicalize(keyed), BEYOND_V8), 'the same, past V8\'s depth')
  t.is(canonicalize(wrap(all, BEYOND_V8)), wrapText(JSON.stringify(all), BEYOND_V8))
  const guard = new RepeatToolGuard()
  t.deepEqual(run(guard, [['t', keyed], ['t', JSON.parse(JSON.stringify(keyed))], ['t', keyed]]), [null, null, [3, 'gentle']])
  t.deepEqual(run(guard, [['t', all], ['t', all], ['t', all]]), [null, null, [3, 'gentle']])
})

test('"__proto__", "constructor" and other Object.prototype names are ordinary keys', (t) => {
  const text = '{"__proto__":{"b":1,"a":2},"constructor":{"prototype":1},"toString":"x","hasOwnProperty":0,"valueOf":null,"toJSON":"data","prototype":[],"__defineGetter__":true,"isPrototypeOf":{}}'
  const parsed = JSON.parse(text)
  const expected = oracleCanonicalize(parsed)
  t.is(expected, '{"__defineGetter__":true,"__proto__":{"a":2,"b":1},"constructor":{"prototype":1},"hasOwnProperty":0,"isPrototypeOf":{},"prototype":[],"toJSON":"data","toString":"x","valueOf":null}')
  t.is(canonicalize(parsed), expected)
  const literal = { ['__proto__']: { a: 2, b: 1 }, constructor: { prototype: 1 } }
  t.is(canonicalize(literal), '{"__proto__":{"a":2,"b":1},"constructor":{"prototype":1}}')
  const bare = Object.assign(Object.create(null), { constructor: 1, toString: 2 })
  t.is(canonicalize(bare), '{"constructor":1,"toString":2}')
  t.is(canonicalize(wrap(parsed, BEYOND_V8)), wrapText(expected, BEYOND_V8), 'kept past V8\'s depth too')
  const guard = new RepeatToolGuard({ thresholds: [2] })
  t.deepEqual(run(guard, [['t', JSON.parse('{"__proto__":{"x":1}}')], ['t', {}], ['t', { x: 1 }], ['t', JSON.parse('{"__proto__":{"x":1}}')], ['t', JSON.parse('{"__proto__":{"x":1}}')]]), [null, null, null, null, [2, 'gentle']], '{"__proto__":…} is neither {} nor its content')
})

test('numbers at the edges print as V8 prints them, and equal values count as one call', (t) => {
  const values = [0, -0, 5e-324, -5e-324, 1.7976931348623157e308, -1.7976931348623157e308, 1e21, 1e-7, 1e-6, 999999999999999900000, 123e-20, 2 ** 53, 2 ** 53 + 2, -(2 ** 31), 4294967295, 0.1 + 0.2, 1 / 3, NaN, Infinity, -Infinity, JSON.parse('9007199254740993'), JSON.parse('1e400'), JSON.parse('-1e-400'), Number.MIN_VALUE, Number.EPSILON]
  for (const value of values) {
    t.is(canonicalize([value]), JSON.stringify([value]), String(value))
    t.is(canonicalize({ k: value }), JSON.stringify({ k: value }), String(value))
  }
  t.is(canonicalize(wrap(values, BEYOND_V8)), wrapText(JSON.stringify(values), BEYOND_V8), 'past V8\'s depth')
  for (const spellings of [['1e21', '1E21', '1e+21', '10e20', '1000000000000000000000'], ['-0', '0', '0.0', '-0.0e5'], ['9007199254740993', '9007199254740992']]) {
    const canonical = spellings.map((s) => canonicalize(JSON.parse(s)))
    t.is(new Set(canonical).size, 1, spellings.join(' '))
    const guard = new RepeatToolGuard({ thresholds: [spellings.length] })
    t.is(spellings.map((s) => guard.observe('a', 't', { n: JSON.parse(s) })).at(-1)?.count, spellings.length)
  }
})

// ---- 3. Values outside JSON -----------------------------------------------------------------

class Point {
  #secret = 1
  constructor() { this.y = 2; this.x = 1 }
  get sum() { return this.x + this.y + this.#secret }
}

/** Values outside JSON (as makers, since some are stateful) that must follow JSON.stringify's rules or throw its TypeError. */
const OUTSIDE_JSON = {
  'undefined': () => undefined,
  'a function': () => function named() {},
  'a symbol': () => Symbol('s'),
  'a BigInt': () => 10n,
  'a nested BigInt': () => ({ a: [1, { n: 2n }] }),
  'a cycle': () => { const o = { a: 1 }; o.self = o; return o },
  'an indirect cycle': () => { const a = []; const b = { a }; a.push(b); return { b } },
  'members without JSON form': () => ({ u: undefined, f() {}, s: Symbol('x'), [Symbol('k')]: 1, arr: [undefined, () => 1, Symbol('y')] }),
  'a class instance': () => new Point(),
  'toJSON': () => ({ b: { toJSON: () => ({ z: 1, y: [2, { toJSON: (key) => `key:${key}` }] }) }, a: 1 }),
  'toJSON returning undefined': () => ({ a: { toJSON: () => undefined }, b: [{ toJSON: () => undefined }] }),
  'a Date': () => ({ at: new Date(0), bad: new Date(NaN) }),
  'typed arrays': () => [new Uint8Array([2, 1]), new Float64Array([NaN, -0, 1e21]), new Int32Array(0), new DataView(new ArrayBuffer(2)), new ArrayBuffer(3)],
  'a BigInt64Array': () => new BigInt64Array([1n]),
  'Map, Set, WeakMap, RegExp, Error, Promise': () => [new Map([[1, 2]]), new Set([1]), new WeakMap(), /x/g, new Error('e'), Promise.resolve()],
  'an object with a null prototype': () => Object.assign(Object.create(null), { b: 1, a: 2 }),
  'a sparse array with extra properties': () => { const a = [1]; a[2] = 3; a.extra = 1; a[-1] = 0; return a },
  'arguments': () => (function () { return arguments })(2, 1),
  'non-enumerable and getter properties': () => Object.defineProperties({}, { hidden: { value: 1, enumerable: false }, shown: { get: () => ({ b: 1, a: 2 }), enumerable: true } }),
  'a proxied object': () => new Proxy({ b: 1, a: 2 }, {}),
  'a throwing getter': () => ({ get boom() { throw new Error('getter failed') } }),
  'a throwing toJSON': () => ({ toJSON() { throw new SyntaxError('toJSON failed') } }),
  'a revoked proxy': () => { const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); return proxy },
}

/** What JSON.stringify does with `value`: { text } (sorted through the oracle), { none }, or { error }. */
function v8Verdict(value) {
  try {
    const text = JSON.stringify(value)
    return text === undefined ? { none: true } : { text: oracleCanonicalize(JSON.parse(text)) }
  } catch (error) {
    return { error }
  }
}


test('values outside JSON follow JSON.stringify\'s rules or throw its error, naming the problem; never a crash', (t) => {
  for (const [name, make] of Object.entries(OUTSIDE_JSON)) {
    const verdict = v8Verdict(make())
    if (verdict.text !== undefined) {
      t.is(canonicalize(make()), verdict.text, name)
    } else if (verdict.none) {
      t.throws(() => canonicalize(make()), { instanceOf: TypeError, message: new RegExp(`arguments of type ${typeof make()} have no JSON form`) }, name)
    } else {
      const error = t.throws(() => canonicalize(make()), { instanceOf: verdict.error.constructor }, name)
      t.is(error?.message, verdict.error.message, name)
    }
    // Observed: a value with JSON text is a call like any other; a failed observation leaves the chain as it was.
    const guard = new RepeatToolGuard({ thresholds: [2] })
    guard.observe('a', 't', { fine: 1 })
    if (verdict.text === undefined) {
      t.throws(() => guard.observe('a', 't', make()), { instanceOf: Error }, name)
      t.is(guard.observe('a', 't', { fine: 1 })?.count, 2, `${name}: the chain is unchanged`)
    } else {
      t.is(guard.observe('a', 't', make())?.count, verdict.text === '{"fine":1}' ? 2 : undefined, name)
    }
    t.is(guard.agentCount, 1)
  }
})

test('past V8\'s depth the iterative fallback gives the same text or the same kind of error for values outside JSON', (t) => {
  // Where the fallback is known to differ (function or BigInt toJSON, proxied arrays, boxed
  // primitives), see robustness-regressions.spec.mjs.
  for (const [name, make] of Object.entries(OUTSIDE_JSON)) {
    const verdict = v8Verdict(make())
    const deep = () => canonicalize(wrap(make(), BEYOND_V8))
    if (verdict.text !== undefined) {
      t.is(deep(), wrapText(verdict.text, BEYOND_V8), name)
    } else if (verdict.none) {
      // Inside a container a value without JSON form becomes null or is dropped, as JSON.stringify does.
      t.is(deep(), wrapText('null', BEYOND_V8), name)
    } else {
      const error = t.throws(deep, { instanceOf: verdict.error.constructor }, name)
      const stem = verdict.error.message.split('\n')[0].replace(/ --> .*/, '').slice(0, 30)
      t.true(error?.message.startsWith(stem), `${name}: ${error?.message} vs ${verdict.error.message}`)
    }
  }
})

// ---- 5. Lifecycle ---------------------------------------------------------------------------

test('resetting or disposing an unknown id does nothing', (t) => {
  const guard = new RepeatToolGuard({ thresholds: [3] })
  guard.observe('a', 't', { q: 1 })
  guard.observe('a', 't', { q: 1 })
  for (const id of ['', 'b', 'A', 'a ', '\uD800', '\u0000', 'a'.repeat(100_000)]) {
    guard.reset(id)
    guard.dispose(id)
  }
  for (const id of [1, null, undefined, {}, Symbol('id')]) {
    try { guard.reset(id) } catch (error) { t.true(error instanceof Error, String(error)) }
    try { guard.dispose(id) } catch (error) { t.true(error instanceof Error, String(error)) }
  }
  t.is(guard.agentCount, 1)
  t.deepEqual(run(guard, [['t', { q: 1 }]]), [[3, 'gentle']], 'the known agent\'s chain is intact')
  guard.dispose('a')
  guard.dispose('a')
  t.is(guard.agentCount, 0)
})

// ---- 6. Threads -----------------------------------------------------------------------------

function inWorker(workerData, onOnline) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./robustness/worker.mjs', import.meta.url), { workerData })
    worker.once('message', (message) => (onOnline ? onOnline(worker, message) : resolve(message)))
    worker.once('error', reject)
    worker.once('exit', (code) => resolve({ exit: code }))
  })
}

test('the addon loads and works in several worker threads at once, each with its own state', async (t) => {
  const main = new RepeatToolGuard({ thresholds: [2] })
  main.observe('agent-0', 'grep', { q: 'same', worker: 1 })
  const results = await Promise.all([1, 2, 3, 4].map((agents) => inWorker({ agents, calls: 3 })))
  t.deepEqual(results, [1, 2, 3, 4].map((agents) => ({ reminders: agents, agentCount: agents, deepOk: true })))
  t.is(main.agentCount, 1, 'the workers\' agents are not the main thread\'s')
  t.deepEqual(run(main, [['grep', { q: 'same', worker: 1 }]], 'agent-0'), [[2, 'gentle']])
})

test('a worker terminated while observing does not disturb the others or the main thread', async (t) => {
  const busy = inWorker({ spin: true }, (worker) => { setTimeout(() => worker.terminate(), 200) })
  const [terminated, working] = await Promise.all([busy, inWorker({ agents: 2, calls: 3 })])
  t.is(terminated.exit, 1, 'terminated')
  t.deepEqual(working, { reminders: 2, agentCount: 2, deepOk: true })
  t.deepEqual(await inWorker({ agents: 1, calls: 3 }), { reminders: 1, agentCount: 1, deepOk: true }, 'the addon loads again in a fresh worker')
  t.is(canonicalize({ b: 1, a: 2 }), '{"a":2,"b":1}')
})

// ---- 7. Config types ------------------------------------------------------------------------

const kindOf = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)
const isInteger = (v, min) => typeof v === 'number' && Number.isInteger(v) && v >= min

/** A value as the messages write it: a string quoted as JSON quotes it, an array's first three items, two arrays deep. */
function written(v, depth = 0) {
  if (typeof v === 'string') return JSON.stringify(v)
  if (typeof v === 'bigint') return `${v}n`
  if (typeof v === 'function') return 'function'
  if (Array.isArray(v)) {
    if (depth >= 2) return v.length === 0 ? '[]' : '[…]'
    const items = Array.from(v.slice(0, 3), (item) => written(item, depth + 1))
    return `[${[...items, ...(v.length > 3 ? ['…'] : [])].join(', ')}]`
  }
  if (v !== null && typeof v === 'object') return '{…}'
  return String(v)
}

/** What a type error says it got: `the string "3"`, `null`, `an object`. */
function described(v) {
  if (v === undefined || v === null) return String(v)
  if (typeof v === 'function') return 'a function'
  if (typeof v === 'object' && !Array.isArray(v)) return 'an object'
  return `the ${Array.isArray(v) ? 'array' : typeof v} ${written(v)}`
}

/** What follows a message where a number belongs and a string that reads as one stands. */
const numberHint = (v) => (typeof v === 'string' && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v) && Number.isFinite(Number(v)) ? ` (a string, not a number: write ${v} without quotes)` : '')

/** The spec's validation in its order, as [ErrorClass, message] or null when valid. */
function expectedRejection(config) {
  const { thresholds, argumentsPreviewChars: preview, include, exclude } = config
  if (thresholds !== undefined) {
    if (!Array.isArray(thresholds)) return [TypeError, `repeat-tool-guard: \`thresholds\` must be an array, got ${described(thresholds)}`]
    if (thresholds.length === 0) return [Error, 'repeat-tool-guard: `thresholds` must not be empty']
    for (const v of Array.from(thresholds)) {
      if (!isInteger(v, 2)) return [Error, `repeat-tool-guard: invalid threshold ${written(v, 1)} — every threshold must be an integer >= 2${numberHint(v)}`]
    }
    if (new Set(thresholds).size !== thresholds.length) return [Error, 'repeat-tool-guard: `thresholds` must not contain duplicates']
  }
  if (preview !== undefined && !isInteger(preview, 1)) return [Error, `repeat-tool-guard: invalid argumentsPreviewChars ${written(preview)} — must be an integer >= 1${numberHint(preview)}`]
  for (const [field, list] of [['include', include], ['exclude', exclude]]) {
    if (list === undefined) continue
    if (!Array.isArray(list)) return [TypeError, `repeat-tool-guard: \`${field}\` must be an array, got ${described(list)}`]
    const bad = Array.from(list).findIndex((item) => typeof item !== 'string')
    if (bad >= 0) return [TypeError, `repeat-tool-guard: \`${field}[${bad}]\` must be a string, got ${described(list[bad])}`]
  }
  return null
}

/** `[...items]` with `value` put at `index`, leaving holes before it. */
function sparse(items, index, value) {
  const array = [...items]
  array[index] = value
  return array
}

const CONFIG_VALUES = [undefined, null, true, 0, -0, 1, 2, 3, 2.5, NaN, Infinity, 1e21, '3', '', 'grep', 3n, Symbol('s'), {}, [], [3], [null], [undefined], [3, 5], ['3'], [{}], [[3]], [3, 3], sparse([3], 2, 5), [3, 5n], new Number(3), new String('x'), () => 3, new Date(0), ['a', 'b*'], ['a', 1], ['x', null], [new String('x')], [Symbol('t')], { 0: 3, length: 1 }]
const FIELDS = ['thresholds', 'argumentsPreviewChars', 'include', 'exclude']

test('wrong types anywhere in the config: the exact validation message or a TypeError naming the field, never a default', (t) => {
  const check = (config, label) => {
    const expected = expectedRejection(config)
    if (expected === null) {
      const guard = new RepeatToolGuard(config)
      const wanted = config.thresholds === undefined ? [3, 5, 8] : [...config.thresholds].sort((a, b) => a - b)
      t.deepEqual(guard.thresholds, wanted, label)
      return
    }
    const [type, message] = expected
    const error = t.throws(() => new RepeatToolGuard(config), { instanceOf: type }, label)
    t.is(error?.message, message, label)
  }
  for (const field of FIELDS) {
    for (const [i, value] of CONFIG_VALUES.entries()) check({ [field]: value }, `${field}: CONFIG_VALUES[${i}] (${kindOf(value)})`)
  }
  const next = rng(6_0007)
  for (let i = 0; i < 2000; i++) {
    const config = {}
    for (const field of FIELDS) if (next() < 0.6) config[field] = CONFIG_VALUES[Math.floor(next() * CONFIG_VALUES.length)]
    check(config, `combination ${i}`)
  }
  for (const [config, got] of [['thresholds', 'the string "thresholds"'], [3, 'the number 3'], [true, 'the boolean true'], [Symbol('c'), 'the symbol Symbol(c)'], [1n, 'the bigint 1n'], [[{}, [[]], 4, 5], 'the array [{…}, […], 4, …]']]) {
    t.throws(() => new RepeatToolGuard(config), { instanceOf: TypeError, message: `repeat-tool-guard: the config must be an object, got ${got}` })
  }
  t.throws(() => new RepeatToolGuard({ get thresholds() { throw new RangeError('config getter') } }), { instanceOf: RangeError, message: 'config getter' }, 'a throwing getter propagates, no default')
})

test('the gentle text is the reference\'s, whatever the route to it', (t) => {
  const guard = new RepeatToolGuard({ thresholds: [2] })
  t.deepEqual([guard.observe('a', 't', 'x'), guard.observe('a', 't', 'x')?.text], [null, GENTLE])
})
