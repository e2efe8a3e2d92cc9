// The AI SDK adapter (frameworks/ai-sdk.js) in the SDK's own tool loop, generateText and
// streamText, with the SDK's mock model: each scripted run's reminders equal what the class gives
// for the same calls, call for call, and every prompt the model receives is the transcript the
// harness would show (each reminder right after its step's results, from then on, once). Also:
// stopAt, parallel calls, concurrent and keyed runs, a caller's prepareStep, config errors, what
// importing costs, and the examples of docs/FRAMEWORKS.md run as the page writes them.
import test from 'ava'
import { importTrace, markedBlocks } from './support/docs.mjs'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { dynamicTool, generateText, stepCountIs, streamText, tool } from 'ai'
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test'
import { z } from 'zod'

import { loopGuard } from '../frameworks/ai-sdk.js'
import { RepeatToolGuard } from '../lib/guard.js'
import { unknownKeyWarning } from '../lib/keys.js'
import { GENTLE, detailed } from './oracle.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))

const TOOLS = {
  grep: tool({ inputSchema: z.object({ q: z.string() }), execute: async () => 'none' }),
  read: tool({ inputSchema: z.object({ path: z.string() }), execute: async () => { throw new Error('ENOENT: no such file') } }),
  search: dynamicTool({ inputSchema: z.object({ q: z.string() }), execute: async () => ({ hits: 0 }) }),
}
// Each tool's result as docs/FRAMEWORKS.md maps it: the output, or the error as the model reads it.
const RESULTS = {
  grep: { content: 'none', isError: false },
  read: { content: 'Error: ENOENT: no such file', isError: true },
  search: { content: { hits: 0 }, isError: false },
}
const GREP = ['grep', { q: 'x' }]
const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } }
const MODES = ['generateText', 'streamText']
const times = (n, step) => Array.from({ length: n }, () => step)

let runs = 0
/**
 * A mock model that makes `script[i]`'s calls (`[tool, args]`) at its i-th step (counted across
 * the runs it serves), then answers in text; each step's prompt is kept. A call's id names the
 * model, the step and the call: `m<model>s<step>c<call>`.
 */
function scripted(script, { pause = false, order = [] } = {}) {
  const name = `m${++runs}`
  const prompts = []
  const options = []
  let step = 0
  async function respond(call) {
    prompts.push(call.prompt)
    options.push(call)
    order.push(name)
    // Let another run's step in before answering.
    if (pause) await new Promise((resolve) => setImmediate(resolve))
    const i = step++
    return (script[i] ?? []).map(([toolName, args], j) => ({ type: 'tool-call', toolCallId: `${name}s${i}c${j}`, toolName, input: JSON.stringify(args) }))
  }
  const finishReason = (calls) => ({ unified: calls.length ? 'tool-calls' : 'stop', raw: undefined })
  const model = new MockLanguageModelV4({
    async doGenerate(call) {
      const calls = await respond(call)
      return { content: calls.length ? calls : [{ type: 'text', text: 'done' }], finishReason: finishReason(calls), usage: USAGE, warnings: [] }
    },
    async doStream(call) {
      const calls = await respond(call)
      const text = [{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'done' }, { type: 'text-end', id: 't' }]
      const parts = [{ type: 'stream-start', warnings: [] }, ...(calls.length ? calls : text), { type: 'finish', finishReason: finishReason(calls), usage: USAGE }]
      return { stream: convertArrayToReadableStream(parts) }
    },
  })
  return { model, name, prompts, options }
}

/** One run in `mode`, with the guard's hooks spread in; what the test reads of its result. */
async function loop(mode, { hooks, ...rest }) {
  const options = { tools: TOOLS, prompt: 'go', ...hooks, stopWhen: [stepCountIs(50), hooks.stopWhen], ...rest }
  if (mode === 'generateText') return generateText(options)
  let failure
  const result = streamText({ ...options, onError: ({ error }) => { failure = error } })
  await result.consumeStream()
  if (failure) throw failure
  return { steps: await result.steps, stoppedBy: await result.stoppedBy, response: await result.response, finishReason: await result.finishReason }
}

