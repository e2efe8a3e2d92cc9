// The plugin's fast way to hand a call's arguments to Rust: one walk over the parsed value in
// canonical order (each object's keys sorted here: objects have few, and JavaScript compares
// strings natively) that writes the call's key form (core/src/form.rs: the tool name, then the
// arguments, a tag per value, strings as code units, one byte each when they all fit) into one
// ArrayBuffer after the agent id. Rust then only compares or hashes those bytes where they lie
// (long strings are passed as they are, for Rust to read in). This beats JSON.stringify, which
// escapes every character and prints every number only for Rust to parse the text again.
// Anything that is not plain parsed JSON (toJSON, class instances, BigInt, very deep or cyclic
// values) is left to the class's own `observe`, which follows JSON.stringify's rules exactly.

// Deeper values take the class path, which detects cycles; so does a huge flat one.
const MAX_DEPTH = 4096
const MAX_BYTES = 1 << 27
const INITIAL_BYTES = 4096
// Strings this long are passed as they are (Rust reads them in): cheaper than copying each code
// unit here. Shorter ones have lengths of one LEB128 byte.
const LONG_STRING = 128
// A buffer grown past this is dropped after the call, so one big call does not pin memory.
const KEEP_BYTES = 1 << 19

// The buffer starts with a header of numbers that brings Rust everything else it needs: the
// guard's handle, the bytes written after the header, where among them the key form starts (after
// the agent id), how many long strings `pieces` holds, and where in the key form the tool result's
// form starts (for sameResultOnly; 0 when there is none). The last is Rust's: 1 while the buffer
// is the binding's current call memory (src/memory.rs), which `__observeMemory()` reads unasked.
// BEGIN WIRE: generated from src/wire.rs, checked by its test
// The key form's tags (core/src/form.rs).
const NULL = 0
const FALSE = 1
const TRUE = 2
const NUMBER = 3
const NARROW = 4
const WIDE = 5
const ARRAY = 6
const OBJECT = 7
const TOOL = 8
const END = 9
// The header's slots and its length, in numbers (src/wire.rs).
const HANDLE = 0
const LENGTH = 1
const KEY_START = 2
const PIECES = 3
const RESULT_START = 4
const CURRENT = 5
export const HEADER = 6
// END WIRE

const objectPrototype = Object.prototype
// JSON.rawJSON objects (Node 22) are null-prototype objects that JSON.stringify prints raw.
const isRawJSON = JSON.isRawJSON ?? (() => false)

/** The last encoding, valid until the next call: the buffer, its header and bytes, and the long strings. */
export const encoded = { memory: null, header: null, bytes: null, pieces: null }

// The views being written (also in `encoded`), where the key form starts, and the long strings
// met: [offset in the key form, string, ...]. The write position is passed along and returned (a
// local, not a module binding: faster), -1 when the value must take the class path.
let header
let bytes
let view
let keyStart = 0
let pieces = null
// The agent id and tool name the bytes start with (null: unknown), and how many bytes they take:
// the next call mostly has the same ones, and then needs not write them again.
let prefixAgentId = null
let prefixTool = null
let prefixLength = 0

// Makes a buffer of the given size in the binding's call memory (`useMemory`); undefined: none.
let callMemory = () => undefined

/**
 * Has `create(byteLength)` (the binding's `__callMemory`) make the buffers from now on, where it
 * returns one: memory the binding reads without being handed it (`inMemory`).
 */
export function useMemory(create) {
  callMemory = create
  prefixAgentId = prefixTool = null
  allocate(INITIAL_BYTES)
}

/** Whether the last encoding lies in the binding's current call memory, with no pieces: `__observeMemory()` reads it. */
export function inMemory() {
  return header[CURRENT] === 1 && encoded.pieces === null
}

/** Puts the views in one new buffer with room for `capacity` bytes, keeping what is written. */
function allocate(capacity, kept = 0) {
  let memory
  try {
    memory = callMemory(HEADER * 8 + capacity)
  } catch {
    // The binding could not: a buffer of our own serves as well, handed over with each call.
  }
  memory ??= new ArrayBuffer(HEADER * 8 + capacity)
  const nextBytes = new Uint8Array(memory, HEADER * 8, capacity)
  if (bytes !== undefined) nextBytes.set(bytes.subarray(0, kept))
  header = encoded.header = new Float64Array(memory, 0, HEADER)
  bytes = encoded.bytes = nextBytes
  view = new DataView(memory, HEADER * 8, capacity)
  encoded.memory = memory
}
allocate(INITIAL_BYTES)

