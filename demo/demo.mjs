// Runs the real deepseek-harness 0.1.0-rc.8 agent loop with this package's guard and a scripted
// model that calls the same tool five times, and prints what happens, step by step: each tool call
// and its result, and each reminder in full where the model receives it.
//   npm run demo                 the transcript, at a glance
//   npm run demo -- --events     the agent session's raw event log instead
// The harness needs Node >= 22.19; `npm run demo` runs it on the Node 22 in node_modules.
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(`The demo runs the real harness, which needs Node >= 22.19 (Promise.withResolvers); this is ${process.version}.`)
  process.exit(1)
}
const guard = await import('../index.js')
const { boot, callTool, say } = await import('../__test__/support/scripted.mjs')

const thresholds = [3, 5, 8]
const calls = 5
const args = { pattern: 'TODO', path: 'src' }
const harness = await boot({ plugin: guard, config: { thresholds } })
const delivered = []
harness.ctx.on(guard.REMINDER_EVENT, (event) => {
  delivered.push(event)
})
const agent = await harness.agent('demo-agent', [...Array.from({ length: calls }, () => callTool('grep', args)), say('done')])
await agent.run('find the TODOs')
const events = agent.events()

if (process.argv.includes('--events')) {
  for (const event of events) console.log(JSON.stringify({ seq: event.seq, type: event.type, data: event.data }))
  process.exit(0)
}

const text = (content) => content.map((block) => block.text ?? text(block.content ?? [])).join('')
const indent = (block) => block.replace(/^/gm, '        │ ')

console.log('repeat-tool-guard in the real deepseek-harness 0.1.0-rc.8 agent loop.')
console.log(`A scripted model calls grep ${JSON.stringify(args)} ${calls} times, then answers.`)
console.log(`Thresholds ${JSON.stringify(thresholds)}: gentle reminder at ${thresholds[0]}, detailed at ${thresholds.slice(1).join(' and ')}.`)
console.log('')
let step = 0
const shownAt = []
for (const { type, data } of events) {
  if (type === 'step/start') step = data.step
  else if (type === 'tool/call') process.stdout.write(`step ${step}  ${data.name} ${data.arguments}`)
  else if (type === 'tool/result') console.log(`  → ${text(data.message.content)}`)
  else if (type === 'user/message' && data.source?.kind === 'plugin') {
    shownAt.push(step)
    console.log(`        reminder (${data.source.summary}), given to the model at the start of step ${step}:`)
    console.log(indent(text(data.content)))
  } else if (type === 'assistant/message' && data.message.content.every((block) => block.type === 'text')) {
    console.log(`step ${step}  the model answers: ${text(data.message.content)}`)
  }
}
console.log('')
const tiers = delivered.map(({ tool, count, tier }, i) => `${tier} after ${tool} call ${count} (read at step ${shownAt[i]})`)
console.log(`Summary: ${calls} identical calls, ${delivered.length} reminders: ${tiers.join(', ')}.`)
console.log('Every call ran and kept its own result: the guard only adds context.')
console.log('The raw event log: npm run demo -- --events')
