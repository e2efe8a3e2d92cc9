// Throughput and memory of `dsh-repeat-tool-guard replay` on about 1 GB of session logs, or on one
// large session (--single).
// Run: node_modules/node22/bin/node benchmark/replay.mjs [--gb 1] [--compression none|zstd] [--single] [--dir DIR]
// (needs Node >= 22.19; --gb is the size on disk: zstd logs hold about ten times as much JSONL).
// The logs are written by the harness's own JSONL backend: one template
// session recorded with the real loop (streamed text, tool calls, results of a few KB, loops and
// prompts), stored again under many session ids in batches as a live run stores them. DIR is
// kept and reused when it already holds logs of the asked size. The replay runs as the command
// does, in a child process that reports its wall time and peak RSS; it runs once over a quarter
// of the logs and once over all of them, so a peak RSS that does not grow with the total shows
// memory does not follow the total. With --single, the logs are one session holding the template's
// events again and again (renumbered) up to the size asked, replayed once: memory that does not
// follow one log's size either.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: { gb: { type: 'string', default: '1' }, compression: { type: 'string', default: 'none' }, single: { type: 'boolean' }, dir: { type: 'string' } },
})
const target = Number(values.gb) * 1e9
const compression = values.compression
const single = values.single === true
const dir = values.dir ?? join(tmpdir(), `replay-bench-${compression}-${values.gb}gb${single ? '-single' : ''}`)
const PROJECTS = 4
const BATCH = 256

/** Records one realistic session with the real loop and the guard; returns its events. */
async function template() {
  const { defineContentToolFixture } = await import('@deepseek-ai/dsh-tools')
  const guard = await import('../index.js')
  const { boot, callTool, say } = await import('../__test__/support/scripted.mjs')
  const text = (i) => Array.from({ length: 40 }, (_, k) => `word${(i * 40 + k) % 997} `)
  /** A model turn that streams `parts` as text deltas, then calls `name`. */
  const thinkThenCall = (i, name, args) => {
    const call = callTool(name, args)
    const deltas = text(i).map((part) => ({ type: 'text-delta', index: 0, text: part }))
    return [{ type: 'block-start', index: 0, blockType: 'text' }, ...deltas, { type: 'block-end', index: 0, block: { type: 'text', text: text(i).join('') } },
      ...call.map((chunk) => ('index' in chunk ? { ...chunk, index: 1 } : chunk))]
  }
  const script = []
  for (let i = 0; i < 200; i++) {
    const looping = i % 10 >= 6
    script.push(thinkThenCall(i, looping ? 'grep' : ['read', 'probe', 'grep'][i % 3], looping ? { pattern: 'stuck' } : { path: `src/file${i}.js` }))
  }
  script.push(say('done'))
  const harness = await boot({
    plugin: guard,
    config: {},
    tools: ['probe'],
    before: (ctx) => {
      for (const name of ['read', 'grep']) {
        ctx.tools.register(defineContentToolFixture({
          name,
          description: name,
          parameters: {},
          async execute(args) {
            return [{ type: 'text', text: `${name} ${JSON.stringify(args)}\n${'line of file content\n'.repeat(150)}` }]
          },
        }))
      }
    },
  })
  const agent = await harness.agent('template', script)
  await agent.run('go')
  return agent.agent.session.events.map((event) => JSON.parse(JSON.stringify(event)))
}

/** The JSONL text of the zstd log of session `id` under `dir`, through the backend's readRaw. */
async function rawText(id) {
  const { Context } = await import('@deepseek-ai/cordis')
  const { default: SessionStore, SessionId } = await import('@deepseek-ai/dsh-session')
  const { default: Jsonl } = await import('@deepseek-ai/dsh-session-persistence-jsonl')
  rawText.backend ??= (async () => {
    const ctx = new Context()
    await ctx.plugin(SessionStore)
    return new Jsonl(ctx, { root: dir, compression: 'zstd' })
  })()
  return (await (await rawText.backend).readRaw(SessionId(id))).content
}

/** The logs' size on disk, and `logical`: their JSONL text once decompressed (the same for raw logs). */
async function totalBytes(root, { logical = false } = {}) {
  let sum = 0
  let text = 0
  let logs = 0
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.startsWith('session.jsonl')) {
      const path = join(entry.parentPath, entry.name)
      const size = (await stat(path)).size
      sum += size
      if (logical) text += entry.name.endsWith('.zstd') ? Buffer.byteLength(await rawText(basename(entry.parentPath))) : size
      logs++
    }
  }
  return { bytes: sum, logical: text, logs }
}

