// Chain state per agent: 1,000 agents whose last call carried ~1 MB of arguments, against 1,000
// agents whose last call carried a few bytes, for the native plugin and the TypeScript reference,
// each in a fresh child process (so one's heap does not colour the other's). Prints RSS growth
// after a full GC. Run: npm run bench (needs --expose-gc, which run.sh passes).
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const AGENTS = Number(process.env.AGENTS ?? 1000)

async function child(which, size) {
  const plugin = which === 'native' ? await import('../index.js') : await import('@deepseek-ai/dsh-repeat-tool-reminder')
  const { listenersOf } = await import('../__test__/support/listeners.mjs')
  const listener = listenersOf(plugin, {})['tools/post-execute']
  const next = () => Promise.resolve({ kind: 'accept' })
  // Module-global, so the agents (the reference keys its chains by agent object) stay alive.
  globalThis.agents = Array.from({ length: AGENTS }, (_, i) => ({ id: `agent-${i}` }))
  const { agents } = globalThis
  const settle = () => {
    for (let i = 0; i < 4; i++) globalThis.gc()
    return process.memoryUsage().rss
  }
  // Warm up both paths on a throwaway agent so code and scratch buffers are in place.
  const warm = { id: 'warm-up' }
  await listener({ name: 'write', agent: warm, arguments: { path: 'x', content: 'y'.repeat(size) } }, {}, next)
  const before = settle()
  for (const [i, agent] of agents.entries()) {
    // A distinct ~`size`-character argument per agent, parsed fresh as the harness would.
    const args = JSON.parse(JSON.stringify({ path: `out-${i}.txt`, content: String(i % 10).repeat(size) }))
    await listener({ name: 'write', agent, arguments: args }, {}, next)
  }
  const after = settle()
  // Check the chains held: two more identical calls of the last agent make a run of three.
  const last = agents.length - 1
  const again = () => JSON.parse(JSON.stringify({ path: `out-${last}.txt`, content: String(last % 10).repeat(size) }))
  await listener({ name: 'write', agent: agents[last], arguments: again() }, {}, next)
  const third = await listener({ name: 'write', agent: agents[last], arguments: again() }, {}, next)
  const held = (third.additionalContexts ?? []).length === 1
  process.stdout.write(JSON.stringify({ grown: after - before, held }))
}

if (process.argv[2] === 'child') {
  await child(process.argv[3], Number(process.argv[4]))
} else {
  const self = fileURLToPath(import.meta.url)
  const run = (which, size) => {
    const out = spawnSync(process.execPath, ['--expose-gc', self, 'child', which, String(size)], { encoding: 'utf8' })
    if (out.status !== 0) throw new Error(`${which} ${size}: ${out.stderr}`)
    const { grown, held } = JSON.parse(out.stdout)
    if (!held) throw new Error(`${which} ${size}: the chains were not held to the end`)
    return grown
  }
  const mb = (bytes) => (bytes / 2 ** 20).toFixed(1)
  console.log(`\nNode ${process.version}, ${AGENTS} agents: RSS growth after their last call (MB)`)
  console.log('| plugin | last call ~1 MB | last call ~10 B | difference |')
  console.log('| --- | ---: | ---: | ---: |')
  for (const which of ['native', 'reference']) {
    const big = run(which, 1 << 20)
    const small = run(which, 10)
    console.log(`| ${which} | ${mb(big)} | ${mb(small)} | ${mb(big - small)} |`)
  }
}
