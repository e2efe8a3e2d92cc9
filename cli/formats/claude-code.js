// Claude Code's session logs (~/.claude/projects/<cwd>/<session>.jsonl): `assistant` records whose
// message holds a `tool_use` block (a parallel call is a record of its own, with the response's
// message id), and `user` records holding a `tool_result` block, with `toolUseResult`, the tool's
// raw response, which is the hook's `tool_response`. Since 2.1 a subagent writes its own log,
// `<session>/subagents/agent-<id>.jsonl`, whose records are `isSidechain` with its `agentId`;
// older logs keep sidechains in the parent's file. Either way each agent is a run of its own.
// Calls are delivered in the order of their results, the order the hook sees them in.
import { basename } from 'node:path'

import { hookResult } from '../../lib/host-results.js'

const blocksOf = (message) => (typeof message?.content === 'string' ? [{ type: 'text', text: message.content }] : Array.isArray(message?.content) ? message.content : [])
const textOf = (content) => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((block) => block?.text ?? '').join('\n') : '')

// Text records that are not typed by the user: an interrupt's note. A queued message or task
// notification absorbed mid-turn is an attachment, and a prompt: it fires UserPromptSubmit.
const NOT_TYPED = /^\[Request interrupted by user/

/**
 * The hook's result of a call from its `tool_result` block, in `record`. A call denied permission
 * (`toolDenialKind`), and input the tool refused (`<tool_use_error>`: an unknown tool, a failed
 * validation), reach no post-call hook. A subagent's log keeps no `toolUseResult` of a call that
 * succeeded: then the text the model got stands in, which for Bash is its output, as the hook's
 * stdout and stderr joined are (a silent command's note aside); other tools' raw responses are
 * lost there, and their results differ from the hook's.
 */
function resultOf(call, block, record, blocks) {
  const text = textOf(block.content)
  if (record.toolDenialKind !== undefined || record.permissionDecision?.decision === 'reject') return undefined
  if (block.is_error === true) return text.startsWith('<tool_use_error>') ? undefined : hookResult('claude-code', { hook_event_name: 'PostToolUseFailure', error: text })
  const raw = blocks.filter((b) => b?.type === 'tool_result').length === 1 ? record.toolUseResult : undefined
  const told = raw ?? (call.tool === 'Bash' ? { stdout: text === '(Bash completed with no output)' ? '' : text, stderr: '' } : block.content)
  return hookResult('claude-code', { hook_event_name: 'PostToolUse', tool_response: told })
}

export const claudeCode = {
  format: 'claude-code',

  /** A session log's record: a `type`, and the session's id (an old log may start with a summary). */
  is: (value) => typeof value?.type === 'string' && (typeof value.sessionId === 'string' || (value.type === 'summary' && 'leafUuid' in value)),

  /** The agent a record is of: `main`, a sidechain's `agentId`, or none (bookkeeping records). */
  agentOf: (value) => (value?.isSidechain === true ? String(value.agentId ?? 'sidechain') : value?.isSidechain === false ? 'main' : undefined),

  meta(value, agent, path) {
    const session = typeof value?.sessionId === 'string' ? value.sessionId : basename(path, '.jsonl')
    return agent === 'main' ? { id: session } : { id: agent, parentSession: session, origin: 'subagent' }
  },

  * feed(value, seq, chain) {
    if (value.type === 'attachment' && value.attachment?.type === 'queued_command') yield chain.prompt(seq)
    if (value.type === 'assistant') {
      for (const block of blocksOf(value.message)) {
        if (block?.type === 'tool_use') chain.call(block.id, String(block.name ?? ''), block.input ?? {}, value.message?.id ?? value.uuid)
      }
    }
    if (value.type !== 'user' || value.isMeta === true || value.isCompactSummary === true) return
    const blocks = blocksOf(value.message)
    for (const block of blocks) {
      if (block?.type === 'tool_result') yield * chain.result(block.tool_use_id, seq, (call) => resultOf(call, block, value, blocks))
    }
    if (blocks.some((block) => block?.type !== 'tool_result' && !NOT_TYPED.test(block?.text ?? ''))) yield chain.prompt(seq)
  },
}
