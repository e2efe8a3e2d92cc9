// The plugin's fast way to hand a call's arguments to Rust: one walk over the parsed value that
// writes it, as it stands, into one ArrayBuffer after the agent id and the tool name, in the
// transport's encoding (core/src/transport.rs): a tag per value, members in their own order,
// numbers as they are, strings as code units (one byte each when they all fit), containers with
// their size in bytes, and values JSON has no form for marked as such. Rust applies every
// canonical rule (key order, `-0`, what JSON leaves out) and checks every byte. In Node, strings of
// a few dozen units or more are copied in by Node's Buffer. This beats JSON.stringify, which
// escapes every character and prints every number only for Rust to parse the text again. Anything
// that is not plain parsed JSON (toJSON, class instances, BigInt, very deep or cyclic values) is
// left to the class's own `observe`, which follows JSON.stringify's rules exactly.

// Deeper values take the class path, which detects cycles; so does a huge flat one.
const MAX_DEPTH = 4096
const MAX_BYTES = 1 << 27
const INITIAL_BYTES = 4096
// Agent ids and tool names this long take the class path (their lengths take one LEB128 byte).
const LONG_NAME = 128
// A buffer grown past this is dropped after a call that used less than a quarter of it, so that
// one big call does not pin memory, while big calls in a row write into the same buffer.
const KEEP_BYTES = 1 << 19

// The buffer starts with a header of numbers that brings Rust everything else it needs: the
// guard's handle, the bytes written after the header, and where among the bytes the tool result
// starts (for sameResultOnly; 0 when there is none).
// BEGIN HEADER: generated from src/header.rs, checked by its test
// The transport's tags (core/src/transport.rs).
const NULL = 0
const FALSE = 1
const TRUE = 2
const NUMBER = 3
const NARROW = 4
const WIDE = 5
const ARRAY = 6
const OBJECT = 7
const END = 9
const ABSENT = 11
// The bytes of a container's size, after its tag: a Uint32, little-endian.
const SIZE_BYTES = 4
// The header's slots and its length, in numbers (src/header.rs).
const HANDLE = 0
const LENGTH = 1
const RESULT_START = 2
export const HEADER = 3
// END HEADER

const objectPrototype = Object.prototype
// JSON.rawJSON objects (Node 22) are null-prototype objects that JSON.stringify prints raw.
const isRawJSON = JSON.isRawJSON ?? (() => false)

const EMPTY = {}
/** Whether Object.prototype has no enumerable member, which for-in would yield for every object. */
function prototypeUnchanged() {
  for (const _ in EMPTY) return false
  return true
}

/** The last encoding, valid until the next call: the buffer, its header and bytes. */
export const transport = { buffer: null, header: null, bytes: null }

// The views being written (also in `transport`). The write position is
// passed along and returned (a local, not a module binding: faster), -1 when the value must take
// the class path.
let header
let bytes
let view
// The agent id and tool name the bytes start with (null: unknown), and how many bytes they take:
// the next call mostly has the same ones, and then needs not write them again.
let prefixAgentId = null
let prefixTool = null
let prefixLength = 0

// The last value encoded, when `encode` was asked to keep it, as it was read: one flat list, in the
// order the walk meets them, of its scalars, and for each array ARRAY and its length, for each
// object OBJECT and its member count, then its keys each before its value. With the agent id, tool
// name and guard handle it was written for. null: none. `repeats` compares a value with it.
let snapshot = null
let snapshotAgentId = null
let snapshotTool = null
let snapshotHandle = 0
// Markers in a snapshot: no value a walk reads is either.
const ARRAY_MARK = Symbol('array')
const OBJECT_MARK = Symbol('object')
// Values with more scalars, keys and containers than this are not kept.
const MAX_SNAPSHOT = 1 << 16

// Node's Buffer copies a string's code units into the bytes natively (for a string V8 keeps one
// byte a unit, a memory copy): from a few dozen units on, cheaper than charCodeAt one unit at a
// time. Not there outside Node (a browser).
const NodeBuffer = globalThis.Buffer
const NATIVE_COPY = 32
// A Buffer over the bytes' memory, when Node's Buffer is there.
let nodeBytes

