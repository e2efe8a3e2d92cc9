// Helpers the host specs share: a bound on clients running at once, runs shared between tests,
// and what the hook got and printed, for a failure's message.
import { join } from 'node:path'

import { runClient } from './run.mjs'
import { lines } from './sandbox.mjs'

// Each scripted shell call appends a line here: the lines are the real executions.
export const RAN_LOG = 'ran.log'

// Clients at once in this process (ava runs each spec file in its own): a loaded machine slows a
// run down, it does not change what it does, but a hook that waits long enough is skipped.
const LIMIT = Number(process.env.HOSTS_CONCURRENCY) || 2
let running = 0
const waiting = []

async function limited(f) {
  if (running >= LIMIT) await new Promise((resolve) => waiting.push(resolve))
  running += 1
  try {
    return await f()
  } finally {
    running -= 1
    waiting.shift()?.()
  }
}

// Sandboxes are removed when the file's tests are all done: several tests read one run.
const boxes = new Set()

/** runClient through the bound; HOSTS_TAP=1 taps every run (the hook's stdins and answers in failures). */
export async function run(host, options) {
  const result = await limited(() => runClient(host, { ...options, tap: options.tap || process.env.HOSTS_TAP === '1' }))
  boxes.add(result.box)
  return result
}

/** Removes every sandbox this process made (for test.after.always). */
export async function disposeAll() {
  await Promise.all([...boxes].map((box) => box.dispose()))
}

/** `f`'s promise, made once: a run that several tests read. */
export function once(f) {
  let promise
  return () => (promise ??= f())
}

/** How many times the scripted command really ran in `result`'s project. */
export async function executions(result) {
  return (await lines(join(result.box.project, RAN_LOG))).length
}

/** What the client printed and, when tapped, each hook run: for a failed assertion's message. */
export function explain(result) {
  const out = [`client exit ${result.exitCode}${result.timedOut ? ' (timed out, killed)' : ''}`, `stderr: ${result.stderr.slice(-2000)}`, `stdout: ${result.stdout.slice(-1000)}`]
  if (!result.hooks) out.push('(hook runs not tapped: HOSTS_TAP=1 shows their stdin and output)')
  for (const hook of result.hooks ?? []) {
    out.push(`hook ${hook.stdin?.hook_event_name ?? '?'} status ${hook.status ?? 'still running'}\n  stdin: ${JSON.stringify(hook.stdin)}\n  stdout: ${hook.stdout?.trim()}\n  stderr: ${hook.stderr?.trim()}`)
  }
  out.push(`box: ${result.box.root}${process.env.KEEP_HOSTS_TEST ? '' : ' (removed; KEEP_HOSTS_TEST=1 keeps it)'}`)
  return out.join('\n')
}
