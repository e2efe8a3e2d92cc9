// What to tell a user when no native binary for their platform loads: which platform, which
// package was expected, how to install the WebAssembly build instead, and how to build from
// source. Used by native.cjs; tested on its own.
'use strict'

const { name: PACKAGE, napi } = require('../package.json')

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
    return require('node:fs').readFileSync('/usr/bin/ldd', 'utf8').includes('musl') ? 'musl' : 'gnu'
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

/** The error to throw when the generated loader failed with `cause`: a short message, the loader's attempts as its cause. */
function missingBinaryError(cause, expected = expectedBinary()) {
  const where = expected.machine
  let installed = false
  try {
    require.resolve(`${expected.packageName}/package.json`)
    installed = true
  } catch {
    // not installed
  }
  const what = !expected.published
    ? [`${PACKAGE} has no prebuilt binary for ${where}; its platform package would be ${expected.packageName}, which is not published.`]
    : installed
      ? [`${PACKAGE} could not load its native binary for ${where} from ${expected.packageName}, which is installed.`]
      : [
          `${PACKAGE} could not find its native binary for ${where}: it expected the package ${expected.packageName}, which is not installed.`,
          `It is an optionalDependency of ${PACKAGE}: reinstall without --omit=optional, on the machine (os, cpu, libc) that runs it.`,
        ]
  const error = new Error([
    ...what,
    `Or install the WebAssembly build, slower but for any machine: npm install --force ${WASI_PACKAGE} (its package says cpu: wasm32)`,
    'To build from source: install Rust (cargo, https://rustup.rs), run `npm install` in a checkout of the package, then install',
    `that checkout, or set NAPI_RS_NATIVE_LIBRARY_PATH to the ${napi.binaryName}.${expected.platform}.node it built (\`npm run build\`).`,
    "What the loader tried is in this error's cause.",
  ].join('\n'))
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

module.exports = { WASI_PACKAGE, expectedBinary, missingBinaryError }
