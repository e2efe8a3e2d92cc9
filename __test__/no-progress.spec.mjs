// The detections that read results, through the RepeatToolGuard class (the addon suite):
// noProgress (the same call returning the same result again, back to back or with other calls
// between) and failures (one tool failing with the same error, with other arguments each time), results
// compared without their volatile parts; validation; profile: 'recommended' and the keys that
// override it; stopAt.
import test from 'ava'
import { RepeatToolGuard } from '../index.js'

const result = (text, isError = false) => ({ content: [{ type: 'text', text }], isError })

/** Observes `calls` ([tool, args, result]) for one agent; returns [call number, tier, count] per reminder. */
function fired(guard, calls, agent = 'a') {
  return calls
    .map(([tool, args, res]) => guard.observe(agent, tool, args, res))
    .map((r, i) => r && [i + 1, r.tier, r.count])
    .filter(Boolean)
}

const TEXT = (tool, count, window) => `Tool calls without progress detected:\n- tool: ${tool}\n- same_call_same_result: ${count} of the last ${window} calls\nThis call, with identical arguments, keeps returning the same result, with other calls in between, so it tells you nothing new. Do not make it again until something it depends on has changed. Read the result you already have, change your approach (a different command, file, or fix), or finish the task if enough evidence has been gathered.`

/** A test run between edits: `cd build` failing with a shell line number that grows each time. */
const loop = (n) => Array.from({ length: n }, (_, i) => [
  ['bash', { command: 'cd build' }, result(`/bin/bash: line ${100 + i}: cd: build: No such file or directory`)],
  ['edit', { path: 'a.c', text: `attempt ${i}` }, result('edited')],
]).flat()

/** A file read a line further each time: `n` near-identical calls in a row. */
const paging = (n) => Array.from({ length: n }, (_, i) => ['read', { path: 'src/main.rs', offset: 49 + i }, result(`line ${49 + i}`)])

test('the same call and result among other calls reminds once the window holds minCalls of them', (t) => {
  const guard = new RepeatToolGuard({ noProgress: { minCalls: 3, window: 6 } })
  const reminders = loop(4).map(([tool, args, res]) => guard.observe('a', tool, args, res))
  t.deepEqual(reminders.map((r, i) => r && [i + 1, r.tier, r.count]).filter(Boolean), [[5, 'noProgress', 3]])
  t.is(reminders[4].text, TEXT('bash', 3, 6))
  t.is(guard.stats().noProgress, 1)
  t.true(guard.takesResults)
})

test('a result that changes beyond its numbers is progress; without noProgress nothing fires', (t) => {
  const guard = new RepeatToolGuard({ noProgress: { minCalls: 3, window: 6 } })
  const polls = ['queued', 'running', 'running 40 %', 'done'].map((s) => ['poll', { job: 7 }, result(`job 7: ${s} at 2026-12-04T17:35:41Z`)])
  t.deepEqual(fired(guard, polls.flatMap((p, i) => [p, ['ls', { dir: i }, result('x')]])), [], 'the status moves each time')
  const timed = [1, 2, 3].flatMap((n) => [['poll', { job: 8 }, result(`job 8: running, ${n}.${n}s elapsed, request ${n}f3a9c0e-77`)], ['ls', { dir: n }, result('x')]])
  t.deepEqual(fired(guard, timed), [[5, 'noProgress', 3]], 'durations and ids are volatile')
  const plain = new RepeatToolGuard()
  t.deepEqual(fired(plain, loop(6)), [])
  t.false(plain.takesResults)
})

test('calls that fall out of the window no longer count; a user prompt starts over', (t) => {
  const guard = new RepeatToolGuard({ noProgress: { minCalls: 3, window: 4 } })
  const spaced = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => ['read', { n: n % 4 }, result('same')])
  t.deepEqual(fired(guard, spaced), [])
  const twice = loop(2)
  fired(guard, twice, 'b')
  guard.reset('b')
  t.deepEqual(fired(guard, loop(1), 'b'), [], 'the calls before the prompt are forgotten')
})

test('back-to-back repeats keep their run-length reminders first', (t) => {
  const guard = new RepeatToolGuard({ noProgress: { minCalls: 5, window: 12 } })
  const same = Array.from({ length: 6 }, () => ['grep', { q: 'x' }, result('none')])
  t.deepEqual(fired(guard, same), [[3, 'gentle', 3], [5, 'detailed', 5]], 'one reminder per call: the run\'s wins')
})