/** Makes room for `needed` bytes in all, keeping the first `kept`; false past the cap. */
function grow(needed, kept) {
  if (needed > MAX_BYTES) return false
  allocate(Math.max(needed, bytes.length * 2), kept)
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

// Per number of keys (up to CACHED_SORTS), the last two key lists sorted (at 2 * size, the latest,
// and 2 * size + 1) and their sorted copies: objects of one shape come in runs (the items of a
// list, the same tool called again), and comparing keys is cheaper than sorting them. Two, because
// a list's items often have as many keys as the object holding the list. Only short keys are
// kept, so the cache never pins much memory.
const CACHED_SORTS = 8
const lastKeys = []
const lastSorted = []
// And the sorted keys' forms, made when the list is first reused (null until then), so that a
// reused list's keys are copied a word at a time instead of a code unit at a time: per key, its
// form's byte count, then the form in little-endian 32-bit words (the last one padded with zeros).
const lastForms = []
// The forms of the list `sortedKeys` returned last; null when it was not a reused one.
let keyForms = null

/** The forms of `keys` (each shorter than LONG_STRING) as `lastForms` keeps them. */
function formsOf(keys) {
  const words = []
  for (const key of keys) {
    let all = 0
    for (let i = 0; i < key.length; i++) all |= key.charCodeAt(i)
    const form = [all <= 0xff ? NARROW : WIDE, key.length]
    for (let i = 0; i < key.length; i++) {
      const unit = key.charCodeAt(i)
      if (all <= 0xff) form.push(unit)
      else form.push(unit & 0xff, unit >> 8)
    }
    words.push(form.length)
    // Past the end, `undefined << n` is 0.
    for (let i = 0; i < form.length; i += 4) words.push(form[i] | (form[i + 1] << 8) | (form[i + 2] << 16) | (form[i + 3] << 24))
  }
  return Int32Array.from(words)
}

/**
 * `keys` (from Object.keys) in canonical order: sorted in place, or the same list sorted before
 * (then `keyForms` holds its keys' forms); null when one is `toJSON` (a plain object's toJSON is
 * its own, as Object.prototype's is checked once per walk: looking for the key is cheaper than a
 * property lookup that misses).
 */
function sortedKeys(keys) {
  const size = keys.length
  keyForms = null
  if (size <= CACHED_SORTS) {
    for (let slot = 2 * size; slot <= 2 * size + 1; slot++) {
      const last = lastKeys[slot]
      if (last === undefined) break
      let i = 0
      while (i < size && last[i] === keys[i]) i++
      // The same keys as a list that passed the check below.
      if (i === size) {
        keyForms = lastForms[slot] ?? (lastForms[slot] = formsOf(lastSorted[slot]))
        return lastSorted[slot]
      }
    }
  }
  for (let i = 0; i < size; i++) if (keys[i] === 'toJSON') return null
  if (size === 0) return keys
  if (size > CACHED_SORTS) {
    sortKeys(keys)
    return keys
  }
  const unsorted = keys.slice()
  sortKeys(keys)
  if (keys.every((key) => key.length < LONG_STRING)) {
    // Never written to again: a cached list is only read. The latest moves to the second slot.
    const slot = 2 * size
    lastKeys[slot + 1] = lastKeys[slot]
    lastSorted[slot + 1] = lastSorted[slot]
    lastForms[slot + 1] = lastForms[slot]
    lastKeys[slot] = unsorted
    lastSorted[slot] = keys
    lastForms[slot] = null
  }
  return keys
}

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

/**
 * Writes a string's form at `at`: its tag, its length and its code units, one byte each when they
 * all fit in one. A long string is left for Rust to read in. Returns the position after it, or -1
 * when the buffer would grow past the cap.
 */
function string(text, at) {
  const length = text.length
  if (length >= LONG_STRING) {
    if (pieces === null) pieces = []
    pieces.push(at - keyStart, text)
    return at
  }
  // Room for the wide form; the length takes one byte.
  const end = at + 2 + 2 * length
  if (end > bytes.length && !grow(end, at)) return -1
  // Locals, not the module's bindings, inside the loops.
  const out = bytes
  let all = 0
  for (let i = 0; i < length; i++) {
    const unit = text.charCodeAt(i)
    all |= unit
    // A Uint8Array keeps the low byte: only right when every unit fits, checked below.
    out[at + 2 + i] = unit
  }
  out[at + 1] = length
  if (all <= 0xff) {
    out[at] = NARROW
    return at + 2 + length
  }
  out[at] = WIDE
  for (let i = 0; i < length; i++) {
    const unit = text.charCodeAt(i)
    out[at + 2 + 2 * i] = unit
    out[at + 3 + 2 * i] = unit >> 8
  }
  return end
}

/** Writes a number's form at `at`; returns the position after it, or -1 past the cap. */
function number(value, at) {
  if (at + 9 > bytes.length && !grow(at + 9, at)) return -1
  // NaN and ±Infinity are null in JSON; -0 is 0.
  if (value - value === 0) {
    bytes[at] = NUMBER
    view.setFloat64(at + 1, value === 0 ? 0 : value, true)
    return at + 9
  }
  bytes[at] = NULL
  return at + 1
}

/** `undefined`, a function or a symbol: JSON.stringify leaves such members out. */
function hasNoJsonForm(value) {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol'
}

// What `write` returns for a value JSON has no form for (`undefined`, a function, a symbol): the
// caller leaves it out, or writes `null` for it in an array. Less than 0, as for the class path.
const NO_FORM = -2

/**
 * Writes `value`'s form in canonical order at `at` and returns the position after it; NO_FORM when
 * JSON has no form for it, -1 when it is not plain parsed JSON. Recursive (through `writeOther`):
 * the depth is capped at MAX_DEPTH, and a stack overflow before that is caught by `encode`.
 */
function write(value, depth, at) {
  // Strings and numbers, the most common values, in a function small enough to be inlined into
  // the loops below, which then skip a call for them. `typeof value === '…'` tests, not a switch
  // on `typeof value`: the optimizing compiler turns each test into a type check, where a switch
  // first builds the type's name.
  if (typeof value === 'string') return string(value, at)
  if (typeof value === 'number') return number(value, at)
  return writeOther(value, depth, at)
}

/** `write` for anything but a string or a number. */
function writeOther(value, depth, at) {
  // Any other step writes one byte (a tag) before anything else checks for room.
  if (at + 1 > bytes.length && !grow(at + 1, at)) return -1
  if (typeof value === 'boolean') {
    bytes[at] = value ? TRUE : FALSE
    return at + 1
  }
  if (value === null) {
    bytes[at] = NULL
    return at + 1
  }
  if (hasNoJsonForm(value)) return NO_FORM
  // A BigInt, or too deep.
  if (typeof value !== 'object' || depth === MAX_DEPTH) return -1
  if (Array.isArray(value)) {
    if (typeof value.toJSON === 'function') return -1
    const size = value.length
    bytes[at++] = ARRAY
    for (let i = 0; i < size; i++) {
      const next = write(value[i], depth + 1, at)
      if (next >= 0) {
        at = next
      } else if (next === NO_FORM) {
        // `null` in an array.
        if (at + 1 > bytes.length && !grow(at + 1, at)) return -1
        bytes[at++] = NULL
      } else {
        return -1
      }
    }
    if (at + 1 > bytes.length && !grow(at + 1, at)) return -1
    bytes[at] = END
    return at + 1
  }
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== objectPrototype && (prototype !== null || isRawJSON(value))) return -1
  const keys = sortedKeys(Object.keys(value))
  if (keys === null) return -1
  const forms = keyForms
  const size = keys.length
  bytes[at++] = OBJECT
  // Where in `forms` the next key's form is.
  let form = 0
  // Each key is written before its member is looked at, and taken back when JSON has no form for
  // the member: looking at each member once, in `write`, is cheaper than a look here first.
  for (let i = 0; i < size; i++) {
    const member = value[keys[i]]
    const keyAt = at
    if (forms !== null) {
      const length = forms[form]
      // Whole words: the padding past the form is overwritten by what follows.
      if (at + length + 3 > bytes.length && !grow(at + length + 3, at)) return -1
      const out = view
      const end = form + 1 + ((length + 3) >> 2)
      for (let word = form + 1, to = at; word < end; word++, to += 4) out.setInt32(to, forms[word], true)
      at += length
      form = end
    } else {
      at = string(keys[i], at)
      if (at < 0) return -1
    }
    const next = write(member, depth + 1, at)
    if (next >= 0) {
      at = next
    } else if (next === NO_FORM) {
      // Left out, as JSON.stringify does. A long key went to `pieces` without moving `at`.
      if (at === keyAt) pieces.length -= 2
      at = keyAt
    } else {
      return -1
    }
  }
  if (at + 1 > bytes.length && !grow(at + 1, at)) return -1
  bytes[at] = END
  return at + 1
}

