// A stuck agent's calls through the plugin's listener: once a call has repeated the one before,
// the next is compared with it (lib/encode.js `repeats`) and, when equal, counted from what the
// guard kept (__observeAgain) without a walk. Every decision must be the class path's, whatever
// changes between calls: values, key order, -0, a mutated earlier value, another agent, tool or
// guard, values that are not plain parsed JSON. Part of the addon suite; serial, as the plugin's
// last call and the spy on the binding are the process's.
import test from 'ava'
import { createRequire } from 'node:module'
import * as plugin from '../index.js'
import { RepeatToolGuard } from '../index.js'
import { randomJson, rng } from './oracle.mjs'
import { deepFreeze, listenersOf } from './support/listeners.mjs'
import { nativeGuard } from './support/native.mjs'

const binding = createRequire(import.meta.url)('../lib/native.cjs')

/** Counts the calls the plugin counts from what the guard kept, while `run` runs. */
async function countingAgain(run) {
  const again = binding.__observeAgain
  let counted = 0
  binding.__observeAgain = (handle) => {
    const observed = again(handle)
    if (observed !== false) counted++
    return observed
  }
  try {
    await run()
  } finally {
    binding.__observeAgain = again
  }
  return counted
}

const next = () => Promise.resolve({ kind: 'accept' })

/** The reminder a listener's decision carries, as text, or null. */
async function reminderOf(listener, agent, tool, args) {
  const decision = await listener({ name: tool, agent: { id: agent }, arguments: args }, {}, next)
  return decision.additionalContexts?.[0]?.content[0].text ?? null
}

/** `value` with its members in the reverse order. */
function reordered(value) {
  if (Array.isArray(value)) return value.map(reordered)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).reverse().map(([key, member]) => [key, reordered(member)]))
}

class Instance {
  constructor(fields) {
    Object.assign(this, fields)
  }
}

test.serial('a stuck agent\'s calls are counted without a walk, each decision as the class path\'s', async (t) => {
  const config = { thresholds: [3, 5, 8], argumentsPreviewChars: 40 }
  const listener = listenersOf(plugin, config)['tools/post-execute']
  const classPath = new RepeatToolGuard(config)
  const value = { pattern: 'TODO', path: 'src/components', flags: ['-n', '-i'], limit: 50, nested: { a: [1, { b: null }] } }
  const json = JSON.stringify(value)
  const counted = await countingAgain(async () => {
    for (let call = 1; call <= 30; call++) {
      const args = deepFreeze(JSON.parse(json))
      t.is(await reminderOf(listener, 'agent', 'grep', args), classPath.observe('agent', 'grep', args)?.text ?? null, `call ${call}`)
    }
  })
  // Each reminder ends the calls counted so; the walk takes the next two.
  t.true(counted >= 20, `${counted} calls counted from what the guard kept`)
})

test.serial('whatever changes between the calls of a run, every decision is the class path\'s', async (t) => {
  const next = rng(7)
  const pick = (list) => list[Math.floor(next() * list.length)]
  const config = { thresholds: [2, 3, 5], argumentsPreviewChars: 60 }
  const listener = listenersOf(plugin, config)['tools/post-execute']
  const other = listenersOf(plugin, config)['tools/post-execute']
  const classPath = new RepeatToolGuard(config)
  const otherClassPath = new RepeatToolGuard(config)
  let last = { pattern: 'x', list: [1, 2, { deep: 'y' }] }
  let lastArgs = null
  const counted = await countingAgain(async () => {
    for (let call = 0; call < 4000; call++) {
      const r = next()
      let args
      // Mostly the same value again, parsed afresh: a stuck agent.
      if (r < 0.8) args = JSON.parse(JSON.stringify(last))
      else if (r < 0.82) args = reordered(last)
      else if (r < 0.84) args = JSON.parse(JSON.stringify(last).replace(/\b0\b/, '-0'))
      else if (r < 0.86 && lastArgs !== null && typeof lastArgs === 'object' && !Object.isFrozen(lastArgs)) {
        // The earlier call's own value, changed after it was counted, then the same again.
        lastArgs.changed = call
        args = lastArgs
      } else if (r < 0.87) args = new Instance(last)
      else if (r < 0.88) args = { ...last, toJSON: () => 'other' }
      else if (r < 0.89) args = Object.defineProperty({ ...last }, 'pattern', { enumerable: true, get: () => `got ${call % 2}` })
      else if (r < 0.9) args = [last]
      else {
        last = r < 0.95 ? { pattern: 'x', n: Math.floor(next() * 3), zero: 0 } : randomJson(next)
        args = JSON.parse(JSON.stringify(last))
      }
      if (next() < 0.7 && args !== null && typeof args === 'object' && !(args instanceof Instance)) deepFreeze(args)
      lastArgs = args
      const agent = next() < 0.9 ? 'agent-0' : pick(['agent-1', 'agent-2'])
      const tool = next() < 0.95 ? 'grep' : 'read'
      // Now and then another guard's call comes between.
      if (next() < 0.05) {
        t.is(await reminderOf(other, agent, tool, last), otherClassPath.observe(agent, tool, last)?.text ?? null, `other guard, call ${call}`)
      }
      const expected = classPath.observe(agent, tool, args)?.text ?? null
      t.is(await reminderOf(listener, agent, tool, args), expected, `call ${call}: ${JSON.stringify(args)}`)
    }
  })
  t.true(counted > 400, `${counted} calls counted from what the guard kept`)
})

