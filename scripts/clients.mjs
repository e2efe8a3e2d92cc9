// The agent clients the host suites (__test__/hosts/) run for real, pinned here and nowhere else.
// Each is installed from the npm registry once into a cache outside the repository,
// ${DSH_CLIENTS_DIR:-${XDG_CACHE_HOME:-~/.cache}/dsh-repeat-tool-guard/clients}/<name>-<version>/,
// and reused while its installed version is the pinned one: the three weigh ~850 MB together,
// too much to fetch per run or to keep in node_modules.
// Usage: node scripts/clients.mjs   (installs all, prints each executable's path and size)
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)

export const CLIENTS = {
  'claude-code': { pkg: '@anthropic-ai/claude-code', version: '2.1.328', bin: 'claude' },
  codex: { pkg: '@openai/codex', version: '0.169.0', bin: 'codex' },
  gemini: { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
}

export function clientsDir() {
  if (process.env.DSH_CLIENTS_DIR) return process.env.DSH_CLIENTS_DIR
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache')
  return join(cache, 'dsh-repeat-tool-guard', 'clients')
}

function client(name) {
  if (!Object.hasOwn(CLIENTS, name)) throw new Error(`unknown client ${JSON.stringify(name)}: one of ${Object.keys(CLIENTS).join(', ')}`)
  return CLIENTS[name]
}

/** The install directory: the package's name without its scope, and the version. */
export function clientDir(name) {
  const { pkg, version } = client(name)
  return join(clientsDir(), `${pkg.split('/').pop()}-${version}`)
}

/** The version installed in `dir`, or undefined when there is none (or a broken one). */
async function installedVersion(dir, { pkg, bin }) {
  try {
    const manifest = JSON.parse(await readFile(join(dir, 'node_modules', pkg, 'package.json'), 'utf8'))
    return existsSync(join(dir, 'node_modules', '.bin', bin)) ? manifest.version : undefined
  } catch {
    return undefined
  }
}

/**
 * Installs into a fresh directory beside the final one and renames it into place: a rename is
 * atomic, so a process that installs at the same time either wins the rename or finds a complete
 * install there, never a half-written one (the loser's copy is removed).
 */
async function install(name) {
  const spec = client(name)
  const dir = clientDir(name)
  const temp = `${dir}.installing-${process.pid}-${Date.now()}`
  await mkdir(temp, { recursive: true })
  try {
    await writeFile(join(temp, 'package.json'), JSON.stringify({ private: true, dependencies: { [spec.pkg]: spec.version } }) + '\n')
    try {
      const { stdout, stderr } = await run('npm', ['install', '--no-audit', '--no-fund', '--save-exact'], { cwd: temp, maxBuffer: 64 << 20 })
      await writeFile(join(temp, 'install.log'), stdout + stderr)
    } catch (error) {
      throw new Error(`npm install ${spec.pkg}@${spec.version} in ${temp} failed:\n${error.stderr || error.message}`)
    }
    const version = await installedVersion(temp, spec)
    if (version !== spec.version) throw new Error(`npm installed ${spec.pkg} ${version ?? '(nothing)'}, not ${spec.version}`)
    // A stale install (another version, or broken) is moved aside first; ENOENT: another process did.
    if (existsSync(dir) && (await installedVersion(dir, spec)) !== spec.version) {
      const stale = `${dir}.stale-${process.pid}-${Date.now()}`
      await rename(dir, stale).catch((error) => { if (error.code !== 'ENOENT') throw error })
      await rm(stale, { recursive: true, force: true })
    }
    await rename(temp, dir).catch((error) => {
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error
    })
  } finally {
    await rm(temp, { recursive: true, force: true })
  }
  if ((await installedVersion(dir, spec)) !== spec.version) throw new Error(`${spec.pkg}@${spec.version} is not in ${dir} after installing it`)
}

// One install per client per process, however many tests ask at once.
const installing = new Map()

/** The path of the client's executable, installing it first when the cache does not hold the pinned version. */
export async function clientBin(name) {
  const spec = client(name)
  const dir = clientDir(name)
  if ((await installedVersion(dir, spec)) !== spec.version) {
    if (!installing.has(name)) installing.set(name, install(name).finally(() => installing.delete(name)))
    try {
      await installing.get(name)
    } catch (error) {
      throw new Error(`the ${name} client (${spec.pkg}@${spec.version}) could not be installed into ${dir}: ${error.message}`, { cause: error })
    }
  }
  return join(dir, 'node_modules', '.bin', spec.bin)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const name of Object.keys(CLIENTS)) {
    const bin = await clientBin(name)
    const { stdout } = await run('du', ['-sh', clientDir(name)])
    console.log(`${name}\t${CLIENTS[name].pkg}@${CLIENTS[name].version}\t${stdout.split('\t')[0]}\t${bin}`)
  }
}
