// Helpers of the robustness suites: calls and their reminders, and values nested past V8's depth.

/** Past the depth V8's JSON.stringify reaches (near 10,000 on the main thread, less in workers). */
export const BEYOND_V8 = 20_000

/** [count, tier] of each call's reminder (null for none). */
export function run(guard, calls, agent = 'a') {
  return calls.map(([tool, args]) => guard.observe(agent, tool, args)).map((r) => (r ? [r.count, r.tier] : null))
}
export const times = (n, call) => Array.from({ length: n }, () => call)

/** Wraps `value` in `depth` containers, alternating an array and an object with keys around it. */
export function wrap(value, depth) {
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value, i] : { z: 1, a: value, 0: [] }
  return value
}

/** The canonical text of `wrap(value, depth)`, given the canonical text of `value`. */
export function wrapText(inner, depth) {
  const open = []
  const close = []
  for (let i = 0; i < depth; i++) {
    open.push(i % 2 === 0 ? '[' : '{"0":[],"a":')
    close.push(i % 2 === 0 ? `,${i}]` : ',"z":1}')
  }
  return `${open.reverse().join('')}${inner}${close.join('')}`
}

