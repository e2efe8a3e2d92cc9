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
