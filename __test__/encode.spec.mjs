// The plugin's fast path (encode.js → __observeEncoded) against the class path (JSON.stringify's
// rules in Rust): the JavaScript walk must put every object's members in canonical order and leave
// out what JSON leaves out, and Rust must accept exactly that. Runs on Node 20 and 22.
import test from 'ava'
import { createRequire } from 'node:module'
import { RepeatToolGuard, canonicalize } from '../index.js'
import { HEADER, encode, encoded, release } from '../encode.js'
import { randomJson, rng } from './oracle.mjs'

const binding = createRequire(import.meta.url)('../native.cjs')

/** The characters of the last encoding: `units` with the long strings read in at their offsets. */
function charsOf({ ops, units, pieces }) {
  const unitsLength = ops[2]
  let text = ''
  let copied = 0
  for (let i = 0; pieces && i < pieces.length; i += 2) {
    text += String.fromCharCode(...units.subarray(copied, pieces[i])) + pieces[i + 1]
    copied = pieces[i]
  }
  return text + String.fromCharCode(...units.subarray(copied, unitsLength))
}

/** Reads an encoding back as canonical JSON text, in the order the ops give (no sorting). */
function decode({ ops }, text) {
  const length = ops[1]
  let op = HEADER
  let at = 0
  const take = (n) => text.slice(at, (at += n))
  function value() {
    const tag = ops[op++]
    if (tag <= 2) return ['null', 'false', 'true'][tag]
    if (tag === 3) return JSON.stringify(ops[op++])
    if (tag === 4) return JSON.stringify(take(ops[op++]))
    const size = ops[op++]
    const parts = []
    for (let i = 0; i < size; i++) parts.push(tag === 5 ? value() : `${JSON.stringify(take(ops[op++]))}:${value()}`)
    return tag === 5 ? `[${parts.join(',')}]` : `{${parts.join(',')}}`
  }
  const result = value()
  if (op !== length || at !== text.length) throw new Error('trailing ops or characters')
  return result
}

const longString = (next) => String.fromCharCode(...Array.from({ length: 120 + Math.floor(next() * 20) + (next() < 0.2 ? 5000 : 0) }, () => (next() < 0.9 ? 97 + Math.floor(next() * 26) : Math.floor(next() * 0x10000))))

const KEYS = ['0', '1', '2', '9', '10', '99', '01', '-1', '4294967294', '4294967295', '1e3', '', 'a', 'b', 'B', 'ab', 'é', '\u{1F600}', '\uFF5E', '\uD800', 'z']

/** A plain value with up to `wide` keys per object, keys inserted in random order, and members
 *  and elements JSON has no form for. */
