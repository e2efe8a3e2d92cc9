// The replay command's HTML report in a real headless Chromium: recorded sessions replayed under
// two configs (--compare), the page loaded from disk with nothing else reachable, then checked for
// console errors, its charts (one histogram per tool with both configs' thresholds, a timeline per
// session with reminders, one lane per config) and a screenshot. Without a Chromium the test
// prints "skip:" with what to install. Runs on Node >= 22.19 (the harness needs it).
import test from 'ava'
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
  const other = join(root, 'other.yml')
  await writeFile(other, 'thresholds: [2, 4]\ncycles: { maxPeriod: 3, repeats: 2 }\n')
  const html = join(root, 'report.html')
  const { stdout } = await run(process.execPath, [BIN, 'replay', join(root, 'logs'), '--compare', other, '--html', html, '--json'])
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
        width: svg.getBoundingClientRect().width,
      })),
      timelines: all('svg.timeline').map((svg) => ({
        session: svg.dataset.session,
        reminders: [0, 1].map((i) => svg.querySelectorAll('circle.reminder[data-config="' + i + '"]').length),
        height: svg.getBoundingClientRect().height,
      })),
      totals: all('table.totals th').map((th) => th.textContent),
    }
  })()`)
  t.deepEqual(page.errors, [], "no console errors")
  t.deepEqual(dom.histograms.map((h) => h.tool), report.runs[0].map((r) => r.tool), 'one histogram per tool')
  for (const h of dom.histograms) {
    t.true(h.bars > 0 && h.width > 100, `${h.tool}: bars drawn`)
    t.deepEqual(h.thresholds, [3, 2], `${h.tool}: both configs' thresholds marked`)
  }
  const withReminders = report.sessions.filter((s) => s.reminders.some((l) => l.length))
  t.deepEqual(dom.timelines.map((l) => l.session).sort(), withReminders.map((s) => s.id).sort(), 'a timeline per session with reminders')
  for (const line of dom.timelines) {
    const session = report.sessions.find((s) => s.id === line.session)
    t.deepEqual(line.reminders, session.reminders.map((l) => l.length), `${line.session}: each config's reminders in its lane`)
  }
  t.is(dom.timelines.find((l) => l.session === 'looper').reminders[0], live.looper.filter((r) => r.seq < torn).length)
  t.true(dom.totals.includes(other), 'the second config side by side')
  const png = await page.screenshot()
  t.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG screenshot')
  t.true(png.readUInt32BE(16) >= 900 && png.readUInt32BE(20) >= 400, 'of the whole page')
  if (process.env.REPLAY_SCREENSHOT) await writeFile(process.env.REPLAY_SCREENSHOT, png)
})
