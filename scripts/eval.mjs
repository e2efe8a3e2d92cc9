// Loop detection measured on agent trajectories (docs/DETECTION.md): each config in CONFIGS
// (scripts/eval-configs.mjs) goes
// through the guard as the replay command runs it (its readers and Replay), and each rule in
// scripts/peers.mjs over the same calls; the table gives, per source and overall, the share of the
// sessions that ran out of budget, failed and were resolved that each reminds, and on the budget
// sessions the first reminder's median position and the calls made after it. The reference
// plugin's own listeners get the same calls too: their reminders must equal the defaults', call
// for call (the exit code is 1 when they do not).
// Run: npm run eval [-- [--distinct-cuts] <dir>]. The directory (searched as the replay searches one)
// defaults to the shared set, shared/datasets/agent-trajectories beside the checkout. The shared set
// cuts a result past 2,000 characters and ends it with `sha1 <16 hex>]`, the digest of the whole
// result; the guard reads that digest as any hexadecimal id, a volatile part, so two cut results
// that share their first 2,000 characters compare equal. --distinct-cuts writes the digest's digits
// as letters first, so that cut results that differ stay different (a bound from the other side:
// whole results might have compared equal once their own volatile parts were removed).
import { existsSync } from 'node:fs'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import * as reference from '@deepseek-ai/dsh-repeat-tool-reminder'

import { listenersOf } from '../__test__/support/listeners.mjs'
import { readRuns } from '../cli/formats/index.js'
import { Replay } from '../cli/replay.js'
import { outcomeFigures } from '../cli/report.js'
import { SessionReader, findLogs } from '../cli/sessions.js'
import { CONFIGS } from './eval-configs.mjs'
import { PEERS, firstFiring } from './peers.mjs'
import { spread } from './spread.mjs'

const OUTCOMES = ['budget', 'failed', 'resolved']

const root = fileURLToPath(new URL('..', import.meta.url))
const args = process.argv.slice(2)
const FLAGS = ['--distinct-cuts', '--per-source', '--markdown']
const distinctCuts = args.includes('--distinct-cuts')
// The table: all sources' rows, aligned for a terminal; --per-source adds each source's, and
// --markdown writes every row as the Markdown table docs/DETECTION.md holds.
const markdown = args.includes('--markdown')
const perSource = markdown || args.includes('--per-source')
const dir = args.find((arg) => !FLAGS.includes(arg)) ?? join(root, '..', 'shared', 'datasets', 'agent-trajectories')
if (!existsSync(dir)) {
  process.stderr.write(`eval: no trajectories at ${dir}; name a directory: npm run eval -- <dir>\n`)
  process.exit(2)
}

const referenceListeners = listenersOf(reference, {})

/** `value` with each cut result's digest (`sha1 <16 hex>]`) written in letters, for --distinct-cuts. */
function distinct(value) {
  if (typeof value === 'string') return value.replace(/sha1 ([0-9a-f]{16})\]/g, (_, hex) => `sha1 ${hex.replace(/[0-9]/g, (d) => 'ghijklmnop'[d])}]`)
  if (Array.isArray(value)) return value.map(distinct)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, distinct(item)]))
}

/** The reference plugin's reminders over `inputs` as `call|text`, its listeners called as the harness calls them. */
async function referenceReminders(id, inputs) {
  let agent = { id }
  let calls = 0
  const reminders = []
  for (const input of inputs) {
    // A new lifecycle is a new agent, whose chain starts empty.
    if (input.kind === 'lifecycle') agent = { id }
    if (input.kind === 'prompt') await referenceListeners['agent/pre-step']({ agent, messages: [{ source: { kind: 'user' } }] }, async () => ({ kind: 'continue' }))
    if (input.kind !== 'call') continue
    calls++
    const decision = await referenceListeners['tools/post-execute']({ agent, name: input.tool, arguments: input.args }, input.result, async () => ({ kind: 'accept' }))
    for (const message of decision.additionalContexts ?? []) reminders.push(`${calls}|${message.content[0].text}`)
  }
  return reminders
}

const started = performance.now()
const detectors = [...CONFIGS.map(({ label }) => label), ...PEERS.map(({ label }) => `${label} †`)]
const replay = new Replay(CONFIGS.map(({ config }) => config))
const reader = new SessionReader()
// Per source: per detector, the sessions as `{ outcome, calls, first }`.
const sources = new Map()
const problems = []
const differing = []
let calls = 0
let referenceCount = 0
for (const { path } of await findLogs([dir])) {
  const report = (message) => problems.push(message)
  for await (const run of readRuns(path, { reader, onBytes: () => {}, warn: report, fail: (error) => report(error.message) })) {
    const inputs = []
    for await (const input of run.inputs) inputs.push(distinctCuts && input.kind === 'call' ? { ...input, result: distinct(input.result) } : input)
    const replayed = replay.start(run.meta)
    for (const input of inputs) replayed.feed(input)
    const { reminders, calls: made } = replayed.finish()
    calls += made
    const expected = await referenceReminders(run.meta.id, inputs)
    referenceCount += expected.length
    if (JSON.stringify(expected) !== JSON.stringify(reminders[0].map((r) => `${r.call}|${r.text}`))) differing.push(run.meta.id)
    const firsts = [...reminders.map((list) => list[0]?.call ?? null), ...PEERS.map((peer) => firstFiring(peer, inputs))]
    const source = String(run.meta.fields?.source ?? basename(path))
    if (!sources.has(source)) sources.set(source, detectors.map(() => []))
    firsts.forEach((first, i) => sources.get(source)[i].push({ outcome: run.meta.fields?.outcome, calls: made, first }))
  }
}
const seconds = (performance.now() - started) / 1000

