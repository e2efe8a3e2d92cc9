// The error a user sees when no native binary for their platform loads (missing-binary.cjs),
// for every platform in the table, and for real: the package copied without its .node file.
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import test from 'ava'

const require = createRequire(import.meta.url)
const { expectedBinary, missingBinaryError } = require('../lib/missing-binary.cjs')
const pkg = require('../package.json')
const root = fileURLToPath(new URL('..', import.meta.url))

const table = [
  [['linux', 'x64', 'gnu'], 'linux-x64 (glibc)', 'linux-x64-gnu', 'x86_64-unknown-linux-gnu'],
  [['linux', 'x64', 'musl'], 'linux-x64 (musl)', 'linux-x64-musl', 'x86_64-unknown-linux-musl'],
  [['linux', 'arm64', 'gnu'], 'linux-arm64 (glibc)', 'linux-arm64-gnu', 'aarch64-unknown-linux-gnu'],
  [['linux', 'arm64', 'musl'], 'linux-arm64 (musl)', 'linux-arm64-musl', 'aarch64-unknown-linux-musl'],
  [['darwin', 'x64'], 'darwin-x64', 'darwin-x64', 'x86_64-apple-darwin'],
  [['darwin', 'arm64'], 'darwin-arm64', 'darwin-arm64', 'aarch64-apple-darwin'],
  [['win32', 'x64'], 'win32-x64', 'win32-x64-msvc', 'x86_64-pc-windows-msvc'],
  [['win32', 'arm64'], 'win32-arm64', 'win32-arm64-msvc', 'aarch64-pc-windows-msvc'],
  [['win32', 'ia32'], 'win32-ia32', 'win32-ia32-msvc', 'i686-pc-windows-msvc'],
  [['linux', 'arm', 'gnu'], 'linux-arm (glibc)', 'linux-arm-gnueabihf', 'armv7-unknown-linux-gnueabihf'],
  [['linux', 'riscv64', 'gnu'], 'linux-riscv64 (glibc)', 'linux-riscv64-gnu', 'riscv64gc-unknown-linux-gnu'],
  [['linux', 's390x', 'gnu'], 'linux-s390x (glibc)', 'linux-s390x-gnu', 's390x-unknown-linux-gnu'],
  [['linux', 'ppc64', 'gnu'], 'linux-ppc64 (glibc)', 'linux-ppc64-gnu', 'powerpc64le-unknown-linux-gnu'],
  [['android', 'arm64'], 'android-arm64', 'android-arm64', 'aarch64-linux-android'],
  [['freebsd', 'x64'], 'freebsd-x64', 'freebsd-x64', 'x86_64-unknown-freebsd'],
]

test('the WebAssembly build is a configured target with its platform package', (t) => {
  t.true(pkg.napi.targets.includes('wasm32-wasip1-threads'))
  const wasi = require('../npm/wasm32-wasi/package.json')
  t.is(wasi.name, `${pkg.name}-wasm32-wasi`)
  t.deepEqual(wasi.cpu, ['wasm32'])
  t.is(wasi.version, pkg.version)
  t.true(wasi.files.includes('repeat-tool-guard.wasm32-wasi.wasm') && wasi.files.includes(wasi.main))
  // The runtime the generated WASI loader requires, at the versions it was built with.
  for (const name of ['@emnapi/core', '@emnapi/runtime']) t.is(wasi.dependencies[name], pkg.devDependencies[name], name)
  t.is(wasi.dependencies['@napi-rs/wasm-runtime'], `~${pkg.devDependencies['@napi-rs/wasm-runtime']}`)
})

test('every configured target has its platform package and a row in the table', (t) => {
  t.deepEqual(table.map((row) => row[3]).sort(), pkg.napi.targets.filter((target) => !target.startsWith('wasm32-')).sort())
  for (const [args, machine, platform, target] of table) {
    const expected = expectedBinary(...args)
    t.deepEqual(expected, { machine, platform, target, packageName: `${pkg.name}-${platform}`, published: true })
    t.is(require(`../npm/${platform}/package.json`).name, expected.packageName)
  }
})

test('a platform without a prebuilt binary says so', (t) => {
  for (const args of [['openbsd', 'x64'], ['linux', 'ia32', 'gnu'], ['linux', 'riscv64', 'musl'], ['linux', 'arm', 'musl'], ['android', 'arm']]) {
    const expected = expectedBinary(...args)
    t.false(expected.published)
    const { message } = missingBinaryError(new Error('inner'), expected)
    t.true(message.includes(`has no prebuilt binary for ${expected.machine}`), message)
    t.true(message.includes('npm run build'), message)
    t.true(message.includes(`npm install --force ${pkg.name}-wasm32-wasi (its package says cpu: wasm32)`), message)
  }
})

