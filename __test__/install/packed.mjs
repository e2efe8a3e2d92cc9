// The package as a user gets it, for the install suites (install.spec.mjs, consumers.spec.mjs):
// `npm pack` of the root package (with the optionalDependencies `napi pre-publish` adds at release)
// and of this platform's package (its .node put there by `napi artifacts`, from the binary the
// build already made: nothing is rebuilt), and fresh projects that install both beside the
// published deepseek-harness 0.1.0-rc.8.
import { execFile, execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { packedManifest } from '../../scripts/pack-manifest.mjs'

const require = createRequire(import.meta.url)
export const root = fileURLToPath(new URL('../..', import.meta.url))
export const pkg = require('../../package.json')
const { expectedBinary } = require('../../lib/missing-binary.cjs')
/** This platform's binary, as missing-binary.cjs names it. */
export const host = expectedBinary()
/** A Node >= 22.19 for the harness (scripts/test.sh sets TEST_HARNESS_NODE), or null for none. */
export const harnessNode = process.env.TEST_HARNESS_NODE && process.env.TEST_HARNESS_NODE !== 'skip' ? process.env.TEST_HARNESS_NODE : null
const npmCli = process.env.npm_execpath && process.env.npm_execpath.endsWith('.js') ? [process.execPath, process.env.npm_execpath] : ['npm']
const builtBinary = join(root, `${pkg.napi.binaryName}.${host.platform}.node`)

/** The published harness, at the versions the suites use (the root's devDependencies). */
export const harnessDependencies = Object.fromEntries(Object.entries(pkg.devDependencies)
  .filter(([name]) => name.startsWith('@deepseek-ai/') && name !== '@deepseek-ai/dsh-repeat-tool-reminder'))

export function run(command, args, options = {}) {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options })
}
const npmEnv = () => ({ ...process.env, npm_config_update_notifier: 'false' })
export function npm(args, cwd) {
  return run(npmCli[0], [...npmCli.slice(1), ...args], { cwd, env: npmEnv() })
}

/** A fresh temporary directory (its real path: Node reports resolved modules by their real path, and macOS' tmpdir is a symlink). */
export function makeWork(prefix) {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)))
}
/** Removes `work`, unless KEEP_INSTALL_TEST is set (then says where it is). */
export function removeWork(work) {
  if (process.env.KEEP_INSTALL_TEST) console.log(`# kept ${work} (KEEP_INSTALL_TEST)`)
  else rmSync(work, { recursive: true, force: true })
}

/** `make()` run once, by the first caller; every caller gets its result, or its error. */
export function once(make) {
  let result
  return () => {
    result ??= (async () => make())()
    return result
  }
}

function pack(dir, destination) {
  const [{ filename, files }] = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', destination], dir))
  return { tarball: join(destination, filename), files: files.map((file) => file.path).sort() }
}

/**
 * Packs both packages into `work`/pack. Returns each tarball with its files, the root manifest as
 * published, and `dependencies`: both tarballs as a project's package.json names them.
 */
