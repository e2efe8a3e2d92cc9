// npm's `prepare` step (scripts/prepare.mjs): in a checkout without Rust, npm install stops with one
// message saying what to install (and that a release from npm needs no Rust) instead of napi's
// "Internal Error: cargo metadata failed to run" and its stack trace; with cargo it runs
// `npm run build` and exits with the build's status.
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import test from 'ava'

const require = createRequire(import.meta.url)
const pkg = require('../package.json')
const root = fileURLToPath(new URL('..', import.meta.url))
const script = join(root, 'scripts', 'prepare.mjs')
const posix = process.platform !== 'win32'

const work = mkdtempSync(join(tmpdir(), 'rtg-prepare-'))
test.after.always(() => rmSync(work, { recursive: true, force: true }))

// This PATH without every directory that holds a cargo.
const withoutCargo = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => dir && !['cargo', 'cargo.exe', 'cargo.cmd'].some((name) => existsSync(join(dir, name))))
  .join(delimiter)

// A stand-in for npm (npm_execpath) that records its arguments and exits with 3, so a test sees
// whether and how the script starts the build without building.
const fakeNpm = join(work, 'fake-npm.cjs')
const fakeNpmRecord = join(work, 'fake-npm-args.json')
writeFileSync(fakeNpm, `require('node:fs').writeFileSync(${JSON.stringify(fakeNpmRecord)}, JSON.stringify(process.argv.slice(2)))\nprocess.exit(3)\n`)

/** A directory holding a `cargo` shell script with this body, for a PATH. */
function cargoDir(name, body) {
  const dir = join(work, name)
  mkdirSync(dir)
  writeFileSync(join(dir, 'cargo'), `#!/bin/sh\n${body}\n`)
  chmodSync(join(dir, 'cargo'), 0o755)
  return dir
}

function prepare(path) {
  rmSync(fakeNpmRecord, { force: true })
  return spawnSync(process.execPath, [script], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, PATH: path, npm_execpath: fakeNpm },
  })
}

/** What every cargo-less run must say, and must not. */
function assertNeedsCargo(t, output) {
  t.regex(output, /Building @deepseek-ai\/dsh-repeat-tool-guard from this checkout needs Rust's cargo/)
  t.regex(output, /Install Rust with rustup \(https:\/\/rustup\.rs\)/)
  t.regex(output, /Installing a released version from npm needs no Rust: .* comes with a prebuilt binary/)
  t.notRegex(output, /Internal Error/)
  t.notRegex(output, /cargo metadata/)
  t.notRegex(output, /^\s+at /m, 'no stack trace')
}

test('the prepare script is scripts/prepare.mjs, and the build it runs is napi build', (t) => {
  t.is(pkg.scripts.prepare, 'node scripts/prepare.mjs')
  t.regex(pkg.scripts.build, /^napi build /)
})

test('without cargo on PATH, prepare says what to install and exits 1 before any build', (t) => {
  // The PATH really has no cargo: starting one fails as it would on a machine without Rust.
  const probe = spawnSync('cargo', ['--version'], { env: { ...process.env, PATH: withoutCargo } })
  t.is(probe.error?.code, 'ENOENT')

  const run = prepare(withoutCargo)
  t.is(run.status, 1, run.stderr)
  t.is(run.stdout, '')
  assertNeedsCargo(t, run.stderr)
  t.regex(run.stderr, /there is no cargo on PATH/)
  t.is(run.stderr.trim().split('\n').length, 3, 'one message of three lines')
  t.false(existsSync(fakeNpmRecord), 'npm run build was not started')
})

;(posix ? test : test.skip)('a cargo that cannot run (rustup without a toolchain) gets the same message, with its error', (t) => {
  const dir = cargoDir('broken-cargo', "echo 'error: rustup could not choose a version of cargo to run' >&2\nexit 1")
  const run = prepare([dir, withoutCargo].join(delimiter))
  t.is(run.status, 1, run.stderr)
  assertNeedsCargo(t, run.stderr)
  t.regex(run.stderr, /`cargo --version` failed: error: rustup could not choose a version of cargo to run/)
  t.false(existsSync(fakeNpmRecord), 'npm run build was not started')
})

;(posix ? test : test.skip)('with cargo on PATH, prepare runs npm run build and exits with its status', (t) => {
  const dir = cargoDir('cargo', 'echo "cargo 1.95.0"')
  const run = prepare([dir, withoutCargo].join(delimiter))
  t.is(run.status, 3, run.stderr)
  t.deepEqual(JSON.parse(readFileSync(fakeNpmRecord, 'utf8')), ['run', 'build'])
  t.notRegex(run.stderr, /needs Rust's cargo/)
})

// npm's scripts start node_modules/.bin/node where a pinned Node is installed (node22, node26: linux-x64
// glibc builds); a node_modules installed on the host but used in a musl container cannot run it.
const binNode = join(root, 'node_modules', '.bin', 'node')
const scriptsRunNode = !posix || !existsSync(binNode) || spawnSync(binNode, ['--version']).status === 0

;(scriptsRunNode ? test : test.skip)('npm run prepare without cargo on PATH: the message, npm\'s failure, no stack trace', (t) => {
  const npmCli = process.env.npm_execpath && /\.[cm]?js$/.test(process.env.npm_execpath) ? [process.execPath, process.env.npm_execpath] : ['npm']
  const run = spawnSync(npmCli[0], [...npmCli.slice(1), 'run', 'prepare'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    shell: npmCli[0] === 'npm' && !posix,
    env: { ...process.env, PATH: withoutCargo, npm_config_update_notifier: 'false' },
  })
  t.falsy(run.error)
  t.not(run.status, 0)
  const output = run.stdout + run.stderr
  assertNeedsCargo(t, output)
  t.regex(output, /node scripts\/prepare\.mjs/)
})
