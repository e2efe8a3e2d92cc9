// The replay command on other agents' trajectories, written here in each format it reads: the
// OpenAI chat format (JSON Lines, one JSON document, a bare array of messages) and the Anthropic
// Messages format, raw and gzip'd. Parallel calls are delivered in the model's order, unparsable
// arguments stay text, error results count under sameResultOnly, a user message starts the chain
// over, and sessions are grouped by how they ended. None of this needs the harness.
import test from 'ava'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { main, EXIT } from '../cli/main.js'
import { readRuns } from '../cli/formats/index.js'

let dir
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-formats-'))
})
test.after.always(() => rm(dir, { recursive: true, force: true }))

/** Runs the command in this process: `{ code, stdout, stderr, report }` (`report` under --json). */
async function replay(...args) {
  let stdout = ''
  let stderr = ''
  const code = await main(['replay', ...args], { stdout: { write: (text) => { stdout += text } }, stderr: { write: (text) => { stderr += text } } })
  return { code, stdout, stderr, report: args.includes('--json') ? JSON.parse(stdout) : undefined }
}

let files = 0
async function file(name, content) {
  const path = join(dir, `${++files}-${name}`)
  await writeFile(path, name.endsWith('.gz') ? gzipSync(content) : content)
  return path
}

const jsonl = (...records) => records.map((record) => JSON.stringify(record)).join('\n') + '\n'
const user = { role: 'user', content: 'go' }

// Chat format: one assistant message per model response, one tool message per call.
let ids = 0
function chat(...calls) {
  const id = `c${++ids}`
  return [
    { role: 'assistant', content: null, tool_calls: calls.map(([name, args], i) => ({ id: `${id}-${i}`, type: 'function', function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) } })) },
    ...calls.map((_, i) => ({ role: 'tool', tool_call_id: `${id}-${i}`, content: `result ${i}` })),
  ]
}
const grep = ['grep', { pattern: 'x' }]
const read = ['read', { path: 'a' }]

// Anthropic format: tool_use blocks, then a user message of tool_result blocks.
function anthropic(...calls) {
  const id = `a${++ids}`
  return [
    { role: 'assistant', content: [{ type: 'text', text: 'looking' }, ...calls.map(([name, input], i) => ({ type: 'tool_use', id: `${id}-${i}`, name, input }))] },
    { role: 'user', content: calls.map(([, , result], i) => ({ type: 'tool_result', tool_use_id: `${id}-${i}`, content: result?.content ?? 'ok', ...(result?.error ? { is_error: true } : {}) })) },
  ]
}

const summary = (session, i = 0) => session.reminders[i].map((r) => `${r.tool}×${r.count}@${r.call}`)

test('chat JSON Lines: calls at their results, parallel calls in the model\'s order, a user message starting over, fields carried through', async (t) => {
  const path = await file('runs.jsonl', jsonl(
    { id: 'parallel', source: 'test', outcome: 'budget', extra: { nested: true }, messages: [user, ...chat(grep, grep, grep), ...chat(grep, grep)] },
    { id: 'reset', outcome: 'resolved', messages: [user, ...chat(grep), ...chat(grep), user, ...chat(grep), ...chat(grep)] },
    { messages: [user, ...chat(read), ...chat(read), { role: 'assistant', content: 'thinking aloud' }, ...chat(read)] },
  ))
  const { code, report } = await replay(path, '--json')
  t.is(code, EXIT.ok)
  const [parallel, reset, unnamed] = report.sessions
  t.deepEqual(summary(parallel), ['grep×3@3', 'grep×5@5'], 'three calls of one response count as three')
  t.deepEqual(parallel.reminders[0].map((r) => [r.seq, r.turn, r.step]), [[4, 1, 1], [7, 1, 2]], 'each at its result message, in turn 1')
  t.deepEqual(summary(reset), [], 'the user message starts the chain over')
  t.deepEqual(summary(unnamed), ['read×3@3'], 'an assistant message without calls is no call')
  t.deepEqual([parallel.id, reset.id, unnamed.id], ['parallel', 'reset', `${basename(path)}:3`], 'without an id, a session is named by its file and line')
  t.deepEqual([parallel.format, parallel.line, parallel.events, parallel.calls, parallel.prompts], ['chat', 1, 8, 5, [0]])
  t.deepEqual(parallel.fields, { id: 'parallel', source: 'test', outcome: 'budget' }, 'scalar fields are carried through')
  t.is(parallel.outcome, 'budget')
  t.is(unnamed.outcome, undefined)
})