test('noProgress validation: an object; minCalls 2 to 64; window minCalls to 64', (t) => {
  const fails = (config, message, type = Error) => {
    const error = t.throws(() => new RepeatToolGuard(config), { instanceOf: type })
    t.is(error.message, message)
  }
  fails({ noProgress: 5 }, 'repeat-tool-guard: `noProgress` must be an object, got the number 5', TypeError)
  fails({ noProgress: { minCalls: 1 } }, 'repeat-tool-guard: invalid noProgress.minCalls 1 — must be an integer from 2 to 64')
  fails({ noProgress: { minCalls: 5, window: 4 } }, 'repeat-tool-guard: invalid noProgress.window 4 — must be an integer from `minCalls` to 64')
  fails({ noProgress: { window: 65 } }, 'repeat-tool-guard: invalid noProgress.window 65 — must be an integer from `minCalls` to 64')
  fails({ profile: 'strict' }, 'repeat-tool-guard: invalid profile "strict" — must be "recommended"')
  t.notThrows(() => new RepeatToolGuard({ noProgress: { minCalls: 20 } }), 'the window grows to minCalls')
})

test("profile 'recommended' turns noProgress and failures on at their defaults and similar at (8, 0.9); an explicit key overrides each", (t) => {
  const recommended = new RepeatToolGuard({ profile: 'recommended' })
  t.true(recommended.takesResults)
  // The loop's `cd build` is one call failing the same way each time: noProgress (6 in 16), not failures.
  t.deepEqual(fired(recommended, loop(6)), [[11, 'noProgress', 6]])
  // A build retried with other flags each time, failing the same way: failures (3 in 8).
  t.deepEqual(fired(new RepeatToolGuard({ profile: 'recommended' }), retries(4)), [[3, 'failure', 3]])
  const tuned = new RepeatToolGuard({ profile: 'recommended', noProgress: { minCalls: 3, window: 6 }, failures: { minCalls: 8 } })
  t.deepEqual(fired(tuned, loop(6)), [[5, 'noProgress', 3], [11, 'noProgress', 3]], 'again once the call it came at has left the window')
  // 8 near-identical calls in a row bring `similar`; 7 do not.
  t.deepEqual(fired(new RepeatToolGuard({ profile: 'recommended' }), paging(7)), [])
  t.deepEqual(fired(new RepeatToolGuard({ profile: 'recommended' }), paging(8)), [[8, 'similar', 8]])
  t.deepEqual(fired(new RepeatToolGuard({ profile: 'recommended', similar: { minCalls: 4 } }), paging(8)), [[4, 'similar', 4]])
  t.deepEqual(fired(new RepeatToolGuard({ profile: 'recommended', similar: { similarity: 0.9 } }), paging(8)), [[5, 'similar', 5]], 'a field left out takes the option\'s own default')
  const thresholds = new RepeatToolGuard({ profile: 'recommended', thresholds: [2] })
  t.deepEqual(fired(thresholds, [['t', {}, result('x')], ['t', {}, result('x')]]), [[2, 'gentle', 2]])
})

const STOP = (tool, count) => `Tool call loop stopped:\n- tool: ${tool}\n- calls: ${count}, the limit this guard was configured with\nThe same call kept coming back without progress, so this turn has been ended. Before calling tools again, review the results you already have and choose a different approach, or report what is blocking you.`

test('stopAt: a run or a noProgress count that reaches it brings the stop, ahead of any reminder', (t) => {
  const guard = new RepeatToolGuard({ stopAt: 4 })
  const same = Array.from({ length: 5 }, () => ['grep', { q: 'x' }])
  const reminders = same.map(([tool, args]) => guard.observe('a', tool, args))
  t.deepEqual(reminders.map((r, i) => r && [i + 1, r.tier, r.count]).filter(Boolean), [[3, 'gentle', 3], [4, 'stop', 4], [5, 'stop', 5]])
  t.is(reminders[3].text, STOP('grep', 4))
  t.is(guard.stats().stop, 2)
  const spread = new RepeatToolGuard({ noProgress: { minCalls: 3, window: 10 }, stopAt: 4 })
  t.deepEqual(fired(spread, loop(5)), [[5, 'noProgress', 3], [7, 'stop', 4], [9, 'stop', 5]])
  // A run of near-identical calls counts too.
  t.deepEqual(fired(new RepeatToolGuard({ similar: { minCalls: 3 }, stopAt: 4 }), paging(5)), [[3, 'similar', 3], [4, 'stop', 4], [5, 'stop', 5]])
  const off = new RepeatToolGuard({ noProgress: { minCalls: 3, window: 10 } })
  t.deepEqual(fired(off, loop(5)), [[5, 'noProgress', 3]], 'no stop unless configured')
  const error = t.throws(() => new RepeatToolGuard({ stopAt: 1 }))
  t.is(error.message, 'repeat-tool-guard: invalid stopAt 1 — must be an integer >= 2')
})

