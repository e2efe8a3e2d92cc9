// The hook command on payloads of each host's protocol (the real clients run it in __test__/hosts/):
// the reminders the class gives for the same calls, the stop and its denials, prompts, subagents,
// events seen twice, config lookup and errors, and the state file under concurrency, kills and bounds.
import test from 'ava'
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { RepeatToolGuard } from '../lib/guard.js'
import { hookResult } from '../lib/host-results.js'
import { hook } from '../cli/hook.js'
import { markedBlocks } from './support/docs.mjs'
import { MAX_BYTES, MAX_CALLS } from '../cli/hook-state.js'

const BIN = fileURLToPath(new URL('../cli/bin.js', import.meta.url))

/** A temporary project directory and state directory. */
function place() {
  const root = mkdtempSync(join(tmpdir(), 'hook-'))
  const cwd = join(root, 'project')
  mkdirSync(cwd)
  return { root, cwd, state: join(root, 'state'), env: { XDG_CONFIG_HOME: join(root, 'config') } }
}

/** Runs the hook in this process on `payload`; its exit code, stdout's answer (parsed) and stderr. */
async function run(where, payload, argv = []) {
  let out = ''
  let err = ''
  const input = typeof payload === 'string' ? payload : JSON.stringify({ cwd: where.cwd, ...payload })
  const code = await hook(['--state-dir', where.state, ...argv], { input, stdout: { write: (s) => (out += s) }, stderr: { write: (s) => (err += s) }, env: where.env })
  return { code, answer: out === '' ? undefined : JSON.parse(out), stderr: err }
}

