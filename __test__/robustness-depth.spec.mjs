// Robustness for deep nesting: 100,000 levels built or parsed, and the depths around V8's own limit,
// byte-identical to V8's text where V8 still writes one. A file of its own so that ava runs it beside
// the other robustness checks (on the WASI build each takes a minute or more).
import test from 'ava'
import { RepeatToolGuard, canonicalize } from '../index.js'
import { oracleCanonicalize, randomJson, rng } from './oracle.mjs'
import { run, wrap, wrapText } from './support/robustness.mjs'

test('nesting 100,000 levels (arrays, objects, both; built or JSON.parse\'d): the shallow rules\' text, and the repeats count', (t) => {
  const depth = 100_000
  const shapes = {
    arrays: [() => { let v = 0; for (let i = 0; i < depth; i++) v = [v]; return v }, `${'['.repeat(depth)}0${']'.repeat(depth)}`],
    objects: [() => { let v = null; for (let i = 0; i < depth; i++) v = { z: 1, a: v, 0: [] }; return v }, `${'{"0":[],"a":'.repeat(depth)}null${',"z":1}'.repeat(depth)}`],
    mixed: [() => wrap('leaf', depth), wrapText('"leaf"', depth)],
  }
  for (const [name, [build, text]] of Object.entries(shapes)) {
    t.is(canonicalize(build()), text, `${name}, built`)
    t.is(canonicalize(JSON.parse(text)), text, `${name}, parsed`)
    const guard = new RepeatToolGuard()
    const other = JSON.parse(text.replace(/0|null|"leaf"/, '1'))
    t.deepEqual(run(guard, [['deep', build()], ['deep', other], ['deep', build()], ['deep', JSON.parse(text)], ['deep', build()]]), [null, null, null, null, [3, 'gentle']], name)
  }
  // A shared (not cyclic) subtree is serialized wherever it appears, as JSON.stringify does.
  let shared = 0
  for (let i = 0; i < depth; i++) shared = [shared]
  t.is(canonicalize({ b: shared, a: shared }), `{"a":${'['.repeat(depth)}0${']'.repeat(depth)},"b":${'['.repeat(depth)}0${']'.repeat(depth)}}`)
  // A cycle closed at the bottom is still found, and named.
  const cyclicDeep = { v: 0 }
  let tip = cyclicDeep
  for (let i = 0; i < depth; i++) tip = tip.v = { v: 0 }
  tip.v = cyclicDeep
  t.throws(() => canonicalize(cyclicDeep), { instanceOf: TypeError, message: /circular/ })
})

test('up to the depth V8 still stringifies (1,000 and 5,000 levels) the text is byte-identical to V8\'s', (t) => {
  const next = rng(6_0001)
  for (const depth of [1000, 5000]) {
    for (let i = 0; i < 20; i++) {
      const value = wrap(randomJson(next), depth)
      let expected
      try {
        expected = oracleCanonicalize(value)
      } catch (error) {
        if (error instanceof RangeError) return t.log(`the oracle itself overflows at ${depth} levels here`)
        throw error
      }
      t.is(canonicalize(value), expected, `depth ${depth}, value ${i}`)
    }
  }
})

test('crossing V8\'s depth limit changes nothing: random trap-laden values 8,000 to 14,000 levels deep', (t) => {
  const next = rng(6_0002)
  for (let i = 0; i < 30; i++) {
    const inner = randomJson(next)
    const depth = 8000 + Math.floor(next() * 6000)
    const text = wrapText(oracleCanonicalize(inner), depth)
    if (canonicalize(wrap(inner, depth)) !== text) return t.fail(`mismatch at depth ${depth} for ${oracleCanonicalize(inner)}`)
  }
  t.pass()
})
