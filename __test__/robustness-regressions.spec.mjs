// Regressions for bugs the robustness suites and fuzzers found in the binding and the core,
// each written as a failing reproducer first: the deep fallback past V8's depth, a toJSON that
// canonicalizes again, halfway number ties, arrays or functions as the config, and `*` against line
// terminators.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import test from 'ava'
import * as plugin from '../index.js'
import { RepeatToolGuard, canonicalize } from '../index.js'
import { rng } from './oracle.mjs'
import { listenersOf } from './support/listeners.mjs'

/** Nested in `depth` arrays: past V8's JSON.stringify limit, so lib/json-text.js' explicit stack serializes it. */
function deep(value, depth = 20_000) {
  for (let i = 0; i < depth; i++) value = [value]
  return value
}
const deepText = (inner, depth = 20_000) => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`

test('a function\'s toJSON is called past V8\'s depth, as JSON.stringify calls it', (t) => {
  const make = () => { const f = () => 1; f.toJSON = () => 'fn'; return { f } }
  t.is(canonicalize(make()), '{"f":"fn"}')
  t.is(canonicalize(deep(make())), deepText('{"f":"fn"}'), 'deep: the function is dropped instead')
})

test('BigInt.prototype.toJSON is honoured past V8\'s depth', (t) => {
  // eslint-disable-next-line no-extend-native -- what a caller may do, and JSON.stringify honours
  BigInt.prototype.toJSON = function () { return `${this}n` }
  try {
    t.is(canonicalize({ b: 1n }), '{"b":"1n"}')
    t.is(canonicalize(deep({ b: 1n })), deepText('{"b":"1n"}'), 'deep: TypeError "Do not know how to serialize a BigInt" instead')
  } finally {
    delete BigInt.prototype.toJSON
  }
})

test('a proxied array is an array past V8\'s depth (IsArray sees through proxies)', (t) => {
  t.is(canonicalize(new Proxy([1, 2], {})), '[1,2]')
  t.is(canonicalize(deep(new Proxy([1, 2], {}))), deepText('[1,2]'), 'deep: {"0":1,"1":2} instead')
})

test('boxed primitives unwrap past V8\'s depth', (t) => {
  const make = () => [new String('x'), new Number(3), new Boolean(false)]
  t.is(canonicalize(make()), '["x",3,false]')
  t.is(canonicalize(deep(make())), deepText('["x",3,false]'), 'deep: [{"0":"x"},{},{}] instead')
})

test('a toJSON that canonicalizes its own object ends promptly, as JSON.stringify does', async (t) => {
  // Each RangeError for depth is retried through the deep fallback, which calls toJSON again:
  // the retries nest, and the call never ends (killed here after 20 s).
  const script = fileURLToPath(new URL('./robustness/reentrant.mjs', import.meta.url))
  const outcome = await new Promise((resolve) => {
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (chunk) => { out += chunk })
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve(signal ? { hung: true } : { code, ...JSON.parse(out || '{}') })
    })
  })
  t.falsy(outcome.hung, 'canonicalize did not return within 20 s')
  t.is(outcome.error, 'RangeError')
})

test('numbers whose shortest digits tie round to even, as V8 prints them', (t) => {
  // Exact value 1251472842895692.25: 17 digits cannot tell .2 from .3; V8 (and ECMA-262's note)
  // picks the even one, Rust's {:e} the other. Through JSON.stringify's text too.
  for (const x of [1251472842895692.25, 12843489228590.3125, 261711569948893.625]) {
    t.is(canonicalize([x]), JSON.stringify([x]), String(x))
    t.is(canonicalize(deep([x])), deepText(JSON.stringify([x])), `${x}, deep`)
  }
  const next = rng(6_0003)
  const view = new DataView(new ArrayBuffer(8))
  const doubles = []
  while (doubles.length < 20_000) {
    view.setUint32(0, Math.floor(next() * 2 ** 32))
    view.setUint32(4, Math.floor(next() * 2 ** 32))
    doubles.push(view.getFloat64(0))
  }
  const wrong = doubles.filter((x) => canonicalize([x]) !== JSON.stringify([x]))
  t.deepEqual(wrong.slice(0, 5).map(String), [], `${wrong.length} of 20,000 random doubles print otherwise than V8`)
})

test('an array or a function as the whole config is a TypeError, not the defaults', (t) => {
  // Through cordis the schema already rejects these; the class takes them as {} today.
  t.throws(() => new RepeatToolGuard([3, 5, 8]), { instanceOf: TypeError, message: 'repeat-tool-guard: the config must be an object, got the array [3, 5, 8]' })
  t.throws(() => new RepeatToolGuard(() => ({ thresholds: [2] })), { instanceOf: TypeError, message: 'repeat-tool-guard: the config must be an object, got a function' })
})

test('`*` does not match line terminators, as the reference\'s `.*` does not', (t) => {
  // The reference compiles a pattern to new RegExp(`^${escaped.replaceAll('*', '.*')}$`) without the
  // s flag; globset's `*` matches anything. Only tool names containing a line terminator differ.
  const reference = (pattern, name) => new RegExp(`^${pattern.replace(/[|\\{}()[\]^$+?.]/g, '\\$&').replaceAll('*', '.*')}$`).test(name)
  for (const name of ['mcp_a\nb', 'mcp_\r', 'mcp_\u2028x', 'mcp_\u2029', 'mcp_x']) {
    const guard = new RepeatToolGuard({ include: ['mcp_*'] })
    t.is(guard.isTracked(name), reference('mcp_*', name), JSON.stringify(name))
  }
})

test.serial('a setter on Object.prototype that the reminder\'s fields meet may call the plugin again, with calls that replace its transport buffer', async (t) => {
  // Making a cycle reminder sets its `tools` with napi_set_named_property, which runs such a
  // setter: JavaScript that the fast path must not meet while it still borrows the call's bytes
  // (src/hot_path.rs: the answer is made after the bytes' borrow ends).
  const listeners = listenersOf(plugin, { cycles: { maxPeriod: 2, repeats: 2 } })
  const postExecute = listeners['tools/post-execute']
  const accept = async () => ({ kind: 'accept' })
  const observe = (agent, name, args) => postExecute({ agent: { id: agent }, name, arguments: args }, { content: [], isError: false }, accept)
  const inner = []
  Object.defineProperty(Object.prototype, 'tools', {
    configurable: true,
    set(value) {
      Object.defineProperty(this, 'tools', { value, writable: true, enumerable: true, configurable: true })
      // Calls far larger than the buffer kept between calls, so it is made anew.
      for (let i = 0; i < 3; i++) inner.push(observe('inner', 'grep', { big: 'x'.repeat(1 << 22), i }))
    },
  })
  try {
    const decisions = []
    for (const name of ['read', 'grep', 'read', 'grep']) decisions.push(await observe('outer', name, { q: 'same' }))
    t.deepEqual(decisions.slice(0, 3).map((d) => d.additionalContexts), [undefined, undefined, undefined])
    t.true(decisions[3].additionalContexts[0].content[0].text.startsWith('Repeated cycle of tool calls detected:\n- tools: read, grep\n'))
    t.is(inner.length, 3, 'the setter ran once, for the outer reminder')
    for (const decision of await Promise.all(inner)) t.is(decision.additionalContexts, undefined)
  } finally {
    delete Object.prototype.tools
  }
})
