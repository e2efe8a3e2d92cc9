// The examples of calls in the docs, read from the markdown files themselves, so that an example cannot
// drift from what is tested. `__test__/examples.spec.mjs` runs each through RepeatToolGuard and
// `__test__/harness/examples.spec.mjs` through the real rc.8 loop. An example is a fenced block whose
// info string is `text calls`: its first line the config, then one line per call, run of identical
// calls or event:
//
//   config: { similar: {} }              the config, a YAML mapping (`# …` a comment); or
//   config: the YAML above               the last ```yaml block before it, read as `replay --config` reads a
//                                        file (a cordis.yml's entry, or the config itself)
//   1      grep {"q":"x"}                call 1: the tool, then its arguments as JSON
//   2–4    grep {"q":"x"}  → gentle: grep × 3
//                                        calls 2 to 4, all alike; the last brings the reminder after `→`
//                                        (tier: the summary the model sees), the others none
//   5      poll {"id":7}  returns "done" the tool's text result (the default: "ok")
//   6      grep {"q":"y"}  similarity 0.88
//                                        its similarity to the call before, to two decimals
//   (user prompt)                        a user prompt opens the next turn
//   (restart …)                          the process stops; the session is resumed in a new one and a
//                                        plugin's follow-up opens the next turn
//
// A block whose info string is `text reminder <n>` is the full text of the reminder at call <n> of
// the nearest example above it. Every other line is a mistake in the example, reported by its test.
import { readFileSync, readdirSync } from 'node:fs'
import { configOf } from '../../cli/config-file.js'

const ROOT = new URL('../../', import.meta.url)

/** The markdown files that may hold examples: the top level's and docs/. */
export const DOC_FILES = [
  ...readdirSync(ROOT).filter((name) => name.endsWith('.md')),
  ...readdirSync(new URL('docs/', ROOT)).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`),
]

const CALL = /^(\d+)(?:[–-](\d+))?\s+(\S+)\s+(.*?)(?:\s+returns\s+("(?:[^"\\]|\\.)*"))?(?:\s+similarity\s+(\d\.\d\d))?(?:\s+→\s+(\w+):\s+(.+?))?$/
/** A reminder's source summary by tier (index.js's summaryOf); the tiers not named use `×`. */
const SUMMARY = {
  gentle: /^(?<tool>\S+) × (?<count>\d+)$/,
  similar: /^(?<tool>\S+) ≈ (?<count>\d+)$/,
  noProgress: /^(?<tool>\S+) ⟳ (?<count>\d+)$/,
  failure: /^(?<tool>\S+) ✗ (?<count>\d+)$/,
  stop: /^(?<tool>\S+) × (?<count>\d+): turn ended$/,
  cycle: /^\((?<tools>.+)\) × (?<count>\d+)$/,
}

/** The tool result a call line gives: its text, or `ok`. */
export function resultOf(step) {
  return { content: [{ type: 'text', text: step.returns ?? 'ok' }], isError: false }
}

/** Every example of every doc file: `{ where, config, steps, reminders, texts, error }`. */
export async function readExamples() {
  const examples = []
  for (const file of DOC_FILES) examples.push(...await examplesOf(file, blocksIn(file)))
  return examples
}

/** The fenced blocks of a doc file (a path from the repository's root): `{ info, line, heading, body }`. */
export function blocksIn(file) {
  const blocks = []
  let heading = ''
  let open = null
  readFileSync(new URL(file, ROOT), 'utf8').split('\n').forEach((text, index) => {
    const fence = /^```(.*)$/.exec(text)
    if (open) {
      if (text === '```') {
        blocks.push(open)
        open = null
      } else {
        open.body.push(text)
      }
    } else if (fence) {
      open = { info: fence[1].trim(), line: index + 1, heading, body: [] }
    } else if (text.startsWith('#')) {
      heading = text.replace(/^#+\s*/, '')
    }
  })
  return blocks
}

async function examplesOf(file, blocks) {
  const examples = []
  let yaml = null
  for (const block of blocks) {
    const where = `${file}, ${block.heading}, line ${block.line}`
    if (block.info === 'yaml') yaml = block
    const text = /^text reminder (\d+)$/.exec(block.info)
    if (text) {
      const example = examples.at(-1)
      if (example) example.texts.push({ call: Number(text[1]), text: block.body.join('\n'), where })
      else examples.push({ where, error: 'a reminder block with no example above it' })
    }
    if (block.info !== 'text calls') continue
    const example = { where, config: null, steps: [], reminders: [], texts: [], error: null }
    examples.push(example)
    try {
      example.config = await configLine(block.body[0] ?? '', yaml, file)
      readSteps(example, block.body.slice(1))
    } catch (error) {
      example.error = error.message
    }
  }
  return examples
}

async function configLine(line, yaml, file) {
  const value = /^config:\s*(.*)$/.exec(line)?.[1]
  if (value === undefined) throw new Error(`the first line must be the config, got ${JSON.stringify(line)}`)
  if (!/^the YAML above(\s+#.*)?$/.test(value)) return configOf(value, `${file} (config line)`)
  if (!yaml) throw new Error('`config: the YAML above` with no ```yaml block above')
  return configOf(yaml.body.join('\n'), `${file}, line ${yaml.line}`)
}

function readSteps(example, lines) {
  let next = 1
  for (const [index, line] of lines.entries()) {
    const at = `line ${index + 2} of the block (${JSON.stringify(line)})`
    if (/^\(user prompt\)$/.test(line)) {
      example.steps.push({ kind: 'prompt' })
      continue
    }
    if (/^\(restart\b.*\)$/.test(line)) {
      example.steps.push({ kind: 'restart' })
      continue
    }
    const match = CALL.exec(line)
    if (!match) throw new Error(`${at}: not a call, a run of calls, (user prompt) or (restart …)`)
    const [, from, to = from, tool, args, returns, similarity, tier, summary] = match
    if (Number(from) !== next || Number(to) < Number(from)) throw new Error(`${at}: calls are numbered from 1 on, this line should start at ${next}`)
    let parsed
    try {
      parsed = JSON.parse(args)
    } catch (error) {
      throw new Error(`${at}: the arguments are not JSON: ${error.message}`)
    }
    const step = { kind: 'calls', from: Number(from), to: Number(to), tool, args: parsed }
    if (returns !== undefined) step.returns = JSON.parse(returns)
    if (similarity !== undefined) {
      const before = example.steps.at(-1)
      if (from !== to || before?.kind !== 'calls') throw new Error(`${at}: a similarity belongs to a single call after another`)
      step.similarity = { to: before, score: Number(similarity) }
    }
    if (tier) example.reminders.push(expected(at, step, tier, summary))
    example.steps.push(step)
    next = step.to + 1
  }
}

/** The reminder a line gives, with the tool (or a cycle's tools) and count its summary names. */
function expected(at, step, tier, summary) {
  const form = (SUMMARY[tier] ?? SUMMARY.gentle).exec(summary)
  if (!form) throw new Error(`${at}: ${JSON.stringify(summary)} is no summary of a ${tier} reminder`)
  const { tool, tools, count } = form.groups
  return { call: step.to, tier, summary, count: Number(count), ...(tools ? { tools: tools.split(', ') } : { tool }) }
}
