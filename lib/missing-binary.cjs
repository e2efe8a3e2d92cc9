// What to tell a user when no native binary for their platform loads: which platform, which
// package was expected, and what to do about it in the copy at hand (a release from npm, a
// checkout, or a tarball packed from one): advice that works there, none that would fail.
// Used by native.cjs; tested on its own.
'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { name: PACKAGE, version: PACKAGE_VERSION, napi } = require('../package.json')

/** The running machine's C library on Linux: 'gnu' (glibc) or 'musl'; undefined elsewhere. */
function linuxLibc() {
  if (process.platform !== 'linux') return undefined
  try {
    const report = process.report?.getReport?.()
    if (report?.header?.glibcVersionRuntime) return 'gnu'
    if (report?.sharedObjects?.some((path) => /(?:libc\.musl-|ld-musl-)/.test(path))) return 'musl'
  } catch {
    // fall through to the file-system check
  }
  try {
    return fs.readFileSync('/usr/bin/ldd', 'utf8').includes('musl') ? 'musl' : 'gnu'
  } catch {
    return 'gnu'
  }
}

const TRIPLES = {
  'linux-x64-gnu': 'x86_64-unknown-linux-gnu',
  'linux-x64-musl': 'x86_64-unknown-linux-musl',
  'linux-arm64-gnu': 'aarch64-unknown-linux-gnu',
  'linux-arm64-musl': 'aarch64-unknown-linux-musl',
  'darwin-x64': 'x86_64-apple-darwin',
  'darwin-arm64': 'aarch64-apple-darwin',
  'win32-x64': 'x86_64-pc-windows-msvc',
  'win32-arm64': 'aarch64-pc-windows-msvc',
  'win32-ia32': 'i686-pc-windows-msvc',
  'linux-arm-gnueabihf': 'armv7-unknown-linux-gnueabihf',
  'linux-riscv64-gnu': 'riscv64gc-unknown-linux-gnu',
  'linux-s390x-gnu': 's390x-unknown-linux-gnu',
  'linux-ppc64-gnu': 'powerpc64le-unknown-linux-gnu',
  'android-arm64': 'aarch64-linux-android',
  'freebsd-x64': 'x86_64-unknown-freebsd',
}

/** The WebAssembly build's package: it runs wherever no native binary fits. */
const WASI_PACKAGE = `${PACKAGE}-wasm32-wasi`

/**
 * The prebuilt binary this package would use on `platform`/`arch` (with `libc` on Linux):
 * `{ machine, platform, target, packageName, published }`. `machine` describes the machine
 * ('linux-x64 (glibc)'), `platform` is napi's platform-arch-abi name ('linux-x64-gnu'), and
 * `published` says whether package.json's napi.targets has a binary for it.
 */
function expectedBinary(platform = process.platform, arch = process.arch, libc = linuxLibc()) {
  let abi = `${platform}-${arch}`
  let machine = abi
  if (platform === 'linux') {
    // 32-bit ARM Linux binaries are built for the hard-float ABI (gnueabihf, musleabihf).
    abi += `-${libc ?? 'gnu'}${arch === 'arm' ? 'eabihf' : ''}`
    machine += libc === 'musl' ? ' (musl)' : ' (glibc)'
  }
  const target = TRIPLES[abi]
  if (platform === 'win32') abi += '-msvc'
  return {
    machine,
    platform: abi,
    target,
    packageName: `${PACKAGE}-${abi}`,
    published: target !== undefined && napi.targets.includes(target),
  }
}

/**
 * Where this copy of the package came from, which decides what a user can do about a missing
 * binary: 'released' (its package.json names the platform packages, as `napi pre-publish` writes
 * them for npm), 'checkout' (a clone, with the Rust sources beside it) or 'packed' (`npm pack` of
 * a checkout: no binary and no platform packages named).
 */
function copyKind(dir = path.join(__dirname, '..'), manifest = require('../package.json')) {
  if (Object.keys(manifest.optionalDependencies ?? {}).length > 0) return 'released'
  return fs.existsSync(path.join(dir, 'Cargo.toml')) ? 'checkout' : 'packed'
}

function isInstalled(packageName) {
  try {
    require.resolve(`${packageName}/package.json`)
    return true
  } catch {
    return false
  }
}

/** The first line of the loader's attempt that names `packageName`, if any: why it did not load. */
function reasonFor(cause, packageName) {
  for (let e = cause, depth = 0; e && depth < 16; e = e.cause, depth++) {
    const line = String(e.message ?? e).split('\n')[0]
    if (line.includes(packageName)) return line
  }
  return undefined
}

