// Records session logs with the real deepseek-harness 0.1.0-rc.8 loop, the guard plugin and the
// JSONL persistence backend, and collects the reminders the live plugin delivered, for the replay
// suites. Needs Node >= 22.19.
import { truncate, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import Jsonl from '@deepseek-ai/dsh-session-persistence-jsonl'
import { defineContentToolFixture } from '@deepseek-ai/dsh-tools'
import * as guard from '../../index.js'
import { boot, callTool, say, SessionId, ScriptedModel, submit } from './scripted.mjs'

const times = (n, make) => Array.from({ length: n }, (_, i) => make(i))

/** Submits a prompt, waits for the turn to end, and flushes the session: one durable batch per turn. */
async function prompt(ctx, agent, text, kind = 'user') {
  await submit(ctx, agent, text, kind)
  await ctx.sessions.flush(agent.session)
}

let providers = 0
function model(ctx, script) {
  const provider = `recorded-${++providers}`
  ctx.llm.registerAdapter([provider], new ScriptedModel(script))
  return { provider, model: 'scripted' }
}

/**
 * The scripts: loops broken by user prompts, read/grep cycles, an excluded tool inside a run,
 * polling whose result changes, malformed and empty arguments, a subagent started from a tool,
 * and a session resumed in a second lifecycle. Each call returns fresh copies.
 */
const scripts = {
  looper: () => [
    ...times(4, () => callTool('probe', { q: 'same' })),
    callTool('todo_write', { todos: [] }),
    ...times(3, () => callTool('probe', { q: 'same' })),
    say('first turn done'),
    // The user's next prompt resets the run.
    ...times(2, () => callTool('probe', { q: 'same' })),
    ...times(6, () => callTool('grep', { pattern: 'x', path: '.' })),
    callTool('probe', '{"q": not json'),
    callTool('probe', '{"q": not json'),
    callTool('probe', '{"q": not json'),
    say('second turn done'),
  ],
  cycler: () => [
    ...times(9, (i) => (i % 3 === 0 ? callTool('read', { path: 'a' }) : i % 3 === 1 ? callTool('grep', { q: 1 }) : callTool('probe', {}))),
    callTool('todo_write', {}),
    ...times(6, (i) => (i % 2 ? callTool('grep', { q: 2 }) : callTool('read', { path: 'b' }))),
    ...times(5, () => callTool('poll', { job: 1 })),
    say('cycled'),
  ],
  parent: () => [
    ...times(3, () => callTool('read', { path: 'p' })),
    callTool('delegate', { task: 'look' }),
    ...times(3, () => callTool('read', { path: 'p' })),
    say('parent done'),
  ],
  child: () => [...times(5, () => callTool('grep', { q: 'child' })), say('child done')],
  resumed: () => [...times(2, () => callTool('probe', { q: 'r' })), say('before the restart')],
  resumedAgain: () => [...times(4, () => callTool('probe', { q: 'r' })), say('after the restart')],
}

/**
 * Runs every script under `config` with persistence into `root` (`compression` as the backend
 * takes it), then tears the last record of the `looper` session in the middle, as a crash
 * during a write leaves it. Returns the live reminders per session id, as
 * `{ seq, tool, tier, count, text }` where `seq` is the triggering call's tool/result, in the order
 * delivered, and the live event logs per session id.
 */
export async function record(root, config, { compression = 'zstd' } = {}) {
  const delivered = []
  let polls = 0
  let childEvents
  let persistence
  const harness = await boot({
    plugin: guard,
    config,
    before: async (ctx) => {
      persistence = await ctx.plugin(Jsonl, { root, compression, writeBatchMaxDelayMs: 1 })
      ctx.on('repeat-tool-guard/reminder', (payload) => {
        delivered.push({ ...payload, at: ctx.sessions.get(SessionId(payload.agent)).events.length })
      })
      ctx.tools.register(defineContentToolFixture({
        name: 'poll',
        description: 'poll',
        parameters: {},
        async execute() {
          return [{ type: 'text', text: `progress ${Math.min(++polls, 3)}` }]
        },
      }))
      ctx.tools.register(defineContentToolFixture({
        name: 'delegate',
        description: 'runs a subagent',
        parameters: {},
        async execute(_args, exec) {
          const child = await ctx.agentLoop.createAgent(ctx, {
            sessionId: SessionId('child-1'),
            meta: { parentSession: exec.agent.id, origin: 'subagent', delegationDepth: 1 },
            agentOptions: model(ctx, scripts.child()),
          })
          await prompt(ctx, child.agent, 'look', 'plugin')
          childEvents = child.agent.session.events
          await child.dispose()
          return [{ type: 'text', text: 'subagent done' }]
        },
      }))
    },
  })
  const { ctx } = harness
  const sessions = {}
  const open = async (id, script) => {
    const handle = await ctx.agentLoop.createAgent(ctx, { sessionId: SessionId(id), agentOptions: model(ctx, script) })
    sessions[id] = handle
    return handle
  }
  const looper = await open('looper', scripts.looper())
  const cycler = await open('cycler', scripts.cycler())
  const parent = await open('parent', scripts.parent())
  const resumed = await open('resumed', scripts.resumed())
  // Two agents at once, so their logs are written interleaved.
  await Promise.all([prompt(ctx, looper.agent, 'go'), prompt(ctx, cycler.agent, 'go')])
  await prompt(ctx, looper.agent, 'try again')
  await prompt(ctx, parent.agent, 'go')
  await prompt(ctx, resumed.agent, 'go')
  const events = {}
  for (const [id, handle] of Object.entries(sessions)) events[id] = handle.agent.session.events
  events['child-1'] = childEvents
  await resumed.dispose()
  // The second lifecycle: the disposed agent's chain is gone; a plugin follow-up does not reset.
  const again = await ctx.agentLoop.resume(ctx, { resumeSessionId: SessionId('resumed'), agentOptions: model(ctx, scripts.resumedAgain()) })
  await prompt(ctx, again.agent, 'continue', 'plugin')
  events.resumed = again.agent.session.events
  await again.dispose()
  for (const id of ['looper', 'cycler', 'parent']) await sessions[id].dispose()
  // Unloading the backend drains every write still pending.
  await persistence.dispose()

  const live = {}
  for (const reminder of delivered) {
    const log = events[reminder.agent]
    const result = log.find((event) => event.seq >= reminder.at && event.type === 'tool/result')
    const texts = live[reminder.agent] ??= []
    texts.push({ seq: result.seq, tool: reminder.tool, tier: reminder.tier, count: reminder.count })
  }
  // The texts, from the transcripts: the guard's user/message contexts, in order.
  for (const [id, list] of Object.entries(live)) {
    const texts = events[id].filter((e) => e.type === 'user/message' && e.data.source?.plugin === 'repeat-tool-guard').map((e) => e.data.content[0].text)
    list.forEach((reminder, i) => { reminder.text = texts[i] })
  }
  await tear(root, compression, events.looper)
  return { live, events }
}

/**
 * Tears the looper log as a crash during a write does: a raw log is cut inside its last tool
 * result's record (that record and all after it are lost), a zstd log inside its last frame (the
 * last turn's batch).
 */
async function tear(root, compression, events) {
  const path = join(root, '_no-cwd', 'looper', compression === 'zstd' ? 'session.jsonl.zstd' : 'session.jsonl')
  const bytes = await readFile(path)
  if (compression === 'zstd') {
    await truncate(path, bytes.length - 7)
    return
  }
  const lastResult = events.findLast((event) => event.type === 'tool/result')
  const marker = Buffer.from(`"seq":${lastResult.seq},`)
  await truncate(path, bytes.lastIndexOf(marker) + marker.length)
}

/** How many events of session `id` the log under `root` still holds on disk (the harness's committed prefix). */
export async function storedLength(root, id, compression) {
  const { Context } = await import('@deepseek-ai/cordis')
  const { default: SessionStore } = await import('@deepseek-ai/dsh-session')
  const ctx = new Context()
  await ctx.plugin(SessionStore)
  const backend = new Jsonl(ctx, { root, compression })
  return (await backend.readFrom(SessionId(id), 0)).events.length
}