test('the harness\'s argument parse: unparsable arguments stay text, empty ones are {}', async (t) => {
  const broken = ['grep', '{"pattern": x']
  const path = await file('broken.jsonl', jsonl({ id: 'b', messages: [user, ...chat(broken), ...chat(broken), ...chat(broken), ...chat(broken, broken), ...chat(['ls', ''], ['ls', '{}'], ['ls', ''])] }))
  const { report } = await replay(path, '--json', '--thresholds', '3,5')
  const [session] = report.sessions
  t.deepEqual(summary(session), ['grep×3@3', 'grep×5@5', 'ls×3@8'])
  t.true(session.reminders[0][1].text.includes(`- arguments: ${JSON.stringify(broken[1])}`), 'the raw text is the argument, quoted as a string')
})

test('calls are delivered in the model\'s order whatever the order of their results; a call without a result was never executed', async (t) => {
  const reversed = chat(read, grep)
  const unexecuted = chat(grep, read)
  const messages = [user, ...chat(grep), reversed[0], reversed[2], reversed[1], ...chat(grep), ...chat(grep), unexecuted[0], unexecuted[1], ...chat(grep)]
  const { report } = await replay(await file('order.jsonl', jsonl({ id: 'o', messages })), '--json')
  const [session] = report.sessions
  t.deepEqual(summary(session), ['grep×3@5', 'grep×5@7'], 'grep, read, grep, grep, grep: the read breaks the first run; the unexecuted read does not break the second')
  t.deepEqual(session.reminders[0].map((r) => r.seq), [9, 13], 'at the result messages of calls 5 and 7')
  t.is(session.calls, 7)
})

test('one JSON document: an object with messages, a bare array of messages, pretty-printed; gzip\'d or not', async (t) => {
  const messages = [user, ...chat(grep), ...chat(grep), ...chat(grep)]
  const paths = [
    await file('object.json', JSON.stringify({ id: 'doc', outcome: 'failed', messages }, null, 2)),
    await file('array.json', JSON.stringify(messages)),
    await file('object.json.gz', JSON.stringify({ id: 'zipped', messages }, null, 2)),
    await file('lines.jsonl.gz', jsonl({ id: 'zipped-lines', messages })),
  ]
  const { code, report } = await replay(...paths, '--json')
  t.is(code, EXIT.ok)
  t.deepEqual(report.sessions.map((s) => [s.id, summary(s)]), [
    ['doc', ['grep×3@3']],
    [`${basename(paths[1])}:1`, ['grep×3@3']],
    ['zipped', ['grep×3@3']],
    ['zipped-lines', ['grep×3@3']],
  ])
  t.is(report.sessions[0].line, undefined, 'a document has no line')
})

