// Trajectories in the OpenAI chat format: an assistant message's `tool_calls` are the calls of one
// model response, each `role: "tool"` message (by its `tool_call_id`) the result of one, and a user
// message starts the chain over, as a user prompt does in the harness.
import { parseArguments } from '../../lib/history.js'

/** Whether `messages` show this format: an assistant message with `tool_calls`, or a `tool` message. */
export function isChat(messages) {
  return messages.some((message) => Array.isArray(message?.tool_calls) || message?.role === 'tool')
}

/** A result's content in the harness's shape: a string becomes one text block, blocks stay as they are. */
export function resultContent(content) {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  return Array.isArray(content) ? content : []
}

/**
 * The calls of one model response. The harness executes them and delivers each to
 * `tools/post-execute` in the model's order, so they are handed on in that order once the
 * response's results are in; a call without a result was never executed and is left out.
 */
export class Response {
  #calls = []

  constructor(seq, turn, step) {
    this.seq = seq
    this.turn = turn
    this.step = step
  }

  add(id, tool, args) {
    this.#calls.push({ id, tool, args })
  }

  /** Records the result, found at message `seq`, of the call `id` (without an id: of the first call still without one). */
  settle(id, seq, result) {
    const call = this.#calls.find((c) => c.result === undefined && (id === undefined || id === null || c.id === id))
    if (call === undefined) return
    call.seq = seq
    call.result = result
  }

  /** The executed calls as the guard's inputs. */
  * inputs() {
    for (const { seq, tool, args, result } of this.#calls) {
      if (result !== undefined) yield { kind: 'call', seq, turn: this.turn, step: this.step, response: this.seq, tool, args, result }
    }
  }
}

/**
 * The guard's inputs of a chat-format run, in the harness's order: `{ kind: 'prompt', seq }` and
 * `{ kind: 'call', seq, turn, step, response, tool, args, result }`, where `seq` is the index of
 * the message (the call's result message), `turn` counts user messages and `step` the model's
 * responses in the turn. Arguments are parsed as the harness's loop parses them.
 */
export function * chatInputs(messages) {
  let response
  let turn = 0
  let step = 0
  for (const [seq, message] of messages.entries()) {
    if (message?.role === 'tool') {
      response?.settle(message.tool_call_id, seq, { content: resultContent(message.content), isError: false })
      continue
    }
    if (response) yield * response.inputs()
    response = undefined
    if (message?.role === 'user') {
      turn++
      step = 0
      yield { kind: 'prompt', seq }
    } else if (message?.role === 'assistant') {
      response = new Response(seq, turn, ++step)
      for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
        response.add(call?.id, String(call?.function?.name ?? ''), parseArguments(call?.function?.arguments))
      }
    }
  }
  if (response) yield * response.inputs()
}
