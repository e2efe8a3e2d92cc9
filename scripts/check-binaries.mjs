// Checks each native binary in npm/<platform>/ (or the .node and .wasm files named on the command
// line): the file format and architecture its platform needs, the exported napi entry point, and
// the libraries it needs at run time (only the C library and the OS's own; never a libnode). The
// WebAssembly build: a wasm32-wasip1-threads module importing only Node-API, emnapi, WASI and its
// shared memory, exporting napi_register_wasm_v1, with the loaders its package lists.
// ELF through `readelf` (and `file` where installed); Mach-O and PE load commands and import
// tables are read here, so the check also runs on macOS and Windows.
// Usage: node scripts/check-binaries.mjs [--require-all] [file.node ...]   Exit status 1 on a failure.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const { napi } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

// What each platform's binary must be.
const EXPECT = {
  'linux-x64-gnu': { format: 'ELF', arch: 'x86-64', libc: 'gnu' },
  'linux-x64-musl': { format: 'ELF', arch: 'x86-64', libc: 'musl' },
  'linux-arm64-gnu': { format: 'ELF', arch: 'aarch64', libc: 'gnu' },
  'linux-arm64-musl': { format: 'ELF', arch: 'aarch64', libc: 'musl' },
  // The oldest macOS each Node line this package supports runs on (Node 20: 10.15; arm64: 11.0).
  'darwin-x64': { format: 'Mach-O', arch: 'x86_64', macos: [10, 15] },
  'darwin-arm64': { format: 'Mach-O', arch: 'arm64', macos: [11, 0] },
  'win32-x64-msvc': { format: 'PE', arch: 'x64' },
  'win32-arm64-msvc': { format: 'PE', arch: 'arm64' },
  'win32-ia32-msvc': { format: 'PE32', arch: 'ia32' },
  'linux-arm-gnueabihf': { format: 'ELF32', arch: 'arm', libc: 'gnu', float: 'hard' },
  'linux-riscv64-gnu': { format: 'ELF', arch: 'riscv64', libc: 'gnu' },
  'linux-s390x-gnu': { format: 'ELF', arch: 's390x', libc: 'gnu' },
  'linux-ppc64-gnu': { format: 'ELF', arch: 'ppc64', libc: 'gnu', endian: 'little' },
  'android-arm64': { format: 'ELF', arch: 'aarch64', libc: 'bionic' },
  'freebsd-x64': { format: 'ELF', arch: 'x86-64', libc: 'freebsd' },
  // The WebAssembly build: checked by `wasm` below (a module, not a shared library).
  'wasm32-wasi': { format: 'wasm', arch: 'wasm32' },
}

// Libraries a binary may need. glibc's own split libraries; musl's single libc.so; macOS system
// libraries and frameworks; Windows system DLLs, the C runtime and node.exe (napi symbols).
const ALLOWED = {
  gnu: /^(libc\.so\.6|libm\.so\.6|libgcc_s\.so\.1|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|ld-linux-(x86-64|aarch64|armhf|riscv64-lp64d)\.so\.[123]|ld64\.so\.[12])$/,
  // Android's bionic (the NDK's libraries) and FreeBSD's base system.
  bionic: /^(libc\.so|libm\.so|libdl\.so|liblog\.so)$/,
  freebsd: /^(libc\.so\.7|libm\.so\.5|libthr\.so\.3|libgcc_s\.so\.1|libexecinfo\.so\.1|libutil\.so\.9|librt\.so\.1)$/,
  musl: /^(libc\.so|libgcc_s\.so\.1)$/,
  'Mach-O': /^(\/usr\/lib\/libSystem\.B\.dylib|\/usr\/lib\/libiconv\.2\.dylib|\/usr\/lib\/libcharset\.1\.dylib|\/usr\/lib\/libresolv\.9\.dylib|\/System\/Library\/Frameworks\/[A-Za-z]+\.framework\/.*)$/,
  PE: /^(kernel32|ntdll|advapi32|bcrypt|bcryptprimitives|userenv|ws2_32|ole32|oleaut32|shell32|synchronization|vcruntime140(_1)?|msvcp140|node|api-ms-win-[a-z0-9-]+)\.(dll|exe)$/i,
}

