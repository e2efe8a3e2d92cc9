// The docs' examples of calls (`text calls` blocks, see ../support/examples.mjs) in the real
// deepseek-harness 0.1.0-rc.8 loop: a scripted model makes each example's calls, the tools return
// the results it gives, a `(user prompt)` opens a turn as a user does, and a `(restart …)` stops the
// harness and resumes the session in a new one with the JSONL persistence. What the model reads must
// be what the example says: each reminder after the call it names, with its tier, the source
// docs/FEATURES.md gives with the example's summary, and its text where the doc shows it. Runs on Node >= 22.19
// (the harness needs it).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import test from 'ava'
import * as guard from '../../index.js'
import { boot, callTool, say, reminders } from '../support/scripted.mjs'
import { readExamples, resultOf } from '../support/examples.mjs'

const AGENT = 'agent-1'
/** A reminder's source as "What the model sees" gives it (the README and docs/FEATURES.md). */
const SOURCE = (summary) => ({ kind: 'plugin', plugin: 'repeat-tool-guard', form: 'notice', summary })
const examples = await readExamples()

/** The example's steps as lifecycles (split at each restart), each a list of turns of calls. */
function lifecycles(steps) {
  const all = [[[]]]
  for (const step of steps) {
    if (step.kind === 'restart') all.push([[]])
    else if (step.kind === 'prompt') all.at(-1).push([])
    else for (let call = step.from; call <= step.to; call++) all.at(-1).at(-1).push(step)
  }
  return all
}

/** Runs the example in the loop: per reminder delivered, the call it followed, its tier, source and text. */
async function inLoop(example, t) {
  const tools = [...new Set(example.steps.filter((s) => s.kind === 'calls').map((s) => s.tool))]
  const queue = []
  let calls = 0
  const heard = []
  const delivered = []
  const parts = lifecycles(example.steps)
  const root = parts.length > 1 ? await mkdtemp(join(tmpdir(), 'rtg-examples-')) : undefined
  if (root) t.teardown(() => rm(root, { recursive: true, force: true }))
  for (const [index, turns] of parts.entries()) {
    const harness = await boot({
      plugin: guard,
      config: example.config,
      tools,
      answer: () => {
        calls++
        return queue.shift().content
      },
      persistence: root && { root },
      before: (ctx) => {
        ctx.on(guard.REMINDER_EVENT, ({ tier }) => { heard.push({ call: calls, tier }) })
      },
    })
    const script = turns.flatMap((turn) => [...turn.map((step) => callTool(step.tool, step.args)), say('done')])
    queue.push(...turns.flat().map(resultOf))
    const agent = index === 0 ? await harness.agent(AGENT, script) : await harness.resume(AGENT, script)
    const before = reminders(agent.events(), guard.name).length
    for (const turn of turns.keys()) await agent.run('go on', index > 0 && turn === 0 ? 'plugin' : 'user')
    delivered.push(...reminders(agent.events(), guard.name).slice(before))
    await harness.stop()
  }
  t.is(calls, parts.flat(2).length, 'every call ran')
  t.is(heard.length, delivered.length, 'one reminder event per reminder the model reads')
  return delivered.map((reminder, i) => ({ ...heard[i], source: reminder.source, text: reminder.text }))
}

for (const example of examples) {
  test(example.where, async (t) => {
    if (example.error) return t.fail(example.error)
    const got = await inLoop(example, t)
    t.deepEqual(got.map(({ call, tier, source }) => ({ call, tier, source })), example.reminders.map(({ call, tier, summary }) => ({ call, tier, source: SOURCE(summary) })))
    for (const { call, text, where } of example.texts) {
      t.is(got.find((reminder) => reminder.call === call)?.text, text, `the reminder text at ${where}`)
    }
  })
}
