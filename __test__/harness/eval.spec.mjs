// `npm run eval` (scripts/eval.mjs) on a directory of trajectories made here: the table has a row
// per detector for each source and for all, the figures of the sessions it was given, and the
// reference plugin's own reminders checked against the defaults'. Node >= 22.19 (the reference
// plugin loads the harness's packages).
import test from 'ava'
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { CONFIGS } from '../../scripts/eval-configs.mjs'
import { PEERS } from '../../scripts/peers.mjs'

const EVAL = fileURLToPath(new URL('../../scripts/eval.mjs', import.meta.url))
const run = promisify(execFile)

test('the eval prints one table: per source and overall, our configs and the peers\' rules, and checks the reference', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'eval-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const call = (i, args) => [{ role: 'assistant', tool_calls: [{ id: `${i}`, type: 'function', function: { name: 'grep', arguments: JSON.stringify(args) } }] }, { role: 'tool', tool_call_id: `${i}`, content: 'none' }]
  const session = (id, source, outcome, calls) => JSON.stringify({ id, source, outcome, messages: [{ role: 'user', content: 'go' }, ...calls.flatMap((args, i) => call(i, args))] })
  const same = Array.from({ length: 6 }, () => ({ q: 1 }))
  const different = Array.from({ length: 6 }, (_, i) => ({ q: i }))
  await writeFile(join(dir, 'a.jsonl'), [session('a1', 'alpha', 'budget', same), session('a2', 'alpha', 'resolved', different)].join('\n'))
  await writeFile(join(dir, 'b.jsonl.json'), 'not searched: directories are searched for *.jsonl')
  await writeFile(join(dir, 'b.jsonl'), [session('b1', 'beta', 'budget', different), session('b2', 'beta', 'failed', same)].join('\n'))
  const { stdout } = await run(process.execPath, [EVAL, dir, '--markdown'])
  const lines = stdout.split('\n')
  t.regex(lines[0], new RegExp(`^4 sessions, 24 calls, from ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; [\\d.]+ s$`))
  const rows = lines.filter((line) => line.startsWith('| ')).slice(2).map((line) => line.slice(2, -2).split(' | '))
  const detectors = [...CONFIGS.map(({ label }) => label), ...PEERS.map(({ label }) => `${label} †`)]
  t.is(rows.length, 3 * detectors.length, 'alpha, beta and all')
  t.deepEqual(rows.slice(0, detectors.length).map((row) => row[1]), detectors, 'our configs, then the peers\' rules')
  t.deepEqual(rows.filter((row) => row[0]).map((row) => row[0]), ['**all**', '**alpha**', '**beta**'], 'all sources\' rows first')
  const all = rows.slice(0, detectors.length)
  t.deepEqual(all[0], ['**all**', 'defaults (3, 5, 8)', '1/2 (50.0 %)', '1/1 (100.0 %)', '0/1 (0.0 %)', '3 (50.0 %)', '3'])
  t.deepEqual(all.find((row) => row[1].startsWith('gemini-cli')).slice(2), ['1/2 (50.0 %)', '1/1 (100.0 %)', '0/1 (0.0 %)', '5 (83.3 %)', '1'])
  t.deepEqual(all.find((row) => row[1].startsWith('Roo Code')).slice(2), ['1/2 (50.0 %)', '1/1 (100.0 %)', '0/1 (0.0 %)', '4 (66.7 %)', '2'])
  t.deepEqual(all.find((row) => row[1].startsWith('AI SDK')).slice(2), ['1/2 (50.0 %)', '1/1 (100.0 %)', '0/1 (0.0 %)', '3 (50.0 %)', '3'])
  // The one budget session both remind (a1): gemini-cli's 5th call after the defaults' 3rd; our configs' at it.
  t.true(stdout.includes('- gemini-cli (5 in a row) †: 0 / 0 / 1; 83.3 % against 50.0 %\n'), stdout)
  t.true(stdout.includes("- profile 'recommended': 0 / 1 / 0; 50.0 % against 50.0 %\n"), stdout)
  t.true(stdout.includes('- opencode (3 in one response) †: 0 / 0 / 0\n'), 'no session both remind: no medians')
  t.true(stdout.includes('- AI SDK (hasRepeatedToolCalls 3) †: 0 / 1 / 0; 50.0 % against 50.0 %\n'), stdout)
  t.true(stdout.includes('The reference plugin (repeat-tool-reminder) given the same calls: 4 reminders, those of "defaults (3, 5, 8)" call for call and text for text\n'))
})

test('in a terminal the eval prints all sources\' rows aligned, each source\'s on request, and where to read how', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'eval-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const call = (i) => [{ role: 'assistant', tool_calls: [{ id: `${i}`, type: 'function', function: { name: 'grep', arguments: '{"q":1}' } }] }, { role: 'tool', tool_call_id: `${i}`, content: 'none' }]
  await writeFile(join(dir, 'a.jsonl'), [1, 2].map((n) => JSON.stringify({ id: `a${n}`, source: n === 1 ? 'alpha' : 'beta', outcome: 'budget', messages: [0, 1, 2, 3].flatMap(call) })).join('\n'))
  const detectors = CONFIGS.length + PEERS.length
  const table = (stdout) => stdout.split('\n\n')[1].split('\n')
  const plain = table((await run(process.execPath, [EVAL, dir])).stdout)
  t.is(plain.length, 1 + detectors, 'a title and all sources\' rows')
  t.regex(plain[0], /^source +detector +budget +failed +resolved +first \(budget\) +after \(budget\)$/)
  t.regex(plain[1], /^all +defaults \(3, 5, 8\) +2\/2 \(100\.0 %\) +– +– +3 \(75\.0 %\) +2$/)
  // Aligned: each row's budget figure ends where the title's column ends.
  const end = plain[0].indexOf('budget') + 'budget'.length
  for (const row of plain.slice(1)) t.regex(row.slice(0, end), /\d %\)$|–$/, row)
  const { stdout } = await run(process.execPath, [EVAL, dir, '--per-source'])
  t.is(table(stdout).length, 1 + 3 * detectors)
  t.true(stdout.includes('How to read it: docs/DETECTION.md, "How to read the table"\n'))
})
