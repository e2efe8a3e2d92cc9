// The OpenAI Agents SDK adapter (frameworks/openai-agents.js) in the SDK's own run loop, run() and
// Runner, streamed and not, with a scripted model implementing the SDK's Model interface and real
// tool() definitions: each run's reminders equal what the class gives for the same calls, call for
// call, and every input the model receives is the transcript the harness would show (each reminder
// right after its turn's results, from then on, once). Also: stopAt (the run ended, or every later
// call rejected), parallel calls, concurrent runs, handoffs and agents as tools, keys, config
// errors, what importing costs, and the examples of docs/FRAMEWORKS.md run as the page writes them.
import test from 'ava'
import { importTrace, markedBlocks } from './support/docs.mjs'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Agent, Runner, Usage, run, setTracingDisabled, tool } from '@openai/agents'
import { z } from 'zod'

import { loopGuard } from '../frameworks/openai-agents.js'
import { RepeatToolGuard } from '../lib/guard.js'
import { unknownKeyWarning } from '../lib/keys.js'
import { GENTLE, detailed } from './oracle.mjs'

// No traces leave the test (the SDK would export them to OpenAI).
setTracingDisabled(true)

const root = fileURLToPath(new URL('..', import.meta.url))

// What the SDK gives the model for a tool that threw, by default (the tool's errorFunction).
const TOOL_ERROR = 'An error occurred while running the tool. Please try again.'
// Each tool's result as docs/FRAMEWORKS.md maps it: the tool's output, or its errorFunction's text.
const RESULTS = {
  grep: { content: 'none', isError: false },
  read: { content: TOOL_ERROR, isError: false },
}
const GREP = ['grep', { q: 'x' }]
const times = (n, response) => Array.from({ length: n }, () => response)

/** The tools, each counting the times it really ran. */
function makeTools() {
  const executions = { grep: 0, read: 0 }
  const tools = [
    tool({ name: 'grep', description: 'Search the code', parameters: z.object({ q: z.string() }), execute: async () => { executions.grep++; return 'none' } }),
    tool({ name: 'read', description: 'Read a file', parameters: z.object({ path: z.string() }), execute: async () => { executions.read++; throw new Error('ENOENT: no such file') } }),
  ]
  return { tools, executions }
}

let models = 0
/**
 * A model (the SDK's Model interface) that makes `script[i]`'s calls (`[tool, args]`) in its i-th
 * response, then answers `answer`; each request's input is kept. A call's id names the model, the
 * response and the call: `m<model>r<response>c<call>`.
 */
function scripted(script, { answer = 'done', pause = false, order = [] } = {}) {
  const name = `m${++models}`
  const inputs = []
  let turn = 0
  async function respond(request) {
    inputs.push(structuredClone(request.input))
    order.push(name)
    // Let another run's turn in before answering.
    if (pause) await new Promise((resolve) => setImmediate(resolve))
    const i = turn++
    const calls = script[i] ?? []
    const output = calls.length
      ? calls.map(([toolName, args], j) => ({ type: 'function_call', id: `fc-${name}r${i}c${j}`, callId: `${name}r${i}c${j}`, name: toolName, arguments: JSON.stringify(args), status: 'completed' }))
      : [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: answer }] }]
    return { usage: new Usage({ requests: 1 }), output, responseId: `${name}r${i}` }
  }
  const model = {
    getResponse: respond,
    async * getStreamedResponse(request) {
      const { responseId, output } = await respond(request)
      yield { type: 'response_done', response: { id: responseId, usage: { requests: 1, inputTokens: 0, outputTokens: 0, totalTokens: 0 }, output } }
    },
  }
  return { model, name, inputs }
}

/** An input as the model received it, one line an item: user text, calls and results by id. */
function transcript(input) {
  if (typeof input === 'string') return [`user: ${input}`]
  return input.map((item) => {
    if (item.type === 'function_call') return `call ${item.callId}`
    if (item.type === 'function_call_result') return `result ${item.callId}: ${item.output?.type === 'text' ? item.output.text : JSON.stringify(item.output)}`
    if (item.role === 'user') return `user: ${item.content}`
    return JSON.stringify(item)
  })
}