function has(tool) {
  try {
    execFileSync(tool, ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

// readelf's machine names, as EXPECT names the architectures.
const ELF_MACHINES = {
  'Advanced Micro Devices X86-64': 'x86-64',
  AArch64: 'aarch64',
  ARM: 'arm',
  'RISC-V': 'riscv64',
  'IBM S/390': 's390x',
  'PowerPC64': 'ppc64',
}

function elf(file) {
  const header = execFileSync('readelf', ['-h', '-W', file], { encoding: 'utf8' })
  const field = (name) => header.match(new RegExp(`^\\s*${name}:\\s*(.*)$`, 'm'))?.[1].trim()
  const machine = field('Machine')
  const dynamic = execFileSync('readelf', ['-d', '-W', file], { encoding: 'utf8' })
  const needed = [...dynamic.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1])
  const versions = execFileSync('readelf', ['-V', '-W', file], { encoding: 'utf8' })
  const glibc = [...new Set([...versions.matchAll(/Name: GLIBC_([0-9.]+)/g)].map((m) => m[1]))]
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
  const symbols = execFileSync('readelf', ['--dyn-syms', '-W', file], { encoding: 'utf8' })
  const flags = field('Flags') ?? ''
  return {
    format: header.includes('ELF64') ? 'ELF' : 'ELF32',
    kind: field('Type')?.split(' ')[0],
    arch: ELF_MACHINES[machine] ?? machine,
    endian: /little endian/.test(field('Data') ?? '') ? 'little' : 'big',
    float: /hard-float/.test(flags) ? 'hard' : /soft-float/.test(flags) ? 'soft' : undefined,
    needed,
    glibc: glibc.at(-1),
    exportsEntry: /\sGLOBAL\s+DEFAULT\s+(\[[^\]]*\]\s+)?\d+\s+napi_register_module_v1$/m.test(symbols),
  }
}

function macho(buffer) {
  if (buffer.readUInt32LE(0) !== 0xfeedfacf) return { format: 'unknown' }
  const cpu = buffer.readUInt32LE(4)
  const filetype = buffer.readUInt32LE(12)
  const ncmds = buffer.readUInt32LE(16)
  const needed = []
  let minimum
  let offset = 32
  for (let i = 0; i < ncmds; i++) {
    const cmd = buffer.readUInt32LE(offset)
    const size = buffer.readUInt32LE(offset + 4)
    // LC_LOAD_DYLIB, LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB: a dylib_command, name at an offset.
    if (cmd === 0xc || cmd === 0x80000018 || cmd === 0x8000001f) {
      const start = offset + buffer.readUInt32LE(offset + 8)
      needed.push(buffer.toString('latin1', start, buffer.indexOf(0, start)))
    }
    // LC_BUILD_VERSION (minos at +12) or LC_VERSION_MIN_MACOSX (version at +8): X.Y.Z as xxxx.yy.zz.
    if (cmd === 0x32 || cmd === 0x24) {
      const v = buffer.readUInt32LE(offset + (cmd === 0x32 ? 12 : 8))
      minimum = [v >>> 16, (v >>> 8) & 0xff]
    }
    offset += size
  }
  return {
    minimum,
    format: 'Mach-O',
    kind: filetype === 6 ? 'DYLIB' : filetype === 8 ? 'BUNDLE' : `filetype ${filetype}`,
    arch: cpu === 0x01000007 ? 'x86_64' : cpu === 0x0100000c ? 'arm64' : `cpu ${cpu.toString(16)}`,
    needed,
    exportsEntry: buffer.includes('_napi_register_module_v1'),
  }
}

function pe(buffer) {
  if (buffer.toString('latin1', 0, 2) !== 'MZ') return { format: 'unknown' }
  const peOffset = buffer.readUInt32LE(0x3c)
  if (buffer.toString('latin1', peOffset, peOffset + 4) !== 'PE\0\0') return { format: 'unknown' }
  const coff = peOffset + 4
  const machine = buffer.readUInt16LE(coff)
  const sections = buffer.readUInt16LE(coff + 2)
  const optionalSize = buffer.readUInt16LE(coff + 16)
  const characteristics = buffer.readUInt16LE(coff + 18)
  const optional = coff + 20
  const pe32plus = buffer.readUInt16LE(optional) === 0x20b
  const directories = optional + (pe32plus ? 112 : 96)
  const table = optional + optionalSize
  const fileOffset = (rva) => {
    for (let i = 0; i < sections; i++) {
      const s = table + i * 40
      const virtualSize = buffer.readUInt32LE(s + 8)
      const virtualAddress = buffer.readUInt32LE(s + 12)
      const rawOffset = buffer.readUInt32LE(s + 20)
      if (rva >= virtualAddress && rva < virtualAddress + Math.max(virtualSize, buffer.readUInt32LE(s + 16))) return rva - virtualAddress + rawOffset
    }
    return -1
  }
  const cString = (rva) => {
    const start = fileOffset(rva)
    return buffer.toString('latin1', start, buffer.indexOf(0, start))
  }
  const needed = []
  // Data directory 1: imports; 13: delay-load imports (descriptors of 20 and 32 bytes).
  for (const [index, size, nameAt] of [[1, 20, 12], [13, 32, 4]]) {
    const rva = buffer.readUInt32LE(directories + index * 8)
    if (!rva) continue
    for (let d = fileOffset(rva); d >= 0 && buffer.readUInt32LE(d + nameAt); d += size) needed.push(cString(buffer.readUInt32LE(d + nameAt)))
  }
  return {
    format: pe32plus ? 'PE' : 'PE32',
    kind: characteristics & 0x2000 ? 'DLL' : 'EXE',
    arch: machine === 0x8664 ? 'x64' : machine === 0xaa64 ? 'arm64' : machine === 0x14c ? 'ia32' : `machine ${machine.toString(16)}`,
    needed,
    exportsEntry: buffer.includes('napi_register_module_v1'),
  }
}

// What the WebAssembly build may import: Node-API and emnapi's additions (from the host, through
// emnapi), WASI preview 1 and wasi-threads' thread-spawn, and the shared memory the threads use.
const WASM_IMPORTS = {
  env: /^(napi_[a-z0-9_]+|node_api_[a-z0-9_]+|_?emnapi_[a-z0-9_]+|memory)$/,
  napi: /^(napi_[a-z0-9_]+)$/,
  emnapi: /^(emnapi_[a-z0-9_]+)$/,
  wasi_snapshot_preview1: /^[a-z_]+$/,
  wasi: /^thread-spawn$/,
}

function wasm(buffer) {
  const module = new WebAssembly.Module(buffer)
  const imports = WebAssembly.Module.imports(module)
  const exports = WebAssembly.Module.exports(module).map((entry) => entry.name)
  const memory = imports.find((entry) => entry.kind === 'memory')
  return {
    format: 'wasm',
    kind: 'module',
    arch: 'wasm32',
    needed: [...new Set(imports.map((entry) => entry.module))],
    unexpectedImports: imports.filter((entry) => !WASM_IMPORTS[entry.module]?.test(entry.name)).map((entry) => `${entry.module}.${entry.name}`),
    importsMemory: memory !== undefined,
    threads: imports.some((entry) => entry.module === 'wasi' && entry.name === 'thread-spawn') && exports.includes('wasi_thread_start'),
    exportsEntry: exports.includes('napi_register_wasm_v1'),
  }
}

function inspect(file) {
  const buffer = readFileSync(file)
  if (buffer.toString('latin1', 0, 4) === '\0asm') return wasm(buffer)
  if (buffer.toString('latin1', 1, 4) === 'ELF') {
    if (!has('readelf')) return { format: 'ELF', error: 'readelf is not installed' }
    return elf(file)
  }
  if (buffer.readUInt32LE(0) === 0xfeedfacf) return macho(buffer)
  return pe(buffer)
}

function check(platform, file) {
  const expect = EXPECT[platform]
  const info = inspect(file)
  const problems = []
  if (info.error) problems.push(info.error)
  if (!expect) problems.push(`no expectations for platform ${platform}`)
  else {
    if (info.format !== expect.format) problems.push(`format ${info.format}, expected ${expect.format}`)
    if (info.arch !== expect.arch) problems.push(`architecture ${info.arch}, expected ${expect.arch}`)
    const shared = { ELF: 'DYN', ELF32: 'DYN', 'Mach-O': ['DYLIB', 'BUNDLE'], PE: 'DLL', PE32: 'DLL', wasm: 'module' }[expect.format]
    if (info.kind !== undefined && ![shared].flat().includes(info.kind)) problems.push(`${info.kind}, not a shared library`)
    if (expect.format === 'wasm') {
      // Its package's other files: the loaders napi generated beside the module.
      const manifest = join(dirname(file), 'package.json')
      if (existsSync(manifest)) {
        const missing = JSON.parse(readFileSync(manifest, 'utf8')).files.filter((name) => !existsSync(join(dirname(file), name)))
        if (missing.length) problems.push(`its package lacks ${missing.join(', ')}`)
      }
      if (info.unexpectedImports.length) problems.push(`unexpected imports: ${info.unexpectedImports.join(', ')}`)
      if (!info.importsMemory) problems.push('does not import its memory (the loader shares one memory with the threads)')
      if (!info.threads) problems.push('not a wasm32-wasip1-threads module (no wasi thread-spawn import and wasi_thread_start export)')
    } else {
      const allowed = ALLOWED[expect.libc ?? expect.format.replace(/32$/, '')]
      const unexpected = (info.needed ?? []).filter((lib) => !allowed.test(lib))
      if (unexpected.length) problems.push(`needs unexpected libraries: ${unexpected.join(', ')}`)
    }
    if (expect.endian && info.endian !== expect.endian) problems.push(`${info.endian} endian, expected ${expect.endian}`)
    if (expect.float && info.float !== expect.float) problems.push(`${info.float ?? 'unknown'} float ABI, expected ${expect.float}`)
    // FreeBSD's lld leaves OS/ABI at System V: its C library's soname tells it apart.
    if (expect.libc === 'freebsd' && !(info.needed ?? []).includes('libc.so.7')) problems.push("does not need FreeBSD's libc.so.7")
    if (expect.libc === 'bionic' && !(info.needed ?? []).includes('libc.so')) problems.push("does not need bionic's libc.so")
    if (expect.libc === 'gnu' && !(info.needed ?? []).includes('libc.so.6')) problems.push('does not need glibc (libc.so.6)')
    if (expect.libc === 'musl' && !(info.needed ?? []).includes('libc.so')) problems.push("does not need musl's libc.so")
    if (expect.libc === 'musl' && info.glibc) problems.push(`needs glibc symbol versions (GLIBC_${info.glibc})`)
    if (!info.exportsEntry) problems.push(`${expect.format === 'wasm' ? 'napi_register_wasm_v1' : 'napi_register_module_v1'} not exported`)
    if (expect.macos && (!info.minimum || info.minimum[0] * 100 + info.minimum[1] > expect.macos[0] * 100 + expect.macos[1])) {
      problems.push(`needs macOS ${info.minimum?.join('.') ?? '(unknown)'}, newer than ${expect.macos.join('.')} (set MACOSX_DEPLOYMENT_TARGET)`)
    }
  }
  let description = ''
  if (has('file')) description = execFileSync('file', ['-b', file], { encoding: 'utf8' }).trim()
  const size = `${(statSync(file).size / 1024).toFixed(0)} KiB`
  console.log(`${problems.length ? 'FAIL' : 'ok  '} ${platform}: ${basename(file)} (${size})`)
  console.log(`     ${info.format} ${info.kind ?? ''} ${info.arch}; needs ${(info.needed ?? []).join(', ') || 'nothing'}${info.glibc ? `; newest glibc symbol version GLIBC_${info.glibc}` : ''}${info.minimum ? `; minimum macOS ${info.minimum.join('.')}` : ''}`)
  if (description) console.log(`     file: ${description}`)
  for (const problem of problems) console.log(`     problem: ${problem}`)
  return problems.length === 0
}

const args = process.argv.slice(2)
const requireAll = args.includes('--require-all')
const files = args.filter((arg) => arg !== '--require-all')
let ok = true
let checked = 0
if (files.length) {
  for (const file of files) {
    const platform = basename(file).split('.').at(-2)
    ok = check(platform, file) && ok
    checked++
  }
} else {
  for (const platform of readdirSync(join(root, 'npm')).sort()) {
    const file = join(root, 'npm', platform, `${napi.binaryName}.${platform}.${platform.startsWith('wasm32-') ? 'wasm' : 'node'}`)
    if (existsSync(file)) {
      ok = check(platform, file) && ok
      checked++
    } else {
      console.log(`${requireAll ? 'FAIL' : '-   '} ${platform}: no binary in npm/${platform}/`)
      if (requireAll) ok = false
    }
  }
}
console.log(`${checked} binaries checked${ok ? ', all as expected' : ', with problems'}`)
process.exit(ok ? 0 : 1)
