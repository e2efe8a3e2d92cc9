// The error a user sees when no native binary for their platform loads (missing-binary.cjs),
// for every platform in the table and every kind of copy (a release, a checkout, a packed
// tarball), and for real: the package copied as `npm pack` packs it, without its .node file.
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

/** The packages a message tells the user to install from the registry (`npm install [--flags] <name>`). */
function registryInstalls(message) {
  return [...message.matchAll(/npm install(?: --\S+)* (@\S+)/g)].map((match) => match[1])
}

/** What every message must hold: no registry install of a package the copy at hand cannot get. */
function assertNoDeadAdvice(t, message, copy) {
  const installs = registryInstalls(message)
  if (copy === 'released') {
    // A release names every platform package at its own version: those are on npm with it.
    t.deepEqual(installs.filter((name) => name !== `${pkg.name}-wasm32-wasi@${pkg.version}`), [], message)
  } else {
    t.deepEqual(installs, [], `no package to fetch from npm for a ${copy} copy:\n${message}`)
  }
  t.notRegex(message, /^Or /, 'no "Or" without a first way')
  t.true(message.split('\n').length <= 12, message)
}

const COPIES = ['released', 'checkout', 'packed']

test('where the copy came from: a release names its platform packages, a checkout has the Rust sources, a packed tarball neither', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rtg-copy-kind-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const { copyKind } = require('../lib/missing-binary.cjs')
  t.is(copyKind(dir, { ...pkg, optionalDependencies: undefined }), 'packed')
  t.is(copyKind(dir, { ...pkg, optionalDependencies: { [`${pkg.name}-linux-x64-gnu`]: pkg.version } }), 'released')
  writeFileSync(join(dir, 'Cargo.toml'), '')
  t.is(copyKind(dir, { ...pkg, optionalDependencies: undefined }), 'checkout')
  t.is(copyKind(), 'checkout', 'this repository')
})

test('a platform without a prebuilt binary says so, and how to get the WebAssembly build in each copy', (t) => {
  for (const args of [['openbsd', 'x64'], ['linux', 'ia32', 'gnu'], ['linux', 'riscv64', 'musl'], ['linux', 'arm', 'musl'], ['android', 'arm']]) {
    const expected = expectedBinary(...args)
    t.false(expected.published)
    for (const copy of COPIES) {
      const { message } = missingBinaryError(new Error('inner'), expected, { copy, forceWasi: false, nativeInstalled: false, wasiInstalled: false })
      t.true(message.startsWith(`${pkg.name} has no prebuilt binary for ${expected.machine}: no platform package ${expected.packageName} is made. Use the WebAssembly build:\n`), message)
      const how = {
        released: `\nnpm install --force ${pkg.name}-wasm32-wasi@${pkg.version} (its package says cpu: wasm32).\n`,
        checkout: '\nThis is a checkout: build it with `npm run build:all -- wasm32-wasip1-threads`, then copy the files that writes to npm/wasm32-wasi/ beside binding.cjs.\n',
        packed: '\nin the checkout, pack npm/wasm32-wasi after `npm run build:all -- wasm32-wasip1-threads`\n',
      }[copy]
      t.true(message.includes(how), `${copy}: ${message}`)
      assertNoDeadAdvice(t, message, copy)
    }
  }
})

// The generated loader's chain: one error per attempt, the last attempt outermost.
const local = new Error("Cannot find module './repeat-tool-guard.darwin-arm64.node'\nRequire stack:\n- /somewhere/binding.cjs")
const pkgError = Object.assign(new Error(`Cannot find module '${pkg.name}-darwin-arm64'\nRequire stack:\n- /somewhere/binding.cjs`), { cause: local })
const loaderChain = Object.assign(new Error('Cannot find native binding. npm has a bug related to optional dependencies'), { cause: pkgError })
const notFound = `${pkg.name} could not find its native binary for darwin-arm64: it expected the package ${pkg.name}-darwin-arm64, which is not installed.`