/**
 * The same calls through the class, each response one model response (`nextResponse` with
 * `perResponse`), each call's result from RESULTS: per response, per call, `{ id, reminder, note,
 * denied }`. `note`: the text the model reads after the response's results (a stop once an agent);
 * `denied`: the agent was stopped by an earlier response, and `ends` is false: the call is
 * rejected, never counted. With `ends`, the responses after the stop's are left out: the run ended.
 */
function direct(config, script, name, { ends = true } = {}) {
  const guard = new RepeatToolGuard(config)
  let stop
  const plan = []
  for (const [i, calls] of script.entries()) {
    if (stop !== undefined && ends) break
    if (config?.perResponse) guard.nextResponse('agent')
    const stopped = stop
    plan.push(calls.map(([toolName, args], j) => {
      const id = `${name}r${i}c${j}`
      if (stopped !== undefined) return { id, denied: stopped }
      const reminder = guard.observe('agent', toolName, args, RESULTS[toolName])
      const again = reminder?.tier === 'stop' && stop !== undefined
      if (reminder?.tier === 'stop') stop ??= reminder.text
      return { id, toolName, reminder, note: reminder && !again ? reminder.text : undefined }
    }))
  }
  return plan
}

/**
 * The inputs a run of `plan` should send: after each response's calls and results, its notes; then
 * the answer's, unless the run ended at a stop (`ends`).
 */
function expectedInputs(plan, { prompt = 'go', ends = true } = {}) {
  const inputs = []
  let lines = [`user: ${prompt}`]
  for (const calls of plan) {
    inputs.push(lines)
    const results = calls.map(({ id, toolName, denied }) => `result ${id}: ${denied ?? RESULTS[toolName].content}`)
    const notes = calls.flatMap(({ note }) => (note === undefined ? [] : [`user: ${note}`]))
    lines = [...lines, ...calls.map(({ id }) => `call ${id}`), ...results, ...notes]
  }
  const stopped = ends && plan.flat().some(({ note, reminder }) => note !== undefined && reminder?.tier === 'stop')
  return stopped ? inputs : [...inputs, lines]
}

const brief = ({ toolCallId, reminder: { tier, count, text } }) => ({ id: toolCallId, tier, count, text })
const reminded = (plan) => plan.flat().filter(({ reminder }) => reminder).map(({ id, reminder: { tier, count, text } }) => ({ id, tier, count, text }))

/** One run of `agent` in `mode` ('run' or 'stream'), with the guard's run options. */
async function once(mode, agent, input, options) {
  if (mode === 'run') return run(agent, input, options)
  const result = await run(agent, input, { ...options, stream: true })
  await result.completed
  if (result.error) throw result.error
  return result
}

/**
 * Runs `script` in `mode` under `config` and checks it against the class: the reminders call for
 * call, every input the model receives, and the executions of the tools.
 */
async function check(t, mode, config, script, { agent: agentOptions = {}, ends = true, answer } = {}) {
  const delivered = []
  const guard = loopGuard(config, { onReminder: (d) => delivered.push(d) })
  const { model, name, inputs } = scripted(script, { answer })
  const { tools, executions } = makeTools()
  const agent = guard.agent(new Agent({ name: 'coder', model, tools, ...agentOptions }))
  const result = await once(mode, agent, 'go', { ...guard.runOptions, maxTurns: 50 })
  const plan = direct(config, script, name, { ends })
  t.deepEqual(delivered.map(brief), reminded(plan), 'the class\'s reminders, call for call')
  t.deepEqual(inputs.map(transcript), expectedInputs(plan, { ends }), 'each reminder after its turn\'s results, from then on, once')
  const ran = plan.flat().filter(({ denied }) => denied === undefined)
  t.deepEqual(executions, { grep: ran.filter(({ toolName }) => toolName === 'grep').length, read: ran.filter(({ toolName }) => toolName === 'read').length }, 'the tools ran for the calls counted, no more')
  return { guard, result, plan, delivered, inputs, name, executions }
}

