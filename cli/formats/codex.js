// Codex's rollouts ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<session>.jsonl): `session_meta`
// first, then `response_item` records: `function_call` and `custom_tool_call` (apply_patch) with
// their `…_output`, and user messages, of which those Codex writes itself (the environment, the
// instructions: one `<tag>…</tag>` element) are no prompts. Calls are renamed as the hook names
// them (lib/host-results.js) and counted when the hook hears of them: a command still running
// when its wait ended is counted at the `write_stdin` poll that saw it exit, with that poll's
// output, as Codex sends PostToolUse then; write_stdin itself, a patch that failed verification,
// an image that could not be read and an unknown tool's call reach no hook.
import { basename } from 'node:path'

import { hookCall, hookResult } from '../../lib/host-results.js'
import { parseArguments } from '../../lib/history.js'

const textOf = (content) => (Array.isArray(content) ? content.map((part) => part?.text ?? '').join('\n') : String(content ?? ''))
const INJECTED = /^\s*(<([\w-]+)>[\s\S]*<\/\2>\s*$|# AGENTS\.md instructions)/
const OUTPUT = '\nOutput:\n'

/** A command's output (exec_command's or a poll's): `{ exited, running, text }`, `text` what follows the header, which is the hook's tool_response. */
function commandOutput(output) {
  const at = typeof output === 'string' ? output.indexOf(OUTPUT) : -1
  const header = at === -1 ? '' : output.slice(0, at)
  return { exited: /^Process exited with code /m.test(header), running: /^Process running with session ID (\d+)/m.exec(header)?.[1], text: output?.slice?.(at + OUTPUT.length) }
}

/** The hook's tool_response of a call other than a command's, or none when the hook was not told of it. */
function response(call, output) {
  if (call.tool === 'write_stdin') return undefined
  if (call.tool === 'apply_patch') return typeof output === 'string' && /^Exit code: \d+\n/.test(output) ? output : undefined
  if (call.tool === 'view_image') return Array.isArray(output) ? output : undefined
  return typeof output === 'string' && /^unsupported (custom tool )?call: /.test(output) ? undefined : output
}

// Per chain, the commands still running, by their session id (which write_stdin polls).
const running = new WeakMap()

/** The inputs of the output `item` at `seq`: its own call's, or, for a poll that saw a command exit, that command's. */
function * outputInputs(item, seq, chain) {
  const commands = running.get(chain) ?? running.set(chain, new Map()).get(chain)
  const output = commandOutput(item.output)
  let exited
  yield * chain.result(item.call_id, seq, (call) => {
    if (call.tool === 'Bash' && output.running !== undefined) commands.set(output.running, call)
    if (call.tool === 'Bash') return output.exited ? hookResult('codex', { tool_response: output.text }) : undefined
    if (call.tool === 'write_stdin' && output.exited) {
      exited = commands.get(String(call.args?.session_id))
      commands.delete(String(call.args?.session_id))
    }
    const told = response(call, item.output)
    return told === undefined ? undefined : hookResult('codex', { tool_response: told })
  })
  if (exited !== undefined) yield chain.deliver(exited, seq, hookResult('codex', { tool_response: output.text }))
}

export const codex = {
  format: 'codex',
  is: (value) => value?.type === 'session_meta' && value.payload !== null && typeof value.payload === 'object',
  agentOf: () => undefined,

  meta(value, _agent, path) {
    const session = value?.type === 'session_meta' ? value.payload : undefined
    const meta = { id: typeof session?.id === 'string' ? session.id : basename(path, '.jsonl') }
    if (session?.source?.subagent !== undefined) meta.origin = 'subagent'
    return meta
  },

  * feed(value, seq, chain) {
    if (value.type !== 'response_item') return
    const item = value.payload
    if (item?.type === 'function_call' || item?.type === 'custom_tool_call') {
      const args = item.type === 'custom_tool_call' ? item.input : parseArguments(item.arguments)
      const { tool, args: told } = hookCall('codex', String(item.name ?? ''), args)
      // write_stdin keeps its own arguments: its session id names the command it polls.
      chain.call(item.call_id, tool, tool === 'write_stdin' ? args : told)
    } else if (item?.type === 'function_call_output' || item?.type === 'custom_tool_call_output') {
      chain.settle()
      yield * outputInputs(item, seq, chain)
    } else if (item?.type === 'message') {
      chain.settle()
      if (item.role === 'user' && !INJECTED.test(textOf(item.content))) yield chain.prompt(seq)
    }
  },
}
