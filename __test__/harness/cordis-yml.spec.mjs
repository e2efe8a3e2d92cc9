// Loads the plugin by its package name from fixtures/cordis.yml, an entry written exactly like the
// spec's config block, through the published loader packages, and shows its reminders in a real agent turn.
// A bad file's mistakes reach the log, and with the README's log exporter, stderr.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
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

// Each file's one mistake, and the one line the loader logs for it (no warnings besides).
const MISTAKES = [
  ['quoted-threshold.yml', 'repeat-tool-guard: invalid threshold "3" — every threshold must be an integer >= 2 (a string, not a number: write 3 without quotes)'],
  ['resume-yes.yml', 'repeat-tool-guard: `resume` must be a boolean, got the string "yes" (YAML 1.2 reads yes as a string: write true or false)'],
  ['list-config.yml', 'repeat-tool-guard: the config must be an object, got the array [{…}, {…}]'],
]

for (const [file, message] of MISTAKES) {
  test(`an invalid config in a cordis.yml is logged by the loader, which skips the plugin instead of throwing: ${file}`, async (t) => {
    const harness = await boot()
    const logged = []
    harness.ctx.logger.exporter({
      levels: { default: 3 },
      export: (entry) => {
        if (entry.type === 'error' || entry.type === 'warn') logged.push(entry.args.map(String).join(' '))
      },
    })
    await harness.ctx.plugin(Loader, { baseUrl: new URL('../../index.js', import.meta.url).href })
    await harness.ctx.plugin(Include, { path: new URL(`./fixtures/${file}`, import.meta.url).href })
    await t.notThrowsAsync(harness.ctx.loader.await())
    t.true(logged.some((line) => line.includes(message)), logged.join('\n'))
    t.is(logged.length, 1, `one message for the one mistake:\n${logged.join('\n')}`)
    const a = await harness.agent('agent-yml-invalid', [...Array.from({ length: 3 }, () => callTool('grep', { q: 1 })), say('done')])
    await a.run()
    t.deepEqual(reminders(a.events(), guardModule.name), [], 'the plugin is not loaded')
  })
}

test('following the README, a new project sees a cordis.yml\'s unknown key and invalid value on stderr', (t) => {
  // The README's Configure section: its code that adds a log exporter and loads the file, run as it stands.
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
  const shown = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]).find((code) => code.includes('ctx.logger.exporter('))
  t.truthy(shown, 'the README shows a log exporter')
  t.true(shown.includes('Loader') && shown.includes('Include'), 'with the loader and the include plugin')

  // A fresh project: its node_modules holds this package by name beside the harness packages.
  const root = fileURLToPath(new URL('../..', import.meta.url))
  const dir = mkdtempSync(join(tmpdir(), 'rtg-yml-log-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const scope = join(dir, 'node_modules', '@deepseek-ai')
  mkdirSync(scope, { recursive: true })
  for (const name of readdirSync(join(root, 'node_modules', '@deepseek-ai'))) symlinkSync(join(root, 'node_modules', '@deepseek-ai', name), join(scope, name), 'dir')
  symlinkSync(root, join(scope, 'dsh-repeat-tool-guard'), 'dir')
  writeFileSync(join(dir, 'package.json'), '{ "name": "harness-project", "private": true, "type": "module" }\n')
  writeFileSync(join(dir, 'cordis.yml'), [
    '- id: repeat-tool-guard',
    "  name: '@deepseek-ai/dsh-repeat-tool-guard'",
    '  config:',
    "    thresholds: ['3', 5]",
    '    thresholdz: [4]',
    '',
  ].join('\n'))
  // The harness's root context as `ctx`; after the README's code, the app waits until cordis' own log
  // buffer holds the loader's error (it is logged after loader.await() resolves), then exits.
  writeFileSync(join(dir, 'app.mjs'), [
    `import { boot } from ${JSON.stringify(pathToFileURL(join(root, '__test__', 'support', 'scripted.mjs')).href)}`,
    'const { ctx } = await boot()',
    shown,
    'for (const end = Date.now() + 10_000; Date.now() < end && !ctx.logger.buffer.some((m) => m.type === \'error\');) await new Promise((resolve) => setTimeout(resolve, 10))',
    'process.exit(0)',
    '',
  ].join('\n'))
  const { stderr: printed, status } = spawnSync(process.execPath, [join(dir, 'app.mjs')], { cwd: dir, encoding: 'utf8', timeout: 60_000 })
  t.is(status, 0, printed)
  t.regex(printed, /^\[warn\] repeat-tool-guard: unknown config key "thresholdz" is ignored \(known keys: thresholds, argumentsPreviewChars, include, /m)
  t.regex(printed, /^\[error\] repeat-tool-guard: Error: repeat-tool-guard: invalid threshold "3" — every threshold must be an integer >= 2 \(a string, not a number: write 3 without quotes\)$/m)
})