for (const mode of ['run', 'stream']) {
  test(`${mode}: the same call five times, the reference's texts at calls 3 and 5, each in every later input once`, async (t) => {
    const { plan, inputs, result } = await check(t, mode, undefined, times(5, [GREP]))
    t.deepEqual(plan.flat().filter(({ reminder }) => reminder).map(({ reminder: { tier, count, text } }) => [tier, count, text]), [['gentle', 3, GENTLE], ['detailed', 5, detailed('grep', 5, '{"q":"x"}')]])
    const gentle = inputs.map((input) => transcript(input).filter((line) => line === `user: ${GENTLE}`).length)
    t.deepEqual(gentle, [0, 0, 0, 1, 1, 1], 'the gentle reminder from the 4th input on, once')
    t.is(result.finalOutput, 'done')
  })

  test(`${mode}: one tool failing with one error for other arguments, profile recommended: a failure reminder at the 3rd`, async (t) => {
    const script = [[['read', { path: 'a' }]], [['read', { path: 'b' }]], [['read', { path: 'c' }]], [GREP]]
    const { delivered, inputs } = await check(t, mode, { profile: 'recommended' }, script)
    t.deepEqual(delivered.map(({ reminder: { tier, count }, toolCallId }) => [tier, count, toolCallId.slice(-4)]), [['failure', 3, 'r2c0']])
    t.true(transcript(inputs[3]).at(-1).startsWith('user: Repeated tool failures detected:\n- tool: read\n- same_error: 3 of the last 8 calls'))
  })

  test(`${mode}: stopAt ends the run after the call that reaches it, with the stop as its final output`, async (t) => {
    const { guard, result, plan, inputs, executions } = await check(t, mode, { stopAt: 4 }, times(8, [GREP]))
    t.is(executions.grep, 4, 'the tool ran four times')
    t.is(inputs.length, 4, 'the model was not called again')
    const stop = plan[3][0].reminder
    t.like(stop, { tier: 'stop', count: 4 })
    t.true(stop.text.startsWith('Tool call loop stopped:\n- tool: grep\n- calls: 4'))
    t.is(result.finalOutput, stop.text)
    t.like(guard.stopReason(result), { toolName: 'grep', agent: 'coder', toolCallId: plan[3][0].id, reminder: stop })
    t.deepEqual(guard.stopReason(result.runContext), guard.stopReason(result))
  })
}

test('stopAt, an agent with structured output: the stop after its call\'s results, then every call rejected with it', async (t) => {
  const agent = { outputType: z.object({ answer: z.string() }) }
  const script = times(6, [GREP])
  const { guard, result, plan, inputs, executions } = await check(t, 'run', { stopAt: 4 }, script, { agent, ends: false, answer: '{"answer":"blocked"}' })
  t.is(executions.grep, 4)
  t.is(inputs.length, 7, 'the model goes on, reading the stop')
  const stop = plan[3][0].reminder
  t.deepEqual(transcript(inputs[6]).slice(-5), [`user: ${stop.text}`, `call ${plan[4][0].id}`, `result ${plan[4][0].id}: ${stop.text}`, `call ${plan[5][0].id}`, `result ${plan[5][0].id}: ${stop.text}`])
  t.deepEqual(result.finalOutput, { answer: 'blocked' })
  t.is(guard.stopReason(result).reminder.text, stop.text)
  const rejections = result.toolInputGuardrailResults.filter(({ output }) => output.behavior.type === 'rejectContent')
  t.deepEqual(rejections.map(({ guardrail, output }) => [guardrail.name, output.behavior.message]), times(2, ['repeat-tool-guard', stop.text]))
})

test('stopAt in a turn of parallel calls: the calls beside the stopping one run, one stop message; one at a time, the later ones are rejected', async (t) => {
  const script = [[GREP], [GREP, GREP, GREP]]
  const parallel = await check(t, 'run', { stopAt: 2 }, script)
  t.deepEqual(parallel.delivered.map(({ toolCallId, reminder }) => [toolCallId.slice(-4), reminder.tier]), [['r1c0', 'stop'], ['r1c1', 'stop'], ['r1c2', 'stop']])
  t.is(parallel.result.finalOutput, parallel.delivered[0].reminder.text)
  // One call at a time: the guardrail of each call after the stopping one sees the stop.
  const guard = loopGuard({ stopAt: 2 })
  const { model } = scripted(script)
  const { tools, executions } = makeTools()
  const result = await run(guard.agent(new Agent({ name: 'coder', model, tools })), 'go', { ...guard.runOptions, toolExecution: { maxFunctionToolConcurrency: 1 } })
  t.is(executions.grep, 2)
  t.deepEqual(result.toolInputGuardrailResults.map(({ output }) => output.behavior.type), ['allow', 'allow', 'rejectContent', 'rejectContent'])
  t.is(result.finalOutput, guard.stopReason(result).reminder.text)
})

