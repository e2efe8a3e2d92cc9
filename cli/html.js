// The replay report as one self-contained HTML page: inline SVG and CSS, no script, nothing
// fetched. A histogram of run lengths per tool with each config's thresholds marked, a timeline
// per session with its reminders, the figures per outcome when sessions say how they ended, and
// under --compare the two configs side by side.
import { TIERS, TIMELINE_BINS, reaching, sessionPlace } from './report.js'

const TOOLS_SHOWN = 12
const SESSIONS_SHOWN = 40
// Longer runs share the last bar.
const LONGEST_BAR = 30
// The configs' colours (lines, lanes, labels) are none of the tiers' (the reminders' dots).
const COLORS = ['#2c3e50', '#2470b3']
export const TIER_COLORS = { gentle: '#e6a100', detailed: '#c0392b', cycle: '#7d3c98', similar: '#16a085', noProgress: '#2e86c1', failure: '#d35400', stop: '#000000' }
const PROMPT_COLOR = '#27ae60'

/** 1234 as 1.2k, 10000 as 10k: axis labels and bar counts in a few characters. */
const compact = (n) => (n < 1000 ? String(n) : n < 1e6 ? `${+(n / 1e3).toFixed(n < 1e4 ? 1 : 0)}k` : `${+(n / 1e6).toFixed(n < 1e7 ? 1 : 0)}M`)
const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`

/** One tool's histogram: runs per length (log scale, numbered), each config's thresholds as vertical lines. */
function histogram(entry, configs) {
  const width = 380
  const height = 170
  const left = 34
  const bottom = 34
  const bars = Math.min(Math.max(entry.max, configs.flatMap((c) => c.thresholds).reduce((a, b) => Math.max(a, b), 0)), LONGEST_BAR)
  const counts = Array.from({ length: bars + 1 }, () => 0)
  for (const [length, runs] of Object.entries(entry.lengths)) counts[Math.min(Number(length), bars)] += runs
  const peak = Math.max(...counts)
  const top = Math.log10(1 + Math.max(peak, 9))
  const step = (width - left - 6) / bars
  const x = (length) => left + (length - 1) * step
  const y = (n) => height - bottom - (Math.log10(1 + n) / top) * (height - bottom - 20)
  const parts = []
  // The y axis: runs at each power of ten up to the tallest bar.
  for (let tick = 1; tick <= Math.max(peak, 1); tick *= 10) {
    parts.push(`<line x1="${left - 3}" x2="${width - 6}" y1="${y(tick)}" y2="${y(tick)}" stroke="#e5e5e5"/><text class="tick" x="${left - 5}" y="${y(tick) + 3}" text-anchor="end">${compact(tick)}</text>`)
  }
  for (let length = 1; length <= bars; length++) {
    if (counts[length] === 0) continue
    const label = length === bars && entry.max > bars ? `>= ${bars}` : `${length}`
    parts.push(`<rect class="bar" x="${x(length) + 1}" y="${y(counts[length])}" width="${Math.max(step - 2, 1)}" height="${height - bottom - y(counts[length])}" fill="#7f8c8d"><title>${plural(counts[length], 'run')} of ${label} calls</title></rect>`)
    // Each bar's count above it, where there is room for the digits.
    if (step >= compact(counts[length]).length * 6 + 2) parts.push(`<text class="count" x="${x(length) + step / 2}" y="${y(counts[length]) - 3}" text-anchor="middle">${compact(counts[length])}</text>`)
  }
  configs.forEach((config, i) => {
    for (const threshold of config.thresholds) {
      if (threshold > bars) continue
      const at = x(threshold)
      parts.push(`<line class="threshold" data-config="${i}" x1="${at}" x2="${at}" y1="4" y2="${height - bottom}" stroke="${COLORS[i]}" stroke-width="2"${i ? ' stroke-dasharray="5 3"' : ''}><title>${escape(config.label)}: threshold ${threshold} catches ${plural(reaching(entry, threshold), 'run')}</title></line>`)
    }
  })
  // The x axis: run lengths, every one when they are few, else every fifth.
  const every = bars <= 12 ? 1 : 5
  for (let t = 1; t <= bars; t++) {
    if (t !== 1 && t % every !== 0) continue
    parts.push(`<text class="tick" x="${x(t) + step / 2}" y="${height - bottom + 12}" text-anchor="middle">${t === bars && entry.max > bars ? `${t}+` : t}</text>`)
  }
  parts.push(`<line x1="${left}" x2="${width - 6}" y1="${height - bottom}" y2="${height - bottom}" stroke="#555"/><line x1="${left}" x2="${left}" y1="8" y2="${height - bottom}" stroke="#555"/>`)
  parts.push(`<text x="${left + (width - left) / 2}" y="${height - 4}" text-anchor="middle">calls in a row</text><text x="4" y="10">runs</text>`)
  return `<figure><figcaption><b>${escape(entry.tool)}</b> ${plural(entry.calls, 'call')}, ${plural(entry.runs, 'run')}, longest ${entry.max}</figcaption>
