import assert from 'node:assert/strict'
import test from 'node:test'
import { defineChecks } from './checks.mjs'

defineChecks({
  test: (title, body) => test(title, () => body({
    same: (actual, expected) => assert.deepStrictEqual(actual, expected),
    throws: (fn, type) => assert.throws(fn, type),
    true: (value, label) => assert.equal(value, true, label),
  })),
  skip: (title, reason) => test(title, { skip: reason }),
})
