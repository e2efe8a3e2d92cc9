import test from 'ava'
import { defineChecks } from './checks.mjs'

defineChecks({
  test: (title, body) => test(title, (t) => body({
    same: (actual, expected) => t.deepEqual(actual, expected),
    throws: (fn, type) => t.throws(fn, { instanceOf: type }),
    true: (value, label) => t.true(value, label),
  })),
  skip: (title) => test.skip(title, () => {}),
})
