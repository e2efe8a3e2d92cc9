// `dsh-repeat-tool-guard replay`: reads each input as a stream, one run at a time (so memory
// follows neither the total nor one log's size), replays each run through the guard under each
// config, and reports.
import { access, stat, writeFile } from 'node:fs/promises'
import { constants } from 'node:fs'
import { dirname } from 'node:path'

import { RepeatToolGuard } from '../lib/guard.js'
import { unknownKeyWarning, unknownKeys } from '../lib/keys.js'
import { guardInputs } from '../lib/history.js'
import { readRuns } from './formats/index.js'
import { OlderShape } from './formats/harness.js'
import { EXIT as CODES, HELP, UsageError, VERSION, parseCommand } from './options.js'
import { MissingPackagesError } from './peers.js'
import { Replay } from './replay.js'
import { buildReport, sessionSummary } from './report.js'
import { InputError, SessionReader, findLogs } from './sessions.js'
import { textReport } from './text.js'

/** The exit codes by name (options.js declares them with their meaning, for the help). */
export const EXIT = Object.fromEntries(Object.entries(CODES).map(([name, [code]]) => [name, code]))

/** Progress on stderr: a bar redrawn in place on a TTY, a plain line every second otherwise; it moves within a file too. */
function progress(stderr, total, totalBytes, clock) {
  const tty = stderr.isTTY === true
  // The first line comes after a second (or at the end): a short run prints one.
  let last = clock()
  const mb = (bytes) => (bytes / 1e6).toFixed(1)
  return {
    update(done, bytes) {
      const now = clock()
      if (!tty && now - last < 1000 && done < total) return
      if (tty && now - last < 50 && done < total) return
      last = now
      const text = `${done}/${total} logs, ${mb(bytes)}/${mb(totalBytes)} MB`
      if (tty) {
        const width = 30
        const filled = Math.round((totalBytes ? Math.min(bytes / totalBytes, 1) : done / total) * width)
        stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}\x1b[K`)
      } else {
        stderr.write(`replay: ${text}\n`)
      }
    },
    done() {
      if (tty) stderr.write('\r\x1b[K')
    },
  }
}

/** Why the HTML report could not be written to `path`, or undefined when it can be. */
async function unwritable(path) {
  try {
    if ((await stat(path)).isDirectory()) return 'it is a directory'
    await access(path, constants.W_OK)
    return undefined
  } catch (error) {
    if (error.code === 'ENOTDIR') return `${dirname(path)} is not a directory`
    if (error.code !== 'ENOENT') return error.message
  }
  try {
    if (!(await stat(dirname(path))).isDirectory()) return `${dirname(path)} is not a directory`
    await access(dirname(path), constants.W_OK)
    return undefined
  } catch (error) {
    return error.code === 'ENOENT' ? `no such directory: ${dirname(path)}` : error.message
  }
}

/** Replays `run` (as cli/formats reads it) and returns its summary; a harness log in an older shape is read again through the backend. */
async function replayRun(replay, run, { file, reader, outcomeField }) {
  const replayed = replay.start(run.meta)
  try {
    for await (const input of run.inputs) replayed.feed(input)
  } catch (error) {
    replayed.abandon()
    if (!(error instanceof OlderShape)) throw error
    const { meta, events } = await reader.read(file)
    const inputs = guardInputs(events, { from: meta.seedLength ?? 0 })
    return replayRun(replay, { ...run, meta: { ...run.meta, seedLength: meta.seedLength }, events: events.length, inputs }, { file, reader, outcomeField })
  }
  return sessionSummary(file, run, replayed.finish(), outcomeField)
}

/** Runs the command with `argv` (the arguments after the program); returns its exit code. `now` is the progress bar's clock. */
export async function main(argv, { stdout, stderr, now = Date.now }) {
  try {
    return await runCommand(argv, { stdout, stderr, now })
  } catch (error) {
    // A package the command imports on first use (a config's YAML parser, the session reader).
    if (error instanceof MissingPackagesError) {
      stderr.write(`replay: ${error.message}\n`)
      return EXIT.missing
    }
    // Anything else is the command's own failure, told apart from an input it could not read.
    stderr.write(`replay: internal error: ${error?.stack ?? error}\n`)
    return EXIT.internal
  }
}

async function runCommand(argv, { stdout, stderr, now }) {
  let command
  try {
    command = await parseCommand(argv)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    stderr.write(`replay: ${error.message}\nRun dsh-repeat-tool-guard --help for the options.\n`)
    return EXIT.usage
  }
  if (command.help) {
    stdout.write(HELP)
    return EXIT.ok
  }
  if (command.version) {
    stdout.write(VERSION)
    return EXIT.ok
  }
  for (const { label, config } of command.configs) {
    try {
      // The guard's own validation, with the plugin's messages: the config would fail at plugin load too.
      new RepeatToolGuard(config)
    } catch (error) {
      stderr.write(`replay: ${label}: ${error.message}\n`)
      return EXIT.usage
    }
  }
  if (command.html !== undefined) {
    const why = await unwritable(command.html)
    if (why !== undefined) {
      stderr.write(`replay: cannot write the HTML report to ${command.html}: ${why}\n`)
      return EXIT.output
    }
  }
  const replay = new Replay(command.configs.map(({ config }) => config))
  for (const { label, config } of command.configs) {
    for (const key of unknownKeys(config)) stderr.write(`replay: warning: ${label}: ${unknownKeyWarning(key)}\n`)
  }
  const errors = []
  const warnings = []
  let bar = null
  const fail = (error) => {
    if (!(error instanceof InputError)) throw error
    errors.push({ message: error.message })
    bar?.done()
    stderr.write(`replay: ${error.message}\n`)
  }
  // Under --json the warnings are in the report only, so that stderr holds nothing but errors.
  const warn = (message) => {
    warnings.push({ message })
    if (command.json) return
    bar?.done()
    stderr.write(`replay: warning: ${message}\n`)
  }
  let logs = []
  for (const input of command.inputs) {
    try {
      logs.push(...(await findLogs([input])))
    } catch (error) {
      fail(error)
    }
  }
  logs = [...new Map(logs.map((log) => [log.path, log])).values()]
  const reader = new SessionReader()
  const sessions = []
  const totalBytes = logs.reduce((sum, log) => sum + log.bytes, 0)
  bar = command.json ? null : progress(stderr, logs.length, totalBytes, now)
  let bytes = 0
  for (const [i, log] of logs.entries()) {
    const options = { format: command.format, reader, warn, fail, onBytes: (read) => bar?.update(i, bytes + read) }
    try {
      for await (const run of readRuns(log.path, options)) sessions.push(await replayRun(replay, run, { file: log.path, reader, outcomeField: command.outcomeField }))
    } catch (error) {
      fail(error)
    }
    bytes += log.bytes
    bar?.update(i + 1, bytes)
  }
  bar?.done()
  if (logs.length === 0 && errors.length === 0) fail(new InputError(`no logs or trajectories (*.jsonl, raw, .gz, .zst or .zstd) under ${command.inputs.join(', ')}`))
  const report = buildReport({ configs: command.configs, sessions, replay, errors, warnings, outcomeField: command.outcomeField })
  let written = true
  if (command.html !== undefined) {
    const { htmlReport } = await import('./html.js')
    try {
      await writeFile(command.html, htmlReport(report))
    } catch (error) {
      stderr.write(`replay: cannot write the HTML report to ${command.html}: ${error.message}\n`)
      written = false
    }
  }
  stdout.write(command.json ? `${JSON.stringify(report, null, 2)}\n` : textReport(report))
  if (!written) return EXIT.output
  return errors.length ? EXIT.input : EXIT.ok
}
