// Heavy robustness checks, each run by __test__/robustness.spec.mjs in a process of its own
// (`node --expose-gc heavy.mjs CASE`), so their memory neither disturbs other tests nor is
// disturbed by them. Prints one JSON line of findings; the spec asserts on it.
import { RepeatToolGuard, canonicalize } from '../../index.js'
import { oracleCanonicalize } from '../oracle.mjs'

const MB = 1024 * 1024
const rssMb = () => process.memoryUsage().rss / MB

/** Collects garbage until the V8 heap stops shrinking. */
function settle() {
  let previous = Infinity
  for (let i = 0; i < 10; i++) {
    globalThis.gc()
    const used = process.memoryUsage().heapUsed
    if (used >= previous * 0.99) break
    previous = used
  }
}

/** Three identical calls of `args`: the reminders they get, as [count, tier, text]. */
function threeCalls(args) {
  const guard = new RepeatToolGuard()
  return [1, 2, 3].map(() => guard.observe('agent', 'write', args)).map((r) => (r ? [r.count, r.tier, r.text] : null))
}

const cases = {
  /** A 64 MB string: runs of ASCII with, every megabyte, each character JSON escapes, astral ones, lone surrogates. */
  string64() {
    const special = '\u0000\u001f"\\\n\t\u007f\u2028😀\uD800x\uDC00é'
    const s = (special + 'a'.repeat(MB - special.length)).repeat(64)
    const expected = oracleCanonicalize({ s })
    return {
      length: s.length,
      identical: canonicalize({ s }) === expected,
      rawIdentical: canonicalize(s) === JSON.stringify(s),
      // The loop's raw-string form, as for malformed JSON.
      reminders: threeCalls(s).map((r) => r && r.slice(0, 2)),
    }
  },

  /** An object of 1,000,000 keys, inserted out of order: integer-like, plain and non-ASCII. */
  keys1m() {
    const object = {}
    for (let i = 1_000_000 - 1; i >= 0; i--) {
      const key = i % 3 === 0 ? String(i) : i % 3 === 1 ? `k${i}` : `\u00e9${i}\uD83D\uDE00`
      object[key] = i % 5 === 0 ? { b: i, a: [i] } : i
    }
    const expected = oracleCanonicalize(object)
    const guard = new RepeatToolGuard({ thresholds: [2] })
    const reminders = [guard.observe('agent', 'write', object), guard.observe('agent', 'write', object)]
    return {
      keys: Object.keys(object).length,
      identical: canonicalize(object) === expected,
      reminders: reminders.map((r) => r && [r.count, r.tier]),
    }
  },

  /**
   * A million agents observed and disposed, twice: RSS is taken once V8's heap has settled after
   * the first million (the steady size) and again after the second. Then 20,000 guards are
   * created, used and dropped.
   */
  agents1m() {
    const guard = new RepeatToolGuard({ thresholds: [2] })
    const rounds = []
    for (let r = 0; r < 2; r++) {
      let reminders = 0
      for (let i = 0; i < 1_000_000; i++) {
        const id = `agent-${r}-${i}`
        guard.observe(id, 'grep', i % 2 ? { q: i % 7 } : 'raw text')
        // Every hundredth agent repeats itself: its chain is real state, not just a key.
        if (i % 100 === 0 && guard.observe(id, 'grep', i % 2 ? { q: i % 7 } : 'raw text')) reminders++
      }
      const peak = guard.agentCount
      // Half reset first (a user prompt), then all disposed; unknown ids are ignored.
      for (let i = 0; i < 1_000_000; i += 2) guard.reset(`agent-${r}-${i}`)
      for (let i = 0; i < 1_000_000; i++) guard.dispose(`agent-${r}-${i}`)
      guard.reset('never-seen')
      guard.dispose('never-seen')
      settle()
      rounds.push({ reminders, peak, after: guard.agentCount, rss: rssMb() })
    }
    for (let i = 0; i < 20_000; i++) {
      const g = new RepeatToolGuard()
      g.observe('a', 't', { i })
      g.observe(`b${i}`, 't', 'x')
    }
    // Finalizers of the dropped guards run over later collections.
    for (let i = 0; i < 3; i++) settle()
    const [first, second] = rounds
    return { rounds, agentsGrowth: second.rss - first.rss, guardsGrowth: rssMb() - second.rss }
  },
}

const which = process.argv[2]
if (!cases[which]) throw new Error(`unknown case ${which}`)
if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc')
const started = performance.now()
const result = cases[which]()
console.log(JSON.stringify({ ...result, ms: Math.round(performance.now() - started) }))
