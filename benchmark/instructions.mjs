// Instructions per call of the native hot path alone (one ~100 B call's encoding observed over and
// over through __observeEncoded), for counting under valgrind: the difference between two call
// counts, divided, leaves out start-up. `benchmark/instructions.sh [dir]` prints it for this tree
// or for another built checkout. Not part of npm run bench (valgrind is slow).
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { SMALL } from './cases.mjs'
const [dir, calls] = [process.argv[2], Number(process.argv[3])]
const { encode, encoded } = await import(pathToFileURL(`${dir}/encode.js`).href)
const binding = createRequire(`${dir}/`)('./native.cjs')
const guard = new binding.RepeatToolGuard({})
encode(JSON.parse(JSON.stringify(SMALL)), 'agent-1', 'grep', guard.__handle())
for (let i = 0; i < calls; i++) binding.__observeEncoded(encoded.memory, encoded.pieces)
