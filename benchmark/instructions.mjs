// Instructions per call of the native hot path alone (one ~100 B call's encoding observed over and
// over as the plugin observes it: through __observeMemory, from the binding's call memory, or in a
// checkout from before it through __observeEncoded; INSTRUCTIONS_PATH=encoded picks the second in
// any), for counting under valgrind: the difference between two call counts, divided, leaves out
// start-up. `benchmark/instructions.sh [dir]` prints it for this tree or for another built
// checkout. INSTRUCTIONS_CALLS=new makes each call new (encoded each time), INSTRUCTIONS_CONFIG
// (JSON) configures the guard. Not part of npm run bench (valgrind is slow).
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { SMALL } from './cases.mjs'
const [dir, calls] = [process.argv[2], Number(process.argv[3])]
// Checkouts from before lib/ keep the glue at their root.
const glue = existsSync(`${dir}/lib/encode.js`) ? `${dir}/lib` : dir
const { encode, encoded, useMemory, release } = await import(pathToFileURL(`${glue}/encode.js`).href)
const binding = createRequire(`${glue}/`)('./native.cjs')
const inMemory = useMemory !== undefined && process.env.INSTRUCTIONS_PATH !== 'encoded'
if (inMemory) useMemory(binding.__callMemory)
const guard = new binding.RepeatToolGuard(JSON.parse(process.env.INSTRUCTIONS_CONFIG ?? '{}'))
const observe = () => (inMemory ? binding.__observeMemory() : binding.__observeEncoded(encoded.memory, encoded.pieces, encoded.widePieces))
if (process.env.INSTRUCTIONS_CALLS === 'new') {
  // Each call new (its `limit` counts up), encoded and observed as the plugin does: the JavaScript
  // walk is in the count too, the same in any two builds compared.
  const args = Array.from({ length: calls }, (_, i) => Object.freeze({ ...SMALL, limit: i }))
  for (const value of args) {
    encode(value, 'agent-1', 'grep', guard.__handle())
    observe()
    release?.()
  }
} else {
  encode(JSON.parse(JSON.stringify(SMALL)), 'agent-1', 'grep', guard.__handle())
  for (let i = 0; i < calls; i++) observe()
}
