// The heaviest robustness checks: a million levels of nesting, and, each in a child process of its
// own (robustness/heavy.mjs) to measure RSS cleanly, a 64 MB string, an object of 1,000,000 keys,
// a million agents. They check bounds of the Rust core (no recursion, memory given back) that are
// the same code on every build and Node, so npm test runs this file once, on the native build and
// the Node that runs npm (docs/TESTING.md); robustness.spec.mjs's 100,000 levels run everywhere.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import test from 'ava'
import { RepeatToolGuard } from '../index.js'

/** Runs `robustness/heavy.mjs CASE` in its own Node process and returns what it printed. */
function heavy(which) {
  const script = fileURLToPath(new URL('./robustness/heavy.mjs', import.meta.url))
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', script, which], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk) => { out += chunk })
    child.stderr.on('data', (chunk) => { err += chunk })
    child.on('error', reject)
    child.on('close', (code, signal) => {
      if (code === 0) resolve(JSON.parse(out))
      else reject(new Error(`heavy.mjs ${which} exited with ${code ?? signal}: ${err.slice(-2000)}`))
    })
  })
}

test('heavy: a 64 MB string is byte-identical to V8\'s and counted, as a value and as raw text (own process)', async (t) => {
  const got = await heavy('string64')
  t.log(`64 MB string: ${got.ms} ms`)
  t.is(got.length, 64 * 1024 * 1024)
  t.true(got.identical, 'canonicalize({ s }) equals V8\'s text of the sorted copy')
  t.true(got.rawIdentical, 'canonicalize(s) equals JSON.stringify(s)')
  t.deepEqual(got.reminders, [null, null, [3, 'gentle']])
})

test('heavy: an object of 1,000,000 keys is byte-identical to V8\'s and counted (own process)', async (t) => {
  const got = await heavy('keys1m')
  t.log(`1,000,000 keys: ${got.ms} ms`)
  t.is(got.keys, 1_000_000)
  t.true(got.identical)
  t.deepEqual(got.reminders, [null, [2, 'gentle']])
})

test('heavy: a million agents observed and disposed leave agentCount at 0 and RSS flat; dropped guards free theirs (own process)', async (t) => {
  const got = await heavy('agents1m')
  t.log(`1,000,000 agents twice: ${got.ms} ms; RSS ${got.rounds.map((r) => r.rss.toFixed(1)).join(' → ')} MB; 20,000 guards: ${got.guardsGrowth.toFixed(1)} MB`)
  for (const round of got.rounds) {
    t.is(round.peak, 1_000_000)
    t.is(round.after, 0)
    t.is(round.reminders, 10_000)
  }
  t.true(got.agentsGrowth < 32, `RSS grew ${got.agentsGrowth.toFixed(1)} MB over the second million agents`)
  t.true(got.guardsGrowth < 32, `RSS grew ${got.guardsGrowth.toFixed(1)} MB over 20,000 dropped guards`)
})

test('a million levels from JSON.parse are counted without a crash', (t) => {
  const depth = 1_000_000
  const text = `${'['.repeat(depth)}${']'.repeat(depth)}`
  const guard = new RepeatToolGuard({ thresholds: [2] })
  t.deepEqual([0, 1].map(() => guard.observe('a', 'deep', JSON.parse(text))).map((r) => (r ? [r.count, r.tier] : null)), [null, [2, 'gentle']])
})
