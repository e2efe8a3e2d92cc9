import { expect, test } from 'vitest'
import { defineChecks, expectAssertions } from './checks.mjs'

defineChecks({
  test: (title, body) => test(title, () => body(expectAssertions(expect))),
  skip: (title) => test.skip(title, () => {}),
})
