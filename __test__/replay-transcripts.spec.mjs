// Host agents' transcripts, written here in the shapes Claude Code 2.1.328, Codex 0.169.0 and
// Gemini CLI 0.61.0 were seen to write (cli/formats/claude-code.js, codex.js, gemini.js): the guard's
// inputs each gives, the same results the hook reads from the same calls' payloads
// (lib/host-results.js), prompts that start a chain over, failures, subagents as runs of their own,
// Codex's tool names, Gemini CLI's restated messages, a torn last line, the hook's resume
// (`hookTranscriptCalls`), and the replay command on such files. None of this needs the harness.
import test from 'ava'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

import { hookResult } from '../lib/host-results.js'
import { main, EXIT } from '../cli/main.js'
import { readRuns } from '../cli/formats/index.js'
import { hookTranscriptCalls } from '../cli/formats/transcripts.js'

let dir
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-transcripts-'))
})
test.after.always(() => rm(dir, { recursive: true, force: true }))

let files = 0
/** Writes `records` as JSON Lines to `name` in a directory of its own (`torn`: a last line cut short). */
async function file(name, records, { torn } = {}) {
  return writeLog(join(dir, String(++files), name), records, torn)
}

async function writeLog(path, records, torn = '') {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, records.map((record) => JSON.stringify(record)).join('\n') + '\n' + torn)
  return path
}

/** The runs of a file as the replay reads them: `{ meta, format, inputs }`, and what it warned of. */
async function runs(path, format) {
  const out = []
  const warnings = []
  for await (const run of readRuns(path, { format, warn: (message) => warnings.push(message), fail: (error) => warnings.push(error.message), onBytes: () => {} })) {
    const inputs = []
    for await (const input of run.inputs) inputs.push(input)
    out.push({ meta: run.meta, format: run.format, inputs })
  }
  return { runs: out, warnings }
}

const calls = (run) => run.inputs.filter((input) => input.kind === 'call')
const shape = (input) => (input.kind === 'prompt' ? 'prompt' : `${input.tool} ${JSON.stringify(input.args)}${input.result.isError ? ' !' : ''}`)

async function replay(...args) {
  let stdout = ''
  let stderr = ''
  const code = await main(['replay', ...args], { stdout: { write: (text) => { stdout += text } }, stderr: { write: (text) => { stderr += text } } })
  return { code, stderr, report: args.includes('--json') ? JSON.parse(stdout) : undefined }
}

// Claude Code: records as its session log holds them. A parallel call is an assistant record of
// its own with the response's message id; `toolUseResult` is the hook's `tool_response`.
const SESSION = '5e55a0b1-0000-4000-8000-000000000001'
const bash = (stdout, stderr = '') => ({ stdout, stderr, interrupted: false, isImage: false, noOutputExpected: false })
function claude(agent) {
  const base = { sessionId: SESSION, isSidechain: agent !== undefined, ...(agent ? { agentId: agent } : {}), userType: 'external', version: '2.1.328' }
  let uuid = 0
  const record = (fields) => ({ parentUuid: null, ...base, uuid: `${agent ?? 'main'}-${++uuid}`, timestamp: '2026-12-07T13:36:47.421Z', ...fields })
  return {
    prompt: (text) => record({ type: 'user', message: { role: 'user', content: text }, promptSource: 'sdk' }),
    use: (id, name, input, message = `msg_${id}`) => record({ type: 'assistant', message: { id: message, type: 'message', role: 'assistant', content: [{ type: 'tool_use', id, name, input }] } }),
    result: (id, content, raw, isError = false) => record({ type: 'user', message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content, is_error: isError }] }, ...(raw === undefined ? {} : { toolUseResult: raw }) }),
    attachment: (attachment) => record({ type: 'attachment', attachment }),
  }
}
const queue = (operation, content) => ({ type: 'queue-operation', operation, timestamp: '2026-12-07T13:36:47.181Z', sessionId: SESSION, ...(content ? { content } : {}) })

// The hook's PostToolUse payload of the same call.
const claudePost = (id, name, input, response) => ({ session_id: SESSION, transcript_path: '/x.jsonl', hook_event_name: 'PostToolUse', tool_name: name, tool_input: input, tool_response: response, tool_use_id: id })