// One call as each host's post-call event carries it, its pre-call event and a prompt; where its
// answers put the model's text (`contextOf`), how it denies, and whether `continue: false` ends its turns.
const hookContext = (answer) => answer?.hookSpecificOutput?.additionalContext
const HOSTS = {
  'claude-code': {
    post: (session, n, input, extra) => ({ session_id: session, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: input, tool_response: { stdout: 'out', stderr: '', interrupted: false, isImage: false }, tool_use_id: `toolu_${n}`, ...extra }),
    pre: (session) => ({ session_id: session, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_pre' }),
    prompt: (session) => ({ session_id: session, hook_event_name: 'UserPromptSubmit', prompt: 'go on' }),
    contextOf: hookContext,
    deny: (text) => ({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: text } }),
    ends: true,
  },
  codex: {
    post: (session, n, input) => ({ session_id: session, turn_id: 't', hook_event_name: 'PostToolUse', model: 'm', tool_name: 'Bash', tool_input: input, tool_response: 'out', tool_use_id: `call_${n}` }),
    pre: (session) => ({ session_id: session, turn_id: 't', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'call_pre' }),
    prompt: (session) => ({ session_id: session, turn_id: 't', hook_event_name: 'UserPromptSubmit', prompt: 'go on' }),
    contextOf: hookContext,
    deny: (text) => ({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: text } }),
    ends: false,
  },
  gemini: {
    post: (session, n, input) => ({ session_id: session, hook_event_name: 'AfterTool', timestamp: `${n}`, tool_name: 'Bash', tool_input: input, tool_response: { llmContent: `Output: out\nProcess Group PGID: ${1000 + n}`, returnDisplay: 'out' } }),
    pre: (session) => ({ session_id: session, hook_event_name: 'BeforeTool', tool_name: 'Bash', tool_input: { command: 'ls' } }),
    prompt: (session) => ({ session_id: session, hook_event_name: 'BeforeAgent', prompt: 'go on' }),
    contextOf: hookContext,
    deny: (text) => ({ decision: 'deny', reason: text }),
    ends: true,
  },
  // From Copilot CLI's documented payloads (camelCase events: no event name, `toolArgs` as JSON text).
  copilot: {
    post: (session, n, input) => ({ sessionId: session, timestamp: n, toolName: 'Bash', toolArgs: JSON.stringify(input), toolResult: { resultType: 'success', textResultForLlm: 'out' } }),
    pre: (session) => ({ sessionId: session, timestamp: 0, toolName: 'Bash', toolArgs: '{"command":"ls"}' }),
    prompt: (session) => ({ sessionId: session, timestamp: 0, prompt: 'go on' }),
    contextOf: (answer) => answer?.additionalContext,
    deny: (text) => ({ permissionDecision: 'deny', permissionDecisionReason: text }),
    ends: false,
  },
  // From Cursor's documented payloads (`conversation_id`, snake_case answers).
  cursor: {
    post: (session, n, input) => ({ conversation_id: session, generation_id: 'g', hook_event_name: 'postToolUse', tool_name: 'Bash', tool_input: input, tool_output: 'out', tool_use_id: `c${n}` }),
    pre: (session) => ({ conversation_id: session, generation_id: 'g', hook_event_name: 'preToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } }),
    prompt: (session) => ({ conversation_id: session, generation_id: 'g', hook_event_name: 'beforeSubmitPrompt', prompt: 'go on' }),
    contextOf: (answer) => answer?.additional_context,
    deny: (text) => ({ permission: 'deny', user_message: text, agent_message: text }),
    ends: false,
  },
}

/** The class's reminder texts (or null) for the same calls. */
function expected(config, host, payloads) {
  const guard = new RepeatToolGuard(config)
  return payloads.map((p) => guard.observe('main', p.tool_name ?? p.toolName, p.tool_input ?? JSON.parse(p.toolArgs), hookResult(host, p))?.text ?? null)
}

for (const [host, events] of Object.entries(HOSTS)) {
  test(`${host}: five identical calls give the class's reminders, at calls 3 and 5, as additional context`, async (t) => {
    const where = place()
    const payloads = Array.from({ length: 5 }, (_, i) => events.post('s1', i, { command: 'ls' }))
    const texts = []
    for (const payload of payloads) {
      const { code, answer, stderr } = await run(where, payload)
      t.is(code, 0)
      t.is(stderr, '')
      if (answer?.hookSpecificOutput) t.is(answer.hookSpecificOutput.hookEventName, payload.hook_event_name)
      texts.push(events.contextOf(answer) ?? null)
    }
    const want = expected({}, host, payloads)
    t.deepEqual(texts, want)
    t.deepEqual(texts.map((text) => text !== null), [false, false, true, false, true])
  })

  test(`${host}: at stopAt the model is told once, the turn ends where the host can end it, and the agent's calls are denied until a prompt`, async (t) => {
    const where = place()
    writeFileSync(join(where.cwd, '.repeat-tool-guard.json'), '{"stopAt": 3}')
    const answers = []
    for (let i = 0; i < 4; i++) answers.push((await run(where, events.post('s1', i, { command: 'ls' }))).answer)
    t.deepEqual(answers.slice(0, 2), [undefined, undefined])
    const stop = answers[2]
    const text = events.contextOf(stop)
    t.regex(text, /^Tool call loop stopped:\n- tool: Bash\n- calls: 3,/)
    if (events.ends) {
      t.deepEqual([stop.continue, stop.stopReason], [false, text])
      // A call already under way: the turn ends again, with the same reason, and no second message.
      t.deepEqual(answers[3], { continue: false, stopReason: text })
    } else {
      // No `continue: false` where it does not end a turn (Codex would put the reason in place of the result).
      t.false('continue' in stop)
      t.is(answers[3], undefined)
    }
    t.deepEqual((await run(where, events.pre('s1'))).answer, events.deny(text))
    t.is((await run(where, events.prompt('s1'))).answer, undefined)
    t.is((await run(where, events.pre('s1'))).answer, undefined, 'a prompt lifts the stop')
    t.is((await run(where, events.post('s1', 9, { command: 'ls' }))).answer, undefined, 'and starts the chain over')
  })

  test(`${host}: a user prompt starts the chain over; sessions are apart`, async (t) => {
    const where = place()
    const answers = []
    for (let i = 0; i < 2; i++) await run(where, events.post('s1', i, { command: 'ls' }))
    await run(where, events.prompt('s1'))
    for (let i = 2; i < 4; i++) answers.push((await run(where, events.post('s1', i, { command: 'ls' }))).answer)
    for (let i = 0; i < 2; i++) answers.push((await run(where, events.post('s2', 10 + i, { command: 'ls' }))).answer)
    t.deepEqual(answers, [undefined, undefined, undefined, undefined])
    t.truthy((await run(where, events.post('s1', 4, { command: 'ls' }))).answer, 'the third call since the prompt')
  })
}

test('the recommended profile: one tool failing with one error for other arguments reminds at the third call, from the results as each host gives them', async (t) => {
  const where = place()
  writeFileSync(join(where.cwd, '.repeat-tool-guard.json'), '{"profile": "recommended"}')
  const payloads = ['a', 'b', 'c'].map((name, i) => ({ session_id: 'f', hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command: `cd /missing && make ${name}` }, error: 'Exit code 1\n/bin/sh: 1: cd: can\'t cd to /missing', tool_use_id: `f${i}` }))
  const texts = []
  for (const payload of payloads) texts.push((await run(where, payload)).answer?.hookSpecificOutput.additionalContext ?? null)
  t.deepEqual(texts, expected({ profile: 'recommended' }, 'claude-code', payloads))
  t.regex(texts[2], /same_error: 3 of the last 8 calls/)
})

test('a subagent (agent_id) has its own chain', async (t) => {
  const where = place()
  const post = HOSTS['claude-code'].post
  const answers = []
  for (let i = 0; i < 3; i++) {
    answers.push((await run(where, post('s', `m${i}`, { command: 'ls' }))).answer !== undefined)
    answers.push((await run(where, post('s', `a${i}`, { command: 'ls' }, { agent_id: 'sub-1', agent_type: 'Explore' }))).answer !== undefined)
  }
  t.deepEqual(answers, [false, false, false, false, true, true])
})

test('one event seen twice (the hook configured at two levels) counts once, by tool_use_id', async (t) => {
  const where = place()
  const post = HOSTS['claude-code'].post
  const answers = []
  for (const id of [1, 1, 2, 2, 3, 3]) answers.push((await run(where, post('s', id, { command: 'ls' }))).answer !== undefined)
  t.deepEqual(answers, [false, false, false, false, true, false])
})

test('SessionEnd removes the session\'s state', async (t) => {
  const where = place()
  await run(where, HOSTS['claude-code'].post('gone', 1, { command: 'ls' }))
  t.deepEqual(readdirSync(where.state), ['claude-code-gone.json'])
  t.is((await run(where, { session_id: 'gone', hook_event_name: 'SessionEnd', reason: 'exit' })).code, 0)
  t.deepEqual(readdirSync(where.state), [])
})

test('never in the way: bad stdin, an unknown event, an unreadable state file go ahead with exit 0 and one line on stderr', async (t) => {
  const where = place()
  for (const [input, why] of [
    ['not json', /^repeat-tool-guard: hook: stdin is not one JSON event: .*\(the call goes ahead unguarded\)\n$/],
    ['[1]', /stdin is not one JSON event object/],
    [JSON.stringify({ session_id: 's', hook_event_name: 'Notification' }), /claude-code event "Notification" is not one the hook acts on/],
    [JSON.stringify({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: {} }), /event without a session id/],
  ]) {
    const { code, answer, stderr } = await run(where, input)
    t.is(code, 0)
    t.is(answer, undefined)
    t.regex(stderr, why)
    t.is(stderr.split('\n').length, 2, stderr)
  }
  mkdirSync(where.state, { recursive: true })
  mkdirSync(join(where.state, 'claude-code-dir.json'))
  const { code, answer, stderr } = await run(where, HOSTS['claude-code'].post('dir', 1, { command: 'ls' }))
  t.deepEqual([code, answer], [0, undefined])
  t.regex(stderr, /^repeat-tool-guard: hook: .*EISDIR.*\(the call goes ahead unguarded\)\n$/)
})

test('a state file that is not JSON is started over, with one line on stderr', async (t) => {
  const where = place()
  mkdirSync(where.state, { recursive: true })
  writeFileSync(join(where.state, 'claude-code-bad.json'), '{"agents": {')
  const first = await run(where, HOSTS['claude-code'].post('bad', 1, { command: 'ls' }))
  t.deepEqual([first.code, first.answer], [0, undefined])
  t.regex(first.stderr, /claude-code-bad\.json.*started over/)
  for (const n of [2, 3]) await run(where, HOSTS['claude-code'].post('bad', n, { command: 'ls' }))
  const state = JSON.parse(readFileSync(join(where.state, 'claude-code-bad.json'), 'utf8'))
  t.is(state.agents.main.calls[0][3], 3)
})

test('a bad config gets the plugin\'s exact message and exit code 1 (never 2, which blocks); a bad option too', async (t) => {
  const where = place()
  writeFileSync(join(where.cwd, '.repeat-tool-guard.json'), '{"thresholds": [1]}')
  let message
  try {
    new RepeatToolGuard({ thresholds: [1] })
  } catch (error) {
    message = error.message
  }
  const bad = await run(where, HOSTS['claude-code'].post('s', 1, { command: 'ls' }))
  t.is(bad.code, 1)
  t.is(bad.answer, undefined)
  t.is(bad.stderr, `${message} (config: ${join(where.cwd, '.repeat-tool-guard.json')})\n`)
  writeFileSync(join(where.cwd, '.repeat-tool-guard.json'), '{"thresholds": ')
  const torn = await run(where, HOSTS['claude-code'].post('s', 2, { command: 'ls' }))
  t.is(torn.code, 1)
  t.regex(torn.stderr, /^repeat-tool-guard: .*\.repeat-tool-guard\.json: not valid JSON/)
  const option = await run(where, HOSTS['claude-code'].post('s', 3, { command: 'ls' }), ['--hots', 'codex'])
  t.is(option.code, 1)
  t.regex(option.stderr, /Unknown option '--hots'/)
  const host = await run(where, HOSTS['claude-code'].post('s', 4, { command: 'ls' }), ['--host', 'emacs'])
  t.is(host.code, 1)
  t.regex(host.stderr, /--host "emacs": expected one of claude-code, codex, gemini, copilot, cursor/)
})

test('the config: --config first, then the project\'s from the event\'s cwd up, then the user\'s; YAML too; unknown keys warned', async (t) => {
  const where = place()
  const nested = join(where.cwd, 'a', 'b')
  mkdirSync(nested, { recursive: true })
  mkdirSync(join(where.env.XDG_CONFIG_HOME, 'dsh-repeat-tool-guard'), { recursive: true })
  writeFileSync(join(where.env.XDG_CONFIG_HOME, 'dsh-repeat-tool-guard', 'config.json'), '{"thresholds": [4]}')
  const reminderAt = async (session, argv = [], cwd = nested) => {
    for (let i = 1; i <= 6; i++) {
      const { answer } = await run({ ...where, cwd }, HOSTS['claude-code'].post(session, i, { command: 'ls' }), argv)
      if (answer !== undefined) return i
    }
    return undefined
  }
  t.is(await reminderAt('user'), 4, 'the user\'s config')
  writeFileSync(join(where.cwd, '.repeat-tool-guard.yml'), 'thresholds: [2]\nthresholdz: 1\n')
  t.is(await reminderAt('project'), 2, 'the project\'s, found from a subdirectory')
  const own = join(where.root, 'own.json')
  writeFileSync(own, '{"thresholds": [5]}')
  t.is(await reminderAt('flag', ['--config', own]), 5)
  const { stderr } = await run({ ...where, cwd: nested }, HOSTS['claude-code'].post('warn', 1, { command: 'ls' }))
  t.regex(stderr, /\.repeat-tool-guard\.yml: unknown config key "thresholdz" is ignored \(known keys: thresholds, /)
})

test('perResponse is said to have no effect: each call counts as its own response', async (t) => {
  const where = place()
  writeFileSync(join(where.cwd, '.repeat-tool-guard.json'), '{"perResponse": true}')
  let last
  for (let i = 0; i < 3; i++) last = await run(where, HOSTS.codex.post('s', i, { command: 'ls' }))
  t.truthy(last.answer)
  t.regex(last.stderr, /perResponse has no effect in the hook: codex does not say which model response a call came in/)
})

test('state stays bounded: an agent keeps its last MAX_CALLS calls, a long run of one call is one entry, a session\'s file stays under MAX_BYTES', async (t) => {
  const where = place()
  const post = HOSTS['claude-code'].post
  for (let i = 0; i < MAX_CALLS + 20; i++) await run(where, post('many', i, { command: `echo ${i}` }))
  const file = join(where.state, 'claude-code-many.json')
  let state = JSON.parse(readFileSync(file, 'utf8'))
  t.is(state.agents.main.calls.length, MAX_CALLS)
  t.is(state.agents.main.calls[0][1].command, 'echo 20')
  // Identical calls: one entry whatever the run's length, and the run's count is kept.
  for (let i = 0; i < 30; i++) await run(where, post('one', `r${i}`, { command: 'ls' }))
  state = JSON.parse(readFileSync(join(where.state, 'claude-code-one.json'), 'utf8'))
  t.deepEqual(state.agents.main.calls, [['Bash', { command: 'ls' }, null, 30]])
  // Large arguments: the oldest calls go first.
  const big = 'x'.repeat(100_000)
  for (let i = 0; i < 15; i++) await run(where, post('big', i, { command: `${big}${i}` }))
  const bytes = readFileSync(join(where.state, 'claude-code-big.json')).length
  t.true(bytes <= MAX_BYTES, `${bytes}`)
  state = JSON.parse(readFileSync(join(where.state, 'claude-code-big.json'), 'utf8'))
  t.true(state.agents.main.calls.length >= 9)
  t.is(state.agents.main.calls.at(-1)[1].command, `${big}14`)
})

test('sessions untouched for a week and leftovers of killed processes are removed when a session starts', async (t) => {
  const where = place()
  await run(where, HOSTS['claude-code'].post('old', 1, { command: 'ls' }))
  const old = (Date.now() - 8 * 24 * 3600 * 1000) / 1000
  utimesSync(join(where.state, 'claude-code-old.json'), old, old)
  writeFileSync(join(where.state, 'claude-code-x.json.tmp-1-ab'), '{')
  utimesSync(join(where.state, 'claude-code-x.json.tmp-1-ab'), old, old)
  await run(where, HOSTS['claude-code'].post('new', 1, { command: 'ls' }))
  t.deepEqual(readdirSync(where.state), ['claude-code-new.json'])
})

test('a lock left by a killed process is taken over', async (t) => {
  const where = place()
  mkdirSync(where.state, { recursive: true })
  const lock = join(where.state, 'claude-code-s.json.lock')
  writeFileSync(lock, '1 dead')
  const old = (Date.now() - 60_000) / 1000
  utimesSync(lock, old, old)
  const { code, stderr } = await run(where, HOSTS['claude-code'].post('s', 1, { command: 'ls' }))
  t.deepEqual([code, stderr], [0, ''])
  t.deepEqual(readdirSync(where.state), ['claude-code-s.json'])
})

/** Runs the hook command as hosts do, a process per event; resolves to its exit code, stdout and stderr. */
function spawnHook(where, payload, { kill } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'hook', '--state-dir', where.state], { env: { ...process.env, ...where.env } })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    child.on('close', (code, signal) => resolve({ code, signal, out, err }))
    // A child killed before it read its stdin closes the pipe under the write.
    child.stdin.on('error', () => {})
    child.stdin.end(JSON.stringify({ cwd: where.cwd, ...payload }))
    if (kill !== undefined) setTimeout(() => child.kill('SIGKILL'), kill)
  })
}