/** Puts the views in one new buffer with room for `capacity` bytes, keeping what is written. */
function allocate(capacity, kept = 0) {
  const buffer = new ArrayBuffer(HEADER * 8 + capacity)
  const nextBytes = new Uint8Array(buffer, HEADER * 8, capacity)
  if (bytes !== undefined) nextBytes.set(bytes.subarray(0, kept))
  header = transport.header = new Float64Array(buffer, 0, HEADER)
  bytes = transport.bytes = nextBytes
  nodeBytes = NodeBuffer?.from(buffer, HEADER * 8, capacity)
  view = new DataView(buffer, HEADER * 8, capacity)
  transport.buffer = buffer
}
allocate(INITIAL_BYTES)

/** Makes room for `needed` bytes in all, keeping the first `kept`; false past the cap. */
function grow(needed, kept) {
  if (needed > MAX_BYTES) return false
  allocate(Math.max(needed, bytes.length * 2), kept)
  return true
}

/**
 * Writes a string at `at`: its tag, its length (LEB128) and its code units, one byte each when
 * they all fit in one (copied by Node's Buffer from NATIVE_COPY units on). Returns the position
 * after it, or -1 when the buffer would grow past the cap.
 */
function string(text, at) {
  const length = text.length
  // Room for the wide form; the length takes at most 4 bytes (strings are shorter than MAX_BYTES).
  const end = at + 5 + 2 * length
  if (end > bytes.length && !grow(end, at)) return -1
  if (length >= NATIVE_COPY && nodeBytes !== undefined) {
    const oneByte = narrow(text)
    bytes[at] = oneByte ? NARROW : WIDE
    at = writeLength(length, at + 1)
    return at + nodeBytes.write(text, at, oneByte ? 'latin1' : 'utf16le')
  }
  // Locals, not the module's bindings, inside the loops.
  const out = bytes
  const tag = at
  at = writeLength(length, at + 1)
  let all = 0
  for (let i = 0; i < length; i++) {
    const unit = text.charCodeAt(i)
    all |= unit
    // A Uint8Array keeps the low byte: only right when every unit fits, checked below.
    out[at + i] = unit
  }
  if (all <= 0xff) {
    out[tag] = NARROW
    return at + length
  }
  out[tag] = WIDE
  for (let i = 0; i < length; i++) {
    const unit = text.charCodeAt(i)
    out[at + 2 * i] = unit
    out[at + 2 * i + 1] = unit >> 8
  }
  return at + 2 * length
}

/** Writes `length` at `at` in LEB128; returns the position after it. */
function writeLength(length, at) {
  while (length >= 0x80) {
    bytes[at++] = (length & 0x7f) | 0x80
    length >>>= 7
  }
  bytes[at++] = length
  return at
}

// A code unit past 0xff. V8 answers at once for a string it stores one byte a code unit, and
// scans one it stores two bytes a unit up to the first such unit: the last units are looked at
// first, where a text cut short often says so ("…").
const WIDE_UNIT = /[^\0-\xff]/
const LAST_UNITS = 64

/** Whether every code unit of `text` fits in a byte. */
function narrow(text) {
  if (text.length <= 2 * LAST_UNITS) return !WIDE_UNIT.test(text)
  return !WIDE_UNIT.test(text.slice(-LAST_UNITS)) && !WIDE_UNIT.test(text)
}

/** Writes a number at `at`, as it is (Rust folds -0 and writes non-finite ones as null); returns the position after it, or -1 past the cap. */
function number(value, at) {
  if (at + 9 > bytes.length && !grow(at + 9, at)) return -1
  bytes[at] = NUMBER
  view.setFloat64(at + 1, value, true)
  return at + 9
}

/**
 * Writes `value` at `at` and returns the position after it, or -1 when it is not plain parsed
 * JSON. Recursive (through `writeOther`): the depth is capped at MAX_DEPTH, and a stack overflow
 * before that is caught by `encode`.
 */
