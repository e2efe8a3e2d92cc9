// The replay's inputs, whatever wrote them: each file is read as a stream of lines (gzip and zstd
// undone on the way) and its format recognised from its content, unless --format names one. A
// harness session log (its first line a session header) is one run; a file of trajectories holds
// a run per JSON Lines line (`{ "messages": [...], ...fields }` or a bare array of messages), or is
// one JSON document of either shape. Messages are the chat format or the Anthropic format, told
// apart by the first run that has a call or a result. Host agents' transcripts (Claude Code's
// session logs, Codex's rollouts, Gemini CLI's chat logs) are told by their first record, and
// read by transcripts.js: a run per agent.
import { basename } from 'node:path'

import { MissingPackagesError } from '../peers.js'
import { InputError } from '../sessions.js'
import { anthropicInputs, isAnthropic } from './anthropic.js'
import { chatInputs, isChat } from './chat.js'
import { harnessRun, isHeader } from './harness.js'
import { Lines } from './lines.js'
import { TRANSCRIPTS, jsonRecords, transcriptFormat, transcriptRuns } from './transcripts.js'

export const FORMATS = ['harness', 'chat', 'anthropic', ...Object.keys(TRANSCRIPTS)]
const MESSAGE_FORMATS = { chat: chatInputs, anthropic: anthropicInputs }

const parse = (text) => {
  try {
    return { value: JSON.parse(text) }
  } catch (error) {
    return { error }
  }
}

// The harness's reader needs what Node 22.19 has (as the harness declares).
function harnessNode(path) {
  const [major, minor] = process.versions.node.split('.').map(Number)
  if (major < 22 || (major === 22 && minor < 19)) throw new InputError(`${path}: reading a harness session log needs Node >= 22.19, as the harness does; this is Node ${process.versions.node}`)
}

/**
 * The runs in the file at `path`, in order, each `{ meta, format, events, inputs }` (`meta`: `id`,
 * and for trajectories `line` and `fields`, the run's other top-level fields of a scalar value;
 * `inputs`: the guard's inputs, to be read before the next run is asked for). `reader` is the
 * SessionReader that loads the harness; `onBytes(n)` hears how far the file is read; `warn` and
 * `fail` take a warning and an InputError about part of the file, the rest of which is still read.
 * An error about the whole file is thrown.
 */
export async function * readRuns(path, { format, reader, onBytes, warn, fail }) {
  const lines = new Lines(path, { onBytes })
  const rest = guarded(path, lines)
  let first
  do first = (await rest.next()).value
  while (first !== undefined && first.text.trim() === '')
  if (first === undefined) throw new InputError(lines.cutShort ? `${path}: ${lines.cutShort} before its first line ends` : `${path}: empty file`)
  const head = parse(first.text)
  if (format === 'harness' || (format === undefined && isHeader(head.value))) {
    if (!isHeader(head.value)) throw new InputError(`${path}:${first.number}: not a harness session log: its first line is no session header`)
    harnessNode(path)
    let session
    try {
      session = await reader.sessionModule()
    } catch (error) {
      // The packages' absence is the command's to report (exit code 3); any other failure is this file's.
      throw error instanceof InputError || error instanceof MissingPackagesError ? error : new InputError(`${path}: cannot load the harness's session packages to read it: ${error.message}`)
    }
    yield harnessRun(path, head.value, rest, { session, lines, warn })
    return
  }
  // The file's records, one JSON value a line: a torn last line warned of, a line that is not JSON failed.
  const records = () => jsonRecords(path, (async function * () {
    yield first
    yield * rest
  })(), { cutShort: () => lines.cutShort, warn, fail })
  const transcript = format === undefined ? transcriptFormat(head.value) : Object.hasOwn(TRANSCRIPTS, format) ? format : undefined
  if (transcript !== undefined) {
    yield * transcriptRuns(TRANSCRIPTS[transcript], path, records())
    return
  }
  let kind = format
  const run = (messages, meta) => {
    kind ??= isChat(messages) ? 'chat' : isAnthropic(messages) ? 'anthropic' : undefined
    return { meta, format: kind ?? 'chat', events: messages.length, inputs: MESSAGE_FORMATS[kind ?? 'chat'](messages) }
  }
  if (head.error !== undefined && first.complete) {
    // Not one JSON value a line: the file is one JSON document, read whole.
    const texts = [first.text]
    for await (const { text } of rest) texts.push(text)
    const document = parse(texts.join('\n'))
    if (document.error !== undefined) throw new InputError(`${path}: neither JSON Lines nor a JSON document (${document.error.message})`)
    const found = record(document.value)
    if (typeof found === 'string') throw new InputError(`${path}: ${found}`)
    yield run(found.messages, { id: found.fields.id ?? basename(path), fields: found.fields })
    return
  }
  for await (const { value, number } of records()) {
    const found = record(value)
    if (typeof found === 'string') fail(new InputError(`${path}:${number}: ${found}`))
    else yield run(found.messages, { id: found.fields.id ?? `${basename(path)}:${number}`, line: number, fields: found.fields })
  }
}

/** The lines of `lines`, what goes wrong in reading them (a corrupt gzip stream, say) as an InputError. */
async function * guarded(path, lines) {
  try {
    yield * lines
  } catch (error) {
    throw error instanceof InputError ? error : new InputError(`${path}: ${error.message}`)
  }
}

/** A trajectory's messages and other fields (scalar ones, `id` as a string), or what is wrong with `value`. */
function record(value) {
  if (Array.isArray(value)) return { messages: value, fields: {} }
  if (value === null || typeof value !== 'object' || !Array.isArray(value.messages)) return 'not a trajectory: expected an object with a "messages" array, or an array of messages'
  const fields = {}
  for (const [key, field] of Object.entries(value)) {
    if (key !== 'messages' && (field === null || ['string', 'number', 'boolean'].includes(typeof field))) fields[key] = field
  }
  if (fields.id !== undefined && fields.id !== null) fields.id = String(fields.id)
  else delete fields.id
  return { messages: value.messages, fields }
}