test('Claude Code: calls at their results with the hook\'s results, failures flagged, refused and denied calls left out, prompts start over', async (t) => {
  const c = claude()
  const ls = { command: 'ls', description: 'list' }
  const read = { type: 'text', file: { filePath: '/p/a.txt', content: 'hello\n', numLines: 2, startLine: 1, totalLines: 2 } }
  const path = await file('s.jsonl', [
    queue('enqueue', 'first'), queue('dequeue'),
    c.prompt('first'),
    c.attachment({ type: 'date', date: '2026-12-07' }),
    { type: 'api-request-blob', sessionId: SESSION, message: { content: [{ type: 'text', text: 'first' }] } },
    c.use('t1', 'Bash', ls), c.result('t1', 'a.txt\nb.txt', bash('a.txt\nb.txt')),
    c.use('t2', 'Bash', { command: 'true', description: 'n' }), c.result('t2', '(Bash completed with no output)', bash('')),
    c.use('t3', 'Bash', { command: 'cat /x' }), c.result('t3', 'Exit code 1\ncat: /x: No such file', 'Error: Exit code 1\ncat: /x: No such file', true),
    c.use('t4', 'Read', { file_path: '/p/a.txt' }, 'm4'), c.use('t5', 'Grep', { pattern: 'x' }, 'm4'),
    c.result('t5', 'No files found', { mode: 'files_with_matches', filenames: [], numFiles: 0 }), c.result('t4', '1\thello\n2\t', read),
    c.use('t6', 'Edit', { file_path: '/p/a.txt', old_string: 'absent', new_string: 'x' }),
    c.result('t6', '<tool_use_error>String to replace not found in file.\nString: absent</tool_use_error>', 'Error: String to replace not found in file.', true),
    c.use('t7', 'WebFetch', { url: 'https://example.com' }),
    { ...c.result('t7', 'Claude requested permissions to use WebFetch, but you haven\'t granted it yet.', 'Error: …', true), toolDenialKind: 'user-rejected', permissionDecision: { decision: 'reject', source: 'config' } },
    c.use('t8', 'Bash', { command: 'sleep 9' }), c.result('t8', '[Request interrupted by user for tool use]', undefined, true),
    { ...c.prompt([{ type: 'text', text: '[Request interrupted by user for tool use]' }]) },
    { ...c.prompt('<local-command-caveat>…</local-command-caveat>'), isMeta: true },
    c.attachment({ type: 'queued_command', prompt: '<task-notification>…</task-notification>' }),
    c.use('t9', 'Bash', ls), c.result('t9', 'a.txt\nb.txt', bash('a.txt\nb.txt')),
    c.prompt('second'),
    c.use('t10', 'Bash', ls), c.result('t10', 'a.txt', bash('a.txt')),
    { type: 'last-prompt', sessionId: SESSION }, { type: 'cost-state', sessionId: SESSION },
  ])
  const { runs: [run], warnings } = await runs(path)
  t.deepEqual(warnings, [])
  t.is(run.format, 'claude-code')
  t.deepEqual(run.meta, { id: SESSION })
  t.deepEqual(run.inputs.map(shape), [
    'prompt',
    'Bash {"command":"ls","description":"list"}',
    'Bash {"command":"true","description":"n"}',
    'Bash {"command":"cat /x"} !',
    'Grep {"pattern":"x"}',
    'Read {"file_path":"/p/a.txt"}',
    'Bash {"command":"sleep 9"} !',
    'prompt',
    'Bash {"command":"ls","description":"list"}',
    'prompt',
    'Bash {"command":"ls","description":"list"}',
  ], 'parallel calls in the order of their results; a queued command absorbed mid-turn is a prompt (it fires UserPromptSubmit); an interrupt\'s note and meta records are not')
  const byId = Object.fromEntries(calls(run).map((call) => [call.id, call]))
  t.deepEqual(byId.t1.result, { content: 'a.txt\nb.txt', isError: false })
  t.deepEqual(byId.t2.result, hookResult('claude-code', claudePost('t2', 'Bash', {}, bash(''))), 'the raw response, not the note the model got')
  t.deepEqual(byId.t2.result, { content: '', isError: false })
  t.deepEqual(byId.t3.result, hookResult('claude-code', { hook_event_name: 'PostToolUseFailure', error: 'Exit code 1\ncat: /x: No such file' }))
  t.deepEqual(byId.t4.result, hookResult('claude-code', claudePost('t4', 'Read', {}, read)), 'a Read\'s result is its raw response, as the hook has it')
  t.deepEqual([byId.t4.turn, byId.t4.step, byId.t5.step], [1, 4, 4], 'one response, one step')
  t.deepEqual([byId.t10.turn, byId.t10.step], [3, 1])
})

