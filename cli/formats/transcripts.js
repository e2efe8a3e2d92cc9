// Host agents' transcripts (what a hook event's `transcript_path` points at): Claude Code's session
// logs, Codex's rollouts, Gemini CLI's chat logs. Each is JSON Lines, read as a stream; a reader
// (claude-code.js, codex.js, gemini.js) turns each record into the guard's inputs of one agent,
// with tools, arguments and results as that host's hook gives them (lib/host-results.js), so that
// the replay and the hook's resume count what the live hook counts. A file is a run per agent in
// it: the agent of its first record is replayed as it is read, any other one (Claude Code's older
// logs keep subagents' sidechains in the parent's file) afterwards, from its records kept aside.
import { basename, dirname, join } from 'node:path'

import { InputError } from '../sessions.js'
import { claudeCode } from './claude-code.js'
import { codex } from './codex.js'
import { gemini } from './gemini.js'
import { Lines } from './lines.js'

/** The readers by format name, which is the host's name in the hook too. */
export const TRANSCRIPTS = { 'claude-code': claudeCode, codex, gemini }

/** The transcript format whose first record `value` is, if any. */
export function transcriptFormat(value) {
  return Object.keys(TRANSCRIPTS).find((name) => TRANSCRIPTS[name].is(value))
}

/**
 * One agent's chain as a transcript tells it: each user prompt, and each call at its result,
 * `{ kind: 'call', seq, turn, step, id, tool, args, result }`. `turn` counts prompts, `step` the
 * model's responses since the last one. A call whose result the hook never saw (the reader gives
 * no result) is left out, as the hook never counted it.
 */
export class Agent {
  turn = 0
  step = 0
  #calls = new Map()
  #response = null
  #seen = new Set()

  prompt(seq) {
    this.turn++
    this.step = 0
    this.#response = null
    return { kind: 'prompt', seq }
  }

  /** A call of model response `response`; without one, of the response of the last call, unless `settle` came between. */
  call(id, tool, args, response) {
    if (response === undefined ? this.#response === null : response !== this.#response) this.step++
    this.#response = response ?? this.step
    this.#calls.set(id, { id, tool, args, turn: this.turn, step: this.step })
  }

  /** The input of call `id`'s result, at `seq`: `resultOf(call)` gives it, or nothing when the hook never saw the call. */
  result(id, seq, resultOf) {
    const call = this.#calls.get(id)
    this.#calls.delete(id)
    if (call === undefined) return []
    const result = resultOf(call)
    return result === undefined ? [] : [this.deliver(call, seq, result)]
  }

  /** The input of `call` (as `resultOf` is given it), its `result` known at `seq`: for a result that comes later. */
  deliver(call, seq, result) {
    return { kind: 'call', seq, ...call, result }
  }

  /** The model answered or was answered: a call after this is another response (for readers without response ids). */
  settle() {
    this.#response = null
  }

  /** True the first time `key` is given: for records a log restates. */
  once(key) {
    if (this.#seen.has(key)) return false
    this.#seen.add(key)
    return true
  }
}

/**
 * The parsed records of a file of JSON Lines, `{ value, number }`: a complete line that is not
 * JSON is an InputError for `fail`, and the rest is read; a last line cut short (a transcript is
 * read while its host writes it) is left out, and `warn` told.
 */
export async function * jsonRecords(path, lines, { cutShort = () => undefined, warn = () => {}, fail = () => {} } = {}) {
  let torn = false
  for await (const line of lines) {
    if (line.text.trim() === '') continue
    let value
    try {
      value = JSON.parse(line.text)
    } catch (error) {
      if (line.complete) fail(new InputError(`${path}:${line.number}: not valid JSON (${error.message})`))
      else torn = true
      continue
    }
    yield { value, number: line.number }
  }
  const how = cutShort() ?? (torn ? 'its last line is incomplete' : undefined)
  if (how !== undefined) warn(`${path}: ${how} (a write cut short?); the replay ends at its last complete line`)
}

/**
 * The runs of a transcript (see index.js's `readRuns`), `records` being its `jsonRecords`: each
 * `{ meta, format, events, inputs, agent }`, `agent` the reader's name for the agent (`main`, or
 * a subagent's id). A call's `seq` is the line of its result.
 */
export async function * transcriptRuns(reader, path, records) {
  const iterator = records[Symbol.asyncIterator]()
  const head = (await iterator.next()).value
  if (head === undefined) return
  const agent = reader.agentOf(head.value) ?? 'main'
  const others = new Map()
  const run = { meta: reader.meta(head.value, agent, path), format: reader.format, events: 0, agent }
  run.inputs = (async function * () {
    const chain = new Agent()
    for (let record = head; record !== undefined; record = (await iterator.next()).value) {
      run.events = record.number
      const of = reader.agentOf(record.value) ?? agent
      if (of === agent) {
        yield * reader.feed(record.value, record.number, chain)
        continue
      }
      if (!others.has(of)) others.set(of, { meta: reader.meta(record.value, of, path), records: [] })
      others.get(of).records.push(record)
    }
  })()
  yield run
  for (const [of, { meta, records: kept }] of others) {
    const chain = new Agent()
    const inputs = kept.flatMap(({ value, number }) => [...reader.feed(value, number, chain)])
    yield { meta, format: reader.format, events: run.events, agent: of, inputs }
  }
}

/** Where Claude Code keeps a subagent's own log (since 2.1): beside its parent's, `<session>/subagents/agent-<id>.jsonl`. */
const subagentLog = (path, agentId) => join(dirname(path), basename(path, '.jsonl'), 'subagents', `agent-${agentId}.jsonl`)

/**
 * For the hook's `resume`: the calls of agent `agentId` (the main agent: undefined) in the
 * transcript at `path` of `host`, since its last user prompt, in order, each `{ id, tool, args,
 * result }` as the hook gets them. Empty when the transcript does not exist (yet) or the host has
 * no reader. A line being written, or one that does not parse, is left out. Codex and Gemini CLI
 * log a subagent in a transcript of its own, which the event names: `agentId` is Claude Code's.
 */
export async function hookTranscriptCalls(path, host, agentId) {
  const reader = TRANSCRIPTS[host]
  if (reader === undefined) return []
  const wanted = host === 'claude-code' && agentId !== undefined ? agentId : 'main'
  let calls = []
  for (const file of wanted === 'main' ? [path] : [subagentLog(path, agentId), path]) {
    try {
      for await (const run of transcriptRuns(reader, file, jsonRecords(file, new Lines(file)))) {
        for await (const input of run.inputs) {
          if (run.agent !== wanted) continue
          if (input.kind === 'prompt') calls = []
          else calls.push({ id: input.id, tool: input.tool, args: input.args, result: input.result })
        }
      }
      return calls
    } catch (error) {
      if (error?.code !== 'ENOENT' && error?.code !== 'ENOTDIR') throw error
    }
  }
  return calls
}
