// Boots the real agent loop with the plugin inside a worker thread (robustness.spec.mjs runs
// several at once) and reports what one agent saw: reminders and tool results.
import { parentPort, workerData } from 'node:worker_threads'
import * as guard from '../../../index.js'
import { boot, callTool, say, reminders, toolResults } from '../../support/scripted.mjs'

const harness = await boot({ plugin: guard, config: { thresholds: [3] } })
const agent = await harness.agent('agent-worker', [...Array.from({ length: workerData.calls }, () => callTool('grep', { q: 'same' })), say('done')])
await agent.run()
const events = agent.events()
parentPort.postMessage({
  summaries: reminders(events, guard.name).map((r) => r.source.summary),
  results: toolResults(events).map((r) => r.content[0].text),
})