test('Claude Code: a subagent is a run of its own, in its own log (2.1) or as sidechains in its parent\'s (older logs)', async (t) => {
  const c = claude()
  const s = claude('a5e3eadc251a1ec32')
  const ls = { command: 'ls' }
  const parent = [
    c.prompt('go'),
    c.use('t1', 'Bash', ls), c.result('t1', 'a', bash('a')),
    c.use('t2', 'Agent', { description: 'sub', prompt: 'look', subagent_type: 'general-purpose' }),
  ]
  // The subagent's log keeps no toolUseResult of a call that succeeded: the text the model got stands in.
  const child = [s.prompt('look'), s.use('s1', 'Bash', ls), s.result('s1', 'a'), s.use('s2', 'Bash', ls), s.result('s2', '(Bash completed with no output)'), s.use('s3', 'Bash', ls), s.result('s3', 'Exit code 2', 'Error: Exit code 2', true)]
  const done = [c.result('t2', [{ type: 'text', text: 'done' }], { status: 'completed', agentId: 'a5e3eadc251a1ec32' }), c.use('t3', 'Bash', ls), c.result('t3', 'a', bash('a'))]

  const inline = await runs(await file('inline.jsonl', [...parent, ...child, ...done]))
  const parentLog = await file('s.jsonl', [...parent, ...done])
  const split = await runs(parentLog)
  const own = await runs(await writeLog(join(dirname(parentLog), 's', 'subagents', 'agent-a5e3eadc251a1ec32.jsonl'), child))
  for (const [label, main, sub] of [['inline', inline.runs[0], inline.runs[1]], ['own log', split.runs[0], own.runs[0]]]) {
    t.deepEqual(calls(main).map((call) => call.id), ['t1', 't2', 't3'], `${label}: the parent's chain holds none of the subagent's calls`)
    t.deepEqual(sub.meta, { id: 'a5e3eadc251a1ec32', parentSession: SESSION, origin: 'subagent' }, label)
    t.deepEqual(sub.inputs.map((input) => input.kind === 'prompt' ? 'prompt' : [input.id, input.result]), [
      'prompt',
      ['s1', { content: 'a', isError: false }],
      ['s2', { content: '', isError: false }],
      ['s3', { content: 'Exit code 2', isError: true }],
    ], `${label}: Bash's text is its output, as the hook's stdout is`)
  }
  t.is(inline.runs.length, 2)
  t.is(split.runs.length, 1)
})

// Codex: a rollout's records, as 0.169.0 writes them.
const CODEX_SESSION = '01a250b9-a269-7f43-b2ec-9fd8801a27eb'
function codex() {
  const item = (payload) => ({ timestamp: '2026-12-07T13:37:52.751Z', type: 'response_item', payload })
  const text = (role, value) => item({ type: 'message', role, content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text: value }] })
  return {
    meta: { timestamp: '2026-12-07T13:37:52.751Z', type: 'session_meta', payload: { id: CODEX_SESSION, session_id: CODEX_SESSION, cwd: '/p', originator: 'codex_exec', cli_version: '0.169.0', source: 'exec' } },
    context: { timestamp: '2026-12-07T13:37:52.751Z', type: 'turn_context', payload: { cwd: '/p', model: 'gpt-5.5' } },
    event: (type) => ({ timestamp: '2026-12-07T13:37:52.751Z', type: 'event_msg', payload: { type } }),
    user: (value) => text('user', value),
    developer: (value) => text('developer', value),
    assistant: (value) => text('assistant', value),
    call: (id, name, args) => item({ type: 'function_call', name, arguments: JSON.stringify(args), call_id: id }),
    custom: (id, name, input) => item({ type: 'custom_tool_call', status: 'completed', call_id: id, name, input }),
    output: (id, output) => item({ type: 'function_call_output', call_id: id, output }),
    customOutput: (id, output) => item({ type: 'custom_tool_call_output', call_id: id, output }),
  }
}
const exec = (output, code = 0) => `Chunk ID: 1286a5\nWall time: 0.0359 seconds\nProcess exited with code ${code}\nOriginal token count: 2\nOutput:\n${output}`
const running = (session, output) => `Chunk ID: 52b6f8\nWall time: 0.3014 seconds\nProcess running with session ID ${session}\nOriginal token count: 2\nOutput:\n${output}`

