// Runs the real deepseek-harness 0.1.0-rc.8 agent loop with a scripted model that calls the
// same tool five times, with this package's guard loaded, and prints what the model is shown.
import * as guard from '../index.js'
import { boot, callTool, say } from '../harness/scripted.mjs'

const { agent } = await boot({ plugin: guard, config: { thresholds: [3, 5, 8] } })
const script = [...Array.from({ length: 5 }, () => callTool('grep', { pattern: 'TODO', path: 'src' })), say('done')]
const a = await agent('demo-agent', script)
await a.run('find the TODOs')
for (const event of a.events()) {
  const line = `${String(event.seq).padStart(3)} ${event.type}`
  if (event.type === 'user/message') {
    const { source, content } = event.data
    console.log(`${line}  [${source.kind}${source.plugin ? `:${source.plugin} ${source.summary}` : ''}]`)
    console.log(content.map((block) => block.text).join('\n').replace(/^/gm, '      | '))
  } else {
    console.log(`${line}  ${JSON.stringify(event.data).slice(0, 100)}`)
  }
}