<svg class="histogram" data-tool="${escape(entry.tool)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="run lengths of ${escape(entry.tool)}">${parts.join('')}</svg></figure>`
}

/** One session's timeline: call density along the log, user prompts, and each config's reminders in its own lane. */
function timeline(session, configs) {
  const width = 760
  const lane = 18
  const densityHeight = 26
  const height = densityHeight + lane * configs.length + 16
  const scale = (seq) => 4 + (seq / Math.max(session.events, 1)) * (width - 8)
  const parts = []
  const peak = Math.max(...session.density, 1)
  const binWidth = (width - 8) / TIMELINE_BINS
  session.density.forEach((n, i) => {
    if (n) parts.push(`<rect class="calls" x="${4 + i * binWidth}" y="${densityHeight - (n / peak) * (densityHeight - 4)}" width="${binWidth}" height="${(n / peak) * (densityHeight - 4)}" fill="#bdc3c7"/>`)
  })
  for (const seq of session.prompts) parts.push(`<line class="prompt" x1="${scale(seq)}" x2="${scale(seq)}" y1="0" y2="${height - 14}" stroke="${PROMPT_COLOR}" stroke-width="1.5"><title>user prompt at seq ${seq}</title></line>`)
  configs.forEach((config, i) => {
    const middle = densityHeight + lane * i + lane / 2
    parts.push(`<line x1="4" x2="${width - 4}" y1="${middle}" y2="${middle}" stroke="${COLORS[i]}" stroke-opacity="0.25"/>`)
    for (const reminder of session.reminders[i]) {
      parts.push(`<circle class="reminder" data-config="${i}" data-tier="${reminder.tier}" cx="${scale(reminder.seq)}" cy="${middle}" r="5" fill="${TIER_COLORS[reminder.tier]}" stroke="${COLORS[i]}"><title>${escape(`${config.label}: seq ${reminder.seq}, ${reminder.tool} × ${reminder.count}, ${reminder.tier}`)}</title></circle>`)
    }
  })
  parts.push(`<text x="4" y="${height - 3}">seq 0</text><text x="${width - 4}" y="${height - 3}" text-anchor="end">seq ${session.events - 1}</text>`)
  const sub = session.origin !== 'subagent' ? '' : session.parentSession === undefined ? ' · subagent' : ` · subagent of ${escape(session.parentSession)}`
  const outcome = session.outcome === undefined ? '' : ` · ${escape(session.outcome)}`
  const counts = configs.map((c, i) => `<span style="color:${COLORS[i]}">${escape(c.label)}: ${session.reminders[i].length}</span>`).join(' · ')
  return `<figure class="session"><figcaption><b>${escape(session.id)}</b>${sub}${outcome} · ${plural(session.calls, 'call')} · ${counts}<br><small>${escape(sessionPlace(session))}</small></figcaption>
<svg class="timeline" data-session="${escape(session.id)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="timeline of ${escape(session.id)}">${parts.join('')}</svg></figure>`
}

function totalsTable(report) {
  const head = report.configs.map((c, i) => `<th style="color:${COLORS[i]}">${escape(c.label)}</th>`).join('')
  const row = (name, f) => `<tr><th>${name}</th>${report.configs.map((_, i) => `<td>${escape(f(i))}</td>`).join('')}</tr>`
  return `<table class="totals"><tr><th></th>${head}</tr>
${row('thresholds', (i) => report.configs[i].thresholds.join(', '))}
${row('config', (i) => JSON.stringify(report.configs[i].config))}
${row('sessions', (i) => report.totals[i].sessions)}
${row('calls', (i) => report.totals[i].calls)}
${row('reminders', (i) => report.totals[i].reminders)}
${row(TIERS.join(' · '), (i) => TIERS.map((tier) => report.totals[i][tier]).join(' · '))}
</table>`
}