test('Codex: names and arguments as the hook gives them (exec_command is Bash), outputs without their header, calls the hook never saw left out', async (t) => {
  const x = codex()
  const patch = '*** Begin Patch\n*** Add File: b.txt\n+new\n*** End Patch\n'
  const image = [{ type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'original' }]
  const path = await file('rollout-2026-12-07T13-37-52-01a250b9.jsonl', [
    x.meta, x.event('task_started'), x.developer('<permissions instructions>…</permissions instructions>'),
    x.user('<environment_context>\n  <cwd>/p</cwd>\n</environment_context>'), x.context, x.user('list files'),
    x.call('c1', 'exec_command', { cmd: 'ls', workdir: '/p', yield_time_ms: 1000 }), x.output('c1', exec('a.txt\n')),
    x.call('c2', 'exec_command', { cmd: 'cat /x' }), x.output('c2', exec('cat: /x: No such file or directory\n', 1)),
    x.call('c3', 'exec_command', { cmd: 'echo one' }), x.call('c4', 'exec_command', { cmd: 'echo two' }), x.output('c3', exec('one\n')), x.output('c4', exec('two\n')),
    x.custom('c5', 'apply_patch', patch), x.customOutput('c5', 'Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA b.txt\n'),
    x.custom('c6', 'apply_patch', patch), x.customOutput('c6', 'apply_patch verification failed: Failed to read file to update /p/nope.txt'),
    x.call('c7', 'view_image', { path: '/p/p.png' }), x.output('c7', image),
    x.call('c8', 'view_image', { path: '/p/a.txt' }), x.output('c8', 'unable to process image: invalid or unsupported image data'),
    x.call('c9', 'no_such_tool', { x: 1 }), x.output('c9', 'unsupported call: no_such_tool'),
    x.call('c10', 'exec_command', { cmd: 'echo early; sleep 1; echo late', yield_time_ms: 300 }), x.output('c10', running(80432, 'early\n')),
    x.call('c11', 'write_stdin', { session_id: 80432, chars: '', yield_time_ms: 5000 }), x.output('c11', exec('late\n')),
    x.call('c12', 'write_stdin', { session_id: 80432, chars: '' }), x.output('c12', 'write_stdin failed: Unknown process id 80432'),
    x.assistant('done'), x.event('task_complete'),
    x.event('task_started'), x.context, x.user('again'),
    x.call('c13', 'exec_command', { cmd: 'ls' }), x.output('c13', exec('a.txt\n')),
  ])
  const { runs: [run] } = await runs(path)
  t.is(run.format, 'codex')
  t.deepEqual(run.meta, { id: CODEX_SESSION })
  t.deepEqual(run.inputs.map((input) => input.kind === 'prompt' ? 'prompt' : [input.id, input.tool, input.args, input.result.content, input.turn, input.step]), [
    'prompt',
    ['c1', 'Bash', { command: 'ls' }, 'a.txt\n', 1, 1],
    ['c2', 'Bash', { command: 'cat /x' }, 'cat: /x: No such file or directory\n', 1, 2],
    ['c3', 'Bash', { command: 'echo one' }, 'one\n', 1, 3],
    ['c4', 'Bash', { command: 'echo two' }, 'two\n', 1, 3],
    ['c5', 'apply_patch', { command: patch }, 'Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA b.txt\n', 1, 4],
    ['c7', 'view_image', { path: '/p/p.png' }, [{ type: 'input_image', image_url: 'data:;base64,iVBORw0KGgo=', detail: 'original' }], 1, 6],
    ['c10', 'Bash', { command: 'echo early; sleep 1; echo late' }, 'late\n', 1, 9],
    'prompt',
    ['c13', 'Bash', { command: 'ls' }, 'a.txt\n', 2, 1],
  ], 'the environment and instructions are no prompts; a command still running is counted at the poll that saw it exit, with that poll\'s output')
  t.deepEqual(calls(run).find((call) => call.id === 'c1').result, hookResult('codex', { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: 'a.txt\n', tool_use_id: 'c1', turn_id: 't' }))
  t.deepEqual(calls(run).find((call) => call.id === 'c7').result, hookResult('codex', { tool_response: [{ type: 'input_image', image_url: 'data:application/octet-stream;base64,iVBORw0KGgo=', detail: 'original' }] }), 'the hook\'s image has another media type, the same bytes')
})

