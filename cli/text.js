// The replay report as text: per session (a harness log, or a trajectory) with reminders (or, under --compare, with a difference)
// where they fire, then the run lengths per tool against the thresholds, the figures per outcome
// when runs say how they ended, and the totals.
import { reaching, sessionPlace } from './report.js'

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

function sessionTitle(session) {
  const sub = session.origin !== 'subagent' ? '' : session.parentSession === undefined ? ', subagent' : `, subagent of ${session.parentSession}`
  const outcome = session.outcome === undefined ? '' : `, ${session.outcome}`
  const events = plural(session.events, session.format === 'harness' ? 'event' : 'message')
  return `${session.id}  ${sessionPlace(session)}  (${events}, ${plural(session.calls, 'call')}${sub}${outcome})`
}

const percent = (share) => `${(share * 100).toFixed(1)} %`

/** The figures per outcome and config: reminded runs, where the first reminder fired, the calls after it. */
function outcomeTable(report) {
  const { field, groups } = report.outcomes
  const rows = [['outcome', 'sessions', 'config', 'reminded', 'first reminder (median)', 'calls after']]
  for (const { outcome, configs } of groups) {
    configs.forEach((figures, i) => {
      const first = figures.firstCall === null ? '-' : `call ${figures.firstCall}, ${percent(figures.firstFraction)} in`
      rows.push([i ? '' : (outcome ?? '(none)'), i ? '' : figures.sessions, report.configs[i].label, `${figures.reminded} (${percent(figures.share)})`, first, figures.callsAfter])
    })
  }
  return [`Sessions by how they ended (field ${JSON.stringify(field)}; first reminder: its call, and how far into the session)`, ...table(rows, new Set([1, 5])).map((line) => `  ${line}`), '']
}

/** The text report of `report`. */
export function textReport(report) {
  const out = []
  const compare = report.configs.length === 2
  if (compare) out.push(`+ a reminder ${report.configs[1].label} adds, - one it removes (against ${report.configs[0].label})`, '')
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
  if (report.outcomes) out.push(...outcomeTable(report))
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
