// A toJSON that canonicalizes its own object: JSON.stringify gives a RangeError for this at once.
// robustness-pending.spec.mjs runs it in its own process, with a time limit.
import { canonicalize } from '../../index.js'

const started = performance.now()
let outcome
try {
  outcome = { text: canonicalize({ toJSON() { return canonicalize(this) } }) }
} catch (error) {
  outcome = { error: error.constructor.name, message: error.message }
}
console.log(JSON.stringify({ ...outcome, ms: Math.round(performance.now() - started) }))
