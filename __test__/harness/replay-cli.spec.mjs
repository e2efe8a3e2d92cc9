// The replay command as people use it: --help, its options and their errors (a mistyped option
// answered with the one meant), exit codes, config files (a cordis.yml entry or a bare config),
// progress on stderr (a bar on a TTY, plain lines otherwise, nothing under --json), --compare and
// its legend, an --html path that cannot be written, and a malformed record named by file and line.
// The logs are recorded once with the real deepseek-harness 0.1.0-rc.8 loop. Node >= 22.19.
import test from 'ava'
import { execFile, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { main, EXIT } from '../../cli/main.js'
import { blocksIn } from '../support/examples.mjs'
import { record } from '../support/recorded.mjs'

const BIN = fileURLToPath(new URL('../../cli/bin.js', import.meta.url))
const CORDIS_YML = fileURLToPath(new URL('fixtures/cordis.yml', import.meta.url))

// Node's own warnings, not the command's: the WASI build (NAPI_RS_FORCE_WASI=1) makes Node print an
// ExperimentalWarning when it loads.
const NODE_WARNING = /^\(node:\d+\) \w*Warning: .*\n(?:\(Use `node --trace-warnings \.\.\.` .*\n)?/gm

/** Runs the command in a child process: `{ code, stdout, stderr }`, stderr without Node's own warnings. */
function command(args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? error.code : 0, stdout, stderr: stderr.replace(NODE_WARNING, '') })
    })
  })
}

/** Runs `main` in this process with a stderr that says it is a TTY when `tty`; `now` is the progress bar's clock. */
async function inProcess(args, { tty = false, now } = {}) {
  let stdout = ''
  let stderr = ''
  const code = await main(args, {
    stdout: { write: (text) => { stdout += text } },
    stderr: { isTTY: tty, write: (text) => { stderr += text } },
    now,
  })
  return { code, stdout, stderr }
}

let dir
let logs
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-cli-'))
  logs = join(dir, 'logs')
  await record(logs, {}, { compression: 'none' })
})
test.after.always(() => rm(dir, { recursive: true, force: true }))

test('--help prints the usage, options and exit codes', async (t) => {
  const { code, stdout, stderr } = await command(['--help'])
  t.is(code, 0)
  t.is(stderr, '')
  for (const text of ['Usage: dsh-repeat-tool-guard replay', '--config', '--thresholds', '--compare', '--json', '--html', 'Exit codes:']) t.true(stdout.includes(text), text)
})

test('usage errors exit 2 with a pointer to --help', async (t) => {
  for (const args of [['replay'], ['replay', logs, '--bogus'], ['frobnicate', logs], [], ['replay', logs, '--thresholds', 'three']]) {
    const { code, stdout, stderr } = await command(args)
    t.is(code, EXIT.usage, args.join(' '))
    t.is(stdout, '')
    t.regex(stderr, /^replay: .+\nRun dsh-repeat-tool-guard --help for the options\.\n$/, args.join(' '))
  }
})

test('a mistyped option is answered with the option meant', async (t) => {
  const help = 'Run dsh-repeat-tool-guard --help for the options.\n'
  for (const [given, meant] of [['--thresold', '--thresholds'], ['--jsn', '--json'], ['--outcome-feild', '--outcome-field'], ['--comp', '--compare'], ['--HTML', '--html']]) {
    const { code, stdout, stderr } = await command(['replay', logs, given, 'x'])
    t.is(code, EXIT.usage, given)
    t.is(stdout, '')
    t.is(stderr, `replay: unknown option ${given} (did you mean ${meant}?)\n${help}`)
  }
  const far = await command(['replay', logs, '--frobnicate'])
  t.is(far.stderr, `replay: unknown option --frobnicate (the options are --config, --thresholds, --compare, --format, --outcome-field, --json, --html, --version, --help)\n${help}`)
})

