// The plugin's fast way to hand a call's arguments to Rust: one walk over the parsed value that
// writes its structure and numbers into a Float64Array and joins every key and string into one
// string. Rust reads both in two copies and sorts, checks and hashes there (see
// core/src/encoded.rs for the format). This beats JSON.stringify, which escapes every character
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
const ABSENT = 7

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
// Open containers, their keys (null for arrays), their sizes as written and the next position
// in each; module-level only to reuse their storage.
const containers = []
const keyLists = []
const sizes = []
const positions = []

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
  let n = 0
  chars = ''
  pieces = null
  let depth = 0
  let value = root
  for (;;) {
    // A step writes at most three ops: a key length, then a tag and its operand.
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
        if (depth === 0) return undefined
        ops[n++] = ABSENT
        break
      case 'object': {
        if (value === null) {
          ops[n++] = NULL
          break
        }
        if (typeof value.toJSON === 'function' || depth === MAX_DEPTH) return undefined
        let keys = null
        let size
        if (Array.isArray(value)) {
          size = value.length
          ops[n++] = ARRAY
        } else {
          const prototype = Object.getPrototypeOf(value)
          if (prototype !== objectPrototype && (prototype !== null || isRawJSON(value))) return undefined
          keys = Object.keys(value)
          size = keys.length
          ops[n++] = OBJECT
        }
        ops[n++] = size
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
        ops[n++] = key.length
        append(key)
        value = container[key]
        break
      }
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