// Gemini CLI: a chat log's header, messages and `$set` records.
const GEMINI_SESSION = 'c4b8f6d0-8526-4719-a2eb-20e3ec81b012'
function gemini() {
  let n = 0
  const call = (name, args, response, status = response.error ? 'error' : 'success') => ({ id: `${name}__${name}_${++n}`, name, args, result: [{ functionResponse: { id: `${name}__${name}_${n}`, name, response } }], status, resultDisplay: '', displayName: name })
  return {
    header: { sessionId: GEMINI_SESSION, projectHash: '4bb6a288', startTime: '2026-12-07T13:38:54.604Z', lastUpdated: '2026-12-07T13:38:54.604Z', kind: 'main' },
    context: { $set: { messages: [{ id: 'ctx', timestamp: '2026-12-07T13:38:54.605Z', type: 'user', content: [{ text: '<session_context>\nThis is the Gemini CLI.\n</session_context>' }] }], lastUpdated: '2026-12-07T13:38:54.605Z' } },
    user: (id, text) => ({ id, timestamp: '2026-12-07T13:38:54.802Z', type: 'user', content: [{ text }] }),
    model: (id, ...toolCalls) => ({ id, timestamp: '2026-12-07T13:38:55.005Z', type: 'gemini', content: '', thoughts: [], model: 'gemini-3.1-pro-preview', ...(toolCalls.length ? { toolCalls } : {}) }),
    responses: (id, ...toolCalls) => ({ id, timestamp: '2026-12-07T13:38:55.209Z', type: 'user', content: toolCalls.map((c) => c.result[0]) }),
    call,
    touched: { $set: { lastUpdated: '2026-12-07T13:38:55.209Z' } },
  }
}

test('Gemini CLI: llmContent from the function response, errors as the model got them, messages taken once whatever restates them', async (t) => {
  const g = gemini()
  const ls = g.call('run_shell_command', { command: 'ls' }, { output: '<untrusted_context>\nOutput: a.txt\nProcess Group PGID: 19501\n</untrusted_context>' })
  const a = g.call('read_file', { file_path: 'a.txt' }, { output: 'hello\n' })
  const b = g.call('read_file', { file_path: 'b.txt' }, { output: 'needle\n' })
  const missing = g.call('read_file', { file_path: 'zzz.txt' }, { error: 'File not found: /p/zzz.txt' })
  const again = g.call('run_shell_command', { command: 'ls' }, { output: '<untrusted_context>\nOutput: a.txt\nProcess Group PGID: 24473\n</untrusted_context>' })
  const unknown = g.call('no_such_tool', { x: 1 }, { error: 'Tool "no_such_tool" not found. Did you mean one of: "read_file"?' })
  const history = [g.user('u1', 'first'), g.model('m1', ls), g.responses('r1', ls), g.model('m2', a, b), g.responses('r2', a, b), g.model('m3', missing), g.model('m4', unknown)]
  const path = await file('session-2026-12-07T13-38-c4b8f6d0.jsonl', [
    g.header, g.context, g.user('u1', 'first'), g.touched,
    g.model('m1'), g.model('m1', ls), g.responses('r1', ls), g.touched,
    g.model('m2'), g.model('m2', { ...a, status: 'executing', result: undefined }, { ...b, status: 'scheduled', result: undefined }), g.model('m2', a, b), g.responses('r2', a, b),
    g.model('m3', missing), g.responses('r3', missing),
    g.model('m4', unknown), g.responses('r4', unknown),
    // A resume restates the whole list, then goes on.
    { $set: { sessionId: GEMINI_SESSION } }, { $set: { messages: [g.context.$set.messages[0], ...history] } },
    g.user('u2', 'second'), g.model('m5', again), g.responses('r5', again),
  ])
  const { runs: [run] } = await runs(path)
  t.is(run.format, 'gemini')
  t.deepEqual(run.meta, { id: GEMINI_SESSION })
  t.deepEqual(run.inputs.map(shape), ['prompt', 'run_shell_command {"command":"ls"}', 'read_file {"file_path":"a.txt"}', 'read_file {"file_path":"b.txt"}', 'read_file {"file_path":"zzz.txt"} !', 'prompt', 'run_shell_command {"command":"ls"}'],
    'the session context is no prompt; a call is taken when it ended, once; an unknown tool\'s call reached no hook')
  const [first, readA, readB, failed] = calls(run)
  t.deepEqual(first.result, hookResult('gemini', { hook_event_name: 'AfterTool', tool_name: 'run_shell_command', tool_input: { command: 'ls' }, tool_response: { llmContent: '<untrusted_context>\nOutput: a.txt\nProcess Group PGID: 19501\n</untrusted_context>', returnDisplay: 'a.txt' } }))
  t.deepEqual([readA.step, readB.step], [2, 2], 'the calls of one response')
  t.deepEqual(failed.result, hookResult('gemini', { tool_response: { llmContent: 'Could not read file because no file was found at the specified path.', returnDisplay: 'File not found.', error: { message: 'File not found: /p/zzz.txt', type: 'file_not_found' } } }))
  t.deepEqual(failed.result, { content: 'File not found: /p/zzz.txt', isError: true })
})

