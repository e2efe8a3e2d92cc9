// The plugin's fast path (encode.js → __observeEncoded) against the class path (JSON.stringify's
// rules in Rust): the JavaScript walk writes every value as it stands (members in their own order,
// numbers as they are, values JSON has no form for marked), Rust canonicalizes it as it
// canonicalizes JSON text, and anything malformed is an error that counts nothing. Part of the
// addon suite.
import test from 'ava'
import { createRequire } from 'node:module'
import * as reference from '@deepseek-ai/dsh-repeat-tool-reminder'
import * as plugin from '../index.js'
import { canonicalize } from '../index.js'
import { HEADER, encode, transport, release } from '../lib/encode.js'
import { listenersOf } from './support/listeners.mjs'
import { nativeGuard } from './support/native.mjs'
import { randomJson, rng } from './oracle.mjs'

const binding = createRequire(import.meta.url)('../lib/native.cjs')
// The native class itself: these tests hand its guards' handles to the hot path, as the plugin does.
const WASI = binding.__napiBindingTarget === 'wasm32-wasi'
// The walk's own tests call no binding: on the WASI build they would run the same JavaScript, in the
// mode that "with long strings written inline" checks on every build.
const walkOnly = WASI ? test.skip : test
if (WASI) console.log('skip: encode: the walk\'s own tests (they run the same JavaScript as on the native build: npm test runs them there)')

/** A string's key form (core/src/form.rs): tag, LEB128 length, code units in one byte or two. */
function stringForm(text) {
  const units = Array.from({ length: text.length }, (_, i) => text.charCodeAt(i))
  const narrow = units.every((unit) => unit <= 0xff)
  const out = [narrow ? 4 : 5]
  for (let rest = units.length; ; rest = Math.floor(rest / 128)) {
    if (rest < 128) {
      out.push(rest)
      break
    }
    out.push((rest % 128) | 0x80)
  }
  for (const unit of units) {
    if (narrow) out.push(unit)
    else out.push(unit & 0xff, unit >> 8)
  }
  return out
}

// The transport's tags (core/src/transport.rs); lib/encode.js's copy is checked against Rust's.
const [NULL, NUMBER, ARRAY, OBJECT, END, ABSENT] = [0, 3, 6, 7, 9, 11]

/**
 * Reads the last encoding back in the order it was written: the agent id, the tool name, and the
 * arguments as JSON.stringify would print them (a value without JSON form left out of an object
 * and `null` in an array, as JSON does; no sorting), the raw numbers met, in order, and how many
 * values were marked as without JSON form.
 */
function readTransport({ header, bytes }) {
  const form = Array.from(bytes.subarray(0, header[1]))
  const view = new DataView(Uint8Array.from(form).buffer)
  const numbers = []
  let absent = 0
  let at = 0
  function string() {
    const wide = form[at++] === 5
    let length = 0
    for (let shift = 1; ; shift *= 128) {
      const byte = form[at++]
      length += (byte & 0x7f) * shift
      if (byte < 0x80) break
    }
    let text = ''
    for (let i = 0; i < length; i++) text += String.fromCharCode(wide ? form[at++] | (form[at++] << 8) : form[at++])
    return text
  }
  function value() {
    const tag = form[at]
    if (tag <= 2) return ['null', 'false', 'true'][form[at++]]
    if (tag === ABSENT) {
      at++
      absent++
      return undefined
    }
    if (tag === NUMBER) {
      const number = view.getFloat64(at + 1, true)
      numbers.push(number)
      at += 9
      return JSON.stringify(number)
    }
    if (tag === 4 || tag === 5) return JSON.stringify(string())
    // A container's size: the bytes after it, END included.
    const end = at + 5 + view.getUint32(at + 1, true)
    at += 5
    const parts = []
    while (form[at] !== END) {
      // A transport cut short (or a wrong length before it) must fail the test, not loop.
      if (at >= form.length) throw new Error('the transport ends inside a container')
      if (tag === ARRAY) {
        parts.push(value() ?? 'null')
      } else {
        const key = string()
        const member = value()
        if (member !== undefined) parts.push(`${JSON.stringify(key)}:${member}`)
      }
    }
    at++
    if (at !== end) throw new Error(`a container's size says it ends at ${end}, not at ${at}`)
    return tag === ARRAY ? `[${parts.join(',')}]` : `{${parts.join(',')}}`
  }
  const agent = string()
  const tool = string()
  const text = value()
  if (at !== form.length) throw new Error('trailing bytes')
  return { agent, tool, text, numbers, absent }
}

