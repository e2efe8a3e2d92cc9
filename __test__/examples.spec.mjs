// The docs' examples of calls (`text calls` blocks, see support/examples.mjs), each run through the
// RepeatToolGuard class: the reminders come at the calls, with the tiers, counts and tools the example
// gives, and none elsewhere; the texts it shows are theirs; each similarity it states is the one the
// rule finds. __test__/harness/examples.spec.mjs runs the same examples in the real rc.8 loop.
import test from 'ava'
import { RepeatToolGuard } from '../index.js'
import { readExamples, resultOf } from './support/examples.mjs'

const AGENT = 'agent-1'
const examples = await readExamples()

test('the README holds examples of calls, and each example gives a config and calls', (t) => {
  t.true(examples.filter((example) => example.where.startsWith('README.md')).length >= 5)
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
    t.deepEqual(got.map(({ text, ...reminder }) => reminder), example.reminders.map(({ summary, ...reminder }) => reminder))
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
