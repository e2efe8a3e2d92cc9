// What the guard sees of a session's event log (the harness's `SessionEvent`s): the user prompts
// that reset a chain, and the tool calls it counts, in the order the live plugin met them. Used to
// rebuild a resumed agent's chain (`resume: true`).

// Results that say the call never reached `tools/post-execute`, where the guard counts: skipped
// when a turn was aborted, or closed by crash repair.
const NEVER_OBSERVED = new Set(['ABORTED_BEFORE_DISPATCH', 'TOOL_NOT_STARTED', 'TOOL_OUTCOME_UNKNOWN'])

/** The loop's parse of a call's raw arguments: invalid JSON stays text, empty input is `{}`. */
export function parseArguments(raw) {
  try {
    return raw ? JSON.parse(raw) : {}
  } catch {
    return raw
  }
}

/**
 * The guard's inputs in `events`, in order: `{ kind: 'prompt', seq }` for a user prompt, and
 * `{ kind: 'call', seq, tool, args, result }` for each tool call at its result (the loop runs
 * `tools/post-execute` as it commits results, in the model's order); `seq` is the result's.
 */
export function * guardInputs(events) {
  const calls = new Map()
  for (const event of events) {
    const { type, data } = event
    if (type === 'user/message' && data?.source?.kind === 'user') {
      yield { kind: 'prompt', seq: event.seq }
    } else if (type === 'tool/call') {
      calls.set(data.callId, data)
    } else if (type === 'tool/result') {
      // The result message (`createToolResultMessage`) wraps the tool's `{ content, isError }`.
      const block = data.message?.content?.[0]
      const call = calls.get(block?.toolCallId)
      calls.delete(block?.toolCallId)
      if (call === undefined || NEVER_OBSERVED.has(data.error?.code)) continue
      const { content, isError } = block
      yield { kind: 'call', seq: event.seq, tool: call.name, args: parseArguments(call.arguments), result: { content, isError } }
    }
  }
}

/** The tool calls in `events` since the last user prompt: what a resumed agent's chain is made of. */
export function callsSinceLastPrompt(events) {
  let calls = []
  for (const input of guardInputs(events)) {
    if (input.kind === 'prompt') calls = []
    else calls.push(input)
  }
  return calls
}
