// Building from a checkout (scripts/build.mjs: `npm run build`, `npm run build:debug` and npm's
// `prepare` step of `npm install`): without Rust it stops with one message saying where to get it,
// instead of napi's "Internal Error: cargo metadata failed to run" and its stack trace; with cargo
// it runs napi build. Packing (scripts/pack-manifest.mjs, npm's prepack and postpack steps): the
// packed package.json has no `prepare`, and the checkout's is put back as it was.
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import test from 'ava'
import { KEPT, packedManifest, strip } from '../scripts/pack-manifest.mjs'

const require = createRequire(import.meta.url)
const pkg = require('../package.json')
const root = fileURLToPath(new URL('..', import.meta.url))
const script = join(root, 'scripts', 'build.mjs')
const posix = process.platform !== 'win32'

const work = mkdtempSync(join(tmpdir(), 'rtg-build-'))
test.after.always(() => rmSync(work, { recursive: true, force: true }))

// This PATH without every directory that holds a cargo.
const withoutCargo = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => dir && !['cargo', 'cargo.exe', 'cargo.cmd'].some((name) => existsSync(join(dir, name))))
  .join(delimiter)

/** A directory holding a `cargo` shell script with this body, for a PATH. */
function cargoDir(name, body) {
  const dir = join(work, name)
  mkdirSync(dir)
  writeFileSync(join(dir, 'cargo'), `#!/bin/sh\n${body}\n`)
  chmodSync(join(dir, 'cargo'), 0o755)
  return dir
}

function build(path, args = [], lifecycle = undefined) {
  const env = { ...process.env, PATH: path }
  delete env.npm_lifecycle_event
  if (lifecycle) env.npm_lifecycle_event = lifecycle
  return spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000, env })
}

