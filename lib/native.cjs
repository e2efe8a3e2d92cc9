// Loads the native addon through the generated loader (binding.cjs). When no binary for this
// platform loads, throws one clear error (missing-binary.cjs) instead of napi's generic one; the
// generated loader's errors stay attached as `cause`.
'use strict'

let binding
try {
  binding = require('../binding.cjs')
} catch (cause) {
  throw require('./missing-binary.cjs').missingBinaryError(cause)
}

module.exports = binding
