// The replay's findings as one plain object, the same for the text, JSON and HTML reports: per
// session (a harness log, or one trajectory) its reminders under each config (and under --compare
// what the second adds and removes), the run-length distribution per tool, the totals, and when
// sessions say how they ended, the figures per outcome.
import { isAbsolute, relative } from 'node:path'

import { TIERS } from '../lib/keys.js'

/** Buckets a session's timeline is drawn in (the HTML report draws call density, not each call). */
export const TIMELINE_BINS = 120

/** The reminder tiers, in the order the reports list them (rendered from the core's `Tier`). */
export { TIERS }

/** Where a session comes from, as the reports show it: its file (relative to the working directory when under it), and its line in a file of trajectories. */
export function sessionPlace(session) {
  const near = relative(process.cwd(), session.file)
  const file = near && !near.startsWith('..') && !isAbsolute(near) ? near : session.file
  return session.line === undefined ? file : `${file}:${session.line}`
}

/**
 * The summary kept for the report of a session read from `file` (`run` as cli/formats reads it,
 * `result` its replay's `finish()`): small whatever the session's size. `outcomeField` names the
 * field that says how a trajectory ended.
 */
export function sessionSummary(file, run, result, outcomeField) {
  const { meta, events } = run
  const density = Array.from({ length: TIMELINE_BINS }, () => 0)
  for (const seq of result.callSeqs) density[Math.min(TIMELINE_BINS - 1, Math.floor((seq / events) * TIMELINE_BINS))]++
  const summary = { file, format: run.format, id: meta.id }
  if (meta.line !== undefined) summary.line = meta.line
  const outcome = meta.fields?.[outcomeField]
  if (outcome !== undefined && outcome !== null) summary.outcome = String(outcome)
  Object.assign(summary, { events, calls: result.calls, prompts: result.prompts, density, reminders: result.reminders })
  if (meta.fields && Object.keys(meta.fields).length) summary.fields = meta.fields
  if (meta.parentSession !== undefined) summary.parentSession = meta.parentSession
  if (meta.origin !== undefined) summary.origin = meta.origin
  if (result.reminders.length === 2) Object.assign(summary, difference(result.reminders[0], result.reminders[1]))
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

/** The totals of one config over `sessions`: sessions, calls, reminders, and reminders per tier. */
export function totals(sessions, index) {
  const sum = { sessions: sessions.length, calls: 0, reminders: 0, ...Object.fromEntries(TIERS.map((tier) => [tier, 0])) }
  for (const session of sessions) {
    sum.calls += session.calls
    for (const reminder of session.reminders[index]) {
      sum.reminders++
      sum[reminder.tier] = (sum[reminder.tier] ?? 0) + 1
    }
  }
  return sum
}

function median(values) {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/**
 * What a detector did on a group of sessions, each `{ calls, first }` (`first`: the call, counted
 * from 1, at which its first reminder fired, or null): `sessions`, how many were `reminded` and
 * their `share`, the median `firstCall` and `firstFraction` (that call over the session's calls)
 * of the reminded ones, and `callsAfter`, the calls they made after the first reminder (the most
 * that heeding it could have saved). Medians are null when none was reminded.
 */
export function outcomeFigures(runs) {
  const reminded = runs.filter((run) => run.first !== null && run.first !== undefined)
  return {
    sessions: runs.length,
    reminded: reminded.length,
    share: runs.length ? reminded.length / runs.length : 0,
    firstCall: median(reminded.map((run) => run.first)),
    firstFraction: median(reminded.map((run) => run.first / run.calls)),
    callsAfter: reminded.reduce((sum, run) => sum + run.calls - run.first, 0),
  }
}

/**
 * The sessions grouped by how they ended (`outcome`; those without one are the group `null`), in
 * the order of their names, each with `outcomeFigures` per config. Undefined when none has an outcome.
 */
export function outcomes(sessions, configCount) {
  if (!sessions.some((session) => session.outcome !== undefined)) return undefined
  const groups = new Map()
  for (const session of sessions) {
    const outcome = session.outcome ?? null
    if (!groups.has(outcome)) groups.set(outcome, [])
    groups.get(outcome).push(session)
  }
  const names = [...groups.keys()].sort((a, b) => (a === null) - (b === null) || (a < b ? -1 : a > b ? 1 : 0))
  return names.map((outcome) => ({
    outcome,
    configs: Array.from({ length: configCount }, (_, i) => outcomeFigures(groups.get(outcome).map((s) => ({ calls: s.calls, first: s.reminders[i][0]?.call ?? null })))),
  }))
}

/** The whole report. `configs` are `{ label, config }`, `replay` the finished Replay. */
export function buildReport({ configs, sessions, replay, errors, warnings, outcomeField }) {
  const report = {
    configs: configs.map(({ label, config }, i) => ({ label, config, thresholds: replay.guards[i].thresholds })),
    sessions,
    runs: replay.runs.map(distribution),
    totals: configs.map((_, i) => totals(sessions, i)),
  }
  const groups = outcomes(sessions, configs.length)
  if (groups) report.outcomes = { field: outcomeField, groups }
  return Object.assign(report, { warnings, errors })
}