const percent = (share) => `${(share * 100).toFixed(1)} %`
const rows = [['source', 'detector', ...OUTCOMES.map((o) => `${o} reminded`), 'first reminder, budget (median call, how far in)', 'calls after it, budget']]
const all = detectors.map(() => [])
// Each session's source, in the order of `all`'s lists.
const strata = []
for (const [source, lists] of [...[...sources].sort(([a], [b]) => (a < b ? -1 : 1)), ['all', all]]) {
  if (source !== 'all') strata.push(...lists[0].map(() => source))
  lists.forEach((sessions, i) => {
    if (source !== 'all') all[i].push(...sessions)
    const figures = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, outcomeFigures(sessions.filter((s) => s.outcome === outcome))]))
    const shares = OUTCOMES.map((o) => (figures[o].sessions ? `${figures[o].reminded}/${figures[o].sessions} (${percent(figures[o].share)})` : '–'))
    const budget = figures.budget
    const first = budget.firstCall === null ? '–' : `${budget.firstCall} (${percent(budget.firstFraction)})`
    rows.push([i ? '' : `**${source}**`, detectors[i], ...shares, first, budget.sessions ? String(budget.callsAfter) : '–'])
  })
}
const count = [...sources.values()].reduce((n, lists) => n + lists[0].length, 0)
process.stdout.write(`${count} sessions, ${calls} calls, from ${dir}${distinctCuts ? ', cut results\' digests as words' : ''}; ${seconds.toFixed(1)} s\n\n`)
// All sources' rows first; a source's only on request.
const [head, ...body] = rows
const shown = [head, ...body.slice(-detectors.length), ...(perSource ? body.slice(0, -detectors.length) : [])]
if (markdown) {
  process.stdout.write(`${shown.map((row, r) => `| ${row.join(' | ')} |${r === 0 ? `\n|${row.map((_, c) => (c < 2 ? ' --- |' : ' ---: |')).join('')}` : ''}`).join('\n')}\n\n`)
} else {
  // Short titles in a terminal: what each column means is in DETECTION.md's "How to read the table".
  const titles = ['source', 'detector', ...OUTCOMES, 'first (budget)', 'after (budget)']
  const plain = [titles, ...shown.slice(1).map((row) => row.map((cell) => cell.replace(/\*\*/g, '')))]
  const widths = plain[0].map((_, c) => Math.max(...plain.map((row) => row[c].length)))
  // Figures right-aligned, names left.
  const line = (row) => row.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ').trimEnd()
  process.stdout.write(`${plain.map(line).join('\n')}\n\n`)
}
process.stdout.write('† re-implemented from its documented rule (scripts/peers.mjs names where)\n')
process.stdout.write(`How to read it: docs/DETECTION.md, "How to read the table"${perSource ? '' : '; each source\'s rows: --per-source (Markdown: --markdown)'}\n`)
// Per detector, on the budget sessions both it and the defaults remind: its first reminder before,
// at or after the defaults', and the median of how far into those sessions each came (all sources).
process.stdout.write(`\nFirst reminder against the defaults' on the budget sessions both remind (earlier / at the same call / later; median how far in, against the defaults'):\n`)
all.forEach((sessions, i) => {
  if (i === 0) return
  const both = sessions.map((s, j) => [s, all[0][j]]).filter(([s, d]) => s.outcome === 'budget' && s.first !== null && d.first !== null)
  const [earlier, same, later] = [(a, b) => a < b, (a, b) => a === b, (a, b) => a > b].map((test) => both.filter(([s, d]) => test(s.first, d.first)).length)
  const [own, defaults] = [0, 1].map((k) => outcomeFigures(both.map((pair) => pair[k])).firstFraction)
  const medians = both.length ? `; ${percent(own)} against ${percent(defaults)}` : ''
  process.stdout.write(`- ${detectors[i]}: ${earlier} / ${same} / ${later}${medians}\n`)
})
// The target the recommended set is held to, here for any config: at least twice the defaults'
// share of budget sessions, at most 1 % of resolved ones.
const target = (shares, i) => shares[i].budget >= 2 * shares[0].budget && shares[i].resolved <= 0.01
const { intervals, held } = spread(all.slice(0, CONFIGS.length), strata, { outcomes: OUTCOMES, holds: target })
process.stdout.write(`\nSpread over 1,000 resamples of the sessions (each source's sessions of each outcome drawn again with replacement): the shares that 90 % of the resamples fall within, and how many resamples meet the target (twice the defaults' share of budget sessions, at most 1 % of resolved ones):\n`)
intervals.forEach((byOutcome, i) => {
  const shown = OUTCOMES.map((o) => byOutcome[o] && `${o} ${byOutcome[o].map((share) => (share * 100).toFixed(1)).join('–')} %`).filter(Boolean)
  process.stdout.write(`- ${detectors[i]}: ${shown.join(', ')}${i ? `; target met in ${Math.round(held[i] * 100)} %` : ''}\n`)
})
const checked = `The reference plugin (${reference.name}) given the same calls: ${referenceCount} reminders`
const against = JSON.stringify(CONFIGS[0].label)
process.stdout.write(differing.length ? `${checked}, not those of ${against} in ${differing.length} sessions: ${differing.join(', ')}\n` : `${checked}, those of ${against} call for call and text for text\n`)
for (const problem of problems) process.stderr.write(`eval: ${problem}\n`)
process.exitCode = problems.length || differing.length ? 1 : 0
