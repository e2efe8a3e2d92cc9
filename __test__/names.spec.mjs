// Tool names and agent ids are UTF-16 code units, as JavaScript holds them: names that differ
// only in a lone surrogate are different names, on the class path and on the plugin's hot path
// alike, and patterns match code unit by code unit as the reference's regular expressions do
// (no `u` flag: `.` takes one code unit). Part of the addon suite.
import test from 'ava'
import { createRequire } from 'node:module'
import * as plugin from '../index.js'
import { RepeatToolGuard } from '../index.js'
import { encode, transport, release } from '../lib/encode.js'
import { GENTLE, detailed } from './oracle.mjs'
import { listenersOf } from './support/listeners.mjs'
import { nativeGuard } from './support/native.mjs'

const binding = createRequire(import.meta.url)('../lib/native.cjs')

const X_D800 = 'x\uD800'
const X_DBFF = 'x\uDBFF'
const X_FFFD = 'x\uFFFD'
const A_D800 = 'a\uD800'
const A_DBFF = 'a\uDBFF'
const A_FFFD = 'a\uFFFD'

/** The reference's pattern, as it builds it: metacharacters escaped, `*` as `.*`, no flags. */
function referencePattern(pattern) {
  const escaped = pattern.replace(/[|\\{}()[\]^$+?.]/g, String.raw`\$&`)
  return new RegExp(`^${escaped.replaceAll('*', '.*')}$`)
}

test('tools differing only in a lone surrogate are different calls', (t) => {
  const guard = new RepeatToolGuard({ thresholds: [2] })
  t.is(guard.observe('a', X_D800, {}), null)
  t.is(guard.observe('a', X_DBFF, {}), null, 'another tool: the run starts over')
  t.is(guard.observe('a', X_FFFD, {}), null, 'U+FFFD is a third tool')
  t.is(guard.observe('a', X_FFFD, {})?.count, 2)
})

test('the detailed text names the tool exactly as it was called', (t) => {
  const guard = new RepeatToolGuard({ thresholds: [2, 3] })
  for (const tool of [X_D800, '\uDC00', 'a\uDE00\uD83D']) {
    guard.reset('a')
    const texts = [1, 2, 3].map(() => guard.observe('a', tool, { q: 1 })?.text)
    t.deepEqual(texts, [undefined, GENTLE, detailed(tool, 3, '{"q":1}')], JSON.stringify(tool))
  }
})

test('exclude and include compare code units: U+FFFD matches no lone surrogate', (t) => {
  const notFffd = new RepeatToolGuard({ thresholds: [2], exclude: [X_FFFD] })
  t.true(notFffd.isTracked(X_D800))
  t.false(notFffd.isTracked(X_FFFD))
  t.is(notFffd.observe('a', X_D800, {}), null)
  t.is(notFffd.observe('a', X_D800, {})?.count, 2, 'tracked, as the reference tracks it')
  const lone = new RepeatToolGuard({ thresholds: [2], exclude: [X_D800] })
  t.false(lone.isTracked(X_D800))
  t.true(lone.isTracked(X_DBFF))
  t.true(lone.isTracked(X_FFFD))
  t.deepEqual([X_DBFF, X_D800, X_DBFF].map((tool) => lone.observe('a', tool, {})?.count ?? null), [null, null, 2], 'the excluded tool is transparent')
  const including = new RepeatToolGuard({ include: ['\uD800*'] })
  t.true(including.isTracked('\uD800'))
  t.true(including.isTracked('\uD800\uDC00'))
  t.false(including.isTracked('\uDBFF'))
})

test('patterns decide as the reference\'s regular expressions, code unit by code unit', (t) => {
  const patterns = ['x*', X_D800, X_FFFD, '*\uDBFF', 'a*\uDE00', '\uD83D*', 'a\uD83D', '?*\uDC00', 'x\n*', '*']
  const names = [X_D800, X_DBFF, X_FFFD, 'x', 'a😀', 'a\uD83D', '😀x', '\uDE00', '?\uD83D\uDC00', 'x\n\uD800', 'x\uD800\n', '']
  for (const pattern of patterns) {
    const guard = new RepeatToolGuard({ include: [pattern] })
    const regex = referencePattern(pattern)
    for (const name of names) t.is(guard.isTracked(name), regex.test(name), `${JSON.stringify(pattern)} on ${JSON.stringify(name)}`)
  }
  // The star takes the high half of a pair, and the low half matches itself.
  t.true(new RepeatToolGuard({ include: ['a*\uDE00'] }).isTracked('a😀'))
})

