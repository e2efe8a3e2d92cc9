// Harness session logs wherever and however they lie: a log copied or renamed out of the
// persistence layout, raw and zstd logs in one directory, a zstd log cut short, a log in an older
// shape (read through the backend, which upgrades it), and a large log, read as a stream with the
// progress moving within it. The logs are recorded once with the real deepseek-harness 0.1.0-rc.8
// loop, or written here line by line as the JSONL backend writes them. Node >= 22.19.
import test from 'ava'
import { cp, mkdir, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { main, EXIT } from '../../cli/main.js'
import { readRuns } from '../../cli/formats/index.js'
import { SessionReader } from '../../cli/sessions.js'
import { record } from '../support/recorded.mjs'

/** Runs `main` in this process: `{ code, stdout, stderr, report }` (`report` under --json); `now` is the progress clock. */
async function replay(args, { now } = {}) {
  let stdout = ''
  let stderr = ''
  const code = await main(['replay', ...args], { stdout: { write: (text) => { stdout += text } }, stderr: { write: (text) => { stderr += text } }, now })
  return { code, stdout, stderr, report: args.includes('--json') ? JSON.parse(stdout) : undefined }
}

const reminders = (session) => session.reminders[0].map(({ seq, tool, tier, count, text }) => ({ seq, tool, tier, count, text }))

let dir
let raw
let zstd
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-inputs-'))
  raw = join(dir, 'raw')
  zstd = join(dir, 'zstd')
  await record(raw, {}, { compression: 'none' })
  await record(zstd, {}, { compression: 'zstd' })
})
test.after.always(() => rm(dir, { recursive: true, force: true }))

const logOf = (root, id, compression = 'none') => join(root, '_no-cwd', id, compression === 'zstd' ? 'session.jsonl.zstd' : 'session.jsonl')

test('a log copied or renamed out of the persistence layout is read, its header naming the session', async (t) => {
  const loose = join(dir, 'loose')
  await mkdir(join(loose, 'elsewhere'), { recursive: true })
  await cp(logOf(raw, 'parent'), join(loose, 'parent-copy.jsonl'))
  await cp(logOf(zstd, 'parent', 'zstd'), join(loose, 'elsewhere', 'session.jsonl.zstd'))
  const { code, report } = await replay([loose, '--json'])
  t.is(code, EXIT.ok)
  t.deepEqual(report.errors, [])
  const inPlace = (await replay([logOf(raw, 'parent'), '--json'])).report.sessions[0]
  t.true(reminders(inPlace).length > 0)
  t.deepEqual(report.sessions.map((s) => s.id), ['parent', 'parent'])
  for (const session of report.sessions) t.deepEqual(reminders(session), reminders(inPlace), session.file)
})

test('a directory holding raw and zstd logs side by side reads both', async (t) => {
  const mixed = join(dir, 'mixed')
  await cp(raw, mixed, { recursive: true })
  await cp(logOf(zstd, 'parent', 'zstd'), logOf(mixed, 'parent', 'zstd'))
  const { code, report } = await replay([mixed, '--json'])
  t.is(code, EXIT.ok)
  t.deepEqual(report.errors, [])
  t.is(report.sessions.length, 6)
  const parents = report.sessions.filter((s) => s.id === 'parent')
  t.deepEqual(parents.map((s) => s.file.endsWith('.zstd')), [false, true])
  t.deepEqual(reminders(parents[0]), reminders(parents[1]))
})

test('a zstd log cut short is warned about, naming the file, and replayed as far as it can be decoded', async (t) => {
  const cut = join(dir, 'cut')
  await cp(zstd, cut, { recursive: true })
  // The resumed session's second lifecycle is the log's last zstd frame: cut within it.
  const file = logOf(cut, 'resumed', 'zstd')
  const whole = (await replay([logOf(zstd, 'resumed', 'zstd'), '--json'])).report.sessions[0]
  await truncate(file, (await readFile(file)).length - 7)
  const { code, stderr } = await replay([file])
  t.is(code, EXIT.ok)
  const [, seq] = new RegExp(`^replay: warning: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: its last zstd frame is cut short \\(a write cut short\\?\\); the replay ends at its last complete event, seq (\\d+)\\n`).exec(stderr) ?? []
  t.truthy(seq, stderr)
  const json = (await replay([file, '--json'])).report
  t.deepEqual(json.warnings.map((w) => w.message), [stderr.split('\n')[0].slice('replay: warning: '.length)])
  const [session] = json.sessions
  t.is(session.events, Number(seq) + 1)
  t.true(session.events < whole.events)
  t.deepEqual(reminders(session), reminders(whole).filter((r) => r.seq < session.events), 'the decoded part replays as it did whole')
  t.deepEqual(json.errors, [])

  // The header's frame and a few bytes of the next: an empty session, and a warning that says so.
  const zstdMagic = Buffer.from([0x28, 0xb5, 0x2f, 0xfd])
  await truncate(file, (await readFile(file)).indexOf(zstdMagic, 4) + 10)
  const header = await replay([file, '--json'])
  t.deepEqual(header.report.warnings, [{ message: `${file}: its last zstd frame is cut short (a write cut short?); none of its events is complete` }])
  t.deepEqual([header.report.sessions[0].events, header.report.sessions[0].calls], [0, 0])
  // Not even the header: an error.
  await truncate(file, 20)
  const none = await replay([file, '--json'])
  t.is(none.code, EXIT.input)
  t.deepEqual(none.report.errors, [{ message: `${file}: its last zstd frame is cut short before its first line ends` }])
})