/**
 * Writes the form of a tool result as sameResultOnly compares it, `{ content, isError }` with
 * `Boolean(isError)` (read in that order, as the class path reads them), as the key form of a call
 * of the tool named '' (as Rust keys it), at `at`; returns the position after it, or -1 when it
 * must take the class path (a result that is not an object, whose error the class path gives, or
 * content that is not plain parsed JSON).
 */
function writeResult(result, at) {
  if (typeof result !== 'object' && typeof result !== 'function') return -1
  const content = result.content
  const isError = Boolean(result.isError)
  if (at + 4 > bytes.length && !grow(at + 4, at)) return -1
  bytes[at++] = TOOL
  bytes[at++] = NARROW
  bytes[at++] = 0
  bytes[at++] = OBJECT
  // Members in canonical order ('content' < 'isError'); content without JSON form is left out.
  if (!hasNoJsonForm(content)) {
    at = string('content', at)
    if (at < 0) return -1
    at = write(content, 1, at)
    if (at < 0) return -1
  }
  at = string('isError', at)
  if (at < 0) return -1
  if (at + 2 > bytes.length && !grow(at + 2, at)) return -1
  bytes[at++] = isError ? TRUE : FALSE
  bytes[at++] = END
  return at
}

/**
 * Encodes `value` into `encoded` for the guard with `handle`, after the agent id and the tool
 * name, and with `withResult` the form of the tool's `result` after it (`undefined` or `null`: no
 * result); false when it is not plain parsed JSON or the id or name is long, and the call must
 * take the class's `observe`. The id and name are written as code units, lone surrogates too.
 */
