// `npm run demo`, the README's first command after install, as a newcomer runs it: the real rc.8
// loop with the scripted model, the gentle reminder after the 3rd call, the detailed one after the 5th.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

test('npm run demo shows the gentle reminder at step 4 and the detailed one at step 6', (t) => {
  const root = fileURLToPath(new URL('../..', import.meta.url))
  const run = spawnSync('npm', ['run', '--silent', 'demo'], { cwd: root, encoding: 'utf8', timeout: 120_000 })
  t.is(run.status, 0, run.stderr)
  const reminders = run.stdout.split('\n').filter((line) => line.includes('[plugin:repeat-tool-guard'))
  t.deepEqual(reminders.map((line) => line.replace(/^\s*\d+ /, '')), [
    'user/message  [plugin:repeat-tool-guard grep × 3]',
    'user/message  [plugin:repeat-tool-guard grep × 5]',
  ])
  t.regex(run.stdout, /step\/start {2}\{"turn":1,"step":4\}\n\s*\d+ user\/message {2}\[plugin:repeat-tool-guard grep × 3\]/)
  t.regex(run.stdout, /step\/start {2}\{"turn":1,"step":6\}\n\s*\d+ user\/message {2}\[plugin:repeat-tool-guard grep × 5\]/)
  t.regex(run.stdout, /- consecutive_calls: 5\n\s*\| - arguments: \{"path":"src","pattern":"TODO"\}/)
})
