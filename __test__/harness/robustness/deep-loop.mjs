// Deep arguments through the real loop: three identical calls nested 5,000 levels deep through the real loop,
// on a main thread's default stack (ava's workers have a larger one). Runs this plugin and the
// reference and prints, per plugin, the tool results and reminders the model saw.
import * as reference from '@deepseek-ai/dsh-repeat-tool-reminder'
import * as guard from '../../../index.js'
import { boot, callTool, say, reminders, toolResults } from '../../support/scripted.mjs'

const depth = 5000
// Built as text: on this stack JSON.stringify itself gives up on such a value.
const json = `${'{"b":true,"a":'.repeat(depth - 1)}{"q":"x"}${'}'.repeat(depth - 1)}`
const seen = {}
for (const plugin of [guard, reference]) {
  const harness = await boot({ plugin, config: {} })
  const agent = await harness.agent(`agent-${plugin.name}`, [...Array.from({ length: 3 }, () => callTool('grep', json)), say('done')])
  await agent.run()
  const events = agent.events()
  seen[plugin.name] = {
    results: toolResults(events).map((r) => ({ text: r.content[0].text, isError: r.isError })),
    reminders: reminders(events, plugin.name).map((r) => r.text),
    executed: harness.executed,
  }
}
console.log(JSON.stringify(seen))