/** A prompt as the model received it, one line a message: user text, calls and results by id. */
function transcript(prompt) {
  return prompt.map((message) => {
    if (message.role === 'user') return `user: ${message.content.map((part) => part.text).join('')}`
    const ids = message.content.map((part) => part.toolCallId).join(' ')
    return message.role === 'assistant' ? `calls: ${ids}` : `${message.role}: ${ids}`
  })
}

/**
 * The same calls through the class: per step, its reminders as `{ id, tier, count, text }`, each
 * step a model response (`nextResponse`), each call's result from RESULTS.
 */
function direct(config, script, name, guard = new RepeatToolGuard(config), agent = 'agent') {
  return script.map((calls, i) => {
    if (config?.perResponse) guard.nextResponse(agent)
    return calls.flatMap(([tool, args], j) => {
      const reminder = guard.observe(agent, tool, args, RESULTS[tool])
      return reminder ? [{ id: `${name}s${i}c${j}`, ...reminder }] : []
    })
  })
}

/** The prompts a run of `steps` model steps should send: after each step's calls and results, its reminders. */
function expectedPrompts(script, reminders, name, steps, start = ['user: go']) {
  const prompts = []
  let messages = start
  for (let i = 0; i < steps; i++) {
    prompts.push(messages)
    const ids = (script[i] ?? []).map((_, j) => `${name}s${i}c${j}`).join(' ')
    messages = [...messages, `calls: ${ids}`, `tool: ${ids}`, ...(reminders[i] ?? []).map(({ text }) => `user: ${text}`)]
  }
  return prompts
}

const brief = ({ toolCallId, reminder: { tier, count, text } }) => ({ id: toolCallId, tier, count, text })

/**
 * Runs `script` in `mode` under `config` and checks it against the class: the reminders call for
 * call, and every prompt. `steps`: the model steps the run should make (the script's and the
 * answer's, unless it stops).
 */
async function check(t, mode, config, script, steps = script.length + 1) {
  const delivered = []
  const guard = loopGuard(config, { onReminder: (d) => delivered.push(d) })
  const { model, name, prompts } = scripted(script)
  const result = await loop(mode, { model, hooks: guard })
  const reminders = direct(config, script, name)
  t.deepEqual(delivered.map(brief), reminders.slice(0, steps).flat(), 'the class\'s reminders, call for call')
  t.deepEqual(prompts.map(transcript), expectedPrompts(script, reminders, name, steps), 'each reminder after its step\'s results, from then on')
  t.is(result.steps.length, steps)
  return { guard, result, reminders, delivered, prompts, name }
}

for (const mode of MODES) {
  test(`${mode}: the same call five times, the reference's texts at calls 3 and 5, each in every later prompt once`, async (t) => {
    const { reminders, prompts, result } = await check(t, mode, undefined, times(5, [GREP]))
    t.deepEqual(reminders.flat().map(({ tier, count, text }) => [tier, count, text]), [['gentle', 3, GENTLE], ['detailed', 5, detailed('grep', 5, '{"q":"x"}')]])
    const texts = prompts.map((prompt) => transcript(prompt).filter((line) => line === `user: ${GENTLE}`).length)
    t.deepEqual(texts, [0, 0, 0, 1, 1, 1], 'the gentle reminder from the 4th prompt on, once')
    t.is(result.stoppedBy, 'model')
  })

  test(`${mode}: one tool failing with one error for other arguments, profile recommended: a failure reminder at the 3rd`, async (t) => {
    const script = [[['read', { path: 'a' }]], [['read', { path: 'b' }]], [['read', { path: 'c' }]], [GREP]]
    const { delivered } = await check(t, mode, { profile: 'recommended' }, script)
    t.deepEqual(delivered.map(({ reminder: { tier, count }, stepNumber }) => [tier, count, stepNumber]), [['failure', 3, 2]])
  })

  test(`${mode}: stopAt ends the loop at the step that reaches it, and the guard says why`, async (t) => {
    const { guard, result, reminders } = await check(t, mode, { stopAt: 4 }, times(8, [GREP]), 4)
    t.is(result.stoppedBy, 'stop-condition')
    const stop = guard.stopReason(result.steps)
    t.like(stop, { toolName: 'grep', stepNumber: 3, reminder: { tier: 'stop', count: 4, text: reminders[3][0].text } })
    t.is(guard.stopReason(), stop, 'the last stop of any run')
    t.true(stop.reminder.text.startsWith('Tool call loop stopped:\n- tool: grep\n- calls: 4'))
  })

  test(`${mode}: parallel calls in one step counted in order; with perResponse, once a response`, async (t) => {
    const S = ['search', { q: 'y' }]
    const script = [[GREP, GREP, GREP], [GREP, S], [S], [S], [S]]
    const plain = await check(t, mode, undefined, script)
    t.deepEqual(plain.delivered.map(({ toolCallId, reminder }) => [toolCallId, reminder.tier]), [[`${plain.name}s0c2`, 'gentle'], [`${plain.name}s3c0`, 'gentle']], 'a dynamic tool counts as any other')
    const once = await check(t, mode, { perResponse: true }, script)
    t.deepEqual(once.delivered.map(({ toolCallId, reminder }) => [toolCallId, reminder.count]), [[`${once.name}s3c0`, 3]])
  })
}