test('a run resumed from its own state after approvals is the same run: its chain goes on without a key', async (t) => {
  const delivered = []
  const guard = loopGuard({}, { onReminder: (d) => delivered.push(d) })
  const { model, name, inputs } = scripted(times(4, [GREP]))
  let executions = 0
  const grep = tool({ name: 'grep', description: 'Search the code', parameters: z.object({ q: z.string() }), needsApproval: true, execute: async () => { executions++; return 'none' } })
  const agent = guard.agent(new Agent({ name: 'coder', model, tools: [grep] }))
  let result = await run(agent, 'go', guard.runOptions)
  while (result.interruptions.length > 0) {
    for (const item of result.interruptions) result.state.approve(item)
    result = await run(agent, result.state, guard.runOptions)
  }
  t.is(executions, 4)
  t.deepEqual(delivered.map(({ toolCallId, reminder: { tier } }) => [toolCallId, tier]), [[`${name}r2c0`, 'gentle']])
  t.deepEqual(inputs.map(transcript), expectedInputs(direct({}, times(4, [GREP]), name)))
})

test('stopAt beside a toolUseBehavior function of the agent: the guard\'s stop first, the agent\'s own otherwise', async (t) => {
  const seen = []
  const toolUseBehavior = (context, results) => {
    seen.push(results.length)
    return { isFinalOutput: false, isInterrupted: undefined }
  }
  const { result, plan } = await check(t, 'run', { stopAt: 3 }, times(5, [GREP]), { agent: { toolUseBehavior } })
  t.deepEqual(seen, [1, 1], 'asked for the turns before the stop')
  t.is(result.finalOutput, plan[2][0].reminder.text)
})

test('parallel calls in one response, counted in order, the reminder after the response\'s results; with perResponse, once a response', async (t) => {
  const READ = ['read', { path: 'a' }]
  const script = [[GREP, GREP, GREP], [GREP, GREP], [READ], [READ], [READ]]
  const plain = await check(t, 'run', undefined, script)
  t.deepEqual(plain.delivered.map(({ toolCallId, reminder }) => [toolCallId.slice(-4), reminder.tier, reminder.count]), [['r0c2', 'gentle', 3], ['r1c1', 'detailed', 5], ['r4c0', 'gentle', 3]])
  t.deepEqual(transcript(plain.inputs[1]).slice(1), ['r0c0', 'r0c1', 'r0c2'].map((id) => `call ${plain.name}${id}`).concat(['r0c0', 'r0c1', 'r0c2'].map((id) => `result ${plain.name}${id}: none`), [`user: ${GENTLE}`]))
  const once = await check(t, 'run', { perResponse: true }, script)
  t.deepEqual(once.delivered.map(({ toolCallId, reminder }) => [toolCallId.slice(-4), reminder.count]), [['r4c0', 3]])
})

test('concurrent runs of one agent on one guard count apart, even with one context object', async (t) => {
  const delivered = []
  const guard = loopGuard({}, { onReminder: (d) => delivered.push(d) })
  const order = []
  const script = times(4, [GREP])
  const { tools } = makeTools()
  const agent = guard.agent(new Agent({ name: 'coder', tools }))
  const shared = { user: 'one' }
  const runs = [scripted(script, { pause: true, order }), scripted(script, { pause: true, order })]
  await Promise.all(runs.map(({ model }) => new Runner({ model, ...guard.runOptions }).run(agent, 'go', { context: shared })))
  const [a, b] = runs.map(({ name }) => name)
  t.true(order.indexOf(b) < order.lastIndexOf(a), `the runs' turns interleave: ${order}`)
  for (const { name, inputs } of runs) {
    const plan = direct({}, script, name)
    t.deepEqual(delivered.filter(({ toolCallId }) => toolCallId.startsWith(`${name}r`)).map(brief), reminded(plan), 'a gentle reminder at its own 3rd call, none at the 5th of both')
    t.deepEqual(inputs.map(transcript), expectedInputs(plan))
  }
})