test('a torn last line is left out with a warning; a line that is no JSON is an error naming it, and the rest is read', async (t) => {
  const c = claude()
  const records = [c.prompt('go'), c.use('t1', 'Bash', { command: 'ls' }), c.result('t1', 'a', bash('a')), c.use('t2', 'Bash', { command: 'ls' })]
  const torn = await file('torn.jsonl', records, { torn: JSON.stringify(c.result('t2', 'a', bash('a'))).slice(0, 40) })
  const { runs: [run], warnings } = await runs(torn)
  t.deepEqual(calls(run).map((call) => call.id), ['t1'])
  t.deepEqual(warnings, [`${torn}: its last line is incomplete (a write cut short?); the replay ends at its last complete line`])
  t.deepEqual((await hookTranscriptCalls(torn, 'claude-code')).map((call) => call.id), ['t1'], 'the hook reads a transcript being written')

  const x = codex()
  const broken = join(dir, 'broken-rollout.jsonl')
  const lines = [x.meta, x.user('go'), x.call('c1', 'exec_command', { cmd: 'ls' }), x.output('c1', exec('a\n'))].map((record) => JSON.stringify(record))
  await writeFile(broken, [...lines.slice(0, 2), '{"type": oops', ...lines.slice(2)].join('\n') + '\n')
  const read = await runs(broken)
  t.deepEqual(calls(read.runs[0]).map((call) => call.id), ['c1'])
  t.is(read.warnings.length, 1)
  t.true(read.warnings[0].startsWith(`${broken}:3: not valid JSON (`))
})

test('hookTranscriptCalls: the agent\'s calls since its last prompt, as the hook gets them, with their ids', async (t) => {
  const c = claude()
  const s = claude('ab12')
  const ls = { command: 'ls' }
  const path = await file('h.jsonl', [
    c.prompt('one'), c.use('t1', 'Grep', { pattern: 'x' }), c.result('t1', 'none', { filenames: [] }),
    c.prompt('two'), c.use('t2', 'Bash', ls), c.result('t2', 'a', bash('a')), c.use('t3', 'Bash', { command: 'cat /x' }), c.result('t3', 'Exit code 1', 'Error: Exit code 1', true),
    c.use('t4', 'Agent', { prompt: 'look' }), c.use('t5', 'Bash', ls),
  ])
  await writeLog(join(dirname(path), 'h', 'subagents', 'agent-ab12.jsonl'), [s.prompt('look'), s.use('s1', 'Bash', ls), s.result('s1', 'a')])
  t.deepEqual(await hookTranscriptCalls(path, 'claude-code'), [
    { id: 't2', tool: 'Bash', args: ls, result: { content: 'a', isError: false } },
    { id: 't3', tool: 'Bash', args: { command: 'cat /x' }, result: { content: 'Exit code 1', isError: true } },
  ], 'calls without a result yet (the one the hook is told of) are not among them')
  t.deepEqual(await hookTranscriptCalls(path, 'claude-code', 'ab12'), [{ id: 's1', tool: 'Bash', args: ls, result: { content: 'a', isError: false } }], 'a subagent\'s, from its own log beside the parent\'s')
  const inline = await file('inline.jsonl', [c.prompt('go'), c.use('t1', 'Bash', ls), s.prompt('look'), s.use('s9', 'Bash', ls), s.result('s9', 'b'), c.result('t1', 'a', bash('a'))])
  t.deepEqual((await hookTranscriptCalls(inline, 'claude-code', 'ab12')).map((call) => call.id), ['s9'], 'or from its sidechain in the parent\'s')
  t.deepEqual((await hookTranscriptCalls(inline, 'claude-code')).map((call) => call.id), ['t1'])

  const x = codex()
  const rollout = await file('rollout.jsonl', [x.meta, x.user('go'), x.call('c1', 'exec_command', { cmd: 'ls' }), x.output('c1', exec('a\n')), x.call('c2', 'write_stdin', { session_id: 1 }), x.output('c2', 'write_stdin failed: Unknown process id 1')])
  t.deepEqual(await hookTranscriptCalls(rollout, 'codex'), [{ id: 'c1', tool: 'Bash', args: { command: 'ls' }, result: { content: 'a\n', isError: false } }])
  const g = gemini()
  const grep = g.call('grep_search', { pattern: 'x' }, { output: 'No matches' })
  const chat = await file('session.jsonl', [g.header, g.context, g.user('u1', 'go'), g.model('m1', grep), g.responses('r1', grep)])
  t.deepEqual(await hookTranscriptCalls(chat, 'gemini'), [{ id: grep.id, tool: 'grep_search', args: { pattern: 'x' }, result: { content: 'No matches', isError: false } }])

  t.deepEqual(await hookTranscriptCalls(join(dir, 'nowhere.jsonl'), 'claude-code'), [], 'no transcript yet: nothing to rebuild')
  t.deepEqual(await hookTranscriptCalls(path, 'copilot'), [], 'a host without a reader')
})