test('--html to a path that cannot be written is refused before anything is read, with its own exit code', async (t) => {
  const missing = join(dir, 'no-such-dir')
  for (const [path, why] of [[join(missing, 'r.html'), `no such directory: ${missing}`], [dir, 'it is a directory'], [join(CORDIS_YML, 'r.html'), `${CORDIS_YML} is not a directory`]]) {
    const { code, stdout, stderr } = await command(['replay', logs, '--html', path])
    t.is(code, EXIT.output, path)
    t.is(stdout, '', 'nothing was replayed')
    t.is(stderr, `replay: cannot write the HTML report to ${path}: ${why}\n`)
  }
})

test('a config the guard rejects exits 2 with the plugin\'s own message', async (t) => {
  const { code, stderr } = await command(['replay', logs, '--thresholds', '1,5'])
  t.is(code, EXIT.usage)
  t.is(stderr, 'replay: --thresholds 1,5: repeat-tool-guard: invalid threshold 1 — every threshold must be an integer >= 2\n')
  const bad = join(dir, 'bad.yml')
  await writeFile(bad, 'thresholds: []\n')
  const rejected = await command(['replay', logs, '--compare', bad])
  t.is(rejected.code, EXIT.usage)
  t.regex(rejected.stderr, new RegExp(`^replay: ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: repeat-tool-guard: `))
})

test('a missing input is named and the other inputs are still replayed (exit 1)', async (t) => {
  const missing = join(dir, 'nope')
  const { code, stdout, stderr } = await command(['replay', missing, logs])
  t.is(code, EXIT.input)
  t.true(stderr.startsWith(`replay: no such file or directory: ${missing}\n`))
  t.regex(stdout, /Totals \(defaults\): 5 sessions/)
})

test('a malformed committed record is named by file and line', async (t) => {
  const broken = join(dir, 'broken')
  await cp(logs, broken, { recursive: true })
  const file = join(broken, '_no-cwd', 'cycler', 'session.jsonl')
  const lines = (await readFile(file, 'utf8')).split('\n')
  lines[9] = '{"seq": 9, "type": "tool/ca'
  await writeFile(file, lines.join('\n'))
  const { code, stdout, stderr } = await command(['replay', broken])
  t.is(code, EXIT.input)
  t.is(stderr.split('\n').find((line) => line.includes('cycler')), `replay: ${file}:10: corrupt session log: unparsable committed event`)
  t.regex(stdout, /Totals \(defaults\): 4 sessions/, 'the other sessions are reported')
})

test('logs under several roots and both encodings are replayed in one run', async (t) => {
  const zstd = join(dir, 'zstd')
  await record(zstd, {}, { compression: 'zstd' })
  const { code, stdout } = await command(['replay', logs, join(zstd, '_no-cwd', 'cycler', 'session.jsonl.zstd'), '--json'])
  t.is(code, 0)
  const report = JSON.parse(stdout)
  t.deepEqual(report.errors, [])
  const cyclers = report.sessions.filter((s) => s.id === 'cycler')
  t.deepEqual(cyclers.map((s) => s.file.endsWith('.zstd')).sort(), [false, true])
  t.deepEqual(cyclers[0].reminders, cyclers[1].reminders, 'the same script gives the same reminders in either encoding')
})

test('a cordis.yml entry and a bare config file give the same config', async (t) => {
  const bare = join(dir, 'bare.json')
  await writeFile(bare, JSON.stringify({ thresholds: [3, 5, 8], include: [], exclude: ['todo_write'], argumentsPreviewChars: 500 }))
  const fromYml = JSON.parse((await command(['replay', logs, '--config', CORDIS_YML, '--json'])).stdout)
  const fromBare = JSON.parse((await command(['replay', logs, '--config', bare, '--json'])).stdout)
  t.deepEqual(fromYml.configs[0].config, fromBare.configs[0].config)
  t.deepEqual(fromYml.sessions, fromBare.sessions)
  const none = join(dir, 'none.yml')
  await writeFile(none, '- name: some-other-plugin\n  config: {}\n')
  const { code, stderr } = await command(['replay', logs, '--config', none])
  t.is(code, EXIT.usage)
  t.regex(stderr, /a plugin list without a repeat-tool-guard entry/)
})

