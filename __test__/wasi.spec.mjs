// Which build the loader chose (lib/native.cjs): the native binary, or the WebAssembly (WASI)
// build when NAPI_RS_FORCE_WASI asks for it, so a forced run cannot pass on the native binary.
// And what native.cjs does for the WASI build: strings the addon makes keep every UTF-16 code unit
// (emnapi's own decoder would replace lone surrogates and drop a leading U+FEFF). Part of the addon
// suites; `npm run test:wasi` runs every suite with NAPI_RS_FORCE_WASI=1.
import { createRequire } from 'node:module'
import test from 'ava'
import * as plugin from '../index.js'
import { listenersOf } from './support/listeners.mjs'
import { nativeGuard } from './support/native.mjs'

const binding = createRequire(import.meta.url)('../lib/native.cjs')
const forced = process.env.NAPI_RS_FORCE_WASI

test('the build the loader chose is the one NAPI_RS_FORCE_WASI asks for, and the variable is left as it was', (t) => {
  t.is(binding.__napiBindingTarget, ['1', 'true', 'error'].includes(forced) ? 'wasm32-wasi' : 'native')
  t.is(process.env.NAPI_RS_FORCE_WASI, forced)
  // The global TextDecoder is the standard one again after the load.
  // (U+D800 then 'a', as little-endian bytes whatever the machine's byte order.)
  t.is(new TextDecoder('utf-16le').decode(new Uint8Array([0x00, 0xd8, 0x61, 0x00])), '\uFFFDa')
})

test('texts the addon makes keep lone surrogates and a leading U+FEFF, short or long', (t) => {
  for (const tool of ['\uFEFF' + 'x'.repeat(40), 'x\uD800', 'y'.repeat(40) + '\uDC00' + 'z'.repeat(40), '\uD83D', '\uFEFF'.repeat(3)]) {
    const guard = nativeGuard({ thresholds: [2, 3], cycles: { maxPeriod: 2, repeats: 2 } })
    for (let i = 0; i < 2; i++) guard.observe('a', tool, { q: 1 })
    const detailed = guard.observe('a', tool, { q: 1 })
    t.true(detailed.text.includes(`- tool: ${tool}\n`), JSON.stringify(tool))
    // A cycle's tools array, string by string.
    const cycles = nativeGuard({ thresholds: [9], cycles: { maxPeriod: 2, repeats: 2 } })
    let reminder
    for (const name of [tool, 'other', tool, 'other']) reminder = cycles.observe('b', name, {}) ?? reminder
    t.deepEqual(reminder?.tools, [tool, 'other'], JSON.stringify(tool))
  }
})

test('the plugin delivers the same reminders on the build the loader chose', async (t) => {
  const listener = listenersOf(plugin, { thresholds: [3, 5] })['tools/post-execute']
  const agent = { id: 'chosen-build' }
  const delivered = []
  for (let i = 0; i < 5; i++) {
    const decision = await listener({ name: 'grep', agent, arguments: { pattern: 'TODO', path: 'src' } }, {}, () => Promise.resolve({ kind: 'accept' }))
    delivered.push(decision.additionalContexts?.length ?? 0)
    if (i === 4) t.true(JSON.stringify(decision).includes('- tool: grep\\n- consecutive_calls: 5\\n- arguments: {\\"path\\":\\"src\\",\\"pattern\\":\\"TODO\\"}'), JSON.stringify(decision))
  }
  t.deepEqual(delivered, [0, 0, 1, 0, 1])
})
