// A call's arguments, or its result, as JSON text by JSON.stringify's rules (toJSON applied, boxed
// primitives unwrapped, members without a JSON form left out): what the class path hands Rust, which
// sorts the keys. V8's own JSON.stringify does it, with V8's errors; for values nested deeper than
// V8 goes (near 10,000 levels), `deepJsonText` follows the same rules with an explicit stack.

// Reads nested deeper than this (a toJSON that canonicalizes its own object, again and again) end in
// a RangeError, well before the stack would.
const MAX_NESTED_READS = 100
// V8's longest string: past it JSON.stringify throws, and so does the deep walk, before it could
// exhaust memory.
const MAX_TEXT = 2 ** 29 - 24

// How many reads are under way: a toJSON may read again.
let reading = 0

/** `error` is V8 running out of stack (not, say, a string grown too long). */
function isStackOverflow(error) {
  return error instanceof RangeError && String(error.message).includes('call stack')
}

/**
 * The JSON text of `value`, as JSON.stringify writes it, at any depth. No JSON form (undefined, a
 * function, a symbol) is a TypeError; so are a BigInt and a cycle, as in JSON.stringify.
 */
export function jsonText(value) {
  if (reading >= MAX_NESTED_READS) {
    throw new RangeError(`repeat-tool-guard: arguments read again from within their own reading, more than ${MAX_NESTED_READS} deep (a toJSON that canonicalizes its own object?)`)
  }
  reading++
  let text
  try {
    text = JSON.stringify(value)
  } catch (error) {
    // Only the outermost read falls back: a read inside a read (a toJSON canonicalizing again)
    // would call the same toJSON again and again. Its overflow goes to its caller, as V8's does.
    if (reading > 1 || !isStackOverflow(error)) throw error
    text = deepJsonText(value)
  } finally {
    reading--
  }
  if (text === undefined) throw new TypeError(`repeat-tool-guard: arguments of type ${typeof value} have no JSON form`)
  return text
}

/**
 * A tool result as the detections that read results compare it, `{ content, isError }` with
 * `Boolean(isError)`, as JSON text; undefined for no result (`undefined` or `null`).
 */
export function resultText(result) {
  if (result === undefined || result === null) return undefined
  if (typeof result !== 'object' && typeof result !== 'function') {
    throw new TypeError(`repeat-tool-guard: a tool result must be an object with \`content\` and \`isError\`, got ${typeof result}`)
  }
  return jsonText({ content: result.content, isError: Boolean(result.isError) })
}

// Boxed primitives by their tag: the box's own valueOf, which throws unless the value really is one
// (the tag can be faked with Symbol.toStringTag), and how JSON.stringify converts a number or a string.
const BOXES = {
  '[object Number]': { valueOf: Number.prototype.valueOf, convert: Number },
  '[object String]': { valueOf: String.prototype.valueOf, convert: String },
  '[object Boolean]': { valueOf: Boolean.prototype.valueOf },
  '[object BigInt]': { valueOf: BigInt.prototype.valueOf },
}

/** A Number, String, Boolean or BigInt object as JSON.stringify unwraps it. */
function unbox(value) {
  if (typeof value !== 'object' || value === null) return value
  const tag = Object.prototype.toString.call(value)
  const box = Object.hasOwn(BOXES, tag) ? BOXES[tag] : undefined
  if (box === undefined) return value
  let primitive
  try {
    primitive = box.valueOf.call(value)
  } catch {
    return value
  }
  return box.convert === undefined ? primitive : box.convert(value)
}

/** JSON.stringify(root) without a depth limit; undefined where it gives undefined. */
function deepJsonText(root) {
  // The containers on the current path (for cycles), and for each whether it has an element yet.
  const open = new Set()
  const written = []
  let out = ''
  // `{ value, key, member }` to write a value (held under `key`, which toJSON receives; `member`:
  // an object's, left out when it has no JSON form); `{ close, container }` to end a container.
  const tasks = [{ value: root, key: '', member: false, top: true }]
  while (tasks.length > 0) {
    if (out.length > MAX_TEXT) throw new RangeError('Invalid string length')
    const task = tasks.pop()
    if (task.close !== undefined) {
      out += task.close
      written.pop()
      open.delete(task.container)
      continue
    }
    let value = task.value
    if ((typeof value === 'object' && value !== null) || typeof value === 'function' || typeof value === 'bigint') {
      const toJSON = value.toJSON
      if (typeof toJSON === 'function') value = toJSON.call(value, task.key)
    }
    value = unbox(value)
    const none = value === undefined || typeof value === 'function' || typeof value === 'symbol'
    if (none && task.top) return undefined
    if (none && task.member) continue
    if (written.length > 0) {
      if (written[written.length - 1]) out += ','
      written[written.length - 1] = true
    }
    if (task.member) out += `${JSON.stringify(task.key)}:`
    if (none || value === null) {
      out += 'null'
    } else if (typeof value === 'bigint') {
      throw new TypeError('Do not know how to serialize a BigInt')
    } else if (typeof value !== 'object') {
      // A boolean, a number (null when not finite) or a string, as JSON.stringify writes it.
      out += JSON.stringify(value)
    } else {
      if (open.has(value)) throw new TypeError('Converting circular structure to JSON')
      open.add(value)
      written.push(false)
      if (Array.isArray(value)) {
        // LengthOfArrayLike, as JSON.stringify reads it (a proxy may report any number).
        const length = Math.floor(Math.max(0, Math.min(Number(value.length) || 0, Number.MAX_SAFE_INTEGER)))
        // Every element takes at least one character and a comma.
        if (2 * length > MAX_TEXT - out.length) throw new RangeError('Invalid string length')
        out += '['
        tasks.push({ close: ']', container: value })
        for (let i = length - 1; i >= 0; i--) tasks.push({ value: value[i], key: String(i), member: false, top: false })
      } else {
        out += '{'
        tasks.push({ close: '}', container: value })
        const keys = Object.keys(value)
        for (let i = keys.length - 1; i >= 0; i--) tasks.push({ value: value[keys[i]], key: keys[i], member: true, top: false })
      }
    }
  }
  return out
}
