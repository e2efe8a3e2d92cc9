// docs/CANONICAL.md's tables, checked: for each row's value, canonicalize() here and the reference's
// canonical text, as the reference plugin itself computes it (its detailed reminder quotes it), give
// what the row says. A change of either side, or of the document, fails here.
import { readFileSync } from 'node:fs'
import test from 'ava'
import * as reference from '@deepseek-ai/dsh-repeat-tool-reminder'
import { canonicalize } from '../index.js'

const doc = readFileSync(new URL('../docs/CANONICAL.md', import.meta.url), 'utf8')

/** The rows of the table under the comment `marker`: each cell's code span, unquoted. */
function rows(marker) {
  const at = doc.indexOf(marker)
  if (at < 0) throw new Error(`docs/CANONICAL.md has no "${marker}"`)
  const lines = doc.slice(at).split('\n').slice(1)
  const table = lines.slice(2, lines.findIndex((line, i) => i > 1 && !line.startsWith('|')))
  return table.map((line) => line.slice(2, -2).split(' | ').map((cell) => {
    if (!/^`[^`]*`$/.test(cell)) throw new Error(`a cell that is not one code span: ${cell}`)
    return cell.slice(1, -1)
  }))
}

const valueOf = (source) => new Function(`return (${source})`)()
const firstLine = (error) => `${error.name}: ${String(error.message).split('\n')[0]}`

function here(source) {
  try {
    return canonicalize(valueOf(source))
  } catch (error) {
    return firstLine(error)
  }
}

/** The reference plugin on a stand-in context: its post-execute listener, thresholds [2, 3], no preview cap. */
function referenceListener() {
  const listeners = {}
  reference.apply({ on: (event, listener) => { listeners[event] = listener } }, { thresholds: [2, 3], include: [], exclude: [], argumentsPreviewChars: 1e9 })
  const agent = {}
  return async (args) => {
    const decision = await listeners['tools/post-execute']({ name: 't', agent, arguments: args }, { content: [], isError: false }, async () => ({ kind: 'accept' }))
    return decision.additionalContexts?.[0]?.content[0].text
  }
}

/** The reference's canonical text of the row's value: what its detailed reminder (the third call) quotes. */
async function referenceText(source) {
  const call = referenceListener()
  try {
    await call(valueOf(source))
    await call(valueOf(source))
  } catch (error) {
    return firstLine(error)
  }
  try {
    const detailed = await call(valueOf(source))
    return detailed.match(/\n- arguments: (.*)\nThe repeated calls/s)[1]
  } catch (error) {
    // Its text is undefined: the reminder reads its length.
    if (firstLine(error) === "TypeError: Cannot read properties of undefined (reading 'length')") return 'undefined'
    return firstLine(error)
  }
}

test('the rows where they differ: here and the reference give what the document says, and differ', async (t) => {
  const table = rows('<!-- rows checked by __test__/canonical-reference.spec.mjs: value | here | the reference -->')
  t.true(table.length >= 15, `${table.length} rows`)
  for (const [source, ours, theirs] of table) {
    t.is(here(source), ours, `here: ${source}`)
    t.is(await referenceText(source), theirs, `the reference: ${source}`)
    t.not(ours, theirs, source)
  }
})

test('the rows where they agree: both give what the document says', async (t) => {
  const table = rows('<!-- rows checked by __test__/canonical-reference.spec.mjs: value | both -->')
  t.true(table.length >= 13, `${table.length} rows`)
  for (const [source, both] of table) {
    t.is(here(source), both, `here: ${source}`)
    t.is(await referenceText(source), both, `the reference: ${source}`)
  }
})

test('where the reference\'s text is undefined, it keys all such calls alike, and apart from null; here each is an error', async (t) => {
  const none = ['undefined', '() => 1', "Symbol('s')", '{ toJSON() { return undefined } }']
  for (const source of none) {
    for (const next of none) {
      const call = referenceListener()
      t.is(await call(valueOf(source)), undefined)
      t.regex(await call(valueOf(next)) ?? '', /^You are repeating the exact same tool call/, `${source} then ${next}: one run of two`)
    }
    const call = referenceListener()
    await call(valueOf(source))
    t.is(await call(null), undefined, `${source} then null: two runs`)
    t.throws(() => canonicalize(valueOf(source)), { instanceOf: TypeError, message: /^repeat-tool-guard: arguments of type \w+ have no JSON form$/ })
  }
})

test('for parsed JSON text both give the same text', async (t) => {
  for (const text of ['{"b":{"d":[3,{"z":1,"y":2}],"c":null},"a":"x"}', '[1,-0,1e21,"\\u2028",{"10":1,"2":2,"":3}]', '"raw"', '{}']) {
    const source = `JSON.parse(${JSON.stringify(text)})`
    t.is(here(source), await referenceText(source), text)
  }
})

test('an own "__proto__" key of parsed JSON: part of the text here, lost by the reference', async (t) => {
  for (const [text, ours] of [['{"__proto__":1,"a":2}', '{"__proto__":1,"a":2}'], ['{"__proto__":{"x":1}}', '{"__proto__":{"x":1}}']]) {
    const source = `JSON.parse(${JSON.stringify(text)})`
    t.is(here(source), ours, text)
    t.is(await referenceText(source), text.startsWith('{"__proto__":1,') ? '{"a":2}' : '{}', text)
  }
})
