// An HTTP server in the test's process, on a free port, that answers a client's model requests
// from a script through a protocol module (anthropic.mjs, responses.mjs, gemini.mjs) and records
// every request, so a test reads what the model was shown.
import http from 'node:http'

import { newTag, steps } from './script.mjs'

/**
 * Starts `protocol`'s server for `script` (see script.mjs); `final` is the text of the last answer.
 * Each recorded request is `{ method, url, body, kind, step }`: kind 'step' (it got step `step`),
 * 'final' (the script was over: the final text), or 'side' (the client's own question, answered harmlessly).
 */
export async function scriptedServer(protocol, script, { final = 'done' } = {}) {
  const tag = newTag()
  const plan = steps(script)
  const requests = []
  const server = http.createServer((req, res) => {
    const chunks = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      let body
      try {
        body = raw ? JSON.parse(raw) : {}
      } catch {
        body = raw
      }
      const record = { method: req.method, url: req.url, body, kind: 'side', step: undefined }
      requests.push(record)
      try {
        protocol.respond({ req, res, body, record, plan, tag, final })
      } catch (error) {
        // A request the protocol module did not expect: the test sees a 500 in the client's output and the record.
        record.error = error.stack
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { message: String(error.message) } }))
      }
    })
  })
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address()
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    tag,
    requests,
    /** The requests that got a step or the final answer: the agent's own turns, in order. */
    turns: () => requests.filter((r) => r.kind !== 'side'),
    close: () => new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

/** Writes `events` ([event name or undefined, data]) as a server-sent event stream. */
export function sse(res, events) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  for (const [event, data] of events) {
    res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`)
  }
  res.end()
}

export function json(res, data, status = 200) {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(data))
}
