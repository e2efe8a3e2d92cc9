// The replay command's options (node's util.parseArgs); its config files are read by config-file.js.
import { createRequire } from 'node:module'
import { parseArgs } from 'node:util'

import { ConfigFileError, loadConfig as loadConfigFile } from './config-file.js'
import { FORMATS } from './formats/index.js'

const { version } = createRequire(import.meta.url)('../package.json')

/** The command's options: parseArgs' declarations, with the value's name and the help's line for each. */
const OPTIONS = {
  config: { type: 'string', value: '<file>', text: "The guard's config: a cordis.yml with a repeat-tool-guard entry, or a YAML/JSON file holding the config object (default: the plugin's defaults)" },
  thresholds: { type: 'string', value: '<list>', text: "Thresholds, e.g. 3,5,8 (replaces the config's)" },
  compare: { type: 'string', value: '<file>', text: 'A second config, replayed over the same runs; shows the reminders it adds (+) and removes (-) per session' },
  format: { type: 'string', value: '<format>', text: `Read every input as one of ${FORMATS.join(', ')} (default: recognised per file)` },
  'outcome-field': { type: 'string', value: '<name>', default: 'outcome', text: 'The trajectories\' field that says how a run ended; sessions are grouped by it (default: outcome)' },
  json: { type: 'boolean', text: 'The report as JSON on stdout (no progress on stderr)' },
  html: { type: 'string', value: '<file>', text: 'Also write a self-contained HTML report to <file>' },
  version: { type: 'boolean', short: 'v', text: "The package's version" },
  help: { type: 'boolean', short: 'h', text: 'This help' },
}

/** The exit codes, each with what it means (the help lists them). */
export const EXIT = {
  ok: [0, 'every input was replayed'],
  input: [1, 'some input could not be read (named on stderr); the others were replayed'],
  usage: [2, 'usage error: a bad option, or a config the guard rejects'],
  missing: [3, 'a package the command needs is not installed (named, with the npm install command)'],
  output: [4, 'the HTML report cannot be written (checked before anything is read)'],
  internal: [70, 'an internal error: a bug (its stack on stderr; please report it)'],
}

/** `text` in lines of at most `width` characters, the first after `head`, the others indented as far. */
function wrap(head, text, width = 80) {
  const lines = []
  let line = head
  for (const word of text.split(' ')) {
    if (line.length + 1 + word.length > width && line.trim() !== '' && line.length > head.length) {
      lines.push(line)
      line = ' '.repeat(head.length) + word
    } else {
      line += (line.length > head.length ? ' ' : '') + word
    }
  }
  return [...lines, line].join('\n')
}

const optionHelp = Object.entries(OPTIONS).map(([name, option]) => {
  const flag = `${option.short ? `-${option.short}, ` : ''}--${name}${option.value ? ` ${option.value}` : ''}`
  return wrap(`  ${flag.padEnd(24)}`, option.text)
})

export const HELP = `Usage: dsh-repeat-tool-guard replay <file or directory or ->... [options]
       dsh-repeat-tool-guard hook [options] < event.json   (see hook --help)

Replays agent runs through the guard and reports where its reminders would
fire and how long runs of identical calls get: the harness's session logs
(session.jsonl.zstd or session.jsonl), the transcripts of Claude Code
(~/.claude/projects), Codex (~/.codex/sessions) and Gemini CLI
(~/.gemini/tmp/*/chats), a run per agent, and other agents' trajectories in the
OpenAI chat or the Anthropic Messages format (JSON Lines of {"messages": [...]},
or one JSON document), raw or gzip-compressed. Directories are searched for
*.jsonl files (also .gz, .zst, .zstd); a JSON document is read when named;
- reads standard input.

Options:
${optionHelp.join('\n')}

Exit codes:
${Object.values(EXIT).map(([code, text]) => wrap(`  ${String(code).padEnd(3)}`, text)).join('\n')}
`

export const VERSION = `${version}\n`

/** A mistake in how the command was called: reported with a pointer to --help, exit code 2. */
export class UsageError extends Error {}

/** parseArgs' declarations of the options. */
const DECLARED = Object.fromEntries(Object.entries(OPTIONS).map(([name, { type, short, default: value }]) => [name, { type, ...(short ? { short } : {}), ...(value === undefined ? {} : { default: value }) }]))

/**
 * The parsed command line: `{ help }` or `{ inputs, configs, format?, outcomeField, json, html? }`,
 * `configs` one or (under --compare) two `{ label, config }`.
 */
export async function parseCommand(argv) {
  let parsed
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: DECLARED })
  } catch (error) {
    throw new UsageError(error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? unknownOption(error.message) : error.message)
  }
  const { values, positionals } = parsed
  if (values.help) return { help: true }
  if (values.version) return { version: true }
  const [command, ...inputs] = positionals
  if (command === undefined) throw new UsageError('no command given (the command is replay)')
  if (command !== 'replay') throw new UsageError(`unknown command ${JSON.stringify(command)} (the command is replay)`)
  if (inputs.length === 0) throw new UsageError('no inputs given: name files or directories')
  if (values.format !== undefined && !FORMATS.includes(values.format)) throw new UsageError(`--format ${JSON.stringify(values.format)}: expected one of ${FORMATS.join(', ')}`)
  const config = values.config === undefined ? {} : await loadConfig(values.config)
  if (values.thresholds !== undefined) config.thresholds = parseThresholds(values.thresholds)
  const configs = [{ label: configLabel(values), config }]
  if (values.compare !== undefined) configs.push({ label: values.compare, config: await loadConfig(values.compare) })
  return { inputs, configs, format: values.format, outcomeField: values['outcome-field'], json: values.json === true, html: values.html }
}

/** The message for an unknown option (parseArgs names it in `message`), with the option meant when one is near. */
function unknownOption(message) {
  const given = /'([^']*)'/.exec(message)?.[1] ?? ''
  const name = given.replace(/^-+/, '').split('=')[0].toLowerCase()
  const names = Object.keys(OPTIONS)
  const near = names
    .map((option) => ({ option, distance: option.startsWith(name) && name.length >= 2 ? 0 : editDistance(name, option) }))
    .filter(({ option, distance }) => distance <= Math.max(1, Math.floor(option.length / 4)))
    .sort((a, b) => a.distance - b.distance)[0]
  if (near) return `unknown option ${given} (did you mean --${near.option}?)`
  return `unknown option ${given} (the options are ${names.map((option) => `--${option}`).join(', ')})`
}

/** Levenshtein distance: the single-character insertions, deletions and substitutions between `a` and `b`. */
function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    previous = row
  }
  return previous[b.length]
}

function configLabel(values) {
  const parts = []
  if (values.config !== undefined) parts.push(values.config)
  if (values.thresholds !== undefined) parts.push(`--thresholds ${values.thresholds}`)
  return parts.length ? parts.join(', ') : 'defaults'
}

/** `3,5,8` as numbers; the guard itself judges them (integers >= 2, no duplicates). */
function parseThresholds(text) {
  const items = text.split(',').map((item) => item.trim())
  if (items.some((item) => !/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(item))) {
    throw new UsageError(`--thresholds ${JSON.stringify(text)}: expected numbers separated by commas, such as 3,5,8`)
  }
  return items.map(Number)
}

/** The config in the file at `path`, its errors as usage errors (exit code 2). */
async function loadConfig(path) {
  try {
    return await loadConfigFile(path)
  } catch (error) {
    throw error instanceof ConfigFileError ? new UsageError(error.message) : error
  }
}
