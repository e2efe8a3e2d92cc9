// The canonical form computed the way the reference plugin computes it (deep key-sort, then
// JSON.stringify), except that "__proto__" stays an ordinary key (defineProperty, not assignment).
export function oracleCanonicalize(value) {
  return JSON.stringify(sortDeep(value))
}

function sortDeep(value) {
  if (Array.isArray(value)) return value.map(sortDeep)
  if (value !== null && typeof value === 'object') {
    const sorted = {}
    for (const key of Object.keys(value).sort()) {
      Object.defineProperty(sorted, key, { value: sortDeep(value[key]), enumerable: true, writable: true, configurable: true })
    }
    return sorted
  }
  return value
}

export const GENTLE = 'You are repeating the exact same tool call with identical arguments. Carefully analyze the previous result before calling again: if the task is not complete, try a different approach or different arguments instead of repeating the call.'

/** The detailed reminder as the reference words it, with its preview rule. */
export function detailed(tool, count, canonical, cap = 500) {
  const preview = canonical.length <= cap ? canonical : `${canonical.slice(0, cap)}… (+${canonical.length - cap} more chars)`
  return `Repeated tool call detected:\n- tool: ${tool}\n- consecutive_calls: ${count}\n- arguments: ${preview}\nThe repeated calls are not making progress. Do not call this tool with these exact arguments again. Inspect the latest result and choose a different action, different arguments, or finish the task if enough evidence has been gathered.`
}

/** A small seeded PRNG (mulberry32), so failures replay. */
export function rng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const TRAP_KEYS = ['0', '1', '10', '2', '01', '-1', '4294967294', '4294967295', '1e3', '', 'a', 'B', '__proto__', 'constructor', 'toString', '\u{1F600}', '\uFF5E', '\uD800', '\uDC00x', 'é', 'e\u0301', '\n', '"', '\\', '\u2028', '\u007f']
const TRAP_STRINGS = ['', 'x', '\u0000\u001f', '\b\f\n\r\t', '"\\/', '\uD800', '\uDFFF', '\uD83D\uDE00', '\u2028\u2029', 'é', '\u{10FFFF}', '</script>']
const TRAP_NUMBERS = [0, -0, 1, -1, 0.1, 1e21, 1e-7, 5e-324, 1.7976931348623157e308, JSON.parse('9007199254740993'), 2 ** 53, 123456789.125, -1e-7, 4294967295, 1e300]

/** A random JSON value (as `JSON.parse` would give), drawn towards the traps. */
export function randomJson(next, depth = 0) {
  const pick = (list) => list[Math.floor(next() * list.length)]
  const r = next()
  if (depth > 4 || r < 0.35) {
    const s = next()
    if (s < 0.15) return pick([null, true, false])
    if (s < 0.5) return pick(TRAP_NUMBERS) * (next() < 0.2 ? next() : 1)
    if (s < 0.8) return pick(TRAP_STRINGS)
    return Array.from({ length: Math.floor(next() * 8) }, () => String.fromCharCode(Math.floor(next() * 0x10000))).join('')
  }
  if (r < 0.6) return Array.from({ length: Math.floor(next() * 4) }, () => randomJson(next, depth + 1))
  const object = {}
  for (let i = Math.floor(next() * 6); i > 0; i--) {
    const key = next() < 0.7 ? pick(TRAP_KEYS) : String(Math.floor(next() * 50))
    Object.defineProperty(object, key, { value: randomJson(next, depth + 1), enumerable: true, writable: true, configurable: true })
  }
  return object
}
