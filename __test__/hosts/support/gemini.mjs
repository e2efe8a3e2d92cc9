// The Gemini API protocol for scriptedServer (server.mjs), as Gemini CLI speaks it:
// `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` for the agent's turns; requests
// without tools (its routing classifier, next-speaker check and such side questions) get a JSON
// text that answers each of them harmlessly: the user speaks next, the task is simple.
import { json } from './server.mjs'
import { callId, parseCallId, strings } from './script.mjs'

const SIDE_ANSWER = JSON.stringify({ reasoning: 'scripted', next_speaker: 'user', complexity_reasoning: 'scripted', complexity_score: 1 })

function functionCalls(content) {
  return (content.parts ?? []).filter((part) => part.functionCall).map((part) => part.functionCall)
}

// Gemini CLI may drop the ids of the model's calls; then each model content with calls is a step.
function nextStep(body, tag) {
  let next = 0
  let counted = 0
  for (const content of body.contents ?? []) {
    const calls = content.role === 'model' ? functionCalls(content) : []
    if (calls.length === 0) continue
    counted += 1
    const ids = calls.map((call) => parseCallId(call.id, tag)).filter(Boolean)
    next = ids.length > 0 ? Math.max(next, ...ids.map((id) => id.step + 1)) : Math.max(next, counted)
  }
  return next
}

function hasTools(body) {
  return (body.tools ?? []).some((tool) => (tool.functionDeclarations ?? []).length > 0)
}

export function respond({ req, res, body, record, plan, tag, final }) {
  const url = new URL(req.url, 'http://x')
  if (url.pathname.endsWith(':countTokens')) return json(res, { totalTokens: 10 })
  if (!/:(stream)?[gG]enerateContent$/.test(url.pathname)) return json(res, { error: { code: 404, message: `no ${url.pathname} here` } }, 404)
  const agent = hasTools(body)
  const step = agent ? nextStep(body, tag) : undefined
  const calls = agent && step < plan.length ? plan[step] : undefined
  if (agent) Object.assign(record, calls ? { kind: 'step', step } : { kind: 'final' })
  const parts = calls
    ? calls.map((call, i) => ({ functionCall: { id: callId('gc', tag, step, i), name: call.name, args: call.args } }))
    : [{ text: agent ? final : SIDE_ANSWER }]
  const chunk = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
  }
  if (url.pathname.endsWith(':streamGenerateContent')) {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    return res.end(`data: ${JSON.stringify(chunk)}\n\n`)
  }
  json(res, chunk)
}

/** What the model was shown after each of its responses with tool calls (see anthropic.mjs). */
export function segments(body) {
  const out = []
  let current
  for (const content of body.contents ?? []) {
    if (content.role === 'model') {
      const calls = functionCalls(content).map((call) => ({ id: call.id, name: call.name, args: call.args }))
      current = calls.length > 0 ? { calls, texts: [] } : undefined
      if (current) out.push(current)
    } else if (current) {
      current.texts.push(...strings(content.parts))
    }
  }
  return out
}