test('concurrent runs on one guard count apart, each by its own run', async (t) => {
  const delivered = []
  const guard = loopGuard({}, { onReminder: (d) => delivered.push(d) })
  const order = []
  const script = times(4, [GREP])
  const runs = MODES.map((mode) => {
    const run = scripted(script, { pause: true, order })
    return { run, result: loop(mode, { model: run.model, hooks: guard }) }
  })
  const [a, b] = runs.map(({ run }) => run.name)
  await Promise.all(runs.map(({ result }) => result))
  t.true(order.indexOf(b) < order.lastIndexOf(a), `the runs' steps interleave: ${order}`)
  for (const { run, result } of runs) {
    const { steps } = await result
    const reminders = direct({}, script, run.name)
    t.deepEqual(delivered.filter((d) => d.callId === steps[0].callId).map(brief), reminders.flat(), 'a gentle reminder at its own 3rd call, none at the 5th of both')
    t.deepEqual(run.prompts.map(transcript), expectedPrompts(script, reminders, run.name, 5))
  }
})

test('a key continues one chain across runs; a key function asks the runtime context; without a key, each run starts over', async (t) => {
  const delivered = []
  const guard = loopGuard({}, { onReminder: (d) => delivered.push(d) })
  const chat = guard.withKey('k')
  for (const script of [times(2, [GREP]), times(1, [GREP])]) {
    const { model } = scripted(script)
    await generateText({ model, tools: TOOLS, prompt: 'go', ...chat, stopWhen: [stepCountIs(9), chat.stopWhen] })
  }
  t.deepEqual(delivered.map(({ key, stepNumber, reminder: { tier, count } }) => [key, stepNumber, tier, count]), [['k', 0, 'gentle', 3]], 'the 3rd call, the second run\'s first')
  // A function of the runtime context: two runs of one conversation continue a chain, a run without one has its own.
  delivered.length = 0
  const keyed = loopGuard({}, { key: ({ runtimeContext }) => runtimeContext?.conversation, onReminder: (d) => delivered.push(d) })
  for (const runtimeContext of [undefined, { conversation: 'c' }, { conversation: 'c' }, undefined]) {
    const { model } = scripted(times(2, [GREP]))
    await generateText({ model, tools: TOOLS, prompt: 'go', runtimeContext, ...keyed, stopWhen: [stepCountIs(9), keyed.stopWhen] })
  }
  t.deepEqual(delivered.map(({ key, reminder: { count } }) => [key, count]), [['c', 3]])
  t.throws(() => guard.withKey(3), { instanceOf: TypeError })
})

