// A client's world for one test: a temp home, a project directory, the guard's state directory,
// and a bin directory first on PATH that holds `dsh-repeat-tool-guard`. Nothing of the machine's
// own home, config or API keys reaches the client: its environment is built from a short list.
import { spawn } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const GUARD_BIN = fileURLToPath(new URL('../../../cli/bin.js', import.meta.url))

/**
 * Makes the directories. With `tap`, `dsh-repeat-tool-guard` is a shell script that keeps each
 * hook's stdin, stdout, stderr and exit status (under `tap/`) and runs the command with them;
 * without, it is a symlink to cli/bin.js, as a global install would put it.
 */
export async function sandbox({ tap = false } = {}) {
  const root = await mkdtemp(join(tmpdir(), 'dsh-hosts-'))
  const box = { root, home: join(root, 'home'), project: join(root, 'project'), bin: join(root, 'bin'), state: join(root, 'state'), tap: tap ? join(root, 'tap') : undefined }
  for (const dir of [box.home, box.project, box.bin, box.state, join(root, 'tmp'), box.tap].filter(Boolean)) await mkdir(dir, { recursive: true })
  const command = join(box.bin, 'dsh-repeat-tool-guard')
  if (tap) {
    await writeFile(command, tapScript(box.tap))
    await chmod(command, 0o755)
  } else {
    await symlink(GUARD_BIN, command)
  }
  box.env = {
    PATH: `${box.bin}${delimiter}${process.env.PATH}`,
    HOME: box.home,
    TMPDIR: join(root, 'tmp'),
    LANG: 'C.UTF-8',
    SHELL: '/bin/bash',
    USER: process.env.USER ?? 'tester',
    DSH_REPEAT_TOOL_GUARD_STATE: box.state,
  }
  box.dispose = () => (process.env.KEEP_HOSTS_TEST ? undefined : rm(root, { recursive: true, force: true, maxRetries: 5 }))
  return box
}

// Runs the hook as the symlink would, keeping what passed. Each run takes the first free number
// (mkdir is atomic, so hooks started together still get one each): the numbers are the order
// in which the hooks started.
function tapScript(dir) {
  return `#!/bin/sh
# Records this hook run, then answers exactly as cli/bin.js does.
n=0
while ! mkdir "${dir}/$n" 2>/dev/null; do
  n=$((n + 1))
  [ "$n" -lt 100000 ] || { echo "tap: cannot write to ${dir}" >&2; exit 3; }
done
d="${dir}/$n"
cat > "$d/stdin"
"${GUARD_BIN}" "$@" < "$d/stdin" > "$d/stdout" 2> "$d/stderr"
rc=$?
cat "$d/stdout"
cat "$d/stderr" >&2
echo "$rc" > "$d/status"
exit "$rc"
`
}

/** The hook runs the tap kept, in the order they started: `{ name, stdin, stdout, stderr, status }` (status undefined: still running). */
export async function tapped(box) {
  if (!box.tap) return undefined
  const runs = []
  for (const name of (await readdir(box.tap)).sort((a, b) => a - b)) {
    const read = (file) => readFile(join(box.tap, name, file), 'utf8').catch(() => undefined)
    const raw = await read('stdin')
    let stdin = raw
    try {
      stdin = JSON.parse(raw)
    } catch {
      // kept as text: the test shows it
    }
    const status = await read('status')
    runs.push({ name, stdin, stdout: await read('stdout'), stderr: await read('stderr'), status: status === undefined ? undefined : Number(status) })
  }
  return runs
}

/**
 * Runs `bin` in its own process group and waits for it; past `timeoutMs` (a bound against a hang,
 * far beyond a normal run) the group is killed and `timedOut` says so.
 */
export function spawnClient(bin, args, { cwd, env, timeoutMs = 300_000 }) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    const timer = setTimeout(() => {
      timedOut = true
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }, timeoutMs)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer)
      resolve({ stdout, stderr, exitCode, signal, timedOut })
    })
  })
}

/** The most recently written `*.jsonl` file under `dir`, or undefined. */
export async function newestJsonl(dir) {
  let best
  const walk = async (at) => {
    let entries
    try {
      entries = await readdir(at, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      const path = join(at, entry.name)
      if (entry.isDirectory()) await walk(path)
      else if (entry.name.endsWith('.jsonl')) {
        const { mtimeMs } = await stat(path)
        if (!best || mtimeMs > best.mtimeMs) best = { path, mtimeMs }
      }
    }
  }
  await walk(dir)
  return best?.path
}

/** The lines of a text file (none when it does not exist): the scripted commands count their runs in one. */
export async function lines(path) {
  const text = await readFile(path, 'utf8').catch(() => '')
  return text.split('\n').filter(Boolean)
}