test('the message names the machine, the expected package and how to build, in at most 12 lines; the loader\'s attempts are its cause', (t) => {
  // The generated loader's chain: one error per attempt, the last attempt outermost.
  const local = new Error("Cannot find module './repeat-tool-guard.darwin-arm64.node'\nRequire stack:\n- /somewhere/binding.cjs")
  const pkgError = Object.assign(new Error(`Cannot find module '${pkg.name}-darwin-arm64'\nRequire stack:\n- /somewhere/binding.cjs`), { cause: local })
  const cause = Object.assign(new Error('Cannot find native binding. npm has a bug related to optional dependencies'), { cause: pkgError })
  const error = missingBinaryError(cause, expectedBinary('darwin', 'arm64'))
  t.is(error.code, 'ERR_REPEAT_TOOL_GUARD_NO_BINARY')
  t.is(
    error.message,
    [
      `${pkg.name} could not find its native binary for darwin-arm64: it expected the package ${pkg.name}-darwin-arm64, which is not installed.`,
      `It is an optionalDependency of ${pkg.name}: reinstall without --omit=optional, on the machine (os, cpu, libc) that runs it.`,
      `Or install the WebAssembly build, slower but for any machine: npm install --force ${pkg.name}-wasm32-wasi (its package says cpu: wasm32)`,
      'To build from source: install Rust (cargo, https://rustup.rs), run `npm install` in a checkout of the package, then install',
      'that checkout, or set NAPI_RS_NATIVE_LIBRARY_PATH to the repeat-tool-guard.darwin-arm64.node it built (`npm run build`).',
      "What the loader tried is in this error's cause.",
    ].join('\n'),
  )
  t.true(error.message.split('\n').length <= 12)
  t.is(error.cause.message, [
    'The generated loader (binding.cjs) tried, in order:',
    "- Cannot find module './repeat-tool-guard.darwin-arm64.node'",
    `- Cannot find module '${pkg.name}-darwin-arm64'`,
  ].join('\n'))
  t.is(error.cause.stack, `Error: ${error.cause.message}`, 'no stack frames of the loader')
})

test('importing a copy of the package without its binary throws that error', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rtg-no-binary-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  // What npm would publish (package.json's `files`), without any binary.
  for (const file of ['package.json', ...pkg.files]) cpSync(join(root, file), join(dir, file), { recursive: true })
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), process.platform === 'win32' ? 'junction' : 'dir')
  writeFileSync(join(dir, 'probe.mjs'), `
    try { await import('./index.js'); console.log('loaded') } catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message, cause: error.cause?.message })) }
  `)
  writeFileSync(join(dir, 'uncaught.mjs'), "await import('./index.js')\n")
  const env = { ...process.env }
  delete env.NAPI_RS_NATIVE_LIBRARY_PATH
  delete env.NAPI_RS_FORCE_WASI
  const out = JSON.parse(execFileSync(process.execPath, [join(dir, 'probe.mjs')], { env, encoding: 'utf8' }))
  const expected = expectedBinary()
  t.is(out.code, 'ERR_REPEAT_TOOL_GUARD_NO_BINARY')
  t.true(out.message.includes(`could not find its native binary for ${expected.machine}: it expected the package ${expected.packageName}, which is not installed.`), out.message)
  t.true(out.message.includes('`npm run build`'), out.message)
  t.regex(out.cause, new RegExp(`^The generated loader \\(binding.cjs\\) tried, in order:\\n- Cannot find module './repeat-tool-guard.${expected.platform}.node'`))
  t.true(out.cause.includes(`- Cannot find module '${expected.packageName}'`), out.cause)
  t.false(/npm has a bug/.test(out.message + out.cause), 'without the loader\'s generic advice')
  // What a user sees when nothing catches it: the message, one stack, the attempts.
  const printed = t.throws(() => execFileSync(process.execPath, [join(dir, 'uncaught.mjs')], { env, encoding: 'utf8', stdio: 'pipe' })).stderr
  t.true(printed.includes('ERR_REPEAT_TOOL_GUARD_NO_BINARY'), printed)
  t.true(printed.split('\n').length <= 32, `${printed.split('\n').length} lines:\n${printed}`)
})
