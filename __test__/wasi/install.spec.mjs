// The WebAssembly build as a user without a native binary gets it: the packed root package (as
// released, its optionalDependencies naming every platform package) in a fresh project beside the
// published deepseek-harness 0.1.0-rc.8, no native platform package, and the packed WASI package
// installed the way the missing-binary error says (`npm install --force <package>`). There: the
// error before the WASI package is in, then a real agent turn that loads the plugin by package
// name from a cordis.yml and gets both reminders, and the class on this Node, through the WASI
// build. Run by `npm run test:wasi` (scripts/test.sh with NAPI_RS_FORCE_WASI=1), after the WASI
// build is in npm/wasm32-wasi/; the projects run without NAPI_RS_FORCE_WASI, as a user's would.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, writeFileSync, copyFileSync } from 'node:fs'
import { join } from 'node:path'
import test from 'ava'
import { GENTLE } from '../oracle.mjs'
import { agentTurnScript, harnessDependencies, harnessNode, installProject, makeWork, npm, once, packPackages, pkg, removeWork, root } from '../install/packed.mjs'

const work = makeWork('rtg-wasi-install-')
const app = join(work, 'app')
test.after.always(() => removeWork(work))
const wasiName = `${pkg.name}-wasm32-wasi`
const env = { ...process.env }
delete env.NAPI_RS_FORCE_WASI
delete env.NAPI_RS_NATIVE_LIBRARY_PATH

function inApp(node, file, source) {
  writeFileSync(join(app, file), source)
  try {
    return execFileSync(node, [join(app, file)], { cwd: app, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  } catch (error) {
    throw new Error(`${file} failed:\n${error.stdout}\n${error.stderr}`)
  }
}

const probe = `
  try {
    const { RepeatToolGuard, canonicalize } = await import('${pkg.name}')
    const { createRequire } = await import('node:module')
    const guard = new RepeatToolGuard({ thresholds: [3, 5] })
    const seen = [1, 2, 3].map(() => guard.observe('agent-1', 'grep', { q: 'x', b: [1] }))
    console.log(JSON.stringify({
      node: process.version,
      target: createRequire(import.meta.resolve('${pkg.name}'))('./binding.cjs').__napiBindingTarget,
      seen: seen.map((r) => r && { tier: r.tier, count: r.count }),
      canonical: canonicalize({ b: 1, a: [2] }),
    }))
  } catch (error) {
    console.log(JSON.stringify({ code: error.code, message: error.message }))
  }
`

// The project without any binary first (the error), then with the WASI package added.
const setup = once(async () => {
  const wasm = join(root, 'npm', 'wasm32-wasi', `${pkg.napi.binaryName}.wasm32-wasi.wasm`)
  if (!existsSync(wasm)) throw new Error(`${wasm} is missing: run npm run build:all -- wasm32-wasip1-threads (npm run test:wasi does)`)
  const packed = packPackages(work)
  const [{ filename }] = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', join(work, 'pack')], join(root, 'npm', 'wasm32-wasi')))
  await installProject(app, 'harness-project', { ...harnessDependencies, [pkg.name]: packed.dependencies[pkg.name] })
  const before = JSON.parse(inApp(process.execPath, 'before.mjs', probe))
  const started = Date.now()
  npm(['install', '--force', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', join(work, 'pack', filename)], app)
  copyFileSync(join(root, '__test__', 'support', 'scripted.mjs'), join(app, 'scripted.mjs'))
  copyFileSync(join(root, '__test__', 'harness', 'fixtures', 'cordis.yml'), join(app, 'cordis.yml'))
  return { before, wasiSeconds: (Date.now() - started) / 1000, manifest: packed.manifest }
})

test.serial('without a native package the import fails with the missing-binary error, which says how to install the WASI package', async (t) => {
  const { before, manifest } = await setup()
  t.true(wasiName in manifest.optionalDependencies, 'the released root package names the WASI package')
  t.false(readdirSync(join(app, 'node_modules', '@deepseek-ai')).some((name) => name.startsWith('dsh-repeat-tool-guard-') && name !== 'dsh-repeat-tool-guard-wasm32-wasi'), 'no native platform package')
  t.is(before.code, 'ERR_REPEAT_TOOL_GUARD_NO_BINARY')
  t.true(before.message.includes(`npm install --force ${wasiName}@${pkg.version} (its package says cpu: wasm32)`), before.message)
})

test.serial('with the WASI package, the class loads the WASI build on this Node and counts', async (t) => {
  const { wasiSeconds } = await setup()
  t.log(`npm install --force of the WASI package: ${wasiSeconds.toFixed(1)} s`)
  t.true(existsSync(join(app, 'node_modules', wasiName, `${pkg.napi.binaryName}.wasm32-wasi.wasm`)))
  const out = JSON.parse(inApp(process.execPath, 'after.mjs', probe))
  t.log(`Node ${out.node}`)
  t.is(out.target, 'wasm32-wasi')
  t.deepEqual(out.seen, [null, null, { tier: 'gentle', count: 3 }])
  t.is(out.canonical, '{"a":[2],"b":1}')
})

if (harnessNode) {
  test.serial('a real agent turn through the WASI build: cordis.yml names the package, both reminders arrive', async (t) => {
    await setup()
    const out = JSON.parse(inApp(harnessNode, 'turn.mjs', agentTurnScript(`target: createRequire(import.meta.resolve('${pkg.name}'))('./binding.cjs').__napiBindingTarget`)))
    t.log(`agent turn on Node ${out.node}`)
    t.is(out.target, 'wasm32-wasi')
    t.deepEqual(out.reminders.map((r) => r.summary), ['grep × 3', 'grep × 5'], 'todo_write is excluded, as the file configures')
    t.is(out.reminders[0].text, GENTLE)
    t.true(out.reminders[1].text.includes('- consecutive_calls: 5\n- arguments: {"q":1}\n'), out.reminders[1].text)
    t.deepEqual(out.executed, ['grep', 'todo_write', 'grep', 'grep', 'grep', 'grep'])
  })
} else {
  console.log('# wasi install: no Node >= 22.19 for the harness (TEST_HARNESS_NODE), so no agent turn')
}
