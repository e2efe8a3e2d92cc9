// The plugin's fast way to hand a call's arguments to Rust: one walk over the parsed value in
// canonical order (each object's keys sorted here: objects have few, and JavaScript compares
// strings natively) that writes its structure and numbers as a Float64Array and the characters
// of every key and string as a Uint16Array, both views of one ArrayBuffer (long strings are
// passed as they are). Rust borrows the buffer, checks the order and hashes in one pass (see
// core/src/encoded.rs for the format). This beats JSON.stringify, which escapes every character
// and prints every number only for Rust to parse the text again.
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

// The ops start with a header, so that the buffer brings Rust every number of a call: the guard's
// handle, the ops and code units used, the lengths of the agent id and the tool name, whose code
// units come first in `units`, how many long strings `pieces` holds, and where in the buffer the
// code units start (in bytes).
const HANDLE = 0
const OPS_LENGTH = 1
const UNITS_LENGTH = 2
const AGENT_ID_LENGTH = 3
const TOOL_NAME_LENGTH = 4
const PIECES = 5
const UNITS_OFFSET = 6
export const HEADER = 7

const objectPrototype = Object.prototype
// JSON.rawJSON objects (Node 22) are null-prototype objects that JSON.stringify prints raw.
const isRawJSON = JSON.isRawJSON ?? (() => false)

/** The last encoding, valid until the next call: the buffer, its two views, and the long strings. */
export const encoded = { memory: null, ops: null, units: null, pieces: null }

// The views being written (also in `encoded`), how much of each is used, and the long strings met:
// [offset in units, string, ...].
let ops
let units
let n = 0
let written = 0
let pieces = null
// The agent id and tool name whose code units start `units` (null: unknown). The next call mostly
// has the same ones, and then needs not copy them again.
let prefixAgentId = null
let prefixTool = null

/** Puts `ops` and `units` in one new buffer of the given capacities, keeping what is written. */
function allocate(opsCapacity, unitsCapacity) {
  const memory = new ArrayBuffer(opsCapacity * 8 + unitsCapacity * 2)
  const nextOps = new Float64Array(memory, 0, opsCapacity)
  const nextUnits = new Uint16Array(memory, opsCapacity * 8, unitsCapacity)
  if (ops !== undefined) {
    nextOps.set(ops.subarray(0, n))
    nextUnits.set(units.subarray(0, written))
  }
  nextOps[UNITS_OFFSET] = opsCapacity * 8
  ops = encoded.ops = nextOps
  units = encoded.units = nextUnits
  encoded.memory = memory
}
allocate(INITIAL_OPS, INITIAL_UNITS)

/** Makes room for `needed` ops; false past the cap. */
function grow(needed) {
  if (needed > MAX_OPS) return false
  allocate(Math.max(needed, ops.length * 2), units.length)
  return true
}

