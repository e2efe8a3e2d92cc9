// The OpenAI Responses protocol for scriptedServer (server.mjs), as Codex CLI speaks it: streamed
// `POST /v1/responses` (SSE); requests without tools are the client's own and get a short text.
import { json, sse } from './server.mjs'
import { callId, parseCallId, strings } from './script.mjs'

let responses = 0

function nextStep(body, tag) {
  let next = 0
  for (const item of Array.isArray(body.input) ? body.input : []) {
    const id = item.type === 'function_call' ? parseCallId(item.call_id, tag) : undefined
    if (id) next = Math.max(next, id.step + 1)
  }
  return next
}

export function respond({ req, res, body, record, plan, tag, final }) {
  const url = new URL(req.url, 'http://x')
  if (!url.pathname.endsWith('/responses')) return json(res, { error: { message: `no ${url.pathname} here` } }, 404)
  const agent = Array.isArray(body.tools) && body.tools.length > 0
  const step = agent ? nextStep(body, tag) : undefined
  const calls = agent && step < plan.length ? plan[step] : undefined
  if (agent) Object.assign(record, calls ? { kind: 'step', step } : { kind: 'final' })
  const output = calls
    ? calls.map((call, i) => ({ type: 'function_call', id: callId('fc', tag, step, i), call_id: callId('call', tag, step, i), name: call.name, arguments: JSON.stringify(call.args), status: 'completed' }))
    : [{ type: 'message', id: `msg_${tag}_${step ?? 'side'}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: agent ? final : 'ok', annotations: [] }] }]
  const response = {
    id: `resp_${tag}_${(responses += 1)}`, object: 'response', status: 'completed', model: body.model, output,
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
  }
  const events = [['response.created', { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } }]]
  output.forEach((item, index) => {
    events.push(
      ['response.output_item.added', { type: 'response.output_item.added', output_index: index, item }],
      ['response.output_item.done', { type: 'response.output_item.done', output_index: index, item }],
    )
  })
  events.push(['response.completed', { type: 'response.completed', response }])
  sse(res, events)
}

/** What the model was shown after each of its responses with tool calls (see anthropic.mjs). */
export function segments(body) {
  const out = []
  let current
  let key
  for (const item of Array.isArray(body.input) ? body.input : []) {
    if (item.type === 'function_call') {
      const id = /^[a-z]+_([a-z0-9]+_\d+)_\d+$/.exec(item.call_id ?? '')
      // Calls of one response share a key; interleaved outputs do not split them.
      const next = id ? id[1] : `item${out.length}`
      if (!current || next !== key) {
        current = { calls: [], texts: [] }
        out.push(current)
        key = next
      }
      let args = item.arguments
      try {
        args = JSON.parse(item.arguments)
      } catch {
        // kept as the text the model sent
      }
      current.calls.push({ id: item.call_id, name: item.name, args })
    } else if (item.type === 'message' && item.role === 'assistant') {
      current = undefined
    } else if (current) {
      current.texts.push(...strings(item))
    }
  }
  return out
}
