// The addon's own guard, as the plugin holds it (its `__handle` for the hot path), with `observe`
// and `restore` taking a call's values as the exported class's do: lib/guard.js' `callOf` turns
// them into what the native methods take.
import { createRequire } from 'node:module'
import { callOf } from '../../lib/guard.js'

export const binding = createRequire(import.meta.url)('../../lib/native.cjs')

export function nativeGuard(config) {
  const guard = new binding.RepeatToolGuard(config)
  const { observe, restore } = guard
  guard.observe = (...call) => observe.apply(guard, callOf(guard, ...call))
  guard.restore = (...call) => restore.apply(guard, callOf(guard, ...call))
  return guard
}
