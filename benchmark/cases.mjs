// The arguments the benchmarks share, so that every script measures the same calls.

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
