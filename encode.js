// The plugin's fast way to hand a call's arguments to Rust: one walk over the parsed value in
// canonical order (each object's keys sorted here: objects have few, and JavaScript compares
// strings natively) that writes its structure and numbers into a Float64Array and joins every key
// and string into one string. Rust reads both in two copies, checks the order and hashes in one
// pass (see core/src/encoded.rs for the format). This beats JSON.stringify, which escapes every character
// and prints every number only for Rust to parse the text again. Anything that is not plain
// parsed JSON (toJSON, class instances, BigInt, very deep or cyclic values) is left to the
// class's own `observe`, which follows JSON.stringify's rules exactly.

const NULL = 0
const FALSE = 1
const TRUE = 2
const NUMBER = 3
const STRING = 4
const ARRAY = 5
const OBJECT = 6

// Deeper values take the class path, which detects cycles; so does a huge flat one.
const MAX_DEPTH = 4096
const MAX_OPS = 1 << 25
const INITIAL_OPS = 1024
// Strings this long are passed on their own rather than joined, so V8 need not copy them.
const LONG_STRING = 4096
// A buffer grown past this is dropped after the call, so one big call does not pin memory.
const KEEP_OPS = 1 << 17

const objectPrototype = Object.prototype
// JSON.rawJSON objects (Node 22) are null-prototype objects that JSON.stringify prints raw.
const isRawJSON = JSON.isRawJSON ?? (() => false)
let ops = new Float64Array(INITIAL_OPS)
// Open containers, their keys (null for arrays), their sizes, the next position in each, and for
// objects where their member count goes in `ops` and the members written; module-level only to
// reuse their storage.
const containers = []
const keyLists = []
const sizes = []
const positions = []
const counts = []
const written = []

/** A canonical array index ("0" … "4294967294"): Object.keys lists these first, ascending. */
function isArrayIndex(key) {
  const first = key.charCodeAt(0) - 48
  if (!(first >= 0 && first <= 9) || key.length > 10 || (first === 0 && key.length > 1)) return false
  for (let i = 1; i < key.length; i++) {
    const digit = key.charCodeAt(i) - 48
    if (!(digit >= 0 && digit <= 9)) return false
  }
  return Number(key) < 4294967295
}

// Up to this many keys sort by insertion, faster than Array.prototype.sort's call overhead.
const INSERTION_SORT = 16

/**
 * Puts `keys` (from Object.keys) in canonical order: array indices first, numerically (as
 * Object.keys already lists them), then the rest in UTF-16 order (`<` on strings).
 */
function sortKeys(keys) {
  const length = keys.length
  let start = 0
  while (start < length && isArrayIndex(keys[start])) start++
  if (length - start < 2) return
  if (length - start <= INSERTION_SORT) {
    for (let i = start + 1; i < length; i++) {
      const key = keys[i]
      let j = i - 1
      while (j >= start && keys[j] > key) {
        keys[j + 1] = keys[j]
        j--
      }
      keys[j + 1] = key
    }
  } else if (start === 0) {
    keys.sort()
  } else {
    const rest = keys.slice(start).sort()
    for (let i = 0; i < rest.length; i++) keys[start + i] = rest[i]
  }
}

function grow(needed) {
  if (needed > MAX_OPS) return false
  const bigger = new Float64Array(Math.max(needed, ops.length * 2))
  bigger.set(ops)
  ops = bigger
  return true
}

// How deep the last walk went: the stack entries to clear afterwards.
let deepest = 0

// The characters of the walk under way; when a long string has been met, also the pieces so far:
// [joined, long, joined, long, ...].
let chars = ''
let pieces = null

function append(text) {
  if (text.length < LONG_STRING) {
    chars += text
  } else {
    if (pieces === null) pieces = []
    pieces.push(chars, text)
    chars = ''
  }
}

function walk(root) {
  if (typeof objectPrototype.toJSON === 'function') return undefined
  let n = 0
  chars = ''
  pieces = null
  let depth = 0
  let value = root
  for (;;) {
    // A step writes at most three ops: a tag and its operand, then the next key's length.
    if (n + 3 > ops.length && !grow(n + 3)) return undefined
    switch (typeof value) {
      case 'string':
        ops[n++] = STRING
        ops[n++] = value.length
        append(value)
        break
      case 'number':
        ops[n++] = NUMBER
        ops[n++] = value
        break
      case 'boolean':
        ops[n++] = value ? TRUE : FALSE
        break
      case 'undefined':
      case 'function':
      case 'symbol':
        // No JSON form: `null` in an array (members holding one are skipped below).
        if (depth === 0) return undefined
        ops[n++] = NULL
        break
      case 'object': {
        if (value === null) {
          ops[n++] = NULL
          break
        }
        if (depth === MAX_DEPTH) return undefined
        let keys = null
        let size
        if (Array.isArray(value)) {
          if (typeof value.toJSON === 'function') return undefined
          size = value.length
          ops[n++] = ARRAY
          ops[n++] = size
        } else {
          const prototype = Object.getPrototypeOf(value)
          if (prototype !== objectPrototype && (prototype !== null || isRawJSON(value))) return undefined
          keys = Object.keys(value)
          size = keys.length
          // A plain object's toJSON is its own (Object.prototype's is checked once per walk):
          // looking for the key is cheaper than a property lookup that misses.
          for (let i = 0; i < size; i++) if (keys[i] === 'toJSON') return undefined
          if (size > 1) sortKeys(keys)
          ops[n++] = OBJECT
          // The count of members with a JSON form, written when the object closes.
          counts[depth] = n++
          written[depth] = 0
        }
        containers[depth] = value
        keyLists[depth] = keys
        sizes[depth] = size
        positions[depth] = 0
        depth++
        if (depth > deepest) deepest = depth
        break
      }
      default:
        return undefined
    }
    // Move to the next value: the next element or member of the innermost open container.
    for (;;) {
      if (depth === 0) {
        encoded.length = n
        const joined = pieces === null ? chars : [...pieces, chars]
        chars = ''
        pieces = null
        return joined
      }
      const top = depth - 1
      const container = containers[top]
      const keys = keyLists[top]
      const position = positions[top]
      if (position < sizes[top]) {
        positions[top] = position + 1
        if (keys === null) {
          value = container[position]
          break
        }
        const key = keys[position]
        value = container[key]
        const type = typeof value
        // A member without a JSON form is left out, as JSON.stringify does.
        if (type === 'undefined' || type === 'function' || type === 'symbol') continue
        written[top]++
        ops[n++] = key.length
        append(key)
        break
      }
      if (keys !== null) ops[counts[top]] = written[top]
      depth--
    }
  }
}

/** The last encoding: `ops[0 .. length)`. Valid until the next call. */
export const encoded = { ops, length: 0 }

/**
 * Encodes `value` and returns its characters (a string, or strings to join), with `encoded`
 * holding its ops; or `undefined`
 * when the value is not plain parsed JSON and must take the class's `observe`.
 */
export function encode(value) {
  try {
    const chars = walk(value)
    encoded.ops = ops
    return chars
  } finally {
    // Let go of the arguments (the stacks outlive the call only to keep their storage).
    chars = ''
    pieces = null
    for (let i = 0; i < deepest; i++) {
      containers[i] = undefined
      keyLists[i] = undefined
    }
    deepest = 0
  }
}

/** Drops an oversized ops buffer once the native side has read it. */
export function release() {
  if (ops.length > KEEP_OPS) {
    ops = new Float64Array(INITIAL_OPS)
    encoded.ops = ops
  }
}