/**
 * The error to throw when the generated loader failed with `cause`: a short message, the loader's
 * attempts as its cause. `situation` says what is at hand: `copy` (copyKind()), `forceWasi`
 * (NAPI_RS_FORCE_WASI=error) and whether the native and WASI packages are installed.
 */
function missingBinaryError(cause, expected = expectedBinary(), situation = {}) {
  const {
    copy = copyKind(),
    forceWasi = process.env.NAPI_RS_FORCE_WASI === 'error',
    nativeInstalled = isInstalled(expected.packageName),
    wasiInstalled = isInstalled(WASI_PACKAGE),
  } = situation
  const where = expected.machine
  const nodeFile = `${napi.binaryName}.${expected.platform}.node`
  const why = (name) => {
    const reason = reasonFor(cause, name)
    return reason ? `: ${reason}` : '.'
  }
  const lines = []
  if (forceWasi) {
    lines.push(
      `${PACKAGE}: NAPI_RS_FORCE_WASI=error demands the WebAssembly build, and ${WASI_PACKAGE} ${wasiInstalled ? `is installed but did not load${why(WASI_PACKAGE)}` : 'is not installed.'}`,
      'Unset NAPI_RS_FORCE_WASI (or set it to 1: WebAssembly if it loads, else native) to use a native binary, or install the WebAssembly build:',
    )
  } else if (!expected.published) {
    lines.push(`${PACKAGE} has no prebuilt binary for ${where}: no platform package ${expected.packageName} is made. Use the WebAssembly build:`)
  } else if (nativeInstalled) {
    lines.push(`${PACKAGE} could not load its native binary for ${where} from ${expected.packageName}, which is installed${why(expected.packageName)}`)
  } else {
    lines.push(`${PACKAGE} could not find its native binary for ${where}: it expected the package ${expected.packageName}, which is not installed.`)
  }
  // The WebAssembly build is the way on: it is demanded, or no native binary is made for this machine.
  const wasiOnly = forceWasi || !expected.published
  if (copy === 'released') {
    if (!wasiOnly && !nativeInstalled) {
      lines.push(`It is an optionalDependency of ${PACKAGE}: reinstall without --omit=optional, on the machine (os, cpu, libc) that runs it.`)
    }
    lines.push(`${wasiOnly ? '' : 'Or install the WebAssembly build, slower but for any machine: '}npm install --force ${WASI_PACKAGE}@${PACKAGE_VERSION} (its package says cpu: wasm32).`)
    lines.push('To build from source: install Rust (https://rustup.rs), run `npm install` in a checkout of the package and install that checkout.')
  } else if (copy === 'checkout') {
    lines.push(
      wasiOnly
        ? 'This is a checkout: build it with `npm run build:all -- wasm32-wasip1-threads`, then copy the files that writes to npm/wasm32-wasi/ beside binding.cjs.'
        : `This is a checkout: build the binary with \`npm run build\` (it needs Rust: https://rustup.rs), which writes ${nodeFile}.`,
    )
  } else {
    lines.push(
      'This copy was installed from a tarball packed from a checkout, which holds no binary and names no platform packages:',
      `in the checkout, pack ${wasiOnly ? 'npm/wasm32-wasi after `npm run build:all -- wasm32-wasip1-threads`' : `npm/${expected.platform} with the ${nodeFile} that \`npm run build\` made`}`,
      'and install that tarball too (the README\'s "From packed tarballs"), or install the checkout itself.',
    )
  }
  if (!forceWasi) lines.push(`Or set NAPI_RS_NATIVE_LIBRARY_PATH to a built ${nodeFile}.`)
  lines.push("What the loader tried is in this error's cause.")
  const error = new Error(lines.join('\n'))
  error.code = 'ERR_REPEAT_TOOL_GUARD_NO_BINARY'
  error.cause = attemptsError(cause)
  return error
}

/**
 * One error listing what the generated loader tried, a line per attempt, without stack frames:
 * the loader nests one error per attempt, each with its stack and generic advice, some 50 lines.
 */
function attemptsError(cause) {
  const attempts = []
  for (let e = cause; e && attempts.length < 16; e = e.cause) {
    const line = String(e.message ?? e).split('\n')[0]
    if (!/^Cannot find native binding|^Failed to load native binding/.test(line)) attempts.push(`- ${line}`)
  }
  // The loader nests its attempts last first.
  attempts.reverse()
  const error = new Error(['The generated loader (binding.cjs) tried, in order:', ...(attempts.length > 0 ? attempts : [`- ${String(cause?.message ?? cause)}`])].join('\n'))
  error.stack = `Error: ${error.message}`
  return error
}

module.exports = { WASI_PACKAGE, copyKind, expectedBinary, missingBinaryError }