test('agents of one run count apart: a handoff\'s target, and an agent used as a tool', async (t) => {
  const delivered = []
  const guard = loopGuard({}, { onReminder: (d) => delivered.push(d) })
  const { tools, executions } = makeTools()
  const specialist = scripted([[GREP], [GREP], [GREP]])
  const researcher = scripted([[GREP], [GREP], [GREP]], { answer: 'found nothing' })
  const triage = scripted([[GREP], [GREP], [['research', { input: 'x' }]], [['transfer_to_specialist', {}]]])
  const research = guard.agent(new Agent({ name: 'researcher', model: researcher.model, tools }))
  const agent = guard.agent(new Agent({
    name: 'triage',
    model: triage.model,
    tools: [...tools, research.asTool({ toolName: 'research', toolDescription: 'Research a question', runOptions: guard.runOptions })],
    handoffs: [new Agent({ name: 'specialist', model: specialist.model, tools })],
  }))
  const result = await run(agent, 'go', guard.runOptions)
  t.is(result.finalOutput, 'done')
  t.is(executions.grep, 8)
  t.deepEqual(delivered.map(({ agent: name, reminder: { tier, count } }) => [name, tier, count]), [['researcher', 'gentle', 3], ['specialist', 'gentle', 3]], 'each agent\'s 3rd call, not the run\'s')
  t.is(transcript(researcher.inputs[3]).at(-1), `user: ${GENTLE}`, 'the agent used as a tool reads its reminder in its own run')
  t.is(transcript(specialist.inputs[3]).at(-1), `user: ${GENTLE}`)
})

test('a key continues an agent\'s chain across runs, and its stop; reset starts it over; without a key each run starts over', async (t) => {
  const delivered = []
  const guard = loopGuard({ stopAt: 4 }, { key: ({ context }) => context.task, onReminder: (d) => delivered.push(d) })
  const { tools, executions } = makeTools()
  const agent = guard.agent(new Agent({ name: 'coder', tools }))
  const go = async (context, script) => {
    const { model, inputs } = scripted(script)
    const result = await new Runner({ model, ...guard.runOptions }).run(agent, 'go', { context })
    return { result, inputs }
  }
  await go({ task: 't' }, times(2, [GREP]))
  await go({}, times(2, [GREP]))
  await go({ task: 't' }, times(1, [GREP]))
  t.deepEqual(delivered.map(({ key, reminder: { tier, count } }) => [key, tier, count]), [['t', 'gentle', 3]], 'the keyed chain\'s 3rd call; the run without a key has its own')
  const stopped = await go({ task: 't' }, times(3, [GREP]))
  t.is(stopped.result.finalOutput, delivered.at(-1).reminder.text, 'the 4th call of the chain stops it')
  const after = await go({ task: 't' }, times(2, [GREP]))
  t.is(executions.grep, 6, 'a stopped chain\'s later run has its calls rejected')
  t.is(after.result.finalOutput, delivered.at(-1).reminder.text)
  guard.reset('t')
  delivered.length = 0
  const fresh = await go({ task: 't' }, times(2, [GREP]))
  t.deepEqual(delivered, [], 'reset: the chain starts over, its stop lifted')
  t.is(fresh.result.finalOutput, 'done')
  guard.dispose('t')
  t.throws(() => loopGuard({}, { key: 5 }), { instanceOf: TypeError })
})

test('a bad config throws the plugin\'s message when loopGuard is called; unknown keys are warned about first, in its words', (t) => {
  for (const config of [{ thresholds: [1] }, { thresholds: 'x' }, 5, { stopAt: 1 }, { failures: { minCalls: 1 } }]) {
    const expected = t.throws(() => new RepeatToolGuard(config))
    t.throws(() => loopGuard(config), { instanceOf: expected.constructor, message: expected.message })
  }
  t.is(t.throws(() => loopGuard({ stopAt: 1 })).message, 'repeat-tool-guard: invalid stopAt 1 — must be an integer >= 2')
  const warnings = []
  t.throws(() => loopGuard({ thresholdz: [3], thresholds: [1] }, { warn: (message) => warnings.push(message) }))
  t.deepEqual(warnings, [unknownKeyWarning('thresholdz')])
  loopGuard({ resume: true }, { warn: (message) => warnings.push(message) })
  t.regex(warnings[1], /^`resume` has no effect here/)
  for (const options of [null, { warn: 1 }, { onReminder: 'x' }]) t.throws(() => loopGuard({}, options), { instanceOf: TypeError })
})

