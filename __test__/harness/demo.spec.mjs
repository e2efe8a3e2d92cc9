// `npm run demo`, the README's first command after install, as a newcomer runs it: the real rc.8
// loop with the scripted model, read at a glance; `-- --events` gives the raw event log.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { GENTLE, detailed } from '../oracle.mjs'

const root = fileURLToPath(new URL('../..', import.meta.url))
const demo = (...args) => spawnSync('npm', ['run', '--silent', 'demo', ...(args.length > 0 ? ['--', ...args] : [])], { cwd: root, encoding: 'utf8', timeout: 120_000 })
const quoted = (text) => text.replace(/^/gm, '        │ ')

test('npm run demo: a header, one line per step, each reminder in full where the model reads it, a summary; at most 40 lines', (t) => {
  const run = demo()
  t.is(run.status, 0, run.stderr)
  const lines = run.stdout.trimEnd().split('\n')
  t.true(lines.length <= 40, `${lines.length} lines`)
  t.regex(lines[0], /real deepseek-harness 0\.1\.0-rc\.8 agent loop/)
  t.true(lines.includes('Thresholds [3,5,8]: gentle reminder at 3, detailed at 5 and 8.'))
  const call = 'grep {"pattern":"TODO","path":"src"}  → ok:grep'
  t.deepEqual(lines.filter((line) => /^step \d/.test(line)), [
    ...[1, 2, 3, 4, 5].map((step) => `step ${step}  ${call}`),
    'step 6  the model answers: done',
  ])
  t.true(run.stdout.includes([
    'step 3  ' + call,
    '        reminder (grep × 3), given to the model at the start of step 4:',
    quoted(GENTLE),
    'step 4  ' + call,
  ].join('\n')))
  t.true(run.stdout.includes([
    'step 5  ' + call,
    '        reminder (grep × 5), given to the model at the start of step 6:',
    quoted(detailed('grep', 5, '{"path":"src","pattern":"TODO"}')),
    'step 6  the model answers: done',
  ].join('\n')))
  t.true(lines.includes('Summary: 5 identical calls, 2 reminders: gentle after grep call 3 (read at step 4), detailed after grep call 5 (read at step 6).'))
})

test('npm run demo -- --events prints the raw event log, one JSON event per line', (t) => {
  const run = demo('--events')
  t.is(run.status, 0, run.stderr)
  const events = run.stdout.trimEnd().split('\n').map((line) => JSON.parse(line))
  t.deepEqual(events.map((event) => event.seq), events.map((_, i) => i))
  const notices = events.filter((event) => event.type === 'user/message' && event.data.source.kind === 'plugin')
  t.deepEqual(notices.map((event) => event.data.source.summary), ['grep × 3', 'grep × 5'])
  t.is(events.filter((event) => event.type === 'tool/call').length, 5)
})
