// What the replay command costs those who only load the plugin: importing index.js loads none of
// the command's modules or dependencies (the harness's session reader, js-yaml). And the command
// runs on an older Node than the harness's, saying what a harness log needs when it meets one.
import test from 'ava'
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const COMMAND_ONLY = ['@deepseek-ai/dsh-session-persistence-jsonl', '@deepseek-ai/dsh-session-persistence', '@deepseek-ai/dsh-session/', 'js-yaml', '/cli/']

test('importing the plugin loads none of the replay command\'s modules', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'trace-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const trace = join(dir, 'imports')
  const script = `
    const plugin = await import(${JSON.stringify(pathToFileURL(join(root, 'index.js')).href)})
    const { createRequire } = await import('node:module')
    if (typeof plugin.apply !== 'function') throw new Error('no plugin')
    console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)))`
  const required = JSON.parse(execFileSync(process.execPath, ['--import', pathToFileURL(join(root, '__test__/support/trace-imports.mjs')).href, '--input-type=module', '-e', script], {
    env: { ...process.env, TRACE_IMPORTS: trace },
    encoding: 'utf8',
  }))
  const imported = readFileSync(trace, 'utf8').trim().split('\n')
  t.true(imported.some((url) => url.endsWith('/index.js')), 'the trace sees the plugin load')
  t.true(imported.some((url) => url.includes('@deepseek-ai/dsh-llm')), 'and its own dependencies')
  for (const name of COMMAND_ONLY) {
    t.deepEqual(imported.filter((url) => url.includes(name)), [], `no import of ${name}`)
    t.deepEqual(required.filter((path) => path.includes(name)), [], `no require of ${name}`)
  }
})

test('the command runs on the Nodes the package supports; a harness session log needs Node >= 22.19, as the harness does', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'old-node-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const log = join(dir, 'session.jsonl')
  writeFileSync(log, `${JSON.stringify({ type: 'session', version: 0, id: 's', createdAt: 0, delegationDepth: 0 })}\n`)
  const help = spawnSync(process.execPath, [join(root, 'cli/bin.js'), '--help'], { encoding: 'utf8' })
  t.is(help.status, 0)
  t.true(help.stdout.startsWith('Usage: dsh-repeat-tool-guard replay'))
  const result = spawnSync(process.execPath, [join(root, 'cli/bin.js'), 'replay', log, '--json'], { encoding: 'utf8' })
  const [major, minor] = process.versions.node.split('.').map(Number)
  if (major > 22 || (major === 22 && minor >= 19)) {
    t.is(result.status, 0, 'a recent Node reads the log')
    t.is(JSON.parse(result.stdout).sessions[0].id, 's')
    return
  }
  t.is(result.status, 1)
  t.is(result.stderr, `replay: ${log}: reading a harness session log needs Node >= 22.19, as the harness does; this is Node ${process.versions.node}\n`)
  t.deepEqual(JSON.parse(result.stdout).errors, [{ message: result.stderr.slice('replay: '.length, -1) }])
})