test('agents whose ids differ only in a lone surrogate keep separate chains', (t) => {
  const guard = new RepeatToolGuard({ thresholds: [2, 3] })
  t.is(guard.observe(A_D800, 't', {}), null)
  t.is(guard.observe(A_DBFF, 't', {}), null, 'another agent\'s first call')
  t.is(guard.agentCount, 2)
  t.is(guard.observe(A_D800, 't', {})?.count, 2)
  guard.dispose(A_FFFD)
  t.is(guard.agentCount, 2, 'U+FFFD names neither agent')
  guard.reset(A_DBFF)
  t.is(guard.agentCount, 1, 'a\uDBFF reset')
  t.is(guard.observe(A_D800, 't', {})?.count, 3, 'a\uD800\'s run goes on')
  guard.reset(A_D800)
  t.is(guard.observe(A_D800, 't', {}), null, 'reset starts a\uD800 over')
  t.is(guard.observe(A_DBFF, 't', {}), null)
  t.is(guard.observe(A_DBFF, 't', {})?.count, 2)
  guard.dispose(A_D800)
  t.is(guard.agentCount, 1)
  guard.dispose(A_DBFF)
  t.is(guard.agentCount, 0)
})

test('overrides\' tools patterns compare code units', (t) => {
  const guard = new RepeatToolGuard({ overrides: [{ tools: [X_D800], thresholds: [2] }] })
  const counts = (tool) => [1, 2, 3].map(() => guard.observe(tool, tool, {})?.count ?? null)
  t.deepEqual(counts(X_D800), [null, 2, null])
  t.deepEqual(counts(X_DBFF), [null, null, 3], 'the global thresholds')
  t.deepEqual(counts(X_FFFD), [null, null, 3])
})

test('a cycle names its tools exactly, in its tools array and its text', (t) => {
  const guard = new RepeatToolGuard({ cycles: { maxPeriod: 2, repeats: 2 } })
  const got = [X_D800, X_DBFF, X_D800, X_DBFF].map((tool) => guard.observe('a', tool, {}))
  t.deepEqual(got.slice(0, 3), [null, null, null])
  t.is(got[3].tier, 'cycle')
  t.deepEqual(got[3].tools, [X_D800, X_DBFF])
  t.true(got[3].text.startsWith(`Repeated cycle of tool calls detected:\n- tools: ${X_D800}, ${X_DBFF}\n- consecutive_repetitions: 2\n`))
})

test('the hot path takes lone surrogates in names and ids, and keys them as the class path does', (t) => {
  const guard = nativeGuard({ thresholds: [2, 3] })
  const handle = guard.__handle()
  const fast = (agent, tool) => {
    t.true(encode({ q: 1 }, agent, tool, handle), `${JSON.stringify(agent)} ${JSON.stringify(tool)} on the hot path`)
    try {
      return binding.__observeEncoded(transport.buffer) ?? null
    } finally {
      release()
    }
  }
  t.is(fast(A_D800, X_D800), null)
  t.is(fast(A_D800, X_DBFF), null, 'another tool')
  t.is(fast(A_DBFF, X_DBFF), null, 'another agent')
  t.is(fast(A_FFFD, X_DBFF), null, 'a third agent')
  t.is(guard.agentCount, 3)
  t.is(fast(A_D800, X_DBFF)?.count, 2)
  t.is(guard.observe(A_D800, X_DBFF, { q: 1 })?.text, detailed(X_DBFF, 3, '{"q":1}'), 'the class path continues the hot path\'s run')
  t.is(fast(A_DBFF, X_DBFF)?.count, 2)
  t.is(guard.observe(A_FFFD, X_FFFD, { q: 1 }), null)
})

test('the plugin\'s listener keys lone-surrogate names apart and names the tool exactly', async (t) => {
  const listeners = listenersOf(plugin, { thresholds: [2, 3] })
  const agents = { [A_D800]: { id: A_D800 }, [A_DBFF]: { id: A_DBFF } }
  const call = async (agent, name) => {
    const decision = await listeners['tools/post-execute']({ name, agent: agents[agent], arguments: Object.freeze({}) }, {}, () => Promise.resolve({ kind: 'accept' }))
    return decision.additionalContexts?.[0]
  }
  t.is(await call(A_D800, X_D800), undefined)
  t.is(await call(A_DBFF, X_D800), undefined, 'another agent')
  t.is(await call(A_D800, X_DBFF), undefined, 'another tool')
  t.is((await call(A_D800, X_DBFF))?.content[0].text, GENTLE)
  const third = await call(A_D800, X_DBFF)
  t.is(third?.content[0].text, detailed(X_DBFF, 3, '{}'))
  t.is(third?.source.summary, `${X_DBFF} × 3`)
  listeners['agent/disposed']({ agent: { id: A_FFFD } })
  t.is((await call(A_DBFF, X_D800))?.content[0].text, GENTLE, 'disposing a\uFFFD left a\uDBFF\'s chain alone')
})