test('the guard never fails a call: one it cannot read is warned about, and the call goes on', async (t) => {
  const warnings = []
  const guard = loopGuard({ profile: 'recommended' }, { warn: (message) => warnings.push(message) })
  // A result with no JSON form: the SDK gives the model its text, the guard cannot compare it.
  const odd = tool({ name: 'odd', description: 'odd', parameters: z.object({}), execute: async () => ({ toJSON() { throw new Error('no JSON') }, toString: () => 'odd' }) })
  const { model, inputs } = scripted([[['odd', {}]]])
  const result = await run(guard.agent(new Agent({ name: 'coder', model, tools: [odd] })), 'go', guard.runOptions)
  t.is(result.finalOutput, 'done')
  t.is(inputs.length, 2)
  t.deepEqual(warnings, ['could not observe odd: no JSON'])
})

test('guard.agent guards an agent once, in place, with copies of its tools; without the run options, no reminder reaches the model', async (t) => {
  const guard = loopGuard({ stopAt: 4 })
  const { tools } = makeTools()
  const agent = new Agent({ name: 'coder', tools })
  t.is(guard.agent(agent), agent)
  t.is(guard.agent(agent), agent)
  t.deepEqual(agent.tools.map(({ inputGuardrails, outputGuardrails }) => [inputGuardrails.length, outputGuardrails.length]), [[1, 1], [1, 1]], 'once')
  t.not(agent.tools[0], tools[0], 'a copy: the tool may serve other agents')
  t.deepEqual(tools[0].inputGuardrails, [])
  t.is(typeof agent.toolUseBehavior, 'function', 'with stopAt, the agent can end the run')
  // The agent in a run without the guard's options: its calls are counted, no reminder reaches the model.
  const { model, inputs } = scripted(times(3, [GREP]))
  await run(agent.clone({ model }), 'go')
  t.is(inputs.length, 4)
  t.false(inputs.flatMap(transcript).includes(`user: ${GENTLE}`))
})