test('replay: transcripts recognised by content or named by --format, a run per agent, reminders where the hook would give them', async (t) => {
  const c = claude()
  const s = claude('ab12')
  const ls = { command: 'ls' }
  const thrice = (agent, prefix) => [1, 2, 3].flatMap((i) => [agent.use(`${prefix}${i}`, 'Bash', ls), agent.result(`${prefix}${i}`, 'a', bash('a'))])
  const claudeLog = await file('claude.jsonl', [c.prompt('go'), ...thrice(c, 'm'), c.prompt('again'), ...thrice(c, 'n').slice(0, 4), s.prompt('look'), ...thrice(s, 's')])
  const x = codex()
  const rollout = await file('rollout.jsonl', [x.meta, x.user('go'), ...[1, 2, 3].flatMap((i) => [x.call(`c${i}`, 'exec_command', { cmd: 'ls', yield_time_ms: i }), x.output(`c${i}`, exec('a\n'))])])
  const g = gemini()
  const chat = await file('session.jsonl', [g.header, g.context, g.user('u', 'go'), ...[1, 2].flatMap((i) => {
    const call = g.call('read_file', { file_path: 'a.txt' }, { output: 'hello\n' })
    return [g.model(`m${i}`, call), g.responses(`r${i}`, call)]
  })])
  const { code, report } = await replay(claudeLog, rollout, chat, '--json', '--thresholds', '2,3')
  t.is(code, EXIT.ok)
  t.deepEqual(report.sessions.map((session) => [session.format, session.id, session.parentSession, session.calls, session.prompts, session.reminders[0].map((r) => `${r.tool}×${r.count}@${r.call}`)]), [
    ['claude-code', SESSION, undefined, 5, [1, 8], ['Bash×2@2', 'Bash×3@3', 'Bash×2@5']],
    ['claude-code', 'ab12', SESSION, 3, [13], ['Bash×2@2', 'Bash×3@3']],
    ['codex', CODEX_SESSION, undefined, 3, [2], ['Bash×2@2', 'Bash×3@3']],
    ['gemini', GEMINI_SESSION, undefined, 2, [3], ['read_file×2@2']],
  ], 'Codex\'s yield times are no arguments of the hook\'s Bash call')
  t.is(report.sessions[1].origin, 'subagent')

  const forced = await replay(rollout, '--json', '--format', 'codex')
  t.deepEqual(forced.report.sessions.map((session) => [session.format, session.calls]), [['codex', 3]])
  const wrong = await replay(rollout, '--json', '--format', 'gemini')
  t.deepEqual(wrong.report.sessions.map((session) => [session.format, session.calls]), [['gemini', 0]], 'a rollout read as a Gemini chat log has no calls')
})
