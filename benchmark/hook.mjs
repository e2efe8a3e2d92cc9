// The hook command's time per event, as a host runs it (a new process per event, the event on
// stdin), with a 1,000-call session behind it, side by side with a bare Node start (`node -e 0`):
// each round runs one of each, back to back, the order turning every round. Two sessions: 1,000
// different calls (the state holds its bound of calls) and the same call 1,000 times (one kept call
// restored 1,000 times), each under the defaults and `profile: 'recommended'`. Prints p50 and p95
// of each and their ratio to the bare start's.
// Usage: node benchmark/hook.mjs   (HOOK_ROUNDS=n, 40 by default)
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { hook } from '../cli/hook.js'

const BIN = fileURLToPath(new URL('../cli/bin.js', import.meta.url))
const ROUNDS = Number(process.env.HOOK_ROUNDS ?? 40)
const SESSION_CALLS = 1000

const post = (session, n, command) => ({
  session_id: session,
  hook_event_name: 'PostToolUse',
  tool_name: 'Bash',
  tool_input: { command, description: 'run a command' },
  tool_response: { stdout: `output of ${command}\n`.repeat(8), stderr: '', interrupted: false, isImage: false },
  tool_use_id: `toolu_${n}`,
})

const hookArgs = (dir, config) => [BIN, 'hook', '--state-dir', join(dir, 'state'), '--config', config]

/** Runs the hook on `event` and returns its wall time in ms. */
function timeHook(dir, config, event) {
  const started = process.hrtime.bigint()
  const run = spawnSync(process.execPath, hookArgs(dir, config), { input: JSON.stringify(event) })
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  if (run.status !== 0 || run.stderr.length > 0) throw new Error(`hook failed: ${run.stderr}`)
  return ms
}

function timeBare() {
  const started = process.hrtime.bigint()
  spawnSync(process.execPath, ['-e', '0'])
  return Number(process.hrtime.bigint() - started) / 1e6
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
}

const dir = mkdtempSync(join(tmpdir(), 'hook-bench-'))
const configs = { defaults: join(dir, 'defaults.json'), recommended: join(dir, 'recommended.json') }
writeFileSync(configs.defaults, '{}')
writeFileSync(configs.recommended, '{"profile": "recommended"}')
const shapes = {
  '1,000 different calls': (i) => `grep -n pattern${i} src/file${i % 37}.js`,
  'the same call 1,000 times': () => 'npm test',
}

console.log(`hook.mjs: Node ${process.version}, ${ROUNDS} rounds; ms per event (a new process, the event on stdin), a ${SESSION_CALLS}-call session behind it`)
const bare = []
const rows = []
for (const [shape, command] of Object.entries(shapes)) {
  for (const [label, config] of Object.entries(configs)) {
    const session = `${shape}-${label}`.replace(/\W+/g, '-')
    // The session behind the event, written by the hook itself, in this process (not measured).
    for (let i = 0; i < SESSION_CALLS; i++) {
      const io = { input: JSON.stringify(post(session, i, command(i))), stdout: { write() {} }, stderr: { write: (text) => { throw new Error(text) } } }
      await hook(hookArgs(dir, config).slice(2), io)
    }
    const times = []
    for (let round = 0; round < ROUNDS; round++) {
      const event = post(session, SESSION_CALLS + round, command(SESSION_CALLS + round))
      if (round % 2 === 0) {
        bare.push(timeBare())
        times.push(timeHook(dir, config, event))
      } else {
        times.push(timeHook(dir, config, event))
        bare.push(timeBare())
      }
    }
    rows.push({ name: `${shape}, ${label}`, times })
  }
}
rmSync(dir, { recursive: true, force: true })

const bareP50 = quantile(bare, 0.5)
const line = (name, p50, p95, ratio) => console.log(`${name.padEnd(44)} ${p50.padStart(8)} ${p95.padStart(8)} ${ratio.padStart(10)}`)
line('', 'p50', 'p95', 'p50 ÷ bare')
line('node -e 0', bareP50.toFixed(1), quantile(bare, 0.95).toFixed(1), '1.00')
for (const { name, times } of rows) line(`hook: ${name}`, quantile(times, 0.5).toFixed(1), quantile(times, 0.95).toFixed(1), (quantile(times, 0.5) / bareP50).toFixed(2))
console.log('bound: the hook at most 2x a bare Node start at p50')
