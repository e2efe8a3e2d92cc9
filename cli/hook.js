// `dsh-repeat-tool-guard hook`: one host event on stdin, the answer in the host's protocol on stdout.
// A new process per event: the session's chains are rebuilt from its state file (hook-state.js) by
// restoring its calls into a RepeatToolGuard, the event is counted, and the state written back.
// Never in the way: whatever goes wrong lets the call go ahead (exit 0, no answer) with one line on
// stderr, but a bad config, which exits 1 with the plugin's message (every host shows it to the
// user without blocking; exit 2 would block the call).
import { existsSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'

import { RepeatToolGuard } from '../lib/guard.js'
import { endsTurn, unknownKeyWarning, unknownKeys } from '../lib/keys.js'
import { ConfigFileError, loadConfig } from './config-file.js'
import { SessionStore, MAX_CALLS, MAX_SEEN, defaultStateDir } from './hook-state.js'
import { DIALECTS, hostOf } from './hosts.js'

export const HOOK_HELP = `Usage: dsh-repeat-tool-guard hook [options] < event.json

Reads one hook event of Claude Code, Codex, Gemini CLI, Copilot CLI or Cursor
on stdin and answers in that host's protocol: a reminder as additional context
after a call that loops, and with stopAt, the turn's end. See docs/HOSTS.md.

Options:
  --config <file>     The guard's config (JSON or YAML). Default: the first
                      .repeat-tool-guard.json, .yaml or .yml from the event's
                      cwd up, else ~/.config/dsh-repeat-tool-guard/config.json,
                      .yaml or .yml, else the defaults
  --state-dir <dir>   Where sessions' state lives. Default:
                      $DSH_REPEAT_TOOL_GUARD_STATE, else
                      $XDG_STATE_HOME/dsh-repeat-tool-guard (~/.local/state/...)
  --host <name>       The host's protocol: ${Object.keys(DIALECTS).join(', ')}
                      (default: told from the event)
  -h, --help          This help

Exit codes: 0 (also when the guard fails: the call goes ahead, the problem is
on stderr), 1 a bad config or option after a call (shown to the user; 0 before
a call, where Copilot CLI would deny it). Never 2, which hosts read as "block".
`

/** The options: those that take a value, and the flags. */
const VALUES = ['--config', '--state-dir', '--host']
const FLAGS = { '--help': 'help', '-h': 'help' }

/**
 * The options in `argv` by name (`config`, `state-dir`, `host`, `help`), `--name value` or
 * `--name=value`. By hand rather than with node:util's parseArgs, whose load would cost every event.
 */
function parseOptions(argv) {
  const values = {}
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].startsWith('--') && argv[i].includes('=') ? [argv[i].slice(0, argv[i].indexOf('=')), argv[i].slice(argv[i].indexOf('=') + 1)] : [argv[i], undefined]
    if (Object.hasOwn(FLAGS, flag) && inline === undefined) values[FLAGS[flag]] = true
    else if (VALUES.includes(flag)) {
      const value = inline ?? argv[++i]
      if (value === undefined) throw new Error(`Option '${flag} <value>' argument missing`)
      values[flag.slice(2)] = value
    } else throw new Error(`Unknown option '${argv[i]}'`)
  }
  return values
}

/** A problem of the user's making (an option, the config): exit code 1, which no host reads as "block". */
class SetupError extends Error {}

const CONFIG_NAMES = ['.repeat-tool-guard.json', '.repeat-tool-guard.yaml', '.repeat-tool-guard.yml']
const USER_CONFIG_NAMES = ['config.json', 'config.yaml', 'config.yml']

/** The config file for an event in `cwd`: the project's (from `cwd` up), else the user's, else none. */
function findConfig(cwd, env) {
  for (let dir = cwd; typeof dir === 'string' && dir !== ''; dir = dirname(dir)) {
    for (const name of CONFIG_NAMES) if (existsSync(join(dir, name))) return join(dir, name)
    if (dirname(dir) === dir) break
  }
  const home = join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'dsh-repeat-tool-guard')
  return USER_CONFIG_NAMES.map((name) => join(home, name)).find((path) => existsSync(path))
}

