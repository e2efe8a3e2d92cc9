// Trajectories in the Anthropic Messages format: an assistant message's `tool_use` blocks are the
// calls of one model response, the `tool_result` blocks of the next user message their results
// (`is_error` kept), and a user message with anything besides tool results (text, an image) is a
// user prompt, which starts the chain over after those results are delivered.
import { Response, resultContent } from './chat.js'

const blocksOf = (message) => (typeof message?.content === 'string' ? [{ type: 'text', text: message.content }] : Array.isArray(message?.content) ? message.content : [])

/** Whether `messages` show this format: a `tool_use` or `tool_result` block. */
export function isAnthropic(messages) {
  return messages.some((message) => blocksOf(message).some((block) => block?.type === 'tool_use' || block?.type === 'tool_result'))
}

/** The guard's inputs of an Anthropic-format run, shaped as `chatInputs` gives them; `input` is the arguments as they are. */
export function * anthropicInputs(messages) {
  let response
  let turn = 0
  let step = 0
  for (const [seq, message] of messages.entries()) {
    const blocks = blocksOf(message)
    if (message?.role === 'assistant') {
      if (response) yield * response.inputs()
      response = new Response(seq, turn, ++step)
      for (const block of blocks) {
        if (block?.type === 'tool_use') response.add(block.id, String(block.name ?? ''), block.input ?? {})
      }
    } else if (message?.role === 'user') {
      for (const block of blocks) {
        if (block?.type === 'tool_result') response?.settle(block.tool_use_id, seq, { content: resultContent(block.content), isError: block.is_error === true })
      }
      if (response) yield * response.inputs()
      response = undefined
      if (blocks.some((block) => block?.type !== 'tool_result')) {
        turn++
        step = 0
        yield { kind: 'prompt', seq }
      }
    }
  }
  if (response) yield * response.inputs()
}
