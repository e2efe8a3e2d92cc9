// The plugin's fast way to hand a call's arguments to Rust: one walk over the parsed value in
// canonical order (each object's keys sorted here: objects have few, and JavaScript compares
// strings natively) that writes its structure and numbers into a Float64Array and the characters
// of every key and string into a Uint16Array (long strings are passed as they are). Rust borrows
// both, checks the order and hashes in one pass (see core/src/encoded.rs for the format). This
// beats JSON.stringify, which escapes every character and prints every number only for Rust to
// parse the text again; and joining strings would build a rope for V8 to flatten and copy.
// Anything that is not plain parsed JSON (toJSON, class instances, BigInt, very deep or cyclic
// values) is left to the class's own `observe`, which follows JSON.stringify's rules exactly.

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
const MAX_UNITS = 1 << 26
const INITIAL_OPS = 1024
const INITIAL_UNITS = 4096
// Strings this long are passed as they are (Rust reads them in): cheaper than copying each code
// unit here.
const LONG_STRING = 128
// A buffer grown past this is dropped after the call, so one big call does not pin memory.
const KEEP_OPS = 1 << 17
const KEEP_UNITS = 1 << 18

// The ops start with a header, so that one array brings Rust every number of a call: the guard's
// handle (set by the caller), the ops and code units used, the lengths of the agent id and the
// tool name, whose code units come first in `units`, and how many long strings `pieces` holds.
export const HANDLE = 0
const OPS_LENGTH = 1
const UNITS_LENGTH = 2
const AGENT_ID_LENGTH = 3
const TOOL_NAME_LENGTH = 4
const PIECES = 5
const HEADER = 6

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
const present = []

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

let units = new Uint16Array(INITIAL_UNITS)

function growUnits(needed) {
  if (needed > MAX_UNITS) return false
  const bigger = new Uint16Array(Math.max(needed, units.length * 2))
  bigger.set(units)
  units = bigger
  return true
}

// How deep the last walk went: the stack entries to clear afterwards.
let deepest = 0

// Code units written to `units`, and the long strings met: [offset in units, string, ...].
let written = 0
let pieces = null

/** Adds a string's code units to the characters; false when they would grow past the cap. */
function append(text) {
  const length = text.length
  if (length >= LONG_STRING) {
    if (pieces === null) pieces = []
    pieces.push(written, text)
    return true
  }
  if (written + length > units.length && !growUnits(written + length)) return false
  for (let i = 0; i < length; i++) units[written++] = text.charCodeAt(i)
  return true
}

/** `undefined`, a function or a symbol: JSON.stringify leaves such members out. */
function hasNoJsonForm(value) {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol'
}

function walk(root) {
  if (typeof objectPrototype.toJSON === 'function') return false
  let n = HEADER
  let depth = 0
  let value = root
  for (;;) {
    // A step writes at most three ops: a tag and its operand, then the next key's length.
    if (n + 3 > ops.length && !grow(n + 3)) return false
    // `typeof value === '…'` tests, not a switch on `typeof value`: the optimizing compiler turns
    // each test into a type check, where a switch first builds the type's name.
    if (typeof value === 'string') {
      ops[n++] = STRING
      ops[n++] = value.length
      if (!append(value)) return false
    } else if (typeof value === 'number') {
      ops[n++] = NUMBER
      ops[n++] = value
    } else if (typeof value === 'boolean') {
      ops[n++] = value ? TRUE : FALSE
    } else if (value === null) {
      ops[n++] = NULL
    } else if (typeof value === 'object') {
      if (depth === MAX_DEPTH) return false
      let keys = null
      let size
      if (Array.isArray(value)) {
        if (typeof value.toJSON === 'function') return false
        size = value.length
        ops[n++] = ARRAY
        ops[n++] = size
      } else {
        const prototype = Object.getPrototypeOf(value)
        if (prototype !== objectPrototype && (prototype !== null || isRawJSON(value))) return false
        keys = Object.keys(value)
        size = keys.length
        // A plain object's toJSON is its own (Object.prototype's is checked once per walk):
        // looking for the key is cheaper than a property lookup that misses.
        for (let i = 0; i < size; i++) if (keys[i] === 'toJSON') return false
        if (size > 1) sortKeys(keys)
        ops[n++] = OBJECT
        // The count of members with a JSON form, written when the object closes.
        counts[depth] = n++
        present[depth] = 0
      }
      containers[depth] = value
      keyLists[depth] = keys
      sizes[depth] = size
      positions[depth] = 0
      depth++
      if (depth > deepest) deepest = depth
    } else if (depth > 0 && hasNoJsonForm(value)) {
      // `null` in an array (members holding such a value are skipped below).
      ops[n++] = NULL
    } else {
      // A BigInt, or a root without JSON form.
      return false
    }
    // Move to the next value: the next element or member of the innermost open container.
    for (;;) {
      if (depth === 0) {
        ops[OPS_LENGTH] = n
        return true
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
        // A member without a JSON form is left out, as JSON.stringify does.
        if (hasNoJsonForm(value)) continue
        present[top]++
        ops[n++] = key.length
        if (!append(key)) return false
        break
      }
      if (keys !== null) ops[counts[top]] = present[top]
      depth--
    }
  }
}

/**
 * The last encoding, valid until the next call: `ops` (header first, then the value),
 * `units` and `pieces` (null, or long strings to read in: [offset in units, string, ...]).
 */
export const encoded = { ops, units, pieces: null }

/**
 * Encodes `value` into `encoded`, its characters after those of the agent id and the tool name;
 * false when it is not plain parsed JSON and must take the class's `observe`.
 */
export function encode(value, agentId = '', tool = '') {
  try {
    written = 0
    pieces = null
    if (!append(agentId) || !append(tool)) return false
    if (walk(value) !== true) return false
    ops[UNITS_LENGTH] = written
    ops[AGENT_ID_LENGTH] = agentId.length
    ops[TOOL_NAME_LENGTH] = tool.length
    ops[PIECES] = pieces === null ? 0 : pieces.length / 2
    encoded.ops = ops
    encoded.units = units
    encoded.pieces = pieces
    return true
  } finally {
    // Let go of the arguments (the stacks outlive the call only to keep their storage).
    pieces = null
    for (let i = 0; i < deepest; i++) {
      containers[i] = undefined
      keyLists[i] = undefined
    }
    deepest = 0
  }
}

/** Lets go of the last encoding's strings and drops oversized buffers once Rust has read them. */
export function release() {
  encoded.pieces = null
  if (ops.length > KEEP_OPS) {
    ops = new Float64Array(INITIAL_OPS)
    encoded.ops = ops
  }
  if (units.length > KEEP_UNITS) {
    units = new Uint16Array(INITIAL_UNITS)
    encoded.units = units
  }
}
