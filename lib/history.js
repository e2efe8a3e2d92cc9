// What the guard sees of a session's event log (the harness's `SessionEvent`s), in the order the
// live plugin met it: the user prompts that reset a chain, the tool calls it counts, and the
// starts of the session's later lifecycles (a resume). The one reading of a log, for rebuilding a
// resumed agent's chain (`resume: true`) and for the replay command.

// Results that say the call never reached `tools/post-execute`, where the guard counts: skipped
// when a turn was aborted, or closed by crash repair.
export const NEVER_OBSERVED = new Set(['ABORTED_BEFORE_DISPATCH', 'TOOL_NOT_STARTED', 'TOOL_OUTCOME_UNKNOWN'])

/** The loop's parse of a call's raw arguments: invalid JSON stays text, empty input is `{}`. */
export function parseArguments(raw) {
  try {
    return raw ? JSON.parse(raw) : {}
  } catch {
    return raw
  }
}

/**
 * The guard's inputs in `events` from seq `from` on, in order: `{ kind: 'prompt', seq }` for a
 * user prompt; `{ kind: 'lifecycle', seq }` where a new lifecycle of the session begins
 * (`session/end-seed`: what came before was replayed into it); and `{ kind: 'call', seq, turn,
 * step, tool, args, result }` for each tool call at its result (the loop runs `tools/post-execute`
 * as it commits results, in the model's order), `seq` being the result's.
 */
export function * guardInputs(events, options) {
  const read = guardInputReader(options)
  for (const event of events) {
    const input = read(event)
    if (input !== undefined) yield input
  }
}

/** `guardInputs` one event at a time, for a log read as a stream: the input `event` makes, if any. */
export function guardInputReader({ from = 0 } = {}) {
  const calls = new Map()
  return (event) => {
    if (event.seq < from) return undefined
    const { type, data } = event
    if (type === 'user/message' && data?.source?.kind === 'user') return { kind: 'prompt', seq: event.seq }
    if (type === 'session/end-seed') return { kind: 'lifecycle', seq: event.seq }
    if (type === 'tool/call') {
      calls.set(data.callId, data)
    } else if (type === 'tool/result') {
      // The result message (`createToolResultMessage`) wraps the tool's `{ content, isError }`.
      const block = data?.message?.content?.[0]
      const call = calls.get(block?.toolCallId)
      calls.delete(block?.toolCallId)
      if (call === undefined || NEVER_OBSERVED.has(data.error?.code)) return undefined
      const { content, isError } = block
      const { turn, step, name: tool } = call
      return { kind: 'call', seq: event.seq, turn, step, tool, args: parseArguments(call.arguments), result: { content, isError } }
    }
    return undefined
  }
}

/** The tool calls in `events` since the last user prompt: what a resumed agent's chain is made of. */
/** The model response a call came in: its trajectory's response, else its turn and step (one step, one response). */
export const responseOf = (call) => call.response ?? `${call.turn}.${call.step}`

export function callsSinceLastPrompt(events) {
  let calls = []
  for (const input of guardInputs(events)) {
    if (input.kind === 'prompt') calls = []
    else if (input.kind === 'call') calls.push(input)
  }
  return calls
}