function randomValue(next, depth = 0, wide = 40) {
  const r = next()
  // Strings around the length from which the walk passes them as they are.
  if (r < 0.05) return longString(next)
  if (depth > 3 || r < 0.3) return randomJson(next, 5)
  if (r < 0.45) {
    return Array.from({ length: Math.floor(next() * 5) }, () => (next() < 0.15 ? [undefined, () => 1, Symbol('s')][Math.floor(next() * 3)] : randomValue(next, depth + 1, wide)))
  }
  const object = {}
  const count = Math.floor(next() * (next() < 0.3 ? wide : 6))
  for (let i = 0; i < count; i++) {
    const roll = next()
    const key = roll < 0.05 ? longString(next) : roll < 0.5 ? KEYS[Math.floor(next() * KEYS.length)] : `k${Math.floor(next() * 1000)}`
    const kind = next()
    Object.defineProperty(object, key, {
      value: kind < 0.1 ? undefined : kind < 0.13 ? () => 1 : kind < 0.15 ? Symbol('s') : randomValue(next, depth + 1, wide),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return object
}

test('the JavaScript walk writes every value in canonical order, as the class path canonicalizes it', (t) => {
  const next = rng(20261130)
  for (let i = 0; i < 3000; i++) {
    const value = randomValue(next)
    t.true(encode(value, 'agent', 'tool'))
    t.is(decode(encoded, charsOf(encoded).slice('agenttool'.length)), canonicalize(value))
    release()
  }
})

test('Rust accepts what the walk writes and keys it as the class path does', (t) => {
  const next = rng(7)
  const guard = new RepeatToolGuard({ thresholds: [2] })
  const handle = guard.__handle()
  const fast = (agent, value) => {
    t.true(encode(value, agent, 'tool', handle))
    try {
      return binding.__observeEncoded(encoded.memory, encoded.pieces)
    } finally {
      release()
    }
  }
  for (let i = 0; i < 2000; i++) {
    const value = randomValue(next)
    const agent = `agent-${i}`
    // The class path first, then the fast path with the same value: one run of two.
    t.is(guard.observe(agent, 'tool', value), null)
    const second = fast(agent, value)
    t.truthy(second, `value ${canonicalize(value)}`)
    t.is(second.count, 2)
    // And the other way round, after a different call restarts the run.
    t.is(fast(agent, { different: i }), null)
    t.is(fast(agent, value), null)
    t.is(guard.observe(agent, 'tool', value).count, 2)
  }
})

/**
 * An ArrayBuffer laid out as encode.js lays out its own: `ops` from the start (the header's units
 * offset, its last number, filled in unless given), then the code units of `chars`.
 */
function memoryOf(ops, chars, unitsOffset = ops.length * 8) {
  const memory = new ArrayBuffer(Math.max(ops.length * 8, unitsOffset + chars.length * 2))
  const header = [...ops]
  if (header.length >= HEADER && header[HEADER - 1] === undefined) header[HEADER - 1] = unitsOffset
  new Float64Array(memory, 0, ops.length).set(header)
  for (let i = 0; i < chars.length; i++) new DataView(memory).setUint16(unitsOffset + i * 2, chars.charCodeAt(i), true)
  return memory
}

test('Rust rejects members out of canonical order, which no walk writes', (t) => {
  const guard = new RepeatToolGuard({})
  const observe = (chars) => {
    // Header (handle, ops and units used, id and name lengths, no pieces, units offset to fill in),
    // then {<1 char>: null, <1 char>: null}.
    const ops = [guard.__handle(), 13, 8, 2, 4, 0, undefined, 6, 2, 1, 0, 1, 0]
    return binding.__observeEncoded(memoryOf(ops, 'agtool' + chars), null)
  }
  for (const chars of ['ba', 'aa', '10']) t.throws(() => observe(chars), { message: /malformed argument encoding/ })
  t.is(observe('01'), null)
})

test('anything JSON.stringify would treat otherwise than a plain value is left to the class path', (t) => {
  const own = { toJSON: () => 1 }
  const ownArray = Object.assign([1], { toJSON: () => 2 })
  const bare = Object.assign(Object.create(null), { toJSON: () => 3 })
  class Point { constructor() { this.x = 1 } }
  for (const value of [own, { a: { b: own } }, [own], ownArray, { a: ownArray }, bare, new Date(0), new Point(), [new String('s')], { n: Object(1) }, { big: 1n }]) {
    t.false(encode(value))
    release()
  }
  const plain = Object.assign(Object.create(null), { b: 1, a: 2 })
  t.true(encode({ nested: plain, toJSONs: 'a value, not a key' }))
  release()
  for (const prototype of [Object.prototype, Array.prototype]) {
    prototype.toJSON = () => 'patched'
    try {
      t.false(encode({ a: [1] }))
    } finally {
      delete prototype.toJSON
      release()
    }
  }
  t.true(encode({ a: [1] }))
  release()
})

test('a malformed call of the raw hot path is a clear error, never a crash or a read out of bounds', (t) => {
  const guard = new RepeatToolGuard({})
  // handle, ops used, units used, id length, name length, pieces, units offset (filled in);
  // then {"a": null, "b": null}
  const header = [guard.__handle(), 13, 8, 2, 4, 0, undefined]
  const body = [6, 2, 1, 0, 1, 0]
  const call = (head, pieces = null, chars = 'agtoolab', unitsOffset) => binding.__observeEncoded(memoryOf([...head, ...body], chars, unitsOffset), pieces)
  t.is(call(header), null)
  const detached = memoryOf([...header, ...body], 'agtoolab')
  structuredClone(detached, { transfer: [detached] })
  const cases = [
    [() => binding.__observeEncoded(new Float64Array([...header, ...body]), null), /expected an ArrayBuffer/],
    [() => binding.__observeEncoded('agtoolab', null), /expected an ArrayBuffer/],
    [() => binding.__observeEncoded(new ArrayBuffer(48), null), /ops header out of range/],
    [() => binding.__observeEncoded(detached, null), /ops header out of range/],
    [() => binding.__observeEncoded(), /takes 2 arguments/],
  ]
  for (const [index, value, message] of [
    [1, 14, /(ops length|units offset) out of range/], [1, 1e6, /ops length out of range/], [1, 2, /ops length out of range/], [1, 0.5, /ops length out of range/],
    [2, 9, /units length out of range/], [2, -1, /units length out of range/],
    [3, 9, /agent id length out of range/], [4, 7, /tool name length out of range/],
    [5, 1, /expected the pieces/], [0, 12345, /.+/], [0, NaN, /.+/],
    // The units may not start inside the ops used, past the buffer, or between two code units.
    [6, 13 * 8 - 2, /units offset out of range/], [6, 1e9, /units length out of range/], [6, 13 * 8 + 1, /units length out of range/], [6, -8, /units offset out of range/],
  ]) {
    const head = [...header]
    head[index] = value
    cases.push([() => call(head), message])
  }
  const withPiece = [...header.slice(0, 2), 6, 2, 4, 1, undefined]
  cases.push([() => call(withPiece, [7, 'ab'], 'agtool'), /piece offsets out of order/])
  cases.push([() => call(withPiece, [6, 42], 'agtool'), /.+/])
  cases.push([() => call(withPiece, [6, 'ab', 8, 'c'], 'agtool'), /not as many as the header says/])
  for (const pieces of [null, {}, 'ab']) cases.push([() => call(withPiece, pieces, 'agtool'), /expected the pieces/])
  cases.push([() => call(withPiece, [6], 'agtool'), /not as many as the header says/])
  for (const [run, message] of cases) t.throws(run, { message })
  // A getter among the pieces that detaches the buffer runs before the buffer is read.
  const memory = memoryOf([...withPiece, ...body], 'agtool')
  const pieces = [6]
  Object.defineProperty(pieces, 1, { get: () => (structuredClone(memory, { transfer: [memory] }), 'ab'), enumerable: true })
  t.throws(() => binding.__observeEncoded(memory, pieces), { message: /ops header out of range/ })
  // A piece read in where it belongs: the same call as before, so a run of two.
  const reminded = new RepeatToolGuard({ thresholds: [2] })
  t.is(call([reminded.__handle(), ...header.slice(1)]), null)
  // The last code unit ("b") comes as a piece at offset 7 instead.
  t.is(call([reminded.__handle(), 13, 7, 2, 4, 1, undefined], [7, 'b'], 'agtoola').count, 2)
})
