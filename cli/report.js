// The replay's findings as one plain object, the same for the text, JSON and HTML reports: per
// session its reminders under each config (and under --compare what the second adds and removes),
// the run-length distribution per tool, and the totals.
import { guardInputs } from '../lib/history.js'

/** Buckets a session's timeline is drawn in (the HTML report draws call density, not each call). */
export const TIMELINE_BINS = 120

/** The per-session summary kept for the report: small whatever the session's size. */
export function sessionSummary(path, meta, events, reminders) {
  const prompts = []
  const density = Array.from({ length: TIMELINE_BINS }, () => 0)
  let calls = 0
  for (const input of guardInputs(events)) {
    if (input.kind === 'call') {
      calls++
      density[Math.min(TIMELINE_BINS - 1, Math.floor((input.seq / events.length) * TIMELINE_BINS))]++
    } else if (input.kind === 'prompt') {
      prompts.push(input.seq)
    }
  }
  const summary = { file: path, id: meta.id, events: events.length, calls, prompts, density, reminders }
  if (meta.parentSession !== undefined) summary.parentSession = meta.parentSession
  if (meta.origin !== undefined) summary.origin = meta.origin
  if (reminders.length === 2) Object.assign(summary, difference(reminders[0], reminders[1]))
  return summary
}

const keyOf = (reminder) => `${reminder.lifecycle}|${reminder.seq}|${reminder.tier}|${reminder.count}`

/** The reminders `second` has that `first` has not (`added`), and the other way round (`removed`). */
function difference(first, second) {
  const firstKeys = new Set(first.map(keyOf))
  const secondKeys = new Set(second.map(keyOf))
  return { added: second.filter((r) => !firstKeys.has(keyOf(r))), removed: first.filter((r) => !secondKeys.has(keyOf(r))) }
}

/** The run-length distribution of one config: per tool `{ calls, runs, max, lengths: { n: runs } }`, busiest first. */
export function distribution(runs) {
  const tools = []
  for (const [tool, lengths] of runs) {
    let calls = 0
    let count = 0
    let max = 0
    const sorted = [...lengths].sort((a, b) => a[0] - b[0])
    for (const [length, n] of sorted) {
      calls += length * n
      count += n
      max = Math.max(max, length)
    }
    tools.push({ tool, calls, runs: count, max, lengths: Object.fromEntries(sorted) })
  }
  return tools.sort((a, b) => b.calls - a.calls || (a.tool < b.tool ? -1 : 1))
}

/** How many runs of `entry` reach `threshold` calls. */
export function reaching(entry, threshold) {
  let n = 0
  for (const [length, runs] of Object.entries(entry.lengths)) if (Number(length) >= threshold) n += runs
  return n
}

/** The totals of one config over `sessions`. */
export function totals(sessions, index) {
  const sum = { sessions: sessions.length, calls: 0, reminders: 0, gentle: 0, detailed: 0, cycle: 0 }
  for (const session of sessions) {
    sum.calls += session.calls
    for (const reminder of session.reminders[index]) {
      sum.reminders++
      sum[reminder.tier] = (sum[reminder.tier] ?? 0) + 1
    }
  }
  return sum
}

/** The whole report. `configs` are `{ label, config }`, `replay` the finished Replay. */
export function buildReport({ configs, sessions, replay, errors }) {
  return {
    configs: configs.map(({ label, config }, i) => ({ label, config, thresholds: replay.guards[i].thresholds })),
    sessions,
    runs: replay.runs.map(distribution),
    totals: configs.map((_, i) => totals(sessions, i)),
    errors,
  }
}