async function guardFor(path, stderr, hostName) {
  let config = {}
  if (path !== undefined) {
    try {
      config = await loadConfig(path)
    } catch (error) {
      // A missing js-yaml (peers.js' MissingPackagesError) is the user's to install, as a bad file is to fix.
      if (error instanceof ConfigFileError || error?.name === 'MissingPackagesError') throw new SetupError(`repeat-tool-guard: ${error.message}`)
      throw error
    }
  }
  for (const key of unknownKeys(config)) stderr.write(`repeat-tool-guard: ${path}: ${unknownKeyWarning(key)}\n`)
  let guard
  try {
    guard = new RepeatToolGuard(config)
  } catch (error) {
    // The plugin's own message, as the harness would show it, and where the config came from.
    throw new SetupError(path === undefined ? error.message : `${error.message} (config: ${path})`)
  }
  if (!guard.perResponse) return guard
  // No host says which model response a call came in: each call is its own, as without the option.
  stderr.write(`repeat-tool-guard: perResponse has no effect in the hook: ${hostName} does not say which model response a call came in\n`)
  return new RepeatToolGuard({ ...config, perResponse: false })
}

/** Runs the hook with `argv` (after `hook`) and `input` (stdin's text); returns its exit code. */
export async function hook(argv, { input, stdout, stderr, env = process.env }) {
  try {
    const answer = await answerEvent(argv, input, { stdout, stderr, env })
    if (answer !== undefined) stdout.write(`${JSON.stringify(answer)}\n`)
    return 0
  } catch (error) {
    if (error instanceof SetupError) {
      stderr.write(`${error.message}\n`)
      // Copilot CLI denies a call whose pre-call hook exits non-zero: there, 0.
      return isPreCall(input) ? 0 : 1
    }
    // Never in the way: the call goes ahead as if the guard were not there.
    stderr.write(`repeat-tool-guard: hook: ${error?.message ?? error} (the call goes ahead unguarded)\n`)
    return 0
  }
}

/** Whether `input` is a pre-call event, as well as it can be told (for the exit code of a setup error). */
function isPreCall(input) {
  try {
    const payload = JSON.parse(input)
    return DIALECTS[hostOf(payload)].event(payload)?.kind === 'pre'
  } catch {
    return false
  }
}