test('the Anthropic format: tool_use and tool_result blocks, is_error kept for sameResultOnly, user text a prompt', async (t) => {
  const failing = ['bash', { command: 'make' }, { content: 'error: no rule', error: true }]
  const passing = ['bash', { command: 'make' }, { content: 'error: no rule' }]
  const messages = [
    { role: 'user', content: 'build it' },
    ...anthropic(failing), ...anthropic(failing), ...anthropic(passing),
    { role: 'user', content: [{ type: 'text', text: 'try again' }] },
    ...anthropic(failing, failing), ...anthropic(failing),
  ]
  const path = await file('anthropic.jsonl', jsonl({ id: 'claude', messages }))
  const config = await file('same-result.json', JSON.stringify({ sameResultOnly: true, thresholds: [2, 3] }))
  const { report } = await replay(path, '--json', '--compare', config)
  const [session] = report.sessions
  t.is(session.format, 'anthropic')
  t.deepEqual(summary(session, 0), ['bash×3@3', 'bash×3@6'], 'the defaults count identical calls, the prompt starts over')
  t.deepEqual(summary(session, 1), ['bash×2@2', 'bash×2@5', 'bash×3@6'], 'sameResultOnly: the error flag breaks the run at call 3')
  t.deepEqual(session.prompts, [0, 7])
})

test('--format forces a format: chat messages read as Anthropic ones have no calls', async (t) => {
  const path = await file('forced.jsonl', jsonl({ id: 'f', messages: [user, ...chat(grep), ...chat(grep), ...chat(grep)] }))
  const forced = await replay(path, '--json', '--format', 'anthropic')
  t.deepEqual([forced.report.sessions[0].format, forced.report.sessions[0].calls], ['anthropic', 0])
  const harness = await replay(path, '--json', '--format', 'harness')
  t.is(harness.code, EXIT.input)
  t.is(harness.stderr, `replay: ${path}:1: not a harness session log: its first line is no session header\n`)
  const bad = await replay(path, '--format', 'xml')
  t.is(bad.code, EXIT.usage)
  t.regex(bad.stderr, /^replay: --format "xml": expected one of harness, chat, anthropic, claude-code, codex, gemini\n/)
})

test('sessions are grouped by how they ended: share reminded, the first reminder\'s median call and fraction, the calls after it', async (t) => {
  const loop = (n, before = 0, after = 0) => [user, ...Array.from({ length: before }, (_, i) => chat(['read', { i }])).flat(), ...Array.from({ length: n }, () => chat(grep)).flat(), ...Array.from({ length: after }, (_, i) => chat(['ls', { i }])).flat()]
  const path = await file('outcomes.jsonl', jsonl(
    { id: 'b1', end: 'budget', messages: loop(3, 1, 6) }, // first reminder at call 4 of 10: 6 after
    { id: 'b2', end: 'budget', messages: loop(3, 5, 2) }, // call 8 of 10: 2 after
    { id: 'b3', end: 'budget', messages: loop(2, 0, 4) },
    { id: 'r1', end: 'resolved', messages: loop(1, 2, 2) },
    { id: 'n1', messages: loop(3) }, // call 3 of 3
  ))
  const { report } = await replay(path, '--json', '--outcome-field', 'end')
  t.deepEqual(report.outcomes, {
    field: 'end',
    groups: [
      { outcome: 'budget', configs: [{ sessions: 3, reminded: 2, share: 2 / 3, firstCall: (4 + 8) / 2, firstFraction: (4 / 10 + 8 / 10) / 2, callsAfter: 6 + 2 }] },
      { outcome: 'resolved', configs: [{ sessions: 1, reminded: 0, share: 0, firstCall: null, firstFraction: null, callsAfter: 0 }] },
      { outcome: null, configs: [{ sessions: 1, reminded: 1, share: 1, firstCall: 3, firstFraction: 1, callsAfter: 0 }] },
    ],
  })
  const text = await replay(path, '--outcome-field', 'end')
  t.regex(text.stdout, /\nSessions by how they ended \(field "end"; first reminder: its call, and how far into the session\)\n {2}outcome +sessions +config +reminded +first reminder \(median\) +calls after\n {2}budget +3 +defaults +2 \(66\.7 %\) +call 6, 60\.0 % in +8\n {2}resolved +1 +defaults +0 \(0\.0 %\) +- +0\n {2}\(none\) +1 +defaults +1 \(100\.0 %\) +call 3, 100\.0 % in +0\n/)
  t.regex(text.stdout, /^b1 {2}\S+outcomes\.jsonl:1 {2}\(21 messages, 10 calls, budget\)\n/)
  const none = await replay(path, '--json', '--outcome-field', 'missing')
  t.is(none.report.outcomes, undefined, 'no groups when no session has the field')
})