export function packPackages(work) {
  if (!existsSync(builtBinary)) throw new Error(`${builtBinary} is missing: run \`npm run build\` first`)
  const destination = join(work, 'pack')
  mkdirSync(destination)

  // The root package, then the same as released: without `prepare` (npm's prepack step,
  // scripts/pack-manifest.mjs, which --ignore-scripts skips) and with the optionalDependencies
  // `napi pre-publish` writes (every npm/<platform> package, at this version).
  const packed = pack(root, destination)
  const stage = join(work, 'stage-root')
  mkdirSync(stage)
  run('tar', ['-xzf', packed.tarball, '-C', stage])
  rmSync(packed.tarball)
  const manifestPath = join(stage, 'package', 'package.json')
  const manifest = packedManifest(JSON.parse(readFileSync(manifestPath, 'utf8')))
  const platforms = readdirSync(join(root, 'npm')).sort()
  manifest.optionalDependencies = Object.fromEntries(platforms.map((platform) => [`${pkg.name}-${platform}`, pkg.version]))
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`)
  const rootPackage = pack(join(stage, 'package'), destination)

  // This platform's package: npm/<platform> with the built binary, copied in by `napi artifacts`
  // (run on a copy of package.json and npm/: napi keeps its paths inside the project it runs in)
  const project = join(work, 'stage-napi')
  mkdirSync(join(project, 'artifacts'), { recursive: true })
  copyFileSync(join(root, 'package.json'), join(project, 'package.json'))
  cpSync(join(root, 'npm'), join(project, 'npm'), { recursive: true })
  copyFileSync(builtBinary, join(project, 'artifacts', `${pkg.napi.binaryName}.${host.platform}.node`))
  // Only this target is at hand (CI's release job has them all): a config naming just it.
  writeFileSync(join(project, 'napi-host.json'), JSON.stringify({ targets: [host.target] }))
  run(join(root, 'node_modules', '.bin', 'napi'), ['artifacts', '--cwd', project, '--config-path', 'napi-host.json', '--output-dir', 'artifacts', '--npm-dir', 'npm'])
  const platformPackage = pack(join(project, 'npm', host.platform), destination)

  return {
    rootPackage,
    platformPackage,
    manifest,
    dependencies: { [pkg.name]: `file:${rootPackage.tarball}`, [`${pkg.name}-${host.platform}`]: `file:${platformPackage.tarball}` },
  }
}

/**
 * Makes `dir` a fresh ES-module project with `dependencies` and runs `npm install` there (no
 * lockfile; from the cache where it can) with `flags`: by default no install scripts. Resolves to
 * the seconds it took and npm's stderr (its warnings).
 */
export function installProject(dir, name, dependencies, flags = ['--ignore-scripts']) {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name, private: true, type: 'module', dependencies }, null, 2)}\n`)
  const started = Date.now()
  const args = [...npmCli.slice(1), 'install', '--prefer-offline', '--no-audit', '--no-fund', ...flags]
  return new Promise((resolve, reject) => {
    execFile(npmCli[0], args, { cwd: dir, env: npmEnv(), encoding: 'utf8', maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`npm install in ${dir} failed (${error.code ?? error.signal}):\n${stdout}\n${stderr}`))
      else resolve({ seconds: (Date.now() - started) / 1000, stderr })
    })
  })
}

/**
 * `npx <args>` in `cwd` as a user runs it, with `node` first on PATH (the command's `#!/usr/bin/env
 * node` then runs on it). Returns `{ status, stdout, stderr }`.
 */
export function npx(args, cwd, node) {
  const [command, ...prefix] = npmCli.length > 1 ? [npmCli[0], join(dirname(npmCli[1]), 'npx-cli.js')] : ['npx']
  const env = { ...npmEnv(), PATH: `${dirname(node)}${delimiter}${process.env.PATH}` }
  const { status, stdout, stderr, error } = spawnSync(command, [...prefix, ...args], { cwd, env, encoding: 'utf8' })
  if (error) throw error
  return { status, stdout, stderr }
}

/**
 * The script of a real rc.8 turn in an installed project: the loader and include plugins read its
 * cordis.yml, a scripted model calls grep five times (and todo_write once between), and the script
 * prints, as JSON, the Node version, the guard's reminders, the tools executed, and the
 * `extra` fields (source text of more `key: value` pairs, evaluated in the script).
 */
export function agentTurnScript(extra) {
  return `
    import { createRequire } from 'node:module'
    import Loader from '@deepseek-ai/cordis-plugin-loader'
    import Include from '@deepseek-ai/cordis-plugin-include'
    import { boot, callTool, say, reminders } from './scripted.mjs'
    const harness = await boot()
    await harness.ctx.plugin(Loader, { baseUrl: new URL('./package.json', import.meta.url).href })
    await harness.ctx.plugin(Include, { path: new URL('./cordis.yml', import.meta.url).href })
    await harness.ctx.loader.await()
    const a = await harness.agent('agent-app', [
      callTool('grep', { q: 1 }), callTool('todo_write', {}), callTool('grep', { q: 1 }), callTool('grep', { q: 1 }),
      callTool('grep', { q: 1 }), callTool('grep', { q: 1 }), say('done'),
    ])
    await a.run()
    console.log(JSON.stringify({
      node: process.version,
      ${extra},
      reminders: reminders(a.events(), 'repeat-tool-guard').map((r) => ({ summary: r.source.summary, text: r.text })),
      executed: harness.executed,
    }))
    process.exit(0)
  `
}