test('concurrent events of one session (parallel calls, several hooks) are each counted once', async (t) => {
  const where = place()
  const post = HOSTS['claude-code'].post
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) => spawnHook(where, post('p', i, { command: 'ls' }))))
  t.deepEqual(results.map((r) => [r.code, r.err]), results.map(() => [0, '']))
  const state = JSON.parse(readFileSync(join(where.state, 'claude-code-p.json'), 'utf8'))
  t.deepEqual(state.agents.main.calls, [['Bash', { command: 'ls' }, null, 12]])
  // Exactly the runs that reached 3, 5 and 8 were answered, whichever process each was.
  t.is(results.filter((r) => r.out !== '').length, 3)
})

test('a process killed mid-event loses at most its own call: the state stays readable and counts every finished call', async (t) => {
  const where = place()
  const post = HOSTS['claude-code'].post
  const big = { command: 'ls', pad: 'y'.repeat(200_000) }
  t.is((await spawnHook(where, post('k', 'first', big))).code, 0)
  // Kills spread over a process's life (a start takes about 100 ms or more on a busy machine).
  let finished = 1
  for (let i = 0; i < 16; i++) {
    const { code, err } = await spawnHook(where, post('k', i, big), { kill: 60 + ((i * 37) % 400) })
    if (code === 0 && err === '') finished++
  }
  const state = JSON.parse(readFileSync(join(where.state, 'claude-code-k.json'), 'utf8'))
  const counted = state.agents.main.calls[0][3]
  // A process killed after its rename but before exiting counted its call too.
  t.true(counted >= finished && counted <= 17, `${counted} counted, ${finished} finished`)
  t.deepEqual(state.agents.main.calls.map((c) => c[1]), [big])
  const next = await spawnHook(where, post('k', 99, big))
  t.is(next.code, 0)
  t.is(JSON.parse(readFileSync(join(where.state, 'claude-code-k.json'), 'utf8')).agents.main.calls[0][3], counted + 1)
})

