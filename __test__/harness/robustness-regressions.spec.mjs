// Regressions: unloading the plugin (disposing its
// cordis context) drops all of its native state through RepeatToolGuard#clear().
import test from 'ava'
import * as guard from '../../index.js'
import { boot, callTool, say, reminders } from '../support/scripted.mjs'

test('disposing the plugin\'s context drops all of its native state', async (t) => {
  const harness = await boot({ plugin: guard, config: { thresholds: [2] } })
  const native = guard.guardOf(harness.fiber.ctx)
  const agents = await Promise.all(['one', 'two', 'three'].map((id) => harness.agent(`agent-${id}`, [callTool('grep', { q: 1 }), say('first'), callTool('grep', { q: 1 }), say('second')])))
  await Promise.all(agents.map((a) => a.run('first')))
  t.is(native.agentCount, 3)
  await harness.fiber.dispose()
  t.is(native.agentCount, 0, 'every chain is dropped with the context')
  t.is(guard.guardOf(harness.fiber.ctx), undefined, 'the plugin forgets its guard')
  // The agents live on; their next identical calls are no longer observed.
  await Promise.all(agents.map((a) => a.run('again', 'plugin')))
  t.deepEqual(agents.map((a) => reminders(a.events(), guard.name).length), [0, 0, 0])
  t.is(native.agentCount, 0)
})

test('RepeatToolGuard#clear() drops every agent\'s chain and leaves the guard usable', (t) => {
  const native = new guard.RepeatToolGuard({ thresholds: [2] })
  for (const id of ['a', 'b', 'c']) native.observe(id, 't', { q: 1 })
  t.is(typeof native.clear, 'function')
  native.clear()
  t.is(native.agentCount, 0)
  t.is(native.observe('a', 't', { q: 1 }), null, 'a cleared chain starts over')
  t.is(native.observe('a', 't', { q: 1 })?.count, 2)
})