test('a keyed chain shows its stop in the next run, right after the call that reached it', async (t) => {
  const guard = loopGuard({ stopAt: 3 })
  const chat = guard.withKey('k')
  const first = scripted(times(5, [GREP]))
  const one = await generateText({ model: first.model, tools: TOOLS, prompt: 'go', ...chat, stopWhen: [stepCountIs(9), chat.stopWhen] })
  t.is(one.steps.length, 3)
  const stop = direct({ stopAt: 3 }, times(3, [GREP]), first.name)[2][0]
  t.is(guard.stopReason(one.steps).reminder.text, stop.text)
  const second = scripted([])
  const messages = [{ role: 'user', content: 'go' }, ...one.responseMessages, { role: 'user', content: 'why did you stop?' }]
  await streamText({ model: second.model, tools: TOOLS, messages, ...chat }).consumeStream()
  const calls = (i) => [`calls: ${first.name}s${i}c0`, `tool: ${first.name}s${i}c0`]
  t.deepEqual(transcript(second.prompts[0]), ['user: go', ...calls(0), ...calls(1), ...calls(2), `user: ${stop.text}`, 'user: why did you stop?'])
})

test('without the guard\'s stopWhen the loop goes on: the stop\'s text once, after the call that reached it', async (t) => {
  const delivered = []
  const guard = loopGuard({ stopAt: 3 }, { onReminder: (d) => delivered.push(d) })
  const script = times(5, [GREP])
  const { model, name, prompts } = scripted(script)
  const result = await generateText({ model, tools: TOOLS, prompt: 'go', prepareStep: guard.prepareStep, stopWhen: stepCountIs(50) })
  const reminders = direct({ stopAt: 3 }, script, name)
  t.deepEqual(delivered.map(brief), reminders.flat(), 'every reminder told')
  t.deepEqual(reminders.flat().map(({ tier }) => tier), ['stop', 'stop', 'stop'])
  const once = reminders.map((list, i) => (i === 2 ? list : []))
  t.deepEqual(prompts.map(transcript), expectedPrompts(script, once, name, 6), 'one stop message a run, as the plugin')
  t.is(guard.stopReason(result.steps).stepNumber, 2)
})

test('reminders are put back where they came when a prepareStep rebuilds the messages, each once', async (t) => {
  const guard = loopGuard({})
  const { model, name, prompts } = scripted(times(6, [GREP]))
  await generateText({
    model,
    tools: TOOLS,
    prompt: 'go',
    // A caller's own messages, rebuilt each step from what the run began with and the responses.
    prepareStep: (options) => guard.prepareStep({ ...options, messages: [...options.initialMessages, ...options.responseMessages] }),
    stopWhen: [stepCountIs(50), guard.stopWhen],
  })
  t.deepEqual(prompts.map(transcript), expectedPrompts(times(6, [GREP]), direct({}, times(6, [GREP]), name), name, 7))
})

test('a bad config throws the plugin\'s message when loopGuard is called; unknown keys are warned about first, in its words', (t) => {
  for (const config of [{ thresholds: [1] }, { thresholds: 'x' }, 5, { stopAt: 1 }]) {
    const expected = t.throws(() => new RepeatToolGuard(config))
    t.throws(() => loopGuard(config), { instanceOf: expected.constructor, message: expected.message })
  }
  t.is(t.throws(() => loopGuard({ thresholds: [1] })).message, 'repeat-tool-guard: invalid threshold 1 — every threshold must be an integer >= 2')
  const warnings = []
  t.throws(() => loopGuard({ thresholdz: [3], thresholds: [1] }, { warn: (message) => warnings.push(message) }))
  t.deepEqual(warnings, [unknownKeyWarning('thresholdz')])
  loopGuard({ resume: true }, { warn: (message) => warnings.push(message) })
  t.regex(warnings[1], /^`resume` has no effect here/)
  t.throws(() => loopGuard({}, { key: 5 }), { instanceOf: TypeError })
  t.deepEqual(Object.keys({ ...loopGuard({}) }), ['prepareStep', 'stopWhen'], 'spreading gives the SDK the two hooks only')
})

/** The module URLs that importing `module` (a path in the package) resolves, and its exports' names. */

const isAi = (url) => /\/node_modules\/(ai|@ai-sdk\/[^/]+)\//.test(url)

test('importing the plugin loads no module of the AI SDK', (t) => {
  const { exported, imported } = importTrace(t, 'index.js')
  t.true(exported.includes('apply'))
  t.true(imported.some((url) => url.includes('@deepseek-ai/cordis')), 'the trace sees the plugin\'s own dependencies')
  t.deepEqual(imported.filter(isAi), [])
})