test('a log in an older shape is read through the backend, which upgrades it as a resume does', async (t) => {
  const older = join(dir, 'older')
  await cp(raw, older, { recursive: true })
  const file = logOf(older, 'cycler')
  // Tool results as the harness stored them before results carried their message.
  const lines = (await readFile(file, 'utf8')).split('\n').map((line) => {
    if (!line.includes('"type":"tool/result"')) return line
    const event = JSON.parse(line)
    const { message, ...data } = event.data
    const [block] = message.content
    return JSON.stringify({ ...event, data: { ...data, callId: block.toolCallId, content: block.content, isError: block.isError } })
  })
  await writeFile(file, lines.join('\n'))
  const { code, report } = await replay([file, '--json'])
  t.is(code, EXIT.ok)
  const current = (await replay([logOf(raw, 'cycler'), '--json'])).report.sessions[0]
  t.true(reminders(current).length > 0)
  t.deepEqual(reminders(report.sessions[0]), reminders(current))
  // Out of the layout, the backend cannot read it.
  const loose = join(dir, 'older-loose.jsonl')
  await cp(file, loose)
  const refused = await replay([loose, '--json'])
  t.is(refused.code, EXIT.input)
  t.deepEqual(refused.report.errors, [{ message: `${loose}: a log in an older shape, which is read (and upgraded) in the harness's layout only: <root>/<project>/<session id>/session.jsonl[.zstd]` }])
})

/** A raw log of `calls` identical calls with results of `size` characters, line by line as the JSONL backend writes it. */
async function largeLog(path, calls, size) {
  const events = [{ type: 'user/message', data: { content: [{ type: 'text', text: 'go' }], source: { kind: 'user' }, role: 'user', id: 'm0' } }]
  for (let i = 1; i <= calls; i++) {
    const callId = `c${i}`
    events.push({ type: 'tool/call', data: { turn: 1, step: i, callId, name: 'read', arguments: '{"path":"big"}' } })
    events.push({ type: 'tool/result', data: { turn: 1, step: i, message: { id: `r${i}`, role: 'user', content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: 'x'.repeat(size) }], isError: false }], source: { kind: 'tool', callId } } } })
  }
  const header = { type: 'session', version: 0, id: 'large', createdAt: 0, delegationDepth: 0 }
  const text = [header, ...events.map((event, seq) => ({ type: event.type, seq, time: 0, data: event.data }))].map((line) => JSON.stringify(line)).join('\n')
  await mkdir(join(path, '..'), { recursive: true })
  await writeFile(path, `${text}\n`)
  return Buffer.byteLength(text) + 1
}

test('a large log is replayed as it is read, and the progress moves within it', async (t) => {
  const file = join(dir, 'large', 'session.jsonl')
  const size = await largeLog(file, 40, 100_000)
  let time = 0
  const { code, stdout, stderr } = await replay([file], { now: () => (time += 1000) })
  t.is(code, EXIT.ok)
  t.regex(stdout, /Totals \(defaults\): 1 session, 40 calls, 3 reminders \(1 gentle, 2 detailed, 0 cycle, 0 similar, 0 noProgress, 0 failure, 0 stop\)/)
  const lines = stderr.trim().split('\n')
  const within = lines.filter((line) => line.startsWith('replay: 0/1 logs, '))
  t.true(within.length >= 2, stderr)
  const done = within.map((line) => Number(/, ([\d.]+)\//.exec(line)[1]))
  t.deepEqual(done, [...done].sort((a, b) => a - b), 'the bar moves forward')
  t.true(done[0] < size / 1e6)
  t.is(lines.at(-1), `replay: 1/1 logs, ${(size / 1e6).toFixed(1)}/${(size / 1e6).toFixed(1)} MB`)

  let read = 0
  const seen = []
  for await (const run of readRuns(file, { reader: new SessionReader(), onBytes: (n) => { read = n }, warn: t.fail, fail: t.fail })) {
    for await (const input of run.inputs) if (input.kind === 'call') seen.push(read)
  }
  t.is(seen.length, 40)
  t.true(seen[0] < size / 2, `the first call reached the replay after ${seen[0]} of ${size} bytes`)
})