async function answerEvent(argv, input, { stdout, stderr, env }) {
  let values
  try {
    values = parseOptions(argv)
  } catch (error) {
    throw new SetupError(`repeat-tool-guard: hook: ${error.message}; run dsh-repeat-tool-guard hook --help for the options`)
  }
  if (values.help) {
    stdout.write(HOOK_HELP)
    return undefined
  }
  if (values.host !== undefined && !Object.hasOwn(DIALECTS, values.host)) throw new SetupError(`repeat-tool-guard: hook: --host ${JSON.stringify(values.host)}: expected one of ${Object.keys(DIALECTS).join(', ')}`)
  let payload
  try {
    payload = JSON.parse(input)
  } catch (error) {
    throw new Error(`stdin is not one JSON event: ${error.message}`)
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw new Error('stdin is not one JSON event object')
  const host = values.host ?? hostOf(payload)
  const dialect = DIALECTS[host]
  const event = dialect.event(payload)
  if (event === undefined) throw new Error(`${host} event ${JSON.stringify(payload.hook_event_name ?? payload.hookEventName)} is not one the hook acts on (docs/HOSTS.md lists them)`)
  if (typeof event.session !== 'string' || event.session === '') throw new Error(`${host} event without a session id`)
  const store = new SessionStore(values['state-dir'] ?? defaultStateDir(env), (line) => stderr.write(`repeat-tool-guard: hook: ${line}\n`))
  if (event.kind === 'end') {
    store.remove(host, event.session)
    return undefined
  }
  const eventName = event.name
  if (event.kind === 'pre') {
    // Only a stopped agent's calls are denied: reading its state needs no guard, nor the lock.
    const stopped = store.read(host, event.session).agents[event.agent]?.stopped
    return stopped ? dialect.answers.deny(eventName, stopped) : undefined
  }
  if (event.kind === 'prompt') {
    // A user prompt starts the agent's chain over, and lifts its stop, as in the plugin.
    store.update(host, event.session, (state) => {
      delete state.agents[event.agent]
      return true
    })
    return undefined
  }
  const guard = await guardFor(values.config ?? findConfig(event.cwd, env), stderr, host)
  if (!guard.isTracked(event.tool)) return undefined
  // `resume`: a session without state is rebuilt from its transcript (read only then, not per event).
  const rebuild = guard.resume && event.transcript && !store.has(host, event.session) ? await transcriptCalls(event, host, guard) : undefined
  let answer
  store.update(host, event.session, (state, fresh) => {
    if (event.id !== undefined) {
      // The same event again (the hook configured twice): counted once.
      if (state.seen.includes(event.id)) return false
      state.seen = [...state.seen.slice(1 - MAX_SEEN), event.id]
    }
    const agent = (state.agents[event.agent] ??= { calls: fresh && rebuild ? rebuild : [], stopped: null })
    answer = observe(guard, agent, event, { dialect, eventName })
    return true
  })
  return answer
}

/** Counts `event`'s call on `agent`'s chain (its state), restored first; the answer due, if any. */
function observe(guard, agent, event, { dialect, eventName }) {
  const id = 'agent'
  // A run of one call, however long, is restored in the work of a few hundred calls.
  for (const [tool, args, result, times] of agent.calls) guard.restore(id, tool, args, result ?? undefined, times)
  const result = guard.takesResults ? event.result : null
  const reminder = guard.observe(id, event.tool, event.args, result ?? undefined)
  remember(agent, [event.tool, event.args, result, 1])
  if (reminder === null) return undefined
  if (!endsTurn(reminder)) return dialect.answers.context(eventName, reminder.text)
  // The turn ends; the model is told once, and a call already under way when it ended only ends it
  // again, with the same reason, which every call the agent tries is denied with until a prompt.
  const tell = !agent.stopped
  agent.stopped ??= reminder.text
  return dialect.answers.stop(eventName, agent.stopped, tell)
}

/** Adds a call to the agent's kept calls: the last one's count grows when it is the same call again. */
function remember(agent, call) {
  const last = agent.calls.at(-1)
  if (last !== undefined && last[0] === call[0] && JSON.stringify(last.slice(1, 3)) === JSON.stringify(call.slice(1, 3))) last[3]++
  else agent.calls.push(call)
  if (agent.calls.length > MAX_CALLS) agent.calls.splice(0, agent.calls.length - MAX_CALLS)
}

/** `resume`: the agent's calls since the last prompt in the host's transcript, before this event's call. */
async function transcriptCalls(event, host, guard) {
  const { hookTranscriptCalls } = await import('./formats/transcripts.js')
  const calls = await hookTranscriptCalls(event.transcript, host, event.agent === 'main' ? undefined : event.agent)
  const at = event.id === undefined ? -1 : calls.findIndex((call) => call.id === event.id)
  const agent = { calls: [] }
  for (const { tool, args, result } of at === -1 ? calls : calls.slice(0, at)) {
    if (guard.isTracked(tool)) remember(agent, [tool, args, guard.takesResults ? result : null, 1])
  }
  return agent.calls
}

/** The command's entry from cli/bin.js: stdin read whole. */
export async function runHook(argv, { stdout, stderr }) {
  let input = ''
  try {
    input = readFileSync(0, 'utf8')
  } catch (error) {
    stderr.write(`repeat-tool-guard: hook: cannot read stdin: ${error.message}\n`)
    return 0
  }
  return hook(argv, { input, stdout, stderr })
}
