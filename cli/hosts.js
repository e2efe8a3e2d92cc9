// The hook command's dialects: how each host's stdin event reads as one of the guard's inputs, and
// how an answer is written back in that host's protocol. Claude Code's protocol is the common one:
// Codex takes its fields and answers, Gemini CLI names its events otherwise and denies with
// `decision`, Copilot CLI and Cursor use camelCase events with fields of their own (docs/HOSTS.md
// has the table). What a tool call returned is read by lib/host-results.js, which the transcript
// readers share.
import { hookResult } from '../lib/host-results.js'

/**
 * One event as the hook acts on it: `kind` is `pre` (a call about to run), `call` (a call and its
 * result), `prompt` (a user prompt: the agent's chain starts over) or `end` (the session's state
 * goes); `session`, the host's session id; `agent`, the agent making the call (a subagent's own id,
 * else `main`); `tool`, `args` and `result` of a call; `id`, the call's id where the host gives one;
 * `name`, the event's name as answers repeat it.
 */
function event(kind, name, payload, fields) {
  return { kind, name, cwd: payload.cwd, transcript: payload.transcript_path, agent: 'main', ...fields }
}

// Claude Code's events; Codex sends the same names and fields (a subagent's events carry `agent_id`).
function claudeEvent(host) {
  return (payload) => {
    const name = payload.hook_event_name
    const base = { session: payload.session_id, agent: payload.agent_id ?? 'main' }
    switch (name) {
      case 'PreToolUse': return event('pre', name, payload, { ...base, tool: payload.tool_name, id: payload.tool_use_id })
      case 'PostToolUse':
      case 'PostToolUseFailure':
        return event('call', name, payload, { ...base, tool: payload.tool_name, args: payload.tool_input, result: hookResult(host, payload), id: payload.tool_use_id })
      case 'UserPromptSubmit': return event('prompt', name, payload, base)
      case 'SessionEnd': return event('end', name, payload, base)
      default: return undefined
    }
  }
}

// Gemini CLI gives no call id and no subagent's id: a subagent's calls count on its parent's chain.
function geminiEvent(payload) {
  const name = payload.hook_event_name
  const base = { session: payload.session_id }
  switch (name) {
    case 'BeforeTool': return event('pre', name, payload, { ...base, tool: payload.tool_name })
    case 'AfterTool': return event('call', name, payload, { ...base, tool: payload.tool_name, args: payload.tool_input, result: hookResult('gemini', payload) })
    case 'BeforeAgent': return event('prompt', name, payload, base)
    case 'SessionEnd': return event('end', name, payload, base)
    default: return undefined
  }
}

/** A JSON string of arguments (Copilot's `toolArgs`, Cursor's MCP `tool_input`) as its value; other values as they are. */
function argumentsOf(args) {
  if (typeof args !== 'string') return args
  try {
    return JSON.parse(args)
  } catch {
    return args
  }
}

// Copilot CLI's camelCase events carry no event name: each is told by its fields. (Configured
// with Claude Code's event names, it sends Claude Code's payloads, which that dialect reads.)
function copilotEvent(payload) {
  const base = { session: payload.sessionId }
  const name = payload.hookEventName ?? (payload.toolResult !== undefined ? 'postToolUse' : payload.toolName !== undefined && payload.error !== undefined ? 'postToolUseFailure' : payload.toolName !== undefined ? 'preToolUse' : payload.prompt !== undefined ? 'userPromptSubmitted' : payload.reason !== undefined ? 'sessionEnd' : undefined)
  const call = { ...base, tool: payload.toolName, args: argumentsOf(payload.toolArgs) }
  switch (name) {
    case 'preToolUse': return event('pre', name, payload, call)
    case 'postToolUse': return event('call', name, payload, { ...call, result: hookResult('copilot', payload) })
    case 'postToolUseFailure': return event('call', name, payload, { ...call, result: { content: payload.error, isError: true } })
    case 'userPromptSubmitted': return event('prompt', name, payload, base)
    case 'sessionEnd': return event('end', name, payload, base)
    default: return undefined
  }
}

function cursorEvent(payload) {
  const name = payload.hook_event_name
  const base = { session: payload.conversation_id }
  const call = { ...base, tool: payload.tool_name, args: argumentsOf(payload.tool_input), id: payload.tool_use_id }
  switch (name) {
    case 'preToolUse': return event('pre', name, payload, call)
    case 'postToolUse': return event('call', name, payload, { ...call, result: hookResult('cursor', payload) })
    case 'postToolUseFailure': return event('call', name, payload, { ...call, result: { content: payload.error ?? payload.error_message, isError: true } })
    case 'beforeSubmitPrompt': return event('prompt', name, payload, base)
    case 'sessionEnd': return event('end', name, payload, base)
    default: return undefined
  }
}

// The answers: `context` after a call's result, `stop` ends the turn at stopAt (`tell`: the model
// is told too), `deny` a call of a stopped agent. Where `continue: false` does not end a turn
// (Codex replaces the call's result with the reason and goes on; Copilot CLI and Cursor document
// none after a call), the stop is said as context, and every later call is denied.
const context = (name, text) => ({ hookSpecificOutput: { hookEventName: name, additionalContext: text } })
const claudeAnswers = {
  context,
  stop: (name, text, tell) => ({ continue: false, stopReason: text, ...(tell ? context(name, text) : {}) }),
  deny: (name, text) => ({ hookSpecificOutput: { hookEventName: name, permissionDecision: 'deny', permissionDecisionReason: text } }),
}
const contextOnly = (answer) => (name, text, tell) => (tell ? answer(name, text) : undefined)

export const DIALECTS = {
  'claude-code': { event: claudeEvent('claude-code'), answers: claudeAnswers },
  codex: { event: claudeEvent('codex'), answers: { ...claudeAnswers, stop: contextOnly(context) } },
  gemini: { event: geminiEvent, answers: { context, stop: claudeAnswers.stop, deny: (_, text) => ({ decision: 'deny', reason: text }) } },
  copilot: {
    event: copilotEvent,
    answers: {
      context: (_, text) => ({ additionalContext: text }),
      stop: contextOnly((_, text) => ({ additionalContext: text })),
      deny: (_, text) => ({ permissionDecision: 'deny', permissionDecisionReason: text }),
    },
  },
  cursor: {
    event: cursorEvent,
    answers: {
      context: (_, text) => ({ additional_context: text }),
      stop: contextOnly((_, text) => ({ additional_context: text })),
      deny: (_, text) => ({ permission: 'deny', user_message: text, agent_message: text }),
    },
  },
}

/** The host that sent `payload`, told by its fields: Gemini CLI's event names, Cursor's `conversation_id`, Copilot CLI's camelCase, Codex's `turn_id`, else Claude Code. */
export function hostOf(payload) {
  if (typeof payload.hook_event_name === 'string' && /^(Before|After)[A-Z]/.test(payload.hook_event_name)) return 'gemini'
  if (payload.conversation_id !== undefined) return 'cursor'
  if (payload.sessionId !== undefined && payload.hook_event_name === undefined) return 'copilot'
  if (payload.turn_id !== undefined) return 'codex'
  return 'claude-code'
}
