// ava's command line with two guards on its TAP reporter, which scripts/test.sh reads:
// - ava 7 reports a timeout or a test file's process.exit() by handing the reporter a plain Error
//   where it expects a serialized one, and the reporter throws (`Cannot set properties of undefined
//   (setting 'name')`), so the tests still pending, the one that ran out among them, are never named.
//   ava 8 fixes this in dumpError but needs Node >= 22.20, and the addon suites also run on Node 20.
//   Here an Error is written as supertap writes any Error.
// - Any other error inside the reporter becomes a `not ok` line naming the test file and the event,
//   instead of ending the run without a word.
// The fixes are applied to the reporter's source as the module loads. Where the text they replace is
// not found (another ava), the reporter loads unchanged, and scripts/test.sh still counts a stage
// whose TAP stream ends without its plan line, or with fewer failures named than counted, as failed.
// Usage: node scripts/ava.mjs <ava's arguments>
import { register } from 'node:module'

const hook = `
const FIXES = [
  ['function dumpError({', 'function dumpError(error, sanitize) {\\n\\tif (error instanceof Error) return error;\\n\\treturn dumpSerialized(error, sanitize);\\n}\\n\\nfunction dumpSerialized({'],
  ['\\tconsumeStateChange(evt) {', '\\tconsumeStateChange(evt) {\\n\\t\\ttry {\\n\\t\\t\\tthis.consumeStateChangeUnguarded(evt);\\n\\t\\t} catch (error) {\\n\\t\\t\\tconst file = evt.testFile ? this.relativeFile(evt.testFile) : \\'ava\\';\\n\\t\\t\\tthis.crashCount++;\\n\\t\\t\\tthis.reportStream.write(\\'not ok \\' + ++this.i + \\' - \\' + file + \\': the TAP reporter failed on a \\' + evt.type + \\' event: \\' + String(error?.message ?? error).split(\\'\\\\n\\')[0] + \\'\\\\n\\');\\n\\t\\t}\\n\\t}\\n\\n\\tconsumeStateChangeUnguarded(evt) {'],
]
export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context)
  if (!url.endsWith('/ava/lib/reporters/tap.js')) return loaded
  let source = String(loaded.source)
  for (const [from, to] of FIXES) if (source.includes(from)) source = source.replace(from, to)
  return { ...loaded, source }
}
`
register(`data:text/javascript,${encodeURIComponent(hook)}`)
await import(new URL('../node_modules/ava/entrypoints/cli.mjs', import.meta.url).href)
