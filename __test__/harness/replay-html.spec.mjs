// The replay command's HTML report in a real headless Chromium: recorded sessions and a few
// trajectories with outcomes replayed under two configs (--compare), the page loaded from disk
// with nothing else reachable, then checked for console errors, its charts (one histogram per tool
// with numbered axes and both configs' thresholds, a timeline per session with reminders, one lane
// per config, every tier in its own colour), the outcome table, and a screenshot. Without a
// Chromium the test prints "skip:" with what to install. Runs on Node >= 22.19 (the harness needs it).
import test from 'ava'
import { TIERS } from '../../cli/report.js'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { findChromium, openPage } from '../support/chromium.mjs'
import { record, storedLength } from '../support/recorded.mjs'

const BIN = fileURLToPath(new URL('../../cli/bin.js', import.meta.url))
const run = promisify(execFile)
const chromium = findChromium()

if (!chromium) console.log('skip: the HTML report browser check needs Chromium (Debian: apt-get install -y chromium; or set CHROMIUM to its path)')

const check = chromium ? test : test.skip

check('the --compare HTML report renders its charts in headless Chromium without console errors', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'replay-html-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const { live } = await record(join(root, 'logs'), {}, { compression: 'zstd' })
  // Trajectories that end in two ways; the second config's `similar` tier fires on the near-identical greps.
  const chat = (i, name, args) => [{ role: 'assistant', tool_calls: [{ id: `${i}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }] }, { role: 'tool', tool_call_id: `${i}`, content: 'no match' }]
  const trajectory = (id, outcome, calls) => JSON.stringify({ id, outcome, messages: [{ role: 'user', content: 'find it' }, ...calls.flatMap(([name, args], i) => chat(i, name, args))] })
  await writeFile(join(root, 'runs.jsonl'), [
    trajectory('stuck', 'budget', Array.from({ length: 6 }, (_, i) => ['grep', { pattern: `needle-${i}` }])),
    trajectory('done', 'resolved', [['read', { path: 'a' }], ['read', { path: 'b' }]]),
  ].join('\n'))
  await writeFile(join(root, 'other.yml'), 'thresholds: [2, 4]\ncycles: { maxPeriod: 3, repeats: 2 }\nsimilar: { minCalls: 4, similarity: 0.8 }\n')
  const html = join(root, 'report.html')
  // Run where the inputs are, as a user would: the page names them by relative paths.
  const { stdout } = await run(process.execPath, [BIN, 'replay', 'logs', 'runs.jsonl', '--compare', 'other.yml', '--html', 'report.html', '--json'], { cwd: root })
  const report = JSON.parse(stdout)
  const torn = await storedLength(join(root, 'logs'), 'looper', 'zstd')
  const text = await readFile(html, 'utf8')
  t.notRegex(text, /<script|https?:\/\//, 'no script, nothing fetched')

  const page = await openPage(chromium, pathToFileURL(html).href)
  t.teardown(() => page.close())
  const dom = await page.evaluate(`(() => {
    const all = (selector) => [...document.querySelectorAll(selector)]
    return {
      histograms: all('svg.histogram').map((svg) => ({
        tool: svg.dataset.tool,
        bars: svg.querySelectorAll('rect.bar').length,
        thresholds: [0, 1].map((i) => svg.querySelectorAll('line.threshold[data-config="' + i + '"]').length),
        ticks: [...svg.querySelectorAll('text.tick')].map((text) => text.textContent),
        counts: [...svg.querySelectorAll('text.count')].map((text) => text.textContent),
        width: svg.getBoundingClientRect().width,
      })),
      timelines: all('svg.timeline').map((svg) => ({
        session: svg.dataset.session,
        reminders: [0, 1].map((i) => svg.querySelectorAll('circle.reminder[data-config="' + i + '"]').length),
        height: svg.getBoundingClientRect().height,
      })),
      dots: all('circle.reminder').map((c) => ({ tier: c.dataset.tier, fill: getComputedStyle(c).fill })),
      lanes: [0, 1].map((i) => getComputedStyle(document.querySelector('line.threshold[data-config="' + i + '"]')).stroke),
      legend: all('.legend')[0].querySelectorAll('.tier').length,
      totals: all('table.totals th').map((th) => th.textContent),
      tierTotals: [...all('table.totals tr').find((tr) => tr.querySelector('th').textContent.includes('similar')).querySelectorAll('td')].map((td) => td.textContent),
      outcomes: all('table.outcomes tr').slice(1).map((tr) => [...tr.children].map((cell) => cell.textContent)),
      places: all('figure.session small').map((small) => small.textContent),
    }
  })()`)
  t.deepEqual(page.errors, [], "no console errors")
  t.deepEqual(dom.histograms.map((h) => h.tool), report.runs[0].map((r) => r.tool), 'one histogram per tool')
  for (const h of dom.histograms) {
    t.true(h.bars > 0 && h.width > 100, `${h.tool}: bars drawn`)
    t.deepEqual(h.thresholds, [3, 2], `${h.tool}: both configs' thresholds marked`)
    t.true(h.ticks.includes('1') && h.ticks.includes('5'), `${h.tool}: numbered axes (${h.ticks})`)
    t.true(h.counts.length > 0, `${h.tool}: bars carry their counts`)
  }
  // Every tier in the legend, the totals and the dots, each in its own colour, none a config's.
  const tiers = TIERS
  t.is(dom.legend, tiers.length)
  t.deepEqual(dom.tierTotals, report.totals.map((totals) => tiers.map((tier) => totals[tier]).join(' · ')))
  t.true(report.totals[1].similar > 0 && dom.dots.some((dot) => dot.tier === 'similar'), 'a similar reminder is drawn')
  const fills = new Map(dom.dots.map((dot) => [dot.tier, dot.fill]))
  t.is(new Set(fills.values()).size, fills.size, `one colour per tier: ${[...fills]}`)
  for (const lane of dom.lanes) t.false([...fills.values()].includes(lane), `config colour ${lane} is no tier's`)
  // The outcome groups, per config: the trajectories' two, and the sessions without an outcome.
  const percent = (share) => `${(share * 100).toFixed(1)} %`
  t.deepEqual(dom.outcomes, report.outcomes.groups.flatMap(({ outcome, configs }) => configs.map((f, i) => [
    ...(i ? [] : [outcome ?? '(none)', String(f.sessions)]),
    i ? 'other.yml' : 'defaults',
    `${f.reminded} (${percent(f.share)})`,
    f.firstCall === null ? '–' : `call ${f.firstCall}, ${percent(f.firstFraction)}`,
    String(f.callsAfter),
  ])))
  t.deepEqual(dom.outcomes.slice(0, 2), [['budget', '1', 'defaults', '0 (0.0 %)', '–', '0'], ['other.yml', '1 (100.0 %)', 'call 4, 66.7 %', '2']], 'similar fires at the fourth near-identical grep of six')
  t.true(dom.places.every((place) => !place.includes(root)), `relative paths: ${dom.places}`)
  t.true(dom.places.includes('runs.jsonl:1'))
  const withReminders = report.sessions.filter((s) => s.reminders.some((l) => l.length))
  t.deepEqual(dom.timelines.map((l) => l.session).sort(), withReminders.map((s) => s.id).sort(), 'a timeline per session with reminders')
  for (const line of dom.timelines) {
    const session = report.sessions.find((s) => s.id === line.session)
    t.deepEqual(line.reminders, session.reminders.map((l) => l.length), `${line.session}: each config's reminders in its lane`)
  }
  t.is(dom.timelines.find((l) => l.session === 'looper').reminders[0], live.looper.filter((r) => r.seq < torn).length)
  t.true(dom.totals.includes('other.yml'), 'the second config side by side')
  const png = await page.screenshot()
  t.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG screenshot')
  t.true(png.readUInt32BE(16) >= 900 && png.readUInt32BE(20) >= 400, 'of the whole page')
  if (process.env.REPLAY_SCREENSHOT) await writeFile(process.env.REPLAY_SCREENSHOT, png)
})
