// A module hook (registered by scripts/ava.mjs) that adds two guards to ava's TAP reporter, which
// scripts/test.sh reads:
// - ava 7 reports a timeout or a test file's process.exit() by handing the reporter a plain Error
//   where it expects a serialized one, and the reporter throws (`Cannot set properties of undefined
//   (setting 'name')`), so the tests still pending, the one that ran out among them, are never named.
//   ava 8 fixes this in dumpError but needs Node >= 22.20, and the addon suites also run on Node 20.
//   Here an Error is written as supertap writes any Error.
// - Any other error inside the reporter becomes a `not ok` line naming the test file, the test and
//   the failure's message, instead of ending the run or losing the failure.
// The guards are appended to the reporter module's source (its dumpError function and TapReporter
// class are bindings of its own scope). scripts/test.sh still fails a stage whose TAP stream ends
// without its plan line, or names fewer failures than it counts, for whatever else may go wrong.
const GUARDS = `
const dumpSerialized = dumpError;
dumpError = (error, sanitize) => (error instanceof Error ? error : dumpSerialized(error, sanitize));
const consumeUnguarded = TapReporter.prototype.consumeStateChange;
TapReporter.prototype.consumeStateChange = function (evt) {
  try {
    consumeUnguarded.call(this, evt);
  } catch (error) {
    const file = evt.testFile ? this.relativeFile(evt.testFile) : 'ava';
    const test = evt.title ? \` › \${evt.title}\` : '';
    const failure = evt.err ? \`; the failure: \${String(evt.err.message ?? evt.err.formattedError ?? '').split('\\\\n')[0]}\` : '';
    this.crashCount++;
    this.reportStream.write(\`not ok \${++this.i} - \${file}\${test}: the TAP reporter failed on a \${evt.type} event: \${String(error?.message ?? error).split('\\\\n')[0]}\${failure}\\\\n\`);
  }
};
`

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context)
  if (!url.endsWith('/ava/lib/reporters/tap.js')) return loaded
  return { ...loaded, source: `${loaded.source}\n${GUARDS}` }
}