/** A string of 120 to 5,140 code units: half of them with every unit in one byte (Latin-1 included), half with some wider.
 *  Its units go into a typed array: the random values hold about 90 MB of such strings, and spreading an array of
 *  them into fromCharCode's arguments made this the suite's slowest part. */
function longString(next) {
  const top = next() < 0.5 ? 0x100 : 0x10000
  const units = new Uint16Array(120 + Math.floor(next() * 20) + (next() < 0.2 ? 5000 : 0))
  for (let i = 0; i < units.length; i++) units[i] = next() < 0.9 ? 97 + Math.floor(next() * 26) : Math.floor(next() * top)
  return String.fromCharCode.apply(null, units)
}

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

walkOnly('the JavaScript walk writes every value as it stands, members in their own order, as JSON.stringify reads it', (t) => {
  const next = rng(20261130)
  for (let i = 0; i < 3000; i++) {
    const value = randomValue(next)
    t.true(encode(value, 'agent', 'tool'))
    const { agent, tool, text } = readTransport(transport)
    t.deepEqual({ agent, tool, text }, { agent: 'agent', tool: 'tool', text: JSON.stringify(value) })
    release()
  }
})

walkOnly('strings met again at the same place, the empty string among them, are written as they are', (t) => {
  // Each depth has its own places (slots) for keys, values and elements, mostly not used before:
  // the empty string is met at places that kept nothing yet, that keep it, and that keep another.
  const values = ['', 'a', '', 'é', 'x'.repeat(14), '', 'x'.repeat(15), '']
  for (let round = 0; round < 6; round++) {
    for (const [i, text] of values.entries()) {
      let value = { [text]: text, list: [text, '', text], '': [''] }
      for (let depth = 0; depth < 40; depth++) value = depth % 3 === round % 3 ? { [text]: value } : [value, text]
      t.true(encode(value, 'agent', 'tool'))
      t.is(readTransport(transport).text, JSON.stringify(value), `round ${round}, string ${i}`)
      release()
    }
  }
})

walkOnly('the JavaScript walk applies no canonical rule: Rust gets -0, NaN, values without JSON form and keys unsorted', (t) => {
  const value = { b: -0, a: [NaN, undefined, () => 1], 10: Infinity, 9: Symbol('s'), c: undefined }
  t.true(encode(value, 'agent', 'tool'))
  const { text, numbers, absent } = readTransport(transport)
  // Object.keys order ("9", "10", "b", "a", "c"), numbers as they are, four values marked.
  t.is(text, '{"10":null,"b":0,"a":[null,null,null]}')
  t.is(numbers.length, 3)
  t.true(numbers[0] === Infinity && Object.is(numbers[1], -0) && Number.isNaN(numbers[2]), `numbers as written: ${numbers}`)
  t.is(absent, 4)
  release()
  t.is(canonicalize(value), '{"10":null,"a":[null,null,null],"b":0}')
})

walkOnly('the buffer grows at any point of the walk and keeps what is written', (t) => {
  // A call past KEEP_BYTES is dropped after release, so the next starts from the initial 4 KB.
  const shrink = () => {
    t.true(encode({ big: Array.from({ length: 1 << 17 }, () => 1) }))
    release()
  }
  // The same items after a prefix one byte longer each time: the walk crosses 4 KB at every byte
  // of a stretch of numbers, narrow and wide strings and ends of arrays and objects.
  const next = rng(99)
  const items = Array.from({ length: 500 }, () => {
    const roll = next()
    return roll < 0.3 ? next() * 1e6 : roll < 0.6 ? 'é'.repeat(Math.floor(next() * 9)) : roll < 0.8 ? '\u{1F600}x'.repeat(Math.floor(next() * 5)) : [{ k: true }, null]
  })
  for (let shift = 0; shift < 60; shift++) {
    const value = { head: 'p'.repeat(shift), items }
    shrink()
    t.true(encode(value, 'agent', 'tool'))
    t.is(readTransport(transport).text, JSON.stringify(value))
    release()
  }
})

