// The package as a user gets it (packed.mjs: `npm pack` of the root package as released and of
// this platform's package with the built binary), installed into a fresh project beside the
// published deepseek-harness 0.1.0-rc.8. There: a real agent turn that loads the plugin by package
// name from a cordis.yml, ESM import and CommonJS require on this Node (20 in CI's first job and
// here) and on the harness Node, a TypeScript consumer checked by `tsc --noEmit`, the replay command
// run from node_modules/.bin on a session the installed harness recorded, and the error a user sees
// when the platform package is missing. And two more projects with nothing but the package: the root
// and platform tarballs, whose install runs no install script (so npm asks to approve none) and
// brings none of the replay command's optional peers (`npx dsh-repeat-tool-guard replay --help`
// works; a replay names the packages to install); and the root tarball with --omit=optional, which
// installs, then fails to import with the missing-binary error.
// Runs in `npm test` (scripts/test.sh sets TEST_HARNESS_NODE: a Node >= 22.19, or "skip").
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { join, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import test from 'ava'
import { GENTLE } from '../oracle.mjs'
import { agentTurnScript, harnessDependencies, harnessNode, host, installProject, makeWork, npm, npx, once, packPackages, pkg, removeWork, root, run } from './packed.mjs'

const work = makeWork('rtg-install-')
const app = join(work, 'app')
test.after.always(() => removeWork(work))

/** Runs `source` as a file in the project `dir` with `node`; returns stdout, and throws with stderr on failure. */
function inProject(dir, node, file, source) {
  writeFileSync(join(dir, file), source)
  try {
    return run(node, [join(dir, file)], { cwd: dir })
  } catch (error) {
    throw new Error(`${file} failed:\n${error.stdout}\n${error.stderr}`)
  }
}
const inApp = (node, file, source) => inProject(app, node, file, source)
/** What importing the package gives in `dir`: `{ loaded: true }` or the error's code and message. */
const importResult = (dir) => JSON.parse(inProject(dir, process.execPath, 'import.mjs', `
  try { await import('${pkg.name}'); console.log('{"loaded":true}') }
  catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message })) }
`))
/** The first line of the missing-binary error on this machine. */
const noBinary = `${pkg.name} could not find its native binary for ${host.machine}: it expected the package ${pkg.name}-${host.platform}, which is not installed.`
/** npm's notice of packages with install scripts (npm 11: `npm warn install-scripts …`). */
const installScriptNotice = /install[- ]scripts?/i
/** The replay command's optional peers (package.json's peerDependenciesMeta). */
const replayPeers = ['@deepseek-ai/dsh-session', '@deepseek-ai/dsh-session-persistence', '@deepseek-ai/dsh-session-persistence-jsonl', 'js-yaml']
/** What a replay of harness logs needs of them (a YAML config needs js-yaml alone). */
const sessionPeers = replayPeers.slice(0, 3)

// Prepared once, by the first test that needs it; a failure fails every test that needs it.
// A fresh project: both tarballs, the published harness (the versions the suites use), and the
// published cordis.yml loader.
const setup = once(async () => {
  const packed = packPackages(work)
  const { seconds: installSeconds } = await installProject(app, 'harness-project', { ...harnessDependencies, ...packed.dependencies })
  copyFileSync(join(root, '__test__', 'support', 'scripted.mjs'), join(app, 'scripted.mjs'))
  copyFileSync(join(root, '__test__', 'harness', 'fixtures', 'cordis.yml'), join(app, 'cordis.yml'))
  return { ...packed, installSeconds }
})

test.serial('the packed packages: root without a binary, optionalDependencies on every platform package; the platform package with its binary', async (t) => {
  const { rootPackage, platformPackage, manifest, installSeconds } = await setup()
  t.log(`npm install into the fresh project: ${installSeconds.toFixed(1)} s`)
  // package.json's files: the entry points and every file under lib/ and cli/ (the hand-written glue), at any depth.
  const files = (entry) => readdirSync(join(root, entry), { recursive: true }).filter((file) => statSync(join(root, entry, file)).isFile()).map((file) => entry + file.split(sep).join('/'))
  const shipped = pkg.files.flatMap((entry) => entry.endsWith('/') ? files(entry) : [entry])
  t.deepEqual(rootPackage.files, ['LICENSE', 'README.md', 'package.json', ...shipped].sort())
  t.is(Object.keys(manifest.optionalDependencies).length, pkg.napi.targets.length)
  t.true(host.published)
  t.deepEqual(platformPackage.files, ['README.md', 'package.json', `${pkg.napi.binaryName}.${host.platform}.node`].sort())
  const installed = join(app, 'node_modules', pkg.name)
  t.false(readdirSync(installed).some((file) => file.endsWith('.node')), 'the root package carries no binary')
  t.true(existsSync(join(app, 'node_modules', `${pkg.name}-${host.platform}`, `${pkg.napi.binaryName}.${host.platform}.node`)))
  t.false(existsSync(join(installed, 'node_modules', `${pkg.name}-${host.platform}`)), 'one copy of the platform package, hoisted')
})

const direct = (label) => `
  import { createRequire } from 'node:module'
  import * as esm from '${pkg.name}'
  const require = createRequire(import.meta.url)
  const cjs = require('${pkg.name}')
  const { RepeatToolGuard, canonicalize } = esm
  const guard = new RepeatToolGuard({ thresholds: [3, 5] })
  const seen = [1, 2, 3].map(() => guard.observe('agent-1', 'grep', { q: 'x', b: [1] }))
  console.log(JSON.stringify({
    label: ${JSON.stringify(label)},
    node: process.version,
    same: cjs === esm,
    exports: Object.keys(esm).sort(),
    loadedFrom: import.meta.resolve('${pkg.name}'),
    binary: require.resolve('${pkg.name}-${host.platform}'),
    // The generated loader's own account of what it loaded (not part of the package's exports).
    target: createRequire(import.meta.resolve('${pkg.name}'))('./binding.cjs').__napiBindingTarget,
    seen: seen.map((r) => r && { tier: r.tier, count: r.count }),
    canonical: canonicalize({ b: 1, a: [2] }),
  }))
`
const cjsOnly = `
  const guard = require('${pkg.name}')
  const g = new guard.RepeatToolGuard({})
  console.log(JSON.stringify({ name: guard.name, apply: typeof guard.apply, config: typeof guard.Config, seen: [1, 2, 3].map(() => g.observe('a', 't', '{}')?.tier ?? null) }))
`

async function checkDirect(t, node, label) {
  await setup()
  const run = (source, file) => {
    writeFileSync(join(app, file), source)
    return execFileSync(node, [join(app, file)], { cwd: app, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  }
  const esmOut = JSON.parse(run(direct(label), `direct-${label}.mjs`))
  t.log(`${label}: Node ${esmOut.node}`)
  t.true(esmOut.same, 'require() and import give the same module (Node loads the ES module for require)')
  t.deepEqual(esmOut.exports, ['Config', 'REMINDER_EVENT', 'RepeatToolGuard', 'apply', 'canonicalize', 'guardOf', 'name'])
  t.is(esmOut.loadedFrom, pathToFileURL(join(app, 'node_modules', pkg.name, 'index.js')).href)
  t.is(esmOut.binary, join(app, 'node_modules', `${pkg.name}-${host.platform}`, `${pkg.napi.binaryName}.${host.platform}.node`))
  t.is(esmOut.target, 'native')
  t.deepEqual(esmOut.seen, [null, null, { tier: 'gentle', count: 3 }])
  t.is(esmOut.canonical, '{"a":[2],"b":1}')
  // A CommonJS file: no warnings on stderr.
  writeFileSync(join(app, `direct-${label}.cjs`), cjsOnly)
  const child = execFileSync(node, [join(app, `direct-${label}.cjs`)], { cwd: app, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  t.deepEqual(JSON.parse(child), { name: 'repeat-tool-guard', apply: 'function', config: 'function', seen: [null, null, 'gentle'] })
  const stderr = (() => {
    try {
      execFileSync(node, [join(app, `direct-${label}.cjs`)], { cwd: app, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' })
      return ''
    } catch (error) {
      return error.stderr
    }
  })()
  t.is(stderr, '')
}

test.serial(`ESM import and CommonJS require work on this Node (${process.version}), the class directly`, async (t) => {
  await checkDirect(t, process.execPath, 'host')
})

if (harnessNode) {
  test.serial('ESM import and CommonJS require work on the harness Node', async (t) => {
    await checkDirect(t, harnessNode, 'harness')
  })

  test.serial('a real agent turn: cordis.yml names the package, the loader resolves it from node_modules, reminders arrive', async (t) => {
    await setup()
    const out = JSON.parse(inApp(harnessNode, 'turn.mjs', agentTurnScript(`resolved: import.meta.resolve('${pkg.name}')`)))
    t.log(`agent turn on Node ${out.node}`)
    t.is(out.resolved, pathToFileURL(join(app, 'node_modules', pkg.name, 'index.js')).href)
    t.deepEqual(out.reminders.map((r) => r.summary), ['grep × 3', 'grep × 5'], 'todo_write is excluded, as the file configures')
    t.is(out.reminders[0].text, GENTLE)
    t.true(out.reminders[1].text.includes('{"q":1}'))
    t.deepEqual(out.executed, ['grep', 'todo_write', 'grep', 'grep', 'grep', 'grep'])
  })

  test.serial('the installed dsh-repeat-tool-guard command replays a session the installed harness recorded', async (t) => {
    await setup()
    const root = join(app, 'sessions')
    inApp(harnessNode, 'record.mjs', `
      import Jsonl from '@deepseek-ai/dsh-session-persistence-jsonl'
      import * as guard from '${pkg.name}'
      import { boot, callTool, say } from './scripted.mjs'
      let persistence
      const harness = await boot({ plugin: guard, config: {}, before: async (ctx) => { persistence = await ctx.plugin(Jsonl, { root: ${JSON.stringify(root)} }) } })
      const a = await harness.agent('recorded', [1, 2, 3, 4, 5].map(() => callTool('grep', { q: 1 })).concat([say('done')]))
      await a.run()
      await a.dispose()
      await persistence.dispose()
    `)
    const bin = join(app, 'node_modules', '.bin', 'dsh-repeat-tool-guard')
    const report = JSON.parse(run(harnessNode, [bin, 'replay', root, '--json'], { cwd: app }))
    t.deepEqual(report.errors, [])
    t.deepEqual(report.sessions.map((s) => [s.id, s.reminders[0].map((r) => `${r.tool} × ${r.count} ${r.tier}`)]), [['recorded', ['grep × 3 gentle', 'grep × 5 detailed']]])
    t.true(run(harnessNode, [bin, '--help'], { cwd: app }).startsWith('Usage: dsh-repeat-tool-guard replay'))
  })
} else {
  console.log('# install: no Node >= 22.19 for the harness (TEST_HARNESS_NODE), so no agent turn and no Node 22 import check here')
}

test.serial('a TypeScript consumer typechecks against index.d.ts (tsc --noEmit, strict)', async (t) => {
  await setup()
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, skipLibCheck: false, types: [] },
    files: ['consumer.ts'],
  }, null, 2))
  writeFileSync(join(app, 'consumer.ts'), `
import type { Context } from '@deepseek-ai/cordis'
import * as plugin from '${pkg.name}'
import { RepeatToolGuard, canonicalize, guardOf, name, apply, Config, REMINDER_EVENT, type ReminderEvent } from '${pkg.name}'

const pluginName: 'repeat-tool-guard' = name
const config: Config = { thresholds: [3, 5, 8], include: [], exclude: ['todo_write'], argumentsPreviewChars: 500 }
export function install(ctx: Context): RepeatToolGuard | undefined {
  apply(ctx, config)
  void ctx.plugin(plugin, config)
  return guardOf(ctx)
}
const guard = new RepeatToolGuard({ thresholds: [3, 5] })
const reminder = guard.observe('agent-1', 'grep', { q: 'x' })
if (reminder) {
  const tier: 'gentle' | 'detailed' | 'cycle' | 'similar' | 'noProgress' | 'failure' | 'stop' = reminder.tier
  const text: string = reminder.text
  const count: number = reminder.count
  const block: string[] | undefined = reminder.tools
  console.log(tier, text, count, block)
}
// The opt-in keys, a result for sameResultOnly, stats() and the reminder event.
const optIn: Config = { cycles: { maxPeriod: 3, repeats: 3 }, sameResultOnly: true, overrides: [{ tools: ['poll_*'], thresholds: [6, 10] }], repeatEvery: 4, ignoreArguments: [{ tools: ['*'], keys: ['task_progress', 'meta.id'] }], similar: { minCalls: 4 }, resume: true }
const featured = new RepeatToolGuard(optIn)
featured.observe('agent-1', 'poll_status', {}, { content: [{ type: 'text', text: 'done' }], isError: false })
featured.restore('agent-1', 'poll_status', {}, null)
const stats: { observed: number, reminders: number, gentle: number, detailed: number, cycle: number, similar: number } = featured.stats()
console.log(stats, REMINDER_EVENT)
export function listen(ctx: Context): void {
  ctx.on('repeat-tool-guard/reminder', (event) => {
    const payload: ReminderEvent = event
    console.log(payload.agent, payload.tool, payload.count, payload.tier)
  })
}
// @ts-expect-error maxPeriod is a number
new RepeatToolGuard({ cycles: { maxPeriod: '3', repeats: 2 } })
guard.reset('agent-1')
guard.dispose('agent-1')
const canonical: string = canonicalize({ b: 1, a: [2] })
console.log(pluginName, canonical, Config)
// @ts-expect-error similarity is a number
new RepeatToolGuard({ similar: { similarity: '0.9' } })
// @ts-expect-error thresholds are numbers
new RepeatToolGuard({ thresholds: ['3'] })
// @ts-expect-error no such export
import('${pkg.name}').then((m) => m.notAnExport)
`)
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
  try {
    const out = run(process.execPath, [tsc, '-p', join(app, 'tsconfig.json')], { cwd: app })
    t.log(`tsc ${run(process.execPath, [tsc, '--version']).trim()}: no errors`)
    t.is(out.trim(), '')
  } catch (error) {
    t.fail(`tsc --noEmit failed:\n${error.stdout}${error.stderr}`)
  }
})

test.serial('without the platform package, importing the package throws the one clear error', async (t) => {
  await setup()
  const installed = join(app, 'node_modules', `${pkg.name}-${host.platform}`)
  const aside = join(work, 'aside')
  renameSync(installed, aside)
  try {
    const out = importResult(app)
    t.is(out.code, 'ERR_REPEAT_TOOL_GUARD_NO_BINARY')
    t.true(out.message.startsWith(noBinary), out.message)
    // The packed root package is the release's (its optionalDependencies name every platform package):
    // the ways on are the release's, each one a package published with it.
    t.true(out.message.includes(`\nIt is an optionalDependency of ${pkg.name}: reinstall without --omit=optional, on the machine (os, cpu, libc) that runs it.\n`), out.message)
    t.true(out.message.includes(`\nOr install the WebAssembly build, slower but for any machine: npm install --force ${pkg.name}-wasm32-wasi@${pkg.version} (its package says cpu: wasm32).\n`), out.message)
    t.true(out.message.includes('\nTo build from source: install Rust (https://rustup.rs), run `npm install` in a checkout of the package and install that checkout.\n'), out.message)
  } finally {
    renameSync(aside, installed)
  }
})

// The package alone, as `npm install` of the two tarballs gives it (install scripts allowed, as a
// user's install runs them): npm adds the required peers, cordis and dsh-llm, and nothing else.
const plain = once(async () => {
  const { dependencies } = await setup()
  const dir = join(work, 'plain')
  const { stderr } = await installProject(dir, 'plain-project', dependencies, [])
  return { dir, stderr }
})

test.serial('the root and platform tarballs alone: no install script, so no install-scripts warning, and none of the replay command\'s peers', async (t) => {
  const { dir, stderr } = await plain()
  t.false(installScriptNotice.test(stderr), `npm's stderr:\n${stderr}`)
  const installed = (name) => existsSync(join(dir, 'node_modules', name, 'package.json'))
  t.true(installed('@deepseek-ai/cordis') && installed('@deepseek-ai/dsh-llm'), 'the required peers')
  t.deepEqual(replayPeers.filter(installed), [], 'the optional peers are left out')
  t.false(installed('koffi'), 'nor the JSONL backend\'s FFI module')
  t.true(existsSync(join(dir, 'node_modules', `${pkg.name}-${host.platform}`, `${pkg.napi.binaryName}.${host.platform}.node`)))
})

test.serial('from the package alone, each framework subpath imports without its framework, and the hook answers an event', async (t) => {
  const { dir } = await plain()
  const installed = (name) => existsSync(join(dir, 'node_modules', name, 'package.json'))
  t.false(installed('ai') || installed('@openai/agents'), 'the frameworks are optional peers, left out')
  const loaded = JSON.parse(inProject(dir, process.execPath, 'subpaths.mjs', `
    const ai = await import('${pkg.name}/ai-sdk')
    const agents = await import('${pkg.name}/openai-agents')
    const guard = ai.loopGuard({ thresholds: [2] })
    console.log(JSON.stringify([typeof ai.loopGuard, typeof agents.loopGuard, Object.keys(guard).sort()]))
  `))
  t.deepEqual(loaded, ['function', 'function', ['prepareStep', 'stopWhen']])
  const event = JSON.stringify({ session_id: 'plain', cwd: dir, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: 'x', tool_use_id: 't1' })
  const bin = join(dir, 'node_modules', '.bin', 'dsh-repeat-tool-guard')
  const answered = spawnSync(bin, ['hook', '--state-dir', join(dir, 'hook-state')], { input: event, encoding: 'utf8' })
  t.deepEqual([answered.status, answered.stdout, answered.stderr], [0, '', ''], 'the first call: no reminder, nothing on stderr')
})

if (harnessNode) {
  test.serial('from the package alone, npx dsh-repeat-tool-guard replay --help works and a replay of harness logs names the three session packages it needs, exit code 3', async (t) => {
    const { dir } = await plain()
    const help = npx(['dsh-repeat-tool-guard', 'replay', '--help'], dir, harnessNode)
    t.is(help.status, 0, help.stderr)
    t.true(help.stdout.startsWith('Usage: dsh-repeat-tool-guard replay'), help.stdout)
    t.true(help.stdout.includes('\n  3  a package the command needs is not installed'), help.stdout)
    // A harness log (its header line); the command stops before reading on, at its reader's import.
    const session = join(dir, 'sessions', '--project--', 'session-1')
    mkdirSync(session, { recursive: true })
    writeFileSync(join(session, 'session.jsonl'), `${JSON.stringify({ type: 'session', id: 'session-1' })}\n`)
    const replay = npx(['dsh-repeat-tool-guard', 'replay', 'sessions'], dir, harnessNode)
    t.is(replay.status, 3, replay.stderr)
    t.is(replay.stdout, '')
    t.is(replay.stderr, `replay: this command needs packages that are not installed: ${sessionPeers.join(', ')}.
They are optional peerDependencies of ${pkg.name} (the plugin itself does not use them). Install them in this project:
  npm install @deepseek-ai/dsh-session@"^0.1.0-rc.8" @deepseek-ai/dsh-session-persistence@"^0.1.0-rc.8" @deepseek-ai/dsh-session-persistence-jsonl@"^0.1.0-rc.8"
`)
  })
}

test.serial('installed as docs/HOSTS.md says (npm install -g, js-yaml beside it for YAML), the hook answers an event with a YAML config from the project', async (t) => {
  const { rootPackage, platformPackage } = await setup()
  const prefix = join(work, 'global')
  npm(['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', rootPackage.tarball, platformPackage.tarball, 'js-yaml@4'], work)
  const bin = process.platform === 'win32' ? join(prefix, 'dsh-repeat-tool-guard.cmd') : join(prefix, 'bin', 'dsh-repeat-tool-guard')
  const project = join(work, 'hooked-project')
  mkdirSync(project, { recursive: true })
  writeFileSync(join(project, '.repeat-tool-guard.yml'), 'thresholds: [2]\n')
  const event = (n) => JSON.stringify({ session_id: 'install', cwd: project, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: { stdout: '', stderr: '' }, tool_use_id: `t${n}` })
  const answers = [1, 2].map((n) => spawnSync(bin, ['hook', '--state-dir', join(work, 'hook-state')], { input: event(n), encoding: 'utf8' }))
  t.deepEqual(answers.map((a) => [a.status, a.stderr]), [[0, ''], [0, '']])
  t.is(answers[0].stdout, '')
  t.is(JSON.parse(answers[1].stdout).hookSpecificOutput.additionalContext, GENTLE, 'the YAML config\'s threshold of 2')
})

test.serial('with cordis 4.0.1, loader 1.0.2 and include 1.0.6 (rc.8\'s own), the README\'s cordis snippet survives a bad config and prints it', async (t) => {
  const { dependencies } = await setup()
  const dir = join(work, 'cordis-401')
  const old = { '@deepseek-ai/cordis': '4.0.1', '@deepseek-ai/cordis-plugin-loader': '1.0.2', '@deepseek-ai/cordis-plugin-include': '1.0.6', '@deepseek-ai/dsh-llm': '0.1.0-rc.8' }
  await installProject(dir, 'cordis-401-project', { ...dependencies, ...old })
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const shown = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]).find((code) => code.includes('ctx.logger.exporter('))
  t.truthy(shown)
  writeFileSync(join(dir, 'cordis.yml'), "- id: repeat-tool-guard\n  name: '@deepseek-ai/dsh-repeat-tool-guard'\n  config:\n    thresholds: ['3', 5]\n")
  // The app: a bare cordis root context as `ctx`, the README's code, then a line that says it went on.
  writeFileSync(join(dir, 'app.mjs'), `import { Context } from '@deepseek-ai/cordis'\nconst ctx = new Context()\n${shown}\nconsole.error('the app goes on')\nprocess.exit(0)\n`)
  const app = spawnSync(process.execPath, [join(dir, 'app.mjs')], { cwd: dir, encoding: 'utf8', timeout: 60_000 })
  t.is(app.status, 0, app.stderr)
  t.regex(app.stderr, /^cordis\.yml: failed to apply loader entry repeat-tool-guard .*invalid threshold "3"/m, 'loader 1.0.2 rejects, and the snippet catches it')
  t.regex(app.stderr, /^the app goes on$/m)
})

test.serial('npm install --omit=optional of the root tarball succeeds; the import then fails with the missing-binary error', async (t) => {
  const { dependencies } = await setup()
  const dir = join(work, 'omit-optional')
  const { stderr } = await installProject(dir, 'omit-optional-project', { [pkg.name]: dependencies[pkg.name] }, ['--omit=optional'])
  t.false(installScriptNotice.test(stderr), `npm's stderr:\n${stderr}`)
  t.false(existsSync(join(dir, 'node_modules', `${pkg.name}-${host.platform}`)))
  const out = importResult(dir)
  t.is(out.code, 'ERR_REPEAT_TOOL_GUARD_NO_BINARY')
  t.true(out.message.startsWith(noBinary), out.message)
  t.true(out.message.includes('reinstall without --omit=optional'), out.message)
})
