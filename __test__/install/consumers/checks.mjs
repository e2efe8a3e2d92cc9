// The checks every consumer project runs under its test runner, written once. Each runner's test
// file (vitest.test.mjs, jest.test.mjs, node.test.mjs, ava.test.mjs) hands in its own way to
// declare a test and its own assertions, so the values are compared the way that runner compares
// them: under jest's ESM mode and vitest's vm pools the test code runs in a vm context, and a value
// from another realm fails `toStrictEqual` and `instanceof` there.
//   test(title, body): a test; body(is) gets the assertions below.
//   skip(title, reason): a test the runner reports as skipped.
//   is.same(actual, expected): the runner's strict deep equality (toStrictEqual, deepStrictEqual, t.deepEqual).
//   is.throws(fn, ErrorClass): the runner's own check that fn throws an ErrorClass.
//   is.true(value, label): value is true.
import * as plugin from '@deepseek-ai/dsh-repeat-tool-guard'
import { GENTLE, detailed } from './oracle.mjs'

const { RepeatToolGuard, canonicalize } = plugin

/** The error `fn` throws (the checks' own try/catch, so `instanceof` is tested as written). */
function caught(fn) {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw, none came')
}

// The published harness needs Node >= 22.19.
const [major, minor] = process.versions.node.split('.').map(Number)
const harnessRuns = major > 22 || (major === 22 && minor >= 19)

export function defineChecks({ test, skip }) {
  test('the class: reminders, thresholds, stats and canonical text are plain values of this realm', (is) => {
    const guard = new RepeatToolGuard({ thresholds: [2, 3] })
    const call = () => guard.observe('a', 'grep', { pattern: 'x' })
    is.same(call(), null)
    is.same(call(), { tier: 'gentle', count: 2, text: GENTLE })
    is.same(call(), { tier: 'detailed', count: 3, text: detailed('grep', 3, '{"pattern":"x"}') })
    is.same(guard.thresholds, [2, 3])
    is.true(guard.thresholds instanceof Array, 'thresholds instanceof Array')
    is.same(guard.stats(), { observed: 3, reminders: 2, gentle: 1, detailed: 1, cycle: 0, similar: 0, noProgress: 0, failure: 0, stop: 0 })
    is.same(canonicalize({ b: 1, a: [2] }), '{"a":[2],"b":1}')
  })

  test('errors: TypeError and Error of this realm, with the documented messages', (is) => {
    const wrongType = () => new RepeatToolGuard({ thresholds: 'x' })
    is.throws(wrongType, TypeError)
    is.true(caught(wrongType) instanceof TypeError, 'a wrong type: instanceof TypeError')

    const empty = () => new RepeatToolGuard({ thresholds: [] })
    is.throws(empty, Error)
    is.true(caught(empty) instanceof Error, 'empty thresholds: instanceof Error')
    is.same(caught(empty).message, 'repeat-tool-guard: `thresholds` must not be empty')

    const guard = new RepeatToolGuard({ thresholds: [2, 3] })
    for (const [observe, message] of [
      [() => guard.observe(42, 'grep', {}), 'repeat-tool-guard: agentId must be a string, got number'],
      [() => guard.observe('a', undefined, {}), 'repeat-tool-guard: toolName must be a string, got undefined'],
    ]) {
      is.throws(observe, TypeError)
      is.true(caught(observe) instanceof TypeError, `${message}: instanceof TypeError`)
      is.same(caught(observe).message, message)
    }
  })

  const loop = 'the rc.8 agent loop: the plugin, loaded by package name, reminds after the 3rd and the 5th identical call'
  if (!harnessRuns) {
    skip(loop, `the published harness needs Node >= 22.19, this is ${process.version}`)
    return
  }
  test(loop, async (is) => {
    // Imported here: the harness does not load on older Node.
    const { boot, callTool, say, reminders } = await import('./scripted.mjs')
    const harness = await boot({ plugin, config: { thresholds: [3, 5, 8] } })
    const agent = await harness.agent('agent-1', [...Array.from({ length: 5 }, () => callTool('grep', { q: 'same' })), say('done')])
    await agent.run()
    const events = agent.events()
    const results = events.filter((event) => event.type === 'tool/result')
    // Each reminder with the number of tool results recorded before it.
    const recorded = reminders(events, 'repeat-tool-guard').map((reminder) => ({
      after: results.filter((result) => result.seq < reminder.seq).length,
      summary: reminder.source.summary,
      text: reminder.text,
    }))
    is.same(recorded, [
      { after: 3, summary: 'grep × 3', text: GENTLE },
      { after: 5, summary: 'grep × 5', text: detailed('grep', 5, '{"q":"same"}') },
    ])
    is.same(harness.executed, ['grep', 'grep', 'grep', 'grep', 'grep'])
  })
}

/** The assertions for runners with a jest-style `expect` (vitest, jest). */
export function expectAssertions(expect) {
  return {
    same: (actual, expected) => expect(actual).toStrictEqual(expected),
    throws: (fn, type) => expect(fn).toThrow(type),
    // The label as a key, so the runner's diff names what was not true.
    true: (value, label) => expect({ [label]: value }).toStrictEqual({ [label]: true }),
  }
}