test('Rust accepts what the walk writes and keys it as the class path does', (t) => {
  const next = rng(7)
  const guard = nativeGuard({ thresholds: [2] })
  const handle = guard.__handle()
  const fast = (agent, value) => {
    t.true(encode(value, agent, 'tool', handle))
    try {
      return binding.__observeEncoded(transport.buffer)
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
    // The message names the value only when the assertion fails: writing it for every value took
    // a quarter of the suite's time.
    t.truthy(second, second ? undefined : `value ${canonicalize(value)}`)
    t.is(second.count, 2)
    // And the other way round, after a different call restarts the run.
    t.is(fast(agent, { different: i }), undefined)
    t.is(fast(agent, value), undefined)
    t.is(guard.observe(agent, 'tool', value).count, 2)
  }
})

test('without Node\'s Buffer (a browser), a string is written one code unit at a time, one byte a unit exactly when every unit fits in one, wherever a wider one lies', async (t) => {
  // A copy of its own, evaluated without Node's Buffer.
  const buffer = globalThis.Buffer
  globalThis.Buffer = undefined
  const { encode, transport, release } = await import('../lib/encode.js?no-buffer').finally(() => {
    globalThis.Buffer = buffer
  })
  const guard = nativeGuard({ thresholds: [2] })
  const body = 'x'.repeat(20_000)
  // A string V8 keeps two bytes a unit though every unit fits in one: a slice of one that does not.
  const twoByteLatin1 = ('€' + 'é'.repeat(20_000)).slice(1)
  const strings = {
    short: 'abc',
    ascii: body,
    latin1: 'é'.repeat(20_000),
    twoByteLatin1,
    'wide at the start': `€${body}`,
    'wide at the end': `${body}€`,
    'wide in the middle': `${body}€${body}`,
    'lone surrogate in the middle': `${body}\ud800${body}`,
  }
  for (const [name, text] of Object.entries(strings)) {
    const value = { text, list: [text.slice(0, 200)] }
    t.true(encode(value, name, 'tool', guard.__handle()))
    t.is(readTransport(transport).text, JSON.stringify(value), name)
    // By definition: narrow when no code unit is past 0xff (the tag after the agent id, tool name,
    // object tag and size, and the key "text").
    const at = 2 + name.length + 2 + 'tool'.length + 5 + 2 + 'text'.length
    t.is(transport.bytes[at], /[^\0-\xff]/.test(text) ? 5 : 4, name)
    t.is(binding.__observeEncoded(transport.buffer), undefined)
    release()
    // The class path keys it alike: the second call of a run.
    t.is(guard.observe(name, 'tool', value)?.count, 2, name)
  }
})

test('in Node a string of a few dozen units or more is copied in, one byte a code unit exactly when every unit fits in one', (t) => {
  const guard = nativeGuard({ thresholds: [2] })
  const body = 'x'.repeat(40_000)
  const strings = {
    ascii: body.slice(0, 40),
    latin1: 'é'.repeat(40_000),
    twoByteLatin1: ('€' + 'é'.repeat(40_000)).slice(1),
    'wide at the start': `€${body}`,
    'wide at the end': `${body}€`,
    'lone surrogate in the middle': `${body}\ud800${body}`,
  }
  for (const [name, text] of Object.entries(strings)) {
    const value = { text, list: [text.slice(0, 200)] }
    t.true(encode(value, name, 'tool', guard.__handle()))
    t.is(readTransport(transport).text, JSON.stringify(value), name)
    t.is(binding.__observeEncoded(transport.buffer), undefined)
    release()
    // The class path keys it alike: the second call of a run.
    t.is(guard.observe(name, 'tool', value)?.count, 2, name)
  }
})

/**
 * Four identical grep calls of the agent `id` through the plugin's own listener (thresholds [3]):
 * for each, how many contexts its decision carries (1 with a reminder).
 */
async function remindersOfFourCalls(id) {
  const listener = listenersOf(plugin, { thresholds: [3] })['tools/post-execute']
  const agent = { id }
  const reminded = []
  for (let i = 0; i < 4; i++) {
    const decision = await listener({ name: 'grep', agent, arguments: { q: 1 } }, {}, () => Promise.resolve({ kind: 'accept' }))
    reminded.push(decision.additionalContexts?.length ?? 0)
  }
  return reminded
}

/** An ArrayBuffer laid out as encode.js lays out its own: the header numbers, then `bytes`. */
function bufferOf(header, bytes) {
  const buffer = new ArrayBuffer(HEADER * 8 + bytes.length)
  new Float64Array(buffer, 0, header.length).set(header)
  new Uint8Array(buffer, HEADER * 8).set(bytes)
  return buffer
}

/** A raw object's bytes: its tag, its size, `members` (keys and values), its END. */
function object(...members) {
  const size = members.length + 1
  return [OBJECT, size & 0xff, (size >> 8) & 0xff, (size >> 16) & 0xff, size >>> 24, ...members, END]
}

/** A raw call's bytes: the agent id "ag", the tool name "tool", then `arguments`. */
const callBytes = (args) => [...stringForm('ag'), ...stringForm('tool'), ...args]
// {"a": null, "b": null}, and the same members the other way round.
const ab = object(...stringForm('a'), NULL, ...stringForm('b'), NULL)
const ba = object(...stringForm('b'), NULL, ...stringForm('a'), NULL)

test('with sameResultOnly, a result written on the fast path keys as the class path reads it', (t) => {
  const next = rng(99)
  const guard = nativeGuard({ thresholds: [2], sameResultOnly: true })
  const handle = guard.__handle()
  const fast = (agent, args, result) => {
    t.true(encode(args, agent, 'tool', handle, true, result))
    try {
      return binding.__observeEncoded(transport.buffer)
    } finally {
      release()
    }
  }
  const fn = Object.assign(() => 1, { content: 'from a function' })
  const results = () => [
    undefined, null, {}, { content: randomValue(next) }, { content: randomValue(next), isError: next() < 0.5 ? 1 : '' },
    { isError: 'yes' }, { content: longString(next) }, { content: [longString(next), 'x'], isError: true }, { content: undefined, isError: 0 }, fn,
  ]
  for (let i = 0; i < 300; i++) {
    const agent = `agent-${i}`
    // Long strings before the result move where it starts.
    const args = next() < 0.5 ? randomValue(next) : { a: longString(next), b: [randomValue(next)] }
    for (const result of results()) {
      t.is(guard.observe(agent, 'tool', args, result), null)
      const count = fast(agent, args, result)?.count
      t.is(count, 2, count === 2 ? undefined : `${canonicalize(args)} ${JSON.stringify(result)}`)
      // Another result restarts the run; the same one again, on the class path, extends it.
      t.is(fast(agent, args, { content: 'another', isError: true }), undefined)
      t.is(fast(agent, args, result), undefined)
      t.is(guard.observe(agent, 'tool', args, result)?.count, 2)
      guard.reset(agent)
    }
  }
  // What the class path must check stays there: a result that is not an object, or content JSON
  // has no plain form for.
  for (const result of ['text', 1, { content: 1n }, { content: new Date(0) }]) {
    t.false(encode({}, 'a', 'tool', handle, true, result))
    release()
  }
})

test('calls of a few agents and tools in any order count on the fast path as on the class path', (t) => {
  // Rust keeps the last call's agent id and tool name: they must never stand in for others.
  const next = rng(11)
  const fastGuard = nativeGuard({ thresholds: [2, 3, 5] })
  const classGuard = nativeGuard({ thresholds: [2, 3, 5] })
  const agents = ['a', 'ag', 'agent-1', 'é', '', '\u{1F600}']
  const tools = ['x', 'xy', 'g', 'gx', '', 'ü']
  const pick = (list) => list[Math.floor(next() * list.length)]
  let call = ['a', 'x', { q: 1 }]
  let reminders = 0
  for (let i = 0; i < 4000; i++) {
    // Often the same call again, so that runs grow.
    if (next() < 0.4) call = [pick(agents), pick(tools), next() < 0.7 ? { q: 1 } : { q: [2] }]
    const [agent, tool, args] = call
    t.true(encode(args, agent, tool, fastGuard.__handle()))
    const fast = binding.__observeEncoded(transport.buffer)
    release()
    const slow = classGuard.observe(agent, tool, args)
    t.deepEqual(fast ?? null, slow, `call ${i}: ${JSON.stringify(call)}`)
    if (slow) reminders++
  }
  t.true(reminders > 100)
})

test.serial('two copies of encode.js in one thread (a test runner\'s isolated module graphs) each hand their own buffer over, growing it as calls need, and count as the class path does', async (t) => {
  const second = await import('../lib/encode.js?second-copy')
  const copies = [{ encode, transport, release }, second]
  const next = rng(12)
  const fastGuard = nativeGuard({ thresholds: [2, 3, 5] })
  const classGuard = nativeGuard({ thresholds: [2, 3, 5] })
  const pick = (list) => list[Math.floor(next() * list.length)]
  // The ~5 KB string makes the buffer grow.
  const argsList = [{ q: 1 }, { q: [2] }, { q: 'x'.repeat(200) }, { q: 'y'.repeat(5000), n: [1, 2] }]
  let call = ['a', 'x', argsList[0]]
  let reminders = 0
  for (let i = 0; i < 3000; i++) {
    if (next() < 0.4) call = [pick(['a', 'agent-1', 'é']), pick(['x', 'gx']), pick(argsList)]
    const [agent, tool, args] = call
    const copy = pick(copies)
    t.true(copy.encode(args, agent, tool, fastGuard.__handle()))
    t.true(copy.transport.buffer instanceof ArrayBuffer)
    const fast = binding.__observeEncoded(copy.transport.buffer)
    copy.release()
    const slow = classGuard.observe(agent, tool, args)
    t.deepEqual(fast ?? null, slow, `call ${i}: ${JSON.stringify(call).slice(0, 60)}`)
    if (slow) reminders++
  }
  t.true(reminders > 100, String(reminders))
  t.true(transport.buffer !== second.transport.buffer, 'each copy writes into a buffer of its own')
  // The plugin's own listener.
  t.deepEqual(await remindersOfFourCalls('copies'), [0, 0, 1, 0])
})

test.serial('a bad header is a clear error that leaves the buffer serving, and a buffer detached behind the walk\'s back fails one call over to the class path', (t) => {
  const guard = nativeGuard({})
  const observe = () => binding.__observeEncoded(transport.buffer)
  for (const [index, value, message] of [
    [1, 1e9, /length out of range/], [1, -1, /length out of range/], [1, 4, /malformed tool name/],
    [0, 12345, /disposed or belongs to another thread/], [0, NaN, /disposed or belongs to another thread/],
    [2, 0.5, /result start out of range/], [2, 7, /a result without sameResultOnly/],
  ]) {
    t.true(encode({ q: 1 }, 'ag', 'tool', guard.__handle()))
    transport.header[index] = value
    t.throws(observe, { message }, `header[${index}] = ${value}`)
    release()
  }
  t.true(encode({ q: 1 }, 'ag', 'tool', guard.__handle()))
  t.is(observe(), undefined, 'the buffer still serves after the errors')
  release()
  // Node 22's ArrayBuffer.prototype.transfer detaches it: one call goes to the class path, then a
  // new buffer serves.
  if (ArrayBuffer.prototype.transfer) {
    transport.buffer.transfer()
    t.false(encode({ q: 1 }, 'ag', 'tool', guard.__handle()))
    t.true(encode({ q: 1 }, 'ag', 'tool', guard.__handle()))
    t.is(observe(), null, 'the same call again: it repeats, with no reminder yet')
    release()
  }
})

test('agent ids and tool names of every kind key a call as the class path does', (t) => {
  const guard = nativeGuard({ thresholds: [2] })
  const handle = guard.__handle()
  const names = ['grep', '', 'é', 'ünïcödé', '\u{1F600}', '\uFF5E', 'x'.repeat(127), 'x'.repeat(128), 'y'.repeat(500), '\uD800', 'a\uDC00b']
  for (const agent of names) {
    for (const tool of names) {
      const fast = encode({ q: tool }, agent, tool, handle)
      // Long names take the class path; lone surrogates are written as they are.
      t.is(fast, agent.length < 128 && tool.length < 128, `${agent} ${tool}`)
      t.is(guard.observe(agent, tool, { q: tool }), null)
      const second = fast ? binding.__observeEncoded(transport.buffer) : guard.observe(agent, tool, { q: tool })
      release()
      t.is(second?.count, 2, `${JSON.stringify(agent)} ${JSON.stringify(tool)}`)
      guard.reset(agent)
    }
  }
})

test('members in any order are one call, and a malformed transport is an error that changes no chain and no counter', (t) => {
  const guard = nativeGuard({ thresholds: [2, 3] })
  const observe = (args) => binding.__observeEncoded(bufferOf([guard.__handle(), callBytes(args).length, 0], callBytes(args)))
  t.is(observe(ab), undefined)
  t.is(observe(ba).count, 2)
  const observed = guard.stats().observed
  // Cut short, a key without its value, a value after the end, a wide string that fits in bytes,
  // a tag that is no tag, a lone value without JSON form, a size that is not the object's.
  const wrongSize = [OBJECT, 0, 0, 0, 0, ...ab.slice(5)]
  for (const args of [ab.slice(0, -1), object(...stringForm('a')), [...ab, NULL], [5, 1, 97, 0], [10, 0], [ABSENT], object(ABSENT, NULL), wrongSize]) {
    t.throws(() => observe(args), { message: /malformed argument encoding/ }, JSON.stringify(args))
  }
  t.is(guard.stats().observed, observed, 'nothing counted')
  // The run goes on where it was: the detailed reminder at 3 reads the arguments back.
  const third = observe(ba)
  t.is(third.count, 3)
  t.regex(third.text, /"a":null,"b":null/)
})

test('anything JSON.stringify would treat otherwise than a plain value is left to the class path', (t) => {
  const own = { toJSON: () => 1 }
  const ownArray = Object.assign([1], { toJSON: () => 2 })
  const bare = Object.assign(Object.create(null), { toJSON: () => 3 })
  class Point { constructor() { this.x = 1 } }
  // Among other keys, and after an object with the same other keys (whose sorted keys are cached).
  const among = [{ b: 1, a: 2 }, { b: 1, a: 2, toJSON: () => 4 }]
  for (const value of [own, { a: { b: own } }, among, [own], ownArray, { a: ownArray }, bare, new Date(0), new Point(), [new String('s')], { n: Object(1) }, { big: 1n }]) {
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
  // An enumerable member of Object.prototype, which JSON.stringify leaves out and a for-in walk
  // would meet in every object.
  Object.prototype.inherited = 1
  try {
    t.false(encode({ a: 1 }))
  } finally {
    delete Object.prototype.inherited
    release()
  }
  t.true(encode({ a: [1] }))
  release()
})

/** The plugin's and the reference's listener each given `calls` in turn (thresholds [2]): `<side> <reminders>` per call. */
async function remindedOnBothSides(calls) {
  const reminded = []
  for (const [name, module] of [['plugin', plugin], ['reference', reference]]) {
    const listener = listenersOf(module, { thresholds: [2] })['tools/post-execute']
    const agent = { id: name }
    for (const args of calls) {
      const decision = await listener({ name: 'grep', agent, arguments: args }, {}, () => Promise.resolve({ kind: 'accept' }))
      reminded.push(`${name} ${decision.additionalContexts?.length ?? 0}`)
    }
  }
  return reminded
}

test('the plugin reads the own enumerable members of objects, as the reference does: a non-enumerable toJSON is not called', async (t) => {
  // canonicalize() and RepeatToolGuard apply JSON.stringify's rules to the value itself; the
  // plugin's walk, like the reference's copy, never looks for a member for-in does not yield.
  const withHidden = (text) => Object.defineProperty({ a: 1 }, 'toJSON', { value: () => text, enumerable: false })
  t.is(canonicalize(withHidden('x')), '"x"')
  t.true(encode(withHidden('x'), 'agent', 'tool'))
  t.is(readTransport(transport).text, '{"a":1}')
  release()
  const reminded = await remindedOnBothSides(['x', 'y'].map(withHidden))
  // One run of two for both: the second call is reminded of.
  t.deepEqual(reminded, ['plugin 0', 'plugin 1', 'reference 0', 'reference 1'])
})

test('the plugin reads a boxed string given Object.prototype by its enumerable members, as the reference does, where JSON.stringify unboxes it', async (t) => {
  // JSON.stringify unboxes by the internal slot: with Object.prototype's toString, any such String
  // is "[object String]". The plugin's walk, like the reference's copy, sees an object of its characters.
  const boxed = (text) => Object.setPrototypeOf(new String(text), Object.prototype)
  t.is(canonicalize(boxed('ab')), '"[object String]"')
  t.is(canonicalize(boxed('cd')), '"[object String]"')
  t.true(encode(boxed('ab'), 'agent', 'tool'))
  t.is(readTransport(transport).text, '{"0":"a","1":"b"}')
  release()
  const reminded = await remindedOnBothSides(['ab', 'cd', 'cd'].map(boxed))
  // Two calls that differ, then a repeat: only the third is reminded of, on both sides.
  t.deepEqual(reminded, ['plugin 0', 'plugin 0', 'plugin 1', 'reference 0', 'reference 0', 'reference 1'])
})

test('a malformed call of the raw hot path is a clear error, never a crash or a read out of bounds', (t) => {
  const guard = nativeGuard({})
  const bytes = callBytes(ab)
  // handle, bytes written, where the result starts (none)
  const header = [guard.__handle(), bytes.length, 0]
  const call = (head, body = bytes) => binding.__observeEncoded(bufferOf(head, body))
  t.is(call(header), undefined)
  const detached = bufferOf(header, bytes)
  structuredClone(detached, { transfer: [detached] })
  const cases = [
    [() => binding.__observeEncoded(new Float64Array(header)), /expected an ArrayBuffer/],
    [() => binding.__observeEncoded('agtool'), /expected an ArrayBuffer/],
    [() => binding.__observeEncoded(new ArrayBuffer(16)), /header out of range/],
    [() => binding.__observeEncoded(detached), /header out of range/],
    [() => binding.__observeEncoded(), /takes 1 argument/],
  ]
  for (const [index, value, message] of [
    [1, bytes.length + 1, /length out of range/], [1, 1e9, /length out of range/], [1, -1, /length out of range/], [1, 0.5, /length out of range/],
    [1, 3, /malformed agent id/], [1, 5, /malformed tool name/], [1, 10, /malformed argument encoding/],
    [0, 12345, /.+/], [0, NaN, /.+/],
    // Only the guard's own handle finds it: not a number near it, nor one past the range of handles.
    ...[header[0] + 0.5, header[0] + 2 ** 32, -1, 2 ** 52, Infinity].map((handle) => [0, handle, /disposed or belongs to another thread/]),
  ]) {
    const head = [...header]
    head[index] = value
    cases.push([() => call(head), message])
  }
  // An agent id written wide though it fits in bytes.
  const wideAgent = [5, 2, 97, 0, 103, 0, ...bytes.slice(4)]
  cases.push([() => call([guard.__handle(), wideAgent.length, 0], wideAgent), /malformed agent id/])
  // A result where the guard compares none, or one that starts inside the agent id and tool name.
  const results = nativeGuard({ sameResultOnly: true })
  cases.push([() => call([guard.__handle(), bytes.length, 12]), /a result without sameResultOnly/])
  cases.push([() => call([results.__handle(), bytes.length, 3]), /result start out of range/])
  cases.push([() => call([results.__handle(), bytes.length, bytes.length + 1]), /result start out of range|malformed/])
  cases.push([() => call([results.__handle(), bytes.length, bytes.length - 1]), /malformed argument encoding/])
  for (const [run, message] of cases) t.throws(run, { message })
})
