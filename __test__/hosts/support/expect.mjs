// What the hook should have done, from the package's own class: the same calls, as the hook sees
// them, through RepeatToolGuard give the reminders the model must have been shown, call for call.
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { promisify } from 'node:util'

import { RepeatToolGuard } from '../../../lib/guard.js'
import { hookResult } from '../../../lib/host-results.js'
import { GUARD_BIN } from './sandbox.mjs'
import { strings } from './script.mjs'

const run = promisify(execFile)

/**
 * The reminder (`{ tier, count, text }`) or null for each of `calls` (`{ tool, args, result }`),
 * in order, on one agent. A `'prompt'` among them is a user prompt: the chain starts over there
 * (it gets no entry of its own).
 */
export function expectedReminders(config, calls) {
  const guard = new RepeatToolGuard(config)
  const reminders = []
  for (const call of calls) {
    if (call === 'prompt') guard.reset('main')
    else reminders.push(guard.observe('main', call.tool, call.args, call.result))
  }
  return reminders
}

const POST_EVENTS = new Set(['PostToolUse', 'PostToolUseFailure', 'AfterTool'])

/** The calls as the hook got them after they ran (`{ tool, args, result }`), from the tapped stdins, in order. */
export function hookCalls(host, hooks) {
  return hooks
    .filter((hook) => POST_EVENTS.has(hook.stdin?.hook_event_name))
    .map((hook) => ({ tool: hook.stdin.tool_name, args: hook.stdin.tool_input, result: hookResult(host.name, hook.stdin) }))
}

/** The calls the hook was told had run, as `{ tool, args }`: to compare with the script's. */
export function toldCalls(host, result) {
  return hookCalls(host, result.hooks).map(({ tool, args }) => ({ tool, args }))
}

/**
 * Where what the model was shown differs from `expected` (one entry per call, as expectedReminders
 * gives them): for every request of the agent's turn, the text after each earlier call must hold
 * that call's reminder, and no reminder where the class gives none. One line per difference.
 */
export function reminderProblems(host, run, expected, { upTo = expected.length } = {}) {
  const problems = []
  const shown = expected.map((reminder) => reminder && { ...reminder, text: host.shown(reminder.text) })
  const markers = [...new Set(shown.filter(Boolean).map((reminder) => reminder.text.split('\n')[0]))]
  run.turns.forEach((request, n) => {
    host.protocol.segments(request.body).slice(0, upTo).forEach((segment, i) => {
      const text = segment.texts.join('\n')
      const want = shown[i]
      if (want && !text.includes(want.text)) {
        problems.push(`request ${n + 1}: after call ${i + 1} the model was not shown the ${want.tier} reminder (it was shown: ${JSON.stringify(text).slice(0, 600)})`)
      }
      const extra = markers.filter((marker) => text.includes(marker) && !want?.text.startsWith(marker))
      if (extra.length > 0) problems.push(`request ${n + 1}: after call ${i + 1} the model was shown ${JSON.stringify(extra)}, where the class gives ${want ? want.tier : 'no reminder'}`)
    })
  })
  return problems
}

/** The text the model was shown after call `i` (from 0) in the last request that holds it. */
export function shownAfter(host, run, i) {
  for (const request of [...run.turns].reverse()) {
    const segment = host.protocol.segments(request.body)[i]
    if (segment) return segment.texts.join('\n')
  }
  return undefined
}

/** Every string of every record of a JSON Lines transcript: what a check for a text in it reads. */
export async function transcriptText(path) {
  const text = await readFile(path, 'utf8')
  return text.split('\n').filter(Boolean).flatMap((line) => {
    try {
      return strings(JSON.parse(line))
    } catch {
      return [line]
    }
  }).join('\n')
}

/** `dsh-repeat-tool-guard replay <transcript> --json` (with `--config` when given): the parsed report, or the failure. */
export async function replay(transcriptPath, configPath) {
  const args = [GUARD_BIN, 'replay', transcriptPath, '--json', ...(configPath ? ['--config', configPath] : [])]
  try {
    const { stdout, stderr } = await run(process.execPath, args, { maxBuffer: 64 << 20 })
    return { report: JSON.parse(stdout), stderr, exitCode: 0 }
  } catch (error) {
    let report
    try {
      report = JSON.parse(error.stdout)
    } catch {
      // no report: the stderr says why
    }
    return { report, stderr: error.stderr, exitCode: error.code }
  }
}

/** Where the replay of one session differs from `expected` (one entry per call): one line per difference. */
export function replayProblems(result, expected) {
  const { report, stderr, exitCode } = result
  if (!report) return [`replay gave no report (exit ${exitCode}): ${stderr}`]
  const problems = (report.errors ?? []).slice(0, 3).map((error) => `replay could not read it: ${error.message}`)
  if (report.sessions.length !== 1) return [...problems, `replay read ${report.sessions.length} sessions, not 1`]
  const got = report.sessions[0].reminders[0].map(({ call, tier, text }) => ({ call, tier, text }))
  const want = expected.flatMap((reminder, i) => (reminder ? [{ call: i + 1, tier: reminder.tier, text: reminder.text }] : []))
  if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`replay's reminders ${JSON.stringify(got.map((r) => [r.call, r.tier]))} differ from the class's ${JSON.stringify(want.map((r) => [r.call, r.tier]))}`)
  if (report.sessions[0].calls !== expected.length) problems.push(`replay counted ${report.sessions[0].calls} calls, not ${expected.length}`)
  return problems
}