/** What every cargo-less run must say (`again`: the command to run once Rust is there), and must not. */
function assertNeedsCargo(t, output, again) {
  t.regex(output, /Building @deepseek-ai\/dsh-repeat-tool-guard from this checkout needs Rust's cargo/)
  t.true(output.includes(`Install Rust with rustup (https://rustup.rs), open a new shell so that cargo is on PATH, and run \`${again}\` again.`), output)
  t.true(output.includes('Without Rust, install the package from tarballs packed on a machine that has it (the README\'s "From packed tarballs").'), output)
  t.notRegex(output, /npm install @deepseek-ai/, 'no install from npm, where the package is not published')
  t.notRegex(output, /Internal Error/)
  t.notRegex(output, /cargo metadata/)
  t.notRegex(output, /^\s+at /m, 'no stack trace')
}

test('build, build:debug and prepare run scripts/build.mjs; prepack and postpack scripts/pack-manifest.mjs', (t) => {
  t.is(pkg.scripts.build, 'node scripts/build.mjs')
  t.is(pkg.scripts['build:debug'], 'node scripts/build.mjs --debug')
  t.is(pkg.scripts.prepare, 'node scripts/build.mjs')
  t.is(pkg.scripts.prepack, 'node scripts/pack-manifest.mjs strip')
  t.is(pkg.scripts.postpack, 'node scripts/pack-manifest.mjs restore')
})

test('without cargo on PATH, the build says where to get Rust and exits 1 before napi starts', (t) => {
  // The PATH really has no cargo: starting one fails as it would on a machine without Rust.
  const probe = spawnSync('cargo', ['--version'], { env: { ...process.env, PATH: withoutCargo } })
  t.is(probe.error?.code, 'ENOENT')

  for (const [lifecycle, again] of [['prepare', 'npm install'], ['build', 'npm run build'], ['build:debug', 'npm run build:debug'], [undefined, 'node scripts/build.mjs']]) {
    const run = build(withoutCargo, lifecycle === 'build:debug' ? ['--debug'] : [], lifecycle)
    t.is(run.status, 1, run.stderr)
    t.is(run.stdout, '', 'napi did not start')
    assertNeedsCargo(t, run.stderr, again)
    t.regex(run.stderr, /, and there is no cargo on PATH\.\n/)
    t.is(run.stderr.trim().split('\n').length, 3, 'one message of three lines')
  }
})

;(posix ? test : test.skip)('a cargo that cannot run (rustup without a toolchain) gets the same message, with its error', (t) => {
  const dir = cargoDir('broken-cargo', "echo 'error: rustup could not choose a version of cargo to run' >&2\nexit 1")
  const run = build([dir, withoutCargo].join(delimiter), [], 'build')
  t.is(run.status, 1, run.stderr)
  assertNeedsCargo(t, run.stderr, 'npm run build')
  t.regex(run.stderr, /`cargo --version` failed: error: rustup could not choose a version of cargo to run/)
})

;(posix ? test : test.skip)('with cargo on PATH, the build runs napi build, which runs that cargo, and exits with napi\'s status', (t) => {
  // A cargo that answers --version and records every other call, failing it: napi's first is `cargo metadata`.
  const record = join(work, 'cargo-calls.txt')
  const dir = cargoDir('cargo', `if [ "$1" = --version ]; then echo "cargo 1.95.0"; exit 0; fi\necho "$@" >> '${record}'\nexit 3`)
  const run = build([dir, withoutCargo].join(delimiter), [], 'build')
  t.not(run.status, 0, run.stderr)
  t.regex(readFileSync(record, 'utf8'), /^metadata /m, 'napi build asked the PATH\'s cargo for the metadata')
  t.notRegex(run.stderr, /needs Rust's cargo/)
})

// npm's scripts start node_modules/.bin/node where a pinned Node is installed (node22, node26: linux-x64
// glibc builds); a node_modules installed on the host but used in a musl container cannot run it.
const binNode = join(root, 'node_modules', '.bin', 'node')
const scriptsRunNode = !posix || !existsSync(binNode) || spawnSync(binNode, ['--version']).status === 0
const npmCli = process.env.npm_execpath && /\.[cm]?js$/.test(process.env.npm_execpath) ? [process.execPath, process.env.npm_execpath] : ['npm']
function npm(args, cwd, env = {}) {
  return spawnSync(npmCli[0], [...npmCli.slice(1), ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 120_000,
    shell: npmCli[0] === 'npm' && !posix,
    env: { ...process.env, npm_config_update_notifier: 'false', ...env },
  })
}

;(scriptsRunNode ? test : test.skip)('npm run build and npm run prepare without cargo on PATH: the message, npm\'s failure, no stack trace', (t) => {
  for (const [script, again] of [['build', 'npm run build'], ['prepare', 'npm install']]) {
    const run = npm(['run', script], root, { PATH: withoutCargo })
    t.falsy(run.error)
    t.not(run.status, 0)
    const output = run.stdout + run.stderr
    assertNeedsCargo(t, output, again)
    t.regex(output, /node scripts\/build\.mjs/)
  }
})

test('the packed manifest is the checkout\'s without `prepare`', (t) => {
  const packed = packedManifest(pkg)
  t.false('prepare' in packed.scripts)
  t.deepEqual({ ...packed, scripts: { ...packed.scripts, prepare: pkg.scripts.prepare } }, pkg)
  t.deepEqual(packedManifest({ name: 'x' }), { name: 'x', scripts: {} })
})

;(scriptsRunNode ? test : test.skip)('npm pack of a copy of the checkout: the tarball\'s package.json has no prepare, runs no build, and the copy\'s package.json is put back as it was', (t) => {
  const copy = join(work, 'checkout-copy')
  mkdirSync(join(copy, 'scripts'), { recursive: true })
  for (const file of ['package.json', ...pkg.files]) cpSync(join(root, file), join(copy, file), { recursive: true })
  cpSync(join(root, 'scripts', 'pack-manifest.mjs'), join(copy, 'scripts', 'pack-manifest.mjs'))
  const before = readFileSync(join(copy, 'package.json'), 'utf8')
  const destination = join(work, 'packed')
  mkdirSync(destination)
  const run = npm(['pack', '--json', '--pack-destination', destination], copy)
  t.is(run.status, 0, run.stderr)
  t.notRegex(run.stdout + run.stderr, /scripts\/build\.mjs|napi build/, 'no build ran')
  const [{ filename }] = JSON.parse(run.stdout.slice(run.stdout.indexOf('[')))
  const manifest = JSON.parse(execFileSync('tar', ['-xzOf', join(destination, filename), 'package/package.json'], { encoding: 'utf8' }))
  t.deepEqual(manifest, packedManifest(JSON.parse(before)))
  t.is(readFileSync(join(copy, 'package.json'), 'utf8'), before, 'package.json restored byte for byte')
  t.false(readdirSync(copy).includes(KEPT))
})

test('strip refuses to run over a kept package.json left by an unfinished pack', (t) => {
  const dir = join(work, 'unfinished')
  mkdirSync(dir)
  writeFileSync(join(dir, 'package.json'), '{"name":"stripped","scripts":{}}\n')
  writeFileSync(join(dir, KEPT), '{"name":"checkout","scripts":{"prepare":"x"}}\n')
  t.throws(() => strip(dir), { message: new RegExp(`${KEPT} exists: an earlier npm pack did not finish`) })
  t.is(readFileSync(join(dir, KEPT), 'utf8'), '{"name":"checkout","scripts":{"prepare":"x"}}\n', 'the kept one is untouched')
})
