// What the framework adapters share: the guard made from the plugin's config as the plugin makes
// it (unknown keys warned first, in its words; then the class validates with its messages), and a
// word on `resume`, which reads a harness session and has no effect in a framework's loop.
import { RepeatToolGuard } from '../lib/guard.js'
import { unknownKeyWarning, unknownKeys } from '../lib/keys.js'

const RESUME_WARNING = '`resume` has no effect here: it rebuilds a harness session; a key continues a chain across runs'

/**
 * The guard of `config`, the `warn` of `options` (console.warn by default) and `announce`, which
 * tells `options.onReminder` of a delivered reminder, its failure only warned of: for
 * `loopGuard(config, options)`.
 */
export function adapterGuard(config, options) {
  if (options === null || typeof options !== 'object') throw new TypeError('loopGuard: options must be an object')
  const warn = options.warn ?? ((message) => console.warn(`repeat-tool-guard: ${message}`))
  // Before validating, as the plugin does: a typo is reported even when another value fails.
  for (const key of unknownKeys(config)) warn(unknownKeyWarning(key))
  const guard = new RepeatToolGuard(config)
  // As validated: a profile's settings count as given.
  if (guard.resume) warn(RESUME_WARNING)
  const { onReminder } = options
  const announce = (delivered) => {
    if (onReminder === undefined) return
    try {
      onReminder(delivered)
    } catch (error) {
      warn(`an onReminder listener failed: ${error?.message ?? error}`)
    }
  }
  return { guard, warn, announce }
}
