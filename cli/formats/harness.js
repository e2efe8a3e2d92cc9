// deepseek-harness session logs (what its JSONL persistence writes: a header line, then one event
// or packed chunk row a line, raw or in zstd frames), read as a stream: each event goes to the
// replay as it is read, so memory does not follow the log's size. The rules for what a log holds
// are the backend's: rows are decoded by the harness's own `decodeStorageRecord`; a record that
// does not parse ends the committed prefix, and is an error only when a later record ends a turn;
// a torn last record (a write cut short) is left out. A log in an older shape, which the backend
// upgrades as it reads, is signalled with `OlderShape` so that the caller can read it through the
// backend instead. The header's id names the session; where the file lies does not matter.
import { guardInputReader } from '../../lib/history.js'
import { InputError } from '../sessions.js'

/** A log holding events in a shape older than the current format (see `olderShape`). */
export class OlderShape extends Error {}

/** Whether a file's first line (parsed) is a session header. */
export function isHeader(value) {
  return value !== null && typeof value === 'object' && value.type === 'session' && typeof value.id === 'string'
}

/**
 * Events of older formats: those the backend upgrades on read and that change what the guard sees
 * (a steering message, a tool result without its message), and those it refuses, with its message.
 */
function olderShape(event) {
  const { type, data } = event
  if (type === 'steering/message' || type === 'request/header-delta' || type === 'mode/set') return true
  if (type === 'request/header') return data?.reason === 'fallback'
  return type === 'tool/result' && data?.message === undefined && data?.callId !== undefined
}

/**
 * The run of the log at `path` whose header is `header` and whose further lines `rest` gives:
 * `{ meta, format, events, inputs }`, `inputs` the guard's inputs (see lib/history.js) read as
 * the caller iterates, `events` counting the events read. `session` is the harness's
 * @deepseek-ai/dsh-session module; `warn(message)` is told of a torn tail, after the inputs.
 */
export function harnessRun(path, header, rest, { session, lines, warn }) {
  if (header.version !== session.SESSION_FORMAT_VERSION) {
    throw new InputError(`${path}: session format version ${header.version}, which this harness (format ${session.SESSION_FORMAT_VERSION}) does not read`)
  }
  const meta = { id: header.id, seedLength: header.seedLength }
  if (header.parentSession !== undefined) meta.parentSession = header.parentSession
  if (header.origin !== undefined) meta.origin = header.origin
  const run = { meta, format: 'harness', events: 0 }
  run.inputs = (async function * () {
    const read = guardInputReader({ from: header.seedLength ?? 0 })
    let issue
    let torn = false
    for await (const line of rest) {
      if (!line.complete) {
        torn = true
        break
      }
      let events
      try {
        events = session.decodeStorageRecord(JSON.parse(line.text))
      } catch {
        issue ??= { line: line.number, reason: 'unparsable committed event' }
        continue
      }
      const gap = events.findIndex((event, i) => event?.seq !== run.events + i)
      if (issue === undefined && gap !== -1) {
        issue = { line: line.number, reason: `seq gap in committed region (expected ${run.events + gap}, got ${events[gap]?.seq})` }
      }
      if (issue !== undefined) {
        // As the backend reads it: an unreadable record followed by a finished turn is corruption.
        if (events.some((event) => event?.type === 'turn/end')) throw new InputError(`${path}:${issue.line}: corrupt session log: ${issue.reason}`)
        continue
      }
      for (const event of events) {
        if (olderShape(event)) throw new OlderShape(`${path}: ${event.type} at seq ${event.seq} is in an older shape`)
        if (!session.KNOWN_SESSION_EVENT_TYPES.has(event.type) && event.ignorable !== true) {
          throw new InputError(`${path}: event type ${JSON.stringify(event.type)} (seq ${event.seq}) is unknown to this harness and not marked ignorable: the log was likely written by a newer harness`)
        }
        run.events++
        const input = read(event)
        if (input?.kind === 'call') yield { ...input, response: `${input.turn}.${input.step}` }
        else if (input !== undefined) yield input
      }
    }
    if (lines.cutShort || torn || issue !== undefined) {
      const how = lines.cutShort ?? (torn ? 'its last record is incomplete' : `line ${issue.line} is no complete record`)
      const end = run.events ? `the replay ends at its last complete event, seq ${run.events - 1}` : 'none of its events is complete'
      warn(`${path}: ${how} (a write cut short?); ${end}`)
    }
  })()
  return run
}
