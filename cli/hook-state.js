// The hook's state: one JSON file per session under a state directory, read and rewritten whole by
// each event (a new process per event). Hosts run matching hooks and parallel calls' events at once,
// so an event holds the session's lock file (created exclusively: Node has no flock) while it reads
// and writes; a lock left by a killed process is taken over once it is older than any event takes.
// A write goes to a temporary file renamed over the state, so a process killed mid-write leaves the
// state as it was: that one event is lost, never the session, and no half-written call is read.
// Bounded: an agent keeps its last MAX_CALLS calls since the last prompt, consecutive identical calls
// stored once with a count, and a session's file is cut to MAX_BYTES by dropping the oldest calls.
import { closeSync, existsSync, linkSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

/** The calls kept per agent: more than any detection looks back (windows go up to 64 calls). */
export const MAX_CALLS = 128
/** A session's state file stays under this many bytes, or one call's size when a call is larger. */
export const MAX_BYTES = 1024 * 1024
/** The call ids kept to tell an event seen twice (a hook configured at two levels). */
export const MAX_SEEN = 64
/** Sessions untouched this long are removed when a new session starts. */
export const MAX_AGE_MS = 7 * 24 * 3600 * 1000
/** A lock this old belongs to a process that died: an event takes milliseconds. */
const STALE_LOCK_MS = 5000
/** How long an event waits for a session's lock before it gives up (and counts nothing). */
const LOCK_WAIT_MS = 10000

/** The default state directory: the user's state home (XDG), on every system. */
export function defaultStateDir(env = process.env) {
  if (env.DSH_REPEAT_TOOL_GUARD_STATE) return env.DSH_REPEAT_TOOL_GUARD_STATE
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'dsh-repeat-tool-guard')
  return join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'dsh-repeat-tool-guard')
}

/** A file name for `host`'s `session`: the id itself when it is a plain name, else its code units in hexadecimal, or for a long one their hash. */
function fileName(host, session) {
  if (/^[\w.-]{1,100}$/.test(session)) return `${host}-${session}.json`
  const hex = Buffer.from(session, 'utf16le').toString('hex')
  return `${host}-x${hex.length <= 200 ? hex : `${fnv(session)}-${session.length}`}.json`
}

/** FNV-1a over the code units, 64 bits as hexadecimal: a name for an id too long to spell out (node:crypto would cost every event its load). */
function fnv(text) {
  let hash = 0xcbf29ce484222325n
  for (let i = 0; i < text.length; i++) hash = BigInt.asUintN(64, (hash ^ BigInt(text.charCodeAt(i))) * 0x100000001b3n)
  return hash.toString(16).padStart(16, '0')
}

/** A name no other process picks at once: the process's id and a random part. */
const unique = () => `${process.pid}-${Math.random().toString(36).slice(2, 10)}`

const pause = new Int32Array(new SharedArrayBuffer(4))
const sleep = (ms) => Atomics.wait(pause, 0, 0, ms)

/** A fresh session's state. */
const empty = () => ({ agents: {}, seen: [] })

export class SessionStore {
  /** `warn(line)` hears of a state file that had to be started over. */
  constructor(dir, warn) {
    this.dir = dir
    this.warn = warn
  }

  /**
   * `host`'s `session` as it stands, read without the lock (a write renames a whole file into
   * place, so a read never meets half of one): for an event that only reads it.
   */
  read(host, session) {
    return read(join(this.dir, fileName(host, session)), this.warn)[0]
  }

  /**
   * Runs `change(state, fresh)` on `host`'s `session` under its lock and writes the state back when
   * `change` returns true; `fresh` says the session had no state. Returns nothing: `change` keeps
   * what it needs.
   */
  update(host, session, change) {
    const path = join(this.dir, fileName(host, session))
    mkdirSync(this.dir, { recursive: true, mode: 0o700 })
    const unlock = lock(`${path}.lock`)
    try {
      const [state, fresh] = read(path, this.warn)
      if (!change(state, fresh)) return
      if (fresh) this.sweep()
      write(path, state)
    } finally {
      unlock()
    }
  }

  /** Whether `host`'s `session` has state. */
  has(host, session) {
    return existsSync(join(this.dir, fileName(host, session)))
  }

  /** Removes `host`'s `session` (its end). */
  remove(host, session) {
    rmSync(join(this.dir, fileName(host, session)), { force: true })
  }

  /** Removes sessions untouched for MAX_AGE_MS and what killed processes left behind. */
  sweep(now = Date.now()) {
    for (const name of readdirSync(this.dir)) {
      const path = join(this.dir, name)
      try {
        const age = now - statSync(path).mtimeMs
        const leftover = name.includes('.tmp-') || name.includes('.stale-') || name.endsWith('.lock')
        if (age > MAX_AGE_MS || (leftover && age > 3600 * 1000)) unlinkSync(path)
      } catch {
        // Removed by another event meanwhile.
      }
    }
  }
}

function read(path, warn) {
  let text
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if (error.code === 'ENOENT') return [empty(), true]
    throw error
  }
  let state
  try {
    state = JSON.parse(text)
  } catch {
    // Not written by the hook (renames leave no half-written state): the session starts over.
  }
  if (state === null || typeof state !== 'object' || state.agents === null || typeof state.agents !== 'object' || !Array.isArray(state.seen)) {
    warn(`${path} is not a session's state; the session is started over`)
    return [empty(), true]
  }
  return [state, false]
}

function write(path, state) {
  let text = JSON.stringify(state)
  // Over the bound: the oldest call of the agent with the most calls goes, until it fits.
  while (Buffer.byteLength(text) > MAX_BYTES) {
    const calls = Object.values(state.agents).map((agent) => agent.calls).sort((a, b) => b.length - a.length)[0]
    if (calls === undefined || calls.length <= 1) break
    calls.shift()
    text = JSON.stringify(state)
  }
  const temporary = `${path}.tmp-${unique()}`
  writeFileSync(temporary, text, { mode: 0o600 })
  renameSync(temporary, path)
}

/** Takes the lock file at `path`, waiting for another event's; returns the function that gives it back. */
function lock(path) {
  const token = unique()
  const deadline = Date.now() + LOCK_WAIT_MS
  for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
    try {
      const fd = openSync(path, 'wx', 0o600)
      writeFileSync(fd, token)
      closeSync(fd)
      return () => {
        // Only our own lock: one taken over as stale is another event's now.
        if (readIfThere(path) === token) rmSync(path, { force: true })
      }
    } catch (error) {
      if (error.code !== 'EEXIST') throw error
    }
    takeOverIfStale(path)
    if (Date.now() > deadline) throw new Error(`the session's lock ${path} stayed taken for ${LOCK_WAIT_MS / 1000} s`)
    sleep(wait)
  }
}

function readIfThere(path) {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

/** Removes the lock at `path` when a dead process left it: renamed first, so two events never both remove a live one. */
function takeOverIfStale(path) {
  let age
  try {
    age = Date.now() - statSync(path).mtimeMs
  } catch {
    return
  }
  if (age < STALE_LOCK_MS) return
  const taken = `${path}.stale-${unique()}`
  try {
    renameSync(path, taken)
  } catch {
    return
  }
  // Another event may have taken the lock over and locked it anew between our stat and rename:
  // a fresh lock goes back, unless a third has locked the path since.
  try {
    if (Date.now() - statSync(taken).mtimeMs < STALE_LOCK_MS) linkSync(taken, path)
  } catch {
    // Locked again, or gone already.
  }
  rmSync(taken, { force: true })
}