test('a line that is no trajectory is named and the other lines are replayed; a torn last line is warned about', async (t) => {
  const good = { id: 'g', messages: [user, ...chat(grep), ...chat(grep), ...chat(grep)] }
  const path = await file('mixed.jsonl', `${JSON.stringify(good)}\n{"id": "broken", "messa\n{"id": "other"}\n\n${JSON.stringify({ ...good, id: 'h' })}\n{"id": "torn", "messages": [`)
  const { code, stderr, report } = await replay(path, '--json')
  t.is(code, EXIT.input)
  t.deepEqual(report.sessions.map((s) => s.id), ['g', 'h'])
  t.deepEqual(report.errors.map((e) => e.message), [
    `${path}:2: not valid JSON (${errorOf('{"id": "broken", "messa')})`,
    `${path}:3: not a trajectory: expected an object with a "messages" array, or an array of messages`,
  ])
  t.deepEqual(report.warnings, [{ message: `${path}: its last line is incomplete (a write cut short?); the replay ends at its last complete line` }])
  t.is(stderr, report.errors.map((e) => `replay: ${e.message}\n`).join(''), 'under --json only the errors are on stderr')
  const zipped = await file('cut.jsonl.gz', jsonl(good, { ...good, id: 'h' }))
  const bytes = (await import('node:fs')).readFileSync(zipped)
  await writeFile(zipped, bytes.subarray(0, bytes.length - 12))
  const cut = await replay(zipped)
  t.is(cut.code, EXIT.ok)
  t.regex(cut.stderr, new RegExp(`^replay: warning: ${escape(zipped)}: its gzip stream ends early \\(a write cut short\\?\\); the replay ends at its last complete line\\n`))
})

const errorOf = (text) => {
  try {
    JSON.parse(text)
  } catch (error) {
    return error.message
  }
}
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

test('a file of trajectories is read as a stream: its first run reaches the replay before the file is read through', async (t) => {
  const record = JSON.stringify({ id: 'big', messages: [user, ...chat(['read', { path: 'x'.repeat(20000) }])] })
  const path = await file('big.jsonl', `${record}\n`.repeat(200))
  const size = Buffer.byteLength(record) * 200
  let read = 0
  const seenAt = []
  for await (const run of readRuns(path, { onBytes: (n) => { read = n }, warn: t.fail, fail: t.fail })) {
    for (const input of run.inputs) if (input.kind === 'call') seenAt.push(read)
  }
  t.is(seenAt.length, 200)
  t.true(seenAt[0] < size / 2, `the first run was replayed after ${seenAt[0]} of ${size} bytes`)
  t.is(seenAt.at(-1), size + 200)
})

test('a file that is no trajectory, or a corrupt gzip stream, is an input error naming it; the other files are replayed', async (t) => {
  const good = await file('good.jsonl', jsonl({ id: 'g', messages: [user, ...chat(grep)] }))
  const text = await file('notes.txt', 'just some notes\nnot json\n')
  const corrupt = await file('corrupt.jsonl', Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), Buffer.alloc(40, 7)]))
  const empty = await file('empty.jsonl', '')
  const { code, report } = await replay(good, text, corrupt, empty, '--json')
  t.is(code, EXIT.input)
  t.deepEqual(report.sessions.map((s) => s.id), ['g'])
  const messages = report.errors.map((e) => e.message)
  t.is(messages.length, 3)
  t.true(messages.some((m) => m.startsWith(`${text}: neither JSON Lines nor a JSON document (`)), `${messages}`)
  t.true(messages.some((m) => m.startsWith(`${corrupt}: not a valid gzip stream: `)), `${messages}`)
  t.true(messages.includes(`${empty}: empty file`))
})
