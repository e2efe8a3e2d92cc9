// The arguments the benchmarks share, so that every script measures the same calls, and the
// helpers they share.

/** ~100 B of grep-like arguments. */
export const SMALL = { pattern: 'TODO', path: 'src/components', flags: ['-n', '-i'], limit: 50 }

/** A list of small nested items, about `bytes` bytes of JSON. */
export function nested(bytes) {
  const items = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const item = { id: i, name: `item-${i}`, tags: ['a', 'b'], meta: { ok: true, score: i / 7 } }
    size += JSON.stringify(item).length
    items.push(item)
  }
  return { query: 'search', items }
}

/** Calls per round for arguments whose JSON is `json`: about 20 MB of JSON, 5 to 20,000 calls. */
export const callsPerRound = (json) => Math.max(5, Math.min(20_000, Math.floor(20_000_000 / json.length)))

const objectPrototype = Object.prototype

/**
 * Reads every key and value of `value` as lib/encode.js's walk does (the same prototype check,
 * `for…in`) and writes nothing: the walk's floor. Returns a count, so that nothing is optimized
 * away; -1 where the walk would leave the value to the class path.
 */
export function readOnly(value) {
  if (typeof value === 'string') return value.length
  if (typeof value !== 'object' || value === null) return 1
  let count = 0
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) count += readOnly(value[i])
    return count
  }
  if (Object.getPrototypeOf(value) !== objectPrototype) return -1
  for (const key in value) count += key.length + readOnly(value[key])
  return count
}

/** The names of `sides` in the order they run in `round`: each goes first as often as the others. */
export function inTurn(sides, round) {
  const names = Object.keys(sides)
  return [...names.slice(round % names.length), ...names.slice(0, round % names.length)]
}

/** The median of `values` (the upper one of an even count), leaving `values` as they are. */
export const median = (values) => values.slice().sort((a, b) => a - b)[values.length >> 1]

const downstream = { kind: 'accept' }
const next = () => Promise.resolve(downstream)

/**
 * Mean ns per call of `listener` (a plugin's tools/post-execute) over `copies` of the arguments,
 * the agent of the i-th call `agent(i)`.
 */
export async function measure(listener, copies, agent) {
  let i = 0
  // Start each measurement from a collected heap (run.sh passes --expose-gc), so neither side
  // pays for the other's garbage or for the copies made before it.
  globalThis.gc?.()
  const start = process.hrtime.bigint()
  for (const args of copies) {
    // Alternate the agent for the reminder case so each call starts or extends a short run.
    await listener({ name: 'grep', agent: agent(i++), arguments: args }, {}, next)
  }
  return Number(process.hrtime.bigint() - start) / copies.length
}