test('importing the adapter loads the class only: not the SDK, the plugin, cordis nor the harness', (t) => {
  const { exported, imported } = importTrace(t, 'frameworks/ai-sdk.js')
  t.deepEqual(exported, ['loopGuard'])
  t.true(imported.some((url) => url.endsWith('/lib/guard.js')))
  t.deepEqual(imported.filter((url) => isAi(url) || url === pathToFileURL(join(root, 'index.js')).href || url.includes('@deepseek-ai/')), [])
})

// docs/FRAMEWORKS.md's examples, each after a `<!-- example: NAME -->` line, run as the page writes
// them: `ai` and the package's subpath resolved from here, `model` and `tools` given.
const page = readFileSync(join(root, 'docs/FRAMEWORKS.md'), 'utf8')
const EXAMPLES = markedBlocks('docs/FRAMEWORKS.md')

/** Runs an example with `model`; what it printed with console.log. */
async function runExample(name, model) {
  const code = EXAMPLES[name]
    .replace(/from 'ai'/g, `from '${import.meta.resolve('ai')}'`)
    .replace(/from '@deepseek-ai\/dsh-repeat-tool-guard\/ai-sdk'/g, `from '${import.meta.resolve('@deepseek-ai/dsh-repeat-tool-guard/ai-sdk')}'`)
  globalThis.frameworksExample = { model, tools: TOOLS }
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

test('docs/FRAMEWORKS.md has the AI SDK examples, and the OpenAI Agents SDK\'s heading for its adapter', (t) => {
  t.deepEqual(Object.keys(EXAMPLES).filter((name) => name.startsWith('ai-sdk-')), ['ai-sdk-generate', 'ai-sdk-agent', 'ai-sdk-compose', 'ai-sdk-keys'])
  t.regex(page, /\n## AI SDK\n/)
  t.regex(page, /\n## OpenAI Agents SDK\n/)
})

test.serial('example ai-sdk-generate: the recommended profile and stopAt 8, the stop read from the result', async (t) => {
  const script = times(12, [GREP])
  const { model, name, prompts } = scripted(script)
  const printed = await runExample('ai-sdk-generate', model)
  const reminders = direct({ profile: 'recommended', stopAt: 8 }, script, name)
  t.deepEqual(prompts.map(transcript), expectedPrompts(script, reminders, name, 8, ['user: Why does the build fail?']))
  t.deepEqual(printed, ['stopped: grep × 8'])
})

test.serial('example ai-sdk-agent: a ToolLoopAgent stopped at 6', async (t) => {
  const script = times(12, [GREP])
  const { model, name, prompts } = scripted(script)
  const printed = await runExample('ai-sdk-agent', model)
  const reminders = direct({ stopAt: 6 }, script, name)
  t.deepEqual(prompts.map(transcript), expectedPrompts(script, reminders, name, 6, ['user: Find the failing test.']))
  t.deepEqual(printed, [`stop-condition ${reminders[5][0].text}`])
})

test.serial('example ai-sdk-compose: the guard\'s prepareStep, then the caller\'s with its messages', async (t) => {
  const script = times(5, [GREP])
  const { model, name, prompts, options } = scripted(script)
  await runExample('ai-sdk-compose', model)
  t.deepEqual(prompts.map(transcript), expectedPrompts(script, direct({ thresholds: [3, 5] }, script, name), name, 6, ['user: Why does the build fail?']))
  t.deepEqual(options.map(({ toolChoice }) => toolChoice?.type), ['required', 'auto', 'auto', 'auto', 'auto', 'auto'], 'the caller\'s own settings apply')
})

test.serial('example ai-sdk-keys: a loop of one-step runs on one key reminds as one run does', async (t) => {
  const script = times(12, [GREP])
  const { model, name, prompts } = scripted(script)
  await runExample('ai-sdk-keys', model)
  t.deepEqual(prompts.map(transcript), expectedPrompts(script, direct({ stopAt: 8 }, script, name), name, 8, ['user: Why does the build fail?']))
})
