// Gemini CLI's chat logs (~/.gemini/tmp/<project>/chats/session-*.jsonl): a header line (the
// session's id, `kind`), then messages, `{ id, type: 'user' | 'gemini' | …, content }`, and
// `$set` records updating the header, whose `messages` restate the whole list (at the start, and
// again when a session is resumed). A `gemini` message is written again, same id, once its calls
// ran: `toolCalls`, each with its `args`, `status` and `result` (the function response the model
// got: `{ output }`, or `{ error }`, which is what the hook's `error.message` says). So each
// message and call is taken once, by id, whatever restates it. A user message of text is a prompt,
// but for the one `<session_context>` the CLI writes. An unknown tool's call reaches no hook.
import { basename } from 'node:path'

import { hookResult } from '../../lib/host-results.js'

const INJECTED = /^\s*<([\w-]+)>[\s\S]*<\/\1>\s*$/
const UNKNOWN_TOOL = /^Tool "[^"]*" not found/
const FINISHED = new Set(['success', 'error', 'cancelled'])
// What a hook's `additionalContext` added to the output the log keeps: not the tool's own result.
const HOOK_CONTEXT = /\s*<hook_context>[\s\S]*<\/hook_context>\s*$/

/** The hook's result of a call that ran (`success` or `error`), from the function response the log keeps. */
function resultOf(toolCall) {
  if (toolCall.status !== 'success' && toolCall.status !== 'error') return undefined
  const response = (Array.isArray(toolCall.result) ? toolCall.result : []).find((part) => part?.functionResponse)?.functionResponse?.response
  if (response === undefined || response === null) return undefined
  if (response.error === undefined) {
    const output = typeof response.output === 'string' ? response.output.replace(HOOK_CONTEXT, '') : response.output
    return hookResult('gemini', { tool_response: { llmContent: output } })
  }
  return UNKNOWN_TOOL.test(String(response.error)) ? undefined : hookResult('gemini', { tool_response: { error: { message: response.error } } })
}

function * messageInputs(message, seq, chain) {
  if (message?.type === 'user' && Array.isArray(message.content) && chain.once(`message ${message.id}`)) {
    const texts = message.content.filter((part) => typeof part?.text === 'string')
    if (texts.length > 0 && !message.content.some((part) => part?.functionResponse) && !INJECTED.test(texts.map((part) => part.text).join('\n'))) yield chain.prompt(seq)
  }
  if (message?.type !== 'gemini' || !Array.isArray(message.toolCalls)) return
  for (const toolCall of message.toolCalls) {
    // A call still under way is written again when it ends; a cancelled one reached no hook.
    if (!FINISHED.has(toolCall?.status) || !chain.once(`call ${toolCall.id}`)) continue
    chain.call(toolCall.id, String(toolCall.name ?? ''), toolCall.args ?? {}, message.id)
    yield * chain.result(toolCall.id, seq, () => resultOf(toolCall))
  }
}

export const gemini = {
  format: 'gemini',
  is: (value) => typeof value?.sessionId === 'string' && typeof value.projectHash === 'string',
  agentOf: () => undefined,

  meta(value, _agent, path) {
    const meta = { id: typeof value?.sessionId === 'string' ? value.sessionId : basename(path, '.jsonl') }
    if (typeof value?.kind === 'string' && value.kind !== 'main') meta.origin = value.kind
    return meta
  },

  * feed(value, seq, chain) {
    const messages = Array.isArray(value.$set?.messages) ? value.$set.messages : value.$set === undefined ? [value] : []
    for (const message of messages) yield * messageInputs(message, seq, chain)
  },
}
