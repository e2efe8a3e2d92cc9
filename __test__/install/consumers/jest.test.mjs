import { expect, test } from '@jest/globals'
import { defineChecks, expectAssertions } from './checks.mjs'

defineChecks({
  test: (title, body) => test(title, () => body(expectAssertions(expect))),
  skip: (title) => test.skip(title, () => {}),
})
