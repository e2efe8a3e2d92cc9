// The hook command's dialects: how each host's stdin event reads as one of the guard's inputs, and
// how an answer is written back in that host's protocol. Claude Code's protocol is the common one:
// Codex takes its fields and answers as they are, Gemini CLI names its events otherwise and denies
// with `decision`, Copilot CLI and Cursor use close variants. What a tool call returned is read by
// lib/host-results.js, which the transcript readers share.
import { HOSTS, hookResult } from '../lib/host-results.js'

export { HOSTS }

/**
 * One event as the hook acts on it: `kind` is `pre` (a call about to run), `call` (a call and its
 * result), `prompt` (a user prompt: the chains start over) or `end` (the session's state goes);
 * `session`, the host's session id; `agent`, the agent making the call (a subagent's own id, else
 * `main`); `tool`, `args` and `result` of a call; `id`, the call's id where the host gives one.
 */
function event(kind, payload, fields) {
  return { kind, cwd: payload.cwd, transcript: payload.transcript_path, agent: 'main', ...fields }
}

// Claude Code's events; Codex sends the same names and fields (a subagent's calls carry `agent_id`).
function claudeEvent(host) {
  return (payload) => {
    const base = { session: payload.session_id, agent: payload.agent_id ?? 'main' }
    switch (payload.hook_event_name) {
      case 'PreToolUse': return event('pre', payload, { ...base, tool: payload.tool_name, id: payload.tool_use_id })
      case 'PostToolUse':
      case 'PostToolUseFailure':
        return event('call', payload, { ...base, tool: payload.tool_name, args: payload.tool_input, result: hookResult(host, payload), id: payload.tool_use_id })
      case 'UserPromptSubmit': return event('prompt', payload, base)
      case 'SessionEnd': return event('end', payload, base)
      default: return undefined
    }
  }
}

function geminiEvent(payload) {
  const base = { session: payload.session_id }
  switch (payload.hook_event_name) {
    case 'BeforeTool': return event('pre', payload, { ...base, tool: payload.tool_name })
    case 'AfterTool': return event('call', payload, { ...base, tool: payload.tool_name, args: payload.tool_input, result: hookResult('gemini', payload) })
    case 'BeforeAgent': return event('prompt', payload, base)
    case 'SessionEnd': return event('end', payload, base)
    default: return undefined
  }
}

// Claude Code's answers: context after a call's result, the turn's end, a denied call.
const claudeAnswers = {
  context: (eventName, text) => ({ hookSpecificOutput: { hookEventName: eventName, additionalContext: text } }),
  stop: (eventName, text, tell) => ({ continue: false, stopReason: text, ...(tell ? claudeAnswers.context(eventName, text) : {}) }),
  deny: (eventName, text) => ({ hookSpecificOutput: { hookEventName: eventName, permissionDecision: 'deny', permissionDecisionReason: text } }),
}

const geminiAnswers = {
  context: claudeAnswers.context,
  stop: claudeAnswers.stop,
  deny: (eventName, text) => ({ decision: 'deny', reason: text }),
}

/** Each host: `event(payload)` (undefined for an event the hook does not act on) and its answers. */
export const DIALECTS = {
  'claude-code': { event: claudeEvent('claude-code'), answers: claudeAnswers },
  codex: { event: claudeEvent('codex'), answers: claudeAnswers },
  gemini: { event: geminiEvent, answers: geminiAnswers },
}

/** The host that sent `payload`, told by its fields: Gemini CLI's event names, Codex's `turn_id`, else Claude Code. */
export function hostOf(payload) {
  if (typeof payload.hook_event_name === 'string' && /^(Before|After)/.test(payload.hook_event_name)) return 'gemini'
  if (payload.conversation_id !== undefined) return 'cursor'
  if (payload.hook_event_name === undefined && (payload.toolName !== undefined || payload.sessionId !== undefined)) return 'copilot'
  if (payload.turn_id !== undefined) return 'codex'
  return 'claude-code'
}