const FAILURES = (tool, count, window) => `Repeated tool failures detected:\n- tool: ${tool}\n- same_error: ${count} of the last ${window} calls\nThis tool keeps failing with the same error, whatever the arguments, so retrying it with small changes will fail again. Read the error message: it says what is wrong (a missing file or directory, a wrong path or parameter, a command that is not available). Fix that cause first, or use a different tool or approach.`

/** A build retried with other flags each time, failing the same way (the path's line number aside). */
const retries = (n) => Array.from({ length: n }, (_, i) => ['bash', { command: `./mvnw test -q -Dretry=${i}` }, result(`./mvnw: line ${40 + i}: JAVA_HOME is not defined correctly; cannot execute`)])

test('failures: one tool failing with the same error, with other arguments each time, reminds at minCalls in the window', (t) => {
  const guard = new RepeatToolGuard({ failures: { minCalls: 3, window: 6 } })
  const reminders = retries(4).map(([tool, args, res]) => guard.observe('a', tool, args, res))
  t.deepEqual(reminders.map((r, i) => r && [i + 1, r.tier, r.count]).filter(Boolean), [[3, 'failure', 3]], 'once, not again while the call it came at is in the window')
  t.is(reminders[2].text, FAILURES('bash', 3, 6))
  t.is(guard.stats().failure, 1)
  t.true(guard.takesResults)
  const defaults = new RepeatToolGuard({ failures: {} })
  t.deepEqual(fired(defaults, retries(5)), [[3, 'failure', 3]], '(3 in 8)')
  t.deepEqual(fired(new RepeatToolGuard(), retries(5)), [], 'off by default')
})

test('failures: the same call failing again counts once; repeats are the run rule\'s and noProgress\'s', (t) => {
  const only = new RepeatToolGuard({ failures: { minCalls: 3, window: 8 } })
  t.deepEqual(fired(only, loop(8)), [], 'one call failing the same way between edits')
  const [first, second] = retries(2)
  const calls = [first, first, second, first, second]
  t.deepEqual(fired(new RepeatToolGuard({ failures: { minCalls: 3, window: 8 } }), calls), [], 'two arguments, five failures')
  const third = retries(3)[2]
  t.deepEqual(fired(new RepeatToolGuard({ failures: { minCalls: 3, window: 8 } }), [...calls, third]), [[6, 'failure', 3]])
})

test('failures: what counts is a failure (isError, or an error said first) of the same tool with the same error', (t) => {
  const guard = (config = { failures: { minCalls: 3, window: 8 } }) => new RepeatToolGuard(config)
  const flagged = [1, 2, 3].map((n) => ['fetch', { url: `https://x/${n}` }, result('upstream said 503', true)])
  t.deepEqual(fired(guard(), flagged), [[3, 'failure', 3]], 'isError: true, whatever the text')
  const fine = [1, 2, 3].map((n) => ['fetch', { url: `https://x/${n}` }, result('upstream said 503')])
  t.deepEqual(fired(guard(), fine), [], 'the same text is not a failure without the flag or an error word')
  const differing = ['No such file: a.txt', 'No such file: b.txt', 'No such file: c.txt'].map((text, n) => ['read', { n }, result(text)])
  t.deepEqual(fired(guard(), differing), [], 'different errors do not add up')
  const tools = ['read', 'grep', 'read', 'grep', 'read'].map((tool, n) => [tool, { n }, result('Error: permission denied')])
  t.deepEqual(fired(guard(), tools), [[5, 'failure', 3]], 'each tool counts its own')
  const late = [1, 2, 3].map((n) => ['run', { n }, result(`${'output '.repeat(100)}then an error`)])
  t.deepEqual(fired(guard(), late), [], 'an error word far into a long result is not read')
  const words = ['terrors', 'inerrant', 'unfailed'].map((word, n) => ['run', { n }, result(word)])
  t.deepEqual(fired(guard(), words), [], 'words count at the start of a word only')
})

test('failures validation; stopAt counts the same error too', (t) => {
  const fails = (config, message, type = Error) => {
    const error = t.throws(() => new RepeatToolGuard(config), { instanceOf: type })
    t.is(error.message, message)
  }
  fails({ failures: true }, 'repeat-tool-guard: `failures` must be an object, got the boolean true', TypeError)
  fails({ failures: { minCalls: 1 } }, 'repeat-tool-guard: invalid failures.minCalls 1 — must be an integer from 2 to 64')
  fails({ failures: { minCalls: 4, window: 3 } }, 'repeat-tool-guard: invalid failures.window 3 — must be an integer from `minCalls` to 64')
  const stopping = new RepeatToolGuard({ failures: { minCalls: 3, window: 8 }, stopAt: 5 })
  t.deepEqual(fired(stopping, retries(6)), [[3, 'failure', 3], [5, 'stop', 5], [6, 'stop', 6]])
})
