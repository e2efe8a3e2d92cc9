// The addon against the canonical vectors V8 produced (scripts/golden.mjs).
import { readFileSync } from 'node:fs'
import test from 'ava'
import { canonicalize } from '../index.js'

const vectors = JSON.parse(readFileSync(new URL('./golden/canonical.json', import.meta.url), 'utf8'))

test('canonicalize(JSON.parse(input)) equals the golden canonical text for every vector', (t) => {
  t.true(vectors.length > 400)
  const mismatches = vectors.filter(({ input, canonical }) => canonicalize(JSON.parse(input)) !== canonical)
  t.deepEqual(mismatches, [])
})
