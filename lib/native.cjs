// Loads the native addon through the generated loader (binding.cjs): the platform's binary, or the
// WebAssembly (WASI) build when no binary loads or NAPI_RS_FORCE_WASI asks for it. When neither
// loads, throws one clear error (missing-binary.cjs) instead of napi's generic one; the generated
// loader's errors stay attached as `cause`.
'use strict'

// The generated loader takes NAPI_RS_FORCE_WASI=true (prefer WASI, else native) and =error (WASI
// or fail); 1 is read as true, for this load only.
const forced = process.env.NAPI_RS_FORCE_WASI
if (forced === '1') process.env.NAPI_RS_FORCE_WASI = 'true'

// emnapi, which runs the WASI build, turns the UTF-16 strings the addon makes (reminder texts, tool
// names) into JavaScript strings with a TextDecoder('utf-16le') it makes while the module loads:
// that decoder replaces a lone surrogate with U+FFFD and drops a leading U+FEFF, where Node-API
// keeps every code unit. During the load, that one decoder is an exact one.
const NativeTextDecoder = globalThis.TextDecoder
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1
const exactUtf16 = {
  decode(view) {
    const length = view.byteLength >>> 1
    let units
    if (littleEndian && view.byteOffset % 2 === 0) units = new Uint16Array(view.buffer, view.byteOffset, length)
    else {
      // The module's memory is little-endian, whatever the machine's byte order.
      units = new Uint16Array(length)
      const bytes = new DataView(view.buffer, view.byteOffset, view.byteLength)
      for (let i = 0; i < length; i++) units[i] = bytes.getUint16(i * 2, true)
    }
    let text = ''
    for (let i = 0; i < units.length; i += 4096) text += String.fromCharCode.apply(null, units.subarray(i, i + 4096))
    return text
  },
}
class LoadTextDecoder extends NativeTextDecoder {
  constructor(label, options) {
    super(label, options)
    // A constructor returning an object gives that object to `new`.
    if (label === 'utf-16le' && options === undefined) return exactUtf16
  }
}
if (typeof NativeTextDecoder === 'function') globalThis.TextDecoder = LoadTextDecoder

let binding
try {
  binding = require('../binding.cjs')
} catch (cause) {
  throw require('./missing-binary.cjs').missingBinaryError(cause)
} finally {
  if (typeof NativeTextDecoder === 'function') globalThis.TextDecoder = NativeTextDecoder
  if (forced === '1') process.env.NAPI_RS_FORCE_WASI = forced
}

module.exports = binding