test('a run\'s chains go once its RunContext is collected; a keyed chain stays', (t) => {
  // In a process of its own, with the garbage collector at hand: which chains the guard disposes.
  const url = (path) => JSON.stringify(pathToFileURL(join(root, path)).href)
  const script = `
    import { Agent, Usage, run, setTracingDisabled, tool } from '@openai/agents'
    import { z } from 'zod'
    import { RepeatToolGuard } from ${url('lib/guard.js')}
    import { loopGuard } from ${url('frameworks/openai-agents.js')}
    setTracingDisabled(true)
    const disposed = []
    const dispose = RepeatToolGuard.prototype.dispose
    RepeatToolGuard.prototype.dispose = function (id) { disposed.push(id); return dispose.call(this, id) }
    const grep = tool({ name: 'grep', description: 'Search', parameters: z.object({ q: z.string() }), execute: async () => 'none' })
    const call = { type: 'function_call', callId: 'c', name: 'grep', arguments: '{"q":"x"}', status: 'completed' }
    const answer = { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }
    const model = () => { let turn = 0; return { getResponse: async () => ({ usage: new Usage(), output: [turn++ === 0 ? { ...call, callId: 'c' + Math.random() } : answer] }) } }
    const guard = loopGuard({}, { key: ({ context }) => context.task })
    const agent = guard.agent(new Agent({ name: 'coder', tools: [grep] }))
    await run(agent.clone({ model: model() }), 'go', guard.runOptions)
    await run(agent.clone({ model: model() }), 'go', { ...guard.runOptions, context: { task: 'kept' } })
    for (let i = 0; i < 200 && disposed.length === 0; i++) {
      globalThis.gc()
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    console.log(JSON.stringify(disposed))`
  const disposed = JSON.parse(execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' }))
  t.deepEqual(disposed, [JSON.stringify([1, 'coder'])], 'the run without a key, not the keyed one')
})

/** The module URLs that importing `module` (a path in the package) resolves, and its exports' names. */

const isAgents = (url) => url.includes('/@openai/agents')

test('importing the plugin loads no module of the Agents SDK', (t) => {
  const { exported, imported } = importTrace(t, 'index.js')
  t.true(exported.includes('apply'))
  t.true(imported.some((url) => url.includes('@deepseek-ai/dsh-llm')), 'the trace sees the plugin\'s own dependencies')
  t.deepEqual(imported.filter(isAgents), [])
})

test('importing the adapter loads the class, and neither the SDK, the plugin nor cordis', (t) => {
  const { exported, imported } = importTrace(t, 'frameworks/openai-agents.js')
  t.deepEqual(exported, ['loopGuard'])
  t.true(imported.some((url) => url.endsWith('/lib/guard.js')))
  t.deepEqual(imported.filter((url) => isAgents(url) || url === pathToFileURL(join(root, 'index.js')).href || url.includes('@deepseek-ai/')), [])
})

// docs/FRAMEWORKS.md's examples for this adapter, each after a `<!-- example: openai-agents-NAME -->`
// line, run as the page writes them: the SDK and the package's subpath resolved from here, `model`
// (a scripted one) and `tools` (the grep tool) given.
const page = readFileSync(join(root, 'docs/FRAMEWORKS.md'), 'utf8')
const EXAMPLES = Object.fromEntries(Object.entries(markedBlocks('docs/FRAMEWORKS.md')).filter(([name]) => name.startsWith('openai-agents-')))

/** Runs an example with `model` and `tools`; what it printed with console.log. */
async function runExample(name, model, tools) {
  if (EXAMPLES[name] === undefined) throw new Error(`docs/FRAMEWORKS.md has no \`<!-- example: ${name} -->\` block`)
  const code = EXAMPLES[name]
    .replace(/from '@openai\/agents'/g, `from '${import.meta.resolve('@openai/agents')}'`)
    .replace(/from '@deepseek-ai\/dsh-repeat-tool-guard\/openai-agents'/g, `from '${import.meta.resolve('@deepseek-ai/dsh-repeat-tool-guard/openai-agents')}'`)
  globalThis.frameworksExample = { model, tools }
  const printed = []
  const log = console.log
  console.log = (...args) => printed.push(args.join(' '))
  try {
    await import(`data:text/javascript,${encodeURIComponent(`const { model, tools } = globalThis.frameworksExample\n${code}`)}`)
  } finally {
    console.log = log
    delete globalThis.frameworksExample
  }
  return printed
}

test('docs/FRAMEWORKS.md has the OpenAI Agents SDK examples under its heading', (t) => {
  t.deepEqual(Object.keys(EXAMPLES), ['openai-agents-run', 'openai-agents-keys'])
  const section = page.slice(page.indexOf('\n## OpenAI Agents SDK\n'))
  t.true(section.length < page.length, 'the heading is there')
  for (const name of Object.keys(EXAMPLES)) t.true(section.includes(`<!-- example: ${name} -->`), name)
})

test.serial('example openai-agents-run: the recommended profile and stopAt 8, the stop read from the result', async (t) => {
  const script = times(12, [GREP])
  const { model, name, inputs } = scripted(script)
  const { tools, executions } = makeTools()
  const printed = await runExample('openai-agents-run', model, tools.slice(0, 1))
  const plan = direct({ profile: 'recommended', stopAt: 8 }, script, name)
  t.deepEqual(inputs.map(transcript), expectedInputs(plan, { prompt: 'Why does the build fail?' }))
  t.is(executions.grep, 8)
  t.deepEqual(printed, ['stopped: grep × 8'])
})

test.serial('example openai-agents-keys: a run resumed from a saved state after each approval continues its chain by its key', async (t) => {
  const script = times(6, [GREP])
  const { model, name, inputs } = scripted(script)
  const executions = { grep: 0 }
  const grep = tool({ name: 'grep', description: 'Search the code', parameters: z.object({ q: z.string() }), needsApproval: true, execute: async () => { executions.grep++; return 'none' } })
  const printed = await runExample('openai-agents-keys', model, [grep])
  const plan = direct({ stopAt: 5 }, script, name)
  t.is(executions.grep, 5)
  t.deepEqual(inputs.map(transcript), expectedInputs(plan, { prompt: 'Why does the build fail?' }))
  t.deepEqual(printed, [plan[4][0].reminder.text])
})
