// `dsh-repeat-tool-guard replay`: reads each session log (one at a time, so memory follows the
// largest session, not the total), replays it through the guard under each config, and reports.
import { writeFile } from 'node:fs/promises'

import { RepeatToolGuard } from '../index.js'
import { KNOWN_KEYS, unknownKeys } from '../lib/options.js'
import { HELP, UsageError, parseCommand } from './options.js'
import { MissingPackagesError } from './peers.js'
import { Replay } from './replay.js'
import { buildReport, sessionSummary } from './report.js'
import { InputError, SessionReader, findLogs } from './sessions.js'
import { textReport } from './text.js'

export const EXIT = { ok: 0, input: 1, usage: 2, missing: 3 }

/** Progress on stderr: a bar redrawn in place on a TTY, a plain line every second otherwise. */
function progress(stderr, total, totalBytes) {
  const tty = stderr.isTTY === true
  // The first line comes after a second (or at the end): a short run prints one.
  let last = Date.now()
  const mb = (bytes) => (bytes / 1e6).toFixed(1)
  return {
    update(done, bytes) {
      const now = Date.now()
      if (!tty && now - last < 1000 && done < total) return
      if (tty && now - last < 50 && done < total) return
      last = now
      const text = `${done}/${total} logs, ${mb(bytes)}/${mb(totalBytes)} MB`
      if (tty) {
        const width = 30
        const filled = Math.round((totalBytes ? bytes / totalBytes : done / total) * width)
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

/** Runs the command with `argv` (the arguments after the program); returns its exit code. */
export async function main(argv, { stdout, stderr }) {
  try {
    return await runCommand(argv, { stdout, stderr })
  } catch (error) {
    // A package the command imports on first use (a config's YAML parser, the session reader).
    if (!(error instanceof MissingPackagesError)) throw error
    stderr.write(`replay: ${error.message}\n`)
    return EXIT.missing
  }
}

async function runCommand(argv, { stdout, stderr }) {
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
  for (const { label, config } of command.configs) {
    try {
      // The guard's own validation, with the plugin's messages: the config would fail at plugin load too.
      new RepeatToolGuard(config)
    } catch (error) {
      stderr.write(`replay: ${label}: ${error.message}\n`)
      return EXIT.usage
    }
  }
  const replay = new Replay(command.configs.map(({ config }) => config))
  for (const { label, config } of command.configs) {
    for (const key of unknownKeys(config)) stderr.write(`replay: warning: ${label}: unknown config key ${JSON.stringify(key)} is ignored (known keys: ${KNOWN_KEYS.join(', ')})\n`)
  }
  const errors = []
  const fail = (error) => {
    if (!(error instanceof InputError)) throw error
    errors.push({ message: error.message })
    stderr.write(`replay: ${error.message}\n`)
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
  const bar = command.json ? null : progress(stderr, logs.length, totalBytes)
  let bytes = 0
  // The next log is read while this one replays: the reader waits on the file system often.
  const reads = new Map()
  const read = (i) => {
    if (i < logs.length && !reads.has(i)) reads.set(i, reader.read(logs[i].path).then((value) => ({ value }), (error) => ({ error })))
  }
  for (const [i, log] of logs.entries()) {
    read(i)
    read(i + 1)
    const { value, error } = await reads.get(i)
    reads.delete(i)
    try {
      if (error) throw error
      const { meta, events } = value
      sessions.push(sessionSummary(log.path, meta, events, replay.session(meta, events)))
    } catch (error) {
      bar?.done()
      fail(error)
    }
    bytes += log.bytes
    bar?.update(i + 1, bytes)
  }
  bar?.done()
  if (logs.length === 0 && errors.length === 0) fail(new InputError(`no session logs (session.jsonl.zstd or session.jsonl) under ${command.inputs.join(', ')}`))
  const report = buildReport({ configs: command.configs, sessions, replay, errors })
  if (command.html !== undefined) {
    const { htmlReport } = await import('./html.js')
    await writeFile(command.html, htmlReport(report))
  }
  stdout.write(command.json ? `${JSON.stringify(report, null, 2)}\n` : textReport(report))
  return errors.length ? EXIT.input : EXIT.ok
}
