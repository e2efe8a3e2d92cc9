// The docs' examples of calls (`text calls` blocks, see support/examples.mjs), each run through the
// RepeatToolGuard class: the reminders come at the calls, with the tiers, counts and tools the example
// gives, and none elsewhere; the texts it shows are theirs; each similarity it states is the one the
// rule finds. __test__/harness/examples.spec.mjs runs the same examples in the real rc.8 loop.
// Then the README's code blocks that use the class, run as they stand: each value their comments give.
import { format } from 'node:util'
import test from 'ava'
import * as plugin from '../index.js'
import { blocksIn, readExamples, resultOf } from './support/examples.mjs'

const { RepeatToolGuard, canonicalize } = plugin

const AGENT = 'agent-1'
const examples = await readExamples()

test('the docs hold examples of calls, and each example gives a config and calls', (t) => {
  // docs/FEATURES.md holds them: every tier and most opt-in features with an example. Fewer than these
  // counts means examples were lost (moved to a file examples.mjs does not read, or their info string changed).
  t.true(examples.length >= 12, `${examples.length} examples of calls`)
  t.true(examples.flatMap((example) => example.texts ?? []).length >= 8, 'reminder texts shown with the examples')
  for (const example of examples) t.true(example.error !== null || example.steps.length > 0, example.where)
})

/**
 * The example's calls through one guard, as the plugin meets them: a user prompt resets the chain; a
 * restart starts a new guard, which with `resume` is given the calls since the last prompt with restore().
 */
function run({ config, steps }) {
  let guard = new RepeatToolGuard(config)
  let sincePrompt = []
  const got = []
  for (const step of steps) {
    if (step.kind === 'prompt') {
      guard.reset(AGENT)
      sincePrompt = []
    } else if (step.kind === 'restart') {
      guard = new RepeatToolGuard(config)
      if (config.resume) for (const past of sincePrompt) guard.restore(AGENT, past.tool, past.args, resultOf(past))
    } else {
      for (let call = step.from; call <= step.to; call++) {
        const reminder = guard.observe(AGENT, step.tool, step.args, resultOf(step))
        sincePrompt.push(step)
        if (reminder) got.push({ call, tier: reminder.tier, count: reminder.count, ...(reminder.tools ? { tools: reminder.tools } : { tool: step.tool }), text: reminder.text })
      }
    }
  }
  return got
}

/** Whether a run of two `similar` calls, `before` then `after`, is found at `similarity`. */
function alike(config, before, after, similarity) {
  const guard = new RepeatToolGuard({ ...config, similar: { minCalls: 2, similarity } })
  guard.observe(AGENT, before.tool, before.args)
  return guard.observe(AGENT, after.tool, after.args)?.tier === 'similar'
}

for (const example of examples) {
  test(example.where, (t) => {
    if (example.error) return t.fail(example.error)
    const got = run(example)
    t.deepEqual(got.map(({ text: _text, ...reminder }) => reminder), example.reminders.map(({ summary: _summary, ...reminder }) => reminder))
    for (const { call, text, where } of example.texts) {
      t.is(got.find((reminder) => reminder.call === call)?.text, text, `the reminder text at ${where}`)
    }
    for (const step of example.steps.filter((s) => s.similarity)) {
      // Stated to two decimals: the rule finds the pair alike at half a hundredth below, not above.
      const { to, score } = step.similarity
      t.true(alike(example.config, to, step, score - 0.005), `call ${step.from} is at least ${score - 0.005} alike to the one before`)
      if (score < 1) t.false(alike(example.config, to, step, score + 0.005), `call ${step.from} is less than ${score + 0.005} alike to the one before`)
    }
  })
}

/** The README's one block of `info` under the heading `heading`. */
function readmeBlock(heading, info, includes = '') {
  const found = blocksIn('README.md').filter((block) => block.heading === heading && block.info === info && block.body.join('\n').includes(includes))
  if (found.length !== 1) throw new Error(`README.md has ${found.length} ${info} blocks under "${heading}"`)
  return found[0].body
}

test('README, Check that it works: the command prints what its comment says', (t) => {
  const [command, output, ...rest] = readmeBlock('Check that it works', 'sh')
  t.deepEqual(rest, [])
  // The shell passes a double-quoted text without $, ` or \ as it stands: run that code here. Its
  // require() of the package by name gives this module (the install suites check that it does).
  const code = /^node -e "([^"$`\\]*)"$/.exec(command)?.[1]
  t.truthy(code, command)
  const require = (name) => {
    t.is(name, '@deepseek-ai/dsh-repeat-tool-guard')
    return plugin
  }
  const printed = []
  new Function('require', 'console', code)(require, { log: (...args) => printed.push(format(...args)) })
  t.deepEqual(printed, [output.replace(/^# /, '')])
})

test('README, API: the block runs as written; each comment that is a value is what its line gives', (t) => {
  const [imports, ...lines] = readmeBlock('API', 'js', 'new RepeatToolGuard')
  t.is(imports, "import { RepeatToolGuard, canonicalize } from '@deepseek-ai/dsh-repeat-tool-guard'")
  const statements = lines.filter((line) => line.trim()).map((line) => /^(.*?)\s*(?:\/\/ (.*))?$/.exec(line).slice(1))
  // Each expression statement's value, kept beside its comment.
  const body = statements.map(([code], i) => (code.startsWith('const ') ? code : `values[${i}] = ${code}`)).join('\n')
  const values = []
  new Function('RepeatToolGuard', 'canonicalize', 'values', body)(RepeatToolGuard, canonicalize, values)
  let checked = 0
  for (const [i, [code, comment]] of statements.entries()) {
    if (comment === undefined || code.startsWith('const ')) continue
    const keys = /^\{ (\w+(?:, \w+)*) \}$/.exec(comment)
    if (keys) {
      t.deepEqual(Object.keys(values[i]), keys[1].split(', '), code)
      checked++
      continue
    }
    let literal
    try {
      literal = new Function(`return (${comment})`)()
    } catch {
      continue // words, not a value
    }
    t.deepEqual(values[i], literal, code)
    checked++
  }
  t.true(checked >= 3, 'the block gives values')
  // The observe line's comment tells three calls apart: null, null, then the gentle reminder.
  const [construct] = statements.find(([code]) => code.startsWith('const guard = '))
  const [observe, said] = statements.find(([code]) => code.startsWith('guard.observe('))
  t.is(said, "null, null, then { tier: 'gentle', count: 3, text }")
  const guard = new Function('RepeatToolGuard', `${construct}; return guard`)(RepeatToolGuard)
  const three = [1, 2, 3].map(() => new Function('guard', `return ${observe}`)(guard))
  t.deepEqual(three.map((r) => r && Object.keys(r)), [null, null, ['tier', 'count', 'text']])
  t.like(three[2], { tier: 'gentle', count: 3 })
})
