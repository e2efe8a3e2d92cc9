// Loads the plugin by its package name from fixtures/cordis.yml, an entry written exactly like the
// spec's config block, through the published loader packages, and shows its reminders in a real agent turn.
import test from 'ava'
import Loader from '@deepseek-ai/cordis-plugin-loader'
import Include from '@deepseek-ai/cordis-plugin-include'
import * as guardModule from '../../index.js'
import { boot, callTool, say, reminders } from '../support/scripted.mjs'
import { GENTLE } from '../oracle.mjs'

test('a cordis.yml entry loads the plugin by package name; reminders arrive in a real turn', async (t) => {
  const harness = await boot()
  // The loader resolves names from baseUrl: this package's own directory (self-reference by name).
  await harness.ctx.plugin(Loader, { baseUrl: new URL('../../index.js', import.meta.url).href })
  // The file sits inside this package, so the name resolves to this package (self-reference).
  const file = new URL('./fixtures/cordis.yml', import.meta.url)
  await harness.ctx.plugin(Include, { path: file.href })
  await harness.ctx.loader.await()
  const a = await harness.agent('agent-yml', [callTool('grep', { q: 1 }), callTool('todo_write', {}), callTool('grep', { q: 1 }), callTool('grep', { q: 1 }), ...Array.from({ length: 2 }, () => callTool('grep', { q: 1 })), say('done')])
  await a.run()
  const got = reminders(a.events(), guardModule.name)
  t.deepEqual(got.map((r) => r.source.summary), ['grep × 3', 'grep × 5'], 'todo_write is excluded, as configured in the file')
  t.is(got[0].text, GENTLE)
})

test('an invalid config in a cordis.yml is logged by the loader, which skips the plugin instead of throwing', async (t) => {
  const harness = await boot()
  const logged = []
  harness.ctx.logger.exporter({
    levels: { default: 3 },
    export: (message) => {
      if (message.type === 'error' || message.type === 'warn') logged.push(message.args.map(String).join(' '))
    },
  })
  await harness.ctx.plugin(Loader, { baseUrl: new URL('../../index.js', import.meta.url).href })
  await harness.ctx.plugin(Include, { path: new URL('./fixtures/quoted-threshold.yml', import.meta.url).href })
  await t.notThrowsAsync(harness.ctx.loader.await())
  t.true(logged.some((line) => line.includes('repeat-tool-guard: invalid threshold 3 — every threshold must be an integer >= 2')), logged.join('\n'))
  const a = await harness.agent('agent-yml-invalid', [...Array.from({ length: 3 }, () => callTool('grep', { q: 1 })), say('done')])
  await a.run()
  t.deepEqual(reminders(a.events(), guardModule.name), [], 'the plugin is not loaded')
})
