// Regenerates __test__/golden/canonical.json: JSON input texts and the canonical text V8 gives
// for them (JSON.parse, deep key-sort keeping "__proto__", JSON.stringify). Read by
// `cargo test` (core/tests/golden.rs) and by __test__/golden.spec.mjs, so any port of the
// canonical form is pinned to V8's. Run: node scripts/golden.mjs
import { writeFileSync } from 'node:fs'
import { oracleCanonicalize, randomJson, rng } from '../__test__/oracle.mjs'

const handwritten = [
  '{}', '[]', 'null', 'true', 'false', '0', '-0', '-0.0', '1E2', '1e-7', '1e21', '1e+21', '123456789012345678901234567890',
  '5e-324', '2e-324', '1.7976931348623157e308', '1e400', '-1e400', '9007199254740993', '0.1', '100', '1.50', '0.000001',
  '"plain"', '"\\u0041\\u00e9\\/"', '"\\ud800"', '"\\udc00\\ud800"', '"\\ud83d\\ude00"', '"\\u001f\\u007f\\u2028"', '"\\b\\f\\n\\r\\t\\"\\\\"',
  ' { "b" : 1 , "a" : 2 } ', '{"a":1,"a":2}', '{"b":1,"a":2,"b":3}', '{"\\u0061":1,"a":2}',
  '{"10":1,"9":2,"a":3,"01":4,"-1":5,"4294967294":6,"4294967295":7,"1.5":8,"":9}',
  '{"\\uff5e":1,"\\ud83d\\ude00":2,"\\ud800":3,"\\udc00":4,"z":5}',
  '{"__proto__":{"y":1,"x":2},"constructor":1,"toString":2}',
  '[{"b":[{"d":1,"c":2}],"a":null}]',
]
const next = rng(1729)
const random = Array.from({ length: 400 }, () => JSON.stringify(randomJson(next)))
const vectors = [...handwritten, ...random].map((input) => ({ input, canonical: oracleCanonicalize(JSON.parse(input)) }))
writeFileSync(new URL('../__test__/golden/canonical.json', import.meta.url), `${JSON.stringify(vectors, null, 1)}\n`)
console.log(`wrote ${vectors.length} vectors`)