function write(value, depth, at) {
  // `typeof value === '…'` tests, not a switch on `typeof value`: the optimizing compiler turns
  // each test into a type check, where a switch first builds the type's name.
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
  // `undefined`, a function or a symbol: JSON.stringify leaves such a member out, and writes an
  // element as null.
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') {
    bytes[at] = ABSENT
    return at + 1
  }
  // A BigInt, or too deep.
  if (typeof value !== 'object' || depth === MAX_DEPTH) return -1
  if (Array.isArray(value)) {
    if (typeof value.toJSON === 'function') return -1
    const length = value.length
    const start = open(ARRAY, at)
    if (start < 0) return -1
    at = start + SIZE_BYTES
    for (let i = 0; i < length && at >= 0; i++) at = write(value[i], depth + 1, at)
    return at < 0 ? -1 : close(start, at)
  }
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== objectPrototype && (prototype !== null || isRawJSON(value))) return -1
  const start = open(OBJECT, at)
  if (start < 0) return -1
  at = start + SIZE_BYTES
  // for-in, not Object.keys: no array of keys to build. It yields only own keys here: the
  // prototype is Object.prototype or null, and `encode` found Object.prototype with no enumerable
  // member.
  for (const key in value) {
    // A plain object's toJSON is its own (Object.prototype's is checked once per walk): looking
    // for the key is cheaper than a property lookup that misses.
    if (key === 'toJSON') return -1
    at = string(key, at)
    if (at < 0) return -1
    at = write(value[key], depth + 1, at)
    if (at < 0) return -1
  }
  return close(start, at)
}
/** Writes a container's tag at `at` and leaves room for its size; returns where the size goes, or -1 past the cap. */
function open(tag, at) {
  if (at + 1 + SIZE_BYTES > bytes.length && !grow(at + 1 + SIZE_BYTES, at)) return -1
  bytes[at] = tag
  return at + 1
}

/**
 * Ends the container whose size goes at `start` with END at `at`, and writes its size: the bytes
 * after the size, END included (Rust steps over a member by it). Returns the position after END,
 * or -1 past the cap.
 */
function close(start, at) {
  if (at + 1 > bytes.length && !grow(at + 1, at)) return -1
  bytes[at++] = END
  view.setUint32(start, at - start - SIZE_BYTES, true)
  return at
}


/**
 * Writes a tool result as sameResultOnly compares it, `{ content, isError }` with
 * `Boolean(isError)` (read in that order, as the class path reads them), at `at`; returns the
 * position after it, or -1 when it must take the class path (a result that is not an object,
 * whose error the class path gives, or content that is not plain parsed JSON).
 */
function writeResult(result, at) {
  if (typeof result !== 'object' && typeof result !== 'function') return -1
  const content = result.content
  const isError = Boolean(result.isError)
  const start = open(OBJECT, at)
  if (start < 0) return -1
  at = string('content', start + SIZE_BYTES)
  if (at < 0) return -1
  at = write(content, 1, at)
  if (at < 0) return -1
  at = string('isError', at)
  if (at < 0) return -1
  if (at + 1 > bytes.length && !grow(at + 1, at)) return -1
  bytes[at++] = isError ? TRUE : FALSE
  return close(start, at)
}

/**
 * Encodes `value` into `transport` for the guard with `handle`, after the agent id and the tool
 * name, and with `withResult` the tool's `result` after it (`undefined` or `null`: no result);
 * false when it is not plain parsed JSON or the id or name is long, and the call must take the
 * class's `observe`. The id and name are written as code units, lone surrogates too.
 */
export function encode(value, agentId = '', tool = '', handle = 0, withResult = false, result = undefined, keep = false) {
  snapshot = null
  try {
    if (typeof objectPrototype.toJSON === 'function' || !prototypeUnchanged()) return false
    let at
    if (agentId === prefixAgentId && tool === prefixTool) {
      // Still at the start of the bytes from the last call.
      at = prefixLength
    } else {
      prefixAgentId = prefixTool = null
      if (agentId.length >= LONG_NAME || tool.length >= LONG_NAME) return false
      // The agent id and the tool name take at most 2 * 2 * 127 + 4 bytes, fewer than INITIAL_BYTES.
      at = string(tool, string(agentId, 0))
      prefixAgentId = agentId
      prefixTool = tool
      prefixLength = at
    }
    at = write(value, 0, at)
    // A value without JSON form is the class path's to judge.
    if (at < 0 || bytes[prefixLength] === ABSENT) return false
    let resultStart = 0
    if (withResult && result !== undefined && result !== null) {
      resultStart = at
      at = writeResult(result, at)
      if (at < 0) return false
    }
    header[RESULT_START] = resultStart
    header[HANDLE] = handle
    header[LENGTH] = at
    if (keep && !withResult) {
      const flat = []
      if (flatten(value, flat, 0)) {
        snapshot = flat
        snapshotAgentId = agentId
        snapshotTool = tool
        snapshotHandle = handle
      }
    }
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
  }
}