export function encode(value, agentId = '', tool = '', handle = 0, withResult = false, result = undefined) {
  try {
    pieces = null
    if (typeof objectPrototype.toJSON === 'function') return false
    let at
    if (agentId === prefixAgentId && tool === prefixTool) {
      // Still at the start of the bytes from the last call.
      at = prefixLength
    } else {
      prefixAgentId = prefixTool = null
      if (agentId.length >= LONG_STRING || tool.length >= LONG_STRING) return false
      // The agent id and the tool name take at most 2 * 2 * 127 + 5 bytes, fewer than INITIAL_BYTES.
      keyStart = string(agentId, 0)
      bytes[keyStart] = TOOL
      at = string(tool, keyStart + 1)
      prefixAgentId = agentId
      prefixTool = tool
      prefixLength = at
    }
    at = write(value, 0, at)
    if (at < 0) return false
    let resultStart = 0
    if (withResult && result !== undefined && result !== null) {
      resultStart = at - keyStart
      at = writeResult(result, at)
      if (at < 0) return false
    }
    header[RESULT_START] = resultStart
    header[HANDLE] = handle
    header[LENGTH] = at
    header[KEY_START] = keyStart
    header[PIECES] = pieces === null ? 0 : pieces.length / 2
    encoded.pieces = pieces
    return true
  } catch {
    // A stack overflow on a deep value (or a throwing proxy): the class path decides. A buffer
    // detached behind our back (ArrayBuffer.prototype.transfer) is replaced for the next call.
    if (bytes.length === 0) {
      bytes = undefined
      prefixAgentId = prefixTool = null
      allocate(INITIAL_BYTES)
    }
    return false
  } finally {
    pieces = null
  }
}

/** Lets go of the last encoding's strings and drops an oversized buffer once Rust has read it. */
export function release() {
  encoded.pieces = null
  if (bytes.length > KEEP_BYTES) {
    bytes = undefined
    prefixAgentId = prefixTool = null
    allocate(INITIAL_BYTES)
  }
}
