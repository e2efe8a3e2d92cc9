// The replay's mapping of stored events to what the live plugin observed, on event lists built
// here: what the recorded-loop suite cannot easily produce (a seeded child's inherited prefix,
// results that never reached post-execute) and the run lengths measured by the guard itself.
import test from 'ava'
import { RepeatToolGuard } from '../index.js'
import { Replay } from '../cli/replay.js'
import { parseArguments } from '../lib/history.js'
import { TIER_COLORS } from '../cli/html.js'
import { TIERS, distribution } from '../cli/report.js'

/** A session's events from a compact script: ['call', name, args] | ['prompt'] | ['context'] | ['seed-end'] | ['aborted', name, args]. */
function events(script) {
  const out = []
  let call = 0
  const push = (type, data) => out.push({ seq: out.length, type, time: 0, data })
  for (const [kind, name, args] of script) {
    if (kind === 'prompt' || kind === 'context') {
      push('user/message', { content: [{ type: 'text', text: kind }], source: kind === 'prompt' ? { kind: 'user' } : { kind: 'plugin', plugin: 'x', form: 'notice', summary: 's' } })
    } else if (kind === 'seed-end') {
      push('session/end-seed', {})
    } else {
      const callId = `c${++call}`
      push('tool/call', { turn: 1, step: call, callId, name, arguments: JSON.stringify(args) })
      push('tool/result', {
        turn: 1,
        step: call,
        message: { content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: 'ok' }], isError: kind === 'aborted' }] },
        ...(kind === 'aborted' ? { error: { name: 'AbortError', code: 'ABORTED_BEFORE_DISPATCH' } } : {}),
      })
    }
  }
  return out
}

const calls = (n, name = 'grep', args = { q: 1 }) => Array.from({ length: n }, () => ['call', name, args])
const summary = (reminders) => reminders.map((r) => `${r.lifecycle}:${r.tool}×${r.count}`)

test('the loop\'s argument parse: JSON, raw text when not JSON, {} when empty', (t) => {
  t.deepEqual(parseArguments('{"a":[1]}'), { a: [1] })
  t.is(parseArguments('{"a": nope'), '{"a": nope')
  t.deepEqual(parseArguments(''), {})
})

test('a user prompt resets the run, a plugin context does not', (t) => {
  const [reminders] = new Replay([{}]).session({ id: 's' }, events([...calls(2), ['context'], ...calls(1), ['prompt'], ...calls(2)]))
  t.deepEqual(summary(reminders), ['1:grep×3'])
})

test('a seeded child skips the inherited prefix; each later end-seed starts a new lifecycle with a fresh chain', (t) => {
  const log = events([...calls(3), ['seed-end'], ...calls(2), ['seed-end'], ...calls(3)])
  const [reminders] = new Replay([{}]).session({ id: 'child', seedLength: 6 }, log)
  t.deepEqual(summary(reminders), ['2:grep×3'], 'the parent\'s three calls are not counted, the first lifecycle has two')
  const [resumed] = new Replay([{}]).session({ id: 'top' }, log)
  t.deepEqual(summary(resumed), ['1:grep×3', '3:grep×3'], 'unseeded: the prefix is the first lifecycle')
})

test('a call aborted before dispatch never reached post-execute and is not counted', (t) => {
  const [reminders] = new Replay([{}]).session({ id: 's' }, events([...calls(2), ['aborted', 'grep', { q: 1 }], ...calls(1)]))
  t.deepEqual(summary(reminders), ['1:grep×3'])
})

test('several configs replay side by side, each with its own chains', (t) => {
  const replay = new Replay([{ thresholds: [2] }, { thresholds: [4], exclude: ['todo'] }])
  const [a, b] = replay.session({ id: 's' }, events([...calls(2), ['call', 'todo', {}], ...calls(2)]))
  t.deepEqual(summary(a), ['1:grep×2', '1:grep×2'])
  t.deepEqual(summary(b), ['1:grep×4'])
})

