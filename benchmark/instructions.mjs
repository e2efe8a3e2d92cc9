// Instructions per call, for counting under valgrind: the difference between two call counts,
// divided, leaves out start-up. `benchmark/instructions.sh [dir]` prints it for this tree or for
// another built checkout; `instructions.sh --budget [dir]` prints a new ~100 B call's budget, stage
// by stage, beside the reference's. Not part of npm run bench (valgrind is slow).
//
// Run as `node instructions.mjs <dir> <calls> [stage]`. The stages, each over fresh frozen copies of
// the ~100 B arguments whose `limit` counts up (each call new), unless said otherwise:
// - native (the default): the native hot path alone, one ~100 B call's encoding observed over and
//   over as the plugin observes it, through __observeEncoded (in a checkout that had it,
//   __observeMemory, from the binding's call memory, unless INSTRUCTIONS_PATH=encoded).
//   INSTRUCTIONS_CALLS=new makes each call new, encoded each time: the same as `observe`.
// - floor: a listener that only calls next(), called as bench.mjs calls it;
// - read: a bare walk that reads every key and value as lib/encode.js does, and writes nothing;
// - walk: lib/encode.js's walk alone;
// - observe: the walk and the native call;
// - listener: the plugin's tools/post-execute listener, as bench.mjs calls it;
// - reference: the reference's listener, the same way;
// - listener-mixed, reference-mixed: each listener first given 2,000 new ~10 KB calls, as bench.mjs
//   gives them before its new ~100 B ones: V8 has then compiled the walk for both sizes.
// INSTRUCTIONS_CONFIG (JSON) configures the guard.
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { SMALL, nested, readOnly } from './cases.mjs'
import { deepFreeze } from '../__test__/support/listeners.mjs'

const [dir, calls, stage = process.env.INSTRUCTIONS_CALLS === 'new' ? 'observe' : 'native'] = [
  process.argv[2], Number(process.argv[3]), process.argv[4]]
// Checkouts from before lib/ keep the glue at their root.
const glue = existsSync(`${dir}/lib/encode.js`) ? `${dir}/lib` : dir
const walk = await import(pathToFileURL(`${glue}/encode.js`).href)
// `encoded` in checkouts from before the name `transport`.
const { encode, useMemory, release, transport = walk.encoded } = walk
const binding = createRequire(`${glue}/`)('./native.cjs')
const inMemory = useMemory !== undefined && binding.__callMemory !== undefined && process.env.INSTRUCTIONS_PATH !== 'encoded'
if (inMemory) useMemory(binding.__callMemory)
const config = JSON.parse(process.env.INSTRUCTIONS_CONFIG ?? '{}')
const guard = new binding.RepeatToolGuard(config)
const handle = guard.__handle()
const observe = () => (inMemory ? binding.__observeMemory() : binding.__observeEncoded(transport.buffer))

/** A tools/post-execute listener of the plugin at `url`, installed as bench.mjs installs it. */
async function listenerOf(url) {
  const { listenersOf } = await import(new URL('../__test__/support/listeners.mjs', import.meta.url))
  return listenersOf(await import(url), config)['tools/post-execute']
}

/** `calls` listener calls, awaited, as bench.mjs makes them. */
async function through(listener, copies) {
  const downstream = { kind: 'accept' }
  const next = () => Promise.resolve(downstream)
  const agent = { id: 'agent-1' }
  for (let i = 0; i < calls; i++) await listener({ name: 'grep', agent, arguments: copies[i % copies.length] }, {}, next)
}

/**
 * `through`, after 2,000 new ~10 KB calls through the same listener. Those have a loop of their
 * own: a count passed to `through` changed what V8 made of it, and the other stages' counts with
 * it (the floor's 844 became 966).
 */
async function afterLargeCalls(listener, copies) {
  const json = JSON.stringify(nested(10_000))
  const large = Array.from({ length: 64 }, (_, i) => deepFreeze({ ...JSON.parse(json), query: `search ${i}` }))
  const next = () => Promise.resolve({ kind: 'accept' })
  const agent = { id: 'agent-1' }
  for (let i = 0; i < 2000; i++) await listener({ name: 'grep', agent, arguments: large[i % 64] }, {}, next)
  await through(listener, copies)
}

if (stage === 'native') {
  encode(JSON.parse(JSON.stringify(SMALL)), 'agent-1', 'grep', handle)
  for (let i = 0; i < calls; i++) observe()
} else {
  // Each call new: 512 distinct frozen copies taken in turn, in cache as a stuck or busy agent's are.
  const copies = Array.from({ length: 512 }, (_, i) => Object.freeze({ ...SMALL, flags: Object.freeze([...SMALL.flags]), limit: i }))
  let sink = 0
  switch (stage) {
    case 'floor': await through((_exec, _result, next) => next(), copies); break
    case 'read': for (let i = 0; i < calls; i++) sink += readOnly(copies[i % 512]); break
    case 'walk': for (let i = 0; i < calls; i++) { encode(copies[i % 512], 'agent-1', 'grep', handle); release?.() } break
    case 'observe': for (let i = 0; i < calls; i++) { encode(copies[i % 512], 'agent-1', 'grep', handle); observe(); release?.() } break
    case 'listener': await through(await listenerOf(pathToFileURL(`${dir}/index.js`).href), copies); break
    case 'reference': await through(await listenerOf('@deepseek-ai/dsh-repeat-tool-reminder'), copies); break
    case 'listener-mixed': await afterLargeCalls(await listenerOf(pathToFileURL(`${dir}/index.js`).href), copies); break
    case 'reference-mixed': await afterLargeCalls(await listenerOf('@deepseek-ai/dsh-repeat-tool-reminder'), copies); break
    default: throw new Error(`unknown stage ${stage}`)
  }
  if (sink < 0) console.log('(a value the read refused)')
}