test('an unknown config key is warned about, as the plugin does', async (t) => {
  const typo = join(dir, 'typo.yml')
  await writeFile(typo, 'thresholdz: [2]\n')
  const { code, stderr } = await command(['replay', logs, '--config', typo])
  t.is(code, 0)
  t.regex(stderr, /^replay: warning: .*typo\.yml: unknown config key "thresholdz" is ignored/)
})

test('progress: plain lines when stderr is no TTY, a bar on a TTY, nothing under --json; the torn log is warned about', async (t) => {
  const torn = `replay: warning: ${join(logs, '_no-cwd', 'looper', 'session.jsonl')}: its last record is incomplete (a write cut short?); the replay ends at its last complete event, seq 218\n`
  // A clock that stands still: the plain progress prints its last line only; one a second a call: the bar redraws at every step.
  const plain = await inProcess(['replay', logs], { now: () => 0 })
  t.is(plain.stderr.replace(/replay: 5\/5 logs, [\d.]+\/[\d.]+ MB\n$/, ''), torn)
  let time = 0
  const tty = await inProcess(['replay', logs], { tty: true, now: () => (time += 1000) })
  const ESC = '\x1b'
  const frames = tty.stderr.split(`\r${ESC}[K${torn}`)
  t.is(frames.length, 2, 'the bar is cleared for the warning')
  for (const part of frames) t.regex(part, new RegExp(`^(\\r\\[[#.]{30}\\] \\d/5 logs, [\\d.]+/[\\d.]+ MB${ESC}\\[K)*(\\r${ESC}\\[K)?$`))
  for (const done of [1, 2, 3, 4, 5]) t.true(tty.stderr.includes(`] ${done}/5 logs, `), `the bar at log ${done}`)
  t.regex(tty.stderr, new RegExp(`\\] 5/5 logs, [\\d.]+/[\\d.]+ MB${ESC}\\[K\\r${ESC}\\[K$`), 'the bar ends full, then is cleared')
  const json = await command(['replay', logs, '--json'])
  t.is(json.stderr, '')
  const report = JSON.parse(json.stdout)
  t.is(report.sessions.length, 5)
  t.deepEqual(report.warnings, [{ message: torn.slice('replay: warning: '.length, -1) }], 'under --json the warning is in the report')
})

test('the text report lists each session\'s reminders, the run lengths and the totals', async (t) => {
  const { stdout } = await inProcess(['replay', logs])
  t.regex(stdout, /^child-1 {2}\S+child-1\/session\.jsonl {2}\(71 events, 5 calls, subagent of parent\)\n {2}seq {2}step {2}tool {2}tier {6}count {2}reminder\n {3}34 {2}1\.3 {3}grep {2}gentle {8}3 {2}You are repeating/)
  t.regex(stdout, /resumed .*\n.*\n +\d+ +2:2\.\d+ +probe +gentle +3 /, 'a resumed lifecycle is marked')
  t.regex(stdout, /Runs of identical consecutive calls \(defaults: thresholds 3, 5, 8\)\n {2}tool +calls +runs +max +>=3 +>=5 +>=8\n/)
  t.regex(stdout, /\n {2}grep +17 +8 +6 +2 +2 +0\n/)
  t.regex(stdout, /Totals \(defaults\): 5 sessions, 57 calls, 11 reminders \(8 gentle, 3 detailed, 0 cycle, 0 similar, 0 noProgress, 0 failure, 0 stop\)\n$/)
})

test('docs/REPLAY.md\'s sample of the text report is lines of the real one, in order', async (t) => {
  const [sample] = blocksIn('docs/REPLAY.md').filter((block) => block.heading === 'Reports' && block.info === 'text')
  t.truthy(sample, 'docs/REPLAY.md shows the text report')
  // The sample replays a directory named sessions.
  const lines = (await inProcess(['replay', logs])).stdout.replaceAll(`${logs}/`, 'sessions/').split('\n')
  let at = 0
  for (const line of sample.body.filter((text) => text !== '')) {
    const found = lines.indexOf(line, at)
    t.true(found >= 0, `not in the report, after line ${at}: ${line}`)
    at = found + 1
  }
})