/** Writes copies of the template through the JSONL backend until the logs reach `target` bytes. */
async function generate() {
  const events = await template()
  const { Context } = await import('@deepseek-ai/cordis')
  const { default: SessionStore, SESSION_FORMAT_VERSION, SessionId } = await import('@deepseek-ai/dsh-session')
  const { default: Jsonl } = await import('@deepseek-ai/dsh-session-persistence-jsonl')
  const ctx = new Context()
  await ctx.plugin(SessionStore)
  await mkdir(dir, { recursive: true })
  const backend = new Jsonl(ctx, { root: dir, compression })
  const started = performance.now()
  let written = 0
  let perSession = 0
  if (single) {
    const id = SessionId('session-single')
    await backend.create({ version: SESSION_FORMAT_VERSION, id, createdAt: Date.now(), cwd: '/work/project-0', delegationDepth: 0 })
    for (let copy = 0; written < target; copy++) {
      const copies = events.map((event, i) => ({ ...event, seq: copy * events.length + i }))
      for (let i = 0; i < copies.length; i += BATCH) await backend.append(id, copies.slice(i, i + BATCH))
      written = (await totalBytes(dir)).bytes
      if (copy % 50 === 0) process.stderr.write(`generate: ${copy + 1} copies, ${(written / 1e6).toFixed(0)} MB\n`)
    }
    console.log(`generated in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    return
  }
  for (let n = 0; written < target; n++) {
    const id = SessionId(`session-${String(n).padStart(6, '0')}`)
    await backend.create({ version: SESSION_FORMAT_VERSION, id, createdAt: Date.now(), cwd: `/work/project-${n % PROJECTS}`, delegationDepth: 0 })
    for (let i = 0; i < events.length; i += BATCH) await backend.append(id, events.slice(i, i + BATCH))
    if (n === 0) perSession = (await totalBytes(dir)).bytes
    written += perSession
    if (n % 100 === 0) process.stderr.write(`generate: ${n + 1} sessions, ${(written / 1e6).toFixed(0)} MB\n`)
  }
  console.log(`generated in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

/** Runs the command over `input` in a child process; returns its wall time, peak RSS and output. */
function replay(input) {
  const main = fileURLToPath(new URL('../cli/main.js', import.meta.url))
  const script = `
    const { main } = await import(${JSON.stringify(main)})
    let out = ''
    const started = performance.now()
    const code = await main([${JSON.stringify('replay')}, ${JSON.stringify(input)}, '--json'], { stdout: { write: (t) => { out += t } }, stderr: process.stderr })
    const seconds = (performance.now() - started) / 1000
    const { user, system } = process.cpuUsage()
    const report = JSON.parse(out)
    // The peak RSS of this process's own memory: Linux's VmHWM. getrusage's maxrss (resourceUsage) also
    // counts what the process held before its exec, the forking parent's pages, which can be larger.
    const { readFileSync, existsSync } = await import('node:fs')
    const hwm = existsSync('/proc/self/status') && /^VmHWM:\\s+(\\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))
    const maxRssKb = hwm ? Number(hwm[1]) : process.resourceUsage().maxRSS
    console.log(JSON.stringify({ code, seconds, cpuSeconds: (user + system) / 1e6, maxRssKb, sessions: report.sessions.length, calls: report.totals[0].calls, reminders: report.totals[0].reminders }))`
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 1 << 30 }))
}

const existing = existsSync(dir) ? await totalBytes(dir) : { bytes: 0 }
if (existing.bytes < target * 0.95) await generate()
const all = await totalBytes(dir, { logical: true })
const quarterDir = (await readdir(dir)).filter((name) => name.startsWith('-')).sort()[0]
const runs = single ? [['one session', dir, all]] : [['a quarter', join(dir, quarterDir), await totalBytes(join(dir, quarterDir), { logical: true })], ['all', dir, all]]
const rows = []
for (const [label, input, size] of runs) {
  const result = replay(input)
  if (result.code !== 0) throw new Error(`replay exited ${result.code}`)
  rows.push({ label, ...size, ...result })
}
console.log(`replay on Node ${process.versions.node}, ${compression === 'zstd' ? 'zstd' : 'raw'} logs in ${dir}`)
// CPU time too: on a shared machine the wall time also counts other processes' turns.
// Throughput in MB of JSONL text (for zstd logs, as decompressed) per second.
console.log('| logs | on disk | JSONL | sessions | calls | reminders | wall time | throughput | CPU time | per CPU second | peak RSS |')
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
for (const row of rows) {
  const mb = row.logical / 1e6
  console.log(`| ${row.label} | ${(row.bytes / 1e6).toFixed(0)} MB | ${mb.toFixed(0)} MB | ${row.sessions} | ${row.calls} | ${row.reminders} | ${row.seconds.toFixed(1)} s | ${(mb / row.seconds).toFixed(1)} MB/s | ${row.cpuSeconds.toFixed(1)} s | ${(mb / row.cpuSeconds).toFixed(1)} MB/s | ${(row.maxRssKb / 1024).toFixed(0)} MB |`)
}
await writeFile(join(dir, 'last-run.json'), JSON.stringify(rows, null, 2))