test('run lengths come from the guard, under the config\'s notion of identical calls', (t) => {
  const script = [...calls(3), ['call', 'todo', {}], ...calls(2), ['call', 'grep', { q: 2 }], ['prompt'], ...calls(1)]
  const replay = new Replay([{}, { exclude: ['todo'] }])
  replay.session({ id: 's' }, events(script))
  const [plain, excluding] = replay.runs.map(distribution)
  t.deepEqual(plain.find((e) => e.tool === 'grep').lengths, { 1: 2, 2: 1, 3: 1 })
  t.deepEqual(excluding.find((e) => e.tool === 'grep').lengths, { 1: 2, 5: 1 }, 'an excluded call is transparent')
  t.is(excluding.find((e) => e.tool === 'todo'), undefined)
})

test('a config the guard rejects throws the plugin\'s message', (t) => {
  t.throws(() => new Replay([{ thresholds: [1] }]), { message: /^repeat-tool-guard: invalid threshold 1/ })
})

test('the reports list every tier the guard has, and the HTML report draws each in a colour of its own', (t) => {
  const guard = new RepeatToolGuard()
  t.deepEqual(TIERS, Object.keys(guard.stats()).slice(2), 'the tiers after observed and reminders, in their order')
  t.deepEqual(Object.keys(TIER_COLORS).toSorted(), TIERS.toSorted())
  t.is(new Set(Object.values(TIER_COLORS)).size, TIERS.length)
})

test('perResponse: a trajectory\'s identical calls in one response count once, responses told apart by their step or response', (t) => {
  const run = (config, responses) => {
    const replay = new Replay([config])
    const replayed = replay.start({ id: 'r' })
    let seq = 0
    for (const [at, size] of responses.entries()) {
      for (let i = 0; i < size; i++) replayed.feed({ kind: 'call', seq: seq++, turn: 1, step: at, tool: 'grep', args: { q: 1 }, result: { content: [], isError: false } })
    }
    return summary(replayed.finish().reminders[0])
  }
  t.deepEqual(run({ perResponse: true }, [3, 3, 3]), ['1:grep×3'], 'at the third response')
  t.deepEqual(run({}, [3, 3, 3]), ['1:grep×3', '1:grep×5', '1:grep×8'])
  // A trajectory's own response ids, as the chat reader gives them.
  const replay = new Replay([{ perResponse: true }])
  const replayed = replay.start({ id: 'c' })
  for (const response of [1, 1, 2, 3]) replayed.feed({ kind: 'call', seq: 0, turn: 1, step: 1, response, tool: 'grep', args: { q: 1 }, result: {} })
  t.deepEqual(summary(replayed.finish().reminders[0]), ['1:grep×3'])
})

test('nextResponse is a class method; without perResponse it changes nothing', (t) => {
  const guard = new RepeatToolGuard()
  guard.observe('a', 'grep', { q: 1 })
  guard.nextResponse('a')
  guard.nextResponse('unknown')
  guard.observe('a', 'grep', { q: 1 })
  t.like(guard.observe('a', 'grep', { q: 1 }), { tier: 'gentle', count: 3 })
  t.throws(() => guard.nextResponse(1), { instanceOf: TypeError })
})

test('the JSON report has the keys docs/REPLAY.md gives it, its totals one count per tier', async (t) => {
  const { readFileSync, writeFileSync, mkdtempSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const { main } = await import('../cli/main.js')
  const { TIERS } = await import('../lib/keys.js')
  const doc = readFileSync(new URL('../docs/REPLAY.md', import.meta.url), 'utf8')
  const dir = mkdtempSync(join(tmpdir(), 'replay-keys-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const call = { role: 'assistant', tool_calls: [{ id: '1', type: 'function', function: { name: 'grep', arguments: '{}' } }] }
  writeFileSync(join(dir, 'runs.jsonl'), `${JSON.stringify({ messages: [call, { role: 'tool', tool_call_id: '1', content: 'x' }], outcome: 'resolved' })}\n`)
  let out = ''
  t.is(await main(['replay', join(dir, 'runs.jsonl'), '--json'], { stdout: { write: (s) => (out += s) }, stderr: { write() {} } }), 0)
  const report = JSON.parse(out)
  const top = /\*\*JSON\*\* \(`--json`\): `\{ ([^}]*) \}`/.exec(doc)[1].split(', ').map((key) => key.replace('?', ''))
  t.deepEqual(Object.keys(report).sort(), [...top].sort())
  t.deepEqual(Object.keys(report.totals[0]), ['sessions', 'calls', 'reminders', ...TIERS])
  for (const tier of TIERS) t.true(doc.includes(`\`${tier}\``), `docs/REPLAY.md names the tier ${tier}`)
})