/** Makes room for `needed` code units; false past the cap. */
function growUnits(needed) {
  if (needed > MAX_UNITS) return false
  allocate(ops.length, Math.max(needed, units.length * 2))
  return true
}

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
      // Keys mostly differ in their first code unit: comparing it first spares most string
      // comparisons. (`| 0`: the empty key's NaN becomes 0, a tie decided by `>`.)
      const first = key.charCodeAt(0) | 0
      let j = i - 1
      for (; j >= start; j--) {
        const other = keys[j]
        const head = other.charCodeAt(0) | 0
        if (head < first || (head === first && !(other > key))) break
        keys[j + 1] = other
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

/** Adds a string's code units to the characters; false when they would grow past the cap. */
function append(text) {
  const length = text.length
  if (length >= LONG_STRING) {
    if (pieces === null) pieces = []
    pieces.push(written, text)
    return true
  }
  const at = written
  const end = at + length
  if (end > units.length && !growUnits(end)) return false
  // Locals, not the module's bindings, inside the loop.
  const out = units
  for (let i = 0; i < length; i++) out[at + i] = text.charCodeAt(i)
  written = end
  return true
}

/** `undefined`, a function or a symbol: JSON.stringify leaves such members out. */
function hasNoJsonForm(value) {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol'
}

/**
 * Writes `value` in canonical order; false when it is not plain parsed JSON. Recursive: the depth
 * is capped at MAX_DEPTH, and a stack overflow before that is caught by `encode`.
 */
function write(value, depth) {
  // A step writes at most three ops: a tag and its operand, then an object's first key length.
  if (n + 3 > ops.length && !grow(n + 3)) return false
  // `typeof value === '…'` tests, not a switch on `typeof value`: the optimizing compiler turns
  // each test into a type check, where a switch first builds the type's name.
  if (typeof value === 'string') {
    ops[n++] = STRING
    ops[n++] = value.length
    return append(value)
  }
  if (typeof value === 'number') {
    ops[n++] = NUMBER
    ops[n++] = value
    return true
  }
  if (typeof value === 'boolean') {
    ops[n++] = value ? TRUE : FALSE
    return true
  }
  if (value === null) {
    ops[n++] = NULL
    return true
  }
  // A BigInt, a root without JSON form, or too deep.
  if (typeof value !== 'object' || depth === MAX_DEPTH) return false
  if (Array.isArray(value)) {
    if (typeof value.toJSON === 'function') return false
    const size = value.length
    ops[n++] = ARRAY
    ops[n++] = size
    for (let i = 0; i < size; i++) {
      const item = value[i]
      if (!hasNoJsonForm(item)) {
        if (!write(item, depth + 1)) return false
      } else {
        // `null` in an array.
        if (n + 1 > ops.length && !grow(n + 1)) return false
        ops[n++] = NULL
      }
    }
    return true
  }
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== objectPrototype && (prototype !== null || isRawJSON(value))) return false
  const keys = Object.keys(value)
  const size = keys.length
  // A plain object's toJSON is its own (Object.prototype's is checked once per walk): looking for
  // the key is cheaper than a property lookup that misses.
  for (let i = 0; i < size; i++) if (keys[i] === 'toJSON') return false
  if (size > 1) sortKeys(keys)
  ops[n++] = OBJECT
  // The count of members with a JSON form, written once they are.
  const count = n++
  let present = 0
  for (let i = 0; i < size; i++) {
    const key = keys[i]
    const member = value[key]
    // A member without a JSON form is left out, as JSON.stringify does.
    if (hasNoJsonForm(member)) continue
    present++
    if (n + 1 > ops.length && !grow(n + 1)) return false
    ops[n++] = key.length
    if (!append(key) || !write(member, depth + 1)) return false
  }
  ops[count] = present
  return true
}

/**
 * Encodes `value` into `encoded` for the guard with `handle`, its characters after those of the
 * agent id and the tool name; false when it is not plain parsed JSON and must take the class's
 * `observe`.
 */
export function encode(value, agentId = '', tool = '', handle = 0) {
  try {
    n = HEADER
    pieces = null
    if (typeof objectPrototype.toJSON === 'function') return false
    if (agentId === prefixAgentId && tool === prefixTool) {
      // Still at the start of `units` from the last call.
      written = agentId.length + tool.length
    } else {
      written = 0
      prefixAgentId = prefixTool = null
      if (!append(agentId) || !append(tool)) return false
      if (pieces === null) {
        prefixAgentId = agentId
        prefixTool = tool
      }
    }
    if (!write(value, 0)) return false
    ops[HANDLE] = handle
    ops[OPS_LENGTH] = n
    ops[UNITS_LENGTH] = written
    ops[AGENT_ID_LENGTH] = agentId.length
    ops[TOOL_NAME_LENGTH] = tool.length
    ops[PIECES] = pieces === null ? 0 : pieces.length / 2
    encoded.pieces = pieces
    return true
  } catch {
    // A stack overflow on a deep value (or a throwing proxy): the class path decides.
    return false
  } finally {
    pieces = null
  }
}

/** Lets go of the last encoding's strings and drops an oversized buffer once Rust has read it. */
export function release() {
  encoded.pieces = null
  if (ops.length > KEEP_OPS || units.length > KEEP_UNITS) {
    n = 0
    written = 0
    ops = undefined
    prefixAgentId = prefixTool = null
    allocate(INITIAL_OPS, INITIAL_UNITS)
  }
}
