// The replay report as text: per session with reminders (or, under --compare, with a difference)
// where they fire, then the run lengths per tool against the thresholds, then the totals.
import { isAbsolute, relative } from 'node:path'

import { reaching } from './report.js'

const LINE_CHARS = 72

/** Left-aligned columns; `right` names the columns aligned right. */
function table(rows, right = new Set()) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => String(row[c]).length)))
  return rows.map((row) => row.map((cell, c) => (right.has(c) ? String(cell).padStart(widths[c]) : String(cell).padEnd(widths[c]))).join('  ').trimEnd())
}

function firstLine(text) {
  const line = text.split('\n', 1)[0]
  return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line
}

/** A reminder's row: where it fires (the tool result's seq; the turn and step, after the lifecycle when the session was resumed), what and how. */
function reminderRow(reminder) {
  const where = reminder.lifecycle > 1 ? `${reminder.lifecycle}:${reminder.turn}.${reminder.step}` : `${reminder.turn}.${reminder.step}`
  return [reminder.seq, where, reminder.tool, reminder.tier, reminder.count, firstLine(reminder.text)]
}

const HEAD = ['seq', 'step', 'tool', 'tier', 'count', 'reminder']
const RIGHT = new Set([0, 4])
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`

/** `path` relative to the working directory when it lies under it. */
function shown(path) {
  const near = relative(process.cwd(), path)
  return near && !near.startsWith('..') && !isAbsolute(near) ? near : path
}

function sessionTitle(session) {
  const sub = session.origin === 'subagent' ? `, subagent of ${session.parentSession}` : ''
  return `${session.id}  ${shown(session.file)}  (${plural(session.events, 'event')}, ${plural(session.calls, 'call')}${sub})`
}

/** The text report of `report`. */
export function textReport(report) {
  const out = []
  const compare = report.configs.length === 2
  let quiet = 0
  for (const session of report.sessions) {
    // Under --compare, the reminders the second config adds (+) and removes (-).
    const rows = compare
      ? [...session.added.map((r) => ['+', ...reminderRow(r)]), ...session.removed.map((r) => ['-', ...reminderRow(r)])].sort((a, b) => a[1] - b[1])
      : session.reminders[0].map(reminderRow)
    if (rows.length === 0) {
      quiet++
      continue
    }
    out.push(sessionTitle(session))
    if (compare) out.push(`  ${report.configs.map((c, i) => `${c.label}: ${plural(session.reminders[i].length, 'reminder')}`).join(';  ')}`)
    const head = compare ? ['', ...HEAD] : HEAD
    const right = compare ? new Set([...RIGHT].map((c) => c + 1)) : RIGHT
    out.push(...table([head, ...rows], right).map((line) => `  ${line}`), '')
  }
  if (quiet > 0) out.push(compare ? `${plural(quiet, 'session')} with the same reminders under both configs` : `${plural(quiet, 'session')} without reminders`, '')
  report.configs.forEach((config, i) => {
    if (i === 1 && JSON.stringify(report.runs[1]) === JSON.stringify(report.runs[0]) && sameList(config.thresholds, report.configs[0].thresholds)) return
    out.push(`Runs of identical consecutive calls (${config.label}: thresholds ${config.thresholds.join(', ')})`)
    const tools = report.runs[i]
    if (tools.length === 0) {
      out.push('  no tracked tool calls', '')
      return
    }
    const rows = [['tool', 'calls', 'runs', 'max', ...config.thresholds.map((t) => `>=${t}`)]]
    for (const entry of tools) rows.push([entry.tool, entry.calls, entry.runs, entry.max, ...config.thresholds.map((t) => reaching(entry, t))])
    out.push(...table(rows, new Set(rows[0].map((_, c) => c).slice(1))).map((line) => `  ${line}`), '')
  })
  report.configs.forEach((config, i) => {
    const t = report.totals[i]
    const { sessions, calls, reminders, ...tiers } = t
    const byTier = Object.entries(tiers).map(([tier, n]) => `${n} ${tier}`).join(', ')
    out.push(`Totals (${config.label}): ${plural(sessions, 'session')}, ${plural(calls, 'call')}, ${plural(reminders, 'reminder')} (${byTier})`)
  })
  if (report.errors.length) out.push(`${plural(report.errors.length, 'input')} could not be read (see above)`)
  return `${out.join('\n')}\n`
}

function sameList(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i])
}