test('--compare shows, per session, the reminders the second config adds and removes', async (t) => {
  const other = join(dir, 'other.yml')
  await writeFile(other, 'thresholds: [4]\n')
  const { stdout } = await inProcess(['replay', logs, '--compare', other])
  t.true(stdout.startsWith(`+ a reminder ${other} adds, - one it removes (against defaults)\n\n`), 'a legend says what + and - mean')
  const parent = stdout.slice(stdout.indexOf('parent  '))
  t.regex(parent, /^parent .*\n {2}defaults: 2 reminders; {2}.*other\.yml: 0 reminders\n/)
  t.regex(parent, /\n {2}- +34 +1\.3 +read +gentle +3 /)
  const json = JSON.parse((await inProcess(['replay', logs, '--compare', other, '--json'])).stdout)
  for (const session of json.sessions) {
    const key = (r) => `${r.lifecycle}|${r.seq}|${r.tier}|${r.count}`
    const [a, b] = session.reminders.map((list) => list.map(key))
    t.deepEqual(session.added.map(key), b.filter((k) => !a.includes(k)))
    t.deepEqual(session.removed.map(key), a.filter((k) => !b.includes(k)))
  }
  t.true(json.sessions.some((s) => s.added.length > 0) && json.sessions.some((s) => s.removed.length > 0))
})

test('as Node users expect: --version, - for standard input, links in a directory read once, a closed stdout ends quietly, an internal error its own code', async (t) => {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
  const bin = fileURLToPath(new URL('../../cli/bin.js', import.meta.url))
  t.is(spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' }).stdout, `${version}\n`)
  const dir = mkdtempSync(join(tmpdir(), 'replay-cli-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const call = { role: 'assistant', tool_calls: [{ id: '1', type: 'function', function: { name: 'grep', arguments: '{"q":1}' } }] }
  const line = `${JSON.stringify({ messages: [call, { role: 'tool', tool_call_id: '1', content: 'x' }, call, { role: 'tool', tool_call_id: '1', content: 'x' }, call, { role: 'tool', tool_call_id: '1', content: 'x' }] })}\n`
  mkdirSync(join(dir, 'real'))
  mkdirSync(join(dir, 'links'))
  writeFileSync(join(dir, 'real', 'a.jsonl'), line.repeat(2000))
  symlinkSync(join(dir, 'real', 'a.jsonl'), join(dir, 'links', 'a.jsonl'))
  symlinkSync(dir, join(dir, 'links', 'loop'))
  const linked = JSON.parse(spawnSync(process.execPath, [bin, 'replay', join(dir, 'links'), '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout)
  t.is(linked.sessions.length, 2000, 'the linked file, read once through two paths')
  const piped = spawnSync(process.execPath, [bin, 'replay', '-', '--json'], { input: line, encoding: 'utf8' })
  t.is(piped.status, 0, piped.stderr)
  t.is(JSON.parse(piped.stdout).sessions[0].reminders[0].length, 1, 'the gentle reminder at the third call, from stdin')
  for (const mode of [['--json'], []]) {
    const closed = spawnSync('sh', ['-c', `"${process.execPath}" "${bin}" replay "${join(dir, 'real')}" ${mode.join(' ')} 2>"${join(dir, 'err')}" | head -c 10 >/dev/null; echo $?`], { encoding: 'utf8' })
    t.is(readFileSync(join(dir, 'err'), 'utf8').replace(/^replay: \d+\/\d+ logs.*\n/gm, ''), '', `no stack trace when stdout closes early (${mode.join(' ') || 'text'})`)
    t.is(closed.status, 0)
  }
  // A failure of the command itself (here, a stdout that throws) is exit code 70 with its stack.
  let err = ''
  const code = await main(['replay', join(dir, 'real')], { stdout: { write() { throw new Error('boom') } }, stderr: { write: (text) => (err += text) } })
  t.is(code, EXIT.internal)
  t.is(EXIT.internal, 70)
  t.regex(err, /^replay: internal error: Error: boom\n\s+at /m)
})
