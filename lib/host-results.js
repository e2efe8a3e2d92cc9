// What a host agent's tool call returned, as the guard's `{ content, isError }`. The hook reads it
// from the post-call event's stdin payload; the replay and the hook's resume read the same call
// from the host's transcript. Both go through this one table: a transcript reader builds the
// payload fields the table reads from its records, so that a call yields the same result either
// way and a resumed chain equals the live one (under `sameResultOnly` a different content would
// split a run). Where a transcript holds less than the payload, the reader's note says so.
//
// | host        | event                      | content                                              | isError                          |
// | ----------- | -------------------------- | ---------------------------------------------------- | -------------------------------- |
// | claude-code | PostToolUse                | `tool_response`; a Bash `{ stdout, stderr, … }` as   | false                            |
// |             |                            | the non-empty ones of stdout and stderr, "\n"-joined |                                  |
// | claude-code | PostToolUseFailure         | `error` (the text the model got)                     | true                             |
// | codex       | PostToolUse                | `tool_response` (a string) as given                  | false                            |
// | gemini      | AfterTool                  | `tool_response.llmContent`                           | `tool_response.error` is present |
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

const RESULTS = {
  'claude-code': (payload) => (payload.hook_event_name === 'PostToolUseFailure' ? { content: payload.error, isError: true } : { content: claudeContent(payload.tool_response), isError: false }),
  codex: (payload) => ({ content: payload.tool_response, isError: false }),
  gemini: (payload) => ({ content: payload.tool_response?.llmContent, isError: payload.tool_response?.error !== undefined && payload.tool_response?.error !== null }),
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
 * Tool names a transcript spells otherwise than the host's hook payload does, per host: the guard
 * counts calls by the hook's name, so a reader renames what it reads. Codex's rollout logs its
 * shell tool as `exec_command` where the hook says `Bash`.
 */
export const TRANSCRIPT_TOOL_NAMES = {
  codex: { exec_command: 'Bash' },
}

/** The name `host`'s hook gives the tool a transcript of it calls `name`. */
export function hookToolName(host, name) {
  return Object.hasOwn(TRANSCRIPT_TOOL_NAMES[host] ?? {}, name) ? TRANSCRIPT_TOOL_NAMES[host][name] : name
}