test('the message of a release names the machine, the expected package and the ways on, in at most 12 lines; the loader\'s attempts are its cause', (t) => {
  const error = missingBinaryError(loaderChain, expectedBinary('darwin', 'arm64'), { copy: 'released', forceWasi: false, nativeInstalled: false, wasiInstalled: false })
  t.is(error.code, 'ERR_REPEAT_TOOL_GUARD_NO_BINARY')
  t.is(
    error.message,
    [
      notFound,
      `It is an optionalDependency of ${pkg.name}: reinstall without --omit=optional, on the machine (os, cpu, libc) that runs it.`,
      `Or install the WebAssembly build, slower but for any machine: npm install --force ${pkg.name}-wasm32-wasi@${pkg.version} (its package says cpu: wasm32).`,
      'To build from source: install Rust (https://rustup.rs), run `npm install` in a checkout of the package and install that checkout.',
      'Or set NAPI_RS_NATIVE_LIBRARY_PATH to a built repeat-tool-guard.darwin-arm64.node.',
      "What the loader tried is in this error's cause.",
    ].join('\n'),
  )
  assertNoDeadAdvice(t, error.message, 'released')
  t.is(error.cause.message, [
    'The generated loader (binding.cjs) tried, in order:',
    "- Cannot find module './repeat-tool-guard.darwin-arm64.node'",
    `- Cannot find module '${pkg.name}-darwin-arm64'`,
  ].join('\n'))
  t.is(error.cause.stack, `Error: ${error.cause.message}`, 'no stack frames of the loader')
})

test('a checkout and a packed tarball get advice that works there, with no package to fetch from npm', (t) => {
  const situation = { forceWasi: false, nativeInstalled: false, wasiInstalled: false }
  const checkout = missingBinaryError(loaderChain, expectedBinary('darwin', 'arm64'), { ...situation, copy: 'checkout' }).message
  t.is(checkout, [
    notFound,
    'This is a checkout: build the binary with `npm run build` (it needs Rust: https://rustup.rs), which writes repeat-tool-guard.darwin-arm64.node.',
    'Or set NAPI_RS_NATIVE_LIBRARY_PATH to a built repeat-tool-guard.darwin-arm64.node.',
    "What the loader tried is in this error's cause.",
  ].join('\n'))
  const packed = missingBinaryError(loaderChain, expectedBinary('darwin', 'arm64'), { ...situation, copy: 'packed' }).message
  t.is(packed, [
    notFound,
    'This copy was installed from a tarball packed from a checkout, which holds no binary and names no platform packages:',
    'in the checkout, pack npm/darwin-arm64 with the repeat-tool-guard.darwin-arm64.node that `npm run build` made',
    'and install that tarball too (the README\'s "From packed tarballs"), or install the checkout itself.',
    'Or set NAPI_RS_NATIVE_LIBRARY_PATH to a built repeat-tool-guard.darwin-arm64.node.',
    "What the loader tried is in this error's cause.",
  ].join('\n'))
  for (const [copy, message] of [['checkout', checkout], ['packed', packed]]) {
    assertNoDeadAdvice(t, message, copy)
    t.notRegex(message, /optionalDependency|--omit=optional/, `${copy}: its package.json names no optional dependencies`)
  }
})

test('an installed platform package that does not load: the message says so and gives the loader\'s reason', (t) => {
  const failed = Object.assign(new Error('Cannot find native binding.'), {
    cause: new Error(`Failed to load ${pkg.name}-darwin-arm64: dlopen: wrong architecture\nmore detail`),
  })
  for (const copy of COPIES) {
    const { message } = missingBinaryError(failed, expectedBinary('darwin', 'arm64'), { copy, forceWasi: false, nativeInstalled: true, wasiInstalled: false })
    t.true(message.startsWith(`${pkg.name} could not load its native binary for darwin-arm64 from ${pkg.name}-darwin-arm64, which is installed: Failed to load ${pkg.name}-darwin-arm64: dlopen: wrong architecture\n`), message)
    t.notRegex(message, /optionalDependency/, 'the package is there: no reinstall advice')
    assertNoDeadAdvice(t, message, copy)
  }
})