test.serial('with an opt-in feature or sameResultOnly, no call is counted without a walk', async (t) => {
  for (const config of [{ thresholds: [3], sameResultOnly: true }, { thresholds: [3], repeatEvery: 2 }, { thresholds: [3], similar: { minCalls: 50 } }]) {
    const listener = listenersOf(plugin, config)['tools/post-execute']
    const classPath = new RepeatToolGuard(config)
    const counted = await countingAgain(async () => {
      for (let call = 1; call <= 12; call++) {
        const args = deepFreeze({ pattern: 'TODO' })
        const decision = await listener({ name: 'grep', agent: { id: 'a' }, arguments: args }, { content: [] }, next)
        const expected = config.sameResultOnly ? classPath.observe('a', 'grep', args, { content: [] }) : classPath.observe('a', 'grep', args)
        t.is(decision.additionalContexts?.[0]?.content[0].text ?? null, expected?.text ?? null, `${JSON.stringify(config)}, call ${call}`)
      }
    })
    t.is(counted, 0, JSON.stringify(config))
  }
})

test.serial('two copies of the walk in one thread (as in a test runner\'s module graphs) count each guard\'s calls for its own agent', async (t) => {
  const [a, b] = await Promise.all([import('../lib/encode.js?copy-a'), import('../lib/encode.js?copy-b')])
  const ga = nativeGuard({ thresholds: [3] })
  const gb = nativeGuard({ thresholds: [3] })
  /** One call through a copy of the walk, as the plugin makes it: the fast path's answer. */
  const call = (copy, guard, agent, value, keep) => {
    t.true(copy.encode(value, agent, 'grep', guard.__handle(), false, undefined, keep))
    try {
      return binding.__observeEncoded(copy.transport.buffer)
    } finally {
      copy.release()
    }
  }
  const value = () => ({ pattern: 'TODO', path: 'src' })
  t.is(call(a, ga, 'agent-a', value(), false), undefined)
  t.is(call(a, ga, 'agent-a', value(), true), null, 'a repeat: the copy keeps a snapshot')
  // The other copy's call of the same tool, for another guard and agent, comes between.
  t.is(call(b, gb, 'agent-b', value(), false), undefined)
  t.true(a.repeats(value(), 'agent-a', 'grep', ga.__handle()))
  // Counted for agent-a: its third call, the gentle reminder.
  t.is(binding.__observeAgain(ga.__handle())?.count, 3)
  t.is(gb.stats().observed, 1, 'the other guard counted only its own call')
  t.is(call(b, gb, 'agent-b', value(), false), null, 'agent-b\'s run is its own')
})

test.serial('very long strings in a stuck agent\'s calls are compared exactly: one code unit changed anywhere, a wide unit, strings swapped or shortened', async (t) => {
  // Five calls of each value make a run of five: a value taken for the one before would make the
  // run six, and bring the reminder the class path does not.
  const config = { thresholds: [6, 9], argumentsPreviewChars: 40 }
  const listener = listenersOf(plugin, config)['tools/post-execute']
  const classPath = new RepeatToolGuard(config)
  // Long strings, compared whole by the snapshot.
  const long = (unit) => unit.repeat(300_000)
  const changed = (text, at, unit) => text.slice(0, at) + unit + text.slice(at + 1)
  const [x, y] = [long('x'), long('y')]
  const values = [
    { a: x, b: y, n: 1 },
    { a: changed(x, 299_999, 'z'), b: y, n: 1 },
    { a: changed(x, 0, 'z'), b: y, n: 1 },
    { a: changed(x, 150_000, '€'), b: y, n: 1 },
    { a: changed(x, 150_001, '€'), b: y, n: 1 },
    { a: y, b: x, n: 1 },
    { a: 'short', b: y, n: 1 },
    { a: x, b: y, n: 1 },
    { a: x.slice(1), b: y, n: 1 },
  ]
  const counted = await countingAgain(async () => {
    for (const [index, value] of values.entries()) {
      const json = JSON.stringify(value)
      // Each value five times, parsed afresh: the fourth and fifth are compared with the snapshot.
      for (let call = 1; call <= 5; call++) {
        const args = deepFreeze(JSON.parse(json))
        t.is(await reminderOf(listener, 'agent', 'write', args), classPath.observe('agent', 'write', args)?.text ?? null, `value ${index}, call ${call}`)
      }
    }
  })
  t.is(counted, 2 * values.length, 'the fourth and fifth call of each value counted from what the guard kept')
})
