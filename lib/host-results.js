// What a host agent's tool call returned, as the guard's `{ content, isError }`. The hook reads it
// from the post-call event's stdin payload; the replay and the hook's resume read the same call
// from the host's transcript (cli/formats/). Both go through this one table: a transcript reader
// builds the payload fields the table reads from its records, so that a call yields the same result
// either way and a resumed chain equals the live one (with `sameResultOnly`, `noProgress` or
// `failures`, a different content would split a run). Checked against the real clients' payloads
// and transcripts (Claude Code 2.1.328, Codex 0.169.0, Gemini CLI 0.61.0); where a transcript
// holds less than the payload, the reader says so.
//
// | host        | event                      | content                                              | isError                          |
// | ----------- | -------------------------- | ---------------------------------------------------- | -------------------------------- |
// | claude-code | PostToolUse                | `tool_response`; a Bash `{ stdout, stderr, … }` as   | false                            |
// |             |                            | the non-empty ones of stdout and stderr, "\n"-joined |                                  |
// | claude-code | PostToolUseFailure         | `error` (the text the model got)                     | true                             |
// | codex       | PostToolUse                | `tool_response` (a string, or view_image's items,    | false                            |
// |             |                            | an image's data URL without its media type)          |                                  |
// | gemini      | AfterTool                  | `tool_response.error.message` when there is an       | `tool_response.error` is present |
// |             |                            | error (what the model got), else `llmContent`        |                                  |
// | copilot     | postToolUse                | `toolResult.textResultForLlm`                        | `toolResult.resultType` is       |
// |             |                            |                                                      | 'failure' or 'denied'            |
// | cursor      | postToolUse,               | the output field it has: `tool_output`, `output`     | false                            |
// |             | afterShellExecution,       | or `result_json`                                     |                                  |
// |             | afterMCPExecution          |                                                      |                                  |

export const HOSTS = ['claude-code', 'codex', 'gemini', 'copilot', 'cursor']

/** Claude Code's Bash response is an object whose process fields change nothing the model reads. */
function claudeContent(response) {
  if (response === null || typeof response !== 'object' || typeof response.stdout !== 'string' || typeof response.stderr !== 'string') return response
  return [response.stdout, response.stderr].filter((text) => text !== '').join('\n')
}

/** Codex's hook gives a viewed image as `data:application/octet-stream;…` where its rollout says `data:image/png;…`: the bytes are what count. */
function codexContent(response) {
  if (!Array.isArray(response)) return response
  return response.map((item) => (typeof item?.image_url === 'string' ? { ...item, image_url: item.image_url.replace(/^data:[^;,]*/, 'data:') } : item))
}

/** Gemini CLI hands the model `{ error: error.message }` for a failed call, which is what its chat log keeps; `llmContent` is another text. */
function geminiResult(response) {
  const error = response?.error
  if (error === undefined || error === null) return { content: response?.llmContent, isError: false }
  return { content: typeof error === 'object' ? error.message : error, isError: true }
}

const RESULTS = {
  'claude-code': (payload) => (payload.hook_event_name === 'PostToolUseFailure' ? { content: payload.error, isError: true } : { content: claudeContent(payload.tool_response), isError: false }),
  codex: (payload) => ({ content: codexContent(payload.tool_response), isError: false }),
  gemini: (payload) => geminiResult(payload.tool_response),
  copilot: (payload) => ({ content: payload.toolResult?.textResultForLlm, isError: payload.toolResult?.resultType === 'failure' || payload.toolResult?.resultType === 'denied' }),
  cursor: (payload) => ({ content: payload.tool_output ?? payload.output ?? payload.result_json, isError: false }),
}

/** The guard's `{ content, isError }` of the post-call event `payload` (a hook's stdin, parsed) of `host`. */
export function hookResult(host, payload) {
  const result = RESULTS[host]
  if (result === undefined) throw new TypeError(`repeat-tool-guard: unknown host ${JSON.stringify(host)} (expected one of ${HOSTS.join(', ')})`)
  return result(payload ?? {})
}

/**
 * Codex's tools as its hook names them, keyed by the name its rollout logs: the hook says `Bash`
 * for `exec_command` and gives only the command (`cmd`; `workdir`, `yield_time_ms` and the rest
 * are left out), and gives apply_patch's patch (a custom tool's `input`) as `command`. Claude Code
 * and Gemini CLI log the names and arguments their hooks give.
 */
export const CODEX_TOOLS = {
  exec_command: (args) => ({ tool: 'Bash', args: { command: args?.cmd } }),
  apply_patch: (args) => ({ tool: 'apply_patch', args: { command: typeof args === 'string' ? args : args?.input } }),
}

/** `{ tool, args }` as `host`'s hook gives the call a transcript of it logs as `name` with `args`. */
export function hookCall(host, name, args) {
  if (host === 'codex' && Object.hasOwn(CODEX_TOOLS, name)) return CODEX_TOOLS[name](args)
  return { tool: name, args }
}

/** The name `host`'s hook gives the tool a transcript of it calls `name`. */
export const hookToolName = (host, name) => hookCall(host, name, {}).tool
