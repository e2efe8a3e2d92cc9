// The Anthropic Messages protocol for scriptedServer (server.mjs), as Claude Code speaks it:
// streamed `POST /v1/messages` (SSE) for the agent's turns, anything else answered harmlessly.
import { json, sse } from './server.mjs'
import { callId, parseCallId, strings } from './script.mjs'

/** The next step: one past the last of this server's calls in the conversation. */
function nextStep(body, tag) {
  let next = 0
  for (const message of body.messages ?? []) {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) continue
    for (const block of message.content) {
      const id = block.type === 'tool_use' ? parseCallId(block.id, tag) : undefined
      if (id) next = Math.max(next, id.step + 1)
    }
  }
  return next
}

export function respond({ req, res, body, record, plan, tag, final }) {
  const url = new URL(req.url, 'http://x')
  if (url.pathname === '/v1/messages/count_tokens') return json(res, { input_tokens: 10 })
  if (url.pathname !== '/v1/messages') return json(res, { type: 'error', error: { type: 'not_found_error', message: `no ${url.pathname} here` } }, 404)
  // Requests without tools are the client's own (titles, summaries): a short text, never a step.
  const agent = Array.isArray(body.tools) && body.tools.length > 0
  const step = agent ? nextStep(body, tag) : undefined
  const calls = agent && step < plan.length ? plan[step] : undefined
  if (agent) Object.assign(record, calls ? { kind: 'step', step } : { kind: 'final' })
  const content = calls
    ? calls.map((call, i) => ({ type: 'tool_use', id: callId('toolu', tag, step, i), name: call.name, input: call.args }))
    : [{ type: 'text', text: agent ? final : 'ok' }]
  const message = { id: `msg_${tag}_${step ?? 'side'}`, type: 'message', role: 'assistant', model: body.model, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } }
  const stopReason = calls ? 'tool_use' : 'end_turn'
  if (!body.stream) return json(res, { ...message, content, stop_reason: stopReason })
  const events = [['message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } }]]
  content.forEach((block, index) => {
    const start = block.type === 'tool_use' ? { ...block, input: {} } : { type: 'text', text: '' }
    const delta = block.type === 'tool_use' ? { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } : { type: 'text_delta', text: block.text }
    events.push(
      ['content_block_start', { type: 'content_block_start', index, content_block: start }],
      ['content_block_delta', { type: 'content_block_delta', index, delta }],
      ['content_block_stop', { type: 'content_block_stop', index }],
    )
  })
  events.push(
    ['message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } }],
    ['message_stop', { type: 'message_stop' }],
  )
  sse(res, events)
}

/**
 * What the model was shown after each of its responses with tool calls, in order: `{ calls, texts }`
 * with the calls (`{ id, name, args }`) and every string the client put after them until the
 * model's next response (tool results, and what hooks added beside them).
 */
export function segments(body) {
  const out = []
  let current
  for (const message of body.messages ?? []) {
    const blocks = Array.isArray(message.content) ? message.content : [{ type: 'text', text: message.content }]
    if (message.role === 'assistant') {
      const calls = blocks.filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, name: b.name, args: b.input }))
      current = calls.length > 0 ? { calls, texts: [] } : undefined
      if (current) out.push(current)
    } else if (current) {
      current.texts.push(...strings(message.content))
    }
  }
  return out
}
