// The replay command against the live plugin: sessions recorded with the real deepseek-harness
// 0.1.0-rc.8 loop and JSONL persistence (loops, user prompts, cycles, an excluded tool, changing
// results, a subagent, a resumed session, two agents at once, a torn tail), then replayed by
// `dsh-repeat-tool-guard replay --json`: the replay must report exactly the reminders the live
// run delivered, under each config. Runs on Node >= 22.19 (the harness needs it).
import test from 'ava'
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { record, storedLength } from '../support/recorded.mjs'

const BIN = fileURLToPath(new URL('../../cli/bin.js', import.meta.url))
const run = promisify(execFile)

async function replay(args) {
  const { stdout } = await run(process.execPath, [BIN, 'replay', ...args], { maxBuffer: 64 << 20 })
  return JSON.parse(stdout)
}

const CONFIGS = [
  ['defaults', {}, 'zstd'],
  ['custom thresholds', { thresholds: [2, 4] }, 'none'],
  ['cycles', { cycles: { maxPeriod: 3, repeats: 2 } }, 'zstd'],
  ['overrides and exclude', { overrides: [{ tools: ['grep'], thresholds: [2, 3] }], exclude: ['todo_write'] }, 'none'],
  ['repeatEvery with include', { thresholds: [3], repeatEvery: 2, include: ['probe', 'grep', 'poll'] }, 'zstd'],
  ['sameResultOnly', { sameResultOnly: true, thresholds: [2, 3] }, 'none'],
  // The resumed session's chain goes on across the restart, live and in the replay.
  ['resume, ignoreArguments and similar', { resume: true, thresholds: [3, 5], ignoreArguments: [{ tools: ['*'], keys: ['q'] }], similar: { minCalls: 3, similarity: 0.5 } }, 'zstd'],
]

for (const [title, config, compression] of CONFIGS) {
  test(`replay reports exactly the live reminders: ${title} (${compression === 'zstd' ? 'zstd' : 'raw'} logs)`, async (t) => {
    const root = await mkdtemp(join(tmpdir(), 'replay-'))
    t.teardown(() => rm(root, { recursive: true, force: true }))
    const { live, events } = await record(root, config, { compression })
    const file = join(root, 'config.json')
    await writeFile(file, JSON.stringify(config))
    const report = await replay([root, '--config', file, '--json'])
    t.deepEqual(report.errors, [])
    t.deepEqual(report.sessions.map((s) => s.id).sort(), ['child-1', 'cycler', 'looper', 'parent', 'resumed'])
    const torn = await storedLength(root, 'looper', compression)
    t.true(torn < events.looper.length, 'the torn tail lost events')
    for (const session of report.sessions) {
      const kept = session.id === 'looper' ? torn : session.events
      const expected = (live[session.id] ?? []).filter((reminder) => reminder.seq < kept)
      const replayed = session.reminders[0].map(({ seq, tool, tier, count, text }) => ({ seq, tool, tier, count, text }))
      t.deepEqual(replayed, expected, `session ${session.id}`)
      if (session.id !== 'looper') t.is(kept, events[session.id].length, `${session.id} is read whole`)
    }
    const all = Object.values(live).flat()
    t.true(all.length >= 5, 'the live run delivered reminders to compare')
    t.true(report.sessions.find((s) => s.id === 'resumed').reminders[0].some((r) => r.lifecycle === 2), 'the resumed session fires in its second lifecycle')
    if (config.cycles) t.true(all.some((r) => r.tier === 'cycle'), 'a cycle reminder fired')
  })
}

test('the torn raw log loses the reminder of the record it was cut in, as the live log on disk does', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'replay-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const { live, events } = await record(root, {}, { compression: 'none' })
  const report = await replay([root, '--json'])
  const looper = report.sessions.find((s) => s.id === 'looper')
  const lastResult = events.looper.findLast((e) => e.type === 'tool/result')
  t.is(await storedLength(root, 'looper', 'none'), lastResult.seq, 'the log ends just before the torn record')
  t.is(live.looper.at(-1).seq, lastResult.seq, 'the live run reminded at that call')
  t.deepEqual(looper.reminders[0].map((r) => r.seq), live.looper.slice(0, -1).map((r) => r.seq))
})