const percent = (share) => `${(share * 100).toFixed(1)} %`

/** The figures per outcome: per group and config, the sessions reminded, where the first reminder fired, the calls after it. */
function outcomeTable(report) {
  const head = '<tr><th>outcome</th><th>sessions</th><th>config</th><th>reminded</th><th>first reminder (median call, how far in)</th><th>calls after it</th></tr>'
  const rows = report.outcomes.groups.flatMap(({ outcome, configs }) => configs.map((f, i) => `<tr>${i ? '' : `<th rowspan="${configs.length}">${escape(outcome ?? '(none)')}</th><td rowspan="${configs.length}">${f.sessions}</td>`}<td style="color:${COLORS[i]}">${escape(report.configs[i].label)}</td><td>${f.reminded} (${percent(f.share)})</td><td>${f.firstCall === null ? '–' : `call ${f.firstCall}, ${percent(f.firstFraction)}`}</td><td>${f.callsAfter}</td></tr>`))
  return `<h2>Sessions by how they ended (field ${escape(JSON.stringify(report.outcomes.field))})</h2>
<table class="totals outcomes">${head}
${rows.join('\n')}
</table>`
}

/** The HTML page of `report`. */
export function htmlReport(report) {
  const compare = report.configs.length === 2
  const tools = report.runs[0].slice(0, TOOLS_SHOWN)
  const withReminders = report.sessions
    .filter((s) => s.reminders.some((list) => list.length > 0))
    .sort((a, b) => b.reminders.reduce((n, l) => n + l.length, 0) - a.reminders.reduce((n, l) => n + l.length, 0))
  const shown = withReminders.slice(0, SESSIONS_SHOWN)
  const legend = `<p class="legend">${report.configs.map((c, i) => `<span style="color:${COLORS[i]}">${i ? '- - -' : '———'} ${escape(c.label)}</span>`).join(' &nbsp; ')} &nbsp; reminders: ${TIERS.map((tier) => `<span class="tier" style="color:${TIER_COLORS[tier]}">● ${tier}</span>`).join(' ')} &nbsp; <span style="color:${PROMPT_COLOR}">| user prompt</span></p>`
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>repeat-tool-guard replay</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; background: #fff; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
.grid { display: flex; flex-wrap: wrap; gap: 12px; }
figure { margin: 0 0 10px; } figcaption { font-size: 12px; }
svg text { font-size: 10px; fill: #555; } svg text.count { fill: #333; }
table.totals { border-collapse: collapse; } table.totals th, table.totals td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; font-weight: normal; }
table.totals td { font-family: ui-monospace, monospace; font-size: 12px; max-width: 420px; overflow-wrap: anywhere; }
.legend { font-size: 12px; }
</style></head><body>
<h1>repeat-tool-guard replay${compare ? ': two configs side by side' : ''}</h1>
${totalsTable(report)}
${report.outcomes ? outcomeTable(report) : ''}
${report.errors.length ? `<p class="errors">${plural(report.errors.length, 'input')} could not be read: ${report.errors.map((e) => escape(e.message)).join('; ')}</p>` : ''}
<h2>Run lengths of identical consecutive calls, per tool (runs on a log scale; a threshold catches the runs right of its line)</h2>
${legend}
<div class="grid">${tools.map((entry) => histogram(entry, report.configs)).join('\n') || '<p>No tracked tool calls.</p>'}</div>
${report.runs[0].length > TOOLS_SHOWN ? `<p>${report.runs[0].length - TOOLS_SHOWN} more tools in the text and JSON reports.</p>` : ''}
<h2>Sessions with reminders${compare ? ' (one lane per config)' : ''}</h2>
${legend}
${shown.map((session) => timeline(session, report.configs)).join('\n') || '<p>No session has a reminder.</p>'}
${withReminders.length > shown.length ? `<p>${withReminders.length - shown.length} more sessions with reminders in the text and JSON reports.</p>` : ''}
</body></html>
`
}