test('the command: hook --help; an event loads the class and the hook\'s own modules only, neither the plugin, cordis, the harness, the schema nor the replay', (t) => {
  const help = spawnSync(process.execPath, [BIN, 'hook', '--help'], { encoding: 'utf8' })
  t.is(help.status, 0)
  t.regex(help.stdout, /^Usage: dsh-repeat-tool-guard hook/)
  const where = place()
  const trace = join(where.root, 'imports')
  // --no-deprecation: newer Nodes deprecate the trace's module.register(), on stderr.
  const event = spawnSync(process.execPath, ['--no-deprecation', '--import', new URL('support/trace-imports.mjs', import.meta.url).href, BIN, 'hook', '--state-dir', where.state], {
    input: JSON.stringify(HOSTS['claude-code'].post('t', 1, { command: 'ls' })),
    env: { ...process.env, TRACE_IMPORTS: trace },
    encoding: 'utf8',
  })
  t.deepEqual([event.status, event.stderr], [0, ''])
  const loaded = readFileSync(trace, 'utf8').trim().split('\n').filter((url) => url.startsWith('file:')).map((url) => url.replace(/^.*?\/(cli|lib)\//, '$1/'))
  t.deepEqual([...new Set(loaded)].sort(), ['cli/bin.js', 'cli/config-file.js', 'cli/hook-state.js', 'cli/hook.js', 'cli/hosts.js', 'lib/guard.js', 'lib/host-results.js', 'lib/json-text.js', 'lib/keys.js'])
})

test('a setup error before a call exits 0 (Copilot CLI denies a call whose pre-call hook fails), after a call 1', async (t) => {
  const where = place()
  const pre = await run(where, HOSTS.copilot.pre('s'), ['--hots'])
  t.is(pre.code, 0)
  t.regex(pre.stderr, /Unknown option '--hots'/)
  t.is((await run(where, HOSTS.copilot.post('s', 1, { command: 'ls' }), ['--hots'])).code, 1)
})

test('a prompt starts over only the chain of the agent it is for (a Codex subagent gets prompts of its own)', async (t) => {
  const where = place()
  const post = (n, agent) => ({ ...HOSTS.codex.post('s', n, { command: 'ls' }), ...(agent ? { agent_id: agent, agent_type: 'default' } : {}) })
  for (let i = 0; i < 2; i++) {
    await run(where, post(`m${i}`))
    await run(where, post(`a${i}`, 'sub'))
  }
  await run(where, { ...HOSTS.codex.prompt('s'), agent_id: 'sub', agent_type: 'default' })
  t.truthy((await run(where, post('m2'))).answer, 'the main agent\'s third call')
  t.is((await run(where, post('a2', 'sub'))).answer, undefined, 'the subagent\'s first since its prompt')
})

test('Copilot CLI\'s failures (postToolUseFailure: its `error`) count for failures', async (t) => {
  const where = place()
  writeFileSync(join(where.cwd, '.repeat-tool-guard.json'), '{"failures": {}}')
  const fail = (n) => ({ sessionId: 'c', timestamp: n, toolName: 'bash', toolArgs: JSON.stringify({ command: `make t${n}` }), error: 'make: *** No rule to make target' })
  const answers = []
  for (const n of [1, 2, 3]) answers.push((await run(where, fail(n))).answer?.additionalContext ?? null)
  t.deepEqual(answers.map((a) => a !== null), [false, false, true])
  t.regex(answers[2], /same_error: 3 of the last 8 calls/)
})

test('Copilot CLI\'s and Cursor\'s snippets on docs/HOSTS.md name every event the hook acts on, each running the command that answers it', async (t) => {
  const { SNIPPETS } = await import('./hosts/support/snippets.mjs')
  t.deepEqual(Object.keys(SNIPPETS).sort(), ['claude-code', 'codex', 'copilot', 'cursor', 'gemini'])
  // The README's copies are the page's, which the real clients run.
  const copies = Object.entries(markedBlocks('README.md', 'snippet', 'json'))
  t.true(copies.length > 0)
  for (const [host, text] of copies) t.is(text, SNIPPETS[host], host)
  for (const host of ['copilot', 'cursor']) {
    const { hooks } = JSON.parse(SNIPPETS[host])
    const commands = Object.fromEntries(Object.entries(hooks).map(([name, [entry]]) => [name, entry.bash ?? entry.command]))
    const events = HOSTS[host]
    const where = place()
    const argvOf = (name) => commands[name].replace(/^dsh-repeat-tool-guard hook ?/, '').split(' ').filter(Boolean)
    const answers = []
    for (let i = 0; i < 3; i++) answers.push(events.contextOf((await run(where, events.post('s', i, { command: 'ls' }), argvOf('postToolUse'))).answer) ?? null)
    t.deepEqual(answers.map((a) => a !== null), [false, false, true], host)
    t.is((await run(where, events.prompt('s'), argvOf(host === 'copilot' ? 'userPromptSubmitted' : 'beforeSubmitPrompt'))).code, 0)
    t.is((await run(where, events.pre('s'), argvOf('preToolUse'))).answer, undefined)
    t.deepEqual(Object.keys(commands).sort(), host === 'copilot'
      ? ['postToolUse', 'postToolUseFailure', 'preToolUse', 'sessionEnd', 'userPromptSubmitted']
      : ['beforeSubmitPrompt', 'postToolUse', 'postToolUseFailure', 'preToolUse', 'sessionEnd'])
  }
})

test('resume: a session whose state is gone continues from its transcript\'s calls since the last prompt; without resume it starts over', async (t) => {
  const where = place()
  const transcript = join(where.root, 'session.jsonl')
  const record = (fields) => JSON.stringify({ sessionId: 'r', isSidechain: false, ...fields })
  const call = (n) => [
    record({ type: 'assistant', message: { id: `m${n}`, role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${n}`, name: 'Bash', input: { command: 'ls' } }] } }),
    record({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: 'out' }] }, toolUseResult: { stdout: 'out', stderr: '', interrupted: false, isImage: false } }),
  ]
  const prompt = record({ type: 'user', message: { role: 'user', content: 'list the files' } })
  // A call before the prompt, which does not count, then two since it.
  writeFileSync(transcript, [prompt, ...call(0), prompt, ...call(1), ...call(2)].join('\n') + '\n')
  const event = { ...HOSTS['claude-code'].post('r', 3, { command: 'ls' }), transcript_path: transcript }
  t.is((await run(where, event)).answer, undefined, 'without resume, the chain starts with this call')
  const resumed = place()
  writeFileSync(join(resumed.cwd, '.repeat-tool-guard.json'), '{"resume": true}')
  const { answer, stderr } = await run(resumed, event)
  t.is(stderr, '')
  t.is(answer?.hookSpecificOutput.additionalContext, expected({}, 'claude-code', [event, event, event])[2])
  // The transcript is read only for a session without state: here it is no longer a file.
  rmSync(transcript)
  mkdirSync(transcript)
  const fourth = await run(resumed, { ...event, tool_use_id: 'toolu_4' })
  t.deepEqual([fourth.answer, fourth.stderr], [undefined, ''])
  t.truthy((await run(resumed, { ...event, tool_use_id: 'toolu_5' })).answer, 'the fifth call: the detailed reminder')
})

test('a long run of one call is restored whole: its 608th call brings repeatEvery\'s reminder, counted as the class counts it', async (t) => {
  const where = place()
  writeFileSync(join(where.cwd, '.repeat-tool-guard.json'), '{"repeatEvery": 100, "profile": "recommended"}')
  const post = HOSTS['claude-code'].post
  await run(where, post('long', 0, { command: 'ls' }))
  // The state of 607 calls of `ls`, as the hook keeps it: one entry with its count.
  const file = join(where.state, 'claude-code-long.json')
  const state = JSON.parse(readFileSync(file, 'utf8'))
  state.agents.main.calls[0][3] = 607
  writeFileSync(file, JSON.stringify(state))
  const { answer } = await run(where, post('long', 608, { command: 'ls' }))
  const guard = new RepeatToolGuard({ repeatEvery: 100, profile: 'recommended' })
  const payload = post('long', 1, { command: 'ls' })
  for (let i = 0; i < 607; i++) guard.restore('main', 'Bash', payload.tool_input, hookResult('claude-code', payload))
  const expected608 = guard.observe('main', 'Bash', payload.tool_input, hookResult('claude-code', payload))
  t.is(expected608.count, 608)
  t.is(answer?.hookSpecificOutput.additionalContext, expected608.text)
})
