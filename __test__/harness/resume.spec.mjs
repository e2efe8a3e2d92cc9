// `resume: true` in the real rc.8 loop with the harness's own JSONL persistence: an agent resumed
// on a persisted session continues its chain, so a loop in progress when the process stopped gets
// its reminder on time. Without `resume`, a resumed agent starts with an empty chain.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import test from 'ava'

import * as guard from '../../index.js'
import { boot, callTool, callTools, reminders, say } from '../support/scripted.mjs'

const times = (n, f) => Array.from({ length: n }, f)
const grep = () => callTool('grep', { pattern: 'TODO', path: 'src' })

/** Where each reminder came, as the model reads it: its text and summary. */
const delivered = (events) => reminders(events, guard.name).map((r) => `${r.source.summary}: ${r.text.split('\n')[0]}`)

/** What the model reads: each message of the log, in order, as its kind and content (call ids left out). */
const transcript = (events) => events
  .filter((e) => ['user/message', 'assistant/message', 'tool/result'].includes(e.type))
  .map((e) => `${e.type}: ${JSON.stringify(e.type === 'assistant/message' ? e.data.message.content : e.data.content ?? e.data.message.content[0].content)}`)
  .map((line) => line.replace(/"id":"call-\d+",/g, ''))

/** Four identical calls in a turn opened by the user, then one more in a turn a plugin opened. */
async function uninterrupted(config) {
  const harness = await boot({ plugin: guard, config })
  const a = await harness.agent('s1', [...times(4, grep), say('waiting'), grep(), say('done')])
  await a.run('look for TODOs')
  await a.run('carry on', 'plugin')
  return a.events()
}

/** The same, with the process stopped after the first turn and the session resumed in a new one. */
async function resumed(config, t) {
  const root = await mkdtemp(join(tmpdir(), 'rtg-resume-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const first = await boot({ plugin: guard, config, persistence: { root } })
  const a = await first.agent('s1', [...times(4, grep), say('waiting')])
  await a.run('look for TODOs')
  await first.stop()
  const second = await boot({ plugin: guard, config, persistence: { root } })
  const b = await second.resume('s1', [grep(), say('done')])
  await b.run('carry on', 'plugin')
  return { before: a.events(), after: b.events() }
}

test('a resumed agent continues its chain: the fifth call gets the detailed reminder, as without the stop', async (t) => {
  const config = { resume: true }
  const whole = await uninterrupted(config)
  const { after } = await resumed(config, t)
  t.deepEqual(delivered(whole), ['grep × 3: You are repeating the exact same tool call with identical arguments. Carefully analyze the previous result before calling again: if the task is not complete, try a different approach or different arguments instead of repeating the call.', 'grep × 5: Repeated tool call detected:'])
  // The resumed log holds the first turn too: the same reminders at the same places.
  t.deepEqual(delivered(after), delivered(whole))
  t.deepEqual(transcript(after), transcript(whole), 'the model reads the same conversation, tool results included')
})

test('without resume, a resumed agent starts with an empty chain', async (t) => {
  const { after } = await resumed({}, t)
  t.deepEqual(delivered(after).map((line) => line.split(':')[0]), ['grep × 3'], 'only the first turn\'s reminder')
})

test('a user prompt since the calls means there is nothing to continue', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'rtg-resume-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const config = { resume: true, thresholds: [2, 3] }
  const first = await boot({ plugin: guard, config, persistence: { root } })
  const a = await first.agent('s2', [grep(), say('one'), say('two')])
  await a.run('first')
  await a.run('second question')
  await first.stop()
  const second = await boot({ plugin: guard, config, persistence: { root } })
  const b = await second.resume('s2', [grep(), grep(), say('done')])
  await b.run('carry on', 'plugin')
  // The call before the second prompt does not count: the reminder comes at the second new call.
  const mine = reminders(b.events(), guard.name).map((r) => r.source.summary)
  t.deepEqual(mine, ['grep × 2'])
  t.is(guard.guardOf(second.fiber.ctx).stats().reminders, 1, 'restored calls bring no reminders and are not counted')
  t.is(guard.guardOf(second.fiber.ctx).stats().observed, 2)
})

test('with perResponse, a resumed chain counts each logged response\'s identical calls once', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'rtg-resume-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const config = { resume: true, perResponse: true }
  const batch = () => callTools([['grep', { q: 'x' }], ['grep', { q: 'x' }]])
  const first = await boot({ plugin: guard, config, persistence: { root } })
  const a = await first.agent('s2', [batch(), batch(), say('waiting')])
  await a.run('look')
  await first.stop()
  t.deepEqual(delivered(a.events()), [], 'two responses: a run of two')
  const second = await boot({ plugin: guard, config, persistence: { root } })
  const b = await second.resume('s2', [batch(), say('done')])
  await b.run('carry on', 'plugin')
  t.deepEqual(delivered(b.events()).map((line) => line.split(':')[0]), ['grep × 3'], 'the third response, not the sixth call')
})