test('NAPI_RS_FORCE_WASI=error without the WebAssembly build: the message names the setting, the reason, and what to do in each copy', (t) => {
  const wasiMissing = Object.assign(new Error('WASI binding not found and NAPI_RS_FORCE_WASI is set to error'), {
    cause: new Error(`Cannot find module '${pkg.name}-wasm32-wasi'`),
  })
  const lead = [
    `${pkg.name}: NAPI_RS_FORCE_WASI=error demands the WebAssembly build, and ${pkg.name}-wasm32-wasi is not installed.`,
    'Unset NAPI_RS_FORCE_WASI (or set it to 1: WebAssembly if it loads, else native) to use a native binary, or install the WebAssembly build:',
  ]
  const how = {
    released: [`npm install --force ${pkg.name}-wasm32-wasi@${pkg.version} (its package says cpu: wasm32).`, 'To build from source: install Rust (https://rustup.rs), run `npm install` in a checkout of the package and install that checkout.'],
    checkout: ['This is a checkout: build it with `npm run build:all -- wasm32-wasip1-threads`, then copy the files that writes to npm/wasm32-wasi/ beside binding.cjs.'],
    packed: [
      'This copy was installed from a tarball packed from a checkout, which holds no binary and names no platform packages:',
      'in the checkout, pack npm/wasm32-wasi after `npm run build:all -- wasm32-wasip1-threads`',
      'and install that tarball too (the README\'s "From packed tarballs"), or install the checkout itself.',
    ],
  }
  for (const copy of COPIES) {
    // The native package being there changes nothing: the setting forbids it.
    for (const nativeInstalled of [false, true]) {
      const { message } = missingBinaryError(wasiMissing, expectedBinary('linux', 'x64', 'gnu'), { copy, forceWasi: true, nativeInstalled, wasiInstalled: false })
      t.is(message, [...lead, ...how[copy], "What the loader tried is in this error's cause."].join('\n'), copy)
      t.notRegex(message, /could not load|which is installed/, 'nothing about the native binary the setting did not let load')
      assertNoDeadAdvice(t, message, copy)
    }
  }
  const broken = Object.assign(new Error('WASI binding not found and NAPI_RS_FORCE_WASI is set to error'), {
    cause: new Error(`Failed to load ${pkg.name}-wasm32-wasi: WebAssembly.Memory(): could not allocate memory`),
  })
  const { message } = missingBinaryError(broken, expectedBinary('linux', 'x64', 'gnu'), { copy: 'released', forceWasi: true, nativeInstalled: true, wasiInstalled: true })
  t.true(message.startsWith(`${pkg.name}: NAPI_RS_FORCE_WASI=error demands the WebAssembly build, and ${pkg.name}-wasm32-wasi is installed but did not load: Failed to load ${pkg.name}-wasm32-wasi: WebAssembly.Memory(): could not allocate memory\n`), message)
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
  // Copied as `npm pack` would pack it: a packed copy, whose message says how to add the platform package.
  t.true(out.message.startsWith(`${pkg.name} could not find its native binary for ${expected.machine}: it expected the package ${expected.packageName}, which is not installed.\n`), out.message)
  t.true(out.message.includes(`\nin the checkout, pack npm/${expected.platform} with the repeat-tool-guard.${expected.platform}.node that \`npm run build\` made\n`), out.message)
  assertNoDeadAdvice(t, out.message, 'packed')
  t.regex(out.cause, new RegExp(`^The generated loader \\(binding.cjs\\) tried, in order:\\n- Cannot find module './repeat-tool-guard.${expected.platform}.node'`))
  t.true(out.cause.includes(`- Cannot find module '${expected.packageName}'`), out.cause)
  t.false(/npm has a bug/.test(out.message + out.cause), 'without the loader\'s generic advice')
  // What a user sees when nothing catches it: the message, one stack, the attempts.
  const printed = t.throws(() => execFileSync(process.execPath, [join(dir, 'uncaught.mjs')], { env, encoding: 'utf8', stdio: 'pipe' })).stderr
  t.true(printed.includes('ERR_REPEAT_TOOL_GUARD_NO_BINARY'), printed)
  t.true(printed.split('\n').length <= 32, `${printed.split('\n').length} lines:\n${printed}`)

  // NAPI_RS_FORCE_WASI=error in the same copy: the setting and its reason lead the message.
  const forced = JSON.parse(execFileSync(process.execPath, [join(dir, 'probe.mjs')], { env: { ...env, NAPI_RS_FORCE_WASI: 'error' }, encoding: 'utf8' }))
  t.is(forced.code, 'ERR_REPEAT_TOOL_GUARD_NO_BINARY')
  t.true(forced.message.startsWith(`${pkg.name}: NAPI_RS_FORCE_WASI=error demands the WebAssembly build, and ${pkg.name}-wasm32-wasi is not installed.\n`), forced.message)
  t.true(forced.message.includes('\nin the checkout, pack npm/wasm32-wasi after `npm run build:all -- wasm32-wasip1-threads`\n'), forced.message)
  assertNoDeadAdvice(t, forced.message, 'packed')
})