/**
 * Appends `value`, just written, to `flat` as a snapshot holds it (see `snapshot`), reading it as
 * `write` read it; false when it is too large to keep. Recursive, as `write` is, no deeper.
 */
function flatten(value, flat, depth) {
  if (flat.length > MAX_SNAPSHOT) return false
  if (typeof value !== 'object' || value === null) {
    flat.push(value)
    return true
  }
  if (Array.isArray(value)) {
    const length = value.length
    flat.push(ARRAY_MARK, length)
    for (let i = 0; i < length; i++) {
      if (!flatten(value[i], flat, depth + 1)) return false
    }
    return true
  }
  const count = flat.push(OBJECT_MARK, 0) - 1
  let members = 0
  for (const key in value) {
    flat.push(key)
    if (!flatten(value[key], flat, depth + 1)) return false
    members++
  }
  flat[count] = members
  return true
}

/**
 * Whether `value`, for `agentId`, `tool` and the guard `handle`, would be written as the snapshot
 * was: the same keys in the same order, the same values (numbers by `Object.is`). Then Rust
 * counts it from what it kept of that call (`__observeAgain`), and it is neither written nor read
 * again. False whenever in doubt: whatever `encode` would not write as plain parsed JSON.
 */
export function repeats(value, agentId, tool, handle) {
  if (snapshot === null || agentId !== snapshotAgentId || tool !== snapshotTool || handle !== snapshotHandle) return false
  try {
    if (typeof objectPrototype.toJSON === 'function' || !prototypeUnchanged()) return false
    return matches(value, 0, 0) === snapshot.length
  } catch {
    // A stack overflow, or a throwing getter or proxy: `encode` decides.
    return false
  }
}

/** Where `value` ends among the snapshot's entries if it matches them from `at` (see `repeats`); -1: it does not. */
function matches(value, at, depth) {
  if (typeof value !== 'object' || value === null) return same(value, snapshot[at]) ? at + 1 : -1
  if (depth === MAX_DEPTH) return -1
  const flat = snapshot
  // Scalars are compared in the loops, without a call each.
  if (Array.isArray(value)) {
    const length = value.length
    if (flat[at] !== ARRAY_MARK || flat[at + 1] !== length || typeof value.toJSON === 'function') return -1
    at += 2
    for (let i = 0; i < length; i++) {
      const element = value[i]
      if (typeof element !== 'object' || element === null) {
        if (!same(element, flat[at++])) return -1
      } else {
        at = matches(element, at, depth + 1)
        if (at < 0) return -1
      }
    }
    return at
  }
  const prototype = Object.getPrototypeOf(value)
  if (flat[at] !== OBJECT_MARK || (prototype !== objectPrototype && (prototype !== null || isRawJSON(value)))) return -1
  const count = flat[at + 1]
  let members = 0
  at += 2
  for (const key in value) {
    if (members === count || key !== flat[at]) return -1
    const member = value[key]
    if (typeof member !== 'object' || member === null) {
      if (!same(member, flat[at + 1])) return -1
      at += 2
    } else {
      at = matches(member, at + 1, depth + 1)
      if (at < 0) return -1
    }
    members++
  }
  return members === count ? at : -1
}

/** Whether two scalars are written alike: numbers by `Object.is` (`-0` is not `0` in the bytes). */
function same(value, kept) {
  return typeof value === 'number' ? Object.is(value, kept) : value === kept
}

/** Drops an oversized buffer once Rust has read it (see KEEP_BYTES). */
export function release() {
  if (bytes.length > KEEP_BYTES && header[LENGTH] * 4 < bytes.length) {
    bytes = undefined
    prefixAgentId = prefixTool = null
    allocate(INITIAL_BYTES)
  }
}
