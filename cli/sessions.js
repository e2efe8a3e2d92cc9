// Finds the inputs (harness session logs and files of trajectories) and loads the harness's own
// session packages for reading its logs: cli/formats/harness.js decodes records with them, and a
// log in an older shape is read whole through the JSONL backend, which upgrades it as a resume
// does. The backend's layout: <root>/<project>/<encoded session id>/session.jsonl[.zstd].
import { readdir, realpath, stat } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'

import { importPeer } from './peers.js'

const NAMES = { 'session.jsonl.zstd': 'zstd', 'session.jsonl': 'none' }
/** The files a directory is searched for: JSON Lines, raw or compressed, harness logs among them (JSON documents are read when named). */
const INPUT = /\.jsonl(\.gz|\.zstd?)?$/

/** An input the command cannot read: reported as `replay: <message>`, the other inputs go on. */
export class InputError extends Error {}

/**
 * The inputs under `paths` (a file is taken whatever its name; directories are searched
 * recursively for *.jsonl files, raw, .gz, .zst or .zstd), sorted, each `{ path, bytes }`.
 * Throws an InputError for a path that does not exist.
 */
export async function findLogs(paths) {
  const found = []
  for (const path of paths) {
    // Standard input, read as a file would be.
    if (path === '-') {
      found.push({ path: '-', bytes: 0 })
      continue
    }
    let info
    try {
      info = await stat(path)
    } catch (error) {
      throw new InputError(error.code === 'ENOENT' ? `no such file or directory: ${path}` : `cannot read ${path}: ${error.message}`)
    }
    if (info.isDirectory()) {
      try {
        await walk(resolve(path), found)
      } catch (error) {
        throw new InputError(`cannot read ${error.path ?? path}: ${error.message}`)
      }
    } else {
      found.push({ path: resolve(path), bytes: info.size })
    }
  }
  // One file reached by two paths (a link) is read once.
  const unique = new Map()
  for (const log of found) {
    const real = log.path === '-' ? '-' : await realpath(log.path).catch(() => log.path)
    if (!unique.has(real)) unique.set(real, log)
  }
  return [...unique.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

async function walk(dir, found, seen = new Set()) {
  // A link back to a directory already walked is walked once.
  const real = await realpath(dir)
  if (seen.has(real)) return
  seen.add(real)
  const entries = await readdir(dir, { withFileTypes: true })
  for (const entry of entries) {
    const path = join(dir, entry.name)
    // A symbolic link is taken as what it points at.
    const info = entry.isSymbolicLink() ? await stat(path).catch(() => undefined) : entry
    if (info?.isDirectory()) await walk(path, found, seen)
    else if (info?.isFile() && INPUT.test(entry.name)) found.push({ path, bytes: (await stat(path)).size })
  }
}

/** The session id a session directory's name encodes (the backend's escape: `~XXXX` per code unit). */
export function decodeSegment(segment) {
  if (!/^(?:[A-Za-z0-9._-]|~[0-9A-F]{4})+$/.test(segment)) return undefined
  return segment.replace(/~([0-9A-F]{4})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)))
}

/**
 * The harness's session packages, imported on first use, so that nothing of the harness loads
 * until a harness log is read (cordis is the plugin's own peer; the session packages are the
 * command's, see peers.js): `sessionModule()` for the streaming reader, and `read(path)` for a
 * log in an older shape, through one JSONL backend per root and encoding, each in a cordis
 * context of its own (a context holds one persistence service) with only the session store it needs.
 */
export class SessionReader {
  #harness
  #backends = new Map()

  #load() {
    this.#harness ??= Promise.all([
      import('@deepseek-ai/cordis'),
      importPeer('@deepseek-ai/dsh-session'),
      importPeer('@deepseek-ai/dsh-session-persistence-jsonl'),
    ])
    return this.#harness
  }

  #backend(root, compression) {
    const key = `${compression}\0${root}`
    let backend = this.#backends.get(key)
    if (!backend) {
      backend = (async () => {
        const [{ Context }, { default: SessionStore }, { default: Jsonl }] = await this.#load()
        const ctx = new Context()
        await ctx.plugin(SessionStore)
        // One prepared session retained at most: replay reads each log once.
        return new Jsonl(ctx, { root, compression, preparedSessionCacheSize: 1 })
      })()
      this.#backends.set(key, backend)
    }
    return backend
  }

  /** The harness's @deepseek-ai/dsh-session module (its record decoder and event vocabulary). */
  async sessionModule() {
    const [, session] = await this.#load()
    return session
  }

  /**
   * `{ meta, events }` of the log at `path`, read whole through the backend's non-mutating inspect: the
   * committed events upgraded from older shapes as a resume upgrades them, plus in memory the
   * closers a crash repair would add (the replay skips their results, which never reached
   * post-execute). The file is left as it is.
   */
  async read(path) {
    const sessionDir = dirname(path)
    const id = decodeSegment(basename(sessionDir))
    if (id === undefined || !Object.hasOwn(NAMES, basename(path))) throw new InputError(`${path}: a log in an older shape, which is read (and upgraded) in the harness's layout only: <root>/<project>/<session id>/session.jsonl[.zstd]`)
    const root = dirname(dirname(sessionDir))
    const backend = await this.#backend(root, NAMES[basename(path)])
    try {
      return await backend.inspect(id)
    } catch (error) {
      throw new InputError(describe(path, error))
    }
  }
}

/** The backend's error as `<file>:<line>: <reason>` when it names an event line, else `<file>: <reason>`. */
function describe(path, error) {
  const message = String(error?.message ?? error)
  // The backend counts event lines after the header line; a file's lines count the header too.
  const line = /^(.*?) at line (\d+)(.*)$/.exec(message)
  if (line) return `${path}:${Number(line[2]) + 1}: ${line[1]}${line[3]}`
  return `${path}: ${message}`
}
